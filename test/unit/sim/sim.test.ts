// The deterministic simulator: CI's seed sweep (no violations at all),
// byte-identical replay, and proof that the checkers catch a broken protocol: the core is
// broken on the wire (forged acknowledgements, forged votes), never by editing raft/core.
import { describe, expect, it } from 'vitest';
import { RawNode } from '../../../raft/core/index.ts';
import type { AppendAccepted, Message, RequestVote } from '../../../raft/core/index.ts';
import { createRng } from '../../../raft/stdx/index.ts';
import { knownAssertion } from '../../sim/known-issues.ts';
import { runSimulation } from '../../sim/simulator.ts';
import type { SimHooks, SimResult } from '../../sim/simulator.ts';

/**
 * Seeds CI runs: 500, as issue 3 asks. At the default 10,000 fault-phase steps a seed takes
 * about 35 ms on the 2-core CI machine (with snapshots, membership changes and transfers), so
 * the sweep takes under 20 s, well inside the one-minute budget.
 */
const ciSeeds = 500;
/** Seeds per test case: small enough that one case reports in a few seconds. */
const seedsPerCase = 100;

function runSeeds(first: number, count: number, hooks: SimHooks = {}): SimResult[] {
  return Array.from({ length: count }, (_, offset) => runSimulation(first + offset, {}, hooks));
}

function describeFailure(result: SimResult): string {
  const violation = result.violation!;
  return [`seed ${result.seed}: ${violation.message}`, ...violation.detail, ...violation.trace.slice(-40)].join('\n');
}

describe(`simulator - seed sweep (R=3 and R=5, ${ciSeeds} seeds)`, () => {
  for (let first = 1; first <= ciSeeds; first += seedsPerCase) {
    it(`seeds ${first}-${first + seedsPerCase - 1}: no safety, liveness or linearizability violation`, () => {
      const results = runSeeds(first, seedsPerCase);
      const violations = results.filter((result) => result.violation !== undefined);
      expect(violations.map(describeFailure)).toEqual([]);
      expect(results.filter((result) => result.linearizability === 'unknown').map((result) => result.seed)).toEqual([]);
    }, 120_000);
  }
});

describe('simulator - determinism', () => {
  it('replays a seed with a byte-identical trace', () => {
    const first = runSimulation(42);
    const second = runSimulation(42);
    expect(first.traceLines).toBeGreaterThan(1_000);
    expect(second.traceHash).toBe(first.traceHash);
    expect(second.traceLines).toBe(first.traceLines);
    expect(runSimulation(43).traceHash).not.toBe(first.traceHash);
  });

  it('honours --nodes and --steps overrides while keeping the other knobs of the seed', () => {
    const sampled = runSimulation(5, { steps: 500 });
    const forced = runSimulation(5, { memberCount: 5, steps: 500 });
    expect(forced.options.memberCount).toBe(5);
    expect(forced.options.steps).toBe(500);
    expect(forced.options.network).toEqual(sampled.options.network);
  });
});

describe('simulator - defects it found stay fixed', () => {
  it('wal-hard-state-first: a torn write keeping a commit index without the batch it covers is caught (seed 186)', () => {
    // raft/storage/wal.ts wrote a batch's hard state before its entries (and before a snapshot
    // marker); a crash keeping only the hard state made the restarted member apply a stale
    // suffix as committed. The WAL now writes the hard state last; FaultyStorage models both.
    // The seed is one whose schedule reaches that crash (748 did until members' first election
    // timeout ran short at start-up; 186, 717, 1339 and 2686 of the first 4,000 do since).
    const broken = runSimulation(186, {}, { hardStateFirst: true });
    expect(broken.violation?.kind).toBe('state-machine-safety');
    expect(runSimulation(186).violation).toBeUndefined();
  });

  it('precandidate-vote-assertion: a pre-candidate grants a real vote of its own term without crashing (as etcd)', () => {
    const restored = { hardState: { term: 5, vote: undefined, commit: 0 }, entries: [] };
    const node = new RawNode({ id: 'a', voters: ['a', 'b', 'c'], electionTicks: 5, heartbeatTicks: 1, rng: createRng(1), restored, appliedIndex: 0 });
    for (let tick = 0; tick < 10 && node.status().role === 'follower'; tick += 1) node.tick();
    expect(node.status()).toMatchObject({ role: 'candidate', term: 5 }); // PreVote phase: term unchanged
    const vote: RequestVote = { type: 'requestVote', from: 'c', to: 'a', term: 5, lastLogIndex: 0, lastLogTerm: 0 };
    const error = captureError(() => node.step(vote));
    expect(error === undefined ? undefined : knownAssertion(String(error))).toBeUndefined();
    expect(error).toBeUndefined();
  });
});

