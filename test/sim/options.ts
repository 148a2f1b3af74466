// Owns: the simulator's knobs: what each one means, the range each seed samples it from, the
// overrides the command line may force, and their validation. Every knob is drawn from the
// seed's rng before the run starts and printed by formatOptions(), so a report names them all.
// Virtual time is in milliseconds; the cluster's clocks are ticks of `tickMs`.
import { assert } from '../../raft/stdx/index.ts';
import type { SimRandom } from './random.ts';

export interface NetworkKnobs {
  readonly lossProbability: number;
  readonly duplicateProbability: number;
  /** One-way delay range of a packet; independent delays reorder packets. */
  readonly delayMinMs: number;
  readonly delayMaxMs: number;
}

export interface FaultKnobs {
  /** How often the fault scheduler considers starting a fault. */
  readonly faultIntervalMs: number;
  readonly partitionProbability: number;
  readonly partitionMinMs: number;
  readonly partitionMaxMs: number;
  readonly crashProbability: number;
  readonly downMinMs: number;
  readonly downMaxMs: number;
  /** Members down at once, at most. */
  readonly crashedMembersMax: number;
  /** Chance that a crash keeps a prefix of the unsynced records (a torn write) rather than none. */
  readonly tornWriteProbability: number;
  readonly fsyncMinMs: number;
  readonly fsyncMaxMs: number;
}

export interface ClientKnobs {
  readonly clientCount: number;
  readonly keyCount: number;
  readonly readProbability: number;
  readonly appendProbability: number;
  /** A request unanswered for this long is sent again (to another member). */
  readonly requestTimeoutMs: number;
  /** After this many timed-out attempts (fault phase only) a client abandons an op: it stays pending. */
  readonly timeoutsMax: number;
  /** Pause between a response and the client's next op. */
  readonly thinkMaxMs: number;
}

/** Log compaction on every member, and InstallSnapshot's chunking. */
export interface SnapshotKnobs {
  /**
   * A member snapshots its KV state and compacts after this many entries applied since its last
   * snapshot; 0 turns compaction off for the seed (the log then only grows, as before snapshots
   * existed). Small values (a handful of entries) make leaders compact past lagging followers.
   */
  readonly everyEntries: number;
  /** Entries the core keeps behind a snapshot (compact()'s retainEntries; the core's default is 1024). */
  readonly retainEntries: number;
  /** Bytes per InstallSnapshot chunk: small, so snapshots of a few hundred bytes travel in several chunks. */
  readonly chunkBytes: number;
  /**
   * Chance that a member is crashed while a snapshot it took or received is written but not yet
   * fsynced (a torn write may still keep it): crashes at random times rarely hit that window.
   */
  readonly crashWhileSyncingProbability: number;
}

/** Membership changes and leadership transfers, asked of the leader at seeded times. */
export interface MembershipKnobs {
  /** Members started outside the configuration, available to be added (ids after the voters'). */
  readonly spareMembers: number;
  /** How often the cluster asks the leader for one membership change; 0 = never for this seed. */
  readonly changeIntervalMs: number;
  /** Chance that a removal, when one is chosen, removes the leader itself. */
  readonly removeLeaderProbability: number;
  /** Voters never drop below this many by removal. */
  readonly votersMin: number;
  /** How often the cluster asks the leader to transfer leadership; 0 = never for this seed. */
  readonly transferIntervalMs: number;
}

export interface SimOptions {
  readonly seed: number;
  readonly memberCount: number;
  /** Events processed in the fault phase (one event is one step; checks run after each). */
  readonly steps: number;
  readonly tickMs: number;
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly network: NetworkKnobs;
  readonly faults: FaultKnobs;
  readonly clients: ClientKnobs;
  readonly snapshots: SnapshotKnobs;
  readonly membership: MembershipKnobs;
  /** Virtual time the liveness phase may take, after healing, before it is a violation. */
  readonly livenessDeadlineMs: number;
}

export interface OptionOverrides {
  readonly memberCount?: number | undefined;
  readonly steps?: number | undefined;
}

