// Owns: publishing the store's change events to the JetStream stream (format.ts), from every
// store member but only while it is the Raft leader: creating or updating the stream, resuming
// after the stream's last message on gaining leadership, republishing from the MVCC history
// what is missing (or a reset message when the history no longer reaches back), batching,
// progress marks, and surviving NATS and JetStream outages.
//
// Exactly once and in order, also with two members that both believe they lead: every publish
// carries Nats-Expected-Last-Sequence (the stream sequence of the message it follows), so the
// stream accepts only a message whose `from` is the `through` of the message before it; a
// publisher whose expectation is stale gets `wrong last sequence`, re-reads the tail and
// resumes from its `through`. Any member may publish what it applied: applied entries are
// committed, so every member's applied prefix is the same sequence (Raft's log matching);
// leadership only decides who bothers. After a timeout the outcome is unknown, so the tail
// is re-read before anything else is published.
//
// The backlog is the MVCC history itself (ClusterState.eventsSince): nothing is queued here,
// so memory is bounded by one message (batchBytesMax, or one revision's events if larger)
// whatever the write rate or the length of an outage; the history bounds itself (5 minutes,
// 50,000 events) and a publisher that fell behind it publishes a reset.
//
// The Raft loop is never blocked: the state machine's change listener only sets a flag and
// wakes this loop, and so does the Raft member's role listener (onLeadershipChange). Given
// that listener, an idle publisher runs no timer but the keepalive's: a member that does not
// lead sleeps until its role changes, and a leader whose stream is at the applied index sleeps
// until an entry is applied, its role changes or the keepalive is due. Without it (tests that
// stand in for the member with a bare isLeader), leadership is polled every leadershipPollMs.
//
// Storage (`auto`): memory, else file when the servers refuse a memory stream (a NATS
// deployment with no JetStream memory, e.g. max_memory_store 0). The stream is a derived copy
// of what the store members already hold durably: its messages are the MVCC history, published
// again by the leader whenever the stream lacks them. Memory spares every nats-server a file
// write per message for the stream and for its replication log; what it gives up is the
// stream's content when all of its servers restart at once. The stream's sequence then starts
// again: the publisher finds the tail gone and republishes from the history (or a reset), and a
// reader finds the stream behind what it delivered and re-lists (reader.ts). A memory stream is
// bounded in bytes too (eventsMemoryBytesMaxDefault), as the history is in events; a reader
// further behind than that re-lists. An existing stream keeps its storage (JetStream cannot
// change it): delete the stream to change it.
//
// Replicas (`auto`): 1 when the server we are connected to is not clustered (INFO has no
// `cluster`), else 3 when INFO's `connect_urls` (the client URLs the cluster advertises, one
// per server) names at least 3 servers, else 1. An existing stream keeps its replicas unless
// they were given explicitly.
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ChangeEvent, ClusterState } from '../../actors/index.ts';
import { decodeBatch, encodeSerialised, eventStreamName, eventSubject } from './format.ts';

/** Default max age of the stream's messages: the store's watch window (actors/mvcc/history.ts). */
export const eventsMaxAgeMsDefault = 5 * 60_000;
/** Target size of one message; one revision's events are never split (a larger group goes alone). */
export const batchBytesMaxDefault = 512 * 1024;
/** Progress marks (applied index moved, no events) at most this often. */
export const progressIntervalMsDefault = 25;
/** How often a member checks whether it leads, when it has no onLeadershipChange to wait on. */
export const leadershipPollMs = 50;
/**
 * One publish's (and JetStream API request's) timeout; a publish's outcome is then unknown and
 * the tail is re-read. An R3 publish takes about a millisecond; a JetStream stream leader
 * election takes ~5 s, and a publish stuck on the dead leader should not add 5 s more.
 */
export const publishTimeoutMs = 2_000;
/**
 * Back-off after a failure: doubling from min to max. The max bounds how late publishing
 * resumes after JetStream is back (a stream leader election takes ~5 s on nats-server 2.9).
 */
export const retryBackoffMsMin = 50;
export const retryBackoffMsMax = 1_000;
/** The stream's duplicate window: small, since msgIDs are not used (expected sequences are). */
export const duplicateWindowMs = 1_000;
/**
 * A memory stream's size bound: about the MVCC history's 50,000 events at 2–3 KiB each, so it
 * reaches back as far as the history whenever the history is what bounds a reader.
 */
