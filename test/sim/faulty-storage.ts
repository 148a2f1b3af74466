// Owns: one member's simulated disk. Writes (hard state and entries, as the WAL orders them:
// hard state record first, then one record per entry) land in a volatile buffer and become
// durable only at sync(), the simulated fsync. A crash drops the unsynced buffer, or, for a torn
// write, keeps a random prefix of its records: exactly what a real disk may do with data that
// was written but not fsynced. Also keeps the "written" view (durable + unsynced), which is what
// the member's core holds in memory, for the log checks. Must not know about Raft rules.
import type { Entry, HardState, Ready, RestoredState } from '../../raft/core/index.ts';
import { emptyHardState } from '../../raft/core/index.ts';
import { assert } from '../../raft/stdx/index.ts';

type StorageRecord =
  | { readonly kind: 'hardState'; readonly hardState: HardState }
  | { readonly kind: 'entry'; readonly entry: Entry };

export class FaultyStorage {
  #durableEntries: Entry[] = [];
  #durableHardState: HardState = emptyHardState;
  #unsynced: StorageRecord[] = [];
  /** Durable log with the unsynced records applied: the core's in-memory log. */
  #writtenEntries: Entry[] = [];
  #writtenHardState: HardState = emptyHardState;

  /** Writes a Ready's hard state and entries without syncing them (Ready contract step 1). */
  write(ready: Ready): void {
    if (ready.hardState !== undefined) {
      this.#unsynced.push({ kind: 'hardState', hardState: ready.hardState });
      this.#writtenHardState = ready.hardState;
    }
    for (const entry of ready.entries) {
      this.#unsynced.push({ kind: 'entry', entry });
      applyEntry(this.#writtenEntries, entry);
    }
  }

  /** fsync: every write so far is durable. */
  sync(): void {
    this.#applyDurably(this.#unsynced);
    this.#unsynced = [];
    assert(this.#durableEntries.length === this.#writtenEntries.length, 'a sync leaves durable and written logs equal');
  }

  hasUnsynced(): boolean {
    return this.#unsynced.length > 0;
  }

  get unsyncedRecords(): number {
    return this.#unsynced.length;
  }

  /** Loses unsynced writes except the first `recordsKept` (0 for a clean loss). */
  crash(recordsKept: number): void {
    assert(recordsKept >= 0 && recordsKept <= this.#unsynced.length, `cannot keep ${recordsKept} of ${this.#unsynced.length} records`);
    this.#applyDurably(this.#unsynced.slice(0, recordsKept));
    this.#unsynced = [];
    this.#writtenEntries = [...this.#durableEntries];
    this.#writtenHardState = this.#durableHardState;
  }

  /** What a restarting member reads back: durable state only. */
  restored(): RestoredState {
    assert(this.#unsynced.length === 0, 'restore with unsynced writes outstanding');
    return { hardState: this.#durableHardState, entries: [...this.#durableEntries] };
  }

  writtenLastIndex(): number {
    return this.#writtenEntries.length;
  }

  writtenEntryAt(index: number): Entry | undefined {
    return this.#writtenEntries[index - 1];
  }

  writtenHardState(): HardState {
    return this.#writtenHardState;
  }

  durableLastIndex(): number {
    return this.#durableEntries.length;
  }

  durableHardState(): HardState {
    return this.#durableHardState;
  }

  #applyDurably(records: readonly StorageRecord[]): void {
    for (const record of records) {
      if (record.kind === 'hardState') this.#durableHardState = record.hardState;
      else applyEntry(this.#durableEntries, record.entry);
    }
  }
}

/** Appends `entry`, replacing any suffix from its index on (Ready contract: stored suffix replaced). */
function applyEntry(log: Entry[], entry: Entry): void {
  assert(entry.index >= 1 && entry.index <= log.length + 1, `entry ${entry.index} leaves a gap after ${log.length}`);
  log.length = entry.index - 1;
  log.push(entry);
}
