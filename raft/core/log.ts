// Owns: the in-memory Raft log of one member with its stable/commit/applied cursors, its
// compaction offset (the snapshot it starts after, or the last applied entry it forgot) and the
// configuration in effect at that offset. Pure. Must not do I/O: the driver persists what
// `unstableEntries()` returns and reports back.
//
// Invariants (checked by assertions):
//   entries[i].index === offsetIndex + 1 + i   (the log starts after a snapshot, or at 1)
//   offsetIndex <= appliedIndex <= commitIndex <= lastIndex()   (except while a received
//                                         snapshot waits to be applied: appliedIndex < offsetIndex)
//   stableIndex <= lastIndex()           (entries after stableIndex are not yet durable)
//   terms never decrease along the log
// Committed entries are never truncated (Raft paper §5.4, Leader Completeness); compaction
// discards only applied, durable entries (thesis §5.1): the state machine holds their effect, the
// WAL still holds them until a snapshot covers them, and the configuration they set is kept as
// the offset's configuration.
import { assert } from '../stdx/index.ts';
import { decodeConfiguration } from './configuration.ts';
import type { Configuration, Entry, SnapshotMeta } from './types.ts';

export class RaftLog {
  #entries: Entry[] = [];
  /** Indices of the 'configuration' entries held, ascending (thesis §4.1: the latest wins). */
  #configurationIndexes: number[] = [];
  /** Index and term of the entry just before the first held one (0/0, or a snapshot's). */
  #offsetIndex: number;
  #offsetTerm: number;
  /** The configuration in effect at the offset (thesis §4.1: the latest one up to it); undefined
   *  while no snapshot or compacted entry set one (the bootstrap configuration then holds). */
  #offsetConfiguration: Configuration | undefined;
  /** Last index known durable in local storage. */
  stableIndex = 0;
  /** Highest index known committed. */
  commitIndex = 0;
  /** Highest index handed to the driver for apply. */
  appliedIndex = 0;

