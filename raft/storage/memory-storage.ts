// Owns: an in-memory RaftStorage for unit tests and the simulator. No I/O; durability is
// simulated by keeping copies. Must never be used by a production role.
import type { Entry, HardState, RestoredState } from '../core/index.ts';
import { emptyHardState } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import type { RaftStorage } from './storage.ts';

export class MemoryStorage implements RaftStorage {
  readonly recovered: RestoredState;
  #entries: Entry[];
  #hardState: HardState;
  #closed = false;

  constructor(initial: RestoredState = { hardState: emptyHardState, entries: [] }) {
    this.#entries = initial.entries.map(copyEntry);
    this.#hardState = initial.hardState;
    this.recovered = { hardState: this.#hardState, entries: this.#entries.map(copyEntry) };
  }

  async append(entries: readonly Entry[], hardState?: HardState): Promise<void> {
    assert(!this.#closed, 'append after close');
    const first = entries[0];
    if (first !== undefined) {
      assert(first.index <= this.#entries.length + 1, `append at ${first.index} leaves a gap`);
      this.#entries.length = first.index - 1;
      this.#entries.push(...entries.map(copyEntry));
    }
    if (hardState !== undefined) this.#hardState = hardState;
  }

  /** What a restart would recover: use it to build the next MemoryStorage. */
  durableState(): RestoredState {
    return { hardState: this.#hardState, entries: this.#entries.map(copyEntry) };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

function copyEntry(entry: Entry): Entry {
  return { index: entry.index, term: entry.term, data: new Uint8Array(entry.data) };
}
