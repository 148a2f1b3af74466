// Public surface of raft/storage: durable log storage for a Raft member.
export { Wal, segmentBytesMax } from './wal.ts';
export { MemoryStorage } from './memory-storage.ts';
export { CorruptLogError, StorageFailedError, StorageErrorCodes, isCorruptLog } from './errors.ts';
export type { StorageErrorCode } from './errors.ts';
export type { RaftStorage } from './storage.ts';
export { recordBodyBytesMax } from './record.ts';
