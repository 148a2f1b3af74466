// Owns: the replicated state machine raft/ drives (StateMachine<CommandResult>): decoding
// each committed entry, applying it, the applied index, change notification to in-process
// subscribers, the read side for the API tier in the same process (get, list, eventsSince,
// lifecycleOf), and whole-state snapshots.
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
import type { DeletionContext, DeletionStateName } from './machines/deletion.ts';
import { History } from './mvcc/history.ts';
import type { EventsSince, HistoryJson } from './mvcc/history.ts';
import { ObjectIndex } from './mvcc/object-index.ts';
import { collectionPrefix, keyString } from './object.ts';
import type { CollectionKey, KubeObject, ObjectKey } from './object.ts';
import type { LifecycleTransition, ResourceRecord } from './resource-actor.ts';
import type { CommandResult } from './results.ts';
import { SessionTable } from './sessions.ts';
import type { SessionEntry } from './sessions.ts';

export const snapshotVersion = 1;

/** Called after every applied entry, in log order; `events` may be empty (appliedIndex() moved). Must not throw. */
export type ChangeListener = (events: readonly ChangeEvent[]) => void;

export interface Lifecycle {
  readonly state: DeletionStateName;
  readonly context: DeletionContext;
  readonly transitions: readonly LifecycleTransition[];
}

export interface ListResult {
  /** Deep-frozen stored objects, in key order. */
  readonly items: KubeObject[];
  /** The applied index the list reflects. */
  readonly revision: number;
}

/** The JSON document snapshot() writes (records in key order, sessions least recently used first). */
interface SnapshotJson {
  readonly version: typeof snapshotVersion;
  readonly appliedIndex: number;
  readonly records: readonly ResourceRecord[];
  readonly history: HistoryJson;
  readonly sessions: readonly SessionEntry[];
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

export class ClusterState implements StateMachine<CommandResult> {
  private state: StoreState;
  private applied = 0;
  private readonly listeners: ChangeListener[] = [];

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
    const items = this.state.objects.range(collectionPrefix(collection)).map((record) => record.object);
    return { items, revision: this.applied };
  }

  /** Every stored object with its key, in key order (controllers build their indexes from it). */
  allObjects(): { key: ObjectKey; object: KubeObject }[] {
    return this.state.objects.all().map((record) => ({ key: record.key, object: record.object }));
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
    return { state: record.lifecycle.value, context: record.lifecycle.context, transitions: record.transitions };
  }

  snapshot(): Uint8Array {
    const json: SnapshotJson = {
      version: snapshotVersion,
      appliedIndex: this.applied,
      records: this.state.objects.all(),
      history: this.state.history.toJson(),
      sessions: this.state.sessions.toJson(),
    };
    return textEncoder.encode(JSON.stringify(json));
  }

  restore(snapshot: Uint8Array, index: number): void {
    const json = deepFreeze(JSON.parse(textDecoder.decode(snapshot)) as SnapshotJson);
    assert(json.version === snapshotVersion, `unsupported snapshot version ${String(json.version)}`);
    assert(json.appliedIndex === index, `snapshot is at ${json.appliedIndex}, restore asked for ${index}`);
    const objects = new ObjectIndex<ResourceRecord>();
    for (const record of json.records) objects.set(keyString(record.key), record);
    assert(objects.size === json.records.length, 'snapshot record keys are unique');
    this.state = {
      objects,
      history: History.fromJson(json.history, this.limits.historyEventsMax),
      sessions: SessionTable.fromJson(json.sessions, this.limits.sessionsMax),
    };
    this.applied = index;
  }

  private notify(events: readonly ChangeEvent[]): void {
    for (const listener of [...this.listeners]) listener(events);
  }
}