function captureError(action: () => void): unknown {
  try {
    action();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** A follower that acknowledges appends it never stored: the leader commits without a quorum. */
function forgeAcknowledgements(message: Message): readonly Message[] {
  if (message.type !== 'appendEntries' || message.entries.length === 0) return [message];
  const forged: AppendAccepted = {
    type: 'appendResponse', from: message.to, to: message.from, term: message.term, success: true,
    matchIndex: message.prevLogIndex + message.entries.length, round: message.round,
  };
  return [message, forged];
}

/** Voters that grant every vote: one vote per term no longer holds. */
function forgeVotes(message: Message): readonly Message[] {
  if (message.type !== 'voteResponse' || message.granted) return [message];
  return [{ ...message, granted: true }];
}

/** A leader whose snapshot bytes change on the wire: followers install a state nobody applied. */
function corruptSnapshotChunks(message: Message): readonly Message[] {
  if (message.type !== 'installSnapshot') return [message];
  const data = message.data.map((byte) => (byte === 0x3b ? 0x3a : byte)); // ';' → ':' keeps the JSON valid
  return [{ ...message, data }];
}

describe('simulator - what the fault phase exercises', () => {
  it('snapshots installed, taken on demand and lost in crashes, membership changes and transfers happen in most seeds', () => {
    const results = runSeeds(1, 60);
    expect(results.filter((result) => result.violation !== undefined).map(describeFailure)).toEqual([]);
    const seedsWith = (count: (result: SimResult) => number): number => results.filter((result) => count(result) > 0).length;
    expect(seedsWith((result) => result.stats.snapshotsInstalled)).toBeGreaterThan(20);
    expect(seedsWith((result) => result.stats.snapshotsLost)).toBeGreaterThan(10);
    // Members forget applied entries, so leaders take snapshots on demand for peers behind them.
    expect(seedsWith((result) => result.stats.snapshotsOnDemand)).toBeGreaterThan(20);
    expect(seedsWith((result) => result.stats.snapshotsChecked)).toBeGreaterThan(40);
    expect(seedsWith((result) => result.stats.membershipChanges)).toBeGreaterThan(20);
    expect(seedsWith((result) => result.stats.transfers)).toBeGreaterThan(20);
    // The configuration really moved: some runs end with voters other than the bootstrap a, b, c(, d, e).
    const bootstrap = (result: SimResult): string[] => ['a', 'b', 'c', 'd', 'e'].slice(0, result.options.memberCount);
    expect(results.filter((result) => result.stats.finalVoters.join() !== bootstrap(result).join()).length).toBeGreaterThan(10);
  }, 60_000);
});

describe('simulator - a broken protocol is caught', () => {
  it('snapshot bytes changed on the wire are caught when a follower installs them', () => {
    const results = runSeeds(1, 30, { corruptRaftMessage: corruptSnapshotChunks });
    const caught = results.filter((result) => result.violation?.kind === 'state-machine-safety' && /installed a snapshot/.test(result.violation.message));
    expect(caught.length).toBeGreaterThan(0);
  }, 60_000);

  it('commits without a quorum (forged append acknowledgements) violate safety', () => {
    const results = runSeeds(1, 40, { corruptRaftMessage: forgeAcknowledgements });
    const kinds = new Set(results.flatMap((result) => (result.violation === undefined ? [] : [result.violation.kind])));
    // The commit-quorum check sees the first commit that no durable majority backs, before it
    // turns into a lost entry (leader completeness, state machine safety or linearizability).
    expect([...kinds]).toContain('commit-quorum');
  }, 60_000);

  it('granting every vote (no one-vote-per-term check) violates election safety', () => {
    const results = runSeeds(1, 20, { corruptRaftMessage: forgeVotes });
    expect(results.filter((result) => result.violation?.kind === 'election-safety').length).toBeGreaterThan(0);
  }, 60_000);
});
