import { assert, describe, expect, it } from 'vitest';
import { ClusterState, encodeCommand } from '../../../actors/index.ts';
import type { ChangeEvent, Command } from '../../../actors/index.ts';
import { writeSliced } from '../../../raft/node/snapshot-schedule.ts';
import { initialDeletion } from '../../../actors/machines/deletion.ts';
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
    // The same values; the bytes may differ where the parts shared differ (the interner's table holds the original's parts, not the restored copies)
    expect(inlineText(restored.snapshot())).toBe(inlineText(original.snapshot()));
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

  it('snapshotView() captures the state at its index: its bytes are snapshot()\'s then, whatever is applied later', async () => {
    const commands = workload();
    const s = new ClusterState();
    applyAll(s, commands.slice(0, 20));
    const expected = s.snapshot();
    const view = s.snapshotView();
    expect(view.index).toBe(20);
    applyAll(s, commands.slice(20), 21);
    expect(Buffer.from(await writeSliced(view.chunks(), 0)).equals(Buffer.from(expected))).toBe(true);
    expect(Buffer.from(await writeSliced(s.snapshotView().chunks())).equals(Buffer.from(s.snapshot()))).toBe(true);
  });

  it('a large state is written in many small chunks, and the driver yields between slices of them', async () => {
    const s = new ClusterState();
    const key = cmKey('default', 'big');
    const commands: Command[] = [create(ns), create(key, objectFor(key, { data: { v: 'x'.repeat(1000) } }))];
    for (let i = 0; i < 3000; i++) commands.push(update(key, objectFor(key, { data: { v: `${i}`.padEnd(1000, 'y') } })));
    applyAll(s, commands);
    const sizes = [...s.snapshotView().chunks()].map((chunk) => chunk.byteLength);
    expect(sizes.length).toBeGreaterThan(50);
    expect(Math.max(...sizes)).toBeLessThan(200_000);
    let turns = 0;
    const ticking = setInterval(() => { turns += 1; }, 0);
    const bytes = await writeSliced(s.snapshotView().chunks(), 1);
    clearInterval(ticking);
    expect(bytes.byteLength).toBe(sizes.reduce((sum, size) => sum + size, 0));
    expect(turns).toBeGreaterThan(0);
  });

  it('snapshotView() chunks are views into one reused buffer, grown for a piece that does not fit; copied as they come they are snapshot()', async () => {
    const s = new ClusterState();
    const key = cmKey('default', 'wide');
    // Pieces of multi-byte UTF-8 (2, 3 and 4 bytes per character), one larger than the buffer.
    const smalls = Array.from({ length: 300 }, (_, i) => create(cmKey('default', `small-${i}`)));
    applyAll(s, [create(ns), ...smalls.slice(0, 150), create(key, objectFor(key, { data: { v: 'é€😀'.repeat(200_000) } })), ...smalls.slice(150)]);
    const buffers = new Set<ArrayBufferLike>();
    let chunks = 0;
    for (const chunk of s.snapshotView().chunks()) {
      buffers.add(chunk.buffer);
      chunks += 1;
    }
    expect(buffers.size).toBeLessThanOrEqual(2); // the first buffer, and the one grown for the wide object
    expect(chunks).toBeGreaterThan(10);
    expect(Buffer.from(await writeSliced(s.snapshotView().chunks(), 0)).equals(Buffer.from(s.snapshot()))).toBe(true);
    const restored = new ClusterState();
    restored.restore(await writeSliced(s.snapshotView().chunks()), s.appliedIndex());
    expect(restored.get(key)).toEqual(s.get(key));
  });

  it('writes each distinct object once (previous and session results refer to it) and restores the same answers', () => {
    const s = new ClusterState();
    const key = cmKey('default', 'cm');
    const commands: Command[] = [create(ns), create(key)];
    for (let i = 0; i < 200; i++) commands.push(update(key, objectFor(key, { data: { v: `${i}`.padEnd(700, '.') } })));
    const results = commands.map((command, i) => s.apply(entry(i + 1, command, { id: `session-${i % 50}`, sequence: i + 1 })));
    const bytes = s.snapshot();
    const inline = asFormat1(bytes);
    // 200 versions, each once in the object table instead of up to three times inline
    expect(bytes.byteLength * 2).toBeLessThan(inline.byteLength);
    const restored = new ClusterState();
    restored.restore(bytes, commands.length);
    let index = commands.length;
    for (let i = commands.length - 50; i < commands.length; i++) {
      // a retried proposal gets the same answer from the restored replica
      index += 1;
      const retry = entry(index, commands[i] as Command, { id: `session-${i % 50}`, sequence: i + 1 });
      expect(restored.apply(retry)).toEqual(results[i]);
      expect(s.apply(retry)).toEqual(results[i]);
    }
    expect(inlineText(restored.snapshot())).toBe(inlineText(s.snapshot()));
    expect(restored.eventsSince(0)).toEqual(s.eventsSince(0));
  });

  it('restored records share the initial lifecycle and keep their transitions, authors included, byte for byte', () => {
    const s = new ClusterState();
    const keys = [cmKey('default', 'a'), cmKey('default', 'b'), cmKey('default', 'c')];
    const commands: Command[] = [create(ns), ...keys.map((key, i): Command => ({ type: 'create', key, object: objectFor(key, { finalizers: i === 2 ? ['f'] : [] }), at: at(i), by: 'admin' }))];
    applyAll(s, commands);
    const bytes = s.snapshot();
    const restored = new ClusterState();
    restored.restore(bytes, commands.length);
    expect(Buffer.from(restored.snapshot()).equals(Buffer.from(bytes))).toBe(true);
    for (const key of keys) expect(restored.lifecycleOf(key)).toEqual(s.lifecycleOf(key));
    expect(restored.lifecycleOf(keys[0]!)?.transitions[0]).toEqual({ event: 'CREATE', from: null, to: 'live', revision: 2, at: at(0), by: 'admin' });
    expect(restored.lifecycleOf(keys[1]!)?.context).toBe(restored.lifecycleOf(keys[0]!)?.context);
    expect(restored.lifecycleOf(keys[2]!)?.context).not.toBe(restored.lifecycleOf(keys[0]!)?.context);
    expect(Object.isFrozen(restored.lifecycleOf(keys[0]!)?.transitions[0])).toBe(true);
    // an event shares its record's key, lifecycle context and transitions, as apply() made them
    const added = restored.eventsSince(0);
    assert(added.type === 'events');
    const event = added.events.find((candidate) => candidate.key.name === 'a');
    expect(event?.key).toBe(restored.keyedObjects().find((record) => record.key.name === 'a')?.key);
    expect(event?.lifecycle?.transitions).toBe(restored.lifecycleOf(keys[0]!)?.transitions);
    expect(event?.lifecycle?.context).toBe(restored.lifecycleOf(keys[0]!)?.context);
    expect(added.events).toEqual((s.eventsSince(0) as typeof added).events);
  });

  it('restores records written in any order (an index built by insertion) and writes them back in key order', () => {
    const commands = workload();
    const s = new ClusterState();
    applyAll(s, commands);
    const bytes = s.snapshot();
    // Format 2 (format 3's events name records by their position as written).
    const json = JSON.parse(new TextDecoder().decode(asFormat2(bytes))) as { records: unknown[] };
    expect(json.records.length).toBeGreaterThan(2);
    json.records.reverse();
    const restored = new ClusterState();
    restored.restore(new TextEncoder().encode(JSON.stringify(json)), commands.length);
    expect(inlineText(restored.snapshot())).toBe(inlineText(bytes));
    const duplicated = JSON.parse(new TextDecoder().decode(asFormat2(bytes))) as { records: unknown[] };
    duplicated.records.push(duplicated.records[0]);
    expect(() => new ClusterState().restore(new TextEncoder().encode(JSON.stringify(duplicated)), commands.length)).toThrow(/unique/);
  });

  it('writes format 4: the initial live lifecycle and what events share with their record as references; formats 4, 3 and 2 restore to the same state', () => {
    const commands = workload();
    const s = new ClusterState();
    applyAll(s, commands);
    const bytes = s.snapshot();
    const json = JSON.parse(new TextDecoder().decode(bytes)) as { version: number; records: RecordJson[]; history: { entries: { event: EventJson }[] } };
    expect(json.version).toBe(4);
    expect(json.records.filter((record) => record.lifecycle === 0).length).toBeGreaterThan(0);
    expect(json.records.filter((record) => record.lifecycle !== 0).length).toBeGreaterThan(0); // finalizers: not the initial one
    const events = json.history.entries.map((entry) => entry.event);
    expect(events.filter((event) => typeof event.key === 'number' && event.lifecycle?.context === 0 && event.lifecycle.transitions === 0).length).toBeGreaterThan(0);
    expect(events.filter((event) => typeof event.key === 'object').length).toBeGreaterThan(0); // deleted objects have no record
    const format2 = asFormat2(bytes);
    expect(bytes.byteLength).toBeLessThan(format2.byteLength);
    for (const written of [bytes, asFormat3(bytes), format2]) {
      const restored = new ClusterState();
      restored.restore(written, commands.length);
      expect(inlineText(restored.snapshot())).toBe(inlineText(bytes));
      expect(restored.eventsSince(0)).toEqual(s.eventsSince(0));
      for (const key of [cmKey('default', 'c0'), cmKey('other', 'c1'), ns]) expect(restored.lifecycleOf(key)).toEqual(s.lifecycleOf(key));
      const restoredEvents = restored.eventsSince(0);
      assert(restoredEvents.type === 'events');
      for (const event of restoredEvents.events) {
        const record = restored.keyedObjects().find((candidate) => candidate.key.name === event.key.name && candidate.key.namespace === event.key.namespace && candidate.key.resource === event.key.resource);
        if (record !== undefined) expect(event.key).toBe(record.key);
        expect(Object.isFrozen(event)).toBe(true);
      }
    }
  });

  it('refuses a format-3 event that names a record position the snapshot does not have', () => {
    const s = new ClusterState();
    applyAll(s, [create(ns), create(cmKey('default', 'a'))]);
    const json = JSON.parse(new TextDecoder().decode(s.snapshot())) as { history: { entries: { event: { key: unknown } }[] } };
    json.history.entries[0]!.event.key = 99;
    expect(() => new ClusterState().restore(new TextEncoder().encode(JSON.stringify(json)), 2)).toThrow(/record's position/);
  });

  it('restores format 1 (objects inline) to the same state', () => {
    const commands = workload();
    const s = new ClusterState();
    applyAll(s, commands);
    const restored = new ClusterState();
    restored.restore(asFormat1(s.snapshot()), commands.length);
    expect(inlineText(restored.snapshot())).toBe(inlineText(s.snapshot()));
    expect(Object.isFrozen(restored.get(ns))).toBe(true);
    expect(restored.eventsSince(0)).toEqual(s.eventsSince(0));
  });
});

