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

  constructor(backend: StoreBackend) {
    this.#backend = backend;
  }

  async propose(command: Command): Promise<CommandResult> {
    return withDeadline(this.#backend.propose(command), 'the write did not complete in time; it may or may not have been stored');
  }

  /** Most Recent read point (linearizable): waits until reads reflect every earlier write. */
  async readIndex(): Promise<number> {
    return withDeadline(this.#backend.readIndex(), 'the store did not confirm a read point in time');
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

async function withDeadline<T>(work: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(serverTimeout(message, retryAfterSeconds)), storeRequestTimeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const name = error instanceof Error ? error.name : '';
    // StoreDeadlineError: the NATS store client (deploy/store-client.ts) found no leader in time.
    if (name === 'NotLeaderError' || name === 'ProposalDroppedError' || name === 'StoreDeadlineError') {
      throw serviceUnavailable(`the store is not available: ${(error as Error).message}`, retryAfterSeconds);
    }
    // NodeFailedError: the one member of `kstore server` cannot write (its storage failed) and
    // is recovering in process; reads go on.
    if (name === 'NodeFailedError') {
      throw serviceUnavailable(`the store cannot take writes: ${(error as Error).message}; reads are served, writes resume once the data dir can be written again`, retryAfterSeconds);
    }
    // StorageAlarmError: a member's space alarm is raised (deploy/storage-quota.ts).
    if (name === 'StorageAlarmError') throw databaseSpaceExceeded((error as Error).message);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