/**
 * Fault-phase steps per seed by default. About 10,000 events is some seconds of virtual time for
 * 3-5 members: a dozen elections, several crashes and partitions, and a hundred or so client
 * operations, while keeping a seed near 50 ms so CI affords 500 of them.
 */
export const defaultSteps = 10_000;

/** Members the simulator supports: 3 and 5 are the deployments kstore documents. */
export const memberCountsSupported: readonly number[] = [3, 5];

/** Samples every knob from `random` (the seed's rng), then applies `overrides`. */
export function sampleOptions(seed: number, random: SimRandom, overrides: OptionOverrides = {}): SimOptions {
  const memberCount = random.pick(memberCountsSupported);
  const electionTicks = random.between(6, 14);
  const tickMs = 10;
  const options: SimOptions = {
    seed,
    memberCount: overrides.memberCount ?? memberCount,
    steps: overrides.steps ?? defaultSteps,
    tickMs,
    electionTicks,
    heartbeatTicks: random.between(1, Math.floor(electionTicks / 3)),
    network: sampleNetwork(random),
    faults: sampleFaults(random, overrides.memberCount ?? memberCount),
    clients: sampleClients(random, electionTicks * tickMs),
    snapshots: sampleSnapshots(random),
    membership: sampleMembership(random, electionTicks * tickMs),
    // Fifty election timeouts: several rounds of elections and catch-up after the last fault.
    livenessDeadlineMs: 50 * 2 * electionTicks * tickMs,
  };
  validateOptions(options);
  return options;
}

function sampleNetwork(random: SimRandom): NetworkKnobs {
  const delayMinMs = random.between(1, 5);
  return {
    lossProbability: random.pick([0, 0.01, 0.05, 0.1, 0.2]),
    duplicateProbability: random.pick([0, 0.01, 0.05, 0.1]),
    delayMinMs,
    delayMaxMs: delayMinMs + random.between(0, 40),
  };
}

function sampleFaults(random: SimRandom, memberCount: number): FaultKnobs {
  const fsyncMinMs = random.between(0, 3);
  return {
    faultIntervalMs: random.between(20, 100),
    partitionProbability: random.pick([0, 0.05, 0.1, 0.2]),
    partitionMinMs: 50,
    partitionMaxMs: random.between(100, 1_000),
    crashProbability: random.pick([0, 0.02, 0.05, 0.1]),
    downMinMs: 10,
    downMaxMs: random.between(50, 1_000),
    crashedMembersMax: random.between(1, memberCount - 1),
    tornWriteProbability: random.pick([0, 0.5]),
    fsyncMinMs,
    fsyncMaxMs: fsyncMinMs + random.between(0, 10),
  };
}

function sampleClients(random: SimRandom, electionTimeoutMs: number): ClientKnobs {
  return {
    clientCount: random.between(1, 5),
    keyCount: random.between(1, 4),
    readProbability: random.pick([0.2, 0.4, 0.6]),
    appendProbability: random.pick([0.3, 0.6]),
    requestTimeoutMs: random.between(2, 4) * electionTimeoutMs,
    timeoutsMax: random.between(1, 4),
    thinkMaxMs: random.between(0, 50),
  };
}

function sampleSnapshots(random: SimRandom): SnapshotKnobs {
  return {
    // One seed in six without compaction keeps the plain-log path covered.
    everyEntries: random.pick([0, 3, 5, 8, 13, 25]),
    retainEntries: random.pick([0, 0, 1, 4, 16]),
    chunkBytes: random.pick([16, 64, 256, 4096]),
    crashWhileSyncingProbability: random.pick([0, 0.05, 0.2]),
  };
}

function sampleMembership(random: SimRandom, electionTimeoutMs: number): MembershipKnobs {
  return {
    spareMembers: random.pick([0, 1, 1, 2]),
    // A change every few election timeouts: it has time to commit (or be refused) in between.
    changeIntervalMs: random.pick([0, 3, 6, 12]) * electionTimeoutMs,
    removeLeaderProbability: random.pick([0.1, 0.3, 0.6]),
    votersMin: random.pick([2, 3]),
    transferIntervalMs: random.pick([0, 5, 10, 20]) * electionTimeoutMs,
  };
}