interface RecordJson { key: unknown; lifecycle: { context: unknown } | 0; transitions: unknown }
interface EventJson { key: unknown; lifecycle?: { context: unknown; transitions: unknown } }

/**
 * A format-4 snapshot rewritten as format 3, as version 3 wrote it: every object in full (each
 * reference {"$":n} within 64 levels of an object or part replaced by part n, each wrapper
 * {"$":-1,"v":o} by o), no parts table.
 */
function asFormat3(bytes: Uint8Array): Uint8Array {
  const json = JSON.parse(new TextDecoder().decode(bytes)) as { version: number; objects: unknown[]; parts: unknown[] };
  expect(json.version).toBe(4);
  const inline = (value: unknown, depth: number): unknown => {
    if (typeof value !== 'object' || value === null || depth > 64) return value;
    if (Array.isArray(value)) return value.map((item) => inline(item, depth + 1));
    let object = value as Record<string, unknown>;
    if (Object.hasOwn(object, '$')) {
      if (object['$'] !== -1) return inline(json.parts[object['$'] as number], 0);
      object = object['v'] as Record<string, unknown>;
    }
    const copy: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(object)) Object.defineProperty(copy, key, { value: inline(member, depth + 1), enumerable: true, writable: true, configurable: true });
    return copy;
  };
  const { parts: _parts, ...rest } = json;
  return new TextEncoder().encode(JSON.stringify({ ...rest, version: 3, objects: json.objects.map((object) => inline(object, 0)) }));
}

