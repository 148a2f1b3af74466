// Owns: the replicated state machine raft/ drives (StateMachine<CommandResult>): decoding
// each committed entry, applying it, the applied index, change notification to in-process
// subscribers, the read side for the API tier in the same process (get, list, eventsSince,
// lifecycleOf), and whole-state snapshots.
// Snapshots (format 4): every distinct object is written once, in an `objects` table, and
// records, history events (object and previous) and session results refer to it by position; at
// a steady update load an object version otherwise appears three times (the record or an event's
// object, the next event's previous, a session's result), all one frozen object in memory.
// Objects are told apart by identity (apply() shares them deterministically, and a restore gives
// one object per position back); positions are assigned in the order of first occurrence in a
// fixed traversal. The objects' sub-parts that are one object in several places are written once
// too, in a `parts` table (snapshot-parts.ts), so a restore gets the sharing back without looking
// parts up by content. Which sub-parts are shared depends on the interner's bounded tables, so two
// replicas in the same state write the same values, not always the same bytes. The format also
// writes what restore() shares anyway as references, by content: a record's lifecycle that is the
// initial live one as 0, and an event's key that is a record's (by the record's position), with
// its lifecycle context and transitions when they are that record's (as 0). snapshotView() captures the state in O(n)
// shallow copies (stored records, events and session entries are immutable) and serialises
// it later chunk by chunk (the driver yields to its event loop between slices of chunks and
// keeps applying meanwhile), encoding into one reused buffer: a chunk is valid until the next.
// restore() reads formats 1 to 4.
// Must not: read a clock, random numbers or I/O; reach into raft/ beyond its state-machine
// types; or hand out mutable internal state. Stored objects and events are deep-frozen when
// written and returned as they are (no copy: list costs O(log n + k), not a clone of every
// item); a caller that wants to edit one copies it first (e.g. structuredClone).
import type { CommittedEntry, StateMachine } from '../raft/index.ts';
import { assert } from '../raft/stdx/index.ts';
import { applyCommand, createStoreState, defaultStoreLimits } from './apply.ts';
import type { StoreLimits, StoreState } from './apply.ts';
import { tryDecodeCommand } from './command-check.ts';
import type { ChangeEvent } from './events.ts';
import { deepFreeze } from './json.ts';
import { storedJson } from './json-intern.ts';
import { History } from './mvcc/history.ts';
import type { EventsSince, HistoryEntry, HistoryJson } from './mvcc/history.ts';
import { ObjectIndex } from './mvcc/object-index.ts';
import { RangeCache } from './mvcc/range-cache.ts';
import { collectionPrefix, keyString } from './object.ts';
import type { CollectionKey, KubeObject, ObjectKey } from './object.ts';
import { initialDeletion } from './machines/deletion.ts';
import { lifecycleOfRecord, sharedKeyParts } from './resource-actor.ts';
import type { LifecycleTransition, ObjectLifecycle, ResourceRecord } from './resource-actor.ts';
import type { CommandResult } from './results.ts';
import { SessionTable } from './sessions.ts';
import { SnapshotPartsReader, SnapshotPartsWriter } from './snapshot-parts.ts';
import type { SessionEntry } from './sessions.ts';

export const snapshotVersion = 4;
/** Versions restore() accepts. */
export const snapshotVersionsReadable: readonly number[] = [1, 2, 3, 4];

/** Called after every applied entry, in log order; `events` may be empty (appliedIndex() moved). Must not throw. */
export type ChangeListener = (events: readonly ChangeEvent[]) => void;

export type Lifecycle = ObjectLifecycle;

export interface ListResult {
  /** Deep-frozen stored objects, in key order; the array is frozen too (lists at one version share it). */
  readonly items: KubeObject[];
  /** The applied index the list reflects. */
  readonly revision: number;
}

