// Owns: reading WAL segments back on open: replaying records into the restored log and hard
// state, repairing a torn tail, and refusing real corruption. Must not append records.
//
// The repair rule: a record that fails framing or its checksum is a torn write from a crash
// only if nothing valid follows it in the last segment; then the file is truncated there (those
// bytes were never fsynced, so never acknowledged). A bad record followed by a valid one, or a
// bad record in any earlier segment, is corruption: CorruptLogError.
//
// Compaction deletes whole segments from the front, so the replayed log may start at any index
// (the snapshot covers what came before). A snapshot marker (index N, term T) that the log
// replayed so far does not match (no entry N, or a different term there) records an installed
// snapshot: everything before it is dropped and the log continues at N + 1.
//
// Checking a segment (framing and CRC-32 of every record: checkSegment) needs nothing but its
// bytes, so a caller may have it done elsewhere: a SegmentSource hands recovery segments read and
// checked ahead (at process start, on a worker thread: deploy/wal-prefetch.ts); recovery then only
// decodes their records. The repair and corruption rules are the same either way.
import { open } from 'node:fs/promises';
import { emptyHardState } from '../core/index.ts';
import type { Entry, HardState } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { CorruptLogError } from './errors.ts';
import { decodeCheckedRecordAt, recordHeaderBytes, recordSizeAt, RecordType } from './record.ts';
import type { DecodedRecord, SnapshotMarker } from './record.ts';
import { readWholeFile } from './whole-file.ts';

export interface RecoveredLog {
  /** Contiguous entries; the first may have any index (earlier ones were compacted). */
  entries: Entry[];
  hardState: HardState;
  /** Byte length of the last segment after any tail repair (where appends continue). */
  lastSegmentBytes: number;
  /** The newest snapshot marker that replaced the log: the snapshot loaded must reach it. */
  snapshotFloor: SnapshotMarker | undefined;
  /** Per segment (in path order): the highest entry or marker index it holds, 0 if none. */
  segmentMaxIndexes: number[];
}

interface ScannedSegment {
  readonly records: DecodedRecord[];
  readonly validBytes: number;
  readonly totalBytes: number;
}

/** What checkSegment found in a segment's bytes. */
export interface SegmentCheck {
  /** Bytes from the start that are whole, checksum-valid records. */
  readonly validBytes: number;
  /** A bad record is followed by a valid one: corruption, not a torn tail. */
  readonly corrupt: boolean;
}

/** A segment's bytes with their check, read and checked before recovery asked for them. */
export interface CheckedSegment {
  readonly buffer: Buffer;
  readonly check: SegmentCheck;
}

/**
 * Segments read and checked ahead: the segment at `path` as it is on disk now, or undefined (then
 * recovery reads and checks it itself). Must not hand out bytes the file no longer holds.
 */
export type SegmentSource = (path: string) => Promise<CheckedSegment | undefined>;

/**
 * `viewDataThrough`: entries at or below it keep their data as views into the segment buffers
 * read here (no copy; they pin those buffers while the caller holds them), see decodeCheckedRecordAt.
 */
export async function recoverSegments(paths: readonly string[], viewDataThrough = 0, source?: SegmentSource): Promise<RecoveredLog> {
  const recovered: RecoveredLog = { entries: [], hardState: emptyHardState, lastSegmentBytes: 0, snapshotFloor: undefined, segmentMaxIndexes: [] };
  // One segment is read ahead (libuv's thread pool) while the previous one is checksummed and
  // decoded here, so the reads do not leave the thread idle; at most two segments are in memory
  // besides those that covered entries pin (and those a source read ahead).
  let next = paths.length > 0 ? readAhead(paths[0] as string, source) : undefined;
  for (const [position, path] of paths.entries()) {
    const isLast = position === paths.length - 1;
    const segment = await (next as Promise<CheckedSegment | Buffer>);
    next = isLast ? undefined : readAhead(paths[position + 1] as string, source);
    const scanned = Buffer.isBuffer(segment) ? scanSegment(segment, path, viewDataThrough, checkSegment(segment)) : scanSegment(segment.buffer, path, viewDataThrough, segment.check);
    if (scanned.validBytes < scanned.totalBytes) {
      if (!isLast) throw new CorruptLogError(path, scanned.validBytes, 'bad record in a sealed segment');
      await truncateTornTail(path, scanned.validBytes);
    }
    let maxIndex = 0;
    for (const record of scanned.records) maxIndex = Math.max(maxIndex, replay(recovered, record, path));
    recovered.segmentMaxIndexes.push(maxIndex);
    recovered.lastSegmentBytes = scanned.validBytes;
  }
  return recovered;
}

