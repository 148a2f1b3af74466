// Owns: the few most recent range reads of an ObjectIndex, kept while the index does not change,
// so the pages of a chunked list (each a read of the whole collection, then a binary search for
// its continue key) cost one range read between writes instead of one per page.
// Must not: hand out an array anyone can change (cached arrays are frozen), or keep a result
// past a change of the index (each entry remembers the index and its version it was read at).
import type { ObjectIndex } from './object-index.ts';

/** Cached prefixes; a list of another collection evicts the least recent one. */
const cachedRangesMax = 8;

export class RangeCache<V, T> {
  private readonly entries = new Map<string, { readonly index: ObjectIndex<V>; readonly version: number; readonly items: readonly T[] }>();

  constructor(private readonly project: (value: V) => T) {}

  /** The projected values of every key starting with `prefix`, in key order (frozen). */
  items(index: ObjectIndex<V>, prefix: string): readonly T[] {
    const cached = this.entries.get(prefix);
    if (cached !== undefined && cached.index === index && cached.version === index.version) {
      this.entries.delete(prefix);
      this.entries.set(prefix, cached);
      return cached.items;
    }
    const items = Object.freeze(index.range(prefix).map(this.project));
    this.entries.delete(prefix);
    if (this.entries.size >= cachedRangesMax) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(prefix, { index, version: index.version, items });
    return items;
  }
}
