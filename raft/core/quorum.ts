// Owns: majority arithmetic: quorum size, the commit index a majority holds, vote tallies.
// Pure functions of their arguments; no Raft state. Joint consensus comes with membership change.
import { assert } from '../stdx/index.ts';
import type { NodeId } from './types.ts';

export type VoteOutcome = 'won' | 'lost' | 'pending';

export function quorumSize(voterCount: number): number {
  assert(Number.isSafeInteger(voterCount), 'voter count must be an integer');
  assert(voterCount >= 1, 'a group needs at least one voter');
  return Math.floor(voterCount / 2) + 1;
}

/** The largest value that at least a quorum of voters has reached (e.g. persisted match index). */
export function quorumValue(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => right - left);
  const value = sorted[quorumSize(values.length) - 1];
  assert(value !== undefined, 'quorumValue of an empty set');
  assert(sorted.filter((candidate) => candidate >= value).length >= quorumSize(values.length), 'quorum miscounted');
  return value;
}

export function voteOutcome(voters: readonly NodeId[], votes: ReadonlyMap<NodeId, boolean>): VoteOutcome {
  const needed = quorumSize(voters.length);
  let granted = 0;
  let rejected = 0;
  for (const voter of voters) {
    const vote = votes.get(voter);
    if (vote === true) granted += 1;
    if (vote === false) rejected += 1;
  }
  assert(granted + rejected <= voters.length, 'more votes than voters');
  if (granted >= needed) return 'won';
  if (rejected > voters.length - needed) return 'lost';
  return 'pending';
}

export function hasQuorum(voters: readonly NodeId[], isActive: (voter: NodeId) => boolean): boolean {
  const active = voters.filter(isActive).length;
  assert(active <= voters.length, 'more active voters than voters');
  return active >= quorumSize(voters.length);
}