/**
 * Starts reading a segment (from `source` if it has it, else from disk); a failure is reported
 * where it is awaited (never as an unhandled rejection if recovery stopped before it).
 */
function readAhead(path: string, source: SegmentSource | undefined): Promise<CheckedSegment | Buffer> {
  const reading: Promise<CheckedSegment | Buffer> = source === undefined
    ? readWholeFile(path)
    : source(path).then((checked): Promise<CheckedSegment | Buffer> | CheckedSegment => checked ?? readWholeFile(path));
  reading.catch(() => undefined);
  return reading;
}

/** Walks `buffer`'s records by framing and checksum: where the valid ones end, and whether a valid one follows a bad one. */
export function checkSegment(buffer: Buffer): SegmentCheck {
  let offset = 0;
  while (offset < buffer.length) {
    const size = recordSizeAt(buffer, offset);
    if (size === undefined) break;
    offset += size;
  }
  assert(offset <= buffer.length, 'check ran past the segment');
  return { validBytes: offset, corrupt: offset < buffer.length && validRecordFollows(buffer, offset + 1) };
}

/** Decodes the records `check` found valid in `buffer`. */
function scanSegment(buffer: Buffer, path: string, viewDataThrough: number, check: SegmentCheck): ScannedSegment {
  assert(check.validBytes <= buffer.length, 'the check covers the segment read');
  if (check.corrupt) throw new CorruptLogError(path, check.validBytes, 'checksum or framing failure followed by valid records');
  const records: DecodedRecord[] = [];
  let offset = 0;
  while (offset < check.validBytes) {
    records.push(decodeCheckedRecordAt(buffer, offset, viewDataThrough));
    offset += recordHeaderBytes + buffer.readUInt32LE(offset);
  }
  assert(offset === check.validBytes, 'the checked records end where the check said');
  return { records, validBytes: check.validBytes, totalBytes: buffer.length };
}

/**
 * Looks for any well-framed, checksum-valid record starting after `from`. A byte-wise search,
 * because a damaged length field tells us nothing about where the next record starts; it stops
 * at the first hit and usually runs over a short torn tail only.
 */
function validRecordFollows(buffer: Buffer, from: number): boolean {
  for (let offset = from; offset + recordHeaderBytes < buffer.length; offset += 1) {
    if (recordSizeAt(buffer, offset) !== undefined) return true;
  }
  return false;
}

async function truncateTornTail(path: string, validBytes: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(validBytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replays one record; returns the log index it concerns (0 for hard state). */
function replay(recovered: RecoveredLog, record: DecodedRecord, path: string): number {
  if (record.type === RecordType.HardState) {
    recovered.hardState = record.hardState;
    return 0;
  }
  if (record.type === RecordType.SnapshotMarker) {
    replayMarker(recovered, record.marker);
    return record.marker.index;
  }
  const { entry } = record;
  const { entries } = recovered;
  const first = entries[0];
  if (first !== undefined && entry.index <= first.index - 1 + entries.length) {
    // An entry at or below the last index replaces the suffix from there (conflict overwrite).
    if (entry.index < first.index) throw new CorruptLogError(path, -1, `entry ${entry.index} overwrites below the first kept ${first.index}`);
    entries.length = entry.index - first.index;
  }
  const expected = entries.length > 0 ? entries[0]!.index + entries.length : recovered.snapshotFloor === undefined ? undefined : recovered.snapshotFloor.index + 1;
  if (expected !== undefined && entry.index !== expected) {
    throw new CorruptLogError(path, -1, `entry ${entry.index} leaves a gap before ${expected}`);
  }
  const previous = entries.at(-1);
  if (previous !== undefined && entry.term < previous.term) {
    throw new CorruptLogError(path, -1, `entry ${entry.index} term ${entry.term} below ${previous.term}`);
  }
  entries.push(entry);
  return entry.index;
}

function replayMarker(recovered: RecoveredLog, marker: SnapshotMarker): void {
  const { entries } = recovered;
  const first = entries[0];
  if (first !== undefined) {
    const last = first.index - 1 + entries.length;
    if (marker.index < first.index - 1) return; // compaction marker for segments since deleted
    const held = marker.index >= first.index && marker.index <= last ? entries[marker.index - first.index]! : undefined;
    if (held !== undefined && held.term === marker.term) return; // our own log up to it: a compaction
    if (held === undefined && marker.index === first.index - 1) return;
  }
  // An installed snapshot: the log before it (if any) is replaced.
  entries.length = 0;
  recovered.snapshotFloor = marker;
  assert(recovered.entries.length === 0, 'an installed snapshot empties the replayed log');
}
