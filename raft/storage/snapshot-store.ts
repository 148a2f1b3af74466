// Owns: snapshot files on local disk under <dataDir>/snap: writing one durably (temp file,
// fsync, rename, fsync of the directory), loading the newest one that passes its checksum,
// quarantining corrupt ones, and keeping only the newest `snapshotsRetained`. Must not
// interpret the snapshot's data (the state machine's bytes) or touch the WAL.
//
// File layout, little-endian: [u32 magic "KSNP"][u32 crc32 of the rest][u8 format version]
// [u64 index][u64 term][u32 configuration bytes][configuration JSON][data]. CRC-32 from
// node:zlib as in record.ts.
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeConfiguration, encodeConfiguration } from '../core/index.ts';
import type { Snapshot, SnapshotMeta } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { syncDirectory } from './wal.ts';
import { readWholeFile } from './whole-file.ts';

/**
 * Snapshots kept on disk. Two: if the newest is found corrupt on restart, the previous one
 * (with the WAL kept back to it) still recovers the member without a transfer from the leader.
 */
export const snapshotsRetained = 2;
const magic = 0x504e534b; // "KSNP" read as little-endian u32
const formatVersion = 1;
/** magic, crc, version, index, term, configuration length. */
const headerBytes = 4 + 4 + 1 + 8 + 8 + 4;
export const snapshotFileSuffix = '.snap';
const corruptSuffix = '.corrupt';
const temporarySuffix = '.tmp';
const indexDigits = 20;

export interface LoadedSnapshots {
  /** The newest snapshot that passed its checksum, if any. */
  readonly newest: Snapshot | undefined;
  /** Files that failed their checksum and were renamed to *.corrupt. */
  readonly quarantined: readonly string[];
}

export class SnapshotStore {
  readonly #directory: string;
  /** Indexes of the valid snapshot files on disk, ascending. */
  #indexes: number[] = [];

  private constructor(directory: string) {
    this.#directory = directory;
  }

  /** Opens the store and loads the newest valid snapshot, quarantining corrupt newer ones. */
  static async open(dataDir: string): Promise<{ store: SnapshotStore; loaded: LoadedSnapshots }> {
    const directory = path.join(dataDir, 'snap');
    await mkdir(directory, { recursive: true });
    await syncDirectory(dataDir);
    const store = new SnapshotStore(directory);
    const loaded = await store.#load();
    return { store, loaded };
  }

  /** Indexes of the snapshots on disk, ascending; the WAL is kept back to the oldest. */
  retainedIndexes(): readonly number[] {
    return this.#indexes;
  }

  /** Writes `snapshot` durably, then deletes all but the newest `snapshotsRetained`. */
  async save(snapshot: Snapshot): Promise<void> {
    const { meta } = snapshot;
    assert(meta.index >= 1, 'a snapshot covers at least one entry');
    assert(!this.#indexes.includes(meta.index) || this.#indexes.at(-1) === meta.index, 'snapshots are saved in index order');
    const file = path.join(this.#directory, fileName(meta.index));
    const temporary = `${file}${temporarySuffix}`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(encodeSnapshot(snapshot));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
    await syncDirectory(this.#directory);
    if (!this.#indexes.includes(meta.index)) this.#indexes.push(meta.index);
    this.#indexes.sort((left, right) => left - right);
    await this.#prune();
  }

  async #prune(): Promise<void> {
    while (this.#indexes.length > snapshotsRetained) {
      const oldest = this.#indexes.shift()!;
      await unlink(path.join(this.#directory, fileName(oldest)));
    }
    await syncDirectory(this.#directory);
  }

  async #load(): Promise<LoadedSnapshots> {
    const names = await readdir(this.#directory);
    for (const name of names.filter((candidate) => candidate.endsWith(temporarySuffix))) {
      await unlink(path.join(this.#directory, name)); // a save interrupted by a crash
    }
    const snapshotNames = names.filter((name) => name.endsWith(snapshotFileSuffix)).sort().reverse();
    const quarantined: string[] = [];
    let newest: Snapshot | undefined = undefined;
    for (const name of snapshotNames) {
      const file = path.join(this.#directory, name);
      const decoded = decodeSnapshot(await readWholeFile(file));
      if (decoded === undefined) {
        await rename(file, `${file}${corruptSuffix}`);
        quarantined.push(file);
        continue;
      }
      newest ??= decoded;
      this.#indexes.unshift(decoded.meta.index);
    }
    if (quarantined.length > 0) await syncDirectory(this.#directory);
    return { newest, quarantined };
  }
}

function fileName(index: number): string {
  return `${String(index).padStart(indexDigits, '0')}${snapshotFileSuffix}`;
}

export function encodeSnapshot(snapshot: Snapshot): Buffer {
  const configuration = Buffer.from(encodeConfiguration(snapshot.meta.configuration));
  const buffer = Buffer.alloc(headerBytes + configuration.length + snapshot.data.byteLength);
  buffer.writeUInt32LE(magic, 0);
  buffer.writeUInt8(formatVersion, 8);
  buffer.writeBigUInt64LE(BigInt(snapshot.meta.index), 9);
  buffer.writeBigUInt64LE(BigInt(snapshot.meta.term), 17);
  buffer.writeUInt32LE(configuration.length, 25);
  configuration.copy(buffer, headerBytes);
  buffer.set(snapshot.data, headerBytes + configuration.length);
  buffer.writeUInt32LE(crc32(buffer.subarray(8)), 4);
  return buffer;
}

/**
 * The state machine's bytes in a snapshot file's `buffer`, by its header alone (no checksum: for a
 * read-ahead whose result is only used where it equals what decodeSnapshot returned), or
 * undefined if the header is not one this store writes.
 */
export function snapshotFileData(buffer: Uint8Array): Uint8Array | undefined {
  if (buffer.byteLength < headerBytes) return undefined;
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  if (view.getUint32(0, true) !== magic || view.getUint8(8) !== formatVersion) return undefined;
  const dataStart = headerBytes + view.getUint32(25, true);
  return dataStart > buffer.byteLength ? undefined : buffer.subarray(dataStart);
}

/** The snapshot in `buffer`, or undefined if it is torn, foreign or fails its checksum. */
export function decodeSnapshot(buffer: Buffer): Snapshot | undefined {
  if (buffer.length < headerBytes || buffer.readUInt32LE(0) !== magic) return undefined;
  if (crc32(buffer.subarray(8)) !== buffer.readUInt32LE(4)) return undefined;
  if (buffer.readUInt8(8) !== formatVersion) return undefined;
  const configurationBytes = buffer.readUInt32LE(25);
  if (headerBytes + configurationBytes > buffer.length) return undefined;
  const index = Number(buffer.readBigUInt64LE(9));
  const term = Number(buffer.readBigUInt64LE(17));
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(term)) return undefined;
  const configuration = decodeConfiguration(buffer.subarray(headerBytes, headerBytes + configurationBytes));
  const meta: SnapshotMeta = { index, term, configuration };
  return { meta, data: new Uint8Array(buffer.subarray(headerBytes + configurationBytes)) };
}
