// Owns: the on-disk record framing of the WAL and the encoding of entries and hard state.
// Must not touch files. Frame, little-endian:
//   [u32 length][u32 crc32 of the rest][u8 type][payload]      length = 1 + payload bytes
// CRC-32 (IEEE) comes from node:zlib's crc32, available since Node 20.15 / 22.2, so no
// hand-written checksum: the engines field requires Node >= 20.19.
import { crc32 } from 'node:zlib';
import { assert } from '../stdx/index.ts';
import { entryDataBytesMax } from '../core/index.ts';
import type { Entry, HardState } from '../core/index.ts';

export const recordHeaderBytes = 8;
/** Fixed part of an entry payload: u64 index, u64 term. */
const entryFixedBytes = 16;
/** Fixed part of a hard state payload: u64 term, u64 commit, u8 hasVote. */
const hardStateFixedBytes = 17;
/** Longest vote (node id) in bytes; node ids are short names, 255 is generous. */
const voteBytesMax = 255;
/**
 * Longest framed body (type + payload) accepted when reading. Anything longer is garbage (a torn
 * length field), which stops a bogus length from making recovery allocate or skip gigabytes.
 */
export const recordBodyBytesMax = 1 + entryFixedBytes + entryDataBytesMax;

/**
 * Snapshot marker payload: u64 index, u64 term. Written when a snapshot becomes durable (taken
 * locally or installed from the leader): replay drops entries it does not match (etcd's
 * walpb.Snapshot record), so an installed snapshot cannot be followed by a stale suffix.
 */
const snapshotMarkerBytes = 16;

export const RecordType = { Entry: 1, HardState: 2, SnapshotMarker: 3 } as const;
export type RecordType = (typeof RecordType)[keyof typeof RecordType];

export interface SnapshotMarker {
  readonly index: number;
  readonly term: number;
}

export type DecodedRecord =
  | { readonly type: typeof RecordType.Entry; readonly entry: Entry }
  | { readonly type: typeof RecordType.HardState; readonly hardState: HardState }
  | { readonly type: typeof RecordType.SnapshotMarker; readonly marker: SnapshotMarker };

/** Entry payload: u64 index, u64 term, [u8 kind: 1 = configuration, only when not normal], data.
 *  A configuration entry sets the high bit of the index field instead, keeping normal entries'
 *  layout unchanged: indices are safe integers (< 2^53), so bit 63 is free. */
const configurationFlag = 1n << 63n;

export function encodeEntry(entry: Entry): Buffer {
  assert(entry.data.byteLength <= entryDataBytesMax, `entry ${entry.index} too large to log`);
  assert(Number.isSafeInteger(entry.index) && entry.index >= 1, `entry index ${entry.index} is a positive safe integer`);
  const payload = Buffer.alloc(entryFixedBytes + entry.data.byteLength);
  const flag = entry.type === 'configuration' ? configurationFlag : 0n;
  payload.writeBigUInt64LE(BigInt(entry.index) | flag, 0);
  payload.writeBigUInt64LE(BigInt(entry.term), 8);
  payload.set(entry.data, entryFixedBytes);
  return frame(RecordType.Entry, payload);
}

export function encodeSnapshotMarker(marker: SnapshotMarker): Buffer {
  assert(Number.isSafeInteger(marker.index) && marker.index >= 1, 'a snapshot marker has a positive index');
  assert(Number.isSafeInteger(marker.term) && marker.term >= 1, 'a snapshot marker has a positive term');
  const payload = Buffer.alloc(snapshotMarkerBytes);
  payload.writeBigUInt64LE(BigInt(marker.index), 0);
  payload.writeBigUInt64LE(BigInt(marker.term), 8);
  return frame(RecordType.SnapshotMarker, payload);
}

export function encodeHardState(hardState: HardState): Buffer {
  const vote = Buffer.from(hardState.vote ?? '', 'utf8');
  assert(vote.length <= voteBytesMax, 'vote id too long');
  const payload = Buffer.alloc(hardStateFixedBytes + vote.length);
  payload.writeBigUInt64LE(BigInt(hardState.term), 0);
  payload.writeBigUInt64LE(BigInt(hardState.commit), 8);
  payload.writeUInt8(hardState.vote === undefined ? 0 : 1, 16);
  payload.set(vote, hardStateFixedBytes);
  return frame(RecordType.HardState, payload);
}

