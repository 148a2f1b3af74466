// Owns: the boundary between the Raft log and the application it replicates (the hashicorp
// FSM size of interface). actors/ implements it; raft/ never learns what the bytes mean.
//
// Concurrency: every method is called only from the driver loop, one at a time, in log
// order. apply() must be deterministic: its result and the state it leaves depend only on the
// state after the previous entry and on this entry (no clock, randomness or I/O).

export interface CommittedEntry {
  /** Raft index of the entry; the application uses it as its revision. */
  readonly index: number;
  readonly term: number;
  /** Opaque command bytes as proposed. */
  readonly data: Uint8Array;
}

/**
 * A consistent view of the state at `index`, captured synchronously by snapshotView(). chunks()
 * serialises it afterwards, each chunk after a bounded amount of work (a chunk may be empty):
 * the driver pulls them in time slices and yields to its event loop between slices, applying
 * entries meanwhile. The chunks concatenated are what snapshot() would have returned at `index`.
 * A chunk may be a view into a buffer the producer reuses: it is valid until the next chunk is
 * pulled, so a consumer copies what it keeps (writeSliced does).
 */
export interface SnapshotView {
  readonly index: number;
  chunks(): Iterable<Uint8Array>;
}

export interface StateMachine<Result> {
  /** Applies one committed entry and returns what the proposer should be told. */
  apply(entry: CommittedEntry): Result;
  /** Index of the last entry applied (0 before any). */
  appliedIndex(): number;
  /** Serializes the whole state at appliedIndex() (for snapshots and log compaction). */
  snapshot(): Uint8Array;
  /**
   * Optional: capture the state at appliedIndex() cheaply (e.g. shallow copies of immutable
   * parts) and serialise it later; the driver then takes snapshots off its loop. Without it
   * the driver calls snapshot() inline.
   */
  snapshotView?(): SnapshotView;
  /** Replaces the whole state with a snapshot taken at `index`. */
  restore(snapshot: Uint8Array, index: number): void;
}
