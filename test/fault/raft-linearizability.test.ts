// Proves: kstore's Raft log, run as three real `kstore store` processes over a real 3-node
// nats-server cluster, stays linearizable and loses no acknowledged write under real faults.
//
// Each test starts its own cluster (free ports, temp dirs), creates the registers, and runs a
// concurrent key-value workload (workload.ts; how it maps onto ConfigMaps and why its reads are
// linearizable: configmap-register.ts) while ONE fault is injected: kill -9 of the leader and
// restart; SIGSTOP of the leader, then SIGCONT; kill -9 of the nats-server the leader is
// connected to, and restart. No phase of a run is a wall-clock slot: the fault is injected once
// the workload has had operations acknowledged, healed once a new leader is elected and
// operations were acknowledged without the faulted member, and the run ends once the healed
// member is observed caught up (following the leader, everything committed at the heal applied)
// and operations were acknowledged after that. Each condition is a waitFor with a generous
// deadline whose failure names what was not reached; a loaded machine makes a run longer, never
// empty around the fault.
//
// After the run: every member converges to one applied index; then all three members are
// SIGKILLed and restarted on the same data directories, each register is read once more
// (appended to the history), and every acknowledged ledger create is verified present with its
// resourceVersion. The whole history is then checked with the Porcupine-style checker
// (test/sim/checkers/linearizability.ts, put/get register model), plus the revision checks of
// history-checks.ts. Children are killed in afterEach and afterAll, whatever happened.
import { afterAll, afterEach, describe, expect, it, onTestFailed } from 'vitest';
import type { MemberStatus } from '../../raft/index.ts';
import { checkKvLinearizability } from '../sim/checkers/linearizability.ts';
import { waitFor } from '../support/wait-for.ts';
import {
  createNamespaceCommand, createRegisterCommand, ledgerProblem, readCommand, readResult, verifyLedgerCommand,
} from './configmap-register.ts';
import { checkReadRevisions, checkWriteOrder, historySummary } from './history-checks.ts';
import { StoreCluster } from './store-cluster.ts';
import { HistoryRecorder, now, runWorkload } from './workload.ts';
import type { WorkloadOptions } from './workload.ts';

/**
 * The workload: 8 sequential clients over 4 registers, 45% reads, 5% ledger creates. 8 clients
 * keep 8 operations in flight (enough concurrency to interleave around every fault) while the
 * checker's per-key search stays fast; 4 registers make each key's history long and contended.
 */
const workload: WorkloadOptions = {
  clients: 8, keys: ['r0', 'r1', 'r2', 'r3'], readFraction: 0.45, ledgerFraction: 0.05,
  // One attempt waits 500 ms and a call 1.5 s in all, less than the election after a fault
  // (1-2 s): operations caught in a fault are retried with the same session and sequence
  // (at-most-once apply is exercised) and then meet their deadline and are recorded as pending
  // (possibly applied later: an attempt may still be in flight), which the checker must place
  // or drop. 500 ms is still ~50x a healthy commit on this machine.
  attemptTimeoutMs: 500, deadlineMs: 1_500,
};
/**
 * Acknowledged operations each phase must contain: before the fault, under it (invoked after a
 * new leader was seen), and after the healed member caught up. A quiet 2-core machine acknowledges
 * 250-500 operations a second, so a phase takes 1-2 s there.
 */
const phaseOperations = 400;
/** Each phase's deadline: 30 s is 10-20x what a phase needs on a quiet machine. */
const phaseTimeoutMs = 30_000;
/** The whole history must hold more than this many acknowledged writes and as many reads. */
const minimumAcknowledged = 100;
/** Every member must apply the same index within this after the run (catch-up of the faulted member). */
const convergeTimeoutMs = 30_000;
/** Ledger verifications in flight after the restart. */
const verifyConcurrency = 16;
const configuration = `3 stores (default 100 ms tick), 3 nats-servers, ${workload.clients} clients, ${workload.keys.length} registers, `
  + `${phaseOperations} operations before, under and after each fault`;

const clusters = new Set<StoreCluster>();

async function closeClusters(): Promise<void> {
  const open = [...clusters];
  clusters.clear();
  await Promise.all(open.map((cluster) => cluster.close()));
}

afterEach(closeClusters);
afterAll(closeClusters);

