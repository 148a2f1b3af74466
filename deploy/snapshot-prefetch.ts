// Owns: the read-ahead of a member's newest snapshot file at process start: `kstore server`
// calls startSnapshotPrefetch() before it imports the rest of its modules (deploy/kstore.mjs),
// so reading the file and inflating its gzip run on libuv's thread pool (zlib's async API) on
// the second core while the main thread loads and compiles modules, instead of a synchronous
// gunzip on the main thread inside the restore.
// Must not: decide what is restored. SnapshotStore still reads, checksums and picks the snapshot;
// the read-ahead's bytes are used only when its compressed input is byte-equal to the snapshot
// being restored (inflatedFor), and anything that fails here is dropped silently (the restore then
// inflates as it did without it).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { readWholeFile, snapshotFileData, snapshotFileSuffix } from '../raft/storage/index.ts';
import { gunzipChunkFor, isGzip } from './compressed-snapshots.ts';
import type { InflatedAhead } from './compressed-snapshots.ts';

const gunzipAsync = promisify(gunzip);

interface Inflated {
  readonly compressed: Uint8Array;
  readonly inflated: Uint8Array;
}

export class SnapshotPrefetch implements InflatedAhead {
  /** The newest snapshot's compressed and inflated data once both are in memory; undefined if none or failed. */
  #result: Inflated | undefined;
  readonly #settled: Promise<void>;

  private constructor(readonly raftDir: string) {
    this.#settled = this.#read().then((result) => { this.#result = result; }, () => { this.#result = undefined; });
  }

  /** Starts reading `<raftDir>/snap`'s newest file and inflating it; never rejects. */
  static start(raftDir: string): SnapshotPrefetch {
    return new SnapshotPrefetch(path.resolve(raftDir));
  }

  /** Resolves once the read-ahead finished or failed. */
  settled(): Promise<void> {
    return this.#settled;
  }

  /**
   * The inflated bytes of `compressed` if the read-ahead finished and read exactly those bytes
   * (compared in full); handed out once, then forgotten.
   */
  inflatedFor(compressed: Uint8Array): Uint8Array | undefined {
    const result = this.#result;
    if (result === undefined || !Buffer.from(compressed.buffer, compressed.byteOffset, compressed.byteLength).equals(result.compressed)) return undefined;
    this.#result = undefined;
    return result.inflated;
  }

  /** Forgets what was read ahead (after the restore, or when it was not needed). */
  release(): void {
    this.#result = undefined;
  }

  async #read(): Promise<Inflated | undefined> {
    const directory = path.join(this.raftDir, 'snap');
    const names = (await readdir(directory)).filter((name) => name.endsWith(snapshotFileSuffix)).sort();
    const newest = names.at(-1);
    if (newest === undefined) return undefined;
    const data = snapshotFileData(await readWholeFile(path.join(directory, newest)));
    if (data === undefined || !isGzip(data)) return undefined;
    const compressed = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    return { compressed, inflated: await gunzipAsync(compressed, { chunkSize: gunzipChunkFor(compressed) }) };
  }
}

// The entry deploy/kstore.mjs loads before the module graph starts the WAL's read-ahead too.
export { startWalPrefetch } from './wal-prefetch.ts';

let processPrefetch: SnapshotPrefetch | undefined;

/** Starts this process's read-ahead of `raftDir`'s newest snapshot (deploy/kstore.mjs, before the module graph loads). */
export function startSnapshotPrefetch(raftDir: string): void {
  processPrefetch ??= SnapshotPrefetch.start(raftDir);
}

/** The read-ahead started for `raftDir` (resolved against the working directory) in this process, if any. */
export function snapshotPrefetchFor(raftDir: string): SnapshotPrefetch | undefined {
  return processPrefetch?.raftDir === path.resolve(raftDir) ? processPrefetch : undefined;
}
