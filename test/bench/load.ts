// Owns: the closed-loop load generator and latency statistics shared by the Raft benchmark's
// two systems (kstore over NATS, etcd over HTTP). A proposer issues one operation, waits for
// its answer, and issues the next at once (no think time); `concurrency` proposers run side by
// side. Latency is client-observed, from just before the call to just after the answer
// (process.hrtime, monotonic). A warm-up period at the start of each level is run but not
// counted (connections, JIT, first creates). Hooks can run at the measured window's start and
// end (e.g. CPU snapshots from /proc, proc-cpu.ts): the operations ANSWERED in the window are
// what CPU spent in it did, so a level also counts those (answeredInWindow), beside the
// operations both sent and answered in it that its latencies and rate come from.
//
// Also owns the failover measurement: load at a fixed concurrency, a kill at a known instant,
// and the time from the kill to the first acknowledged operation that was INVOKED after the
// kill (an answer to an operation sent before the kill may still arrive from the dying leader's
// last commit; one sent after it can only be committed by a new leader).

/** Monotonic time in milliseconds. */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export interface LevelResult {
  readonly concurrency: number;
  /** Acknowledged operations in the measured window (after warm-up): sent and answered in it. */
  readonly operations: number;
  /** Operations answered in the measured window, whenever sent: the divisor for CPU spent in it. */
  readonly answeredInWindow: number;
  readonly errors: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** One operation by proposer `proposer` (its `sequence`-th); rejects on failure. */
export type Operation = (proposer: number, sequence: number) => Promise<void>;

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[position]!;
}

function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Latencies of one level, kept in a growable typed array (millions of samples stay compact). */
class Samples {
  #values = new Float64Array(1 << 16);
  #length = 0;

  push(value: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length++] = value;
  }

  sorted(): Float64Array {
    return this.#values.slice(0, this.#length).sort();
  }
}

/** Called at the measured window's start and end; the level's result waits for both. */
export interface WindowHooks {
  readonly onWindowStart?: () => Promise<void> | void;
  readonly onWindowEnd?: () => Promise<void> | void;
}

/** Runs `concurrency` closed-loop proposers for warmupMs + durationMs; measures the last durationMs. */
export async function runLevel(concurrency: number, warmupMs: number, durationMs: number, operation: Operation, hooks: WindowHooks = {}): Promise<LevelResult> {
  const samples = new Samples();
  let errors = 0;
  let answeredInWindow = 0;
  let firstError: unknown;
  const started = now();
  const measureFrom = started + warmupMs;
  const stopAt = measureFrom + durationMs;
  const at = (instant: number, hook: (() => Promise<void> | void) | undefined): Promise<void> => new Promise((resolve, reject) => {
    if (hook === undefined) {
      resolve();
      return;
    }
    setTimeout(() => {
      Promise.resolve().then(hook).then(resolve, reject);
    }, Math.max(0, instant - now()));
  });
  const windowHooks = Promise.all([at(measureFrom, hooks.onWindowStart), at(stopAt, hooks.onWindowEnd)]);
  const proposer = async (position: number): Promise<void> => {
    for (let sequence = 0; now() < stopAt; sequence++) {
      const call = now();
      try {
        await operation(position, sequence);
      } catch (error) {
        errors += 1;
        firstError ??= error;
        continue;
      }
      const returned = now();
      if (returned >= measureFrom && returned <= stopAt) answeredInWindow += 1;
      if (call >= measureFrom && returned <= stopAt) samples.push(returned - call);
    }
  };
  await Promise.all([...Array.from({ length: concurrency }, (_, position) => proposer(position)), windowHooks]);
  if (errors > 0) process.stderr.write(`  ${errors} failed operations at concurrency ${concurrency}; first: ${firstError instanceof Error ? firstError.message : String(firstError)}\n`);
  const sorted = samples.sorted();
  const seconds = durationMs / 1000;
  return {
    concurrency, operations: sorted.length, answeredInWindow, errors, seconds, perSecond: round(sorted.length / seconds, 1),
    p50Ms: round(percentile(sorted, 0.5)), p99Ms: round(percentile(sorted, 0.99)), maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

export interface FailoverResult {
  readonly concurrency: number;
  readonly killed: string;
  /** Kill to the first acknowledged operation invoked after the kill (client-observed). */
  readonly firstCommitAfterKillMs: number;
  /** Kill to a new leader reported by a surviving member (the election alone). */
  readonly newLeaderMs: number | null;
  readonly newLeader: string | null;
  /** Operations per second in the 3 s before the kill and in the 3 s after the first commit. */
  readonly perSecondBefore: number;
  readonly perSecondAfter: number;
  readonly errors: number;
}

export interface FailoverPlan {
  readonly concurrency: number;
  /** Load runs this long before the kill. */
  readonly beforeKillMs: number;
  /** After the first commit following the kill, load runs this long more (throughput after failover). */
  readonly afterMs: number;
  /** Give up waiting for a commit after the kill after this long. */
  readonly timeoutMs: number;
  /** Finds the current leader (before the clock starts). */
  readonly leader: () => Promise<string>;
  /** Kills `leader` (SIGKILL); the clock starts just before it is called. */
  readonly kill: (leader: string) => Promise<void>;
  /** Resolves with the new leader's name once a surviving member reports one (polls). */
  readonly newLeader: (killed: string, deadline: number) => Promise<string | undefined>;
}

/** Measures failover under closed-loop load (see the header). */
export async function runFailover(plan: FailoverPlan, operation: Operation): Promise<FailoverResult> {
  const acknowledged: { call: number; returned: number }[] = [];
  let errors = 0;
  let stop = false;
  let killedAt = Number.POSITIVE_INFINITY;
  let firstAfterKill: number | undefined;
  const proposer = async (position: number): Promise<void> => {
    for (let sequence = 0; !stop; sequence++) {
      const call = now();
      try {
        await operation(position, sequence);
      } catch {
        errors += 1;
        continue;
      }
      const returned = now();
      acknowledged.push({ call, returned });
      if (call >= killedAt && firstAfterKill === undefined) firstAfterKill = returned;
    }
  };
  const proposers = Array.from({ length: plan.concurrency }, (_, position) => proposer(position));
  try {
    const started = now();
    await new Promise((resolve) => setTimeout(resolve, plan.beforeKillMs));
    const killed = await plan.leader();
    killedAt = now();
    await plan.kill(killed);
    const leaderPromise = plan.newLeader(killed, killedAt + plan.timeoutMs).then((leader) => ({ leader, at: now() }));
    const deadline = killedAt + plan.timeoutMs;
    while (firstAfterKill === undefined && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const elected = await leaderPromise;
    if (firstAfterKill === undefined) throw new Error(`no operation was acknowledged within ${plan.timeoutMs} ms of killing the leader ${killed}`);
    const first = firstAfterKill;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, first + plan.afterMs - now())));
    const count = (from: number, to: number): number => acknowledged.filter((entry) => entry.returned >= from && entry.returned < to).length;
    const beforeFrom = Math.max(started, killedAt - 3_000);
    return {
      concurrency: plan.concurrency, killed,
      firstCommitAfterKillMs: round(first - killedAt, 0),
      newLeaderMs: elected.leader === undefined ? null : round(elected.at - killedAt, 0),
      newLeader: elected.leader ?? null,
      perSecondBefore: round(count(beforeFrom, killedAt) / ((killedAt - beforeFrom) / 1000), 1),
      perSecondAfter: round(count(first, first + plan.afterMs) / (plan.afterMs / 1000), 1),
      errors,
    };
  } finally {
    stop = true;
    await Promise.all(proposers);
  }
}