interface FaultReport {
  /** What happened, for the report line. */
  readonly description: string;
  /** The member the fault hit (killed, paused, or on the killed nats-server); it must catch up after healing. */
  readonly member: string;
  /** When the fault was healed (history time). */
  readonly healedAt: number;
}

/** Injects the fault, waits for the phase under it, heals it; runs while the workload runs. */
type Fault = (cluster: StoreCluster, recorder: HistoryRecorder) => Promise<FaultReport>;

/** Waits until `phaseOperations` operations invoked from `since` on were acknowledged; resolves with the time seen. */
function phase(cluster: StoreCluster, recorder: HistoryRecorder, since: number, what: string): Promise<number> {
  return recorder.acknowledged(since, phaseOperations, what, { timeoutMs: phaseTimeoutMs, diagnostics: () => cluster.diagnostics() });
}

async function startCluster(name: string, natsUrls: 'all' | 'pinned'): Promise<StoreCluster> {
  const cluster = await StoreCluster.start({ cluster: name, natsUrls });
  clusters.add(cluster);
  onTestFailed(() => {
    process.stderr.write(`${cluster.diagnostics()}\n${cluster.nats.servers.map((server) => `--- ${server.name} ---\n${server.output().slice(-2000)}`).join('\n')}\n`);
  });
  return cluster;
}

/** Creates the namespace and the registers (value ''), and puts each register in the finalizing state. */
async function createRegisters(cluster: StoreCluster): Promise<Map<string, number>> {
  await cluster.leader(3);
  expect((await cluster.admin.propose(createNamespaceCommand())).type).toBe('stored');
  const initialRevisions = new Map<string, number>();
  for (const key of workload.keys) {
    expect((await cluster.admin.propose(createRegisterCommand(key))).type).toBe('stored');
    const deleted = await cluster.admin.propose(readCommand(key));
    const state = readResult(key, deleted);
    expect(state.value).toBe('');
    initialRevisions.set(key, Number(state.resourceVersion));
  }
  return initialRevisions;
}

/** Every member reports the same applied index, at least `atLeast`. */
async function converged(cluster: StoreCluster, atLeast: number): Promise<number> {
  return waitFor(async () => {
    const answered = await cluster.admin.clusterStatus(300);
    if (answered.length !== cluster.members.length) return undefined;
    const applied = answered.map((status) => status.appliedIndex);
    return applied.every((index) => index === applied[0]) && (applied[0] ?? 0) >= atLeast ? applied[0] : undefined;
  }, { timeoutMs: convergeTimeoutMs, intervalMs: 100, description: `every member to apply the same index >= ${atLeast}`, diagnostics: () => cluster.diagnostics() });
}

/** The longest time without any acknowledged operation during the run (the fault's unavailability). */
function longestGapMs(returns: readonly number[]): number {
  const sorted = [...returns].sort((left, right) => left - right);
  let gap = 0;
  for (let position = 1; position < sorted.length; position++) gap = Math.max(gap, sorted[position]! - sorted[position - 1]!);
  return gap;
}

/** Acknowledged operations per second of the run, for the report line (shows the dip and the recovery). */
function perSecond(returns: readonly number[], startedAt: number): number[] {
  const seconds = Math.max(0, ...returns.map((returned) => Math.floor((returned - startedAt) / 1000)));
  const buckets = new Array<number>(seconds + 1).fill(0);
  for (const returned of returns) {
    const bucket = Math.min(buckets.length - 1, Math.floor((returned - startedAt) / 1000));
    buckets[bucket] = (buckets[bucket] ?? 0) + 1;
  }
  return buckets;
}

/** Seconds from `from` to `to` (history times), for the report line. */
function seconds(from: number, to: number): string {
  return ((to - from) / 1000).toFixed(1);
}

