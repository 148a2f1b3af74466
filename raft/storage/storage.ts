// Owns: the driver-facing contract of durable Raft storage. Implemented by DiskStorage (WAL +
// snapshot files) and by MemoryStorage. Must not interpret entry or snapshot data.
import type { Entry, HardState, RestoredState, Snapshot } from '../core/index.ts';

export interface RaftStorage {
  /** The durable state found when the storage was opened: the newest valid snapshot (if any),
   *  the log after it, and the hard state. */
  readonly recovered: RestoredState;
  /**
   * Makes `hardState` (if given) and `entries` durable, then resolves. `entries` are contiguous;
   * `entries[0].index` may be at or below the current last index, in which case the stored
   * suffix from that index on is replaced (Raft §5.3 conflict overwrite). Not reentrant: the
   * driver awaits each call before the next. Every append is fsynced: an unsynced record
   * followed by synced ones could reach disk torn after a crash and read as mid-log corruption,
   * so callers defer commit-only hard state changes to the next append instead.
   */
  append(entries: readonly Entry[], hardState?: HardState): Promise<void>;
  /**
   * Makes `snapshot` durable together with `hardState` (the latest, so that releasing old log
   * storage cannot lose it), records in the log that it covers everything up to its index (an
   * installed snapshot replaces a log that does not match it), and releases log storage no
   * retained snapshot needs. Not reentrant with append().
   */
  saveSnapshot(snapshot: Snapshot, hardState: HardState): Promise<void>;
  close(): Promise<void>;
}
