// Owns: RawNode, the single-threaded facade the driver uses (etcd's RawNode): tick, step,
// propose, readIndex, membership changes, leadership transfer, log compaction (snapshotMeta,
// compact, compactApplied, and snapshotWanted: a leader asking for a snapshot to send), then
// ready()/advance() to collect effects (ordering contract in ready.ts). Pure;
// not reentrant. The API only grows: the simulator drives it too.
// Must not be stepped, ticked or proposed to between ready() and advance(): the driver buffers
// inputs while it persists, which keeps the unstable-log bookkeeping trivially correct.
import { assert } from '../stdx/index.ts';
import { committedEntriesPerReadyMax, compactionRetainEntries, entryDataBytesMax } from './limits.ts';
import { memberCompactionIndex } from './compaction.ts';
import { Raft } from './raft.ts';
import type { RaftConfig } from './raft.ts';
import type { Ready } from './ready.ts';
import type { MembershipChange } from './configuration.ts';
import { proposeMembershipChange } from './membership.ts';
import type { MembershipProposal } from './membership.ts';
import { broadcastAppend } from './replication.ts';
import { transferLeadership } from './transfer.ts';
import type { TransferResult } from './transfer.ts';
import type { Configuration, Entry, HardState, Message, NodeId, Role, Snapshot, SnapshotMeta } from './types.ts';

export type ProposeResult =
  | { readonly accepted: true; readonly firstIndex: number; readonly term: number }
  | { readonly accepted: false; readonly leaderId: NodeId | undefined };

export interface CoreStatus {
  readonly id: NodeId;
  readonly role: Role;
  readonly term: number;
  readonly leaderId: NodeId | undefined;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  readonly stableIndex: number;
  readonly lastIndex: number;
  /** Leader: the member leadership is being transferred to, if any. */
  readonly leadTransferee: NodeId | undefined;
  /** Last index covered by a snapshot and compacted out of the in-memory log (0 if none). */
  readonly offsetIndex: number;
}

export class RawNode {
  readonly #raft: Raft;
  #persistedHardState: HardState;
  #outstanding: Ready | undefined = undefined;

  constructor(config: RaftConfig) {
    this.#raft = new Raft(config);
    this.#persistedHardState = this.#hardState();
  }

  tick(): void {
    this.#assertNoReadyOutstanding('tick');
    this.#raft.tick();
  }

  step(message: Message): void {
    this.#assertNoReadyOutstanding('step');
    this.#raft.step(message);
  }

  /** Right after start: the first election comes after 1 to electionTicks ticks (Raft.advanceElectionTimerAtStart). */
  advanceElectionTimerAtStart(): void {
    this.#assertNoReadyOutstanding('advanceElectionTimerAtStart');
    this.#raft.advanceElectionTimerAtStart();
  }