export const eventsMemoryBytesMaxDefault = 128 * 1024 * 1024;
/** Envelope bytes reserved besides the events when sizing a message. */
const envelopeBytes = 128;

export type EventsReplicas = number | 'auto';
/** Where the stream's servers keep its messages; `auto`: memory when they accept it, else file. */
export type EventsStorage = 'memory' | 'file' | 'auto';
export type PublisherLog = (message: string, fields?: Record<string, unknown>) => void;

export interface EventPublisherOptions {
  readonly connection: NatsConnection;
  readonly state: ClusterState;
  /** Whether this member leads now (RaftNode status role === 'leader'). */
  readonly isLeader: () => boolean;
  /**
   * Subscribes to changes of isLeader()'s answer (RaftNode.onRoleChange); returns the
   * unsubscribe function. Absent: leadership is polled every leadershipPollMs.
   */
  readonly onLeadershipChange?: (listener: () => void) => () => void;
  readonly cluster: string;
  readonly group: string;
  readonly maxAgeMs?: number;
  readonly replicas?: EventsReplicas;
  /** Default 'auto'. */
  readonly storage?: EventsStorage;
  /** A memory stream's max_bytes; default eventsMemoryBytesMaxDefault. */
  readonly memoryBytesMax?: number;
  readonly batchBytesMax?: number;
  readonly progressIntervalMs?: number;
  readonly log?: PublisherLog;
}

export interface EventPublisherStats {
  /** Messages the stream accepted from this member. */
  readonly messages: number;
  readonly events: number;
  readonly progressMarks: number;
  readonly resets: number;
  /** `wrong last sequence` answers (another publisher got there first). */
  readonly conflicts: number;
  readonly errors: number;
  /** The stream's tail as this member last knew it (undefined while not publishing). */
  readonly tail: { readonly sequence: number; readonly through: number } | undefined;
  readonly active: boolean;
}

interface Tail {
  /** Stream sequence of the last message (the stream's last_seq; 0 when it never had any). */
  readonly sequence: number;
  /** `through` of the last message still stored (0 when none). */
  readonly through: number;
}

/** One message ready to publish. */
interface Planned {
  readonly from: number;
  readonly through: number;
  readonly data: Uint8Array;
  readonly events: number;
  readonly reset: boolean;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function apiCode(error: unknown): number | undefined {
  return error instanceof JetStreamApiError ? error.code : undefined;
}

/**
 * JetStream's answers to a stream that does not fit the servers' resources: insufficient
 * resources (10023), insufficient memory (10028) or storage (10047) resources, no suitable peers
 * for placement (10005, a cluster where no server has the room). Anything else (a JetStream
 * leader election, a timeout) is retried as it is, still asking for memory.
 */
const resourceRefusalCodes: ReadonlySet<number> = new Set([10005, 10023, 10028, 10047]);

function refusesMemory(error: unknown): boolean {
  const code = apiCode(error);
  return code !== undefined && resourceRefusalCodes.has(code);
}

/** Parses --events-storage's value. */
export function parseEventsStorage(text: string): EventsStorage {
  if (text === 'auto' || text === 'memory' || text === 'file') return text;
  throw new Error(`--events-storage must be auto, memory or file, got ${text}`);
}

/** Parses `5m`, `300s`, `1500ms`, `1h` or a bare number of seconds into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) throw new Error(`${JSON.stringify(text)} is not a duration (e.g. 5m, 300s, 1500ms)`);
  const value = Number(match[1]);
  const unit = match[2] ?? 's';
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1_000 : unit === 'm' ? 60_000 : 3_600_000;
  const millis = Math.round(value * factor);
  if (!(millis >= 1_000)) throw new Error(`duration ${JSON.stringify(text)} must be at least 1s`);
  return millis;
}

/** Replicas for `auto`, from the INFO of the server the connection is on. */
export function autoReplicas(connection: NatsConnection): number {
  const info = connection.info;
  if (info === undefined || info.cluster === undefined) return 1;
  const servers = new Set(info.connect_urls ?? []);
  return servers.size >= 3 ? 3 : 1;
}

export class EventPublisher {
  readonly #options: EventPublisherOptions;
  readonly #stream: string;
  readonly #subject: string;
  readonly #maxAgeMs: number;
  readonly #batchBytesMax: number;
  readonly #progressIntervalMs: number;
  readonly #log: PublisherLog;
  readonly #unsubscribe: () => void;
  readonly #unsubscribeLeadership: () => void;
  /** How long an idle wait may last before isLeader() is asked again (Infinity: until woken). */
  readonly #leadershipWaitMs: number;
  readonly #loop: Promise<void>;
  #js: JetStreamClient | undefined = undefined;
  #jsm: JetStreamManager | undefined = undefined;
  #streamReady = false;
  #tail: Tail | undefined = undefined;
  #active = false;
  #stopped = false;
  #wake: (() => void) | undefined = undefined;
  #lastPublishMs = 0;
  #backoffMs = retryBackoffMsMin;
  #failing = false;
  #failingSinceMs = 0;
  #failures = 0;
  #messages = 0;
  #events = 0;
  #progressMarks = 0;
  #resets = 0;
  #conflicts = 0;
  #errors = 0;

