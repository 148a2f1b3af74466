// Owns: the leader's queue of ReadIndex requests (Raft thesis §6.4). Pure.
// A read is confirmed when a quorum has echoed a broadcast round at least as new as the one
// started for it, proving this node was still leader when the read index was taken. Reads that
// arrive before the leader committed an entry of its own term wait: until then its commit index
// may be behind the true one.
import { assert } from '../stdx/index.ts';
import { readRequestsMax } from './limits.ts';
import type { ReadState } from './types.ts';

interface PendingRead {
  readonly requestId: number;
  readonly index: number;
  readonly round: number;
}

export class ReadOnlyQueue {
  #waitingForCommit: number[] = [];
  #pending: PendingRead[] = [];

  size(): number {
    return this.#waitingForCommit.length + this.#pending.length;
  }

  /** Returns false when the queue is full (the caller refuses the read). */
  waitForCommit(requestId: number): boolean {
    if (this.size() >= readRequestsMax) return false;
    this.#waitingForCommit.push(requestId);
    return true;
  }

  takeWaiting(): number[] {
    const waiting = this.#waitingForCommit;
    this.#waitingForCommit = [];
    return waiting;
  }

  /** Returns false when the queue is full. */
  add(requestId: number, index: number, round: number): boolean {
    if (this.size() >= readRequestsMax) return false;
    const last = this.#pending.at(-1);
    assert(last === undefined || last.round <= round, 'read rounds must not decrease');
    assert(last === undefined || last.index <= index, 'read indices must not decrease');
    this.#pending.push({ requestId, index, round });
    return true;
  }

  /** Releases every read whose round a quorum has confirmed. */
  release(confirmedRound: number): ReadState[] {
    const released: ReadState[] = [];
    while (this.#pending.length > 0 && this.#pending[0]!.round <= confirmedRound) {
      const read = this.#pending.shift()!;
      released.push({ requestId: read.requestId, index: read.index });
    }
    return released;
  }

  clear(): void {
    this.#waitingForCommit = [];
    this.#pending = [];
  }
}