/** Format 1: every object inline (still restorable). */
interface SnapshotJsonV1 {
  readonly version: 1;
  readonly appliedIndex: number;
  readonly records: readonly ResourceRecord[];
  readonly history: HistoryJson;
  readonly sessions: readonly SessionEntry[];
}

/**
 * The JSON document snapshot() writes (format 2): records in key order, history oldest first,
 * sessions least recently used first; every `object`, event `previous` and session result
 * `object` is a position in `objects`.
 */
interface SnapshotJsonV2 {
  readonly version: 2;
  readonly appliedIndex: number;
  readonly objects: readonly KubeObject[];
  readonly records: readonly (Omit<ResourceRecord, 'object'> & { readonly object: number })[];
  readonly history: {
    readonly compactedRevision: number;
    readonly newestAtMillis: number | null;
    readonly entries: readonly { readonly event: Omit<ChangeEvent, 'object' | 'previous'> & { readonly object: number; readonly previous?: number }; readonly atMillis: number }[];
  };
  readonly sessions: readonly (Omit<SessionEntry, 'result'> & { readonly result: Record<string, unknown> })[];
}

/** A reference in format 3 to "the same as the record's" (event lifecycle context, transitions) or "the initial live lifecycle" (a record's). */
const sameAsShared = 0;

/**
 * Format 3: format 2 where a record's `lifecycle` may be sameAsShared (the initial live
 * lifecycle), and an event's `key` may be a position in `records` (the record with that key),
 * whose `lifecycle.context` and `lifecycle.transitions` may then be sameAsShared (that record's).
 */
interface SnapshotJsonV3 extends Omit<SnapshotJsonV2, 'version'> {
  readonly version: 3;
}

/**
 * Format 4: format 3 where the objects' shared sub-parts are written once, in `parts`, and
 * referred to from the objects (and from other parts); snapshot-parts.ts owns that encoding.
 */
interface SnapshotJsonV4 extends Omit<SnapshotJsonV2, 'version'> {
  readonly version: 4;
  readonly parts: readonly unknown[];
}

/** The state at one applied index, captured by shallow copies of immutable parts. */
interface StateCapture {
  readonly appliedIndex: number;
  readonly records: readonly ResourceRecord[];
  readonly history: HistoryJson;
  readonly sessions: readonly SessionEntry[];
}

/**
 * Writes a capture as format-4 JSON text, in pieces (each a complete JSON token sequence, so
 * encoding the pieces one by one gives the bytes of the whole), with `null` now and then (a point
 * to yield at). Two passes, so no text is held beyond the piece being written: the first numbers
 * the stored objects by identity (a record, the events of its history and a session's result
 * hold the same frozen object, and a restore gives one object per position back) and the
 * records' positions, and notes the objects' shared sub-parts (SnapshotPartsWriter.scan); the
 * second serialises the object table, the parts, then records, history and sessions, each item
 * as it is reached. (Holding every object's text until the table could be
 * written, ~1.2 KB per object, left a store member's malloc arena tens of MB larger after each
 * snapshot.)
 */
