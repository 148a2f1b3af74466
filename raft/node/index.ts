// Public surface of raft/node: the driver and the state machine boundary.
export { RaftNode } from './raft-node.ts';
export type { RaftNodeOptions, RaftStatus } from './options.ts';
export { snapshotAtStopThreshold } from './options.ts';
export type { ProposalOutcome } from './proposals.ts';
export { NotLeaderError, ProposalDroppedError, DropReasons, NodeErrorCodes, isNotLeader, isProposalDropped } from './errors.ts';
export { MembershipChangeRefusedError, NodeFailedError, TransferFailedError, isNodeFailed } from './errors.ts';
export type { DropReason, NodeErrorCode } from './errors.ts';
export type { StateMachine, CommittedEntry, SnapshotView } from './state-machine.ts';
export { ProposalService, storeSubjects, serviceRequestsInFlightMax, serviceQueueGroup } from './proposal-service.ts';
export { encodeProposalBatch, decodeProposalBatch, proposeBatchReplyItems, proposalBatchBytes, proposalBatchHeaderBytes, proposalBatchItemHeaderBytes, proposalBatchVersion, proposalBatchItemsMax, proposalBatchBytesMax } from './proposal-batch.ts';
export type { ProposeBatchReply, DecodedProposalBatch } from './proposal-batch.ts';
export type { ProposeReply, ReadIndexReply, MemberStatus, MemberStorageReport, StoreSubjects, ProposalTarget, ProposalServiceOptions } from './proposal-service.ts';
