// Owns: an in-memory RaftStorage for unit tests and the simulator. No I/O; durability is
// simulated by keeping copies. Must never be used by a production role.
import type { Entry, HardState, RestoredState, Snapshot } from '../core/index.ts';
import { emptyHardState } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import type { RaftStorage } from './storage.ts';

export class MemoryStorage implements RaftStorage {
  readonly recovered: RestoredState;
  /** Entries after the snapshot (or from index 1 without one). */
  #entries: Entry[];
  #hardState: HardState;
  #snapshot: Snapshot | undefined;
  #closed = false;

  constructor(initial: RestoredState = { hardState: emptyHardState, entries: [] }) {
    this.#entries = initial.entries.map(copyEntry);
    this.#hardState = initial.hardState;
    this.#snapshot = initial.snapshot;
    this.recovered = this.durableState();
  }

  async append(entries: readonly Entry[], hardState?: HardState): Promise<void> {
    assert(!this.#closed, 'append after close');
    const first = entries[0];
    if (first !== undefined) {
      const offset = this.#snapshot?.meta.index ?? 0;
      assert(first.index > offset, `append at ${first.index} at or below the snapshot at ${offset}`);
      assert(first.index <= offset + this.#entries.length + 1, `append at ${first.index} leaves a gap`);
      this.#entries.length = first.index - offset - 1;
      this.#entries.push(...entries.map(copyEntry));
    }
    if (hardState !== undefined) this.#hardState = hardState;
  }

  async saveSnapshot(snapshot: Snapshot, hardState: HardState): Promise<void> {
    assert(!this.#closed, 'saveSnapshot after close');
    const { index, term } = snapshot.meta;
    const offset = this.#snapshot?.meta.index ?? 0;
    assert(index > offset, `snapshot at ${index} not newer than ${offset}`);
    const held = this.#entries[index - offset - 1];
    // Keep the log after the snapshot only if it continues it (thesis §5.4.3).
    this.#entries = held !== undefined && held.term === term ? this.#entries.slice(index - offset) : [];
    this.#snapshot = { meta: snapshot.meta, data: new Uint8Array(snapshot.data) };
    this.#hardState = hardState;
  }

  /** What a restart would recover: use it to build the next MemoryStorage. */
  durableState(): RestoredState {
    const state = { hardState: this.#hardState, entries: this.#entries.map(copyEntry) };
    return this.#snapshot === undefined ? state : { ...state, snapshot: this.#snapshot };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

function copyEntry(entry: Entry): Entry {
  const copy = { index: entry.index, term: entry.term, data: new Uint8Array(entry.data) };
  return entry.type === undefined ? copy : { ...copy, type: entry.type };
}
