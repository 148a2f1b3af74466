// Owns: gzip compression of a state machine's snapshots, around any StateMachine: snapshot() and
// snapshotView()'s chunks are written as one gzip stream (level 1), and restore() reads
// both gzip and the uncompressed bytes written before (told apart by gzip's magic bytes, which
// a JSON snapshot cannot start with). Why: the Raft core keeps the newest snapshot in memory
// (to send it to a follower) and a restart reads it from disk; JSON compresses several times.
// A restore at process start may take the bytes inflated ahead on the thread pool
// (snapshot-prefetch.ts) when they are of the same file content.
// The stream is one deflate, fed chunk by chunk synchronously through the zlib handle that
// node's own gzipSync drives (`_handle.writeSync`, not a documented API; without it, one gzip
// member per 256 KB, as snapshots were written before: concatenated members are one gzip
// stream, RFC 1952, and read the same). Why: a gzipSync per member allocated zlib's ~260 KB of
// state and an output buffer each time, ~500 times per snapshot, below glibc's mmap threshold;
// with the loop's own allocations landing in between, the main arena kept tens of MB.
// Must not: change what apply() sees or returns (it delegates), or interpret the bytes.
import { constants, createGzip, gunzipSync, gzipSync } from 'node:zlib';
import type { Gzip } from 'node:zlib';
import type { CommittedEntry, StateMachine } from '../raft/index.ts';
import type { SnapshotView } from '../raft/node/index.ts';

/** Snapshot bytes gathered into one gzip member (without the streaming handle), or deflated per call (with it). */
const memberBytes = 256 * 1024;
const gzipOptions = { level: 1 } as const;
const emptyChunk = new Uint8Array(0);
/** The streaming deflate writes into blocks of this size (a snapshot of 100,000 objects takes a few). */
const outputBlockBytes = 1024 * 1024;

/** What gzipSync uses of a zlib stream: its native handle and the state writeSync reports into. */
interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inputOffset: number, inputLength: number, output: Uint8Array, outputOffset: number, outputLength: number): void;
  close(): void;
}
interface ZlibStreamInternals {
  readonly _handle: ZlibHandle | null;
  /** [output bytes left, input bytes left] after writeSync. */
  readonly _writeState: Uint32Array;
}

function streamInternals(stream: Gzip): { readonly handle: ZlibHandle; readonly state: Uint32Array } | undefined {
  const internals = stream as unknown as Partial<ZlibStreamInternals>;
  const handle = internals._handle;
  return handle !== null && handle !== undefined && typeof handle.writeSync === 'function' && internals._writeState instanceof Uint32Array
    ? { handle, state: internals._writeState }
    : undefined;
}

/** Whether this node's zlib streams expose what gzipStreamChunks drives (checked once). */
export const streamingGzipAvailable = ((): boolean => {
  const probe = createGzip(gzipOptions);
  const available = streamInternals(probe) !== undefined;
  probe.close();
  return available;
})();

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
 * `chunks` compressed as one gzip stream, by one deflate (when this node exposes it, else
 * gzipMemberChunks). See gzipStreamChunks for what the chunks may be and what is yielded.
 */
export function gzipChunks(chunks: Iterable<Uint8Array>): Iterable<Uint8Array> {
  return streamingGzipAvailable ? gzipStreamChunks(chunks) : gzipMemberChunks(chunks);
}

/**
 * `chunks` compressed by one deflate into one gzip member. The input chunks may be views into
 * a buffer their producer reuses for the next chunk (captureChunks): each is deflated before
 * the next is pulled, at most memberBytes per call (bounded work between pause points). After
 * every input chunk the compressed bytes it completed are yielded (often none: an empty chunk,
 * so the caller's pause points stay where they were), as views into output blocks that are never
 * rewritten: the caller may keep them. zlib's state is allocated once per snapshot, and the
 * output goes into outputBlockBytes blocks, not a buffer per call.
 */
export function* gzipStreamChunks(chunks: Iterable<Uint8Array>): Generator<Uint8Array, void, undefined> {
  const stream = createGzip(gzipOptions);
  let failure: Error | undefined;
  stream.on('error', (error: Error) => { failure = error; });
  const internals = streamInternals(stream);
  if (internals === undefined) throw new Error('this node\'s zlib streams have no synchronous handle');
  const { handle, state } = internals;
  let block = new Uint8Array(outputBlockBytes);
  let blockFilled = 0;
  let yieldedFrom = 0;
  const parts: Uint8Array[] = [];
  /** Deflates `input` entirely (flush: Z_NO_FLUSH, or Z_FINISH to end the stream), collecting the output in `parts`. */
  const deflate = (input: Uint8Array, flush: number): void => {
    let inputOffset = 0;
    let inputLeft = input.byteLength;
    for (;;) {
      const outputSpace = block.byteLength - blockFilled;
      handle.writeSync(flush, input, inputOffset, inputLeft, block, blockFilled, outputSpace);
      if (failure !== undefined) throw failure;
      const [outputLeft = 0, inputLeftAfter = 0] = state;
      blockFilled += outputSpace - outputLeft;
      inputOffset += inputLeft - inputLeftAfter;
      inputLeft = inputLeftAfter;
      if (outputLeft !== 0) return;
      // The block is full: what it holds since the last yield is one part, the rest goes to a new block.
      parts.push(block.subarray(yieldedFrom, blockFilled));
      block = new Uint8Array(outputBlockBytes);
      blockFilled = 0;
      yieldedFrom = 0;
    }
  };
  const completed = function* (): Generator<Uint8Array, void, undefined> {
    for (const part of parts) yield part;
    parts.length = 0;
    if (blockFilled > yieldedFrom) yield block.subarray(yieldedFrom, blockFilled);
    yieldedFrom = blockFilled;
  };
  try {
    for (const chunk of chunks) {
      for (let offset = 0; offset < chunk.byteLength; offset += memberBytes) {
        deflate(chunk.subarray(offset, Math.min(chunk.byteLength, offset + memberBytes)), constants.Z_NO_FLUSH);
        let any = false;
        for (const part of completed()) {
          any = true;
          yield part;
        }
        if (!any) yield emptyChunk;
      }
      if (chunk.byteLength === 0) yield emptyChunk;
    }
    deflate(emptyChunk, constants.Z_FINISH);
    yield* completed();
  } finally {
    stream.close();
  }
}

/**
 * `chunks` re-cut into gzip members of memberBytes input each (the last one shorter), as
 * snapshots were written before gzipStreamChunks. The input chunks may be views into a buffer
 * their producer reuses for the next chunk: their bytes are copied into one member buffer,
 * reused for every member, before the next is pulled. An empty chunk is passed on after every
 * input chunk that did not complete a member. The members yielded are fresh buffers.
 */
export function* gzipMemberChunks(chunks: Iterable<Uint8Array>): Generator<Uint8Array, void, undefined> {
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
