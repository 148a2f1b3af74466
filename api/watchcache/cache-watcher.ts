// Owns: one watcher's bounded queue between the watch cache and an HTTP watch response. The
// cache offers events synchronously; the HTTP side pulls them as an async iterator, or
// everything queued at once (nextBatch: one write for the events that piled up). When the
// queue is full the watcher is terminated (the client reconnects and resumes from its last
// resourceVersion), so one slow client never slows the others or grows memory without bound.
import type { ChangeEvent } from '../../actors/index.ts';

/**
 * Events a watcher may have queued. kube-apiserver's cacheWatcher channel holds 10–1000
 * events depending on the resource; 1000 absorbs a burst for a client reading at normal speed.
 */
export const watcherQueueMax = 1_000;

export interface WatchFilter {
  /**
   * Where every event the filter matches lies: one object's key (keyString) or a collection's
   * prefix (collectionPrefix: one namespace, or all of them). The cache then offers the watcher
   * only the events under it (a lookup per event instead of a call per watcher). Without it the
   * watcher is offered every event.
   */
  readonly scope?: string;
  /** Whether the watcher is interested in this event at all (its collection). Sees the stored form. */
  matches(event: ChangeEvent): boolean;
  /**
   * The event as this watcher's client sees it: a watch on a kind served over another kind's
   * storage (events.k8s.io/v1 over core/v1 events) converts each event it takes. Applied when
   * the HTTP side pulls the event, so the cache's synchronous fan-out stays cheap.
   */
  convert?(event: ChangeEvent): ChangeEvent | Promise<ChangeEvent>;
}

export class WatcherOverflowError extends Error {
  constructor() {
    super(`watcher fell more than ${watcherQueueMax} events behind and was closed; resume from the last resourceVersion`);
    this.name = 'WatcherOverflowError';
  }
}

/**
 * The watch cache lost events (its store copy re-synced) and restarted its window after this
 * watcher's position: the watcher ends with a 410 Expired ERROR event and the client re-lists,
 * as after kube-apiserver's "too old resource version".
 */
export class WatcherExpiredError extends Error {
  constructor(reason: string) {
    super(`the watch cache re-synced (${reason}); events may have been missed, list again`);
    this.name = 'WatcherExpiredError';
  }
}

/** A progress marker: every change up to `revision` has been queued before it. */
export interface Bookmark {
  readonly type: 'BOOKMARK';
  readonly revision: number;
}

export type WatcherItem = ChangeEvent | Bookmark;

let tickEnd: Promise<void> | undefined;

/**
 * Resolves once the callback now running (the stream read that applied the events) and every
 * microtask it queued have run: process.nextTick runs after the microtask queue drains, before
 * the event loop moves on to its next I/O callback. One tick shared by every waiting watcher.
 */
function endOfTick(): Promise<void> {
  tickEnd ??= new Promise<void>((resolve) => {
    process.nextTick(() => {
      tickEnd = undefined;
      resolve();
    });
  });
  return tickEnd;
}

export class CacheWatcher implements AsyncIterable<WatcherItem> {
  readonly #filter: WatchFilter;
  readonly #onClose: () => void;
  readonly #afterRevision: number;
  readonly #queue: WatcherItem[] = [];
  #wake: (() => void) | undefined;
  #closed = false;
  /** Why the watcher ended: undefined for a normal close. Never rejects. */
  #closeReason: Error | undefined;

  /**
   * `afterRevision`: the watch starts after it. A cache that has not reached it yet (an API
   * replica whose copy lags the write the client's resourceVersion came from) offers the events
   * up to it later; they were before the watch's start, so they are not the client's.
   */
  constructor(filter: WatchFilter, onClose: () => void, afterRevision = 0) {
    this.#filter = filter;
    this.#onClose = onClose;
    this.#afterRevision = afterRevision;
  }

  offer(event: ChangeEvent): void {
    if (this.#closed || event.revision <= this.#afterRevision || !this.#filter.matches(event)) return;
    if (this.#queue.length >= watcherQueueMax) {
      this.terminate(new WatcherOverflowError());
      return;
    }
    this.#queue.push(event);
    this.#wake?.();
  }

  /**
   * Queues a bookmark at `revision`. The cache offers events synchronously in revision order,
   * so every matching event up to the store's current revision is already queued. A bookmark
   * never overflows the queue: when it is full the bookmark is skipped (it is only a hint).
   */
  offerBookmark(revision: number): void {
    // A bookmark behind the watch's start would send the client back.
    if (this.#closed || revision < this.#afterRevision || this.#queue.length >= watcherQueueMax) return;
    this.#queue.push({ type: 'BOOKMARK', revision });
    this.#wake?.();
  }

  /**
   * Ends the watcher: it leaves the cache at once and its iterator finishes once the queue is
   * read. Idempotent, so every party that sees the end (the client's connection closing, the
   * timeout, the handler's finally) may call it.
   */
  terminate(reason: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeReason = reason;
    this.#onClose();
    this.#wake?.();
  }

  /** Whether the watcher has ended (terminate was called); the cache no longer holds it then. */
  get closed(): boolean {
    return this.#closed;
  }

  get closeReason(): Error | undefined {
    return this.#closeReason;
  }

  get scope(): string | undefined {
    return this.#filter.scope;
  }

  /**
   * Everything queued (converted, in order), waiting while nothing is; undefined once the
   * watcher has ended and its queue is read. A batch also takes what is offered later by the
   * same I/O callback (it is cut when that callback's microtasks have drained: a replica that
   * fell behind applies the stream messages of one read together, and each watcher then sends
   * their events in one write instead of one write each, so the cost of catching up shrinks as
   * the lag grows). The cut comes before the event loop's next I/O callback, so the events go
   * out before the replica takes up the requests that arrived meanwhile, not after them (a cut
   * in the loop's check phase waited for every request read in the same poll).
   */
  async nextBatch(): Promise<WatcherItem[] | undefined> {
    while (this.#queue.length === 0) {
      if (this.#closed) return undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
    await endOfTick();
    const batch = this.#queue.splice(0, this.#queue.length);
    const convert = this.#filter.convert;
    if (convert === undefined) return batch;
    const converted: WatcherItem[] = [];
    for (const item of batch) converted.push(item.type === 'BOOKMARK' ? item : await convert(item));
    return converted;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatcherItem> {
    for (let batch = await this.nextBatch(); batch !== undefined; batch = await this.nextBatch()) yield* batch;
  }
}
