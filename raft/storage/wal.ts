// Owns: the durable write-ahead log on local disk: segment files under <dataDir>/wal holding
// entry and hard state records (framing in record.ts), written in one synchronous write per
// append: segments are opened with O_DSYNC, so the write returns once its bytes (and the file
// size) are on stable storage, as a write followed by fdatasync would, in one trip through
// libuv's thread pool instead of two. Must not interpret entry data, and must not be called
// concurrently (the driver awaits each append). After any write failure it refuses further
// appends: the bytes on disk are then unknown and only recovery on the next open may decide what
// survived.
// Compaction: snapshot markers record durable snapshots; releaseThrough(index) deletes sealed
// segments from the front while everything they hold is at or below `index`.
import { constants } from 'node:fs';
import { mkdir, open, readdir, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Entry, HardState } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { StorageFailedError } from './errors.ts';
import { encodeEntry, encodeHardState, encodeSnapshotMarker } from './record.ts';
import type { SnapshotMarker } from './record.ts';
import { recoverSegments } from './wal-recovery.ts';
import type { SegmentSource } from './wal-recovery.ts';

/**
 * A segment is sealed and a new one started once it reaches 64 MiB: large enough that rollover
 * (one extra directory fsync) is rare, small enough to read a segment into memory at recovery
 * and, once snapshots exist, to delete whole segments behind the snapshot index.
 */
export const segmentBytesMax = 64 * 1024 * 1024;
const segmentSuffix = '.wal';
/** Zero-padded sequence numbers make lexical order equal numeric order. */
const segmentNameDigits = 16;

/** What the WAL held when opened. */
export interface WalState {
  readonly hardState: HardState;
  /** Contiguous entries, starting at any index once segments were released. */
  readonly entries: readonly Entry[];
  /** Newest installed-snapshot marker: the snapshot used with this log must reach its index. */
  readonly snapshotFloor: SnapshotMarker | undefined;
}

export interface WalOptions {
  /** Segment size before rolling over; default segmentBytesMax (tests use small ones). */
  readonly segmentBytes?: number;
  /**
   * Entries at or below this index are covered by a snapshot the caller restores from: their data
   * in `recovered` is a view into the segment buffers read on open, not a copy (the caller drops
   * them; releaseRecovered() lets the buffers go). Default 0: every entry's data is copied.
   */
  readonly coveredThrough?: number;
  /** Segments read and checked ahead (wal-recovery.ts SegmentSource); default none. */
  readonly segmentSource?: SegmentSource;
}

interface SegmentInfo {
  readonly sequence: number;
  /** Highest entry or marker index written to the segment (0 if none). */
  maxIndex: number;
}

export class Wal {
  #recovered: WalState | undefined;

