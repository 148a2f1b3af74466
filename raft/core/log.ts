// Owns: the in-memory Raft log of one member with its stable/commit/applied cursors. Pure.
// Must not do I/O: the driver persists what `unstableEntries()` returns and reports back.
//
// Invariants (checked by assertions):
//   entries[i].index === i + 1           (no snapshots yet: the log starts at index 1)
//   appliedIndex <= commitIndex <= lastIndex()
//   stableIndex <= lastIndex()           (entries after stableIndex are not yet durable)
//   terms never decrease along the log
// Committed entries are never truncated (Raft paper §5.4, Leader Completeness).
import { assert } from '../stdx/index.ts';
import type { Entry } from './types.ts';

export class RaftLog {
  #entries: Entry[] = [];
  /** Last index known durable in local storage. */
  stableIndex = 0;
  /** Highest index known committed. */
  commitIndex = 0;
  /** Highest index handed to the driver for apply. */
  appliedIndex = 0;

  constructor(entries: readonly Entry[], commitIndex: number, appliedIndex: number) {
    for (const entry of entries) this.#push(entry);
    this.stableIndex = this.lastIndex();
    // A stored commit index beyond the stored log cannot be honoured; the leader re-derives it.
    this.commitIndex = Math.min(Math.max(commitIndex, appliedIndex), this.lastIndex());
    this.appliedIndex = appliedIndex;
    assert(appliedIndex <= this.commitIndex, `applied ${appliedIndex} beyond the restored log`);
  }

  lastIndex(): number {
    return this.#entries.length;
  }

  lastTerm(): number {
    return this.termAt(this.lastIndex()) ?? 0;
  }

  /** Term of the entry at `index`; 0 for index 0; undefined beyond the log. */
  termAt(index: number): number | undefined {
    assert(Number.isSafeInteger(index) && index >= 0, `bad log index ${index}`);
    if (index === 0) return 0;
    return this.#entries[index - 1]?.term;
  }

  /**
   * First index of the run of `term` entries that ends at `fromIndex` (which holds `term`), not
   * going below `lowestIndex`. Fast backtracking on the follower side.
   */
  firstIndexOfTerm(fromIndex: number, term: number, lowestIndex: number): number {
    assert(this.termAt(fromIndex) === term, `no entry of term ${term} at ${fromIndex}`);
    assert(lowestIndex >= 1, 'lowest index is at least 1');
    let index = fromIndex;
    while (index - 1 >= lowestIndex && this.termAt(index - 1) === term) index -= 1;
    return index;
  }

  /**
   * Last index at or below `fromIndex` holding `term`, or undefined if we hold none there (terms
   * only grow along the log, so the scan stops at the first lower term). Fast backtracking on
   * the leader side.
   */
  lastIndexOfTerm(fromIndex: number, term: number): number | undefined {
    assert(term >= 1, 'terms of entries start at 1');
    let index = Math.min(fromIndex, this.lastIndex());
    assert(index >= 0, 'scan starts inside the log');
    while (index >= 1) {
      const found = this.termAt(index)!;
      if (found === term) return index;
      if (found < term) return undefined;
      index -= 1;
    }
    return undefined;
  }

  matchesTerm(index: number, term: number): boolean {
    return this.termAt(index) === term;
  }

  entryAt(index: number): Entry {
    const entry = this.#entries[index - 1];
    assert(entry !== undefined, `no entry at index ${index}`);
    assert(entry.index === index, `entry index ${entry.index} stored at ${index}`);
    return entry;
  }

  /** Entries in [fromIndex, lastIndex], at most `countMax` of them. */
  entriesFrom(fromIndex: number, countMax: number): Entry[] {
    assert(fromIndex >= 1, `entriesFrom(${fromIndex}) below the first index`);
    assert(countMax > 0, 'entriesFrom needs a positive count');
    return this.#entries.slice(fromIndex - 1, fromIndex - 1 + countMax);
  }

  /** Is a candidate's log at least as up to date as ours (§5.4.1)? */
  isUpToDate(lastIndex: number, lastTerm: number): boolean {
    const ourTerm = this.lastTerm();
    if (lastTerm !== ourTerm) return lastTerm > ourTerm;
    return lastIndex >= this.lastIndex();
  }

  /** Leader path: append new entries at the end. */
  append(entries: readonly Entry[]): void {
    for (const entry of entries) this.#push(entry);
  }

  /**
   * Follower path (§5.3): entries follow a matching prefix. Existing entries that agree are kept;
   * from the first conflicting index on, our suffix is replaced. Returns the new last index
   * covered by the message.
   */
  appendAfterMatch(prevIndex: number, entries: readonly Entry[]): number {
    assert(this.termAt(prevIndex) !== undefined, `appendAfterMatch beyond log at ${prevIndex}`);
    let position = 0;
    while (position < entries.length) {
      const entry = entries[position]!;
      assert(entry.index === prevIndex + 1 + position, 'appended entries must be contiguous');
      if (!this.matchesTerm(entry.index, entry.term)) break;
      position += 1;
    }
    if (position < entries.length) {
      const firstNew = entries[position]!.index;
      if (firstNew <= this.lastIndex()) this.#truncateFrom(firstNew); // a conflict, not just new
      this.append(entries.slice(position));
    }
    return prevIndex + entries.length;
  }

  unstableEntries(): Entry[] {
    return this.#entries.slice(this.stableIndex);
  }

  /** The driver made entries up to `index` (with `term` there) durable. */
  stableTo(index: number, term: number): void {
    // The entry may have been replaced since the Ready was built only if the driver broke the
    // contract; assert rather than silently ignore.
    assert(this.matchesTerm(index, term), `stableTo(${index}, ${term}) does not match the log`);
    assert(index >= this.stableIndex, `stable index moved back from ${this.stableIndex} to ${index}`);
    this.stableIndex = index;
  }

  commitTo(index: number): void {
    assert(index > this.commitIndex, `commit must advance: ${this.commitIndex} -> ${index}`);
    assert(index <= this.lastIndex(), `commit ${index} beyond last index ${this.lastIndex()}`);
    this.commitIndex = index;
  }

  /**
   * Committed entries not yet handed out for apply, at most `countMax`. On a follower some may
   * still be unstable; the Ready contract persists them before they are applied.
   */
  committedToApply(countMax: number): Entry[] {
    assert(this.appliedIndex <= this.commitIndex, 'applied beyond commit');
    assert(countMax > 0, 'committedToApply needs a positive count');
    const upTo = Math.min(this.commitIndex, this.appliedIndex + countMax);
    return this.#entries.slice(this.appliedIndex, upTo);
  }

  hasCommittedToApply(): boolean {
    return this.commitIndex > this.appliedIndex;
  }

  appliedTo(index: number): void {
    assert(index >= this.appliedIndex, `applied moved back from ${this.appliedIndex} to ${index}`);
    assert(index <= this.commitIndex, `applied ${index} beyond commit ${this.commitIndex}`);
    this.appliedIndex = index;
  }

  #push(entry: Entry): void {
    assert(entry.index === this.lastIndex() + 1, `entry ${entry.index} does not follow ${this.lastIndex()}`);
    assert(entry.term >= this.lastTerm(), `entry term ${entry.term} below previous ${this.lastTerm()}`);
    this.#entries.push(entry);
  }

  #truncateFrom(index: number): void {
    assert(index > this.commitIndex, `truncating committed entry ${index} (commit ${this.commitIndex})`);
    assert(index >= 1 && index <= this.lastIndex(), `truncate point ${index} outside the log`);
    this.#entries.length = index - 1;
    this.stableIndex = Math.min(this.stableIndex, index - 1);
  }
}
