// Owns: the typed operating errors of raft/storage (STYLE rule 8). A torn tail is not an error
// (it is repaired on open); corruption and use after failure are.

export const StorageErrorCodes = {
  CorruptLog: 'CORRUPT_LOG',
  StorageFailed: 'STORAGE_FAILED',
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

export function isCorruptLog(error: unknown): error is CorruptLogError {
  return error instanceof CorruptLogError;
}
