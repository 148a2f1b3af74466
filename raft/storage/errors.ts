// Owns: the typed operating errors of raft/storage (STYLE rule 8). A torn tail is not an error
// (it is repaired on open); corruption and use after failure are.

export const StorageErrorCodes = {
  CorruptLog: 'CORRUPT_LOG',
  StorageFailed: 'STORAGE_FAILED',
  SnapshotMissing: 'SNAPSHOT_MISSING',
} as const;
export type StorageErrorCode = (typeof StorageErrorCodes)[keyof typeof StorageErrorCodes];

/** A record failed its checksum or framing and valid records follow it: real corruption, which
 *  must not be silently truncated, because acknowledged entries would be lost. */
export class CorruptLogError extends Error {
  readonly code = StorageErrorCodes.CorruptLog;
  readonly file: string;
  readonly offset: number;

  constructor(file: string, offset: number, detail: string, options?: ErrorOptions) {
    super(`corrupt raft log ${file} at byte ${offset}: ${detail}`, options);
    this.name = 'CorruptLogError';
    this.file = file;
    this.offset = offset;
  }
}

/** A write or fsync failed earlier (or the storage was closed); the log state on disk is
 *  unknown, so further appends are refused until the process restarts and recovers. */
export class StorageFailedError extends Error {
  readonly code = StorageErrorCodes.StorageFailed;

  constructor(detail: string, options?: ErrorOptions) {
    super(`raft storage unavailable: ${detail}`, options);
    this.name = 'StorageFailedError';
  }
}

/** The log on disk continues a snapshot newer than any valid snapshot file (the newest was
 *  corrupt and the WAL before it was already released, or files were removed by hand). The
 *  member cannot rebuild its state alone; it needs its data directory restored or reset. */
export class SnapshotMissingError extends Error {
  readonly code = StorageErrorCodes.SnapshotMissing;
  readonly neededIndex: number;

  constructor(dataDir: string, neededIndex: number, foundIndex: number | undefined, options?: ErrorOptions) {
    super(`raft storage ${dataDir}: the log needs a snapshot at or after ${neededIndex}, found ${foundIndex ?? 'none'}`, options);
    this.name = 'SnapshotMissingError';
    this.neededIndex = neededIndex;
  }
}

export function isCorruptLog(error: unknown): error is CorruptLogError {
  return error instanceof CorruptLogError;
}
