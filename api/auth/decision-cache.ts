// Owns: the expiring cache the webhook authenticator and authorizer keep their answers in (kube's
// LRUExpireCache for the webhook authorizer, the expiring cache behind the cached token
// authenticator): each entry lives for the TTL it was stored with, measured on an injected
// clock; a TTL of 0 or less stores nothing; when `maxEntries` is reached the least recently used
// entry goes first. Keys are opaque strings; callers never use a secret as a key (they hash it).

export interface ExpiringCacheOptions {
  /** Milliseconds since the epoch; defaults to Date.now. */
  readonly now?: () => number;
  /** At most this many live entries (least recently used dropped first); unbounded when absent. */
  readonly maxEntries?: number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

export class ExpiringCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #now: () => number;
  readonly #maxEntries: number;

  constructor(options: ExpiringCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
  }

  /** The live value under `key` (an expired one is dropped), marking it recently used. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for `ttlMs`; a TTL of 0 or less stores nothing (and forgets an older value). */
  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    if (!(ttlMs > 0)) return;
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Live and not yet noticed expired entries; for tests and metrics. */
  get size(): number {
    return this.#entries.size;
  }
}