  private constructor(options: EventPublisherOptions) {
    this.#options = options;
    this.#stream = eventStreamName(options.cluster, options.group);
    this.#subject = eventSubject(options.cluster, options.group);
    this.#maxAgeMs = options.maxAgeMs ?? eventsMaxAgeMsDefault;
    this.#batchBytesMax = options.batchBytesMax ?? batchBytesMaxDefault;
    this.#progressIntervalMs = options.progressIntervalMs ?? progressIntervalMsDefault;
    this.#log = options.log ?? (() => {});
    // Runs on the Raft loop after every applied entry: only a flag and a wake-up.
    this.#unsubscribe = options.state.subscribe(() => this.#signal());
    // Also runs on the Raft loop: a role change wakes this loop at once.
    this.#unsubscribeLeadership = options.onLeadershipChange?.(() => this.#signal()) ?? (() => {});
    this.#leadershipWaitMs = options.onLeadershipChange === undefined ? leadershipPollMs : Number.POSITIVE_INFINITY;
    this.#loop = this.#run();
  }

  /** Starts the publisher; it idles until this member leads. */
  static start(options: EventPublisherOptions): EventPublisher {
    return new EventPublisher(options);
  }

  get streamName(): string {
    return this.#stream;
  }

  stats(): EventPublisherStats {
    return {
      messages: this.#messages, events: this.#events, progressMarks: this.#progressMarks, resets: this.#resets,
      conflicts: this.#conflicts, errors: this.#errors, tail: this.#tail, active: this.#active,
    };
  }

