// Owns: the raft/ defects the simulator has found (all fixed in raft/), with how
// the simulator recognizes each, so that a regression is reported by name. A violation
// attributed to one is still a violation: npm run sim exits 1 and the CI sweep fails on it.

export const knownCoreIssues = {
  'idle-replication-stall':
    'A leader in replicate state never retransmits a lost append (or learns of a lost acknowledgement) '
    + 'while no new entries are proposed: heartbeats probe at prevLogIndex = match, the follower answers '
    + 'match = prevLogIndex, and the inflight window is not full, so nothing is resent. The follower stays '
    + 'behind (and, when the stalled append carried the no-op a quorum needs, the leader cannot commit: '
    + 'ReadIndex reads hang) until a new proposal arrives. Recognized by nudging the leader with one '
    + 'proposal after the deadline: if the cluster then converges, the stall was this one.',
  'precandidate-vote-assertion':
    'A pre-candidate (role candidate during PreVote, vote still undefined) that receives a real vote '
    + 'request of its own term grants it and then trips the assertion "leaders and candidates voted for '
    + 'themselves" in handleRequestVote: the member crashes. etcd grants such a vote and stays '
    + 'pre-candidate. Recognized by the assertion message.',
  'wal-hard-state-first':
    'raft/storage/wal.ts wrote a batch\'s hard state record before its entries (and before a snapshot '
    + 'marker). A crash that kept the hard state but lost the entries after it could keep a commit index '
    + 'covering entries that had replaced a divergent uncommitted suffix: the restarted member applied the '
    + 'stale suffix as committed (state-machine-safety, seed 1956 at the time; seed 142 since commits stopped costing a heartbeat round, seed 257 since members forget applied entries, seed 748 since the periodic heartbeat skips a follower just appended to). Fixed by writing the hard state last; '
    + 'the simulator reproduces it with the hardStateFirst hook (sim.test.ts). Not recognized by name: it '
    + 'reports as a state-machine-safety violation.',
} as const;

export type KnownCoreIssue = keyof typeof knownCoreIssues;

/** The known issue a failed core assertion is, if any. */
export function knownAssertion(message: string): KnownCoreIssue | undefined {
  return message.includes('leaders and candidates voted for themselves') ? 'precandidate-vote-assertion' : undefined;
}
