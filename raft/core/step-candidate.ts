// Owns: candidate message handling: tallying votes and yielding to a leader of its term.
// Pure; called only from Raft.step with `message.term === raft.term`.
import { assert } from '../stdx/index.ts';
import { voteOutcome } from './quorum.ts';
import type { Raft } from './raft.ts';
import { handleAppendEntries } from './step-follower.ts';
import type { Message } from './types.ts';

export function stepCandidate(raft: Raft, message: Message): void {
  assert(raft.role === 'candidate', 'stepCandidate on a non-candidate');
  assert(message.term === raft.term, 'stepCandidate with an unreconciled term');
  switch (message.type) {
    case 'appendEntries':
      // Someone else won this term (§5.2): follow it and take the entries.
      raft.becomeFollower(raft.term, message.from);
      handleAppendEntries(raft, message);
      return;
    case 'voteResponse':
      raft.votes.set(message.from, message.granted);
      tallyVotes(raft);
      return;
    default:
      return;
  }
}

function tallyVotes(raft: Raft): void {
  const outcome = voteOutcome(raft.voters, raft.votes);
  if (outcome === 'won') raft.becomeLeader();
  else if (outcome === 'lost') raft.becomeFollower(raft.term, undefined);
}
