import { describe, expect, it } from 'vitest';
import { ClusterState } from '../../../actors/index.ts';
import { JsonInterner, stringHash } from '../../../actors/json-intern.ts';
import { cmKey, create, entry, nsKey, objectFor } from './fixtures.ts';

function managedFields(time: string): unknown[] {
  return [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }];
}

function objectNamed(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels: { app: 'web', tier: 'front' }, managedFields: managedFields('2026-01-01T00:00:00Z'), finalizers: [] },
    data: { a: `value of ${name}` },
  };
}

describe('JsonInterner', () => {
  it('keeps values, key order and bytes, freezes everything, and never replaces the root', () => {
    const interner = new JsonInterner();
    const original = objectNamed('one');
    const text = JSON.stringify(original);
    const root = objectNamed('one');
    const compacted = interner.compactFrozen(root);
    expect(compacted).toBe(root);
    expect(JSON.stringify(compacted)).toBe(text);
    expect(compacted).toEqual(original);
    expect(Object.isFrozen(compacted)).toBe(true);
    expect(Object.isFrozen((compacted['metadata'] as Record<string, unknown>)['labels'])).toBe(true);
  });

  it('shares equal small subtrees and short strings between objects, not the parts that differ', () => {
    const interner = new JsonInterner();
    const first = interner.compactFrozen(objectNamed('first')) as { metadata: Record<string, unknown>; data: Record<string, string> };
    const second = interner.compactFrozen(objectNamed('second')) as { metadata: Record<string, unknown>; data: Record<string, string> };
    expect(second.metadata['labels']).toBe(first.metadata['labels']);
    const fieldsOf = (object: { metadata: Record<string, unknown> }) => (object.metadata['managedFields'] as { fieldsV1: unknown }[])[0]!.fieldsV1;
    expect(fieldsOf(second)).toBe(fieldsOf(first));
    expect(second.metadata['managedFields']).not.toBe(first.metadata['managedFields']); // longer than what is shared
    expect(second.metadata['finalizers']).toBe(first.metadata['finalizers']);
    expect(second.metadata).not.toBe(first.metadata);
    expect(second.data).not.toBe(first.data);
    expect(second.data.a).toBe('value of second');
  });

  it('tells apart subtrees that differ only in key order, value type or an undefined field', () => {
    const interner = new JsonInterner();
    const a = interner.compactFrozen({ x: { p: 1, q: 2 }, y: { n: 1 }, z: { u: undefined as unknown } });
    const b = interner.compactFrozen({ x: { q: 2, p: 1 }, y: { n: '1' }, z: {} });
    expect(Object.keys(b.x)).toEqual(['q', 'p']);
    expect(b.y).toEqual({ n: '1' });
    expect(Object.keys(b.z)).toEqual([]);
    expect(Object.keys(a.z)).toEqual(['u']);
  });

  it('keeps an own "__proto__" key as JSON.parse made it', () => {
    const interner = new JsonInterner();
    interner.compactFrozen(JSON.parse('{"o":{"v":{}}}') as unknown);
    const parsed = JSON.parse('{"o":{"__proto__":{}}}') as Record<string, unknown>;
    const text = JSON.stringify(parsed);
    interner.compactFrozen(parsed);
    expect(JSON.stringify(parsed)).toBe(text);
    expect(Object.getPrototypeOf(parsed['o'])).toBe(Object.prototype);
  });

  it('leaves parts frozen already as they are, and freezes values deeper than it walks', () => {
    const interner = new JsonInterner();
    const shared = Object.freeze({ app: 'web' });
    const value = interner.compactFrozen({ labels: shared });
    expect(value.labels).toBe(shared);
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let level = 0; level < 500; level++) deep = { next: deep };
    interner.compactFrozen(deep);
    let cursor: Record<string, unknown> | undefined = deep;
    let frozen = true;
    while (cursor !== undefined) {
      frozen &&= Object.isFrozen(cursor);
      cursor = cursor['next'] as Record<string, unknown> | undefined;
    }
    expect(frozen).toBe(true);
  });

  it('does not share subtrees whose texts only hash alike', () => {
    // Two different strings of one length with the same hash: found by the birthday bound among
    // a few hundred thousand (the hash has 32 bits).
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let index = 0; pair === undefined && index < 2_000_000; index++) {
      const candidate = `c${index.toString(36).padStart(7, '0')}`;
      const other = seen.get(stringHash(candidate));
      if (other !== undefined) pair = [other, candidate];
      else seen.set(stringHash(candidate), candidate);
    }
    expect(pair).toBeDefined();
    const [left, right] = pair!;
    expect(left).not.toBe(right);
    const interner = new JsonInterner();
    const first = interner.compactFrozen({ wrap: { v: left, n: 1 } });
    const second = interner.compactFrozen({ wrap: { v: right, n: 1 } });
    const third = interner.compactFrozen({ wrap: { v: right, n: 1 } });
    expect(second.wrap).not.toBe(first.wrap);
    expect(second.wrap.v).toBe(right);
    expect(first.wrap.v).toBe(left);
    // The later one took the hash's place in the table: its equal is shared with it.
    expect(third.wrap).toBe(second.wrap);
  });

  it('stays bounded', () => {
    const interner = new JsonInterner();
    for (let index = 0; index < 30_000; index++) interner.compactFrozen({ o: { name: `n${index}` } });
    expect(interner.size.strings).toBeLessThanOrEqual(20_000);
    expect(interner.size.subtrees).toBeLessThanOrEqual(20_000);
  });
});

