// Owns: the typed operating errors a RaftNode reports to its callers (STYLE rule 8).

export const NodeErrorCodes = {
  NotLeader: 'NOT_LEADER',
  ProposalDropped: 'PROPOSAL_DROPPED',
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

export function isNotLeader(error: unknown): error is NotLeaderError {
  return error instanceof NotLeaderError;
}

export function isProposalDropped(error: unknown): error is ProposalDroppedError {
  return error instanceof ProposalDroppedError;
}