function* snapshotPieces(capture: StateCapture): Generator<string | null, void, undefined> {
  const positions = new Map<object, number>();
  const objects: KubeObject[] = [];
  const number = (object: KubeObject): void => {
    if (positions.has(object)) return;
    positions.set(object, objects.length);
    objects.push(object);
  };
  const ref = (object: KubeObject): number => {
    const position = positions.get(object);
    assert(position !== undefined, 'every object a snapshot refers to was numbered');
    return position;
  };
  const recordPositions = new Map<string, number>();
  let numbered = 0;
  for (const record of capture.records) {
    recordPositions.set(keyString(record.key), recordPositions.size);
    number(record.object);
    if (++numbered % numberedPerCheck === 0) yield null;
  }
  for (const { event } of capture.history.entries) {
    number(event.object);
    if (event.previous !== undefined) number(event.previous);
    if (++numbered % numberedPerCheck === 0) yield null;
  }
  for (const { result } of capture.sessions) {
    if ('object' in result) number(result.object);
  }
  const parts = new SnapshotPartsWriter();
  for (const object of objects) {
    parts.scan(object);
    if (++numbered % numberedPerCheck === 0) yield null;
  }
  const live = initialDeletion({ finalizers: [] });
  rememberKeys(live);
  const recordAt = (key: ObjectKey): { position: number; record: ResourceRecord } | undefined => {
    const position = recordPositions.get(keyString(key));
    const record = position === undefined ? undefined : capture.records[position];
    return position === undefined || record === undefined || !equalInOrder(key, record.key) ? undefined : { position, record };
  };
  yield `{"version":${snapshotVersion},"appliedIndex":${capture.appliedIndex},"objects":[`;
  yield* joined(objects, (object) => parts.write(object));
  yield '],"parts":[';
  yield* joined(parts.partsToWrite(), (part) => parts.write(part));
  yield '],"records":[';
  yield* joined(capture.records, (record) => JSON.stringify(equalInOrder(record.lifecycle, live)
    ? { ...record, object: ref(record.object), lifecycle: sameAsShared }
    : { ...record, object: ref(record.object) }));
  yield `],"history":{"compactedRevision":${capture.history.compactedRevision},"newestAtMillis":${JSON.stringify(capture.history.newestAtMillis)},"entries":[`;
  yield* joined(capture.history.entries, (entry) => JSON.stringify(historyEntryJson(entry, ref, recordAt)));
  yield ']},"sessions":[';
  yield* joined(capture.sessions, (session) => JSON.stringify(sessionJson(session, ref)));
  yield ']}';
}

/** Items numbered (the first pass: a Map lookup each) between points to yield at. */
const numberedPerCheck = 1024;

/** Items serialised between checks of the slice's time. */
const piecesPerCheck = 64;

/** Each item's text as one piece, comma-separated (the serialisation happens as the piece is pulled). */
function* joined<T>(items: Iterable<T>, text: (item: T) => string): Generator<string, void, undefined> {
  let first = true;
  for (const item of items) {
    yield first ? text(item) : `,${text(item)}`;
    first = false;
  }
}

function historyEntryJson(
  entry: HistoryEntry,
  ref: (object: KubeObject) => number,
  recordAt: (key: ObjectKey) => { position: number; record: ResourceRecord } | undefined,
): unknown {
  const { event } = entry;
  const compact: Record<string, unknown> = event.previous === undefined
    ? { ...event, object: ref(event.object) }
    : { ...event, object: ref(event.object), previous: ref(event.previous) };
  const found = recordAt(event.key);
  if (found !== undefined) {
    compact['key'] = found.position;
    const { lifecycle } = event;
    if (lifecycle !== undefined) {
      const context = equalInOrder(lifecycle.context, found.record.lifecycle.context) ? sameAsShared : lifecycle.context;
      const transitions = equalInOrder(lifecycle.transitions, found.record.transitions) ? sameAsShared : lifecycle.transitions;
      compact['lifecycle'] = { ...lifecycle, context, transitions };
    }
  }
  return { event: compact, atMillis: entry.atMillis };
}

function sessionJson(session: SessionEntry, ref: (object: KubeObject) => number): unknown {
  const { result } = session;
  return 'object' in result ? { ...session, result: { ...result, object: ref(result.object) } } : session;
}

/** Encodes a capture synchronously (snapshot(); tests and the simulator). */
function encodeCapture(capture: StateCapture): Uint8Array {
  let text = '';
  for (const piece of snapshotPieces(capture)) if (piece !== null) text += piece;
  return textEncoder.encode(text);
}

/** Bytes of the buffer captureChunks encodes into at first (it grows for a slice that does not fit). */
const chunkBufferBytes = 256 * 1024;