async function runFaultTest(name: string, natsUrls: 'all' | 'pinned', fault: Fault): Promise<void> {
  const testStartedAt = now();
  const cluster = await startCluster(name, natsUrls);
  const initialRevisions = await createRegisters(cluster);
  const recorder = new HistoryRecorder();
  const startedAt = now();
  let faultAt = 0;
  let report: FaultReport | undefined;
  let caughtUpAt = 0;
  let caughtUpTarget = 0;
  const result = await runWorkload(cluster, recorder, workload, async () => {
    faultAt = await phase(cluster, recorder, startedAt, 'before the fault');
    const healed = await fault(cluster, recorder);
    report = healed;
    // The healed member is back as a full member before the last phase is counted.
    caughtUpTarget = (await cluster.caughtUp(healed.member)).target;
    caughtUpAt = now();
    const unmet = (): string[] => {
      const summary = historySummary(recorder.history);
      const afterCaughtUp = recorder.acknowledgedSince(caughtUpAt);
      return [
        ...(afterCaughtUp >= phaseOperations ? [] : [`${phaseOperations} operations acknowledged after ${healed.member} caught up (${afterCaughtUp} so far)`]),
        ...(summary.puts > minimumAcknowledged ? [] : [`more than ${minimumAcknowledged} acknowledged writes (${summary.puts} so far)`]),
        ...(summary.gets > minimumAcknowledged ? [] : [`more than ${minimumAcknowledged} acknowledged reads (${summary.gets} so far)`]),
      ];
    };
    await waitFor(() => unmet().length === 0, {
      timeoutMs: phaseTimeoutMs, intervalMs: 20, description: `the run's last phase after ${healed.member} caught up`,
      diagnostics: () => `not reached: ${unmet().join('; ')}\n${cluster.diagnostics()}`,
    });
  });
  const runEndedAt = now();
  if (report === undefined) throw new Error('the fault did not report');
  const healedAt = report.healedAt;
  const runReturns = result.history.flatMap((operation) => (operation.return === undefined ? [] : [operation.return]));
  const afterHeal = recorder.acknowledgedSince(healedAt);
  const afterCaughtUp = recorder.acknowledgedSince(caughtUpAt);

  // The faulted member catches up; then the whole cluster is killed and restarted.
  const lastRevision = Math.max(0, ...result.writes.map((write) => write.revision), ...result.ledger.map((entry) => entry.revision));
  const appliedBeforeRestart = await converged(cluster, lastRevision);
  await cluster.restartAll('SIGKILL');
  await cluster.leader(3);
  const restartedAt = now();
  for (const key of workload.keys) await recorder.read(cluster.admin, 'after-restart', key);
  const finalReads = recorder.history.slice(result.history.length - workload.keys.length);
  expect(finalReads.every((operation) => operation.input.kind === 'get' && operation.return !== undefined)).toBe(true);
  const ledgerProblems: string[] = [];
  for (let position = 0; position < result.ledger.length; position += verifyConcurrency) {
    await Promise.all(result.ledger.slice(position, position + verifyConcurrency).map(async (entry) => {
      const verified = await cluster.admin.propose(verifyLedgerCommand(entry.name, entry.value, entry.revision));
      const problem = ledgerProblem(entry.name, entry.value, entry.revision, verified);
      if (problem !== undefined) ledgerProblems.push(problem);
    }));
  }

  const started = now();
  const linearizability = checkKvLinearizability(recorder.history);
  const checkMs = now() - started;
  const summary = historySummary(recorder.history);
  console.log(`[fault] ${name}: ${report.description}; fault at ${seconds(startedAt, faultAt)} s, healed at ${seconds(startedAt, healedAt)} s, `
    + `${report.member} caught up (applied ${caughtUpTarget}) ${seconds(healedAt, caughtUpAt)} s after healing; `
    + `${summary.puts} writes + ${summary.gets} reads acknowledged, ${summary.pendingPuts} writes + ${summary.pendingGets} reads pending, `
    + `${result.ledger.length} ledger creates (${result.pendingLedger} pending), ${result.retries} client retries, longest gap without an answer ${longestGapMs(runReturns).toFixed(0)} ms, `
    + `acknowledged per second [${perSecond(runReturns, startedAt).join(' ')}], `
    + `${afterHeal} operations after healing (${afterCaughtUp} after catch-up), applied ${appliedBeforeRestart} before the full restart; linearizability ${linearizability.outcome} `
    + `(${linearizability.keys.map((key) => `${key.key}: ${key.operations} ops/${key.steps} steps`).join(', ')}; ${checkMs.toFixed(0)} ms); `
    + `time: setup ${seconds(testStartedAt, startedAt)} s, run ${seconds(startedAt, runEndedAt)} s, convergence and full restart ${seconds(runEndedAt, restartedAt)} s, `
    + `final reads and ledger verification ${seconds(restartedAt, started)} s`);

  expect(ledgerProblems).toEqual([]);
  expect(checkReadRevisions(recorder.reads, recorder.writes, initialRevisions)).toEqual([]);
  expect(checkWriteOrder(recorder.history, recorder.writes)).toEqual([]);
  expect(linearizability.outcome).toBe('linearizable');
  // The run did real work on both sides of the fault.
  expect(summary.puts).toBeGreaterThan(minimumAcknowledged);
  expect(summary.gets).toBeGreaterThan(minimumAcknowledged);
  expect(afterHeal).toBeGreaterThan(20);
  expect(afterCaughtUp).toBeGreaterThanOrEqual(phaseOperations);
}

