// Owns: one deterministic simulation run (VOPR style): the cluster of members (the bootstrap
// voters and spare members outside the configuration), clients, network and storage faults
// (crashes at random times and while a snapshot is unsynced) and the administrative requests
// (membership changes, leadership transfers) on a virtual-time agenda driven by one seeded rng,
// with the safety checks after every step, then the liveness phase (heal everything, finish every
// client operation, converge every member of the leader's configuration) and the
// linearizability check of the client history. Returns a SimResult; a violation carries the
// seed, the knobs and the trace tail. Never reads a clock or Math.random.
import { isMember } from '../../raft/core/index.ts';
import type { Configuration, CoreStatus, Entry, MembershipChange, Message, Ready } from '../../raft/core/index.ts';
import { AssertionError, assert } from '../../raft/stdx/index.ts';
import { checkKvLinearizability } from './checkers/linearizability.ts';
import type { LinearizabilityOutcome } from './checkers/linearizability.ts';
import { SafetyChecker, SafetyViolation } from './checkers/safety.ts';
import type { MemberView, ViolationKind } from './checkers/safety.ts';
import { SimClient } from './client.ts';
import { EventQueue } from './event-queue.ts';
import { History } from './history.ts';
import { knownAssertion } from './known-issues.ts';
import type { KnownCoreIssue } from './known-issues.ts';
import { SimMember } from './member.ts';
import type { MemberEnvironment } from './member.ts';
import { formatOptions, sampleOptions } from './options.ts';
import type { OptionOverrides, SimOptions } from './options.ts';
import { PacketSimulator } from './packet-simulator.ts';
import { describePacket, isRaftMessage } from './packets.ts';
import type { Packet } from './packets.ts';
import { SimRandom } from './random.ts';
import { Trace } from './trace.ts';

/**
 * Steps the liveness phase may take besides its virtual-time deadline. Time always advances
 * (ticks recur, packets take at least 1 ms), so the deadline ends the phase; this bound only
 * guards against a simulator bug that schedules events without advancing time.
 */
export const livenessStepsMax = 2_000_000;

type SimEvent =
  | { readonly kind: 'tick'; readonly member: SimMember; readonly incarnation: number }
  | { readonly kind: 'fsync'; readonly member: SimMember; readonly incarnation: number }
  | { readonly kind: 'restart'; readonly member: SimMember }
  | { readonly kind: 'crash'; readonly member: SimMember; readonly incarnation: number }
  | { readonly kind: 'deliver'; readonly packet: Packet }
  | { readonly kind: 'clientWake'; readonly client: SimClient; readonly token: number }
  | { readonly kind: 'faultCheck' }
  | { readonly kind: 'healPartition'; readonly partition: number }
  | { readonly kind: 'membershipCheck' }
  | { readonly kind: 'transferCheck' };

/** Test hooks: a way to break the protocol on the wire (to prove the checkers catch it). */
export interface SimHooks {
  /** Called for each Raft message a member sends; returns what goes on the wire instead. */
  readonly corruptRaftMessage?: (message: Message, random: SimRandom) => readonly Message[];
  /** Members write a batch's hard state before its snapshot and entries (FaultyStorage.hardStateFirst). */
  readonly hardStateFirst?: boolean;
  /** Receives every trace line as it is recorded (verbose replay). */
  readonly traceSink?: (line: string) => void;
}

export interface SimViolationReport {
  readonly kind: ViolationKind;
  readonly message: string;
  /** Set when the violation is a known raft/core defect (known-issues.ts). */
  readonly knownIssue: KnownCoreIssue | undefined;
  readonly step: number;
  readonly timeMs: number;
  readonly trace: readonly string[];
  readonly detail: readonly string[];
}

