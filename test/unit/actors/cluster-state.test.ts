import { describe, expect, it } from 'vitest';
import { ClusterState, encodeCommand } from '../../../actors/index.ts';
import type { ChangeEvent, Command } from '../../../actors/index.ts';
import { at, cmKey, copy, create, entry, nsKey, objectFor, remove, update } from './fixtures.ts';

const ns = nsKey('default');
const other = nsKey('other');

/** A scripted workload touching every command kind, for snapshot comparisons. */
function workload(): Command[] {
  const commands: Command[] = [create(ns), create(other)];
  for (let i = 0; i < 30; i++) {
    const key = cmKey(i % 2 === 0 ? 'default' : 'other', `c${i % 3}`);
    const object = objectFor(key, { data: { i: String(i) }, finalizers: i % 4 === 0 ? ['f'] : [] });
    const kind = i % 5;
    commands.push(kind < 2 ? create(key, object, at(i)) : kind === 2 ? update(key, object, undefined, at(i)) : kind === 3 ? remove(key, undefined, at(i)) : { type: 'noop' });
  }
  return commands;
}

function applyAll(state: ClusterState, commands: Command[], from = 1) {
  return commands.map((command, i) => state.apply(entry(from + i, command, { id: 'session', sequence: from + i })));
}

describe('ClusterState apply and reads', () => {
  it('records appliedIndex for every entry, noop included', () => {
    const s = new ClusterState();
    expect(s.appliedIndex()).toBe(0);
    expect(s.apply({ index: 1, term: 1, data: new Uint8Array() })).toEqual({ type: 'noop', revision: 1 });
    expect(s.apply(entry(2, { type: 'noop' }))).toEqual({ type: 'noop', revision: 2 });
    expect(s.appliedIndex()).toBe(2);
  });

  it('get and list return stored objects in key order; namespace "" lists all namespaces', () => {
    const s = new ClusterState();
    applyAll(s, [create(ns), create(other), create(cmKey('other', 'b')), create(cmKey('default', 'z')), create(cmKey('default', 'a'))]);
    const names = (namespace: string) => s.list({ group: '', resource: 'configmaps', namespace }).items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(names('default')).toEqual(['default/a', 'default/z']);
    expect(names('')).toEqual(['default/a', 'default/z', 'other/b']);
    expect(s.list({ group: '', resource: 'namespaces', namespace: '' }).items.map((o) => o.metadata.name)).toEqual(['default', 'other']);
    expect(s.list({ group: '', resource: 'configmaps', namespace: '' }).revision).toBe(5);
    expect(s.get(cmKey('default', 'a'))?.metadata.resourceVersion).toBe('5');
    expect(s.get(cmKey('default', 'nope'))).toBeUndefined();
  });

  it('returns frozen objects: callers cannot alias-mutate state', () => {
    const s = new ClusterState();
    applyAll(s, [create(ns)]);
    const object = s.get(ns);
    expect(object && Object.isFrozen(object.metadata)).toBe(true);
    expect(() => { if (object) object.metadata.labels = { x: 'y' }; }).toThrow(TypeError);
    const editable = copy(object);
    if (editable) editable.metadata.labels = { x: 'y' };
    expect(s.get(ns)?.metadata.labels).toBeUndefined();
  });

  it('subscribers see every entry in revision order, and can unsubscribe', () => {
    const s = new ClusterState();
    const seen: ChangeEvent[][] = [];
    const unsubscribe = s.subscribe((events) => seen.push([...events]));
    const commands = workload();
    applyAll(s, commands);
    expect(seen).toHaveLength(commands.length);
    const revisions = seen.flat().map((e) => e.revision);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(revisions.length).toBeGreaterThan(10);
    const since = s.eventsSince(0);
    expect(since.type === 'events' && since.events).toEqual(seen.flat());
    unsubscribe();
    s.apply(entry(commands.length + 1, { type: 'noop' }));
    expect(seen).toHaveLength(commands.length);
  });

  it('rejects malformed entries as invalid without changing state', () => {
    const s = new ClusterState();
    applyAll(s, [create(ns)]);
    const before = s.snapshot();
    const seen: number[] = [];
    s.subscribe((events) => seen.push(events.length));
    const bad = [
      new TextEncoder().encode('{not json'),
      new TextEncoder().encode('null'),
      new TextEncoder().encode('{"version":2,"command":{"type":"noop"}}'),
      new TextEncoder().encode('{"version":1,"command":{"type":"explode"}}'),
      new TextEncoder().encode('{"version":1,"command":{"type":"create","key":{"group":""},"object":{},"at":"x"}}'),
      encodeCommand({ version: 1, command: { type: 'create', key: cmKey('default', 'a'), object: objectFor(cmKey('default', 'a')), at: 'not a time' } }),
      new TextEncoder().encode(JSON.stringify({ version: 1, command: { type: 'update', key: cmKey('default', 'a'), object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { finalizers: [1] } }, at: at(0) } })),
      new TextEncoder().encode(JSON.stringify({ version: 1, command: { type: 'noop' }, session: { id: 7, sequence: 1 } })),
    ];
    bad.forEach((data, i) => {
      const result = s.apply({ index: 2 + i, term: 1, data });
      expect(result.type).toBe('invalid');
    });
    expect(seen).toEqual(bad.map(() => 0));
    expect(s.appliedIndex()).toBe(1 + bad.length);
    const after = JSON.parse(new TextDecoder().decode(s.snapshot())) as { appliedIndex: number };
    expect({ ...after, appliedIndex: 1 }).toEqual(JSON.parse(new TextDecoder().decode(before)));
  });

  it('lifecycleOf reports the machine state, context and transitions', () => {
    const s = new ClusterState();
    const key = cmKey('default', 'f');
    applyAll(s, [create(ns), create(key, objectFor(key, { finalizers: ['f'] }), at(1)), remove(key, undefined, at(2))]);
    expect(s.lifecycleOf(key)).toEqual({
      state: 'finalizing',
      context: { finalizers: ['f'], deletionTimestamp: at(2) },
      transitions: [
        { event: 'CREATE', from: null, to: 'live', revision: 2, at: at(1) },
        { event: 'DELETE', from: 'live', to: 'finalizing', revision: 3, at: at(2) },
      ],
    });
    expect(s.lifecycleOf(cmKey('default', 'none'))).toBeUndefined();
  });

  it('asserts that entries arrive in order', () => {
    const s = new ClusterState();
    expect(() => s.apply(entry(2, { type: 'noop' }))).toThrow(/in order/);
  });
});