  /** Stops publishing; waits for a publish in flight (at most publishTimeoutMs). */
  async stop(): Promise<void> {
    if (this.#stopped) return this.#loop;
    this.#stopped = true;
    this.#unsubscribe();
    this.#unsubscribeLeadership();
    this.#signal();
    return this.#loop;
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * Waits `ms` (Infinity: no timer), or less if an entry is applied or the role changes
   * (`wakeable`), or the publisher stops.
   */
  #pause(ms: number, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      let settled = false;
      const done = (): void => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        if (this.#wake === wake) this.#wake = undefined;
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      const wake = (): void => {
        if (wakeable || this.#stopped) done();
        else this.#wake = wake;
      };
      this.#wake = wake;
    });
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      if (!this.#options.isLeader()) {
        if (this.#active) this.#log('event publisher idle: not the leader', { tail: this.#tail });
        this.#active = false;
        this.#tail = undefined;
        await this.#pause(this.#leadershipWaitMs, true);
        continue;
      }
      if (!this.#active) this.#log('event publisher active: this member leads', { stream: this.#stream });
      this.#active = true;
      try {
        await this.#step();
        if (this.#failing) {
          this.#log('event publisher recovered', { tail: this.#tail, failures: this.#failures, stalledMs: Math.round(performance.now() - this.#failingSinceMs) });
        }
        this.#failing = false;
        this.#backoffMs = retryBackoffMsMin;
      } catch (error) {
        await this.#onError(error);
      }
    }
  }

  async #onError(error: unknown): Promise<void> {
    const code = apiCode(error);
    this.#tail = undefined;
    if (code === JetStreamApiCodes.StreamWrongLastSequence) {
      // Another publisher appended first (or our timed-out publish did land): re-read the tail.
      this.#conflicts += 1;
      this.#log('event stream moved under us; re-reading its tail', { error: errorMessage(error) });
      return;
    }
    this.#errors += 1;
    this.#streamReady = false;
    if (!this.#failing) {
      this.#log('event publishing failed; retrying with back-off', { error: errorMessage(error), code });
      this.#failingSinceMs = performance.now();
      this.#failures = 0;
    }
    this.#failing = true;
    this.#failures += 1;
    await this.#pause(this.#backoffMs, false);
    this.#backoffMs = Math.min(this.#backoffMs * 2, retryBackoffMsMax);
  }

  /** One round: make sure of the stream and the tail, then publish one message or wait. */
  async #step(): Promise<void> {
    if (this.#jsm === undefined || this.#js === undefined) {
      this.#jsm = await jetstreamManager(this.#options.connection, { timeout: publishTimeoutMs });
      this.#js = jetstream(this.#options.connection, { timeout: publishTimeoutMs });
    }
    if (!this.#streamReady) {
      await this.#ensureStream(this.#jsm);
      this.#streamReady = true;
    }
    const tail = this.#tail ?? await this.#readTail(this.#jsm);
    this.#tail = tail;
    if (this.#stopped || !this.#options.isLeader()) return;
    const planned = this.#plan(tail) ?? this.#keepalive(tail);
    if (planned === undefined) {
      // Caught up: until an entry is applied, the role changes or the keepalive is due.
      await this.#pause(Math.min(this.#leadershipWaitMs, this.#keepaliveDueInMs()), true);
      return;
    }
    if (planned.events === 0 && !planned.reset) {
      // A progress mark: coalesce (new events end the wait and go out at once).
      const waitMs = this.#lastPublishMs + this.#progressIntervalMs - performance.now();
      if (waitMs > 0) {
        await this.#pause(waitMs, true);
        if (this.#state().appliedIndex() > planned.through) return; // re-plan: events may have arrived
      }
    }
    const ack = await this.#js.publish(this.#subject, planned.data, { expect: { lastSequence: tail.sequence }, timeout: publishTimeoutMs });
    this.#lastPublishMs = performance.now();
    this.#tail = { sequence: ack.seq, through: planned.through };
    this.#messages += 1;
    this.#events += planned.events;
    if (planned.reset) {
      this.#resets += 1;
      this.#log('event stream reset published: the history did not reach back to the stream tail', { from: planned.from, through: planned.through });
    } else if (planned.events === 0) {
      this.#progressMarks += 1;
    }
  }

  #state(): ClusterState {
    return this.#options.state;
  }

  /** The next message after `tail`, or undefined when the tail is at the applied index. */
  #plan(tail: Tail): Planned | undefined {
    const state = this.#state();
    const applied = state.appliedIndex();
    if (applied <= tail.through) return undefined;
    const since = state.eventsSince(tail.through);
    if (since.type === 'tooOld') return this.#reset(tail.through, applied);
    const { events } = since;
    const texts: string[] = [];
    let bytes = envelopeBytes;
    let at = 0;
    while (at < events.length) {
      // One revision's events travel together (a message's range is whole revisions).
      const revision = (events[at] as ChangeEvent).revision;
      const group: string[] = [];
      let groupBytes = 0;
      for (; at < events.length && (events[at] as ChangeEvent).revision === revision; at++) {
        const text = JSON.stringify(events[at]);
        group.push(text);
        groupBytes += text.length + 1;
      }
      if (texts.length > 0 && bytes + groupBytes > this.#batchBytesMax) {
        return this.#message(tail.through, revision - 1, texts);
      }
      const payloadMax = this.#options.connection.info?.max_payload ?? 1024 * 1024;
      if (texts.length === 0 && groupBytes + envelopeBytes > payloadMax) {
        // Cannot be published at all: readers of this revision must re-list.
        this.#log('events of one revision exceed max_payload; publishing a reset', { revision, bytes: groupBytes, maxPayload: payloadMax });
        return this.#reset(tail.through, revision);
      }
      texts.push(...group);
      bytes += groupBytes;
    }
    return this.#message(tail.through, applied, texts);
  }

  /**
   * While nothing is applied, an empty message at the tail ({from: T, through: T}) every third
   * of the max age, so the stream never expires empty: a new leader then still finds the tail's
   * `through` instead of starting over from 0 (a reset, if the history was compacted).
   */
  #keepalive(tail: Tail): Planned | undefined {
    if (this.#keepaliveDueInMs() > 0) return undefined;
    if (tail.sequence === 0) return undefined;
    return this.#message(tail.through, tail.through, []);
  }

