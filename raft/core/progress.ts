// Owns: the leader's view of one follower's replication (etcd's tracker.Progress, simplified).
// Pure. Must not send anything: it answers "may I send?" and records what was sent/acked.
//
// States: `probe` sends one append per heartbeat until the follower accepts, locating the
// match point by backtracking; `replicate` pipelines appends optimistically, at most
// inflightAppendsMax unacknowledged, and falls back to probe on any rejection; `snapshot`
// sends the leader's snapshot in chunks, one in flight, resuming at the follower's offset
// (thesis §5.4.3), because the follower needs entries the leader has compacted.
import { assert } from '../stdx/index.ts';
import { inflightAppendsMax } from './limits.ts';

/**
 * Heartbeat intervals a replicate pipeline may go without any acknowledgement before it is
 * presumed to have lost an append. Two: one interval can pass without an ack under a slow
 * fsync, two (200 ms by default) means a follower's answer is overdue, and re-probing then costs
 * at most one round trip.
 */
export const stalledHeartbeatsMax = 2;

export type ProgressState = 'probe' | 'replicate' | 'snapshot';

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
  /** Heartbeat intervals since an append was last acknowledged (the pipeline is moving). */
  heartbeatsWithoutAck = 0;
  /** Heard from the follower since the last check-quorum. */
  recentActive = false;
  /** Highest leader broadcast round the follower has echoed (ReadIndex confirmation). */
  ackedRound = 0;
  /**
   * An append (with entries or empty) went to the follower since the last heartbeat tick: it
   * reset the follower's election timer and carried a recent commit index and round, so the
   * periodic heartbeat may skip it (replication.ts, tickHeartbeat).
   */
  appendedSinceHeartbeat = false;
  /** In snapshot: the snapshot being sent, the next byte to send, and whether a chunk is out. */
  snapshotIndex = 0;
  snapshotOffset = 0;
  snapshotChunkInFlight = false;

  constructor(next: number) {
    assert(next >= 1, `progress next must be >= 1, got ${next}`);
    this.next = next;
  }

  canSendEntries(): boolean {
    if (this.state === 'snapshot') return false;
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
    if (advanced) this.heartbeatsWithoutAck = 0;
    this.next = Math.max(this.next, this.match + 1);
    this.inflight = this.inflight.filter((lastIndex) => lastIndex > matchIndex);
    this.probeSent = false;
    // Leaving probe (or a snapshot transfer the follower no longer needs) for replicate: the
    // pipeline restarts right after the match, as in etcd's BecomeReplicate. Keeping a `next`
    // beyond it would skip entries the follower never received: a heartbeat's acknowledgement
    // can arrive before (or instead of) the probe's.
    const leaveSnapshot = this.state === 'snapshot' && this.match >= this.snapshotIndex;
    if (this.state === 'probe' || leaveSnapshot) {
      this.state = 'replicate';
      this.next = this.match + 1;
      this.inflight = [];
    }
    assert(this.match < this.next, 'progress match must stay below next');
    assert(this.state !== 'replicate' || this.inflight.length > 0 || this.next === this.match + 1, 'an empty pipeline resumes after the match');
    return advanced;
  }

  /**
   * The follower's log does not match at `rejectedIndex`; it may match at or below `hintIndex`
   * (its last index, or the fast-backtracking hint). Returns false for a stale rejection.
   * The next probe goes to min(rejectedIndex, hintIndex + 1), never below match + 1 (§5.3).
   */
  reject(rejectedIndex: number, hintIndex: number): boolean {
    if (this.state === 'snapshot') return false;
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

  /** Starts (or restarts at byte 0) sending the snapshot at `snapshotIndex`. */
  becomeSnapshot(snapshotIndex: number): void {
    assert(snapshotIndex > this.match, `snapshot ${snapshotIndex} not beyond match ${this.match}`);
    assert(snapshotIndex >= 1, 'a snapshot covers at least one entry');
    this.state = 'snapshot';
    this.snapshotIndex = snapshotIndex;
    this.snapshotOffset = 0;
    this.snapshotChunkInFlight = false;
    this.inflight = [];
  }

  /** The follower installed the snapshot: it holds the log up to its index; probe from there. */
  snapshotInstalled(): void {
    assert(this.state === 'snapshot', 'snapshot installed outside the snapshot state');
    assert(this.snapshotIndex > 0, 'an installed snapshot has an index');
    this.match = Math.max(this.match, this.snapshotIndex);
    this.next = this.match + 1;
    this.state = 'probe';
    this.probeSent = false;
    this.snapshotIndex = 0;
  }

  /**
   * A heartbeat interval passed: allow one more probe, and resend a possibly lost snapshot
   * chunk. A replicate pipeline with appends outstanding but no acknowledgement for
   * stalledHeartbeatsMax intervals has probably lost one (NATS may drop messages; nothing later
   * would reveal the gap if no new entries follow), so fall back to probing from match + 1.
   */
  onHeartbeat(): void {
    this.probeSent = false;
    this.snapshotChunkInFlight = false;
    this.heartbeatsWithoutAck += 1;
    if (this.state === 'replicate' && this.inflight.length > 0 && this.heartbeatsWithoutAck >= stalledHeartbeatsMax) {
      this.state = 'probe';
      this.next = this.match + 1;
      this.inflight = [];
    }
    assert(this.match < this.next, 'progress match must stay below next');
    assert(this.inflight.length <= inflightAppendsMax, 'inflight window overflow');
  }
}
