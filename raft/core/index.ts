// Public surface of raft/core: the pure Raft state machine (etcd RawNode style) and its types.
export { RawNode } from './raw-node.ts';
export type { ProposeResult, CoreStatus } from './raw-node.ts';
export type { RaftConfig } from './raft.ts';
export type { Ready } from './ready.ts';
export { isLeaderReplication } from './ready.ts';
export { emptyHardState } from './types.ts';
export type {
  AppendAccepted, AppendEntries, AppendRejected, AppendResponse, Configuration, Entry, EntryType, HardState,
  InstallSnapshot, Message, MessageType, NodeId, ReadState, RequestVote, RestoredState, Role, SnapshotMeta,
  Snapshot, SnapshotResponse, TimeoutNow, VoteResponse,
} from './types.ts';
export { changedConfiguration, decodeConfiguration, encodeConfiguration, isMember, sameConfiguration } from './configuration.ts';
export type { MembershipChange, MembershipChangeType } from './configuration.ts';
export { MembershipRefusals } from './membership.ts';
export type { TransferResult } from './transfer.ts';
export type { MembershipProposal, MembershipRefusal } from './membership.ts';
export { quorumSize, quorumValue, voteOutcome } from './quorum.ts';
export {
  committedEntriesPerReadyMax, compactionRetainEntries, entriesPerAppendMax, entryDataBytesMax, inflightAppendsMax, readRequestsMax,
  snapshotBytesMax, snapshotChunkBytesDefault, learnerCatchUpLagEntriesMax,
} from './limits.ts';