  /** Milliseconds until the next keepalive is due (0: now; Infinity while the stream never had a message). */
  #keepaliveDueInMs(): number {
    if (this.#lastPublishMs === 0) return this.#tail?.sequence === 0 ? Number.POSITIVE_INFINITY : 0;
    return Math.max(0, this.#lastPublishMs + this.#maxAgeMs / 3 - performance.now());
  }

  #message(from: number, through: number, texts: readonly string[]): Planned {
    return { from, through, data: encodeSerialised(from, through, texts), events: texts.length, reset: false };
  }

  #reset(from: number, through: number): Planned {
    return { from, through, data: encodeSerialised(from, through, [], true), events: 0, reset: true };
  }

  async #ensureStream(jsm: JetStreamManager): Promise<void> {
    const maxAge = nanos(this.#maxAgeMs);
    const explicit = this.#options.replicas !== undefined && this.#options.replicas !== 'auto' ? this.#options.replicas : undefined;
    const storage = this.#options.storage ?? 'auto';
    const memoryBytesMax = this.#options.memoryBytesMax ?? eventsMemoryBytesMaxDefault;
    let existing: StreamConfig | undefined;
    try {
      existing = (await jsm.streams.info(this.#stream)).config;
    } catch (error) {
      if (apiCode(error) !== JetStreamApiCodes.StreamNotFound) throw error;
    }
    if (existing === undefined) {
      const replicas = explicit ?? autoReplicas(this.#options.connection);
      const config = {
        name: this.#stream, subjects: [this.#subject], retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.Old, max_age: maxAge, duplicate_window: nanos(Math.min(duplicateWindowMs, this.#maxAgeMs)),
        num_replicas: replicas,
      };
      if (storage !== 'file') {
        try {
          await jsm.streams.add({ ...config, storage: StorageType.Memory, max_bytes: memoryBytesMax });
          this.#log('event stream created', { stream: this.#stream, replicas, storage: 'memory', maxBytes: memoryBytesMax, maxAgeMs: this.#maxAgeMs });
          return;
        } catch (error) {
          if (storage === 'memory' || !refusesMemory(error)) throw error;
          this.#log('event stream: the servers refused a memory stream; creating it on file', { error: errorMessage(error), code: apiCode(error) });
        }
      }
      await jsm.streams.add({ ...config, storage: StorageType.File });
      this.#log('event stream created', { stream: this.#stream, replicas, storage: 'file', maxAgeMs: this.#maxAgeMs });
      return;
    }
    const replicas = explicit ?? existing.num_replicas;
    const existingStorage = existing.storage === StorageType.Memory ? 'memory' : 'file';
    if (storage !== 'auto' && storage !== existingStorage) {
      this.#log('event stream keeps its storage: JetStream cannot change it (delete the stream to change it)', { stream: this.#stream, storage: existingStorage, asked: storage });
    }
    const maxBytes = existingStorage === 'memory' ? memoryBytesMax : existing.max_bytes;
    if (existing.max_age !== maxAge || existing.num_replicas !== replicas || existing.max_bytes !== maxBytes) {
      await jsm.streams.update(this.#stream, { ...existing, max_age: maxAge, num_replicas: replicas, max_bytes: maxBytes });
      this.#log('event stream updated', { stream: this.#stream, replicas, maxBytes, maxAgeMs: this.#maxAgeMs });
    }
  }

  /**
   * The stream's last sequence (what the next publish must expect) and the `through` of the
   * last message still stored (walking back over deleted ones: nats-server 2.9's
   * last-by-subject lookup misses after a delete).
   */
  async #readTail(jsm: JetStreamManager): Promise<Tail> {
    const { state } = await jsm.streams.info(this.#stream);
    const sequence = state.last_seq;
    if (state.messages === 0) return { sequence, through: 0 };
    for (let seq = sequence; seq >= state.first_seq && seq > 0; seq--) {
      const message = await jsm.streams.getMessage(this.#stream, { seq });
      if (message === null) continue;
      return { sequence, through: decodeBatch(message.data).through };
    }
    return { sequence, through: 0 };
  }
}
