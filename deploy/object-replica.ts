// Owns: an API replica's in-memory copy of the store. Initial sync from the state service
// (deploy/state-service.ts) at applied index A, then EventStreamReader.follow(A) applying each
// contiguous batch (set/delete by key); `revision` is the last batch's `through`. On a gap the
// follow stops, the replica re-syncs from the state service, tells the resync listeners once the
// new state is in place and before following again (the watch cache ends its watches with 410
// and restarts its window there: events in between were missed), and follows again.
// Serves what StoreBackend needs for reads: get, list, subscribe, currentRevision; synced().
// Objects, previous versions and lifecycles are deep-frozen as they arrive, sharing their equal
// small parts (actors/json-intern.ts), as the store's own copies are.
import { collectionPrefix, keyString, ObjectIndex, RangeCache, storedJson } from '../actors/index.ts';
import type { ChangeEvent, CollectionKey, KubeObject, Lifecycle, ObjectKey } from '../actors/index.ts';
import type { FollowHandle, StreamBatch } from './event-stream/index.ts';
import type { StoredObject } from './state-service.ts';

/** The parts of the world the replica needs (injected so unit tests run without NATS). */
export interface ReplicaSource {
  fetchState(): Promise<{ readonly objects: readonly StoredObject[]; readonly appliedIndex: number }>;
  follow(afterRevision: number, onBatch: (batch: StreamBatch) => void, onGap: (reason: string) => void): FollowHandle;
}

export type ReplicaLog = (line: string) => void;

export class ObjectReplica {
  readonly #source: ReplicaSource;
  readonly #log: ReplicaLog;
  /** Ordered by key, so a collection is one range (actors' MVCC index, without history). */
  #objects = new ObjectIndex<KubeObject>();
  /** The last lists' items while no object changed (the pages of one chunked list). */
  readonly #listCache = new RangeCache<KubeObject, KubeObject>((object) => object);
  /** Each object's lifecycle: from the state sync, then from every event that moved it. */
  #lifecycles = new Map<string, Lifecycle>();
  #revision = 0;
  #synced = false;
  #stopped = false;
  #follow: FollowHandle | undefined;
  readonly #listeners = new Set<(events: readonly ChangeEvent[]) => void>();
  readonly #resyncListeners = new Set<(reason: string) => void>();
  readonly #revisionWaiters = new Set<{ revision: number; resolve: () => void }>();

  constructor(source: ReplicaSource, log: ReplicaLog = () => {}) {
    this.#source = source;
    this.#log = log;
  }

  /** Starts syncing; resolves after the first successful sync. */
  async start(): Promise<void> {
    await this.#sync();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#follow?.stop();
    this.#follow = undefined;
  }

  synced(): boolean {
    return this.#synced;
  }

  currentRevision(): number {
    return this.#revision;
  }

  get(key: ObjectKey): KubeObject | undefined {
    return this.#objects.get(keyString(key));
  }

  lifecycleOf(key: ObjectKey): Lifecycle | undefined {
    return this.#lifecycles.get(keyString(key));
  }

  list(collection: CollectionKey): { readonly items: readonly KubeObject[]; readonly revision: number } {
    return { items: this.#listCache.items(this.#objects, collectionPrefix(collection)), revision: this.#revision };
  }

  subscribe(listener: (events: readonly ChangeEvent[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Called when the replica lost events and re-synced, after the new state is in place and
   * before any later event is delivered: watchers must be ended (410).
   */
  onResync(listener: (reason: string) => void): () => void {
    this.#resyncListeners.add(listener);
    return () => this.#resyncListeners.delete(listener);
  }

  /** Resolves once the replica's revision reaches `revision`. */
  waitForRevision(revision: number): Promise<void> {
    if (this.#revision >= revision) return Promise.resolve();
    return new Promise((resolve) => this.#revisionWaiters.add({ revision, resolve }));
  }

  async #sync(resyncReason?: string): Promise<void> {
    const { objects, appliedIndex } = await this.#source.fetchState();
    if (this.#stopped) return;
    const index = new ObjectIndex<KubeObject>();
    const lifecycles = new Map<string, Lifecycle>();
    // The state service sends objects in key order, so each insert appends. fetchStoreObjects
    // hands them out frozen and shared already (then compactFrozen returns them as they are).
    for (const entry of objects) {
      const key = keyString(entry.key);
      index.set(key, storedJson.compactFrozen(entry.object));
      if (entry.lifecycle !== undefined) lifecycles.set(key, storedJson.compactFrozen(entry.lifecycle));
    }
    this.#objects = index;
    this.#lifecycles = lifecycles;
    this.#revision = appliedIndex;
    this.#synced = true;
    if (resyncReason !== undefined) for (const listener of this.#resyncListeners) listener(resyncReason);
    this.#wake();
    this.#follow = this.#source.follow(appliedIndex, (batch) => this.#apply(batch), (reason) => { void this.#onGap(reason); });
  }

  #apply(batch: StreamBatch): void {
    if (batch.from !== this.#revision) {
      void this.#onGap(`batch from ${batch.from} does not follow revision ${this.#revision}`);
      return;
    }
    for (const event of batch.events) {
      // Held here and in the watch cache's window: frozen, sharing equal parts (as the store's).
      const key = keyString(event.key);
      storedJson.compactFrozen(event.object);
      if (event.previous !== undefined) sharePrevious(event, this.#objects.get(key));
      if (event.lifecycle !== undefined) storedJson.compactFrozen(event.lifecycle);
      if (event.type === 'DELETED') {
        this.#objects.delete(key);
        this.#lifecycles.delete(key);
      } else {
        this.#objects.set(key, event.object);
        if (event.lifecycle !== undefined) this.#lifecycles.set(key, event.lifecycle);
      }
    }
    this.#revision = batch.through;
    if (batch.events.length > 0) for (const listener of this.#listeners) listener(batch.events);
    this.#wake();
  }

  async #onGap(reason: string): Promise<void> {
    if (this.#stopped || !this.#synced) return;
    this.#log(`object replica: gap (${reason}); re-syncing`);
    this.#synced = false;
    const follow = this.#follow;
    this.#follow = undefined;
    await follow?.stop().catch(() => {});
    for (;;) {
      if (this.#stopped) return;
      try {
        await this.#sync(reason);
        return;
      } catch (error) {
        this.#log(`object replica: re-sync failed: ${error instanceof Error ? error.message : String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  #wake(): void {
    for (const waiter of this.#revisionWaiters) {
      if (this.#revision >= waiter.revision) {
        this.#revisionWaiters.delete(waiter);
        waiter.resolve();
      }
    }
  }
}

/**
 * The event's previous version is the version the replica holds (same key, same
 * resourceVersion): the event refers to the held object instead of a second decoded copy.
 */
function sharePrevious(event: ChangeEvent, held: KubeObject | undefined): void {
  const previous = event.previous;
  if (previous === undefined) return;
  if (held !== undefined && held.metadata.resourceVersion === previous.metadata.resourceVersion) {
    (event as { previous?: KubeObject }).previous = held;
    return;
  }
  storedJson.compactFrozen(previous);
}