/** A snapshot's text with every object in full (format 3): the same state gives the same text, whatever parts were shared. */
function inlineText(bytes: Uint8Array): string {
  return new TextDecoder().decode(asFormat3(bytes));
}

/**
 * A format-4 snapshot rewritten as format 2, as version 2 wrote it: every object in full, a record's initial live
 * lifecycle, and an event's key, lifecycle context and transitions that are its record's, inline.
 */
function asFormat2(format4: Uint8Array): Uint8Array {
  const bytes = asFormat3(format4);
  const json = JSON.parse(new TextDecoder().decode(bytes)) as { version: number; records: RecordJson[]; history: { entries: { event: EventJson }[] } };
  expect(json.version).toBe(3);
  const live = JSON.parse(JSON.stringify(initialDeletion({ finalizers: [] }))) as { context: unknown };
  const inline = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
  const records = json.records.map((record) => (record.lifecycle === 0 ? { ...record, lifecycle: live } : record));
  const entries = json.history.entries.map((entry) => {
    const { event } = entry;
    if (typeof event.key !== 'number') return entry;
    const record = records[event.key]!;
    const lifecycle = event.lifecycle === undefined ? undefined : {
      ...event.lifecycle,
      context: event.lifecycle.context === 0 ? inline((record.lifecycle as { context: unknown }).context) : event.lifecycle.context,
      transitions: event.lifecycle.transitions === 0 ? inline(record.transitions) : event.lifecycle.transitions,
    };
    return { ...entry, event: lifecycle === undefined ? { ...event, key: inline(record.key) } : { ...event, key: inline(record.key), lifecycle } };
  });
  return new TextEncoder().encode(JSON.stringify({ ...json, version: 2, records, history: { ...json.history, entries } }));
}

