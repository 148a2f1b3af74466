// Public surface of raft/storage: durable log storage for a Raft member.
export { Wal, segmentBytesMax } from './wal.ts';
export type { WalOptions, WalState } from './wal.ts';
export { DiskStorage } from './disk-storage.ts';
export type { DiskStorageOptions } from './disk-storage.ts';
export { SnapshotStore, snapshotsRetained, encodeSnapshot, decodeSnapshot, snapshotFileData, snapshotFileSuffix } from './snapshot-store.ts';
export { MemoryStorage } from './memory-storage.ts';
export { CorruptLogError, SnapshotMissingError, StorageFailedError, StorageErrorCodes, isCorruptLog } from './errors.ts';
export type { StorageErrorCode } from './errors.ts';
export type { RaftStorage } from './storage.ts';
export { recordBodyBytesMax } from './record.ts';
export { readWholeFile } from './whole-file.ts';
export { checkSegment } from './wal-recovery.ts';
export type { CheckedSegment, SegmentCheck, SegmentSource } from './wal-recovery.ts';
