// Owns: candidate message handling: tallying (pre)votes and yielding to a leader of its term.
// Pure; called only from Raft.step with `message.term === raft.term`. A pre-candidate
// (PreVote phase, thesis §9.6) counts only PreVote answers, a candidate only real votes; an
// answer from the other phase is stale and ignored.
import { assert } from '../stdx/index.ts';
import { voteOutcome } from './quorum.ts';
import type { Raft } from './raft.ts';
import { handleInstallSnapshot } from './snapshot-transfer.ts';
import { handleAppendEntries } from './step-follower.ts';
import type { Message } from './types.ts';

export function stepCandidate(raft: Raft, message: Message): void {
  assert(raft.role === 'candidate', 'stepCandidate on a non-candidate');
  const grantedPreVote = raft.preCandidate && message.type === 'voteResponse' && message.preVote === true && message.term === raft.term + 1;
  assert(message.term === raft.term || grantedPreVote, 'stepCandidate with an unreconciled term');
  switch (message.type) {
    case 'appendEntries':
      // Someone else won this term (§5.2): follow it and take the entries.
      raft.becomeFollower(raft.term, message.from);
      handleAppendEntries(raft, message);
      return;
    case 'installSnapshot':
      raft.becomeFollower(raft.term, message.from);
      handleInstallSnapshot(raft, message);
      return;
    case 'voteResponse':
      if ((message.preVote === true) !== raft.preCandidate) return;
      raft.votes.set(message.from, message.granted);
      tallyVotes(raft);
      return;

    default:
      return;
  }
}

function tallyVotes(raft: Raft): void {
  assert(raft.role === 'candidate', 'only a candidate tallies votes');
  const outcome = voteOutcome(raft.voters, raft.votes);
  if (outcome === 'won' && raft.preCandidate) raft.startElection(false);
  else if (outcome === 'won') raft.becomeLeader();
  else if (outcome === 'lost') raft.becomeFollower(raft.term, undefined);
}
