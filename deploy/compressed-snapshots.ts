// Owns: gzip compression of a state machine's snapshots, around any StateMachine: snapshot() and
// snapshotView()'s chunks are written as gzip members (level 1, one member per 256 KB of
// snapshot bytes; concatenated members are one gzip stream, RFC 1952), and restore() reads
// both gzip and the uncompressed bytes written before (told apart by gzip's magic bytes, which
// a JSON snapshot cannot start with). Why: the Raft core keeps the newest snapshot in memory
// (to send it to a follower) and a restart reads it from disk; JSON compresses several times.
// A restore at process start may take the bytes inflated ahead on the thread pool
// (snapshot-prefetch.ts) when they are of the same file content.
// The last member is an empty one whose header carries the snapshot's uncompressed length (a
// gzip extra field, subfield "KL"; gzip readers skip it), so a restore inflates into one buffer
// of that size: with fixed-size output chunks, zlib concatenates them at the end on the main
// thread, a copy into fresh memory that took 0.4 s of a 100,000-object restart. Snapshots written
// without it inflate as before.
// Must not: change what apply() sees or returns (it delegates), or interpret the bytes.
import { constants as bufferConstants } from 'node:buffer';
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
const gunzipChunkBytes = 40 * 1024 * 1024;

/**
 * The length member: gzip header with FEXTRA (flags 0x04, OS 255 "unknown"), XLEN 12, subfield
 * "KL" of 8 bytes (the u64 little-endian uncompressed length of the members before it), an empty
 * final deflate block, CRC-32 0 and ISIZE 0 of its empty content.
 */
const lengthMemberBytes = 34;
const lengthOffset = 16;
const lengthMemberTemplate = Uint8Array.from([
  0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff, // header
  12, 0, 0x4b, 0x4c, 8, 0, // XLEN, subfield id "KL", subfield length
  0, 0, 0, 0, 0, 0, 0, 0, // the length
  0x03, 0x00, // empty final block (fixed Huffman, end of block)
  0, 0, 0, 0, 0, 0, 0, 0, // CRC-32, ISIZE
]);

function lengthMember(length: number): Uint8Array {
  const member = Uint8Array.from(lengthMemberTemplate);
  new DataView(member.buffer).setBigUint64(lengthOffset, BigInt(length), true);
  return member;
}

/**
 * The uncompressed length written in `bytes`' trailing length member, or undefined if it has none
 * (written before it existed) or states more than one string can hold (the restore decodes the
 * snapshot into one string; such a length is not one this module wrote).
 */
export function statedLength(bytes: Uint8Array): number | undefined {
  if (bytes.byteLength < lengthMemberBytes) return undefined;
  const tail = bytes.subarray(bytes.byteLength - lengthMemberBytes);
  for (let at = 0; at < lengthMemberBytes; at++) {
    if ((at < lengthOffset || at >= lengthOffset + 8) && tail[at] !== lengthMemberTemplate[at]) return undefined;
  }
  const length = new DataView(tail.buffer, tail.byteOffset, tail.byteLength).getBigUint64(lengthOffset, true);
  return length <= BigInt(bufferConstants.MAX_STRING_LENGTH) ? Number(length) : undefined;
}

/**
 * zlib's output chunk for inflating `bytes`: one more than the stated length, so that all of it
 * lands in one buffer that is never full (a full one makes zlib allocate another), else
 * gunzipChunkBytes.
 */
export function gunzipChunkFor(bytes: Uint8Array): number {
  const length = statedLength(bytes);
  return length === undefined ? gunzipChunkBytes : Math.max(64, length + 1);
}

/** The uncompressed snapshot bytes, whether `bytes` is gzip or was written uncompressed. */
export function uncompressedSnapshot(bytes: Uint8Array): Uint8Array {
  return isGzip(bytes) ? gunzipSync(bytes, { chunkSize: gunzipChunkFor(bytes) }) : bytes;
}

/**
 * `chunks` re-cut into gzip members of memberBytes input each (the last one shorter), then the
 * length member (the total input length). The input
 * chunks may be views into a buffer their producer reuses for the next chunk (captureChunks):
 * their bytes are copied into one member buffer, reused for every member, before the next is
 * pulled. Each member is compressed as soon as it is full; an empty chunk is passed on after
 * every input chunk that did not complete a member (the caller's pause points stay where they
 * were). The members yielded are fresh buffers, the caller may keep them.
 */
export function* gzipChunks(chunks: Iterable<Uint8Array>): Generator<Uint8Array, void, undefined> {
  const member = new Uint8Array(memberBytes);
  let filled = 0;
  let total = 0;
  for (const chunk of chunks) {
    total += chunk.byteLength;
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
  yield lengthMember(total);
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