  /** What the WAL held when opened, until releaseRecovered(). */
  get recovered(): WalState {
    assert(this.#recovered !== undefined, 'the WAL\'s recovered state was released');
    return this.#recovered;
  }

  /** Forgets the entries read on open (DiskStorage.releaseRecovered). */
  releaseRecovered(): void {
    this.#recovered = undefined;
  }
  readonly #directory: string;
  readonly #segmentBytesLimit: number;
  readonly #segments: SegmentInfo[];
  #segment: FileHandle;
  #segmentBytes: number;
  #lastIndex: number;
  #appending = false;
  #failure: Error | undefined = undefined;

  private constructor(directory: string, state: WalState, segment: FileHandle, segments: SegmentInfo[], bytes: number, limit: number) {
    this.#directory = directory;
    this.#recovered = state;
    this.#segment = segment;
    this.#segments = segments;
    this.#segmentBytes = bytes;
    this.#segmentBytesLimit = limit;
    this.#lastIndex = state.entries.at(-1)?.index ?? state.snapshotFloor?.index ?? 0;
  }

  /** Opens (creating if needed) the WAL under `dataDir`, recovering what it holds. */
  static async open(dataDir: string, options: WalOptions = {}): Promise<Wal> {
    const limit = options.segmentBytes ?? segmentBytesMax;
    assert(Number.isSafeInteger(limit) && limit >= 1, 'segment size is a positive integer');
    const directory = path.join(dataDir, 'wal');
    await mkdir(directory, { recursive: true });
    await syncDirectory(dataDir);
    const names = (await readdir(directory)).filter((name) => name.endsWith(segmentSuffix)).sort();
    const recovered = await recoverSegments(names.map((name) => path.join(directory, name)), options.coveredThrough ?? 0, options.segmentSource);
    const segments = names.map((name, position): SegmentInfo => {
      const sequence = Number.parseInt(name, 10);
      assert(Number.isSafeInteger(sequence) && sequence >= 1, `bad segment name ${name}`);
      return { sequence, maxIndex: recovered.segmentMaxIndexes[position] ?? 0 };
    });
    if (segments.length === 0) segments.push({ sequence: 1, maxIndex: 0 });
    const last = segments.at(-1)!;
    const segment = names.length === 0
      ? await createSegment(directory, last.sequence)
      : await open(path.join(directory, segmentName(last.sequence)), constants.O_RDWR | constants.O_DSYNC);
    const state = { hardState: recovered.hardState, entries: recovered.entries, snapshotFloor: recovered.snapshotFloor };
    return new Wal(directory, state, segment, segments, recovered.lastSegmentBytes, limit);
  }

  /** Sealed and active segment count (for tests and diagnostics). */
  segmentCount(): number {
    return this.#segments.length;
  }

  /**
   * Records that the snapshot at `marker` is durable, with the current hard state, so both
   * survive the release of older segments. An installed snapshot lets the log continue at
   * marker.index + 1.
   */
  async appendSnapshotMarker(marker: SnapshotMarker, hardState: HardState): Promise<void> {
    await this.#guarded(async () => {
      // The marker first, for the reason encodeBatch puts the hard state last.
      await this.#writeRecords(Buffer.concat([encodeSnapshotMarker(marker), encodeHardState(hardState)]), marker.index);
      this.#lastIndex = Math.max(this.#lastIndex, marker.index);
    });
  }

  /**
   * Deletes sealed segments from the front while all they hold is at or below `index` (a
   * durable snapshot covers it). The active segment always stays: it holds the latest hard
   * state and marker (appendSnapshotMarker wrote them there).
   */
  async releaseThrough(index: number): Promise<number> {
    assert(!this.#appending, 'release during an append');
    assert(index >= 0, 'release index is not negative');
    let released = 0;
    while (this.#segments.length > 1 && this.#segments[0]!.maxIndex <= index) {
      const segment = this.#segments.shift()!;
      await unlink(path.join(this.#directory, segmentName(segment.sequence)));
      released += 1;
    }
    if (released > 0) await syncDirectory(this.#directory);
    return released;
  }

  async append(entries: readonly Entry[], hardState?: HardState): Promise<void> {
    this.#assertContiguous(entries);
    await this.#guarded(async () => {
      const last = entries.at(-1);
      await this.#writeRecords(encodeBatch(entries, hardState), last?.index ?? 0);
      if (last !== undefined) this.#lastIndex = last.index;
    });
  }

  async #guarded(write: () => Promise<void>): Promise<void> {
    if (this.#failure !== undefined) throw new StorageFailedError('an earlier write failed', { cause: this.#failure });
    assert(!this.#appending, 'WAL append is not reentrant');
    this.#appending = true;
    try {
      await write();
    } catch (error) {
      this.#failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      this.#appending = false;
    }
  }

  async close(): Promise<void> {
    assert(!this.#appending, 'WAL closed during an append');
    this.#failure ??= new StorageFailedError('closed');
    await this.#segment.close();
  }

  async #writeRecords(batch: Buffer, maxIndex: number): Promise<void> {
    if (batch.length === 0) return;
    if (this.#segmentBytes >= this.#segmentBytesLimit) await this.#rollSegment();
    const active = this.#segments.at(-1)!;
    active.maxIndex = Math.max(active.maxIndex, maxIndex);
    let written = 0;
    while (written < batch.length) {
      const result = await this.#segment.write(batch, written, batch.length - written, this.#segmentBytes + written);
      assert(result.bytesWritten > 0, 'write made no progress');
      written += result.bytesWritten;
    }
    this.#segmentBytes += batch.length; // durable already: the segment is O_DSYNC
  }

  async #rollSegment(): Promise<void> {
    await this.#segment.close();
    const sequence = this.#segments.at(-1)!.sequence + 1;
    this.#segment = await createSegment(this.#directory, sequence);
    this.#segments.push({ sequence, maxIndex: 0 });
    this.#segmentBytes = 0;
  }

  #assertContiguous(entries: readonly Entry[]): void {
    const first = entries[0];
    if (first === undefined) return;
    assert(first.index >= 1 && first.index <= this.#lastIndex + 1, `append at ${first.index} leaves a gap after ${this.#lastIndex}`);
    entries.forEach((entry, offset) => assert(entry.index === first.index + offset, 'appended entries must be contiguous'));
  }
}

/**
 * Entries first, then the hard state (as etcd's WAL Save): a torn write keeps a prefix of the
 * records, so a hard state that survives implies every entry of its batch survived. The other
 * order could keep a commit index that covers entries of the batch (ones that replaced a
 * divergent suffix) while losing them: recovery would then apply the stale suffix as committed.
 */
function encodeBatch(entries: readonly Entry[], hardState: HardState | undefined): Buffer {
  const records = entries.map(encodeEntry);
  if (hardState !== undefined) records.push(encodeHardState(hardState));
  return Buffer.concat(records);
}

function segmentName(sequence: number): string {
  return `${String(sequence).padStart(segmentNameDigits, '0')}${segmentSuffix}`;
}

async function createSegment(directory: string, sequence: number): Promise<FileHandle> {
  const handle = await open(path.join(directory, segmentName(sequence)), constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_DSYNC);
  // The new file's directory entry must be durable too, or a crash could lose the whole segment.
  await syncDirectory(directory);
  return handle;
}

export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
