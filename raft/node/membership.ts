// Owns: the driver's bookkeeping of membership changes: requests queued for the core, and
// accepted changes awaiting the commit (and apply) of their configuration entry. Must not
// touch the core; called only from the driver loop and RaftNode.changeMembership.
import type { Configuration, MembershipChange } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { DropReasons, ProposalDroppedError } from './errors.ts';

/**
 * Membership requests queued between loop iterations. Changes go one at a time (each waits for
 * the previous to commit), so more than 16 queued means callers are racing each other; the
 * excess is rejected as overloaded.
 */
export const membershipRequestsMax = 16;

interface Waiter {
  readonly resolve: (configuration: Configuration) => void;
  readonly reject: (error: Error) => void;
}

export class MembershipTracker {
  #queued: { change: MembershipChange; waiter: Waiter }[] = [];
  readonly #inFlight = new Map<number, Waiter & { readonly term: number }>();

  enqueue(change: MembershipChange): Promise<Configuration> {
    if (this.#queued.length >= membershipRequestsMax) return Promise.reject(new ProposalDroppedError(DropReasons.Overloaded));
    return new Promise((resolve, reject) => this.#queued.push({ change, waiter: { resolve, reject } }));
  }

  hasQueued(): boolean {
    return this.#queued.length > 0;
  }

  /** Hands queued changes to `submit`; it returns the entry's index and term, or an error. */
  submitQueued(submit: (change: MembershipChange) => { index: number; term: number } | Error): void {
    const queued = this.#queued;
    this.#queued = [];
    for (const { change, waiter } of queued) {
      const outcome = submit(change);
      if (outcome instanceof Error) {
        waiter.reject(outcome);
        continue;
      }
      assert(!this.#inFlight.has(outcome.index), `two membership changes at index ${outcome.index}`);
      this.#inFlight.set(outcome.index, { ...waiter, term: outcome.term });
    }
  }

  /** A configuration entry was applied: settle the change that created it, if ours. */
  settleApplied(index: number, term: number, configuration: Configuration): void {
    const waiter = this.#inFlight.get(index);
    if (waiter === undefined) return;
    this.#inFlight.delete(index);
    if (waiter.term === term) waiter.resolve(configuration);
    else waiter.reject(new ProposalDroppedError(DropReasons.Overwritten));
  }

  /** Rejects changes above `commitIndex` (leadership lost), or all with commitIndex -1. */
  dropUncommitted(commitIndex: number, error: () => Error): void {
    for (const [index, waiter] of this.#inFlight) {
      if (index <= commitIndex) continue;
      this.#inFlight.delete(index);
      waiter.reject(error());
    }
  }

  /** Rejects changes at or below `index` (covered by an installed snapshot). */
  dropThrough(index: number, error: () => Error): void {
    for (const [changed, waiter] of this.#inFlight) {
      if (changed > index) continue;
      this.#inFlight.delete(changed);
      waiter.reject(error());
    }
  }

  rejectAll(error: () => Error): void {
    const queued = this.#queued;
    this.#queued = [];
    for (const { waiter } of queued) waiter.reject(error());
    this.dropUncommitted(-1, error);
  }
}
