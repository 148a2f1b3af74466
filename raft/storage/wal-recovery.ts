// Owns: reading WAL segments back on open: replaying records into the restored log and hard
// state, repairing a torn tail, and refusing real corruption. Must not append records.
//
// The repair rule: a record that fails framing or its checksum is a torn write from a crash
// only if nothing valid follows it in the last segment; then the file is truncated there (those
// bytes were never fsynced, so never acknowledged). A bad record followed by a valid one, or a
// bad record in any earlier segment, is corruption: CorruptLogError.
import { open, readFile } from 'node:fs/promises';
import { emptyHardState } from '../core/index.ts';
import type { Entry, HardState } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { CorruptLogError } from './errors.ts';
import { decodeRecordAt, recordHeaderBytes, RecordType } from './record.ts';
import type { DecodedRecord } from './record.ts';

export interface RecoveredLog {
  entries: Entry[];
  hardState: HardState;
  /** Byte length of the last segment after any tail repair (where appends continue). */
  lastSegmentBytes: number;
}

interface ScannedSegment {
  readonly records: DecodedRecord[];
  readonly validBytes: number;
  readonly totalBytes: number;
}

export async function recoverSegments(paths: readonly string[]): Promise<RecoveredLog> {
  const recovered: RecoveredLog = { entries: [], hardState: emptyHardState, lastSegmentBytes: 0 };
  for (const [position, path] of paths.entries()) {
    const isLast = position === paths.length - 1;
    const scanned = scanSegment(await readFile(path), path);
    if (scanned.validBytes < scanned.totalBytes) {
      if (!isLast) throw new CorruptLogError(path, scanned.validBytes, 'bad record in a sealed segment');
      await truncateTornTail(path, scanned.validBytes);
    }
    for (const record of scanned.records) replay(recovered, record, path);
    recovered.lastSegmentBytes = scanned.validBytes;
  }
  return recovered;
}

function scanSegment(buffer: Buffer, path: string): ScannedSegment {
  const records: DecodedRecord[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const decoded = decodeRecordAt(buffer, offset);
    if (decoded === undefined) break;
    records.push(decoded.record);
    offset += decoded.size;
  }
  assert(offset <= buffer.length, 'scan ran past the segment');
  if (offset < buffer.length && validRecordFollows(buffer, offset + 1)) {
    throw new CorruptLogError(path, offset, 'checksum or framing failure followed by valid records');
  }
  return { records, validBytes: offset, totalBytes: buffer.length };
}

/**
 * Looks for any well-framed, checksum-valid record starting after `from`. A byte-wise search,
 * because a damaged length field tells us nothing about where the next record starts; it stops
 * at the first hit and usually runs over a short torn tail only.
 */
function validRecordFollows(buffer: Buffer, from: number): boolean {
  for (let offset = from; offset + recordHeaderBytes < buffer.length; offset += 1) {
    if (decodeRecordAt(buffer, offset) !== undefined) return true;
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

function replay(recovered: RecoveredLog, record: DecodedRecord, path: string): void {
  if (record.type === RecordType.HardState) {
    recovered.hardState = record.hardState;
    return;
  }
  const { entry } = record;
  const { entries } = recovered;
  // An entry at or below the last index replaces the suffix from there (conflict overwrite).
  if (entry.index <= entries.length) entries.length = Math.max(entry.index - 1, 0);
  if (entry.index !== entries.length + 1) {
    throw new CorruptLogError(path, -1, `entry ${entry.index} leaves a gap after ${entries.length}`);
  }
  const previous = entries.at(-1);
  if (previous !== undefined && entry.term < previous.term) {
    throw new CorruptLogError(path, -1, `entry ${entry.index} term ${entry.term} below ${previous.term}`);
  }
  entries.push(entry);
}
