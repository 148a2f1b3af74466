// Owns: follower message handling: appendEntries (consistency check, conflict overwrite with
// fast-backtracking hints, commit, configuration changes on append), dispatch of
// InstallSnapshot (snapshot-transfer.ts) and TimeoutNow (transfer.ts), and (pre)vote granting,
// which every role shares. Pure; called only from Raft.step after terms were reconciled, so
// `message.term === raft.term` here (a PreVote request may carry the next term).
import { assert } from '../stdx/index.ts';
import type { Raft } from './raft.ts';
import { handleInstallSnapshot } from './snapshot-transfer.ts';
import { handleTimeoutNow } from './transfer.ts';
import type { AppendEntries, Message, RequestVote } from './types.ts';

export function stepFollower(raft: Raft, message: Message): void {
  assert(raft.role === 'follower', 'stepFollower on a non-follower');
  assert(message.term === raft.term, 'stepFollower with an unreconciled term');
  if (message.type === 'timeoutNow') {
    handleTimeoutNow(raft, message);
    return;
  }
  if (message.type !== 'appendEntries' && message.type !== 'installSnapshot') return; // late answers: nothing to do
  raft.electionElapsed = 0;
  raft.leaderId = message.from;
  if (message.type === 'installSnapshot') handleInstallSnapshot(raft, message);
  else handleAppendEntries(raft, message);
}

/** §5.3: accept entries that follow a matching prefix; otherwise reject with a hint. */
export function handleAppendEntries(raft: Raft, message: AppendEntries): void {
  assert(raft.role === 'follower', 'only followers accept entries');
  assert(raft.leaderId === message.from, 'entries come from the known leader');
  const reply = { type: 'appendResponse', from: raft.id, to: message.from, term: raft.term, round: message.round } as const;
  if (raft.log.isCompacted(message.prevLogIndex)) {
    // A late append below our snapshot: everything up to our commit index matches the leader
    // (Leader Completeness), so acknowledge that much and let the leader continue from there.
    raft.send({ ...reply, success: true, matchIndex: raft.log.commitIndex });
    return;
  }
  if (!raft.log.matchesTerm(message.prevLogIndex, message.prevLogTerm)) {
    raft.send({ ...reply, success: false, rejectedIndex: message.prevLogIndex, hintIndex: raft.log.lastIndex(), ...conflictHint(raft, message.prevLogIndex) });
    return;
  }
  const { lastNewIndex, truncatedFrom } = raft.log.appendAfterMatch(message.prevLogIndex, message.entries);
  // Thesis §4.1: a configuration takes effect when appended, and a truncated one is undone.
  if (truncatedFrom !== undefined || message.entries.some((entry) => entry.type === 'configuration')) raft.restoreConfiguration();
  const commit = Math.min(message.commit, lastNewIndex);
  if (commit > raft.log.commitIndex) raft.log.commitTo(commit);
  // Sent only after the Ready persisting these entries is durable (Ready ordering contract).
  raft.send({ ...reply, success: true, matchIndex: lastNewIndex });
}

/**
 * Fast backtracking (thesis §5.3, the optimisation at the end of the section): when we hold an
 * entry at the rejected index, report its term and the first index we hold of that term, so the
 * leader can skip the whole term in one round trip instead of one entry per round trip. The
 * scan stops at the commit index: committed entries match the leader's, so no hint lies below.
 */
function conflictHint(raft: Raft, rejectedIndex: number): { conflictTerm?: number; conflictIndex?: number } {
  const conflictTerm = rejectedIndex <= raft.log.lastIndex() ? raft.log.termAt(rejectedIndex) : undefined;
  if (conflictTerm === undefined) return {};
  const conflictIndex = raft.log.firstIndexOfTerm(rejectedIndex, conflictTerm, raft.log.commitIndex + 1);
  assert(conflictIndex <= rejectedIndex, 'conflict index at or before the rejected index');
  assert(raft.log.termAt(conflictIndex) === conflictTerm, 'conflict index holds the conflict term');
  return { conflictTerm, conflictIndex };
}

/**
 * §5.2, §5.4.1: one vote per term, only for a candidate whose log is at least as up to date.
 * PreVote (thesis §9.6): a pre-vote at a future term is granted on the same log check, but
 * records nothing and changes no term; it is answered at the requested term so the
 * pre-candidate can tell it apart from a refusal by a member at a higher term.
 */
export function handleRequestVote(raft: Raft, message: RequestVote): void {
  const preVote = message.preVote === true;
  assert(message.term === raft.term || (preVote && message.term > raft.term), 'vote request with an unreconciled term');
  assert(message.from !== raft.id, 'a member does not ask itself for a vote');
  const canVote = raft.vote === message.from
    || (raft.vote === undefined && raft.leaderId === undefined)
    || (preVote && message.term > raft.term);
  const granted = canVote && raft.log.isUpToDate(message.lastLogIndex, message.lastLogTerm);
  if (granted && !preVote) {
    // A pre-candidate has not voted in this term yet, so it may grant a real vote and stay in
    // its pre-campaign (etcd does the same); a candidate or leader voted for itself.
    assert(raft.role === 'follower' || raft.preCandidate, 'leaders and candidates voted for themselves');
    raft.vote = message.from;
    raft.electionElapsed = 0;
  }
  raft.send({
    type: 'voteResponse', from: raft.id, to: message.from, term: granted && preVote ? message.term : raft.term, granted,
    ...(preVote ? { preVote: true } : {}),
  });
}
