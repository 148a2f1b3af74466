// Owns: the current version of every stored object, ordered by key string
// (group/resource/namespace/name, see keyString) so that a collection — one resource in one
// namespace, or in all namespaces — is one contiguous range.
// Must not: know what a record means (it stores any value per key), copy values, or keep
// old versions (the change history lives in history.ts).
//
// Layout and complexity (n objects, k results, B = blockKeysMax):
//   - a Map key → value for point reads: get O(1), and replacing a present key's value O(1);
//   - the keys in order, cut into blocks (sorted arrays of at most B keys, in order, none
//     empty) with each block's first key in one more array: a new key is found in
//     O(log n) (binary search over the first keys, then in its block) and inserted with a
//     splice in its block, O(B); a full block is split in two, a block left small by deletes
//     is merged with a neighbour, an empty one removed (each O(B + n/B)). Ranges are
//     O(log n + k). No object per key: the blocks are plain arrays of the key strings the Map
//     also holds.
// A single sorted array made every new key a splice of the whole array (a memmove of O(n):
// 1–13 µs per insert from 10k to 120k keys, and at some array sizes V8's splice took a path
// 100× slower, 90–600 µs), paid in every store member and API replica. Measured with
// test/bench/object-index.ts: 1.5–3.5 µs of CPU per new key at 10k–200k keys on a loaded machine,
// of which the Map.set alone is 0.4–1.9 µs.
import { assert } from '../../raft/stdx/index.ts';

/** Most keys in one block: a split makes two of half this. */
const blockKeysMax = 512;
/** A block with fewer keys after a delete is merged with a neighbour when both fit in one. */
const blockKeysMin = blockKeysMax / 4;
/** A merge leaves at most this many keys, so that the next inserts do not split it at once. */
const mergedKeysMax = (blockKeysMax * 3) / 4;

export class ObjectIndex<V> {
  private readonly values = new Map<string, V>();
  /** The keys in order, in blocks of 1..blockKeysMax keys (no block when there is no key). */
  private readonly blocks: string[][] = [];
  /** firstKeys[b] === blocks[b][0]. */
  private readonly firstKeys: string[] = [];
  private keyCount = 0;
  private changes = 0;

  /** Moves on every set and delete: a range read at the same version is the same. */
  get version(): number {
    return this.changes;
  }

