// Owns: the driver's bookkeeping of proposals: those queued for the next batch, and those in
// the log awaiting commit and apply. Must not touch the core or storage; called only from the
// driver loop and from RaftNode.propose.
import { assert } from '../stdx/index.ts';
import { DropReasons, ProposalDroppedError } from './errors.ts';

/**
 * Proposals waiting for the next loop iteration. Beyond 10 000 the node is far behind its disk;
 * new proposals are rejected (Overloaded) rather than queued without bound.
 */
export const proposalQueueMax = 10_000;
/** Proposals per append batch (one fsync); the remainder waits for the next iteration. */
export const proposalsPerBatchMax = 512;
/** Data bytes per append batch: bounds one write and one Ready's memory to about 8 MiB. */
export const proposalBatchBytesMax = 8 * 1024 * 1024;

export interface ProposalOutcome<Result> {
  readonly index: number;
  readonly result: Result;
}

interface Waiter<Result> {
  readonly resolve: (outcome: ProposalOutcome<Result>) => void;
  readonly reject: (error: Error) => void;
}

interface QueuedProposal<Result> extends Waiter<Result> {
  readonly data: Uint8Array;
}

interface InFlightProposal<Result> extends Waiter<Result> {
  readonly term: number;
}

export class ProposalTracker<Result> {
  #queued: QueuedProposal<Result>[] = [];
  readonly #inFlight = new Map<number, InFlightProposal<Result>>();

  enqueue(data: Uint8Array): Promise<ProposalOutcome<Result>> {
    if (this.#queued.length >= proposalQueueMax) return Promise.reject(new ProposalDroppedError(DropReasons.Overloaded));
    return new Promise((resolve, reject) => this.#queued.push({ data, resolve, reject }));
  }

  hasQueued(): boolean {
    return this.#queued.length > 0;
  }

  /** Takes the next batch within the count and byte limits (at least one proposal). */
  takeBatch(): QueuedProposal<Result>[] {
    let bytes = 0;
    let count = 0;
    while (count < this.#queued.length && count < proposalsPerBatchMax) {
      bytes += this.#queued[count]!.data.byteLength;
      if (count > 0 && bytes > proposalBatchBytesMax) break;
      count += 1;
    }
    return this.#queued.splice(0, count);
  }

  /** The core appended `batch` at firstIndex.. in `term`. */
  track(batch: readonly QueuedProposal<Result>[], firstIndex: number, term: number): void {
    batch.forEach((proposal, offset) => {
      assert(!this.#inFlight.has(firstIndex + offset), `two proposals at index ${firstIndex + offset}`);
      this.#inFlight.set(firstIndex + offset, { resolve: proposal.resolve, reject: proposal.reject, term });
    });
  }

  /** An entry was applied: settle the proposal that created it, if this member proposed it. */
  settleApplied(index: number, term: number, result: Result): void {
    const proposal = this.#inFlight.get(index);
    if (proposal === undefined) return;
    this.#inFlight.delete(index);
    if (proposal.term === term) proposal.resolve({ index, result });
    else proposal.reject(new ProposalDroppedError(DropReasons.Overwritten));
  }

  /** Rejects in-flight proposals above `commitIndex` (those at or below it will still apply). */
  dropUncommitted(commitIndex: number, error: () => Error): void {
    for (const [index, proposal] of this.#inFlight) {
      if (index <= commitIndex) continue;
      this.#inFlight.delete(index);
      proposal.reject(error());
    }
  }

  /** Rejects in-flight proposals at or below `index` (covered by an installed snapshot). */
  dropThrough(index: number, error: () => Error): void {
    for (const [proposed, proposal] of this.#inFlight) {
      if (proposed > index) continue;
      this.#inFlight.delete(proposed);
      proposal.reject(error());
    }
  }

  rejectQueued(error: () => Error): void {
    const queued = this.#queued;
    this.#queued = [];
    for (const proposal of queued) proposal.reject(error());
  }

  rejectAll(error: () => Error): void {
    this.rejectQueued(error);
    this.dropUncommitted(0, error);
  }
}
