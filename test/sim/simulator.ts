// Owns: one deterministic simulation run (VOPR style): the cluster of members, clients, network
// and storage faults on a virtual-time agenda driven by one seeded rng, with the safety checks
// after every step, then the liveness phase (heal everything, finish every client operation,
// converge) and the linearizability check of the client history. Returns a SimResult; a
// violation carries the seed, the knobs and the trace tail. Never reads a clock or Math.random.
import type { Entry, Message, Ready } from '../../raft/core/index.ts';
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
  | { readonly kind: 'deliver'; readonly packet: Packet }
  | { readonly kind: 'clientWake'; readonly client: SimClient; readonly token: number }
  | { readonly kind: 'faultCheck' }
  | { readonly kind: 'healPartition'; readonly partition: number };

/** Test hooks: a way to break the protocol on the wire (to prove the checkers catch it). */
export interface SimHooks {
  /** Called for each Raft message a member sends; returns what goes on the wire instead. */
  readonly corruptRaftMessage?: (message: Message, random: SimRandom) => readonly Message[];
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
  #detail: string[] = [];

  constructor(options: SimOptions, random: SimRandom, hooks: SimHooks) {
    this.#options = options;
    this.#random = random;
    this.#hooks = hooks;
    this.#trace = new Trace(hooks.traceSink);
    const ids = Array.from({ length: options.memberCount }, (_, position) => String.fromCharCode(97 + position));
    this.#network = new PacketSimulator(random, options.network, ids);
    const timers = { electionTicks: options.electionTicks, heartbeatTicks: options.heartbeatTicks };
    this.#members = ids.map((id) => new SimMember(id, ids, timers, this.#memberEnvironment()));
    this.#views = this.#members.map((member) => ({ id: member.id, status: () => member.status(), entryAt: (index: number) => member.entryAt(index) }));
    for (const member of this.#members) this.#memberById.set(member.id, member);
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
      case 'deliver': this.#deliver(event.packet); return;
      case 'clientWake': event.client.wake(event.token); return;
      case 'faultCheck': this.#onFaultCheck(); return;
      case 'healPartition': this.#onHealPartition(event.partition); return;
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

  #onHealPartition(partition: number): void {
    if (partition !== this.#partition || !this.#network.partitioned()) return;
    this.#network.heal();
    this.#record(`partition #${partition} healed`);
  }

  #crash(member: SimMember): void {
    const unsynced = member.storage.unsyncedRecords;
    const kept = unsynced > 0 && this.#random.chance(this.#options.faults.tornWriteProbability) ? this.#random.between(0, unsynced) : 0;
    member.crash(kept);
    this.#crashes += 1;
    this.#record(`crash ${member.id}: kept ${kept} of ${unsynced} unsynced records; durable last=${member.storage.durableLastIndex()}`);
    const faults = this.#options.faults;
    this.#queue.push(this.#now + this.#random.between(faults.downMinMs, faults.downMaxMs), { kind: 'restart', member });
  }

  #startMember(member: SimMember): void {
    this.#checker.onRestart(member.id);
    member.start();
    const hard = member.storage.durableHardState();
    this.#record(`start ${member.id}: term=${hard.term} vote=${hard.vote ?? '-'} commit=${hard.commit} last=${member.storage.durableLastIndex()}`);
    this.#queue.push(this.#now + this.#random.between(1, this.#options.tickMs), { kind: 'tick', member, incarnation: member.incarnation });
  }

  #memberEnvironment(): ConstructorParameters<typeof SimMember>[3] {
    return {
      send: (packet) => this.#send(packet),
      scheduleFsync: (member) => {
        const { fsyncMinMs, fsyncMaxMs } = this.#options.faults;
        this.#queue.push(this.#now + this.#random.between(fsyncMinMs, fsyncMaxMs), { kind: 'fsync', member, incarnation: member.incarnation });
      },
      trace: (text) => this.#record(text),
      coreRng: () => this.#random.fork(),
      onWritten: (member: SimMember, ready: Ready) => {
        this.#checker.onWritten(member.id, ready.entries, (index) => member.storage.writtenEntryAt(index)?.term);
      },
      onApplied: (member: SimMember, entry: Entry) => this.#checker.onApplied(member.id, entry),
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

  /** Liveness of the service: every client operation answered, a leader that committed all
   *  of its log, and a majority of members applied that. */
  #serviceLive(): boolean {
    if (!this.#clients.every((client) => client.idle)) return false;
    const statuses = this.#members.map((member) => member.status());
    const leader = statuses.find((status) => status?.role === 'leader');
    if (leader === undefined || leader.commitIndex !== leader.lastIndex) return false;
    const caughtUp = statuses.filter((status) => status !== undefined && status.appliedIndex === leader.commitIndex).length;
    return caughtUp > this.#members.length / 2;
  }

  /** Convergence: every member is up, quiet, and has applied the leader's whole log. */
  #converged(): boolean {
    if (!this.#serviceLive() || this.#members.some((member) => member.syncing || member.hasReady())) return false;
    const statuses = this.#members.map((member) => member.status());
    const leader = statuses.find((status) => status?.role === 'leader')!;
    return statuses.every((status) => status !== undefined && status.commitIndex === leader.commitIndex && status.appliedIndex === leader.commitIndex);
  }

  #convergenceReport(): string {
    const members = this.#members.map((member) => {
      const status = member.status();
      if (status === undefined) return `${member.id}:down`;
      return `${member.id}:${status.role[0]}${status.term} commit=${status.commitIndex} applied=${status.appliedIndex} last=${status.lastIndex}`;
    });
    const busy = this.#clients.filter((client) => !client.idle).map((client) => client.id);
    return `${members.join(' ')}; clients busy: ${busy.length === 0 ? 'none' : busy.join(',')}`;
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
    };
  }
}
