// Owns: one member's simulated disk. Writes (in raft/node's order: a snapshot received from the
// leader first (its file precedes the WAL write), then as the WAL orders a batch: one record per
// entry, then the hard state record last) land in a volatile buffer and become
// durable only at sync(), the simulated fsync. A crash drops the unsynced buffer, or, for a torn
// write, keeps a random prefix of its records: exactly what a real disk may do with data that
// was written but not fsynced. A snapshot record (taken locally before compact(), or received
// from the leader in a Ready) replaces the log up to its index: the log after it is kept only if
// it holds the snapshot's last entry (index and term), as thesis §5.4.3 says (DiskStorage does
// the same with its marker). restored() hands back the newest durable snapshot and the durable
// log after it. Also keeps the "written" view (durable + unsynced), which is what the member's
// core holds in memory, for the log checks. Must not know about Raft rules beyond that.
import type { Entry, HardState, Ready, RestoredState, Snapshot } from '../../raft/core/index.ts';
import { emptyHardState } from '../../raft/core/index.ts';
import { assert } from '../../raft/stdx/index.ts';

type StorageRecord =
  | { readonly kind: 'hardState'; readonly hardState: HardState }
  | { readonly kind: 'snapshot'; readonly snapshot: Snapshot }
  | { readonly kind: 'entry'; readonly entry: Entry };

/** A log as stored: an optional snapshot and the entries after it (offset + 1 onwards). */
class StoredLog {
  hardState: HardState = emptyHardState;
  snapshot: Snapshot | undefined = undefined;
  entries: Entry[] = [];

  get offset(): number {
    return this.snapshot?.meta.index ?? 0;
  }

  get lastIndex(): number {
    return this.offset + this.entries.length;
  }

  entryAt(index: number): Entry | undefined {
    return index > this.offset ? this.entries[index - this.offset - 1] : undefined;
  }

  /** Term at `index`: of an entry, of the snapshot at its index, 0 at 0; else undefined. */
  termAt(index: number): number | undefined {
    if (index === this.offset) return this.snapshot?.meta.term ?? 0;
    return this.entryAt(index)?.term;
  }

  apply(record: StorageRecord): void {
    switch (record.kind) {
      case 'hardState': this.hardState = record.hardState; return;
      case 'snapshot': this.#applySnapshot(record.snapshot); return;
      case 'entry': this.#applyEntry(record.entry); return;
    }
  }

  copy(): StoredLog {
    const copy = new StoredLog();
    copy.hardState = this.hardState;
    copy.snapshot = this.snapshot;
    copy.entries = [...this.entries];
    return copy;
  }

  #applySnapshot(snapshot: Snapshot): void {
    const { index, term } = snapshot.meta;
    if (index <= this.offset) return; // an older snapshot than the one held: nothing to replace
    const keepsLog = this.termAt(index) === term;
    this.entries = keepsLog ? this.entries.slice(index - this.offset) : [];
    this.snapshot = snapshot;
  }

  /** Appends `entry`, replacing any suffix from its index on (Ready contract: stored suffix replaced). */
  #applyEntry(entry: Entry): void {
    assert(entry.index > this.offset && entry.index <= this.lastIndex + 1, `entry ${entry.index} outside (${this.offset}, ${this.lastIndex + 1}]`);
    this.entries.length = entry.index - this.offset - 1;
    this.entries.push(entry);
  }
}

export class FaultyStorage {
  #durable = new StoredLog();
  #unsynced: StorageRecord[] = [];
  /** Durable log with the unsynced records applied: the core's in-memory log. */
  #written = new StoredLog();

  /** Writes a Ready's hard state, snapshot and entries without syncing them (Ready contract steps 0-1). */
  write(ready: Ready): void {
    if (ready.hardState !== undefined && this.hardStateFirst) this.#record({ kind: 'hardState', hardState: ready.hardState });
    if (ready.snapshot !== undefined) this.#record({ kind: 'snapshot', snapshot: ready.snapshot });
    for (const entry of ready.entries) this.#record({ kind: 'entry', entry });
    if (ready.hardState !== undefined && !this.hardStateFirst) this.#record({ kind: 'hardState', hardState: ready.hardState });
  }

