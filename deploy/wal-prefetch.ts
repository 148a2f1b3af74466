// Owns: the read-ahead of a member's WAL segments at process start: `kstore server` and
// `kstore store` start it before they import the rest of their modules (deploy/kstore.mjs), on a
// worker thread (wal-prefetch-worker.ts) that reads and checks every segment while the main
// thread loads modules; the WAL's recovery then takes those bytes (a raft/storage SegmentSource) and only
// decodes their records.
// Must not: decide what is recovered. Recovery still lists the segments, applies the repair and
// corruption rules, and reads any segment itself that the worker did not deliver; a segment is
// handed over only while the file is the one the worker read (device, inode, size, mtime and
// ctime unchanged), and anything that fails here is dropped (recovery then reads as without it).
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CheckedSegment, SegmentCheck, SegmentSource } from '../raft/storage/index.ts';

/** What the worker is started with. */
export interface WalPrefetchJob {
  /** Segment files, in the order recovery reads them. */
  readonly paths: readonly string[];
}

/** A segment file's identity when the worker read it. */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/** One message per segment, in the job's order. */
export type WalPrefetchMessage =
  | { readonly path: string; readonly identity: FileIdentity; readonly bytes: ArrayBuffer; readonly check: SegmentCheck }
  | { readonly path: string; readonly failed: string };

const segmentSuffix = '.wal';

export class WalPrefetch {
  /** Segment path → its delivery (undefined: not read ahead or failed). */
  readonly #segments = new Map<string, { promise: Promise<Delivered | undefined>; resolve: (delivered: Delivered | undefined) => void }>();
  #worker: Worker | undefined;
  /** Settles once the segments are listed (and the worker started). */
  #listed: Promise<void> = Promise.resolve();

  private constructor(readonly raftDir: string) {}

  /**
   * Starts reading and checking `<raftDir>/wal`'s segments on a worker thread running
   * `workerUrl` (the bundled wal-prefetch-worker.ts). Never throws; without segments no worker starts.
   */
  static start(raftDir: string, workerUrl: URL): WalPrefetch {
    const prefetch = new WalPrefetch(path.resolve(raftDir));
    prefetch.#listed = prefetch.#begin(workerUrl).catch(() => prefetch.#endAll());
    return prefetch;
  }

  async #begin(workerUrl: URL): Promise<void> {
    const directory = path.join(this.raftDir, 'wal');
    const names = (await readdir(directory)).filter((name) => name.endsWith(segmentSuffix)).sort();
    const paths = names.map((name) => path.join(directory, name));
    for (const segment of paths) {
      let resolve!: (delivered: Delivered | undefined) => void;
      const promise = new Promise<Delivered | undefined>((done) => { resolve = done; });
      this.#segments.set(segment, { promise, resolve });
    }
    if (paths.length === 0) return;
    const job: WalPrefetchJob = { paths };
    const worker = new Worker(workerUrl, { workerData: job });
    this.#worker = worker;
    worker.unref();
    worker.on('message', (message: WalPrefetchMessage) => {
      const slot = this.#segments.get(message.path);
      if (slot === undefined) return;
      slot.resolve('bytes' in message ? { identity: message.identity, segment: { buffer: Buffer.from(message.bytes), check: message.check } } : undefined);
    });
    worker.on('error', () => this.#endAll());
    worker.on('exit', () => {
      this.#worker = undefined;
      this.#endAll();
    });
  }

  /** Resolves every segment not delivered yet as not read ahead. */
  #endAll(): void {
    for (const slot of this.#segments.values()) slot.resolve(undefined);
  }

  /** The segment at `segmentPath` as the worker read and checked it, if the file is still that one; each is handed out once. */
  readonly segment: SegmentSource = async (segmentPath: string): Promise<CheckedSegment | undefined> => {
    await this.#listed;
    const key = path.resolve(segmentPath);
    const slot = this.#segments.get(key);
    if (slot === undefined) return undefined;
    const delivered = await slot.promise;
    this.#segments.delete(key);
    if (delivered === undefined) return undefined;
    const now = await stat(segmentPath, { bigint: true }).catch(() => undefined);
    const then = delivered.identity;
    const unchanged = now !== undefined && now.dev === then.dev && now.ino === then.ino && now.size === then.size
      && now.mtimeNs === then.mtimeNs && now.ctimeNs === then.ctimeNs;
    return unchanged ? delivered.segment : undefined;
  };

  /** Forgets what was read ahead and not taken, and stops the worker (after recovery, or when it was not needed). */
  release(): void {
    this.#endAll();
    this.#segments.clear();
    void this.#worker?.terminate();
    this.#worker = undefined;
  }
}

interface Delivered {
  readonly identity: FileIdentity;
  readonly segment: CheckedSegment;
}

let processPrefetch: WalPrefetch | undefined;

/** Starts this process's read-ahead of `raftDir`'s WAL (deploy/kstore.mjs, before the module graph loads). */
export function startWalPrefetch(raftDir: string, workerUrl: URL): void {
  processPrefetch ??= WalPrefetch.start(raftDir, workerUrl);
}

/** The read-ahead started for `raftDir` (resolved against the working directory) in this process, if any. */
export function walPrefetchFor(raftDir: string): WalPrefetch | undefined {
  return processPrefetch?.raftDir === path.resolve(raftDir) ? processPrefetch : undefined;
}
