// Owns: when a member snapshots, and the pacing of a snapshot serialised off the Raft loop. Every member of a group applies the same entries, so with a
// plain "every N entries since the last snapshot" they all snapshot at the same indexes and
// any pause a snapshot causes hits all of them at once (a pause of a quorum is a pause of the
// group). Each member instead snapshots when its applied index crosses a multiple of N shifted
// by a phase derived from its id (deterministic: the same member keeps its schedule across
// restarts), and never within N/2 entries of its previous snapshot (after an InstallSnapshot,
// or at start).
// Pacing (writeSliced): a state machine's snapshot view hands out its bytes chunk by chunk; the
// driver pulls chunks for at most snapshotSliceMillis, then yields to the event loop (so the
// loop's iterations, NATS and timers run between slices), and so on. It copies each chunk's
// bytes into large blocks as it goes (a chunk may be a view into a buffer its producer reuses).
// Must not: use randomness; the schedule does not read the clock (only the pacing does).

/** FNV-1a of `id`, reduced to [0, everyEntries). */
export function snapshotPhase(id: string, everyEntries: number): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < id.length; at++) {
    hash ^= id.charCodeAt(at);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % everyEntries;
}

/** The index at which a member whose last snapshot is at `snapshotIndex` takes its next one. */
export function nextSnapshotIndex(snapshotIndex: number, everyEntries: number, phase: number): number {
  const minimumGap = Math.max(1, Math.ceil(everyEntries / 2));
  // The first index after the last snapshot where (index + phase) is a multiple of everyEntries.
  let next = snapshotIndex + 1 + ((everyEntries - ((snapshotIndex + 1 + phase) % everyEntries)) % everyEntries);
  if (next - snapshotIndex < minimumGap) next += everyEntries;
  return next;
}

/** Whether a member whose last snapshot is at `snapshotIndex` snapshots at `appliedIndex`. */
export function snapshotDue(snapshotIndex: number, appliedIndex: number, everyEntries: number, phase: number): boolean {
  return appliedIndex >= nextSnapshotIndex(snapshotIndex, everyEntries, phase);
}

/** A slice of snapshot serialisation runs at most about this long before yielding. */
export const snapshotSliceMillis = 4;

/**
 * Bytes of each block writeSliced copies chunks into: a compressed snapshot of 100,000 objects
 * (~6 MB) takes a few of them instead of one small array kept per chunk until the end.
 */
const sliceBlockBytes = 1024 * 1024;

/**
 * Concatenates `chunks`, yielding to the event loop (setImmediate) after every slice. A chunk's
 * bytes are copied before the next chunk is pulled: a producer may hand out views into one
 * buffer it reuses (actors/cluster-state.ts captureChunks does).
 */
export async function writeSliced(chunks: Iterable<Uint8Array>, sliceMillis = snapshotSliceMillis): Promise<Uint8Array> {
  const blocks: Uint8Array[] = [];
  let block = new Uint8Array(0);
  let blockFilled = 0;
  let total = 0;
  let sliceStarted = performance.now();
  for (const chunk of chunks) {
    let copied = 0;
    while (copied < chunk.byteLength) {
      if (blockFilled === block.byteLength) {
        block = new Uint8Array(sliceBlockBytes);
        blocks.push(block);
        blockFilled = 0;
      }
      const count = Math.min(block.byteLength - blockFilled, chunk.byteLength - copied);
      block.set(chunk.subarray(copied, copied + count), blockFilled);
      blockFilled += count;
      copied += count;
    }
    total += chunk.byteLength;
    if (performance.now() - sliceStarted >= sliceMillis) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const full of blocks) {
    const used = full.subarray(0, Math.min(full.byteLength, total - offset));
    bytes.set(used, offset);
    offset += used.byteLength;
  }
  return bytes;
}