describe('ClusterState snapshot and restore', () => {
  it('restores exactly: same snapshot bytes and identical subsequent behaviour', () => {
    const commands = workload();
    const original = new ClusterState();
    applyAll(original, commands.slice(0, 20));
    const bytes = original.snapshot();
    const restored = new ClusterState();
    restored.restore(bytes, 20);
    expect(restored.appliedIndex()).toBe(20);
    expect(Buffer.from(restored.snapshot()).equals(Buffer.from(bytes))).toBe(true);

    const rest = commands.slice(20);
    const seenA: ChangeEvent[] = [];
    const seenB: ChangeEvent[] = [];
    original.subscribe((e) => seenA.push(...e));
    restored.subscribe((e) => seenB.push(...e));
    expect(applyAll(restored, rest, 21)).toEqual(applyAll(original, rest, 21));
    expect(seenB).toEqual(seenA);
    expect(Buffer.from(restored.snapshot()).equals(Buffer.from(original.snapshot()))).toBe(true);
    expect(restored.eventsSince(0)).toEqual(original.eventsSince(0));
    // a retry of an already-applied session sequence is still deduplicated after restore
    expect(restored.apply(entry(commands.length + 1, commands[0] as Command, { id: 'session', sequence: commands.length })).type)
      .toBe(original.apply(entry(commands.length + 1, commands[0] as Command, { id: 'session', sequence: commands.length })).type);
  });

  it('restored objects are frozen and replace the previous state entirely', () => {
    const a = new ClusterState();
    applyAll(a, [create(ns)]);
    const b = new ClusterState();
    applyAll(b, [create(other), create(nsKey('third'))]);
    b.restore(a.snapshot(), 1);
    expect(b.list({ group: '', resource: 'namespaces', namespace: '' }).items.map((o) => o.metadata.name)).toEqual(['default']);
    expect(Object.isFrozen(b.get(ns))).toBe(true);
    expect(() => b.restore(a.snapshot(), 7)).toThrow(/snapshot is at 1/);
  });
});
