// Owns: the plain data types of the Raft core: log entries, hard state, messages, read states.
// Pure. These are domain types, not a wire format: transports encode them in their own codec
// module and must copy entry bytes out of receive buffers (STYLE rule 6).
//
// Index conventions: log indices start at 1; index 0 with term 0 is the empty prefix every
// log shares, so `prevLogIndex = 0` always matches (Raft paper §5.3).

export type NodeId = string;
export type Role = 'follower' | 'candidate' | 'leader';

/**
 * 'normal' entries carry application commands (empty data is the leader's no-op, Raft thesis
 * §6.4); 'configuration' entries carry an encoded Configuration (thesis §4.1: a member uses
 * the latest configuration in its log, committed or not). Absent means 'normal'.
 */
export type EntryType = 'normal' | 'configuration';

export interface Entry {
  readonly index: number;
  readonly term: number;
  /** Opaque command bytes, or an encoded Configuration for a configuration entry. */
  readonly data: Uint8Array;
  readonly type?: EntryType;
}

/** The members of the group: voters count for quorums, learners only receive the log. */
export interface Configuration {
  readonly voters: readonly NodeId[];
  readonly learners: readonly NodeId[];
}

/** What a snapshot covers: the log up to `index` (of `term`) and the configuration then. */
export interface SnapshotMeta {
  readonly index: number;
  readonly term: number;
  readonly configuration: Configuration;
}

/** A snapshot with its bytes: the state machine's state after applying the log up to meta.index. */
export interface Snapshot {
  readonly meta: SnapshotMeta;
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

/**
 * What durable storage hands the core on start: hard state, the newest snapshot (if any) and the
 * log after it (from index 1 without a snapshot, else from snapshot.meta.index + 1). The driver
 * restores its state machine from the snapshot before building the core.
 */
export interface RestoredState {
  readonly hardState: HardState;
  readonly entries: readonly Entry[];
  /** Added with log compaction; absent means no snapshot (the log starts at index 1). */
  readonly snapshot?: Snapshot;
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
  /**
   * A PreVote (thesis §9.6): asks whether the receiver would vote in `term` without anyone
   * changing term; `term` is then the candidate's term + 1, and receivers do not adopt it.
   */
  readonly preVote?: boolean;
  /** Set when a leader asked this candidate to take over (TimeoutNow): bypasses leader stickiness. */
  readonly transfer?: boolean;
}

export interface VoteResponse extends MessageBase {
  readonly type: 'voteResponse';
  readonly granted: boolean;
  readonly preVote?: boolean;
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
  /** Fast backtracking (thesis §5.3 optimisation): term of the follower's entry at rejectedIndex, if it has one. */
  readonly conflictTerm?: number;
  /** First index the follower holds of conflictTerm. */
  readonly conflictIndex?: number;
  readonly round: number;
}

export type AppendResponse = AppendAccepted | AppendRejected;

/** One chunk of a snapshot for a follower behind the leader's compacted log (thesis §5.4.3). */
export interface InstallSnapshot extends MessageBase {
  readonly type: 'installSnapshot';
  readonly snapshot: SnapshotMeta;
  /** Byte offset of `data` within the snapshot. */
  readonly offset: number;
  readonly data: Uint8Array;
  /** True on the last chunk. */
  readonly done: boolean;
}

export interface SnapshotResponse extends MessageBase {
  readonly type: 'snapshotResponse';
  readonly snapshotIndex: number;
  /** Next byte the follower expects (it restarts at 0 after a gap). */
  readonly nextOffset: number;
  /** True once the whole snapshot is persisted and installed. */
  readonly installed: boolean;
}

/** Leadership transfer (thesis §3.10): the leader tells a caught-up target to campaign now. */
export interface TimeoutNow extends MessageBase {
  readonly type: 'timeoutNow';
}

export type Message = RequestVote | VoteResponse | AppendEntries | AppendResponse | InstallSnapshot | SnapshotResponse | TimeoutNow;
export type MessageType = Message['type'];

/** A confirmed linearizable read point: serve the read once appliedIndex >= index. */
export interface ReadState {
  readonly requestId: number;
  readonly index: number;
}
