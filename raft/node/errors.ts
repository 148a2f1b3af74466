// Owns: the typed operating errors a RaftNode reports to its callers (STYLE rule 8).

export const NodeErrorCodes = {
  NotLeader: 'NOT_LEADER',
  ProposalDropped: 'PROPOSAL_DROPPED',
  MembershipChangeRefused: 'MEMBERSHIP_CHANGE_REFUSED',
  TransferFailed: 'TRANSFER_FAILED',
  NodeFailed: 'NODE_FAILED',
} as const;
export type NodeErrorCode = (typeof NodeErrorCodes)[keyof typeof NodeErrorCodes];

/** This member is not the leader; retry at `leaderId` when known. */
export class NotLeaderError extends Error {
  readonly code = NodeErrorCodes.NotLeader;
  readonly leaderId: string | undefined;

  constructor(leaderId: string | undefined, detail = 'not the leader', options?: ErrorOptions) {
    super(leaderId === undefined ? `${detail}; leader unknown` : `${detail}; leader is ${leaderId}`, options);
    this.name = 'NotLeaderError';
    this.leaderId = leaderId;
  }
}

export const DropReasons = {
  /** Leadership was lost before the entry committed; it may or may not commit later. */
  LeadershipLost: 'leadershipLost',
  /** A new leader replaced the entry at this index: it will never be applied. */
  Overwritten: 'overwritten',
  /** The node was closed or failed before the entry committed. */
  Closed: 'closed',
  /** The proposal queue was full; retry later. */
  Overloaded: 'overloaded',
  /** The entry exceeds entryDataBytesMax. */
  TooLarge: 'tooLarge',
} as const;
export type DropReason = (typeof DropReasons)[keyof typeof DropReasons];

/** The proposal was not (or may not have been) committed. Callers dedupe retries by session. */
export class ProposalDroppedError extends Error {
  readonly code = NodeErrorCodes.ProposalDropped;
  readonly reason: DropReason;

  constructor(reason: DropReason, options?: ErrorOptions) {
    super(`proposal dropped: ${reason}`, options);
    this.name = 'ProposalDroppedError';
    this.reason = reason;
  }
}

/** The leader refused a membership change: another is still uncommitted, the learner has not
 *  caught up, the change is invalid for the configuration, or a transfer is under way. */
export class MembershipChangeRefusedError extends Error {
  readonly code = NodeErrorCodes.MembershipChangeRefused;
  readonly reason: string;

  constructor(reason: string, detail: string, options?: ErrorOptions) {
    super(`membership change refused (${reason}): ${detail}`, options);
    this.name = 'MembershipChangeRefusedError';
    this.reason = reason;
  }
}

/** Leadership did not move to the requested member in time (or the request was invalid). */
export class TransferFailedError extends Error {
  readonly code = NodeErrorCodes.TransferFailed;
  readonly targetId: string;

  constructor(targetId: string, detail: string, options?: ErrorOptions) {
    super(`leadership transfer to ${targetId} failed: ${detail}`, options);
    this.name = 'TransferFailedError';
    this.targetId = targetId;
  }
}

/**
 * This member's storage (or its state machine) failed: it claims no role and takes nothing
 * until it is reopened from disk. `cause` is the original error (ENOSPC, EIO, a failed fsync).
 */
export class NodeFailedError extends Error {
  readonly code = NodeErrorCodes.NodeFailed;
  /** The original error's message (what status().failure reports). */
  readonly reason: string;

  constructor(cause: Error) {
    super(`raft member failed: ${cause.message}`, { cause });
    this.name = 'NodeFailedError';
    this.reason = cause.message;
  }
}

export function isNodeFailed(error: unknown): error is NodeFailedError {
  return error instanceof NodeFailedError;
}

export function isNotLeader(error: unknown): error is NotLeaderError {
  return error instanceof NotLeaderError;
}

export function isProposalDropped(error: unknown): error is ProposalDroppedError {
  return error instanceof ProposalDroppedError;
}
