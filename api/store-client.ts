// Owns: the API tier's one connection to the store. Everything api/ learns from or asks of
// the replicated state goes through StoreClient: proposals (writes), linearizable read points,
// reads of the current state, and the stream of change events that feeds the watch cache.
// The backend is injected (deploy/ wires the in-process Raft member for `kstore server`; the
// HA tiers will wire a NATS client with the same shape). This module must not know Raft.
import type { ChangeEvent, CollectionKey, Command, CommandResult, KubeObject, Lifecycle, ObjectKey } from '../actors/index.ts';
import { ApiError, databaseSpaceExceeded, serverTimeout, serviceUnavailable } from './status.ts';

/** What the store side provides. Reads see every command whose proposal has resolved. */
export interface StoreBackend {
  propose(command: Command): Promise<CommandResult>;
  /** Resolves with a revision once every write committed before the call is visible to reads. */
  readIndex(): Promise<number>;
  get(key: ObjectKey): KubeObject | undefined;
  /** The object's lifecycle (deletion machine state and transitions), as of the same state get() reads. */
  lifecycleOf(key: ObjectKey): Lifecycle | undefined;
  list(collection: CollectionKey): { readonly items: readonly KubeObject[]; readonly revision: number };
  /** Change events in revision order; returns the unsubscribe function. */
  subscribe(listener: (events: readonly ChangeEvent[]) => void): () => void;
  /** Revision of the last applied entry. */
  currentRevision(): number;
  /**
   * Optional: a backend whose copy of the state can lose events (an API replica that fell off
   * the event stream) re-syncs and calls the listener once the new state is in place, before
   * any later event; watchers of the old copy must end with 410. Returns the unsubscribe function.
   */
  subscribeResyncs?(listener: (reason: string) => void): () => void;
  /** Whether the store can take writes now (a leader is known). */
  ready(): boolean;
}

/**
 * How long a request waits for the store before the client gets a 504 with Retry-After. The
 * kube-apiserver default request timeout is 60 s; a single member commits in milliseconds, so
 * 30 s only trips when the store is wedged, and the client is told to retry rather than hang.
 */
export const storeRequestTimeoutMs = 30_000;
const retryAfterSeconds = 1;

export class StoreClient {
  readonly #backend: StoreBackend;
  readonly #deadlines = new StoreCallDeadlines();

  constructor(backend: StoreBackend) {
    this.#backend = backend;
  }

  propose(command: Command): Promise<CommandResult> {
    return withDeadline(this.#deadlines, this.#backend.propose(command), 'the write did not complete in time; it may or may not have been stored');
  }

  /** Most Recent read point (linearizable): waits until reads reflect every earlier write. */
  readIndex(): Promise<number> {
    return withDeadline(this.#deadlines, this.#backend.readIndex(), 'the store did not confirm a read point in time');
  }

  get(key: ObjectKey): KubeObject | undefined {
    return this.#backend.get(key);
  }

  lifecycleOf(key: ObjectKey): Lifecycle | undefined {
    return this.#backend.lifecycleOf(key);
  }

  list(collection: CollectionKey): { readonly items: readonly KubeObject[]; readonly revision: number } {
    return this.#backend.list(collection);
  }

  subscribe(listener: (events: readonly ChangeEvent[]) => void): () => void {
    return this.#backend.subscribe(listener);
  }

  currentRevision(): number {
    return this.#backend.currentRevision();
  }

  /** Re-syncs of the backend's copy (see StoreBackend.subscribeResyncs); a no-op for a backend that cannot lose events. */
  subscribeResyncs(listener: (reason: string) => void): () => void {
    return this.#backend.subscribeResyncs?.(listener) ?? (() => {});
  }

  ready(): boolean {
    return this.#backend.ready();
  }
}

/** One store call waiting for its outcome or its deadline. */
interface PendingStoreCall {
  readonly deadline: number;
  readonly message: string;
  readonly reject: (error: unknown) => void;
  done: boolean;
}

/**
 * The deadlines of every store call in flight, under one timer. Every call waits the same
 * storeRequestTimeoutMs, so calls expire in the order they began: a Set keeps that order, the
 * timer is armed for the oldest call only, and a call that settles leaves the Set. (A timer per
 * call was a setTimeout and a clearTimeout on every write.)
 */
class StoreCallDeadlines {
  readonly #pending = new Set<PendingStoreCall>();
  #timer: NodeJS.Timeout | undefined;

  add(call: PendingStoreCall): void {
    this.#pending.add(call);
    if (this.#timer === undefined) this.#arm(call.deadline);
  }

  remove(call: PendingStoreCall): void {
    this.#pending.delete(call);
    // Left armed while calls wait: the oldest one's deadline re-arms it when it fires.
    if (this.#pending.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #arm(deadline: number): void {
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, deadline - performance.now()));
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const call of this.#pending) {
      if (call.deadline > now) {
        this.#arm(call.deadline);
        return;
      }
      this.#pending.delete(call);
      call.done = true;
      call.reject(serverTimeout(call.message, retryAfterSeconds));
    }
  }
}

/** `work`'s outcome, its failure mapped to an API status, or a 504 once storeRequestTimeoutMs passed. */
function withDeadline<T>(deadlines: StoreCallDeadlines, work: Promise<T>, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const call: PendingStoreCall = { deadline: performance.now() + storeRequestTimeoutMs, message, reject, done: false };
    deadlines.add(call);
    work.then((value) => {
      if (call.done) return;
      call.done = true;
      deadlines.remove(call);
      resolve(value);
    }, (error: unknown) => {
      if (call.done) return;
      call.done = true;
      deadlines.remove(call);
      reject(storeCallError(error));
    });
  });
}

/** What a store backend's failure becomes for the client. */
function storeCallError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const name = error instanceof Error ? error.name : '';
  // StoreDeadlineError: the NATS store client (deploy/store-client.ts) found no leader in time.
  if (name === 'NotLeaderError' || name === 'ProposalDroppedError' || name === 'StoreDeadlineError') {
    return serviceUnavailable(`the store is not available: ${(error as Error).message}`, retryAfterSeconds);
  }
  // NodeFailedError: the one member of `kstore server` cannot write (its storage failed) and
  // is recovering in process; reads go on.
  if (name === 'NodeFailedError') {
    return serviceUnavailable(`the store cannot take writes: ${(error as Error).message}; reads are served, writes resume once the data dir can be written again`, retryAfterSeconds);
  }
  // StorageAlarmError: a member's space alarm is raised (deploy/storage-quota.ts).
  if (name === 'StorageAlarmError') return databaseSpaceExceeded((error as Error).message);
  return error;
}
