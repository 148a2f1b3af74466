// Owns: leader message handling: append acknowledgements (match/next bookkeeping, commit,
// ReadIndex confirmation), backtracking on rejection (fast backtracking by conflict term,
// thesis §5.3), snapshot chunk answers (snapshot-transfer.ts) and finishing a leadership
// transfer once the target is caught up (transfer.ts). Pure; called only from Raft.step with
// `message.term === raft.term`.
import { assert } from '../stdx/index.ts';
import type { Raft } from './raft.ts';
import { handleSnapshotResponse } from './snapshot-transfer.ts';
import { maybeFinishTransfer } from './transfer.ts';
import { sendAppendIfReady } from './replication.ts';
import type { AppendRejected, AppendResponse, Message } from './types.ts';

export function stepLeader(raft: Raft, message: Message): void {
  assert(raft.role === 'leader', 'stepLeader on a non-leader');
  // Election Safety (§5.2): at most one leader per term.
  assert(message.type !== 'appendEntries' && message.type !== 'installSnapshot', `two leaders in term ${raft.term}: ${raft.id} and ${message.from}`);
  if (message.type === 'appendResponse') handleAppendResponse(raft, message);
  if (message.type === 'snapshotResponse' && handleSnapshotResponse(raft, message)) {
    sendAppendIfReady(raft, message.from);
    maybeFinishTransfer(raft, message.from);
  }
}

function handleAppendResponse(raft: Raft, message: AppendResponse): void {
  assert(raft.role === 'leader', 'only a leader handles append responses');
  const progress = raft.progress.get(message.from);
  if (progress === undefined) return; // not (or no longer) a member
  progress.recentActive = true;
  progress.ackedRound = Math.max(progress.ackedRound, message.round);
  if (message.success) {
    assert(message.matchIndex <= raft.log.lastIndex(), `follower matched ${message.matchIndex} beyond our log`);
    // A commit that advances is not broadcast: the new commit index rides on the next append
    // or the periodic heartbeat. Nobody waits on a follower's apply (the leader answers
    // proposals and ReadIndex from its own), and an extra round per commit would double what an
    // unbatched write costs in messages and CPU on every member.
    if (progress.accept(message.matchIndex)) raft.maybeCommit();
    if (raft.role === 'leader') sendAppendIfReady(raft, message.from); // still leading: not removed
    maybeFinishTransfer(raft, message.from);
  } else if (progress.reject(message.rejectedIndex, backtrackHint(raft, message))) {
    sendAppendIfReady(raft, message.from);
  }
  if (raft.role === 'leader') raft.readStates.push(...raft.reads.release(raft.confirmedRound()));
}

/**
 * The highest index at or below which the follower's log may match ours (the next probe's
 * prevLogIndex). Without a conflict term it is the follower's last index. With one (fast
 * backtracking, thesis §5.3): if we hold entries of that term, our last one is where the logs
 * can agree (Log Matching); if we hold none, the whole run the follower holds is wrong, so probe
 * just before it. Each rejection thus skips at least one whole term.
 */
function backtrackHint(raft: Raft, message: AppendRejected): number {
  assert(!message.success, 'a hint is computed for rejections');
  assert(message.rejectedIndex >= 1, 'index 0 always matches and is never rejected');
  const { conflictTerm, conflictIndex } = message;
  if (conflictTerm === undefined || conflictIndex === undefined) return message.hintIndex;
  const ours = raft.log.lastIndexOfTerm(message.rejectedIndex, conflictTerm);
  const hint = ours ?? conflictIndex - 1;
  return Math.min(hint, message.hintIndex);
}
