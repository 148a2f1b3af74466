// Owns: how a leader sends appends and heartbeats to followers (Raft paper §5.3), and the
// switch to InstallSnapshot for a follower that needs compacted entries. Pure. Must not change
// roles or terms: it only reads the log and updates Progress bookkeeping.
import { assert } from '../stdx/index.ts';
import { entriesPerAppendMax } from './limits.ts';
import type { Raft } from './raft.ts';
import { sendSnapshotChunk } from './snapshot-transfer.ts';
import type { NodeId } from './types.ts';

/** Sends new entries to every follower that has room for them (after a proposal). */
export function broadcastAppend(raft: Raft): void {
  for (const peer of raft.peers()) sendAppendIfReady(raft, peer);
}

/**
 * Sends every follower either its next entries or, when there is nothing to send or no room,
 * an empty append at its match point. That carries the commit index and the broadcast round and
 * resets the follower's election timer.
 */
export function broadcastHeartbeat(raft: Raft): void {
  for (const peer of raft.peers()) {
    if (!sendAppendIfReady(raft, peer)) sendHeartbeat(raft, peer);
  }
}

/**
 * The periodic heartbeat (every heartbeatTicks). A follower in replicate that got an append
 * since the last tick and has echoed our latest round is skipped: that append already reset its
 * election timer and carried the round and a commit index at most one interval old. When
 * appends stop, the next tick's heartbeat carries the final commit index, so a follower learns
 * it within two heartbeat intervals. Probing followers, snapshot transfers, a stalled pipeline
 * (onHeartbeat falls back to probe) and a follower that has not echoed the latest ReadIndex
 * round (the round's message may have been lost) always get their message.
 */
export function tickHeartbeat(raft: Raft): void {
  for (const peer of raft.peers()) {
    const progress = raft.progress.get(peer);
    assert(progress !== undefined, `no progress for ${peer}`);
    const appendedRecently = progress.appendedSinceHeartbeat;
    progress.onHeartbeat();
    const skip = appendedRecently && progress.state === 'replicate' && progress.ackedRound >= raft.round;
    if (!sendAppendIfReady(raft, peer) && !skip) sendHeartbeat(raft, peer);
    // Whatever this tick sent counts for this interval, not the next.
    progress.appendedSinceHeartbeat = false;
  }
}

/** Sends entries (or a probe) to `peer` if its progress allows; returns whether it sent. */
export function sendAppendIfReady(raft: Raft, peer: NodeId): boolean {
  const progress = raft.progress.get(peer);
  assert(progress !== undefined, `no progress for ${peer}`);
  assert(raft.role === 'leader', 'only a leader replicates');
  if (progress.state === 'snapshot') return sendSnapshotChunk(raft, peer);
  if (!progress.canSendEntries()) return false;
  const hasNewEntries = progress.next <= raft.log.lastIndex();
  if (!hasNewEntries && progress.state === 'replicate') return false;
  const prevLogIndex = progress.next - 1;
  // The follower needs entries we compacted: it gets the snapshot instead (thesis §5.4.3).
  if (raft.log.isCompacted(prevLogIndex)) return sendSnapshotChunk(raft, peer);
  const prevLogTerm = raft.log.termAt(prevLogIndex);
  assert(prevLogTerm !== undefined, `follower ${peer} next ${progress.next} beyond leader log`);
  const entries = hasNewEntries ? raft.log.entriesFrom(progress.next, entriesPerAppendMax) : [];
  raft.send({
    type: 'appendEntries', from: raft.id, to: peer, term: raft.term,
    prevLogIndex, prevLogTerm, entries, commit: raft.log.commitIndex, round: raft.round,
  });
  progress.sentAppend(prevLogIndex + entries.length);
  progress.appendedSinceHeartbeat = true;
  return true;
}

function sendHeartbeat(raft: Raft, peer: NodeId): void {
  const progress = raft.progress.get(peer);
  assert(progress !== undefined, `no progress for ${peer}`);
  // prevLogIndex = match always passes the follower's consistency check, so the follower
  // commits min(leader commit, match): only what it provably shares with the leader. Below our
  // compacted log (a follower receiving a snapshot) the heartbeat probes our offset instead;
  // it still resets the follower's election timer, and a rejection is ignored meanwhile.
  const prevLogIndex = Math.max(progress.match, raft.log.offsetIndex());
  const prevLogTerm = raft.log.termAt(prevLogIndex);
  assert(prevLogTerm !== undefined, `follower ${peer} match ${progress.match} beyond leader log`);
  raft.send({
    type: 'appendEntries', from: raft.id, to: peer, term: raft.term,
    prevLogIndex, prevLogTerm, entries: [], commit: raft.log.commitIndex, round: raft.round,
  });
  progress.appendedSinceHeartbeat = true;
}
