// Public surface of raft/: consensus for kstore. actors/, api/ and deploy/ import raft only
// through this file. Knows nothing of Kubernetes.
export { RaftNode, NotLeaderError, ProposalDroppedError, DropReasons, isNotLeader, isProposalDropped, snapshotAtStopThreshold } from './node/index.ts';
export type { RaftNodeOptions, RaftStatus, StateMachine, CommittedEntry, ProposalOutcome, DropReason } from './node/index.ts';
export { MembershipChangeRefusedError, NodeFailedError, TransferFailedError, isNodeFailed } from './node/index.ts';
export type { Configuration, MembershipChange } from './core/index.ts';
export { CorruptLogError, SnapshotMissingError } from './storage/index.ts';
export { MemoryHub } from './transport/index.ts';
export type { Transport } from './transport/index.ts';
export { ProposalService, storeSubjects } from './node/index.ts';
export { encodeProposalBatch, proposeBatchReplyItems, proposalBatchBytes, proposalBatchHeaderBytes, proposalBatchItemHeaderBytes, proposalBatchItemsMax, proposalBatchBytesMax } from './node/index.ts';
export type { ProposeBatchReply } from './node/index.ts';
export type { ProposeReply, ReadIndexReply, MemberStatus, MemberStorageReport, StoreSubjects } from './node/index.ts';
export { NatsTransport, connectNats, natsConnectionOptions, raftSubject, CodecError } from './transport/index.ts';
export type { NatsTransportStats } from './transport/index.ts';