describe('stored records share what objects have in common', () => {
  it('records created without finalizers share one lifecycle, also after a snapshot restore, with the same snapshot bytes', () => {
    const state = new ClusterState();
    const ns = nsKey('default');
    state.apply(entry(1, create(ns)));
    state.apply(entry(2, create(cmKey('default', 'a'), objectFor(cmKey('default', 'a'), { data: { v: '1' } }))));
    state.apply(entry(3, create(cmKey('default', 'b'), objectFor(cmKey('default', 'b'), { data: { v: '2' } }))));
    state.apply(entry(4, create(cmKey('default', 'c'), objectFor(cmKey('default', 'c'), { data: { v: '3' }, finalizers: ['f'] }))));
    const lifecycle = (name: string, from: ClusterState) => from.lifecycleOf(cmKey('default', name));
    expect(lifecycle('a', state)?.context).toBe(lifecycle('b', state)?.context);
    expect(lifecycle('c', state)?.context.finalizers).toEqual(['f']);
    const bytes = state.snapshot();
    const restored = new ClusterState();
    restored.restore(bytes, 4);
    expect(lifecycle('a', restored)?.context).toBe(lifecycle('b', restored)?.context);
    expect(lifecycle('a', restored)).toEqual(lifecycle('a', state));
    expect(lifecycle('c', restored)).toEqual(lifecycle('c', state));
    expect(Buffer.from(restored.snapshot()).equals(Buffer.from(bytes))).toBe(true);
  });
  it('shares a subtree exactly when its canonical text, without the closing bracket, is at most 160 characters', () => {
    // The canonical text as the interner defines it: strings and keys length-prefixed, numbers
    // `n<value>`, a child's text then a comma.
    const canonical = (value: unknown): string => {
      if (typeof value === 'string') return `${value.length}'${value}`;
      if (typeof value === 'number') return `n${value}`;
      if (Array.isArray(value)) return `[${value.map((item) => `${canonical(item)},`).join('')}]`;
      return `{${Object.entries(value as Record<string, unknown>).map(([key, item]) => `${key.length}:${key}=${canonical(item)},`).join('')}}`;
    };
    let sharedSeen = 0;
    let unsharedSeen = 0;
    for (let filler = 30; filler <= 64; filler++) {
      for (const shape of ['object', 'array'] as const) {
        const make = (): unknown => (shape === 'object'
          ? { a: 'x'.repeat(60), bb: 7, c: ['y'.repeat(20)], d: 'z'.repeat(filler) }
          : ['x'.repeat(60), 7, 'y'.repeat(24), 'z'.repeat(filler)]);
        const interner = new JsonInterner();
        const first = interner.compactFrozen({ wrap: make() });
        const second = interner.compactFrozen({ wrap: make() });
        const prefixLength = canonical(make()).length - 1;
        const shared = second.wrap === first.wrap;
        expect(shared, `${shape} with a text of ${prefixLength} characters`).toBe(prefixLength <= 160);
        if (shared) sharedSeen += 1;
        else unsharedSeen += 1;
      }
    }
    expect(sharedSeen).toBeGreaterThan(0);
    expect(unsharedSeen).toBeGreaterThan(0);
  });
});
