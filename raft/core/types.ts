// Owns: the plain data types of the Raft core: log entries, hard state, messages, read states.
// Pure. These are domain types, not a wire format: transports encode them in their own codec
// module and must copy entry bytes out of receive buffers (STYLE rule 6).
//
// Index conventions: log indices start at 1; index 0 with term 0 is the empty prefix every
// log shares, so `prevLogIndex = 0` always matches (Raft paper §5.3).

export type NodeId = string;
export type Role = 'follower' | 'candidate' | 'leader';

export interface Entry {
  readonly index: number;
  readonly term: number;
  /** Opaque command bytes; empty data is the leader's no-op (Raft thesis §6.4). */
  readonly data: Uint8Array;
}

/** State that must be durable before any message that depends on it is sent (§5.1, §5.2). */
export interface HardState {
  readonly term: number;
  /** Candidate voted for in `term`, if any. */
  readonly vote: NodeId | undefined;
  /** Highest index known committed. May lag after a crash; it is recomputed, never trusted high. */
  readonly commit: number;
}

export const emptyHardState: HardState = { term: 0, vote: undefined, commit: 0 };

/** What durable storage hands the core on start: hard state plus the log from index 1. */
export interface RestoredState {
  readonly hardState: HardState;
  readonly entries: readonly Entry[];
}

interface MessageBase {
  readonly from: NodeId;
  readonly to: NodeId;
  /** Sender's current term; every receiver first reconciles terms (§5.1). */
  readonly term: number;
}

export interface RequestVote extends MessageBase {
  readonly type: 'requestVote';
  readonly lastLogIndex: number;
  readonly lastLogTerm: number;
}

export interface VoteResponse extends MessageBase {
  readonly type: 'voteResponse';
  readonly granted: boolean;
}

export interface AppendEntries extends MessageBase {
  readonly type: 'appendEntries';
  readonly prevLogIndex: number;
  readonly prevLogTerm: number;
  /** Possibly empty: an empty append is a heartbeat. */
  readonly entries: readonly Entry[];
  /** Leader's commit index; the follower clamps it to what this message proves it holds. */
  readonly commit: number;
  /** Leader's broadcast round, echoed back so the leader can confirm leadership (ReadIndex). */
  readonly round: number;
}

export interface AppendAccepted extends MessageBase {
  readonly type: 'appendResponse';
  readonly success: true;
  /** Last index the follower now holds (persisted) and knows matches the leader. */
  readonly matchIndex: number;
  readonly round: number;
}

export interface AppendRejected extends MessageBase {
  readonly type: 'appendResponse';
  readonly success: false;
  /** The prevLogIndex that failed the consistency check. */
  readonly rejectedIndex: number;
  /** Follower's last index, so the leader can skip back past a long missing suffix. */
  readonly hintIndex: number;
  readonly round: number;
}

export type AppendResponse = AppendAccepted | AppendRejected;
export type Message = RequestVote | VoteResponse | AppendEntries | AppendResponse;
export type MessageType = Message['type'];

/** A confirmed linearizable read point: serve the read once appliedIndex >= index. */
export interface ReadState {
  readonly requestId: number;
  readonly index: number;
}
