// Owns: one member's Raft protocol state, term handling, role transitions and the common part
// of step(). Pure: no I/O, no clock (time is tick()), randomness only from the injected rng.
// Role-specific handling lives in step-leader.ts, step-candidate.ts and step-follower.ts;
// sending appends lives in replication.ts, snapshots in snapshot-transfer.ts, configuration
// changes in membership.ts. Must not be used directly by the driver: RawNode is the facade that
// batches effects into a Ready.
import { assert, unreachable } from '../stdx/index.ts';
import type { Rng } from '../stdx/index.ts';
import { assertConfiguration, decodeConfiguration } from './configuration.ts';
import { snapshotChunkBytesDefault } from './limits.ts';
import { RaftLog } from './log.ts';
import { stepDownIfRemoved } from './membership.ts';
import { tickTransfer } from './transfer.ts';
import { Progress } from './progress.ts';
import { hasQuorum, quorumValue, voteOutcome } from './quorum.ts';
import { ReadOnlyQueue } from './read-only.ts';
import { broadcastAppend, broadcastHeartbeat, tickHeartbeat } from './replication.ts';
import { stepCandidate } from './step-candidate.ts';
import { handleRequestVote, stepFollower } from './step-follower.ts';
import { stepLeader } from './step-leader.ts';
import type { IncomingSnapshot } from './snapshot-transfer.ts';
import type { Configuration, Message, NodeId, ReadState, RestoredState, Role, Snapshot } from './types.ts';

export interface RaftConfig {
  readonly id: NodeId;
  /**
   * The bootstrap configuration's voters: the configuration while neither the log nor a
   * snapshot holds one (thesis §4.1: the latest configuration in the log wins). A member
   * joining an existing group is given the group's bootstrap voters and is not among them.
   */
  readonly voters: readonly NodeId[];
  /** The bootstrap configuration's learners; default none. */
  readonly learners?: readonly NodeId[];
  /** Bytes of snapshot data per InstallSnapshot chunk; default snapshotChunkBytesDefault. */
  readonly snapshotChunkBytes?: number;
  /** Base election timeout; the effective one is random in [electionTicks, 2 × electionTicks). */
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly rng: Rng;
  readonly restored: RestoredState;
  /**
   * PreVote (thesis §9.6), default true: a member first asks whether it could win before
   * raising its term, so a member rejoining from a partition cannot depose a healthy leader.
   */
  readonly preVote?: boolean;
  /** Index the state machine has already applied (from its own snapshot), 0 if none. */
  readonly appliedIndex: number;
}

export class Raft {
  readonly id: NodeId;
  readonly log: RaftLog;
  /** The configuration in effect: the latest in the log, else the snapshot's, else bootstrap. */
  configuration: Configuration;
  /** Newest snapshot this member holds (to send to followers behind the compacted log). */
  snapshot: Snapshot | undefined;
  /**
   * Leader: a peer needs entries below the log's offset and the snapshot held is missing or
   * older than the offset: the driver should take one at its applied index and compact() to it.
   * Member compaction stops meanwhile (compaction.ts). Cleared by a usable snapshot and on any
   * change of role.
   */
  snapshotWanted = false;
  /** A snapshot received from the leader that the driver must persist and apply (Ready). */
  pendingSnapshot: Snapshot | undefined = undefined;
  /** A snapshot being received in chunks. */
  incomingSnapshot: IncomingSnapshot | undefined = undefined;
  readonly reads = new ReadOnlyQueue();
  term: number;
  vote: NodeId | undefined;
  leaderId: NodeId | undefined = undefined;
  role: Role = 'follower';
  /** Leader: index of the latest configuration entry; a new change waits until it commits. */
  pendingConfigurationIndex = 0;
  /** Leader: the member leadership is being transferred to (thesis §3.10), if any. */
  leadTransferee: NodeId | undefined = undefined;
  /** Leader: ticks spent on the current transfer; it is abandoned after an election timeout. */
  transferElapsed = 0;
  /** A 'candidate' still in its PreVote phase: term and vote unchanged (etcd StatePreCandidate). */
  preCandidate = false;
  electionElapsed = 0;
  heartbeatElapsed = 0;
  randomizedElectionTimeout = 0;
  votes = new Map<NodeId, boolean>();
  progress = new Map<NodeId, Progress>();
  /** Leader broadcast round; raised for each ReadIndex batch, echoed by followers. */
  round = 0;
  readStates: ReadState[] = [];
  #outbox: Message[] = [];
  readonly #config: RaftConfig;

