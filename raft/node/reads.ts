// Owns: the driver's bookkeeping of ReadIndex requests: queued for the core, awaiting the
// leader's quorum confirmation, and confirmed but waiting for apply to catch up. Must not touch
// the core; called only from the driver loop and RaftNode.readIndex.
import { readRequestsMax } from '../core/index.ts';
import type { ReadState } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { DropReasons, ProposalDroppedError } from './errors.ts';

interface ReadWaiter {
  readonly resolve: (index: number) => void;
  readonly reject: (error: Error) => void;
}

export class ReadTracker {
  #nextRequestId = 1;
  #queued: { requestId: number; waiter: ReadWaiter }[] = [];
  readonly #awaitingConfirmation = new Map<number, ReadWaiter>();
  #confirmed: { index: number; waiter: ReadWaiter }[] = [];

  enqueue(): Promise<number> {
    const outstanding = this.#queued.length + this.#awaitingConfirmation.size + this.#confirmed.length;
    if (outstanding >= readRequestsMax) return Promise.reject(new ProposalDroppedError(DropReasons.Overloaded));
    return new Promise((resolve, reject) => {
      this.#queued.push({ requestId: this.#nextRequestId, waiter: { resolve, reject } });
      this.#nextRequestId += 1;
    });
  }

  hasQueued(): boolean {
    return this.#queued.length > 0;
  }

  /** Hands queued reads to `submit` (the core); those it refuses are rejected with `refusal`. */
  submitQueued(submit: (requestId: number) => boolean, refusal: () => Error): void {
    const queued = this.#queued;
    this.#queued = [];
    for (const { requestId, waiter } of queued) {
      if (submit(requestId)) this.#awaitingConfirmation.set(requestId, waiter);
      else waiter.reject(refusal());
    }
  }

  confirm(readStates: readonly ReadState[]): void {
    for (const state of readStates) {
      const waiter = this.#awaitingConfirmation.get(state.requestId);
      assert(waiter !== undefined, `read state for unknown request ${state.requestId}`);
      this.#awaitingConfirmation.delete(state.requestId);
      this.#confirmed.push({ index: state.index, waiter });
    }
  }

  /** Resolves every confirmed read whose index the state machine has reached. */
  resolveApplied(appliedIndex: number): void {
    const ready = this.#confirmed.filter((read) => read.index <= appliedIndex);
    this.#confirmed = this.#confirmed.filter((read) => read.index > appliedIndex);
    for (const read of ready) read.waiter.resolve(read.index);
  }

  /** Leadership was lost: unconfirmed reads can no longer be confirmed by this member. */
  rejectUnconfirmed(error: () => Error): void {
    for (const waiter of this.#awaitingConfirmation.values()) waiter.reject(error());
    this.#awaitingConfirmation.clear();
  }

  rejectAll(error: () => Error): void {
    this.rejectUnconfirmed(error);
    const rest = [...this.#queued.map((read) => read.waiter), ...this.#confirmed.map((read) => read.waiter)];
    this.#queued = [];
    this.#confirmed = [];
    for (const waiter of rest) waiter.reject(error());
  }
}