/** A format-4 snapshot rewritten as format 1 (every object inline), as version 1 wrote it. */
function asFormat1(format4: Uint8Array): Uint8Array {
  const bytes = asFormat2(format4);
  interface V2 {
    objects: unknown[];
    appliedIndex: number;
    records: { object: number }[];
    history: { compactedRevision: number; newestAtMillis: number | null; entries: { event: { object: number; previous?: number }; atMillis: number }[] };
    sessions: { result: { object?: number } }[];
  }
  const json = JSON.parse(new TextDecoder().decode(bytes)) as V2;
  const object = (position: number): unknown => json.objects[position];
  const v1 = {
    version: 1,
    appliedIndex: json.appliedIndex,
    records: json.records.map((record) => ({ ...record, object: object(record.object) })),
    history: {
      compactedRevision: json.history.compactedRevision,
      newestAtMillis: json.history.newestAtMillis,
      entries: json.history.entries.map(({ event, atMillis }) => ({
        event: event.previous === undefined ? { ...event, object: object(event.object) } : { ...event, object: object(event.object), previous: object(event.previous) },
        atMillis,
      })),
    },
    sessions: json.sessions.map((session) => (session.result.object === undefined ? session : { ...session, result: { ...session.result, object: object(session.result.object) } })),
  };
  return new TextEncoder().encode(JSON.stringify(v1));
}