export function validateOptions(options: SimOptions): void {
  assert(Number.isSafeInteger(options.seed), 'seed must be a safe integer');
  assert(memberCountsSupported.includes(options.memberCount), `members must be one of ${memberCountsSupported.join(', ')}`);
  assert(Number.isSafeInteger(options.steps) && options.steps >= 0, 'steps must be a non-negative integer');
  assert(options.heartbeatTicks >= 1 && options.heartbeatTicks < options.electionTicks, 'heartbeats must be more frequent than elections');
  const { network, faults, clients } = options;
  for (const probability of [network.lossProbability, network.duplicateProbability, faults.partitionProbability, faults.crashProbability]) {
    assert(probability >= 0 && probability < 1, `probability ${probability} outside [0, 1)`);
  }
  assert(network.delayMinMs >= 1, 'a packet takes at least 1 ms (no zero-time ping-pong)');
  assert(network.delayMaxMs >= network.delayMinMs, 'delay range is empty');
  assert(faults.fsyncMaxMs >= faults.fsyncMinMs && faults.fsyncMinMs >= 0, 'fsync range is invalid');
  assert(faults.crashedMembersMax >= 1 && faults.crashedMembersMax < options.memberCount, 'at least one member stays up');
  assert(clients.clientCount >= 1 && clients.keyCount >= 1, 'at least one client and one key');
  assert(clients.requestTimeoutMs > network.delayMaxMs * 2, 'request timeout shorter than a round trip');
  const { snapshots, membership } = options;
  assert(snapshots.crashWhileSyncingProbability >= 0 && snapshots.crashWhileSyncingProbability < 1, 'crash-while-syncing is a probability');
  assert(snapshots.everyEntries >= 0 && snapshots.retainEntries >= 0 && snapshots.chunkBytes >= 1, 'snapshot knobs are non-negative, chunks carry bytes');
  assert(membership.spareMembers >= 0 && options.memberCount + membership.spareMembers <= 26, 'member ids are single letters');
  assert(membership.votersMin >= 1, 'a configuration keeps a voter');
  assert(membership.changeIntervalMs >= 0 && membership.transferIntervalMs >= 0, 'intervals are non-negative');
}

export function formatOptions(options: SimOptions): string {
  const { network: n, faults: f, clients: c, snapshots: s, membership: m } = options;
  return [
    `seed=${options.seed} members=${options.memberCount} steps=${options.steps} tick=${options.tickMs}ms`
      + ` electionTicks=${options.electionTicks} heartbeatTicks=${options.heartbeatTicks} livenessDeadline=${options.livenessDeadlineMs}ms`,
    `network loss=${n.lossProbability} dup=${n.duplicateProbability} delay=${n.delayMinMs}-${n.delayMaxMs}ms`,
    `faults every=${f.faultIntervalMs}ms partition=${f.partitionProbability} for ${f.partitionMinMs}-${f.partitionMaxMs}ms`
      + ` crash=${f.crashProbability} down=${f.downMinMs}-${f.downMaxMs}ms crashedMax=${f.crashedMembersMax}`
      + ` torn=${f.tornWriteProbability} fsync=${f.fsyncMinMs}-${f.fsyncMaxMs}ms`,
    `clients count=${c.clientCount} keys=${c.keyCount} read=${c.readProbability} append=${c.appendProbability}`
      + ` timeout=${c.requestTimeoutMs}ms timeouts=${c.timeoutsMax} think=0-${c.thinkMaxMs}ms`,
    `snapshots every=${s.everyEntries === 0 ? 'off' : `${s.everyEntries}entries`} retain=${s.retainEntries} chunk=${s.chunkBytes}B`
      + ` crashWhileSyncing=${s.crashWhileSyncingProbability}`,
    `membership spares=${m.spareMembers} change every=${m.changeIntervalMs === 0 ? 'off' : `${m.changeIntervalMs}ms`}`
      + ` removeLeader=${m.removeLeaderProbability} votersMin=${m.votersMin}`
      + ` transfer every=${m.transferIntervalMs === 0 ? 'off' : `${m.transferIntervalMs}ms`}`,
  ].join('\n');
}