function frame(type: RecordType, payload: Buffer): Buffer {
  const record = Buffer.alloc(recordHeaderBytes + 1 + payload.length);
  record.writeUInt32LE(1 + payload.length, 0);
  record.writeUInt8(type, recordHeaderBytes);
  payload.copy(record, recordHeaderBytes + 1);
  record.writeUInt32LE(crc32(record.subarray(recordHeaderBytes)), 4);
  return record;
}

/**
 * The size of the well-formed record at `offset` (framing, checksum and a payload of its type's
 * shape), or undefined if it is torn, garbage or fails its checksum. Reads nothing else: a WAL
 * segment can be checked by this alone (off the main thread at start-up, wal-recovery.ts
 * checkSegment) and its records decoded later with decodeCheckedRecordAt.
 */
export function recordSizeAt(buffer: Buffer, offset: number): number | undefined {
  if (offset + recordHeaderBytes + 1 > buffer.length) return undefined;
  const length = buffer.readUInt32LE(offset);
  if (length < 1 || length > recordBodyBytesMax) return undefined;
  const end = offset + recordHeaderBytes + length;
  if (end > buffer.length) return undefined;
  const body = buffer.subarray(offset + recordHeaderBytes, end);
  if (crc32(body) !== buffer.readUInt32LE(offset + 4)) return undefined;
  return bodyIsWellFormed(body) ? recordHeaderBytes + length : undefined;
}

/**
 * Decodes the record at `offset` that recordSizeAt found well-formed (its size is
 * recordHeaderBytes + the length field), without checking it again. An entry's data is copied
 * out of `buffer`, except for entries at or below `viewDataThrough`: their data is a view into
 * `buffer` (for entries the caller drops right away, e.g. those a snapshot covers, without
 * copying them).
 */
export function decodeCheckedRecordAt(buffer: Buffer, offset: number, viewDataThrough = 0): DecodedRecord {
  // Fields are read at their offsets in `buffer` (no subarray per record: recovery decodes tens
  // of thousands of records at start-up).
  const length = buffer.readUInt32LE(offset);
  const payloadStart = offset + recordHeaderBytes + 1;
  const payloadEnd = offset + recordHeaderBytes + length;
  const type = buffer.readUInt8(payloadStart - 1);
  if (type === RecordType.Entry) {
    const indexField = buffer.readBigUInt64LE(payloadStart);
    const index = Number(indexField & ~configurationFlag);
    assert(Number.isSafeInteger(index), 'logged index beyond the safe range');
    const term = readSafe(buffer, payloadStart + 8);
    const dataStart = payloadStart + entryFixedBytes;
    // Copy the data out: the segment buffer is large and must not be pinned by entries kept.
    const data = index <= viewDataThrough
      ? new Uint8Array(buffer.buffer, buffer.byteOffset + dataStart, payloadEnd - dataStart)
      : new Uint8Array(buffer.buffer.slice(buffer.byteOffset + dataStart, buffer.byteOffset + payloadEnd));
    const entry: Entry = (indexField & configurationFlag) === 0n ? { index, term, data } : { index, term, data, type: 'configuration' };
    return { type, entry };
  }
  if (type === RecordType.SnapshotMarker) {
    return { type, marker: { index: readSafe(buffer, payloadStart), term: readSafe(buffer, payloadStart + 8) } };
  }
  assert(type === RecordType.HardState, 'a checked record has a known type');
  const hasVote = buffer.readUInt8(payloadStart + 16) === 1;
  const vote = hasVote ? buffer.toString('utf8', payloadStart + hardStateFixedBytes, payloadEnd) : undefined;
  return { type, hardState: { term: readSafe(buffer, payloadStart), commit: readSafe(buffer, payloadStart + 8), vote } };
}

/** A known record type with a payload of that type's shape. */
function bodyIsWellFormed(body: Buffer): boolean {
  const type = body.readUInt8(0);
  const payloadBytes = body.length - 1;
  if (type === RecordType.Entry) return payloadBytes >= entryFixedBytes;
  if (type === RecordType.SnapshotMarker) return payloadBytes === snapshotMarkerBytes;
  if (type === RecordType.HardState) return payloadBytes >= hardStateFixedBytes;
  return false;
}

function readSafe(payload: Buffer, offset: number): number {
  const value = Number(payload.readBigUInt64LE(offset));
  assert(Number.isSafeInteger(value), 'logged integer beyond the safe range');
  return value;
}