export interface SimStats {
  readonly steps: number;
  readonly timeMs: number;
  readonly leaderTerms: number;
  readonly committedIndex: number;
  readonly crashes: number;
  readonly partitions: number;
  readonly operations: number;
  readonly completed: number;
  readonly pending: number;
  /** Membership changes the leader accepted, and refused (not caught up, change in progress, ...). */
  readonly membershipChanges: number;
  readonly membershipRefused: number;
  readonly transfers: number;
  readonly snapshotsTaken: number;
  readonly snapshotsInstalled: number;
  /** Snapshots taken because a leader's core wanted one to send a peer (its log had passed the last). */
  readonly snapshotsOnDemand: number;
  /** Unsynced snapshot records (taken or received) that crashes lost. */
  readonly snapshotsLost: number;
  /** Snapshots the safety checker compared with its reference state machine. */
  readonly snapshotsChecked: number;
  /** The voters of the last leader's configuration at the end of the run. */
  readonly finalVoters: readonly string[];
}

export interface SimResult {
  readonly seed: number;
  readonly options: SimOptions;
  readonly violation: SimViolationReport | undefined;
  readonly linearizability: LinearizabilityOutcome | undefined;
  readonly traceHash: string;
  readonly traceLines: number;
  readonly stats: SimStats;
}

export function runSimulation(seed: number, overrides: OptionOverrides = {}, hooks: SimHooks = {}): SimResult {
  const random = new SimRandom(seed);
  const options = sampleOptions(seed, random, overrides);
  return new Simulation(options, random, hooks).run();
}

class Simulation {
  readonly #options: SimOptions;
  readonly #random: SimRandom;
  readonly #hooks: SimHooks;
  readonly #trace: Trace;
  readonly #queue = new EventQueue<SimEvent>();
  readonly #checker = new SafetyChecker();
  readonly #history = new History();
  readonly #network: PacketSimulator;
  readonly #members: SimMember[];
  readonly #views: MemberView[];
  readonly #clients: SimClient[];
  readonly #memberById = new Map<string, SimMember>();
  readonly #clientById = new Map<string, SimClient>();
  #now = 0;
  #step = 0;
  #faultsOn = true;
  #partition = 0;
  #crashes = 0;
  #partitions = 0;
  #linearizability: LinearizabilityOutcome | undefined = undefined;
  #membershipChanges = 0;
  #membershipRefused = 0;
  #transfers = 0;
  #snapshotsTaken = 0;
  #snapshotsInstalled = 0;
  #snapshotsLost = 0;
  #detail: string[] = [];

