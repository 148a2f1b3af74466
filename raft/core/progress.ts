// Owns: the leader's view of one follower's replication (etcd's tracker.Progress, simplified).
// Pure. Must not send anything: it answers "may I send?" and records what was sent/acked.
//
// States: `probe` sends one append per heartbeat until the follower accepts, locating the
// match point by backtracking; `replicate` pipelines appends optimistically, at most
// inflightAppendsMax unacknowledged, and falls back to probe on any rejection.
import { assert } from '../stdx/index.ts';
import { inflightAppendsMax } from './limits.ts';

export type ProgressState = 'probe' | 'replicate';

export class Progress {
  /** Highest index known to be durably replicated on the follower. */
  match = 0;
  /** Next index to send. Invariant: match < next. */
  next: number;
  state: ProgressState = 'probe';
  /** In probe: an append is outstanding and no more are sent until a reply or heartbeat. */
  probeSent = false;
  /** In replicate: last index of each unacknowledged append, ascending. */
  inflight: number[] = [];
  /** Heard from the follower since the last check-quorum. */
  recentActive = false;
  /** Highest leader broadcast round the follower has echoed (ReadIndex confirmation). */
  ackedRound = 0;

  constructor(next: number) {
    assert(next >= 1, `progress next must be >= 1, got ${next}`);
    this.next = next;
  }

  canSendEntries(): boolean {
    if (this.state === 'probe') return !this.probeSent;
    return this.inflight.length < inflightAppendsMax;
  }

  /** Records an append carrying entries up to `lastIndex` (or none, when lastIndex < next). */
  sentAppend(lastIndex: number): void {
    assert(lastIndex >= this.next - 1, 'sent append ends before next');
    if (this.state === 'probe') {
      this.probeSent = true;
      return;
    }
    if (lastIndex < this.next) return;
    this.inflight.push(lastIndex);
    this.next = lastIndex + 1;
    assert(this.inflight.length <= inflightAppendsMax, 'inflight window overflow');
  }

  /** The follower holds our log up to `matchIndex`. Returns true if match advanced. */
  accept(matchIndex: number): boolean {
    const advanced = matchIndex > this.match;
    if (advanced) this.match = matchIndex;
    this.next = Math.max(this.next, this.match + 1);
    this.inflight = this.inflight.filter((lastIndex) => lastIndex > matchIndex);
    this.probeSent = false;
    if (this.state === 'probe') this.state = 'replicate';
    assert(this.match < this.next, 'progress match must stay below next');
    return advanced;
  }

  /**
   * The follower's log does not match at `rejectedIndex`; it may match at or below `hintIndex`
   * (its last index, or the fast-backtracking hint). Returns false for a stale rejection.
   * The next probe goes to min(rejectedIndex, hintIndex + 1), never below match + 1 (§5.3).
   */
  reject(rejectedIndex: number, hintIndex: number): boolean {
    if (this.state === 'replicate' && rejectedIndex <= this.match) return false;
    if (this.state === 'probe' && rejectedIndex !== this.next - 1) return false;
    this.next = Math.max(this.match + 1, Math.min(rejectedIndex, hintIndex + 1));
    this.state = 'probe';
    this.probeSent = false;
    this.inflight = [];
    assert(this.next >= 1, 'progress next fell below 1');
    assert(this.match < this.next, 'progress match must stay below next');
    return true;
  }

  /** A heartbeat interval passed: allow one more probe, or free a slot of a full window so a
   *  lost append is eventually detected by the follower's rejection. */
  onHeartbeat(): void {
    this.probeSent = false;
    if (this.inflight.length >= inflightAppendsMax) this.inflight.shift();
  }
}
