// Owns: `npm run bench:raft` — the Raft log's performance on this machine, next to etcd's.
// A benchmark, not a test: it prints ONE JSON document on stdout (progress goes to stderr)
// and exits 0 unless kstore itself could not be measured.
//
// kstore: three `kstore store` processes (default 100 ms tick, fsync on — the WAL always
// fsyncs) over a real 3-node nats-server cluster (--nats-servers 1 for a single server), temp
// data dirs on the same disk as etcd's. Closed-loop proposers (load.ts) at each concurrency
// (default 1, 16, 64, 256; 10 s each after 1 s of warm-up) spread over up to 4 StoreClients,
// each on its own NATS connection; every proposer creates its own ConfigMap with 700 bytes of
// data and then updates it (700 new bytes each time), so state stays bounded. Latency is the
// client-observed commit latency: propose() until the applied result comes back.
// Failover: at concurrency 16, the leader is killed with SIGKILL under load; reported are the
// time to the first commit of a proposal invoked after the kill (what a client sees, including
// StoreClient's 2 s attempt timeout on the dead leader) and the time until a survivor reports a
// new leader (the election alone). Then the killed member is restarted under the same load:
// how long it takes to catch up, and the throughput and latency meanwhile.
//
// etcd baseline (etcd.ts): the same on a 3-member etcd-server on loopback, puts of 700-byte
// values to one key per proposer, over the HTTP/JSON gateway with keep-alive connections. If
// etcd cannot be found or installed the baseline is reported unavailable with the reason.
//
// Flags: --duration-ms N --warmup-ms N --concurrency 1,16,64,256 --nats-servers 1|3
// --value-bytes N --failover-concurrency N --no-failover --no-etcd --cpu-prof DIR (kstore
// members write .cpuprofile files there when they stop; the failover's killed leader cannot).
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { commandVersion, encodeCommand } from '../../actors/index.ts';
import type { Command, KubeObject } from '../../actors/index.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import type { NatsConnection } from '@nats-io/transport-node';
import { natsServerExecutable } from '../support/nats-server.ts';
import { StoreCluster } from '../fault/store-cluster.ts';
import { EtcdCluster, etcdRequestTimeoutMs, etcdVersion, findEtcd } from './etcd.ts';
import type { EtcdMember } from './etcd.ts';
import { now, runFailover, runLevel } from './load.ts';
import type { FailoverResult, LevelResult, Operation } from './load.ts';

/** StoreClients (NATS connections) the proposers share: one socket would serialise 256 proposers' I/O in one parser. */
const clientsMax = 4;
const namespace = 'bench';
const at = '2026-01-01T00:00:00Z';

const { values: flags } = parseArgs({
  options: {
    'duration-ms': { type: 'string', default: '10000' },
    'warmup-ms': { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '1,16,64,256' },
    'nats-servers': { type: 'string', default: '3' },
    'value-bytes': { type: 'string', default: '700' },
    'failover-concurrency': { type: 'string', default: '16' },
    'no-failover': { type: 'boolean', default: false },
    'no-etcd': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});

function positiveInteger(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`--${name} must be a positive integer, got ${String(text)}`);
  return value;
}

const durationMs = positiveInteger('duration-ms', flags['duration-ms']);
const warmupMs = Number(flags['warmup-ms']);
const levels = (flags.concurrency ?? '').split(',').map((text) => positiveInteger('concurrency', text));
const natsServers = ((): 1 | 3 => {
  const count = positiveInteger('nats-servers', flags['nats-servers']);
  if (count !== 1 && count !== 3) throw new TypeError('--nats-servers must be 1 or 3');
  return count;
})();
const valueBytes = positiveInteger('value-bytes', flags['value-bytes']);
const failoverConcurrency = positiveInteger('failover-concurrency', flags['failover-concurrency']);
/** Load before the kill, load measured after the first commit, and how long a failover may take. */
const failoverBeforeMs = 3_000;
const failoverAfterMs = 3_000;
const failoverTimeoutMs = 30_000;
/** The restarted member's catch-up is watched (under load) for this long. */
const catchUpWindowMs = 15_000;

function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

function configMap(name: string, value: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, uid: `uid-${name}`, creationTimestamp: at }, data: { value } };
}

