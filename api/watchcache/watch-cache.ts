// Owns: the API tier's window of recent change events and the watchers fed from it (the
// design of kube-apiserver's cacher/watch_cache): a bounded ring of events in revision order,
// "events after R" for watch resumption (410 Gone when R has left the window), lists at an
// exact past revision (by rolling the current state back through the window), and fan-out to
// watchers whose queues are bounded (a watcher that cannot keep up is terminated, never
// waited on). Fed by StoreClient.subscribe; must not talk to the store any other way. A
// watcher is in the registry exactly while it is open: every way it ends (its client gone, its
// timeout, overflow, re-sync, close) goes through CacheWatcher.terminate, which takes it out.
// Watchers are indexed by their scope (an object's key or a collection prefix), so an event is
// offered only to the watchers of its object, namespace and resource: a thousand watchers of
// one namespace cost nothing per event elsewhere.
import type { ChangeEvent, CollectionKey, KubeObject } from '../../actors/index.ts';
import { collectionPrefix, keyString } from '../../actors/index.ts';
import type { StoreClient } from '../store-client.ts';
import { CacheWatcher, WatcherExpiredError } from './cache-watcher.ts';
import type { WatchFilter } from './cache-watcher.ts';

/**
 * Events kept for resumption. kube-apiserver keeps 5 minutes of history (spec, Limits); a
 * count bound keeps memory finite under a write burst: 50k events of ~1 KiB objects is
 * ~50 MiB, and at the ~3k writes/s a single member sustains it still covers ~15 s of burst.
 */
export const cachedEventsMax = 50_000;

/**
 * What request handlers read from the cache. A kind served over another kind's storage gets a
 * converting view of it (endpoints/served-view.ts); the cache itself holds the stored form.
 */
export interface WatchCacheReader {
  revision(): number;
  oldestResumableRevision(): number;
  listAt(collection: CollectionKey, revision: number): readonly KubeObject[] | 'expired';
  watch(revision: number, filter: WatchFilter): CacheWatcher | 'expired';
}

export type EventsAfter = { readonly type: 'events'; readonly events: readonly ChangeEvent[] } | { readonly type: 'expired'; readonly oldestRevision: number };

export class WatchCache implements WatchCacheReader {
  readonly #store: StoreClient;
  readonly #events: ChangeEvent[] = [];
  /** Every event with revision > #startRevision is in #events (until evicted). */
  #startRevision: number;
  readonly #watchers = new Set<CacheWatcher>();
  /** The scoped watchers by scope (WatchFilter.scope); the others are in #unscoped. */
  readonly #byScope = new Map<string, Set<CacheWatcher>>();
  readonly #unscoped = new Set<CacheWatcher>();
  readonly #unsubscribe: () => void;
  readonly #unsubscribeResyncs: () => void;
  readonly #eventsMax: number;

  constructor(store: StoreClient, eventsMax: number = cachedEventsMax) {
    this.#store = store;
    this.#eventsMax = eventsMax;
    this.#startRevision = store.currentRevision();
    this.#unsubscribe = store.subscribe((events) => this.#onEvents(events));
    this.#unsubscribeResyncs = store.subscribeResyncs((reason) => this.#reset(reason));
  }