  constructor(config: RaftConfig) {
    assertConfig(config);
    this.#config = config;
    this.id = config.id;
    const { hardState, entries, snapshot } = config.restored;
    this.log = new RaftLog(entries, hardState.commit, config.appliedIndex, snapshot?.meta);
    this.snapshot = snapshot;
    this.configuration = this.configurationAt(this.log.lastIndex());
    this.term = hardState.term;
    this.vote = hardState.vote;
    this.#resetElectionTimer();
  }

  get voters(): readonly NodeId[] {
    return this.configuration.voters;
  }

  get snapshotChunkBytes(): number {
    return this.#config.snapshotChunkBytes ?? snapshotChunkBytesDefault;
  }

  /**
   * The configuration as of log index `index`, at or above the log's offset (for snapshots and
   * after truncation): the latest configuration entry held up to it, else the one in effect at
   * the offset (set by the snapshot or by compacted entries), else the bootstrap configuration.
   */
  configurationAt(index: number): Configuration {
    assert(index >= this.log.offsetIndex(), `the configuration at ${index}, below the log's offset ${this.log.offsetIndex()}, is not known`);
    const configured = this.log.latestConfigurationIndex(index);
    if (configured !== undefined) return decodeConfiguration(this.log.entryAt(configured).data);
    const atOffset = this.log.offsetConfiguration();
    if (atOffset !== undefined) return atOffset;
    return { voters: [...this.#config.voters], learners: [...(this.#config.learners ?? [])] };
  }

  /** Re-derives the configuration after the log changed (append, truncation, snapshot). */
  restoreConfiguration(): void {
    this.configuration = this.configurationAt(this.log.lastIndex());
    assertConfiguration(this.configuration);
  }

  get heartbeatTicks(): number {
    return this.#config.heartbeatTicks;
  }

  get electionTicks(): number {
    return this.#config.electionTicks;
  }

  /** Every other member, voters and learners: the leader replicates to all of them. */
  peers(): NodeId[] {
    return [...this.configuration.voters, ...this.configuration.learners].filter((member) => member !== this.id);
  }

  isVoter(): boolean {
    return this.voters.includes(this.id);
  }

  isSingleVoter(): boolean {
    return this.voters.length === 1 && this.voters[0] === this.id;
  }

  send(message: Message): void {
    assert(message.from === this.id, 'messages are sent from this member');
    assert(message.to !== this.id, 'a member never messages itself');
    this.#outbox.push(message);
  }

  takeMessages(): Message[] {
    const messages = this.#outbox;
    this.#outbox = [];
    return messages;
  }

  hasMessages(): boolean {
    return this.#outbox.length > 0;
  }

  /**
   * At start-up, counts all of the base election timeout but one tick as already elapsed (what
   * etcd calls the initial election tick advance): a member started with its peers campaigns
   * after 1 to electionTicks ticks (its randomized timeout's excess) instead of electionTicks to
   * 2 × electionTicks. Equivalent to electionTicks - 1 ticks of a follower, none of which reaches
   * the randomized timeout. A member restarted into a group that has a leader does not disrupt
   * it: its PreVote is refused by peers that heard from the leader within an election timeout.
   */
  advanceElectionTimerAtStart(): void {
    if (this.role === 'leader' || !this.isVoter()) return;
    this.electionElapsed = Math.max(this.electionElapsed, this.#config.electionTicks - 1);
  }

  tick(): void {
    if (this.role === 'leader') this.#tickLeader();
    else this.#tickElection();
  }

  step(message: Message): void {
    assert(message.to === this.id, `message for ${message.to} delivered to ${this.id}`);
    assert(message.from !== this.id, 'a member never receives its own message');
    if (message.term > this.term) {
      if (!this.#acceptHigherTerm(message)) return;
    } else if (message.term < this.term) {
      this.#answerStaleTerm(message);
      return;
    }
    if (message.type === 'requestVote') {
      handleRequestVote(this, message);
      return;
    }
    if (message.term !== this.term) {
      // Only a granted PreVote answer keeps its future term; it counts in the pre-campaign it
      // answers (term + 1) and is stale otherwise.
      assert(message.type === 'voteResponse' && message.preVote === true, 'only PreVote answers keep a higher term');
      if (this.preCandidate && message.term === this.term + 1) stepCandidate(this, message);
      return;
    }
    this.#stepRole(message);
  }

  /**
   * A message from a higher term. Returns false when it must be ignored. Leader stickiness
   * (thesis §4.2.3 with §9.6): a member that heard from a leader within the election timeout
   * ignores (pre)vote requests, unless a leader asked for the campaign (transfer). A PreVote
   * request, and a granted PreVote answer (which carries the future term), change no term.
   */
  #acceptHigherTerm(message: Message): boolean {
    assert(message.term > this.term, 'acceptHigherTerm only for higher terms');
    if (message.type === 'requestVote') {
      if (message.transfer !== true && this.inLease()) return false;
      if (message.preVote === true) return true;
    }
    if (message.type === 'voteResponse' && message.preVote === true && message.granted) return true;
    const leaderId = message.type === 'appendEntries' || message.type === 'installSnapshot' ? message.from : undefined;
    this.becomeFollower(message.term, leaderId);
    assert(this.term === message.term, 'adopted the higher term');
    return true;
  }

  /** Heard from a live leader within the (base) election timeout; a leader is in its own lease. */
  inLease(): boolean {
    return this.leaderId !== undefined && this.electionElapsed < this.electionTicks;
  }

  /**
   * Starts an election. With PreVote (the default) this first polls the voters at term + 1
   * without changing term; a leadership transfer (TimeoutNow) skips the poll (thesis §3.10).
   */
  campaign(transfer = false): void {
    assert(this.role !== 'leader', 'a leader does not campaign');
    assert(this.isVoter(), 'only a voter campaigns');
    if (this.#config.preVote !== false && !transfer) {
      this.#becomePreCandidate();
      if (voteOutcome(this.voters, this.votes) === 'won') this.startElection(false);
      else this.#requestVotes(true, false);
      return;
    }
    this.startElection(transfer);
  }

  /** The real election: raise the term, vote for ourselves, ask every other voter (§5.2). */
  startElection(transfer: boolean): void {
    assert(this.role !== 'leader', 'a leader does not start an election');
    this.becomeCandidate();
    assert(this.vote === this.id && !this.preCandidate, 'a candidate voted for itself, for real');
    if (voteOutcome(this.voters, this.votes) === 'won') {
      this.becomeLeader();
      return;
    }
    this.#requestVotes(false, transfer);
  }

  #requestVotes(preVote: boolean, transfer: boolean): void {
    assert(this.role === 'candidate', 'only a candidate requests votes');
    assert(this.preCandidate === preVote, 'vote kind matches the campaign phase');
    const term = preVote ? this.term + 1 : this.term;
    for (const peer of this.voters) {
      if (peer === this.id) continue;
      this.send({
        type: 'requestVote', from: this.id, to: peer, term, lastLogIndex: this.log.lastIndex(), lastLogTerm: this.log.lastTerm(),
        ...(preVote ? { preVote: true } : {}), ...(transfer ? { transfer: true } : {}),
      });
    }
  }

  #becomePreCandidate(): void {
    assert(this.role !== 'leader', 'invalid transition leader -> pre-candidate');
    this.role = 'candidate';
    this.leaderId = undefined;
    this.#resetRoleState();
    this.preCandidate = true;
    this.votes.set(this.id, true);
    assert(this.isVoter(), 'only a voter pre-campaigns');
  }

  becomeFollower(term: number, leaderId: NodeId | undefined): void {
    assert(term >= this.term, `term must not go back: ${this.term} -> ${term}`);
    if (term > this.term) {
      this.term = term;
      this.vote = undefined;
    }
    this.role = 'follower';
    this.leaderId = leaderId;
    this.#resetRoleState();
    assert(this.term === term, 'a follower is in the term it followed into');
  }

  becomeCandidate(): void {
    assert(this.role !== 'leader', 'invalid transition leader -> candidate');
    assert(this.isVoter(), 'only a voter becomes a candidate');
    this.term += 1;
    this.vote = this.id;
    this.role = 'candidate';
    this.leaderId = undefined;
    this.#resetRoleState();
    this.votes.set(this.id, true);
  }

  becomeLeader(): void {
    assert(this.role === 'candidate', `invalid transition ${this.role} -> leader`);
    assert(this.vote === this.id, 'a leader voted for itself');
    this.role = 'leader';
    this.leaderId = this.id;
    this.#resetRoleState();
    for (const peer of this.peers()) this.progress.set(peer, new Progress(this.log.lastIndex() + 1));
    // The no-op lets the new leader commit, and so learn the commit index, in its own term (§5.4.2).
    this.log.append([{ index: this.log.lastIndex() + 1, term: this.term, data: new Uint8Array(0) }]);
    // No membership change until the no-op commits: that also commits any configuration entry
    // before it, and it closes the single-server change bug (Ongaro, raft-dev 2015: a leader
    // must commit an entry of its own term before changing the configuration; etcd does this
    // with pendingConfIndex = lastIndex on becoming leader).
    this.pendingConfigurationIndex = this.log.lastIndex();
    broadcastAppend(this);
  }

  /** Leader only: advance commit to what a quorum has persisted, if that is of this term. */
  maybeCommit(): boolean {
    assert(this.role === 'leader', 'only a leader commits by counting');
    const matches = this.voters.map((voter) => (voter === this.id ? this.log.stableIndex : this.progress.get(voter)!.match));
    const candidate = quorumValue(matches);
    assert(candidate <= this.log.lastIndex(), `a quorum matched ${candidate} beyond our log`);
    // §5.4.2: never commit an entry of an earlier term by counting replicas.
    if (candidate <= this.log.commitIndex || this.log.termAt(candidate) !== this.term) return false;
    const firstCommitOfTerm = this.log.termAt(this.log.commitIndex) !== this.term;
    this.log.commitTo(candidate);
    if (!this.isVoter() && this.pendingConfigurationIndex <= candidate) {
      // Removed by a now-committed configuration (thesis §4.2.2): tell the others the commit
      // index, then step down; the remaining voters elect a leader among themselves.
      broadcastHeartbeat(this);
      stepDownIfRemoved(this);
      return false;
    }
    if (firstCommitOfTerm) this.#startWaitingReads();
    return true;
  }

  /** Leader only: the round a quorum (counting this member) has confirmed. */
  confirmedRound(): number {
    const rounds = this.voters.map((voter) => (voter === this.id ? this.round : this.progress.get(voter)!.ackedRound));
    return quorumValue(rounds);
  }

  /** Leader only: take a read point now or once the leader has committed in its term. */
  readIndex(requestId: number): boolean {
    assert(this.role === 'leader', 'readIndex is served by the leader');
    if (this.log.termAt(this.log.commitIndex) !== this.term) return this.reads.waitForCommit(requestId);
    this.round += 1;
    if (!this.reads.add(requestId, this.log.commitIndex, this.round)) return false;
    if (this.isSingleVoter()) this.readStates.push(...this.reads.release(this.round));
    else broadcastHeartbeat(this);
    return true;
  }

  /**
   * Called by RawNode after the driver made entries durable (the leader's own match). A commit
   * this advances reaches the followers with the next append or heartbeat (see stepLeader).
   */
  onPersisted(): void {
    if (this.role !== 'leader') return;
    this.maybeCommit();
  }

  #startWaitingReads(): void {
    for (const requestId of this.reads.takeWaiting()) this.readIndex(requestId);
  }

