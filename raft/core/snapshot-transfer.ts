// Owns: InstallSnapshot (Raft thesis §5.4.3): the leader sending its snapshot in chunks to a
// follower that needs compacted entries, and the follower assembling, installing and
// acknowledging it. Pure. One chunk per follower is in flight; a lost chunk is resent at the
// next heartbeat, and the follower's answer names the next byte it expects, so a transfer
// resumes where it stopped (or restarts at 0 when the follower lost its partial copy). A leader
// without a snapshot its log continues from sends none and asks the driver for one
// (snapshotWanted, compaction.ts).
import { assert } from '../stdx/index.ts';
import { usableSnapshotOrWant } from './compaction.ts';
import { snapshotBytesMax } from './limits.ts';
import type { Raft } from './raft.ts';
import type { InstallSnapshot, NodeId, Snapshot, SnapshotMeta, SnapshotResponse } from './types.ts';

/** A follower's partially received snapshot. */
export interface IncomingSnapshot {
  readonly meta: SnapshotMeta;
  readonly chunks: Uint8Array[];
  bytes: number;
}

/**
 * Leader: sends `peer` the next chunk of the current snapshot, starting a transfer if needed.
 * Without a snapshot the log continues from (none, or one older than the log's offset), sends
 * nothing and asks the driver for one (compaction.ts); the transfer starts once it arrives.
 */
export function sendSnapshotChunk(raft: Raft, peer: NodeId): boolean {
  const progress = raft.progress.get(peer);
  assert(progress !== undefined, `no progress for ${peer}`);
  if (!usableSnapshotOrWant(raft)) return false;
  const snapshot = raft.snapshot;
  assert(snapshot !== undefined, 'a usable snapshot exists');
  if (progress.state !== 'snapshot' || progress.snapshotIndex !== snapshot.meta.index) {
    progress.becomeSnapshot(snapshot.meta.index); // a newer snapshot replaces an older transfer
  }
  if (progress.snapshotChunkInFlight) return false;
  const offset = Math.min(progress.snapshotOffset, snapshot.data.byteLength);
  const end = Math.min(offset + raft.snapshotChunkBytes, snapshot.data.byteLength);
  raft.send({
    type: 'installSnapshot', from: raft.id, to: peer, term: raft.term, snapshot: snapshot.meta,
    offset, data: snapshot.data.subarray(offset, end), done: end === snapshot.data.byteLength,
  });
  progress.snapshotChunkInFlight = true;
  return true;
}

/** Leader: a follower answered a chunk. Returns true when it installed the whole snapshot. */
export function handleSnapshotResponse(raft: Raft, message: SnapshotResponse): boolean {
  assert(raft.role === 'leader', 'only a leader sends snapshots');
  const progress = raft.progress.get(message.from);
  if (progress === undefined) return false;
  progress.recentActive = true;
  if (progress.state !== 'snapshot' || progress.snapshotIndex !== message.snapshotIndex) return false; // stale
  progress.snapshotChunkInFlight = false;
  if (message.installed) {
    progress.snapshotInstalled();
    return true;
  }
  assert(message.nextOffset >= 0, 'a snapshot offset is not negative');
  progress.snapshotOffset = message.nextOffset;
  sendSnapshotChunk(raft, message.from);
  return false;
}

/**
 * Follower: takes one chunk. Chunks must arrive in order; a chunk at the wrong offset is
 * answered with the offset we expect (a duplicate, or a gap after a lost chunk), and a chunk of
 * a different snapshot than the one being assembled restarts assembly (only at offset 0).
 */
export function handleInstallSnapshot(raft: Raft, message: InstallSnapshot): void {
  assert(raft.role === 'follower', 'only followers install snapshots');
  assert(raft.leaderId === message.from, 'snapshots come from the known leader');
  const meta = message.snapshot;
  const reply = (nextOffset: number, installed: boolean): void => raft.send({
    type: 'snapshotResponse', from: raft.id, to: message.from, term: raft.term, snapshotIndex: meta.index, nextOffset, installed,
  });
  if (meta.index <= raft.log.commitIndex) {
    raft.incomingSnapshot = undefined;
    reply(0, true); // we already hold (and will apply) everything it covers
    return;
  }
  let incoming = raft.incomingSnapshot;
  if (incoming === undefined || incoming.meta.index !== meta.index || incoming.meta.term !== meta.term) {
    if (message.offset !== 0) {
      reply(0, false);
      return;
    }
    incoming = { meta, chunks: [], bytes: 0 };
    raft.incomingSnapshot = incoming;
  }
  if (message.offset !== incoming.bytes) {
    reply(incoming.bytes, false);
    return;
  }
  incoming.chunks.push(message.data);
  incoming.bytes += message.data.byteLength;
  assert(incoming.bytes <= snapshotBytesMax, `snapshot of more than ${snapshotBytesMax} bytes`);
  if (!message.done) {
    reply(incoming.bytes, false);
    return;
  }
  raft.incomingSnapshot = undefined;
  installSnapshot(raft, { meta, data: concatChunks(incoming.chunks, incoming.bytes) });
  // Sent only after the Ready persisting the snapshot is durable (Ready ordering contract).
  reply(incoming.bytes, true);
}

/**
 * Thesis §5.4.3: if our log holds the snapshot's last entry (same index and term), keep the
 * log and just commit up to it; otherwise replace the log and the state machine by it.
 */
function installSnapshot(raft: Raft, snapshot: Snapshot): void {
  const { meta } = snapshot;
  assert(meta.index > raft.log.commitIndex, 'only a snapshot beyond our commit index is installed');
  assert(meta.configuration.voters.length > 0, 'a snapshot names at least one voter');
  if (raft.log.matchesTerm(meta.index, meta.term)) {
    raft.log.commitTo(meta.index);
    return;
  }
  raft.log.restoreSnapshot(meta);
  raft.pendingSnapshot = snapshot;
  raft.snapshot = snapshot;
  raft.restoreConfiguration();
}

function concatChunks(chunks: readonly Uint8Array[], bytes: number): Uint8Array {
  assert(chunks.length > 0, 'a snapshot has at least one chunk');
  if (chunks.length === 1) return new Uint8Array(chunks[0]!);
  const data = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    data.set(chunk, offset);
    offset += chunk.byteLength;
  }
  assert(offset === bytes, 'snapshot chunks add up to the counted bytes');
  return data;
}
