// Owns: RaftStorage on local disk: the WAL (wal.ts) and the snapshot files (snapshot-store.ts)
// together, and recovery that combines them: the newest valid snapshot, then the WAL entries
// after it. Must not interpret entry or snapshot data.
//
// Retention: snapshot-store keeps the newest two snapshots, and the WAL keeps every segment
// holding anything above the older one, so a corrupt newest snapshot falls back to the
// previous one and replays the WAL from there.
import type { Entry, HardState, RestoredState, Snapshot } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { SnapshotMissingError } from './errors.ts';
import { SnapshotStore } from './snapshot-store.ts';
import type { RaftStorage } from './storage.ts';
import { Wal } from './wal.ts';
import type { WalOptions, WalState } from './wal.ts';

export interface DiskStorageOptions extends Omit<WalOptions, 'coveredThrough'> {
  /** Told about snapshot files found corrupt (and quarantined) on open. */
  readonly onCorruptSnapshot?: (file: string) => void;
}

export class DiskStorage implements RaftStorage {
  readonly wal: Wal;
  readonly #snapshots: SnapshotStore;
  #recovered: RestoredState | undefined;

  private constructor(wal: Wal, snapshots: SnapshotStore, recovered: RestoredState) {
    this.wal = wal;
    this.#snapshots = snapshots;
    this.#recovered = recovered;
  }

  /** What was found on open, until releaseRecovered(). */
  get recovered(): RestoredState {
    assert(this.#recovered !== undefined, 'the recovered state was released after the member was restored from it');
    return this.#recovered;
  }

  /**
   * Forgets what was found on open, once the driver restored the core and the state machine from
   * it: otherwise the log read at start (up to a snapshot interval of commands) and the snapshot
   * found then would stay in memory for the life of the process, after compaction dropped them
   * everywhere else.
   */
  releaseRecovered(): void {
    this.#recovered = undefined;
    this.wal.releaseRecovered();
  }

  static async open(dataDir: string, options: DiskStorageOptions = {}): Promise<DiskStorage> {
    const { store, loaded } = await SnapshotStore.open(dataDir);
    for (const file of loaded.quarantined) options.onCorruptSnapshot?.(file);
    // The entries the newest snapshot covers are dropped below: read them without copying their data.
    const wal = await Wal.open(dataDir, { ...options, coveredThrough: loaded.newest?.meta.index ?? 0 });
    try {
      const { entries, staleLog } = logAfterSnapshot(wal.recovered, loaded.newest, dataDir);
      if (staleLog) {
        // Repair: the missing marker, so the stale log stays replaced on every later replay.
        const { index, term } = loaded.newest!.meta;
        await wal.appendSnapshotMarker({ index, term }, wal.recovered.hardState);
      }
      const recovered: RestoredState = loaded.newest === undefined
        ? { hardState: wal.recovered.hardState, entries }
        : { hardState: wal.recovered.hardState, entries, snapshot: loaded.newest };
      return new DiskStorage(wal, store, recovered);
    } catch (error) {
      await wal.close();
      throw error;
    }
  }

  /** Indexes of the snapshots on disk (tests and diagnostics). */
  snapshotIndexes(): readonly number[] {
    return this.#snapshots.retainedIndexes();
  }

  append(entries: readonly Entry[], hardState?: HardState): Promise<void> {
    return this.wal.append(entries, hardState);
  }

  async saveSnapshot(snapshot: Snapshot, hardState: HardState): Promise<void> {
    await this.#snapshots.save(snapshot);
    await this.wal.appendSnapshotMarker({ index: snapshot.meta.index, term: snapshot.meta.term }, hardState);
    const oldestRetained = this.#snapshots.retainedIndexes()[0];
    assert(oldestRetained !== undefined && oldestRetained <= snapshot.meta.index, 'the saved snapshot is retained');
    await this.wal.releaseThrough(oldestRetained);
  }

  close(): Promise<void> {
    return this.wal.close();
  }
}

/** The WAL's entries after `snapshot`, checked to continue it without a gap; `staleLog` when
 *  the WAL held a log that the snapshot replaced (then no entries are kept). */
function logAfterSnapshot(wal: WalState, snapshot: Snapshot | undefined, dataDir: string): { entries: Entry[]; staleLog: boolean } {
  const floor = wal.snapshotFloor;
  if (floor !== undefined && (snapshot === undefined || snapshot.meta.index < floor.index)) {
    throw new SnapshotMissingError(dataDir, floor.index, snapshot?.meta.index);
  }
  assert(floor === undefined || wal.entries.length === 0 || wal.entries[0]!.index > floor.index, 'entries follow the floor');
  const snapshotIndex = snapshot?.meta.index ?? 0;
  const walLastIndex = wal.entries.at(-1)?.index ?? floor?.index ?? 0;
  // The same crash with a log shorter than the snapshot: appends continue at its index + 1.
  if (walLastIndex < snapshotIndex) return { entries: [], staleLog: true };
  const first = wal.entries[0];
  if (first !== undefined && first.index > snapshotIndex + 1) {
    throw new SnapshotMissingError(dataDir, first.index - 1, snapshot?.meta.index);
  }
  const atSnapshot = wal.entries.find((entry) => entry.index === snapshotIndex);
  if (snapshot !== undefined && atSnapshot !== undefined && atSnapshot.term !== snapshot.meta.term) {
    // A crash between writing an installed snapshot's file and its WAL marker: the log is the
    // stale one the snapshot replaced. The snapshot holds committed state, so everything the
    // log has from its index on conflicts with it and was never committed: drop it.
    return { entries: [], staleLog: true };
  }
  const after = wal.entries.filter((entry) => entry.index > snapshotIndex);
  assert(after.length === 0 || after[0]!.index === snapshotIndex + 1, 'the log continues the snapshot');
  return { entries: after, staleLog: false };
}
