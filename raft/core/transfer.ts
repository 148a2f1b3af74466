// Owns: leadership transfer (Raft thesis §3.10) on the leader side and the target's reaction.
// Pure. The leader stops accepting proposals, brings the target's log up to date, then sends
// TimeoutNow; the target campaigns at once with `transfer` set, which skips PreVote and
// bypasses the other voters' leader stickiness. A transfer not completed within an election
// timeout is abandoned and the leader accepts proposals again.
import { assert } from '../stdx/index.ts';
import type { Raft } from './raft.ts';
import { sendAppendIfReady } from './replication.ts';
import type { NodeId, TimeoutNow } from './types.ts';

export type TransferResult =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly detail: string; readonly leaderId: NodeId | undefined };

export function transferLeadership(raft: Raft, targetId: NodeId): TransferResult {
  if (raft.role !== 'leader') return { accepted: false, detail: 'not the leader', leaderId: raft.leaderId };
  if (targetId === raft.id) return { accepted: false, detail: 'already the leader', leaderId: raft.id };
  if (!raft.voters.includes(targetId)) return { accepted: false, detail: `${targetId} is not a voter`, leaderId: raft.id };
  const progress = raft.progress.get(targetId);
  assert(progress !== undefined, `a voter ${targetId} without progress`);
  if (raft.leadTransferee !== targetId) {
    raft.leadTransferee = targetId;
    raft.transferElapsed = 0;
  }
  assert(raft.leadTransferee === targetId, 'the transfer targets the requested voter');
  if (progress.match === raft.log.lastIndex()) sendTimeoutNow(raft, targetId);
  else sendAppendIfReady(raft, targetId);
  return { accepted: true };
}

/** Leader, after a follower's log advanced: hand over once the transferee has everything. */
export function maybeFinishTransfer(raft: Raft, peer: NodeId): void {
  if (raft.role !== 'leader' || raft.leadTransferee !== peer) return;
  const progress = raft.progress.get(peer);
  assert(progress !== undefined, `transferee ${peer} without progress`);
  if (progress.match === raft.log.lastIndex()) sendTimeoutNow(raft, peer);
}

/** Leader tick: abandon a transfer that did not finish within an election timeout. */
export function tickTransfer(raft: Raft): void {
  if (raft.leadTransferee === undefined) return;
  assert(raft.role === 'leader', 'only a leader transfers leadership');
  raft.transferElapsed += 1;
  assert(raft.transferElapsed <= raft.electionTicks, 'a transfer outlived its election timeout');
  if (raft.transferElapsed >= raft.electionTicks) {
    raft.leadTransferee = undefined;
    raft.transferElapsed = 0;
  }
}

/** The target: campaign now, as the leader asked (a learner cannot, and ignores it). */
export function handleTimeoutNow(raft: Raft, message: TimeoutNow): void {
  assert(message.term === raft.term, 'TimeoutNow of another term');
  assert(raft.role !== 'leader', 'a leader is not asked to take over');
  if (!raft.isVoter()) return;
  raft.campaign(true);
}

function sendTimeoutNow(raft: Raft, peer: NodeId): void {
  assert(raft.leadTransferee === peer, 'TimeoutNow goes to the transferee');
  assert(raft.progress.get(peer)!.match === raft.log.lastIndex(), 'the transferee is up to date');
  raft.send({ type: 'timeoutNow', from: raft.id, to: peer, term: raft.term });
}
