// Owns: the Ready batch, the whole contract between the pure core and the I/O driver. Pure.
//
// Ordering contract (etcd raft's Ready, simplified because the driver never steps the core
// while a Ready is outstanding):
//   1. When `mustSync`, persist `hardState` and `entries` durably (fsync). A commit-only change
//      (`mustSync` false, no entries) may instead be carried into the next persisted batch.
//      `entries[0].index` may be at or below the stored last index: the stored suffix from
//      there on is replaced.
//   2. Only then send `messages`: votes and append acknowledgements promise durable state.
//   3. Apply `committedEntries` in order. They are all covered by step 1, so applying never
//      runs ahead of the local durable log.
//   4. Serve `readStates` once the state machine has applied up to their index.
//   5. Call `advance()`. Until then the core must not be ticked, stepped or proposed to.
import type { Entry, HardState, Message, ReadState } from './types.ts';

export interface Ready {
  /** Present only when it changed since the last Ready. */
  readonly hardState: HardState | undefined;
  /** Entries to append to stable storage, contiguous, ascending. */
  readonly entries: readonly Entry[];
  /** True when entries, term or vote changed: an fsync is needed before sending. A commit-only
   *  change may be deferred, since a lagging commit index is recomputed after restart. */
  readonly mustSync: boolean;
  readonly messages: readonly Message[];
  readonly committedEntries: readonly Entry[];
  readonly readStates: readonly ReadState[];
}