/**
 * A capture's bytes in chunks, each after a bounded amount of work (at most piecesPerCheck
 * items serialised); chunks may be empty. The caller decides when to pause between them (the
 * Raft driver yields to its event loop): this module keeps no clock.
 * Every chunk is a view into one buffer that the next chunk overwrites: a consumer copies the
 * bytes it keeps before it pulls the next chunk (writeSliced and gzipChunks do). The pieces are
 * UTF-8 encoded into that buffer (TextEncoder.encodeInto) instead of a fresh array per chunk: a
 * 150 MB snapshot was ~5,000 short-lived arrays of 16-64 KB, malloc'd below glibc's mmap
 * threshold and freed only at the next GC, which left the main arena that much larger.
 */
function* captureChunks(capture: StateCapture): Generator<Uint8Array, void, undefined> {
  let buffer = new Uint8Array(chunkBufferBytes);
  let written = 0;
  let sinceCheck = 0;
  for (const piece of snapshotPieces(capture)) {
    if (piece !== null && piece.length > 0) {
      let encoded = textEncoder.encodeInto(piece, buffer.subarray(written));
      if (encoded.read < piece.length) {
        // A UTF-16 code unit takes at most 3 UTF-8 bytes.
        const grown = new Uint8Array(Math.max(buffer.byteLength * 2, written + piece.length * 3));
        grown.set(buffer.subarray(0, written));
        buffer = grown;
        encoded = textEncoder.encodeInto(piece, buffer.subarray(written));
      }
      written += encoded.written;
    }
    sinceCheck += 1;
    if (piece === null || sinceCheck >= piecesPerCheck) {
      yield buffer.subarray(0, written);
      written = 0;
      sinceCheck = 0;
    }
  }
  if (written > 0) yield buffer.subarray(0, written);
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

export class ClusterState implements StateMachine<CommandResult> {
  private state: StoreState;
  private applied = 0;
  private readonly listeners: ChangeListener[] = [];
  /** The last lists' items, while no object changed (pages of one list read the same array). */
  private readonly listCache = new RangeCache<ResourceRecord, KubeObject>((record) => record.object);

  /** `limits` change replicated behaviour (eviction): every replica must use the same. */
  constructor(private readonly limits: StoreLimits = defaultStoreLimits) {
    this.state = createStoreState(limits);
  }

  apply(entry: CommittedEntry): CommandResult {
    assert(entry.index === this.applied + 1, `entries apply in order: expected ${this.applied + 1}, got ${entry.index}`);
    const decoded = tryDecodeCommand(entry.data);
    const outcome = decoded.ok
      ? applyCommand(this.state, entry.index, decoded.envelope)
      : { result: { type: 'invalid', message: decoded.message } as const, events: [] };
    this.applied = entry.index;
    this.notify(outcome.events);
    return outcome.result;
  }

  appliedIndex(): number {
    return this.applied;
  }

  /** How many objects are stored. */
  objectCount(): number {
    return this.state.objects.size;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  get(key: ObjectKey): KubeObject | undefined {
    return this.state.objects.get(keyString(key))?.object;
  }

  list(collection: CollectionKey): ListResult {
    return { items: this.listCache.items(this.state.objects, collectionPrefix(collection)) as KubeObject[], revision: this.applied };
  }

  /** Every stored object with its key, in key order (controllers build their indexes from it). */
  allObjects(): { key: ObjectKey; object: KubeObject; lifecycle: ObjectLifecycle }[] {
    return this.state.objects.all().map((record) => ({ key: record.key, object: record.object, lifecycle: lifecycleOfRecord(record) }));
  }

  /** Every stored object with its key, in key order, without building lifecycles (the stored records, read-only). */
  keyedObjects(): readonly { readonly key: ObjectKey; readonly object: KubeObject }[] {
    return this.state.objects.all();
  }

  /**
   * Every object stored in `namespace`, of any resource (for the namespace lifecycle
   * controller). O(all objects): namespaces sit in the middle of the key, so this is a scan.
   */
  objectsInNamespace(namespace: string): { key: ObjectKey; object: KubeObject }[] {
    assert(namespace !== '', 'a namespace name is not empty');
    return this.state.objects.all().filter((record) => record.key.namespace === namespace).map((record) => ({ key: record.key, object: record.object }));
  }

  eventsSince(revision: number): EventsSince {
    return this.state.history.eventsSince(revision);
  }

  lifecycleOf(key: ObjectKey): Lifecycle | undefined {
    const record = this.state.objects.get(keyString(key));
    if (record === undefined) return undefined;
    return lifecycleOfRecord(record);
  }

  snapshot(): Uint8Array {
    return encodeCapture(this.capture());
  }

  /**
   * The state at appliedIndex(), serialised later chunk by chunk; apply() may go on meanwhile.
   * A chunk is valid until the next one is pulled (captureChunks).
   */
  snapshotView(): { readonly index: number; chunks(): Iterable<Uint8Array> } {
    const capture = this.capture();
    return { index: capture.appliedIndex, chunks: () => captureChunks(capture) };
  }

  restore(snapshot: Uint8Array, index: number): void {
    const parsed = JSON.parse(textDecoder.decode(snapshot)) as SnapshotJsonV1 | SnapshotJsonV2 | SnapshotJsonV3 | SnapshotJsonV4;
    assert(snapshotVersionsReadable.includes(parsed.version), `unsupported snapshot version ${String(parsed.version)}`);
    assert(parsed.appliedIndex === index, `snapshot is at ${parsed.appliedIndex}, restore asked for ${index}`);
    let json: SnapshotJsonV1;
    let objects: ObjectIndex<ResourceRecord>;
    if (parsed.version === 1) {
      json = deepFreeze(shareEqualObjects(parsed));
      objects = indexRecords(json.records);
    } else ({ json, objects } = inlineObjects(parsed));
    this.state = {
      objects,
      history: History.fromJson(json.history, this.limits.historyEventsMax),
      sessions: SessionTable.fromJson(json.sessions, this.limits.sessionsMax),
    };
    this.applied = index;
  }

  /** Shallow copies of the immutable parts: a consistent view at the applied index. */
  private capture(): StateCapture {
    return {
      appliedIndex: this.applied,
      records: this.state.objects.all(),
      history: this.state.history.toJson(),
      sessions: this.state.sessions.toJson(),
    };
  }

  private notify(events: readonly ChangeEvent[]): void {
    for (const listener of [...this.listeners]) listener(events);
  }
}

/**
 * A format-1 snapshot (every object inline) with equal objects made one: the object of a record,
 * an event (and its previous) and a session result that were one object in memory when it was
 * written are one again, so the next snapshot, which numbers objects by identity, writes each
 * once, as it was written from the state before. In place (the parsed JSON is not yet frozen).
 */
function shareEqualObjects(json: SnapshotJsonV1): SnapshotJsonV1 {
  const byText = new Map<string, KubeObject>();
  const shared = (object: KubeObject): KubeObject => {
    const text = JSON.stringify(object);
    const known = byText.get(text);
    if (known !== undefined) return known;
    byText.set(text, object);
    return object;
  };
  type Writable<T> = { -readonly [K in keyof T]: T[K] };
  for (const record of json.records) (record as Writable<ResourceRecord>).object = shared(record.object);
  for (const { event } of json.history.entries) {
    const writable = event as Writable<ChangeEvent>;
    writable.object = shared(event.object);
    if (event.previous !== undefined) writable.previous = shared(event.previous);
  }
  for (const session of json.sessions) {
    const { result } = session;
    if ('object' in result) (result as Writable<typeof result>).object = shared(result.object);
  }
  return json;
}

/** The records by key. They are written in key order: the index is built in one pass (any other order is still read). */
function indexRecords(records: readonly ResourceRecord[]): ObjectIndex<ResourceRecord> {
  const keys = records.map((record) => keyString(record.key));
  let objects: ObjectIndex<ResourceRecord>;
  if (ObjectIndex.strictlyIncreasing(keys)) objects = ObjectIndex.fromSorted(keys, records);
  else {
    objects = new ObjectIndex<ResourceRecord>();
    for (const [at, record] of records.entries()) objects.set(keys[at] as string, record);
  }
  assert(objects.size === records.length, 'snapshot record keys are unique');
  return objects;
}

/**
 * Format 2, 3 or 4 → the format-1 shape (objects inline, shared where they were equal), deep-frozen,
 * and the records' index. Parts that were one object in memory when the snapshot was written are
 * one again: the shared initial lifecycle, and an event's key, lifecycle context and transitions
 * that equal its record's (apply() hands events the record's own); format 3 names them.
 */
function inlineObjects(json: SnapshotJsonV2 | SnapshotJsonV3 | SnapshotJsonV4): { json: SnapshotJsonV1; objects: ObjectIndex<ResourceRecord> } {
  let objects: KubeObject[];
  if (json.version === 4) {
    assert(Array.isArray(json.parts), 'a format-4 snapshot has a parts table');
    const parts = new SnapshotPartsReader(json.parts);
    objects = json.objects.map((object) => parts.read(object) as KubeObject);
  } else objects = json.objects.map((object) => storedJson.compactFrozen(object));
  const object = (position: number): KubeObject => {
    const found = objects[position];
    assert(found !== undefined, `snapshot object ${position} is in the table`);
    return found;
  };
  // The parsed records, events and sessions are completed in place: an assignment keeps a
  // property where it was, so the keys stay in their stored order (the bytes of a later snapshot)
  // without a copy of every record.
  const live = initialDeletion({ finalizers: [] });
  rememberKeys(live);
  const records = json.records as unknown as Mutable<ResourceRecord>[];
  for (const record of records) {
    const position = record.object as unknown as number;
    record.key = sharedKeyParts(record.key);
    record.object = object(position);
    if ((record.lifecycle as unknown) === sameAsShared || equalInOrder(record.lifecycle, live)) record.lifecycle = live;
    for (const transition of record.transitions) internTransition(transition as Mutable<LifecycleTransition>);
    freezeRecordParts(record);
  }
  const index = indexRecords(records); // (records stay in their written order: format 3's positions)
  const entries = json.history.entries as unknown as { event: Mutable<ChangeEvent>; atMillis: number }[];
  for (const entry of entries) {
    const { event } = entry;
    event.object = object(event.object as unknown as number);
    if (event.previous !== undefined) event.previous = object(event.previous as unknown as number);
    if (typeof event.key === 'number') sameAsRecord(event, records[event.key]);
    else {
      const record = index.get(keyString(event.key));
      if (record !== undefined) shareWithRecord(event, record);
    }
    freezeRestored(entry, 0);
  }
  const sessions = json.sessions.map((session): SessionEntry => {
    const { result } = session;
    const inlined = typeof result.object === 'number' ? { ...result, object: object(result.object) } : result;
    return deepFreeze({ ...session, result: inlined as unknown as CommandResult });
  });
  return {
    json: {
      version: 1, appliedIndex: json.appliedIndex, records,
      history: { compactedRevision: json.history.compactedRevision, newestAtMillis: json.history.newestAtMillis, entries },
      sessions,
    },
    objects: index,
  };
}

/** Format 3: an event whose key is `record`'s position, and whose lifecycle context and transitions may be sameAsShared (the record's). */
function sameAsRecord(event: Mutable<ChangeEvent>, record: ResourceRecord | undefined): void {
  assert(record !== undefined, `snapshot event key ${String(event.key)} is a record's position`);
  event.key = record.key;
  const lifecycle = event.lifecycle as Mutable<ObjectLifecycle> | undefined;
  if (lifecycle === undefined) return;
  if ((lifecycle.context as unknown) === sameAsShared) lifecycle.context = record.lifecycle.context;
  else if (equalInOrder(lifecycle.context, record.lifecycle.context)) lifecycle.context = record.lifecycle.context;
  if ((lifecycle.transitions as unknown) === sameAsShared) lifecycle.transitions = record.transitions;
  else if (equalInOrder(lifecycle.transitions, record.transitions)) lifecycle.transitions = record.transitions;
}

/** An event's key, lifecycle context and transitions replaced by its record's where they are the same JSON in the same order. */
function shareWithRecord(event: Mutable<ChangeEvent>, record: ResourceRecord): void {
  if (equalInOrder(event.key, record.key)) event.key = record.key;
  const lifecycle = event.lifecycle as Mutable<ObjectLifecycle> | undefined;
  if (lifecycle === undefined) return;
  if (equalInOrder(lifecycle.context, record.lifecycle.context)) lifecycle.context = record.lifecycle.context;
  if (equalInOrder(lifecycle.transitions, record.transitions)) lifecycle.transitions = record.transitions;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A restored transition's time and author shared as a created record's are (resource-actor.ts transitionOf). */
function internTransition(transition: Mutable<LifecycleTransition>): void {
  transition.at = storedJson.string(transition.at);
  if (transition.by !== undefined) transition.by = storedJson.string(transition.by);
}

/** Freezes a restored record and what it holds (the shared parts are frozen already and skipped). */
function freezeRecordParts(record: ResourceRecord): void {
  freezeRestored(record, 0);
}

/** Restored parts nest a few levels below a record or history entry; deeper ones go to deepFreeze (which has no depth limit). */
const restoredFreezeDepthMax = 32;

/**
 * Deep-freezes a restored record or history entry, as deepFreeze does, skipping frozen parts (the
 * table's objects, the shared lifecycle, a record's key and transitions an event shares), without
 * deepFreeze's work list and Object.values array per object: restore freezes ~140,000 of them.
 */
function freezeRestored(value: unknown, depth: number): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (depth > restoredFreezeDepthMax) {
    deepFreeze(value);
    return;
  }
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let at = 0; at < value.length; at++) freezeRestored(value[at], depth + 1);
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) if (Object.hasOwn(object, key)) freezeRestored(object[key], depth + 1);
}