  #stepRole(message: Message): void {
    switch (this.role) {
      case 'leader': stepLeader(this, message); return;
      case 'candidate': stepCandidate(this, message); return;
      case 'follower': stepFollower(this, message); return;
      default: unreachable(this.role);
    }
  }

  #answerStaleTerm(message: Message): void {
    assert(message.term < this.term, 'only a stale message is answered with our term');
    // Tell a deposed leader or stale candidate about the newer term so it steps down (§5.1).
    if (message.type === 'appendEntries') {
      this.send({
        type: 'appendResponse', from: this.id, to: message.from, term: this.term, success: false,
        rejectedIndex: message.prevLogIndex, hintIndex: this.log.lastIndex(), round: message.round,
      });
    } else if (message.type === 'requestVote') {
      // A stale (pre)vote request learns our term from the refusal and steps down (etcd does the
      // same for PreVote, whose requester may hold a lower term but a longer log).
      this.send({
        type: 'voteResponse', from: this.id, to: message.from, term: this.term, granted: false,
        ...(message.preVote === true ? { preVote: true } : {}),
      });
    }
  }

  #tickElection(): void {
    assert(this.role !== 'leader', 'a leader ticks its heartbeat, not an election');
    this.electionElapsed += 1;
    if (!this.isVoter()) {
      // Learners and members outside the configuration never campaign (thesis §4.2.1).
      this.electionElapsed = Math.min(this.electionElapsed, this.electionTicks);
      return;
    }
    // A sole voter needs nobody's vote: it campaigns at once instead of waiting out a timeout.
    if (this.isSingleVoter() || this.electionElapsed >= this.randomizedElectionTimeout) this.campaign();
  }

  #tickLeader(): void {
    assert(this.role === 'leader', 'only a leader sends heartbeats');
    this.heartbeatElapsed += 1;
    this.electionElapsed += 1;
    tickTransfer(this);
    if (this.electionElapsed >= this.electionTicks) {
      this.electionElapsed = 0;
      if (!this.#checkQuorum()) return;
    }
    if (this.heartbeatElapsed >= this.heartbeatTicks) {
      this.heartbeatElapsed = 0;
      tickHeartbeat(this);
    }
  }

  /** Check quorum: a leader that has not heard from a majority for an election timeout steps
   *  down, so a partitioned leader stops accepting proposals it can never commit. */
  #checkQuorum(): boolean {
    const active = hasQuorum(this.voters, (voter) => voter === this.id || this.progress.get(voter)!.recentActive);
    for (const progress of this.progress.values()) progress.recentActive = false;
    if (!active) this.becomeFollower(this.term, undefined);
    return active;
  }

  #resetRoleState(): void {
    this.#resetElectionTimer();
    this.snapshotWanted = false;
    this.heartbeatElapsed = 0;
    this.preCandidate = false;
    this.leadTransferee = undefined;
    this.transferElapsed = 0;
    this.votes = new Map();
    this.progress = new Map();
    this.reads.clear();
  }

  #resetElectionTimer(): void {
    this.electionElapsed = 0;
    this.randomizedElectionTimeout = this.#config.rng.intBetween(this.#config.electionTicks, 2 * this.#config.electionTicks);
  }
}

function assertConfig(config: RaftConfig): void {
  assert(config.voters.length > 0, 'the bootstrap configuration has a voter');
  assertConfiguration({ voters: config.voters, learners: config.learners ?? [] });
  assert(config.snapshotChunkBytes === undefined || config.snapshotChunkBytes >= 1, 'snapshot chunks carry bytes');
  assert(Number.isSafeInteger(config.electionTicks) && config.electionTicks >= 1, 'electionTicks must be >= 1');
  assert(Number.isSafeInteger(config.heartbeatTicks) && config.heartbeatTicks >= 1, 'heartbeatTicks must be >= 1');
  assert(config.heartbeatTicks < config.electionTicks || config.voters.length === 1, 'heartbeats must be more frequent than elections');
  const snapshot = config.restored.snapshot;
  assert(snapshot === undefined || config.appliedIndex >= snapshot.meta.index, 'restore the state machine from the snapshot first');
}