  constructor(options: SimOptions, random: SimRandom, hooks: SimHooks) {
    this.#options = options;
    this.#random = random;
    this.#hooks = hooks;
    this.#trace = new Trace(hooks.traceSink);
    // The bootstrap voters, then the spare members: running from the start, outside the
    // configuration until a leader adds them as learners.
    const letter = (position: number): string => String.fromCharCode(97 + position);
    const voters = Array.from({ length: options.memberCount }, (_, position) => letter(position));
    const ids = [...voters, ...Array.from({ length: options.membership.spareMembers }, (_, position) => letter(options.memberCount + position))];
    this.#network = new PacketSimulator(random, options.network, ids);
    const timers = { electionTicks: options.electionTicks, heartbeatTicks: options.heartbeatTicks };
    this.#members = ids.map((id) => new SimMember(id, voters, timers, options.snapshots, this.#memberEnvironment()));
    this.#views = this.#members.map((member) => ({
      id: member.id, status: () => member.status(), entryAt: (index: number) => member.entryAt(index),
      configuration: () => member.configuration(), durablyHolds: (index: number, term: number) => member.storage.durablyHolds(index, term),
    }));
    for (const member of this.#members) {
      this.#memberById.set(member.id, member);
      member.storage.onDurableHardState = (hardState) => this.#checker.onDurableHardState(member.id, hardState);
      member.storage.hardStateFirst = hooks.hardStateFirst === true;
    }
    this.#clients = Array.from({ length: options.clients.clientCount }, (_, position) =>
      new SimClient(`c${position + 1}`, ids, options.clients, random, this.#history, this.#clientEnvironment()));
    for (const client of this.#clients) this.#clientById.set(client.id, client);
  }

  run(): SimResult {
    let violation: SimViolationReport | undefined;
    let knownIssue: KnownCoreIssue | undefined;
    try {
      for (const line of formatOptions(this.#options).split('\n')) this.#record(`knobs ${line}`);
      this.#boot();
      this.#faultPhase();
      const stalled = this.#livenessPhaseDiagnosed();
      this.#finalChecks();
      if (stalled !== undefined) {
        knownIssue = stalled.knownIssue;
        throw stalled.violation;
      }
    } catch (error) {
      violation = this.#report(error, knownIssue);
    }
    return {
      seed: this.#options.seed, options: this.#options, violation, linearizability: this.#linearizability,
      traceHash: this.#trace.hash(), traceLines: this.#trace.lineCount, stats: this.#stats(),
    };
  }

  #boot(): void {
    for (const member of this.#members) this.#startMember(member);
    for (const client of this.#clients) client.start();
    this.#queue.push(this.#options.faults.faultIntervalMs, { kind: 'faultCheck' });
    const { changeIntervalMs, transferIntervalMs } = this.#options.membership;
    if (changeIntervalMs > 0) this.#queue.push(changeIntervalMs, { kind: 'membershipCheck' });
    if (transferIntervalMs > 0) this.#queue.push(transferIntervalMs, { kind: 'transferCheck' });
  }

  #faultPhase(): void {
    for (let count = 0; count < this.#options.steps; count += 1) this.#stepOnce();
  }

  #livenessPhase(): void {
    this.#faultsOn = false;
    this.#network.heal();
    this.#network.makeReliable();
    for (const member of this.#members) if (!member.up) this.#startMember(member);
    for (const client of this.#clients) client.finishUp();
    this.#record('heal: partitions healed, network reliable, every member up, clients finishing');
    const deadline = this.#now + this.#options.livenessDeadlineMs;
    this.#runUntil(() => this.#serviceLive(), deadline, 'liveness');
    this.#record(`service live: ${this.#convergenceReport()}`);
    this.#runUntil(() => this.#converged(), deadline, 'convergence');
    this.#record(`converged: ${this.#convergenceReport()}`);
  }

  /** Steps until `done`, or throws a `kind` violation once the virtual deadline passes. */
  #runUntil(done: () => boolean, deadline: number, kind: ViolationKind): void {
    for (let count = 0; !done(); count += 1) {
      if (this.#now > deadline || count >= livenessStepsMax) {
        throw new SafetyViolation(kind, `not reached ${this.#options.livenessDeadlineMs}ms after healing: ${this.#convergenceReport()}`);
      }
      this.#stepOnce();
    }
  }

  /**
   * A liveness or convergence failure still lets the history be checked (the safety verdict is
   * worth having, and a linearizability violation is the graver finding), and is diagnosed
   * against the known core issues first.
   */
  #livenessPhaseDiagnosed(): { readonly violation: SafetyViolation; readonly knownIssue: KnownCoreIssue | undefined } | undefined {
    try {
      this.#livenessPhase();
      return undefined;
    } catch (error) {
      if (!(error instanceof SafetyViolation) || (error.kind !== 'liveness' && error.kind !== 'convergence')) throw error;
      return { violation: error, knownIssue: this.#diagnoseStall() };
    }
  }

  /** Nudges the leader with one proposal: convergence then means 'idle-replication-stall'. */
  #diagnoseStall(): KnownCoreIssue | undefined {
    const leader = this.#members.find((member) => member.status()?.role === 'leader');
    if (leader === undefined) return undefined;
    this.#record(`diagnosis: nudging leader ${leader.id} with one proposal`);
    leader.nudge();
    try {
      this.#runUntil(() => this.#converged(), this.#now + this.#options.livenessDeadlineMs, 'convergence');
    } catch (error) {
      if (error instanceof SafetyViolation && error.kind === 'convergence') return undefined;
      throw error;
    }
    this.#record(`diagnosis: converged after the nudge: known core issue idle-replication-stall`);
    return 'idle-replication-stall';
  }

  #finalChecks(): void {
    this.#checker.checkLogsMatch(this.#views);
    const result = checkKvLinearizability(this.#history.operations());
    this.#linearizability = result.outcome;
    this.#record(`linearizability: ${result.outcome} (${result.keys.map((key) => `${key.key}:${key.operations}ops/${key.steps}steps`).join(' ')})`);
    const failed = result.keys.find((key) => key.outcome === 'not-linearizable');
    if (failed !== undefined) {
      this.#detail = [`history of ${failed.key}:`, ...this.#history.describeKey(failed.key),
        `longest linearizable prefix: ${failed.longestPrefix.map((id) => `op${id}`).join(' ')}`];
      throw new SafetyViolation('linearizability', `history of key ${failed.key} is not linearizable`);
    }
  }

  #stepOnce(): void {
    const next = this.#queue.pop();
    assert(next !== undefined, 'the agenda never empties: ticks recur');
    assert(next.time >= this.#now, 'virtual time never goes back');
    this.#now = next.time;
    this.#step += 1;
    this.#handle(next.event);
    this.#checker.afterStep(this.#views);
    this.#checkHarness();
  }

  #handle(event: SimEvent): void {
    switch (event.kind) {
      case 'tick': this.#onTick(event.member, event.incarnation); return;
      case 'fsync': this.#onFsync(event.member, event.incarnation); return;
      case 'restart': if (!event.member.up) this.#startMember(event.member); return;
      case 'crash': this.#onSnapshotCrash(event.member, event.incarnation); return;
      case 'deliver': this.#deliver(event.packet); return;
      case 'clientWake': event.client.wake(event.token); return;
      case 'faultCheck': this.#onFaultCheck(); return;
      case 'healPartition': this.#onHealPartition(event.partition); return;
      case 'membershipCheck': this.#onMembershipCheck(); return;
      case 'transferCheck': this.#onTransferCheck(); return;
    }
  }

  #onTick(member: SimMember, incarnation: number): void {
    if (member.incarnation !== incarnation || !member.up) return;
    member.input({ kind: 'tick' });
    this.#queue.push(this.#now + this.#options.tickMs, { kind: 'tick', member, incarnation });
  }

  #onFsync(member: SimMember, incarnation: number): void {
    if (member.incarnation !== incarnation || !member.up) return;
    this.#record(`${member.id} fsync (${member.storage.unsyncedRecords} records)`);
    member.fsyncDone();
  }

  #deliver(packet: Packet): void {
    if (packet.type === 'clientReply') {
      this.#record(`deliver ${describePacket(packet)}`);
      this.#clientById.get(packet.to)!.onReply(packet);
      return;
    }
    const member = this.#memberById.get(packet.to)!;
    if (!member.up || (isRaftMessage(packet) && !this.#network.linkUp(packet.from, packet.to))) {
      this.#record(`lost ${describePacket(packet)} (${member.up ? 'link down' : 'member down'})`);
      return;
    }
    this.#record(`deliver ${describePacket(packet)}`);
    member.input(isRaftMessage(packet) ? { kind: 'message', message: packet } : { kind: 'request', request: packet });
  }

  #send(packet: Packet): void {
    const wire = isRaftMessage(packet) && this.#hooks.corruptRaftMessage !== undefined
      ? this.#hooks.corruptRaftMessage(packet, this.#random) : [packet];
    for (const sent of wire) {
      const delays = this.#network.transmit(sent.from, sent.to);
      if (delays.length === 0) this.#record(`drop ${describePacket(sent)}`);
      if (delays.length > 1) this.#record(`duplicate ${describePacket(sent)}`);
      for (const delay of delays) this.#queue.push(this.#now + delay, { kind: 'deliver', packet: sent });
    }
  }

  #onFaultCheck(): void {
    if (!this.#faultsOn) return;
    const faults = this.#options.faults;
    this.#queue.push(this.#now + faults.faultIntervalMs, { kind: 'faultCheck' });
    if (!this.#network.partitioned() && this.#random.chance(faults.partitionProbability)) {
      const partition = this.#network.partition();
      this.#partition += 1;
      this.#partitions += 1;
      this.#record(`partition #${this.#partition}: ${partition.description}`);
      this.#queue.push(this.#now + this.#random.between(faults.partitionMinMs, faults.partitionMaxMs), { kind: 'healPartition', partition: this.#partition });
    }
    const down = this.#members.filter((member) => !member.up).length;
    if (down < faults.crashedMembersMax && this.#random.chance(faults.crashProbability)) this.#crash(this.#random.pick(this.#members.filter((member) => member.up)));
  }

  /** The member leading the highest term, if any is up and leading. */
  #leader(): SimMember | undefined {
    let leader: SimMember | undefined;
    let term = -1;
    for (const member of this.#members) {
      const status = member.status();
      if (status?.role === 'leader' && status.term > term) {
        leader = member;
        term = status.term;
      }
    }
    return leader;
  }

  /**
   * Asks the leader for one membership change, chosen at random among the valid ones: promote a
   * learner (refused until it caught up), add a member outside the configuration (a spare or a
   * removed one) as a learner, remove a learner, or remove a voter (the leader itself with
   * removeLeaderProbability) while more than votersMin remain. Only during the fault phase.
   */
  #onMembershipCheck(): void {
    if (!this.#faultsOn) return;
    const knobs = this.#options.membership;
    this.#queue.push(this.#now + knobs.changeIntervalMs, { kind: 'membershipCheck' });
    const leader = this.#leader();
    if (leader === undefined) return;
    const configuration = leader.configuration()!;
    const changes: MembershipChange[] = [
      ...configuration.learners.map((id): MembershipChange => ({ type: 'promote', id })),
      ...this.#members.filter((member) => !isMember(configuration, member.id)).map((member): MembershipChange => ({ type: 'addLearner', id: member.id })),
    ];
    if (configuration.learners.length > 0 && this.#random.chance(0.2)) changes.push({ type: 'remove', id: this.#random.pick(configuration.learners) });
    if (configuration.voters.length > knobs.votersMin) {
      const others = configuration.voters.filter((id) => id !== leader.id);
      const removeLeader = others.length === 0 || this.#random.chance(knobs.removeLeaderProbability);
      changes.push({ type: 'remove', id: removeLeader ? leader.id : this.#random.pick(others) });
    }
    if (changes.length === 0) return;
    const change = this.#random.pick(changes);
    this.#record(`membership: asking leader ${leader.id} to ${change.type} ${change.id} (voters ${configuration.voters.join(',')} learners ${configuration.learners.join(',') || '-'})`);
    leader.input({ kind: 'membership', change });
  }

  /** Asks the leader to hand leadership to a random other voter. Only during the fault phase. */
  #onTransferCheck(): void {
    if (!this.#faultsOn) return;
    this.#queue.push(this.#now + this.#options.membership.transferIntervalMs, { kind: 'transferCheck' });
    const leader = this.#leader();
    if (leader === undefined) return;
    const others = leader.configuration()!.voters.filter((id) => id !== leader.id);
    if (others.length === 0) return;
    const target = this.#random.pick(others);
    this.#record(`transfer: asking leader ${leader.id} to hand over to ${target}`);
    leader.input({ kind: 'transfer', targetId: target });
  }

  #onHealPartition(partition: number): void {
    if (partition !== this.#partition || !this.#network.partitioned()) return;
    this.#network.heal();
    this.#record(`partition #${partition} healed`);
  }

  /** A snapshot is about to be persisted at `member`: maybe crash it before its fsync. */
  #maybeCrashSyncingSnapshot(member: SimMember): void {
    if (!this.#faultsOn || !this.#random.chance(this.#options.snapshots.crashWhileSyncingProbability)) return;
    // Same virtual time, queued before the fsync: the crash comes first.
    this.#queue.push(this.#now, { kind: 'crash', member, incarnation: member.incarnation });
  }

  #onSnapshotCrash(member: SimMember, incarnation: number): void {
    const down = this.#members.filter((other) => !other.up).length;
    if (!this.#faultsOn || member.incarnation !== incarnation || !member.up || down >= this.#options.faults.crashedMembersMax) return;
    this.#record(`crash ${member.id} while its snapshot is unsynced`);
    this.#crash(member);
  }

  #crash(member: SimMember): void {
    const unsynced = member.storage.unsyncedRecords;
    const kept = unsynced > 0 && this.#random.chance(this.#options.faults.tornWriteProbability) ? this.#random.between(0, unsynced) : 0;
    const snapshotsLost = member.storage.unsyncedSnapshotsAfter(kept);
    member.crash(kept);
    this.#crashes += 1;
    this.#snapshotsLost += snapshotsLost;
    this.#record(`crash ${member.id}: kept ${kept} of ${unsynced} unsynced records (${snapshotsLost} snapshots lost); durable last=${member.storage.durableLastIndex()}`
      + ` snapshot=${member.storage.durableSnapshotIndex()}`);
    const faults = this.#options.faults;
    this.#queue.push(this.#now + this.#random.between(faults.downMinMs, faults.downMaxMs), { kind: 'restart', member });
  }

  #startMember(member: SimMember): void {
    this.#checker.onRestart(member.id, member.storage.durableSnapshot());
    member.start();
    const hard = member.storage.durableHardState();
    this.#record(`start ${member.id}: term=${hard.term} vote=${hard.vote ?? '-'} commit=${hard.commit} last=${member.storage.durableLastIndex()}`);
    this.#queue.push(this.#now + this.#random.between(1, this.#options.tickMs), { kind: 'tick', member, incarnation: member.incarnation });
  }

  #memberEnvironment(): MemberEnvironment {
    return {
      send: (packet) => this.#send(packet),
      scheduleFsync: (member) => {
        const { fsyncMinMs, fsyncMaxMs } = this.#options.faults;
        this.#queue.push(this.#now + this.#random.between(fsyncMinMs, fsyncMaxMs), { kind: 'fsync', member, incarnation: member.incarnation });
      },
      trace: (text) => this.#record(text),
      coreRng: () => this.#random.fork(),
      onWritten: (member: SimMember, ready: Ready) => {
        this.#checker.onWritten(member.id, ready.entries, (index) => member.storage.writtenTermAt(index));
        if (ready.snapshot !== undefined) this.#maybeCrashSyncingSnapshot(member);
      },
      onApplied: (member: SimMember, entry: Entry) => this.#checker.onApplied(member.id, entry),
      onSnapshot: (member, snapshot, source) => {
        if (source === 'taken') {
          this.#snapshotsTaken += 1;
          this.#maybeCrashSyncingSnapshot(member);
        }
        if (source === 'installed') this.#snapshotsInstalled += 1;
        this.#checker.onSnapshot(member.id, snapshot, source);
      },
      onMembershipProposed: (member, change, result) => {
        if (result.accepted) this.#membershipChanges += 1;
        else this.#membershipRefused += 1;
        this.#record(result.accepted
          ? `${member.id} appended ${change.type} ${change.id} at ${result.index}/${result.term}: voters ${result.configuration.voters.join(',')} learners ${result.configuration.learners.join(',') || '-'}`
          : `${member.id} refused ${change.type} ${change.id}: ${result.reason} (${result.detail})`);
      },
      onTransferRequested: (member, targetId, result) => {
        if (result.accepted) this.#transfers += 1;
        this.#record(result.accepted ? `${member.id} transferring leadership to ${targetId}` : `${member.id} refused transfer to ${targetId}: ${result.detail}`);
      },
      onLeader: () => undefined,
    };
  }

  #clientEnvironment(): ConstructorParameters<typeof SimClient>[5] {
    return {
      now: () => this.#now,
      send: (packet) => this.#send(packet),
      schedule: (client, delayMs, token) => this.#queue.push(this.#now + delayMs, { kind: 'clientWake', client, token }),
      trace: (text) => this.#record(text),
    };
  }

  /** The simulator's own invariant: a member's core log is exactly its written storage. */
  #checkHarness(): void {
    for (const member of this.#members) {
      const status = member.status();
      if (status === undefined) continue;
      if (status.lastIndex !== member.storage.writtenLastIndex()) {
        throw new SafetyViolation('simulator', `${member.id} core last index ${status.lastIndex} but storage holds ${member.storage.writtenLastIndex()}`);
      }
    }
  }

  /** The leader and its configuration, when a leader has committed all of its log. */
  #settledLeader(): { readonly status: CoreStatus; readonly configuration: Configuration } | undefined {
    const leader = this.#leader();
    const status = leader?.status();
    if (leader === undefined || status === undefined || status.commitIndex !== status.lastIndex) return undefined;
    return { status, configuration: leader.configuration()! };
  }

  /** Liveness of the service: every client operation answered, a leader that committed all
   *  of its log, and a majority of the voters of its configuration applied that. */
  #serviceLive(): boolean {
    if (!this.#clients.every((client) => client.idle)) return false;
    const leader = this.#settledLeader();
    if (leader === undefined) return false;
    const voters = leader.configuration.voters;
    const caughtUp = voters.filter((id) => this.#memberById.get(id)!.status()?.appliedIndex === leader.status.commitIndex).length;
    return caughtUp * 2 > voters.length;
  }

  /** Convergence: every member of the leader's configuration (voters and learners) is up,
   *  quiet, and has applied the leader's whole log. Members outside it are not waited for. */
  #converged(): boolean {
    if (!this.#serviceLive()) return false;
    const leader = this.#settledLeader()!;
    const { voters, learners } = leader.configuration;
    const members = [...voters, ...learners].map((id) => this.#memberById.get(id)!);
    if (members.some((member) => member.syncing || member.hasReady())) return false;
    const commit = leader.status.commitIndex;
    return members.every((member) => {
      const status = member.status();
      return status !== undefined && status.commitIndex === commit && status.appliedIndex === commit;
    });
  }

  #convergenceReport(): string {
    const members = this.#members.map((member) => {
      const status = member.status();
      if (status === undefined) return `${member.id}:down`;
      return `${member.id}:${status.role[0]}${status.term} commit=${status.commitIndex} applied=${status.appliedIndex} last=${status.lastIndex}`;
    });
    const busy = this.#clients.filter((client) => !client.idle).map((client) => client.id);
    const configuration = this.#leader()?.configuration();
    const voters = configuration === undefined ? 'no leader' : `voters ${configuration.voters.join(',')} learners ${configuration.learners.join(',') || '-'}`;
    return `${members.join(' ')}; ${voters}; clients busy: ${busy.length === 0 ? 'none' : busy.join(',')}`;
  }

  #record(text: string): void {
    this.#trace.record(this.#now, text);
  }

  #report(error: unknown, knownIssue: KnownCoreIssue | undefined): SimViolationReport {
    const kind: ViolationKind = error instanceof SafetyViolation ? error.kind : error instanceof AssertionError ? 'assertion' : 'simulator';
    const message = error instanceof Error ? error.message : String(error);
    this.#record(`VIOLATION ${message}`);
    const issue = knownIssue ?? (kind === 'assertion' ? knownAssertion(message) : undefined);
    const detail = [...this.#detail];
    if (!(error instanceof SafetyViolation) && error instanceof Error && error.stack !== undefined) detail.push(...error.stack.split('\n').slice(0, 8));
    if (issue !== undefined) detail.unshift(`known core issue ${issue} (described in test/sim/known-issues.ts)`);
    return { kind, message, knownIssue: issue, step: this.#step, timeMs: this.#now, trace: this.#trace.tail(), detail };
  }

  #stats(): SimStats {
    return {
      steps: this.#step, timeMs: this.#now, leaderTerms: this.#checker.leaderTerms(), committedIndex: this.#checker.committedIndex,
      crashes: this.#crashes, partitions: this.#partitions, operations: this.#history.size,
      completed: this.#clients.reduce((sum, client) => sum + client.completed, 0), pending: this.#history.pendingCount(),
      membershipChanges: this.#membershipChanges, membershipRefused: this.#membershipRefused, transfers: this.#transfers,
      snapshotsTaken: this.#snapshotsTaken, snapshotsInstalled: this.#snapshotsInstalled,
      snapshotsOnDemand: this.#members.reduce((sum, member) => sum + member.snapshotsOnDemand, 0), snapshotsLost: this.#snapshotsLost, snapshotsChecked: this.#checker.snapshotsChecked,
      finalVoters: this.#leader()?.configuration()?.voters ?? [],
    };
  }
}