  close(): void {
    this.#unsubscribe();
    this.#unsubscribeResyncs();
    for (const watcher of [...this.#watchers]) watcher.terminate(undefined);
    this.#forgetAll();
  }

  /** The revision the cache (and the store) has reached. */
  revision(): number {
    return this.#store.currentRevision();
  }

  /** Oldest revision R from which "events after R" can still be served. */
  oldestResumableRevision(): number {
    return this.#startRevision;
  }

  eventsAfter(revision: number): EventsAfter {
    if (revision < this.#startRevision) return { type: 'expired', oldestRevision: this.#startRevision };
    return { type: 'events', events: this.#events.filter((event) => event.revision > revision) };
  }

  /**
   * The collection as it was at `revision` (items in key order), or 'expired' when the window
   * no longer reaches back that far. Synchronous, so the current state and the window agree.
   */
  listAt(collection: CollectionKey, revision: number): readonly KubeObject[] | 'expired' {
    if (revision < this.#startRevision) return 'expired';
    const current = this.#store.list(collection);
    if (revision >= current.revision) return current.items;
    const prefix = collectionPrefix(collection);
    const objects = new Map<string, KubeObject>();
    for (const item of current.items) objects.set(itemKey(item, collection), item);
    for (let position = this.#events.length - 1; position >= 0; position--) {
      const event = this.#events[position]!;
      if (event.revision <= revision) break;
      const key = keyString(event.key);
      if (!key.startsWith(prefix)) continue;
      if (event.type === 'ADDED') objects.delete(key);
      else if (event.previous) objects.set(key, event.previous);
    }
    return [...objects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, object]) => object);
  }

  /**
   * Registers a watcher that receives every matching event after `revision`. Registration and
   * the backlog happen in one synchronous step, so no event falls between them.
   */
  watch(revision: number, filter: WatchFilter): CacheWatcher | 'expired' {
    const backlog = this.eventsAfter(revision);
    if (backlog.type === 'expired') return 'expired';
    const watcher = new CacheWatcher(filter, () => this.#forget(watcher), revision);
    // Registered before the backlog is offered: a backlog that overflows the queue terminates
    // the watcher, and its termination must find it in the set to take it out (added after,
    // it would stay registered for good).
    this.#watchers.add(watcher);
    if (filter.scope === undefined) this.#unscoped.add(watcher);
    else {
      const scoped = this.#byScope.get(filter.scope);
      if (scoped === undefined) this.#byScope.set(filter.scope, new Set([watcher]));
      else scoped.add(watcher);
    }
    for (const event of backlog.events) watcher.offer(event);
    return watcher;
  }

  watcherCount(): number {
    return this.#watchers.size;
  }

  /**
   * The store copy re-synced: events before its new revision may be missing, so the window
   * restarts there and every watcher ends with 410 (its client re-lists).
   */
  #reset(reason: string): void {
    this.#events.length = 0;
    this.#startRevision = this.#store.currentRevision();
    const watchers = [...this.#watchers];
    this.#forgetAll();
    for (const watcher of watchers) watcher.terminate(new WatcherExpiredError(reason));
  }

  #forget(watcher: CacheWatcher): void {
    this.#watchers.delete(watcher);
    const scope = watcher.scope;
    if (scope === undefined) {
      this.#unscoped.delete(watcher);
      return;
    }
    const scoped = this.#byScope.get(scope);
    if (scoped?.delete(watcher) === true && scoped.size === 0) this.#byScope.delete(scope);
  }

  #forgetAll(): void {
    this.#watchers.clear();
    this.#byScope.clear();
    this.#unscoped.clear();
  }

  #onEvents(events: readonly ChangeEvent[]): void {
    for (const event of events) {
      this.#events.push(event);
      for (const watcher of this.#unscoped) watcher.offer(event);
      if (this.#byScope.size > 0) this.#offerScoped(event);
    }
    const excess = this.#events.length - this.#eventsMax;
    if (excess > 0) {
      this.#startRevision = this.#events[excess - 1]!.revision;
      this.#events.splice(0, excess);
    }
  }

  /** Offers the event to the watchers of its scopes (each watcher is in one scope only). */
  #offerScoped(event: ChangeEvent): void {
    for (const scope of scopesOf(event)) {
      const scoped = this.#byScope.get(scope);
      if (scoped !== undefined) for (const watcher of scoped) watcher.offer(event);
    }
  }
}

/** The scopes an event lies in: its resource (all namespaces), its namespace, its object. */
function scopesOf(event: ChangeEvent): readonly string[] {
  const { group, resource, namespace } = event.key;
  const everyNamespace = collectionPrefix({ group, resource, namespace: '' });
  const ownNamespace = collectionPrefix({ group, resource, namespace });
  const object = keyString(event.key);
  return everyNamespace === ownNamespace ? [everyNamespace, object] : [everyNamespace, ownNamespace, object];
}

function itemKey(item: KubeObject, collection: CollectionKey): string {
  return keyString({
    group: collection.group, resource: collection.resource,
    namespace: item.metadata.namespace ?? '', name: item.metadata.name ?? '',
  });
}