function valueOf(proposer: number, sequence: number): string {
  const prefix = `${proposer}-${sequence}-`;
  return prefix + 'v'.repeat(Math.max(0, valueBytes - prefix.length));
}

interface SystemResult {
  readonly levels: LevelResult[];
  readonly failover: FailoverResult | { readonly skipped: string };
}

interface CatchUpResult {
  readonly restarted: string;
  /** Restart (ready line) until the member applied what the leader had committed then; null if not within the window. */
  readonly catchUpMs: number | null;
  /** The closed loop at failover concurrency while the member restarts and catches up. */
  readonly load: LevelResult;
}

/**
 * After the failover: the killed member is started again on its data dir while the load goes
 * on. Its log ends where it was killed, usually before the leader's last snapshot, so it catches
 * up by InstallSnapshot and then appends; reported is how long that takes and what it costs the
 * load (throughput and latency in the same window).
 */
async function kstoreCatchUp(cluster: StoreCluster, restarted: string, operation: Operation): Promise<CatchUpResult> {
  const member = cluster.member(restarted);
  let catchUpMs: number | null = null;
  const load = runLevel(failoverConcurrency, 0, catchUpWindowMs, operation);
  const started = now();
  await member.start();
  const readyAt = now();
  const target = (await cluster.admin.clusterStatus(300)).reduce((max, status) => Math.max(max, status.commitIndex), 0);
  while (now() < started + catchUpWindowMs) {
    const status = await cluster.admin.memberStatus(restarted).catch(() => undefined);
    if (status !== undefined && status.appliedIndex >= target) {
      catchUpMs = Math.round(now() - readyAt);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { restarted, catchUpMs, load: await load };
}

interface SnapshotTaken {
  readonly member: string;
  readonly index: number;
  readonly bytes: number;
  readonly durationMs: number;
}

/**
 * The snapshots the members logged ("raft snapshot taken", stderr). A snapshot is serialised and
 * written inline in the member's loop (raft/node/raft-node.ts), so its duration is a pause of
 * that member: the benchmark reports them next to the latencies they explain.
 */
function snapshotsTaken(cluster: StoreCluster): SnapshotTaken[] {
  const taken: SnapshotTaken[] = [];
  for (const member of cluster.members) {
    for (const match of member.output().matchAll(/raft snapshot taken (\{.*\})/g)) {
      const fields = JSON.parse(match[1] ?? '{}') as { index?: number; bytes?: number; durationMs?: number };
      taken.push({ member: member.id, index: fields.index ?? 0, bytes: fields.bytes ?? 0, durationMs: fields.durationMs ?? 0 });
    }
  }
  return taken.sort((left, right) => left.index - right.index || left.member.localeCompare(right.member));
}

/**
 * Every "raft became leader" the members logged, with its term: one is the first election and
 * one the failover; any other is a leader change no one asked for (a member paused too long).
 */
function leadersElected(cluster: StoreCluster): { readonly member: string; readonly term: number }[] {
  const elected: { member: string; term: number }[] = [];
  for (const member of cluster.members) {
    for (const match of member.output().matchAll(/raft became leader \{"term":(\d+)\}/g)) elected.push({ member: member.id, term: Number(match[1]) });
  }
  return elected.sort((left, right) => left.term - right.term);
}

async function benchKstore(): Promise<SystemResult & {
  readonly proposalBytes: number; readonly catchUp: CatchUpResult | { readonly skipped: string }; readonly snapshots: SnapshotTaken[];
  readonly leaders: { readonly member: string; readonly term: number }[];
}> {
  const nodeArgs = flags['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', flags['cpu-prof']];
  log(`starting kstore: 3 store members over ${natsServers} nats-server(s)`);
  const cluster = await StoreCluster.start({ cluster: 'bench', natsUrls: 'all', natsServers, nodeArgs });
  const connections: NatsConnection[] = [];
  const clients: StoreClient[] = [];
  try {
    await cluster.leader(3);
    const namespaceObject: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, uid: 'uid-ns-bench', creationTimestamp: at } };
    await cluster.admin.propose({ type: 'create', key: { group: '', resource: 'namespaces', namespace: '', name: namespace }, object: namespaceObject, at });
    for (let position = 0; position < clientsMax; position++) {
      const connection = await cluster.connect(`bench-client-${position}`);
      connections.push(connection);
      clients.push(new StoreClient({ connection, cluster: 'bench', group: 'main' }));
    }
    const operationFor = (label: string): Operation => async (proposer, sequence) => {
      const client = clients[proposer % clients.length]!;
      const name = `${label}-${proposer}`;
      const key = { group: '', resource: 'configmaps', namespace, name };
      const object = configMap(name, valueOf(proposer, sequence));
      const command: Command = sequence === 0 ? { type: 'create', key, object, at } : { type: 'update', key, object, at };
      const result = await client.propose(command);
      if (result.type !== 'stored') throw new Error(`${command.type} ${name}: ${result.type}`);
    };
    const sample: Command = { type: 'update', key: { group: '', resource: 'configmaps', namespace, name: 'l2-c64-63' }, object: configMap('l2-c64-63', valueOf(63, 1000)), at };
    const proposalBytes = encodeCommand({ version: commandVersion, command: sample, session: { id: '00000000-0000-0000-0000-000000000000', sequence: 1000 } }).byteLength;
    const results: LevelResult[] = [];
    for (const [position, concurrency] of levels.entries()) {
      log(`kstore: concurrency ${concurrency} for ${warmupMs} + ${durationMs} ms`);
      // Names unique per level (a level may repeat a concurrency): each proposer's first op creates.
      const result = await runLevel(concurrency, warmupMs, durationMs, operationFor(`l${position}-c${concurrency}`));
      log(`kstore: ${JSON.stringify(result)}`);
      results.push(result);
    }
    let failover: FailoverResult | { readonly skipped: string } = { skipped: '--no-failover' };
    let catchUp: CatchUpResult | { readonly skipped: string } = { skipped: '--no-failover' };
    if (!flags['no-failover']) {
      log(`kstore: failover at concurrency ${failoverConcurrency}`);
      failover = await runFailover({
        concurrency: failoverConcurrency, beforeKillMs: failoverBeforeMs, afterMs: failoverAfterMs, timeoutMs: failoverTimeoutMs,
        leader: async () => (await cluster.leader(3)).id,
        kill: (leader) => cluster.member(leader).stop('SIGKILL'),
        newLeader: async (killed, deadline) => {
          const survivors = cluster.members.filter((member) => member.id !== killed);
          while (now() < deadline) {
            const statuses = await Promise.all(survivors.map((member) => cluster.admin.memberStatus(member.id).catch(() => undefined)));
            const leader = statuses.find((status) => status?.role === 'leader' && status.id !== killed);
            if (leader !== undefined) return leader.id;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return undefined;
        },
      }, operationFor('failover'));
      log(`kstore: ${JSON.stringify(failover)}`);
      catchUp = await kstoreCatchUp(cluster, failover.killed, operationFor('catch-up'));
      log(`kstore: ${JSON.stringify(catchUp)}`);
    }
    return { levels: results, failover, catchUp, proposalBytes, snapshots: snapshotsTaken(cluster), leaders: leadersElected(cluster) };
  } finally {
    for (const client of clients) client.close();
    await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
    // SIGTERM first, so members started with --cpu-prof write their profiles.
    await Promise.all(cluster.members.map((member) => member.stop('SIGTERM').catch(() => undefined)));
    await cluster.close();
  }
}

async function benchEtcd(executable: string): Promise<SystemResult> {
  log('starting etcd: 3 members on loopback');
  const cluster = await EtcdCluster.start(executable);
  try {
    const leader = await cluster.leader();
    if (leader === undefined) throw new Error('etcd has no leader');
    // Each proposer talks to one endpoint (the leader's) and moves on to the next after a failure.
    const endpoints: EtcdMember[] = Array.from({ length: Math.max(...levels, failoverConcurrency) }, () => leader);
    const operationFor = (label: string): Operation => async (proposer, sequence) => {
      const member = endpoints[proposer]!;
      try {
        await cluster.put(member, `/bench/${label}/${proposer}`, valueOf(proposer, sequence));
      } catch (error) {
        const next = cluster.members[(cluster.members.indexOf(member) + 1) % cluster.members.length]!;
        endpoints[proposer] = next;
        throw error;
      }
    };
    const results: LevelResult[] = [];
    for (const [position, concurrency] of levels.entries()) {
      log(`etcd: concurrency ${concurrency} for ${warmupMs} + ${durationMs} ms`);
      const result = await runLevel(concurrency, warmupMs, durationMs, operationFor(`l${position}-c${concurrency}`));
      log(`etcd: ${JSON.stringify(result)}`);
      results.push(result);
    }
    let failover: FailoverResult | { readonly skipped: string } = { skipped: '--no-failover' };
    if (!flags['no-failover']) {
      log(`etcd: failover at concurrency ${failoverConcurrency}`);
      failover = await runFailover({
        concurrency: failoverConcurrency, beforeKillMs: failoverBeforeMs, afterMs: failoverAfterMs, timeoutMs: failoverTimeoutMs,
        leader: async () => {
          const current = await cluster.leader();
          if (current === undefined) throw new Error('etcd has no leader to kill');
          return current.name;
        },
        kill: async (leader) => cluster.kill(leader),
        newLeader: async (killed, deadline) => {
          while (now() < deadline) {
            const current = await cluster.leader();
            if (current !== undefined && current.name !== killed) return current.name;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return undefined;
        },
      }, operationFor('failover'));
      log(`etcd: ${JSON.stringify(failover)}`);
    }
    return { levels: results, failover };
  } finally {
    await cluster.close();
  }
}

function commandOutput(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
}

function machine(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    cpus: cpus.length, cpuModel: cpus[0]?.model ?? 'unknown', memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    kernel: os.release(), node: process.version,
    natsServer: commandOutput(natsServerExecutable, ['--version']),
    tmpFilesystem: commandOutput('findmnt', ['-no', 'SOURCE,FSTYPE', '-T', os.tmpdir()]),
  };
}

function ratios(kstore: readonly LevelResult[], etcd: readonly LevelResult[]): Record<string, unknown>[] {
  // Both systems ran the same list of levels, in order (a concurrency may repeat).
  return kstore.map((level, position) => {
    const baseline = etcd[position];
    const ratio = (a: number, b: number | undefined): number | null => (b === undefined || b === 0 || !Number.isFinite(a / b) ? null : Math.round((a / b) * 100) / 100);
    return {
      concurrency: level.concurrency,
      throughputKstoreOverEtcd: ratio(level.perSecond, baseline?.perSecond),
      p50KstoreOverEtcd: ratio(level.p50Ms, baseline?.p50Ms),
      p99KstoreOverEtcd: ratio(level.p99Ms, baseline?.p99Ms),
    };
  });
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const kstore = await benchKstore();
  let etcd: (SystemResult & { readonly available: true; readonly version: string }) | { readonly available: false; readonly reason: string };
  if (flags['no-etcd']) {
    etcd = { available: false, reason: '--no-etcd' };
  } else {
    const found = findEtcd();
    if ('unavailable' in found) {
      etcd = { available: false, reason: found.unavailable };
    } else {
      try {
        etcd = { available: true, version: etcdVersion(found.executable), ...(await benchEtcd(found.executable)) };
      } catch (error) {
        etcd = { available: false, reason: `etcd benchmark failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    }
  }
  const document = {
    benchmark: 'raft', startedAt, command: `npm run bench:raft${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: machine(),
    config: {
      durationMs, warmupMs, concurrency: levels, valueBytes, failoverConcurrency, fsync: true,
      kstore: { members: 3, natsServers, tickMs: 100, electionTicks: '10-20', proposalBytes: kstore.proposalBytes, client: `StoreClient x ${clientsMax} (NATS request/reply)` },
      etcd: { members: 3, heartbeatMs: 100, electionMs: 1000, client: 'HTTP/JSON gateway /v3/kv/put, keep-alive', requestTimeoutMs: etcdRequestTimeoutMs },
    },
    kstore: { levels: kstore.levels, failover: kstore.failover, catchUpAfterRestart: kstore.catchUp, snapshotsTaken: kstore.snapshots, leadersElected: kstore.leaders },
    etcd,
    ratio: etcd.available ? ratios(kstore.levels, etcd.levels) : null,
  };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

await main();
