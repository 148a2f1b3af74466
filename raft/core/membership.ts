// Owns: membership changes one server at a time (Raft thesis §4.1-4.3) on the leader, and how
// a configuration change takes effect on any member. Pure.
//   - A configuration entry takes effect as soon as it is appended (committed or not), on the
//     leader and on followers alike; a truncated one is undone (restoreConfiguration).
//   - A new change is refused until the previous configuration entry has committed.
//   - A learner is promoted only once it has caught up (learnerCatchUpLagEntriesMax).
//   - A leader that is not a voter of the committed configuration steps down (thesis §4.2.2);
//     until then it replicates but does not count itself in majorities.
import { assert } from '../stdx/index.ts';
import { changedConfiguration, encodeConfiguration } from './configuration.ts';
import type { MembershipChange } from './configuration.ts';
import { learnerCatchUpLagEntriesMax } from './limits.ts';
import { Progress } from './progress.ts';
import type { Raft } from './raft.ts';
import { broadcastAppend } from './replication.ts';
import type { Configuration, NodeId } from './types.ts';

export const MembershipRefusals = {
  NotLeader: 'notLeader',
  ChangeInProgress: 'changeInProgress',
  Invalid: 'invalid',
  NotCaughtUp: 'notCaughtUp',
  Transferring: 'transferring',
} as const;
export type MembershipRefusal = (typeof MembershipRefusals)[keyof typeof MembershipRefusals];

export type MembershipProposal =
  | { readonly accepted: true; readonly index: number; readonly term: number; readonly configuration: Configuration }
  | { readonly accepted: false; readonly reason: MembershipRefusal; readonly detail: string; readonly leaderId: NodeId | undefined };

export function proposeMembershipChange(raft: Raft, change: MembershipChange): MembershipProposal {
  const refuse = (reason: MembershipRefusal, detail: string): MembershipProposal => ({ accepted: false, reason, detail, leaderId: raft.leaderId });
  if (raft.role !== 'leader') return refuse(MembershipRefusals.NotLeader, 'not the leader');
  if (raft.leadTransferee !== undefined) return refuse(MembershipRefusals.Transferring, `transferring leadership to ${raft.leadTransferee}`);
  if (raft.pendingConfigurationIndex > raft.log.commitIndex) {
    return refuse(MembershipRefusals.ChangeInProgress, `configuration entry ${raft.pendingConfigurationIndex} is not committed yet`);
  }
  const next = changedConfiguration(raft.configuration, change);
  if (typeof next === 'string') return refuse(MembershipRefusals.Invalid, next);
  assert(next.voters.length > 0, 'a change never leaves the group without voters');
  if (change.type === 'promote') {
    const match = raft.progress.get(change.id)?.match ?? 0;
    const lag = raft.log.lastIndex() - match;
    if (lag > learnerCatchUpLagEntriesMax) return refuse(MembershipRefusals.NotCaughtUp, `${change.id} is ${lag} entries behind`);
  }
  const index = raft.log.lastIndex() + 1;
  raft.log.append([{ index, term: raft.term, data: encodeConfiguration(next), type: 'configuration' }]);
  raft.pendingConfigurationIndex = index;
  raft.restoreConfiguration();
  syncProgress(raft);
  assert(raft.configuration.voters.length === next.voters.length, 'the appended configuration took effect');
  broadcastAppend(raft);
  return { accepted: true, index, term: raft.term, configuration: next };
}

/** Leader: one Progress per other member of the configuration in effect, no more. */
export function syncProgress(raft: Raft): void {
  assert(raft.role === 'leader', 'only a leader tracks progress');
  const peers = raft.peers();
  for (const peer of peers) {
    if (!raft.progress.has(peer)) raft.progress.set(peer, new Progress(raft.log.lastIndex() + 1));
  }
  for (const member of [...raft.progress.keys()]) {
    if (!peers.includes(member)) raft.progress.delete(member);
  }
  assert(raft.progress.size === peers.length, 'progress tracks exactly the other members');
}

/** Leader, after its commit index advanced: step down once removed by a committed entry. */
export function stepDownIfRemoved(raft: Raft): boolean {
  assert(raft.role === 'leader', 'only a leader steps down from leading');
  if (raft.isVoter() || raft.pendingConfigurationIndex > raft.log.commitIndex) return false;
  raft.becomeFollower(raft.term, undefined);
  return true;
}