  /** Writes a snapshot the member took of its own state machine (durable at the next sync). */
  writeSnapshot(snapshot: Snapshot): void {
    this.#record({ kind: 'snapshot', snapshot });
  }

  /**
   * Test hook: the record order the WAL had before the simulator found it unsafe (hard state
   * before the snapshot and entries of its batch), to show the checks catch what it allows.
   */
  hardStateFirst = false;

  /** Told of every hard state that becomes durable (at a sync, or kept by a torn write). */
  onDurableHardState: ((hardState: HardState) => void) | undefined = undefined;

  /** fsync: every write so far is durable. */
  sync(): void {
    for (const record of this.#unsynced) this.#applyDurably(record);
    this.#unsynced = [];
    assert(this.#durable.lastIndex === this.#written.lastIndex && this.#durable.offset === this.#written.offset,
      'a sync leaves durable and written logs equal');
  }

  hasUnsynced(): boolean {
    return this.#unsynced.length > 0;
  }

  get unsyncedRecords(): number {
    return this.#unsynced.length;
  }

  /** Snapshot records among the unsynced ones from position `from` on (what a crash keeping `from` loses). */
  unsyncedSnapshotsAfter(from: number): number {
    return this.#unsynced.slice(from).filter((record) => record.kind === 'snapshot').length;
  }

  /** Loses unsynced writes except the first `recordsKept` (0 for a clean loss). */
  crash(recordsKept: number): void {
    assert(recordsKept >= 0 && recordsKept <= this.#unsynced.length, `cannot keep ${recordsKept} of ${this.#unsynced.length} records`);
    for (const record of this.#unsynced.slice(0, recordsKept)) this.#applyDurably(record);
    this.#unsynced = [];
    this.#written = this.#durable.copy();
  }

  /** What a restarting member reads back: durable state only (newest snapshot, log after it). */
  restored(): RestoredState {
    assert(this.#unsynced.length === 0, 'restore with unsynced writes outstanding');
    const { hardState, snapshot, entries } = this.#durable;
    return snapshot === undefined ? { hardState, entries: [...entries] } : { hardState, entries: [...entries], snapshot };
  }

  writtenLastIndex(): number {
    return this.#written.lastIndex;
  }

  writtenEntryAt(index: number): Entry | undefined {
    return this.#written.entryAt(index);
  }

  /** Term at `index` of the written log (the snapshot's term at its index, 0 at 0). */
  writtenTermAt(index: number): number | undefined {
    return this.#written.termAt(index);
  }

  writtenHardState(): HardState {
    return this.#written.hardState;
  }

  durableLastIndex(): number {
    return this.#durable.lastIndex;
  }

  durableHardState(): HardState {
    return this.#durable.hardState;
  }

  durableSnapshot(): Snapshot | undefined {
    return this.#durable.snapshot;
  }

  durableSnapshotIndex(): number {
    return this.#durable.offset;
  }

  /**
   * Whether the durable state holds the committed entry `index`/`term`: in the log, or covered
   * by the durable snapshot (at its index the terms must agree; below it, the snapshot's state
   * includes the entry, which the checker verified when the snapshot was made or installed).
   */
  durablyHolds(index: number, term: number): boolean {
    if (index < this.#durable.offset) return true;
    return this.#durable.termAt(index) === term;
  }

  #applyDurably(record: StorageRecord): void {
    this.#durable.apply(record);
    if (record.kind === 'hardState') this.onDurableHardState?.(record.hardState);
  }

  #record(record: StorageRecord): void {
    this.#unsynced.push(record);
    this.#written.apply(record);
  }
}
