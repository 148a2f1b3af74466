// Owns: the durable write-ahead log on local disk: segment files under <dataDir>/wal holding
// entry and hard state records (framing in record.ts), written in one write + one fsync per
// append. Must not interpret entry data, and must not be called concurrently (the driver awaits
// each append). After any write or fsync failure it refuses further appends: the bytes on disk
// are then unknown and only recovery on the next open may decide what survived.
import { mkdir, open, readdir } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Entry, HardState, RestoredState } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { StorageFailedError } from './errors.ts';
import { encodeEntry, encodeHardState } from './record.ts';
import type { RaftStorage } from './storage.ts';
import { recoverSegments } from './wal-recovery.ts';

/**
 * A segment is sealed and a new one started once it reaches 64 MiB: large enough that rollover
 * (one extra directory fsync) is rare, small enough to read a segment into memory at recovery
 * and, once snapshots exist, to delete whole segments behind the snapshot index.
 */
export const segmentBytesMax = 64 * 1024 * 1024;
const segmentSuffix = '.wal';
/** Zero-padded sequence numbers make lexical order equal numeric order. */
const segmentNameDigits = 16;

export class Wal implements RaftStorage {
  readonly recovered: RestoredState;
  readonly #directory: string;
  #segment: FileHandle;
  #segmentSequence: number;
  #segmentBytes: number;
  #lastIndex: number;
  #appending = false;
  #failure: Error | undefined = undefined;

  private constructor(directory: string, state: RestoredState, segment: FileHandle, sequence: number, bytes: number) {
    this.#directory = directory;
    this.recovered = state;
    this.#segment = segment;
    this.#segmentSequence = sequence;
    this.#segmentBytes = bytes;
    this.#lastIndex = state.entries.length;
  }

  /** Opens (creating if needed) the WAL under `dataDir`, recovering what it holds. */
  static async open(dataDir: string): Promise<Wal> {
    const directory = path.join(dataDir, 'wal');
    await mkdir(directory, { recursive: true });
    await syncDirectory(dataDir);
    const names = (await readdir(directory)).filter((name) => name.endsWith(segmentSuffix)).sort();
    const recovered = await recoverSegments(names.map((name) => path.join(directory, name)));
    const lastName = names.at(-1);
    const sequence = lastName === undefined ? 1 : Number.parseInt(lastName, 10);
    assert(Number.isSafeInteger(sequence) && sequence >= 1, `bad segment name ${lastName}`);
    const segment = lastName === undefined
      ? await createSegment(directory, sequence)
      : await open(path.join(directory, lastName), 'r+');
    const state = { hardState: recovered.hardState, entries: recovered.entries };
    return new Wal(directory, state, segment, sequence, recovered.lastSegmentBytes);
  }

  async append(entries: readonly Entry[], hardState?: HardState): Promise<void> {
    if (this.#failure !== undefined) throw new StorageFailedError('an earlier write failed', { cause: this.#failure });
    assert(!this.#appending, 'WAL append is not reentrant');
    this.#assertContiguous(entries);
    this.#appending = true;
    try {
      await this.#writeRecords(encodeBatch(entries, hardState));
      const last = entries.at(-1);
      if (last !== undefined) this.#lastIndex = last.index;
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

  async #writeRecords(batch: Buffer): Promise<void> {
    if (batch.length === 0) return;
    if (this.#segmentBytes >= segmentBytesMax) await this.#rollSegment();
    let written = 0;
    while (written < batch.length) {
      const result = await this.#segment.write(batch, written, batch.length - written, this.#segmentBytes + written);
      assert(result.bytesWritten > 0, 'write made no progress');
      written += result.bytesWritten;
    }
    this.#segmentBytes += batch.length;
    await this.#segment.sync();
  }

  async #rollSegment(): Promise<void> {
    await this.#segment.close();
    this.#segmentSequence += 1;
    this.#segment = await createSegment(this.#directory, this.#segmentSequence);
    this.#segmentBytes = 0;
  }

  #assertContiguous(entries: readonly Entry[]): void {
    const first = entries[0];
    if (first === undefined) return;
    assert(first.index >= 1 && first.index <= this.#lastIndex + 1, `append at ${first.index} leaves a gap after ${this.#lastIndex}`);
    entries.forEach((entry, offset) => assert(entry.index === first.index + offset, 'appended entries must be contiguous'));
  }
}

function encodeBatch(entries: readonly Entry[], hardState: HardState | undefined): Buffer {
  const records = entries.map(encodeEntry);
  if (hardState !== undefined) records.unshift(encodeHardState(hardState));
  return Buffer.concat(records);
}

async function createSegment(directory: string, sequence: number): Promise<FileHandle> {
  const name = `${String(sequence).padStart(segmentNameDigits, '0')}${segmentSuffix}`;
  const handle = await open(path.join(directory, name), 'wx+');
  // The new file's directory entry must be durable too, or a crash could lose the whole segment.
  await syncDirectory(directory);
  return handle;
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
