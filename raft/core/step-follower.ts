// Owns: follower message handling: appendEntries (consistency check, conflict overwrite,
// commit), and vote granting, which every role shares. Pure; called only from Raft.step after
// terms were reconciled, so `message.term === raft.term` here.
import { assert } from '../stdx/index.ts';
import type { Raft } from './raft.ts';
import type { AppendEntries, Message, RequestVote } from './types.ts';

export function stepFollower(raft: Raft, message: Message): void {
  assert(raft.role === 'follower', 'stepFollower on a non-follower');
  assert(message.term === raft.term, 'stepFollower with an unreconciled term');
  if (message.type !== 'appendEntries') return; // late vote or append responses: nothing to do
  raft.electionElapsed = 0;
  raft.leaderId = message.from;
  handleAppendEntries(raft, message);
}

/** §5.3: accept entries that follow a matching prefix; otherwise reject with a hint. */
export function handleAppendEntries(raft: Raft, message: AppendEntries): void {
  assert(raft.role === 'follower', 'only followers accept entries');
  assert(raft.leaderId === message.from, 'entries come from the known leader');
  const reply = { type: 'appendResponse', from: raft.id, to: message.from, term: raft.term, round: message.round } as const;
  if (!raft.log.matchesTerm(message.prevLogIndex, message.prevLogTerm)) {
    raft.send({ ...reply, success: false, rejectedIndex: message.prevLogIndex, hintIndex: raft.log.lastIndex() });
    return;
  }
  const lastNewIndex = raft.log.appendAfterMatch(message.prevLogIndex, message.entries);
  const commit = Math.min(message.commit, lastNewIndex);
  if (commit > raft.log.commitIndex) raft.log.commitTo(commit);
  // Sent only after the Ready persisting these entries is durable (Ready ordering contract).
  raft.send({ ...reply, success: true, matchIndex: lastNewIndex });
}

/** §5.2, §5.4.1: one vote per term, only for a candidate whose log is at least as up to date. */
export function handleRequestVote(raft: Raft, message: RequestVote): void {
  assert(message.term === raft.term, 'vote request with an unreconciled term');
  const canVote = raft.vote === undefined || raft.vote === message.from;
  const granted = canVote && raft.log.isUpToDate(message.lastLogIndex, message.lastLogTerm);
  if (granted) {
    assert(raft.role === 'follower', 'leaders and candidates voted for themselves');
    raft.vote = message.from;
    raft.electionElapsed = 0;
  }
  raft.send({ type: 'voteResponse', from: raft.id, to: message.from, term: raft.term, granted });
}
