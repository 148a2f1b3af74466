// Owns: the current version of every stored object, ordered by key string
// (group/resource/namespace/name, see keyString) so that a collection — one resource in one
// namespace, or in all namespaces — is one contiguous range.
// Must not: know what a record means (it stores any value per key), copy values, or keep
// old versions (the change history lives in history.ts).
//
// Layout and complexity (n objects, k results):
//   - a Map key → value for point reads: get O(1);
//   - a sorted array of keys for ranges: insert/remove O(log n) search + O(n) splice (a
//     memmove; ~50 µs at 100k keys), range O(log n + k).
// A B-tree would make writes O(log n); the sorted array is simpler and fast enough for the
// walking skeleton's object counts.
import { assert } from '../../raft/stdx/index.ts';

export class ObjectIndex<V> {
  private readonly values = new Map<string, V>();
  private readonly sortedKeys: string[] = [];
  private changes = 0;

  /** Moves on every set and delete: a range read at the same version is the same. */
  get version(): number {
    return this.changes;
  }

  get size(): number {
    return this.sortedKeys.length;
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  /**
   * An index of `values[i]` at `keys[i]`, the keys given in strictly increasing order (a
   * snapshot's records): O(n), no search or splice per key. Throws when they are not.
   */
  static fromSorted<V>(keys: readonly string[], values: readonly V[]): ObjectIndex<V> {
    assert(keys.length === values.length, 'one value per key');
    const index = new ObjectIndex<V>();
    for (let at = 0; at < keys.length; at++) {
      const key = keys[at] as string;
      assert(at === 0 || (keys[at - 1] as string) < key, `keys must be strictly increasing: ${key} at ${at}`);
      index.sortedKeys.push(key);
      index.values.set(key, values[at] as V);
    }
    index.changes = keys.length;
    return index;
  }

  /** Whether `keys` are in strictly increasing order (fromSorted takes them). */
  static strictlyIncreasing(keys: readonly string[]): boolean {
    for (let at = 1; at < keys.length; at++) if (!((keys[at - 1] as string) < (keys[at] as string))) return false;
    return true;
  }

  /** Inserts or replaces the value at `key`. */
  set(key: string, value: V): void {
    this.changes++;
    if (!this.values.has(key)) {
      const at = lowerBound(this.sortedKeys, key);
      assert(this.sortedKeys[at] !== key, `key ${key} is in the sorted keys but not in the map`);
      this.sortedKeys.splice(at, 0, key);
    }
    this.values.set(key, value);
    assert(this.values.size === this.sortedKeys.length, 'map and sorted keys must hold the same keys');
  }

  /** Removes `key`; returns whether it was present. */
  delete(key: string): boolean {
    if (!this.values.delete(key)) return false;
    this.changes++;
    const at = lowerBound(this.sortedKeys, key);
    assert(this.sortedKeys[at] === key, `key ${key} is in the map but not in the sorted keys`);
    this.sortedKeys.splice(at, 1);
    assert(this.values.size === this.sortedKeys.length, 'map and sorted keys must hold the same keys');
    return true;
  }

  /** Values of every key starting with `prefix`, in key order. */
  range(prefix: string): V[] {
    const out: V[] = [];
    for (let i = lowerBound(this.sortedKeys, prefix); i < this.sortedKeys.length; i++) {
      const key = this.sortedKeys[i] as string;
      if (!key.startsWith(prefix)) break;
      out.push(this.values.get(key) as V);
    }
    return out;
  }

  /** Every value in key order (for snapshots). */
  all(): V[] {
    return this.range('');
  }
}

/** The first position in sorted `keys` whose key is >= `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((keys[mid] as string) < key) low = mid + 1;
    else high = mid;
  }
  return low;
}
