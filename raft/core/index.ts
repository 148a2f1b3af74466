// Public surface of raft/core: the pure Raft state machine (etcd RawNode style) and its types.
export { RawNode } from './raw-node.ts';
export type { ProposeResult, CoreStatus } from './raw-node.ts';
export type { RaftConfig } from './raft.ts';
export type { Ready } from './ready.ts';
export { emptyHardState } from './types.ts';
export type {
  AppendAccepted, AppendEntries, AppendRejected, AppendResponse, Configuration, Entry, EntryType, HardState,
  InstallSnapshot, Message, MessageType, NodeId, ReadState, RequestVote, RestoredState, Role, SnapshotMeta,
  SnapshotResponse, TimeoutNow, VoteResponse,
} from './types.ts';
export { quorumSize, quorumValue, voteOutcome } from './quorum.ts';
export {
  committedEntriesPerReadyMax, entriesPerAppendMax, entryDataBytesMax, inflightAppendsMax, readRequestsMax,
} from './limits.ts';
