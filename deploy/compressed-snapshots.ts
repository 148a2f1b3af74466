// Owns: gzip compression of a state machine's snapshots, around any StateMachine: snapshot() and
// snapshotView()'s chunks are written as gzip members (level 1, one member per 256 KB of
// snapshot bytes; concatenated members are one gzip stream, RFC 1952), and restore() reads
// both gzip and the uncompressed bytes written before (told apart by gzip's magic bytes, which
// a JSON snapshot cannot start with). Why: the Raft core keeps the newest snapshot in memory
// (to send it to a follower) and a restart reads it from disk; JSON compresses several times.
// A restore at process start may take the bytes inflated ahead on the thread pool
// (snapshot-prefetch.ts) when they are of the same file content.
// Must not: change what apply() sees or returns (it delegates), or interpret the bytes.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CommittedEntry, StateMachine } from '../raft/index.ts';
import type { SnapshotView } from '../raft/node/index.ts';

/** Snapshot bytes gathered into one gzip member. */
const memberBytes = 256 * 1024;
const gzipOptions = { level: 1 } as const;
const emptyChunk = new Uint8Array(0);

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * Output chunk of a snapshot's gunzip. zlib's default (16 KB) makes a 160 MB snapshot ~10,000
 * chunks malloc'd from glibc's main arena, freed once concatenated but, scattered among what else
 * the arena holds, kept resident after the restore. Chunks above glibc's largest mmap threshold
 * (32 MiB on 64-bit) are mapped and unmapped on their own; only touched pages are resident.
 */
export const gunzipChunkBytes = 40 * 1024 * 1024;

/** The uncompressed snapshot bytes, whether `bytes` is gzip or was written uncompressed. */
export function uncompressedSnapshot(bytes: Uint8Array): Uint8Array {
  return isGzip(bytes) ? gunzipSync(bytes, { chunkSize: gunzipChunkBytes }) : bytes;
}

/**
 * `chunks` re-cut into gzip members of memberBytes input each (the last one shorter). The input
 * chunks may be views into a buffer their producer reuses for the next chunk (captureChunks):
 * their bytes are copied into one member buffer, reused for every member, before the next is
 * pulled. Each member is compressed as soon as it is full; an empty chunk is passed on after
 * every input chunk that did not complete a member (the caller's pause points stay where they
 * were). The members yielded are fresh buffers, the caller may keep them.
 */
export function* gzipChunks(chunks: Iterable<Uint8Array>): Generator<Uint8Array, void, undefined> {
  const member = new Uint8Array(memberBytes);
  let filled = 0;
  for (const chunk of chunks) {
    let taken = 0;
    let compressed = false;
    while (taken < chunk.byteLength) {
      if (filled === 0 && chunk.byteLength - taken >= memberBytes) {
        // A whole member in the chunk: compressed from it, without the copy.
        yield gzipSync(chunk.subarray(taken, taken + memberBytes), gzipOptions);
        taken += memberBytes;
        compressed = true;
        continue;
      }
      const copied = Math.min(memberBytes - filled, chunk.byteLength - taken);
      member.set(chunk.subarray(taken, taken + copied), filled);
      filled += copied;
      taken += copied;
      if (filled === memberBytes) {
        yield gzipSync(member, gzipOptions);
        filled = 0;
        compressed = true;
      }
    }
    if (!compressed) yield emptyChunk;
  }
  if (filled > 0) yield gzipSync(member.subarray(0, filled), gzipOptions);
}

/** Snapshot bytes inflated ahead of the restore (snapshot-prefetch.ts SnapshotPrefetch). */
export interface InflatedAhead {
  /** The inflated bytes of exactly `compressed`, or undefined (then the restore inflates). */
  inflatedFor(compressed: Uint8Array): Uint8Array | undefined;
}

export class CompressedSnapshots<Result> implements StateMachine<Result> {
  readonly snapshotView?: () => SnapshotView;

  /**
   * `prefetch`: the process's read-ahead of the snapshot file (snapshot-prefetch.ts); restore()
   * takes its inflated bytes when they are of the very snapshot restored, and inflates otherwise.
   */
  constructor(private readonly machine: StateMachine<Result>, private readonly prefetch?: InflatedAhead) {
    const view = machine.snapshotView?.bind(machine);
    if (view !== undefined) {
      this.snapshotView = (): SnapshotView => {
        const inner = view();
        return { index: inner.index, chunks: () => gzipChunks(inner.chunks()) };
      };
    }
  }

  apply(entry: CommittedEntry): Result {
    return this.machine.apply(entry);
  }

  appliedIndex(): number {
    return this.machine.appliedIndex();
  }

  /** The same bytes as snapshotView()'s chunks concatenated. */
  snapshot(): Uint8Array {
    return Buffer.concat([...gzipChunks([this.machine.snapshot()])]);
  }

  restore(snapshot: Uint8Array, index: number): void {
    const inflated = isGzip(snapshot) ? this.prefetch?.inflatedFor(snapshot) : undefined;
    this.machine.restore(inflated ?? uncompressedSnapshot(snapshot), index);
  }
}