describe(`raft log under real faults: linearizable histories, no acknowledged write lost after a full restart (${configuration})`, () => {
  it(`kill -9 the leader after ${phaseOperations} operations, restart it after ${phaseOperations} more under the new leader (members given every nats-server's URL)`, async () => {
    await runFaultTest('kill-leader', 'all', async (cluster, recorder) => {
      const leader = await cluster.leader();
      const killedAt = now();
      await cluster.member(leader.id).stop('SIGKILL');
      const next = await cluster.leader(2);
      const electedAt = now();
      expect(next.id).not.toBe(leader.id);
      expect(next.term).toBeGreaterThan(leader.term);
      await phase(cluster, recorder, electedAt, `under leader ${next.id} while ${leader.id} is killed`);
      const downFor = now() - killedAt;
      await cluster.member(leader.id).start();
      return {
        description: `killed leader ${leader.id} (term ${leader.term}), ${next.id} leader of term ${next.term} seen ${(electedAt - killedAt).toFixed(0)} ms later, `
          + `${leader.id} restarted after ${(downFor / 1000).toFixed(1)} s down`,
        member: leader.id, healedAt: now(),
      };
    });
  });

  it(`SIGSTOP the leader after ${phaseOperations} operations, SIGCONT after ${phaseOperations} more under the new leader (members given every nats-server's URL)`, async () => {
    await runFaultTest('pause-leader', 'all', async (cluster, recorder) => {
      const leader = await cluster.leader();
      const pausedAt = now();
      const paused = cluster.member(leader.id);
      paused.pause();
      let next: MemberStatus;
      let electedAt: number;
      try {
        next = await cluster.leader(2);
        electedAt = now();
        expect(next.id).not.toBe(leader.id);
        await phase(cluster, recorder, electedAt, `under leader ${next.id} while ${leader.id} is paused`);
      } finally {
        paused.resume();
      }
      return {
        description: `paused leader ${leader.id} (term ${leader.term}), ${next.id} leader of term ${next.term} seen ${(electedAt - pausedAt).toFixed(0)} ms later, `
          + `${leader.id} resumed after ${((now() - pausedAt) / 1000).toFixed(1)} s`,
        member: leader.id, healedAt: now(),
      };
    });
  });

  it(`kill -9 the leader's nats-server after ${phaseOperations} operations, restart it after ${phaseOperations} more (each member given only its own nats-server's URL)`, async () => {
    await runFaultTest('kill-nats', 'pinned', async (cluster, recorder) => {
      const leader = await cluster.leader();
      const server = cluster.nats.server(cluster.natsServerOf(leader.id));
      const killedAt = now();
      await server.kill();
      // The member's NATS client learned the other servers from the cluster's INFO and fails
      // over to one of them (it is not cut off for good): wait until all three agree on a leader.
      const next = await cluster.leader(3);
      const electedAt = now();
      await phase(cluster, recorder, electedAt, `with ${server.name} killed`);
      const downFor = now() - killedAt;
      await server.start();
      await cluster.nats.waitForRoutes();
      return {
        description: `killed ${server.name} (leader ${leader.id}'s, term ${leader.term}), all members agreed on ${next.id} as leader of term ${next.term} `
          + `${(electedAt - killedAt).toFixed(0)} ms later, ${server.name} restarted after ${(downFor / 1000).toFixed(1)} s down`,
        member: leader.id, healedAt: now(),
      };
    });
  });
});
