// Owns: the Ready batch, the whole contract between the pure core and the I/O driver. Pure.
//
// Ordering contract (etcd raft's Ready, simplified because the driver never steps the core
// while a Ready is outstanding):
//   0. If `snapshot` is set (received from the leader), persist it first (its file, then a
//      marker in the log that entries up to its index are replaced by it): `entries`, if any,
//      follow it at snapshot.meta.index + 1.
//   1. When `mustSync`, persist `hardState` and `entries` durably (fsync). A commit-only change
//      (`mustSync` false, no entries) may instead be carried into the next persisted batch.
//      `entries[0].index` may be at or below the stored last index: the stored suffix from
//      there on is replaced.
//   2. Only then send `messages`: votes and append acknowledgements promise durable state.
//      Exception (thesis §10.2.1, etcd's leader pipelining): when `sendAppendsBeforePersist`,
//      the leader's appendEntries, installSnapshot and timeoutNow messages may be sent before
//      or while step 1 runs, so followers write in parallel with the leader. This is safe
//      because those messages promise nothing about the leader's disk, and the leader's own
//      entries count toward a commit quorum only once advance() reports them durable. Every
//      other message still waits for step 1.
//   3. Restore the state machine from `snapshot`, if set, then apply `committedEntries` in
//      order (they then start at snapshot.meta.index + 1). They are all covered by steps 0-1,
//      so applying never runs ahead of the local durable log.
//   4. Serve `readStates` once the state machine has applied up to their index.
//   5. Call `advance()`. Until then the core must not be ticked, stepped or proposed to.
import type { Entry, HardState, Message, ReadState, Snapshot } from './types.ts';

/** The messages a leader may send before its own persist completes (Ready step 2's exception). */
export function isLeaderReplication(message: Message): boolean {
  return message.type === 'appendEntries' || message.type === 'installSnapshot' || message.type === 'timeoutNow';
}

export interface Ready {
  /** A snapshot from the leader to persist (step 0) and restore the state machine from (step 3). */
  readonly snapshot: Snapshot | undefined;
  /** Present only when it changed since the last Ready. */
  readonly hardState: HardState | undefined;
  /** Entries to append to stable storage, contiguous, ascending. */
  readonly entries: readonly Entry[];
  /** True when entries, term or vote changed: an fsync is needed before sending. A commit-only
   *  change may be deferred, since a lagging commit index is recomputed after restart. */
  readonly mustSync: boolean;
  readonly messages: readonly Message[];
  /** True when this member leads and its term and vote are already durable: its appends in
   *  `messages` may go out before persisting (step 2's exception). */
  readonly sendAppendsBeforePersist: boolean;
  readonly committedEntries: readonly Entry[];
  readonly readStates: readonly ReadState[];
}