  get size(): number {
    return this.keyCount;
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
      if (at > 0 && !((keys[at - 1] as string) < key)) assert(false, `keys must be strictly increasing: ${key} at ${at}`);
      index.values.set(key, values[at] as V);
    }
    for (let start = 0; start < keys.length; start += blockKeysMax) {
      const block = keys.slice(start, start + blockKeysMax);
      index.blocks.push(block);
      index.firstKeys.push(block[0] as string);
    }
    index.keyCount = keys.length;
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
    const sizeBefore = this.values.size;
    this.values.set(key, value);
    if (this.values.size !== sizeBefore) this.insertKey(key);
    if (this.values.size !== this.keyCount) assert(false, 'map and sorted keys must hold the same keys');
  }

  /** Removes `key`; returns whether it was present. */
  delete(key: string): boolean {
    if (!this.values.delete(key)) return false;
    this.changes++;
    this.removeKey(key);
    if (this.values.size !== this.keyCount) assert(false, 'map and sorted keys must hold the same keys');
    return true;
  }

  /** Values of every key starting with `prefix`, in key order. */
  range(prefix: string): V[] {
    const out: V[] = [];
    const blocks = this.blocks;
    if (blocks.length === 0) return out;
    let b = this.blockFor(prefix);
    let i = lowerBound(blocks[b] as string[], prefix);
    for (; b < blocks.length; b++, i = 0) {
      const block = blocks[b] as string[];
      for (; i < block.length; i++) {
        const key = block[i] as string;
        if (!key.startsWith(prefix)) return out;
        out.push(this.values.get(key) as V);
      }
    }
    return out;
  }

  /** Every value in key order (for snapshots). */
  all(): V[] {
    const out: V[] = [];
    for (const block of this.blocks) for (const key of block) out.push(this.values.get(key) as V);
    return out;
  }

  /** The block where `key` is or would be inserted: the last whose first key is <= key, else the first. */
  private blockFor(key: string): number {
    const after = upperBound(this.firstKeys, key);
    return after === 0 ? 0 : after - 1;
  }

  private insertKey(key: string): void {
    const blocks = this.blocks;
    if (blocks.length === 0) {
      blocks.push([key]);
      this.firstKeys.push(key);
      this.keyCount++;
      return;
    }
    const b = this.blockFor(key);
    const block = blocks[b] as string[];
    const at = lowerBound(block, key);
    if (block[at] === key) assert(false, `key ${key} is in the sorted keys but not in the map`);
    if (block.length < blockKeysMax) {
      if (at === block.length) block.push(key);
      else block.splice(at, 0, key);
      if (at === 0) this.firstKeys[b] = key;
    } else if (at === block.length && b === blocks.length - 1) {
      // Appending past the last full block (keys arriving in order): a new block, the full one stays full.
      blocks.push([key]);
      this.firstKeys.push(key);
    } else {
      const half = blockKeysMax >>> 1;
      const upper = block.splice(half);
      if (at <= half) {
        block.splice(at, 0, key);
        if (at === 0) this.firstKeys[b] = key;
      } else upper.splice(at - half, 0, key);
      blocks.splice(b + 1, 0, upper);
      this.firstKeys.splice(b + 1, 0, upper[0] as string);
    }
    this.keyCount++;
  }

  private removeKey(key: string): void {
    const blocks = this.blocks;
    const b = this.blockFor(key);
    const block = blocks[b];
    const at = block === undefined ? -1 : lowerBound(block, key);
    if (block === undefined || block[at] !== key) assert(false, `key ${key} is in the map but not in the sorted keys`);
    this.keyCount--;
    if (block.length === 1) {
      blocks.splice(b, 1);
      this.firstKeys.splice(b, 1);
      return;
    }
    block.splice(at, 1);
    if (at === 0) this.firstKeys[b] = block[0] as string;
    if (block.length < blockKeysMin) this.mergeSmall(b);
  }

  /** Merges block `b` into a neighbour (or the neighbour into it) when the two fit in mergedKeysMax keys. */
  private mergeSmall(b: number): void {
    const blocks = this.blocks;
    const block = blocks[b] as string[];
    const next = blocks[b + 1];
    if (next !== undefined && block.length + next.length <= mergedKeysMax) {
      for (const key of next) block.push(key);
      blocks.splice(b + 1, 1);
      this.firstKeys.splice(b + 1, 1);
      return;
    }
    const previous = blocks[b - 1];
    if (previous !== undefined && previous.length + block.length <= mergedKeysMax) {
      for (const key of block) previous.push(key);
      blocks.splice(b, 1);
      this.firstKeys.splice(b, 1);
    }
  }

  /**
   * The blocks' shape, for tests: their sizes in order. Throws when the layout is broken (a block
   * empty or over the maximum, out of order, or a first key that is not its block's).
   */
  checkedBlockSizes(): number[] {
    const sizes: number[] = [];
    let previous: string | undefined;
    let total = 0;
    assert(this.firstKeys.length === this.blocks.length, 'one first key per block');
    for (const [b, block] of this.blocks.entries()) {
      assert(block.length > 0 && block.length <= blockKeysMax, `block ${b} holds ${block.length} keys`);
      assert(this.firstKeys[b] === block[0], `block ${b}'s first key is recorded`);
      for (const key of block) {
        assert(previous === undefined || previous < key, `keys in strictly increasing order at ${key}`);
        assert(this.values.has(key), `key ${key} is in the map`);
        previous = key;
      }
      total += block.length;
      sizes.push(block.length);
    }
    assert(total === this.keyCount && total === this.values.size, 'the blocks hold every key of the map');
    return sizes;
  }
}

/** The most keys a block holds (for tests that make blocks split and merge). */
export const objectIndexBlockKeysMax = blockKeysMax;

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

/** The first position in sorted `keys` whose key is > `key`. */
function upperBound(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((keys[mid] as string) <= key) low = mid + 1;
    else high = mid;
  }
  return low;
}