  /** Starts an election now (PreVote first; a sole voter wins it at once). No-op for a leader
   *  and for a member that is not a voter. */
  campaign(): void {
    this.#assertNoReadyOutstanding('campaign');
    if (this.#raft.role !== 'leader' && this.#raft.isVoter()) this.#raft.campaign();
  }

  propose(data: Uint8Array): ProposeResult {
    return this.proposeBatch([data]);
  }

  /** Appends all `payloads` as consecutive entries and sends them in one append per follower. */
  proposeBatch(payloads: readonly Uint8Array[]): ProposeResult {
    this.#assertNoReadyOutstanding('propose');
    assert(payloads.length > 0, 'empty proposal batch');
    const raft = this.#raft;
    if (raft.role !== 'leader') return { accepted: false, leaderId: raft.leaderId };
    // Thesis §3.10: no new entries during a transfer, so the target can catch up; the refusal
    // names the member about to lead.
    if (raft.leadTransferee !== undefined) return { accepted: false, leaderId: raft.leadTransferee };
    const firstIndex = raft.log.lastIndex() + 1;
    const entries = payloads.map((data, offset): Entry => {
      assert(data.byteLength <= entryDataBytesMax, `entry of ${data.byteLength} bytes over the limit`);
      return { index: firstIndex + offset, term: raft.term, data };
    });
    raft.log.append(entries);
    broadcastAppend(raft);
    return { accepted: true, firstIndex, term: raft.term };
  }

  /**
   * Proposes a one-server membership change (thesis §4.1-4.3): it takes effect on append, and
   * the next change is refused until this one commits. See membership.ts for the rules.
   */
  proposeMembershipChange(change: MembershipChange): MembershipProposal {
    this.#assertNoReadyOutstanding('proposeMembershipChange');
    return proposeMembershipChange(this.#raft, change);
  }

  /**
   * Leadership transfer (thesis §3.10) to the voter `targetId`: proposals are refused until it
   * completes or is abandoned after an election timeout. Leader only.
   */
  transferLeadership(targetId: NodeId): TransferResult {
    this.#assertNoReadyOutstanding('transferLeadership');
    return transferLeadership(this.#raft, targetId);
  }

  /** Requests a linearizable read point; false when not leader or the read queue is full. */
  readIndex(requestId: number): boolean {
    this.#assertNoReadyOutstanding('readIndex');
    if (this.#raft.role !== 'leader') return false;
    return this.#raft.readIndex(requestId);
  }

  hasReady(): boolean {
    const raft = this.#raft;
    return raft.hasMessages() || raft.readStates.length > 0 || raft.log.hasCommittedToApply() || raft.pendingSnapshot !== undefined
      || raft.log.stableIndex < raft.log.lastIndex() || !sameHardState(this.#hardState(), this.#persistedHardState);
  }

  ready(): Ready {
    this.#assertNoReadyOutstanding('ready');
    const raft = this.#raft;
    const hardState = this.#hardState();
    const changed = !sameHardState(hardState, this.#persistedHardState);
    const entries = raft.log.unstableEntries();
    const ready: Ready = {
      snapshot: raft.pendingSnapshot,
      hardState: changed ? hardState : undefined,
      entries,
      mustSync: raft.pendingSnapshot !== undefined || entries.length > 0 || hardState.term !== this.#persistedHardState.term || hardState.vote !== this.#persistedHardState.vote,
      messages: raft.takeMessages(),
      sendAppendsBeforePersist: raft.role === 'leader'
        && hardState.term === this.#persistedHardState.term && hardState.vote === this.#persistedHardState.vote,
      committedEntries: raft.log.committedToApply(committedEntriesPerReadyMax),
      readStates: raft.readStates,
    };
    raft.readStates = [];
    assert(ready.snapshot === undefined || ready.committedEntries.length === 0, 'a received snapshot is applied before any entry');
    assert(!ready.sendAppendsBeforePersist || raft.role === 'leader', 'only a leader sends before persisting');
    this.#outstanding = ready;
    return ready;
  }

  /** The driver finished the Ready: persisted, sent, applied. */
  advance(): void {
    const ready = this.#outstanding;
    assert(ready !== undefined, 'advance() without an outstanding ready()');
    this.#outstanding = undefined;
    if (ready.snapshot !== undefined) {
      // Persisted and restored into the state machine: the log now continues after it.
      assert(this.#raft.pendingSnapshot === ready.snapshot, 'the pending snapshot changed during a Ready');
      this.#raft.pendingSnapshot = undefined;
      this.#raft.log.appliedTo(ready.snapshot.meta.index);
    }
    const lastEntry = ready.entries.at(-1);
    if (lastEntry !== undefined) this.#raft.log.stableTo(lastEntry.index, lastEntry.term);
    const lastApplied = ready.committedEntries.at(-1);
    if (lastApplied !== undefined) this.#raft.log.appliedTo(lastApplied.index);
    if (ready.hardState !== undefined) this.#persistedHardState = ready.hardState;
    this.#raft.onPersisted();
  }

  status(): CoreStatus {
    const raft = this.#raft;
    return {
      id: raft.id, role: raft.role, term: raft.term, leaderId: raft.leaderId,
      commitIndex: raft.log.commitIndex, appliedIndex: raft.log.appliedIndex,
      stableIndex: raft.log.stableIndex, lastIndex: raft.log.lastIndex(), offsetIndex: raft.log.offsetIndex(),
      leadTransferee: raft.leadTransferee,
    };
  }

  /**
   * What a snapshot of the state machine at `index` (= its applied index) covers: the term there
   * and the configuration in effect then (thesis §5.1: the snapshot keeps the latest
   * configuration as of its last index).
   */
  snapshotMeta(index: number): SnapshotMeta {
    const log = this.#raft.log;
    assert(index <= log.appliedIndex, `a snapshot at ${index} beyond applied ${log.appliedIndex}`);
    assert(index >= log.offsetIndex(), `a snapshot at ${index} below the compacted log`);
    const term = log.termAt(index);
    assert(term !== undefined, `no term at ${index}`);
    return { index, term, configuration: this.#raft.configurationAt(index) };
  }

  /**
   * Log compaction (thesis §5.1): the driver persisted `snapshot` (taken at the state machine's
   * applied index). The core keeps it to send to followers behind the log, and forgets entries
   * up to `retainEntries` before its index. A snapshot the log continues from (its index at or
   * above the log's offset) satisfies snapshotWanted(). Not between ready() and advance().
   */
  compact(snapshot: Snapshot, retainEntries = compactionRetainEntries): void {
    this.#assertNoReadyOutstanding('compact');
    const raft = this.#raft;
    assert(snapshot.meta.index <= raft.log.appliedIndex, 'compacting beyond the applied index');
    assert(retainEntries >= 0, 'retained entries are not negative');
    if (raft.snapshot === undefined || snapshot.meta.index > raft.snapshot.meta.index) raft.snapshot = snapshot;
    const compactIndex = Math.min(snapshot.meta.index - retainEntries, raft.log.stableIndex);
    if (compactIndex > raft.log.offsetIndex()) raft.log.compactTo(compactIndex);
    if (raft.snapshot.meta.index >= raft.log.offsetIndex()) raft.snapshotWanted = false;
  }

  /**
   * Member compaction (compaction.ts): forgets applied, durable entries this member will not
   * send, without waiting for a snapshot at their index: it keeps `retainEntries` behind its
   * applied index and, as leader, what its peers still need; a follower keeps only that tail, a
   * sole member none. The driver calls it after every advance(); it forgets a batch of at least
   * the tail's length at a time. The log's offset may then pass the kept snapshot: a leader
   * that must send a peer entries below it asks for a fresh snapshot (snapshotWanted()).
   * Not between ready() and advance().
   */
  compactApplied(retainEntries = compactionRetainEntries): void {
    this.#assertNoReadyOutstanding('compactApplied');
    const index = memberCompactionIndex(this.#raft, retainEntries);
    if (index !== undefined) this.#raft.log.compactTo(index);
  }

  /**
   * True when this leader must send a peer entries it compacted and holds no snapshot its log
   * continues from: the driver should take a snapshot at its applied index (snapshotMeta) and
   * compact() to it; the transfer starts at the next heartbeat. Member compaction waits meanwhile.
   */
  snapshotWanted(): boolean {
    return this.#raft.snapshotWanted;
  }

  /** The configuration in effect (the latest in the log, committed or not: thesis §4.1). */
  configuration(): Configuration {
    return this.#raft.configuration;
  }

  /** Read-only access to the log for tests and diagnostics. */
  entryAt(index: number): Entry {
    return this.#raft.log.entryAt(index);
  }

  #hardState(): HardState {
    return { term: this.#raft.term, vote: this.#raft.vote, commit: this.#raft.log.commitIndex };
  }

  #assertNoReadyOutstanding(operation: string): void {
    assert(this.#outstanding === undefined, `${operation}() between ready() and advance()`);
  }
}

function sameHardState(left: HardState, right: HardState): boolean {
  return left.term === right.term && left.vote === right.vote && left.commit === right.commit;
}