/** Keys of objects equalInOrder often compares against (the shared lifecycle's), listed once. */
const keysOf = new WeakMap<object, readonly string[]>();

/** Lists the keys of `value`'s objects once for equalInOrder. */
function rememberKeys(value: unknown): void {
  if (typeof value !== 'object' || value === null || keysOf.has(value)) return;
  if (!Array.isArray(value)) keysOf.set(value, Object.keys(value));
  for (const child of Object.values(value)) rememberKeys(child);
}

/**
 * Whether `value` is the same JSON as `expected` with every object's keys in the same order
 * (sharing `expected` then leaves every serialisation as it was). Allocates nothing per call
 * for objects whose keys rememberKeys listed.
 */
function equalInOrder(value: unknown, expected: unknown, depth = 0): boolean {
  if (value === expected) return true;
  if (typeof value !== 'object' || typeof expected !== 'object' || value === null || expected === null || depth > 32) return false;
  if (Array.isArray(value) !== Array.isArray(expected)) return false;
  if (Array.isArray(value)) {
    const list = expected as readonly unknown[];
    if (value.length !== list.length) return false;
    for (let at = 0; at < value.length; at++) if (!equalInOrder(value[at], list[at], depth + 1)) return false;
    return true;
  }
  const keys = keysOf.get(expected) ?? Object.keys(expected);
  const record = value as Record<string, unknown>;
  const wanted = expected as Record<string, unknown>;
  let at = 0;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    if (keys[at] !== key || !equalInOrder(record[key], wanted[key], depth + 1)) return false;
    at += 1;
  }
  return at === keys.length;
}