  constructor(entries: readonly Entry[], commitIndex: number, appliedIndex: number, snapshot?: SnapshotMeta) {
    this.#offsetIndex = snapshot?.index ?? 0;
    this.#offsetTerm = snapshot?.term ?? 0;
    this.#offsetConfiguration = snapshot?.configuration;
    for (const entry of entries) this.#push(entry);
    this.stableIndex = this.lastIndex();
    assert(appliedIndex >= this.#offsetIndex, `applied ${appliedIndex} below the snapshot at ${this.#offsetIndex}`);
    // A stored commit index beyond the stored log cannot be honoured; the leader re-derives it.
    this.commitIndex = Math.min(Math.max(commitIndex, appliedIndex), this.lastIndex());
    this.appliedIndex = appliedIndex;
    assert(appliedIndex <= this.commitIndex, `applied ${appliedIndex} beyond the restored log`);
  }

  /** Index of the last compacted entry (0 if none): entries up to it live in a snapshot. */
  offsetIndex(): number {
    return this.#offsetIndex;
  }

  /** The configuration in effect at offsetIndex(): the latest one the snapshot or the compacted
   *  entries set; undefined if none did (the bootstrap configuration is in effect there). */
  offsetConfiguration(): Configuration | undefined {
    return this.#offsetConfiguration;
  }

  firstIndex(): number {
    return this.#offsetIndex + 1;
  }

  lastIndex(): number {
    return this.#offsetIndex + this.#entries.length;
  }

  lastTerm(): number {
    return this.termAt(this.lastIndex()) ?? 0;
  }

  /** Term of the entry at `index`; the snapshot's term at the offset; undefined beyond the
   *  log or below the offset (compacted). */
  termAt(index: number): number | undefined {
    assert(Number.isSafeInteger(index) && index >= 0, `bad log index ${index}`);
    if (index === this.#offsetIndex) return this.#offsetTerm;
    if (index < this.#offsetIndex) return undefined;
    return this.#entries[index - this.#offsetIndex - 1]?.term;
  }

  /** True when the entry at `index` was compacted into a snapshot (its term is unknown). */
  isCompacted(index: number): boolean {
    return index < this.#offsetIndex;
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
    while (index >= this.firstIndex()) {
      const found = this.termAt(index)!;
      if (found === term) return index;
      if (found < term) return undefined;
      index -= 1;
    }
    return undefined;
  }

  /** Index of the latest configuration entry held at or below `atOrBefore`, if any. */
  latestConfigurationIndex(atOrBefore = this.lastIndex()): number | undefined {
    for (let position = this.#configurationIndexes.length - 1; position >= 0; position -= 1) {
      const index = this.#configurationIndexes[position]!;
      if (index <= atOrBefore) return index;
    }
    return undefined;
  }

  matchesTerm(index: number, term: number): boolean {
    return this.termAt(index) === term;
  }

  entryAt(index: number): Entry {
    const entry = this.#entries[index - this.#offsetIndex - 1];
    assert(entry !== undefined, `no entry at index ${index}`);
    assert(entry.index === index, `entry index ${entry.index} stored at ${index}`);
    return entry;
  }

  /** Entries in [fromIndex, lastIndex], at most `countMax` of them. */
  entriesFrom(fromIndex: number, countMax: number): Entry[] {
    assert(fromIndex >= this.firstIndex(), `entriesFrom(${fromIndex}) below the first index ${this.firstIndex()}`);
    assert(countMax > 0, 'entriesFrom needs a positive count');
    const start = fromIndex - this.#offsetIndex - 1;
    return this.#entries.slice(start, start + countMax);
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
   * covered by the message, and the first index that was replaced (undefined if none).
   */
  appendAfterMatch(prevIndex: number, entries: readonly Entry[]): { lastNewIndex: number; truncatedFrom: number | undefined } {
    assert(this.termAt(prevIndex) !== undefined, `appendAfterMatch outside the log at ${prevIndex}`);
    let position = 0;
    while (position < entries.length) {
      const entry = entries[position]!;
      assert(entry.index === prevIndex + 1 + position, 'appended entries must be contiguous');
      if (!this.matchesTerm(entry.index, entry.term)) break;
      position += 1;
    }
    let truncatedFrom: number | undefined = undefined;
    if (position < entries.length) {
      const firstNew = entries[position]!.index;
      if (firstNew <= this.lastIndex()) {
        this.#truncateFrom(firstNew); // a conflict, not just new entries
        truncatedFrom = firstNew;
      }
      this.append(entries.slice(position));
    }
    return { lastNewIndex: prevIndex + entries.length, truncatedFrom };
  }

  unstableEntries(): Entry[] {
    return this.#entries.slice(Math.max(0, this.stableIndex - this.#offsetIndex));
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
   * still be unstable; the Ready contract persists them before they are applied. None while a
   * received snapshot waits to be applied: it comes first.
   */
  committedToApply(countMax: number): Entry[] {
    assert(this.appliedIndex <= this.commitIndex, 'applied beyond commit');
    assert(countMax > 0, 'committedToApply needs a positive count');
    if (this.appliedIndex < this.#offsetIndex) return [];
    const upTo = Math.min(this.commitIndex, this.appliedIndex + countMax);
    return this.entriesBetween(this.appliedIndex + 1, upTo);
  }

  /** Entries in [fromIndex, toIndex] (empty when toIndex < fromIndex). */
  entriesBetween(fromIndex: number, toIndex: number): Entry[] {
    if (toIndex < fromIndex) return [];
    assert(fromIndex >= this.firstIndex(), `entries from ${fromIndex} were compacted`);
    assert(toIndex <= this.lastIndex(), `entries up to ${toIndex} beyond the log`);
    return this.#entries.slice(fromIndex - this.#offsetIndex - 1, toIndex - this.#offsetIndex);
  }

  hasCommittedToApply(): boolean {
    return this.commitIndex > this.appliedIndex && this.appliedIndex >= this.#offsetIndex;
  }

  appliedTo(index: number): void {
    assert(index >= this.appliedIndex, `applied moved back from ${this.appliedIndex} to ${index}`);
    assert(index <= this.commitIndex, `applied ${index} beyond commit ${this.commitIndex}`);
    this.appliedIndex = index;
  }

  /**
   * Log compaction (thesis §5.1): forget entries up to `index`. Only applied and durable entries
   * may go (the state machine and the WAL hold them); the latest configuration entry among them
   * becomes the offset's configuration.
   */
  compactTo(index: number): void {
    assert(index <= this.appliedIndex, `compacting ${index} beyond applied ${this.appliedIndex}`);
    assert(index <= this.stableIndex, `compacting ${index} beyond stable ${this.stableIndex}`);
    if (index <= this.#offsetIndex) return;
    const term = this.termAt(index);
    assert(term !== undefined, `no term at compaction point ${index}`);
    const configured = this.latestConfigurationIndex(index);
    if (configured !== undefined) this.#offsetConfiguration = decodeConfiguration(this.entryAt(configured).data);
    this.#entries = this.#entries.slice(index - this.#offsetIndex);
    this.#configurationIndexes = this.#configurationIndexes.filter((configured) => configured > index);
    this.#offsetIndex = index;
    this.#offsetTerm = term;
  }

  /**
   * A follower installs a leader's snapshot that its log does not contain (thesis §5.4.3 /
   * Figure 5.14 step 8): the whole log is replaced by the snapshot; the state machine is reset
   * from it when the driver applies the Ready carrying it.
   */
  restoreSnapshot(snapshot: SnapshotMeta): void {
    assert(snapshot.index > this.commitIndex, `snapshot ${snapshot.index} at or below commit ${this.commitIndex}`);
    assert(!this.matchesTerm(snapshot.index, snapshot.term), 'a matching log is fast-forwarded, not replaced');
    this.#entries = [];
    this.#configurationIndexes = [];
    this.#offsetIndex = snapshot.index;
    this.#offsetTerm = snapshot.term;
    this.#offsetConfiguration = snapshot.configuration;
    this.stableIndex = snapshot.index;
    this.commitIndex = snapshot.index;
  }

  #push(entry: Entry): void {
    assert(entry.index === this.lastIndex() + 1, `entry ${entry.index} does not follow ${this.lastIndex()}`);
    assert(entry.term >= this.lastTerm(), `entry term ${entry.term} below previous ${this.lastTerm()}`);
    this.#entries.push(entry);
    if (entry.type === 'configuration') this.#configurationIndexes.push(entry.index);
  }

  #truncateFrom(index: number): void {
    assert(index > this.commitIndex, `truncating committed entry ${index} (commit ${this.commitIndex})`);
    assert(index >= this.firstIndex() && index <= this.lastIndex(), `truncate point ${index} outside the log`);
    this.#entries.length = index - this.#offsetIndex - 1;
    this.#configurationIndexes = this.#configurationIndexes.filter((configured) => configured < index);
    this.stableIndex = Math.min(this.stableIndex, index - 1);
  }
}
