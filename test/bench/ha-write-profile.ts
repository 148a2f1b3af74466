// Owns: `npm run bench:ha-write` — where an HA write's cost goes. Starts `kstore cluster up`
// (3 nats-servers, 3 stores, 2 API replicas) in a temporary directory, drives ConfigMap creates
// (700 bytes, closed loop, clients spread over the API replicas) and, over one measured window,
// reads per process:
// - CPU milliseconds per write: utime+stime from /proc/<pid>/stat before and after (all threads; proc-cpu.ts),
//   for each API replica, each store member (by Raft role) and each nats-server, with the kernel
//   part and the main thread apart from the others; the machine's CPU from /proc/stat (what
//   other processes used meanwhile); and how well the Raft hop batched (NATS messages a follower
//   received per write: CPU per write rises with it);
// - the change-event stream's messages per write (its last sequence from /jsz);
// - NATS messages per write: each nats-server's /varz in_msgs/out_msgs deltas (a message counts
//   once on every server it passes), and per kstore process the messages it published and was
//   delivered (the server's /connz entries, matched to processes by their sockets' ports);
// before the load, an idle window gives each process's CPU ms per second with no writes (timers,
// heartbeats: a fixed cost that a slower write rate spreads over fewer writes);
// then, with --strace, a second window under the same load with `strace -c -f` attached to each
// kstore process: fsync/fdatasync and all syscalls per write (strace slows the traced processes;
// its window's CPU figures are not used). A measurement aid, not a test: one JSON document on
// stdout, progress on stderr; the cluster is always torn down.
//
// Warm-up: V8 keeps optimizing the API replicas' and stores' code for ~15 s of load (their
// threads other than the main one, i.e. TurboFan, were a quarter to a third of a replica's CPU
// in a window after the default 2 s); pass --warmup-ms 15000 for steady-state figures.
//
// Flags: --concurrency 64 --duration-ms 10000 --warmup-ms 2000 --value-bytes 700
// --cpu-prof DIR (every kstore process writes a V8 CPU profile there at `cluster down`; read them
// with test/bench/cpuprofile-summary.ts) --alloc-prof DIR (over the measured window, V8's sampling
// heap profiler in every kstore process, through an inspector each opens on a loopback port,
// keeping freed objects too: DIR/<process>.heapprofile says who ALLOCATES per write; read them
// with test/bench/heapprofile-summary.ts; the window's CPU figures include the sampling;
// --alloc-survivors keeps only what outlived a scavenge: what the young generation promoted) --strace --strace-ms 5000 --idle-ms 5000 --data-dir DIR
// (default: a temporary directory, removed at the end) --events-replicas N (an experiment: after `up`, set
// the change-event stream's replicas to N, e.g. 1, to see what JetStream's R3 costs; the
// publisher keeps an existing stream's replicas) --events-storage S (`cluster up`'s flag: auto,
// memory or file) --load-apis N (send the load to the first N API replicas only: a replica that
// serves none shows what following the event stream costs per write).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, readdir, readlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { eventStreamName } from '../../deploy/event-stream/format.ts';
import { readKubeconfig } from '../support/kube-client.ts';
import { repoRoot } from '../support/kstore-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { BenchClient } from './https-client.ts';
import { startAllocationSampling } from './inspector-gc.ts';
import { runLevel } from './load.ts';
import { machineCpuMs, ownCpuMs, processCpuMs, threadCpuMs } from './proc-cpu.ts';
import type { MachineCpu } from './proc-cpu.ts';
import type { LevelResult } from './load.ts';

const { values: flags } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '64' },
    'duration-ms': { type: 'string', default: '10000' },
    'warmup-ms': { type: 'string', default: '2000' },
    'value-bytes': { type: 'string', default: '700' },
    'cpu-prof': { type: 'string' },
    'alloc-prof': { type: 'string' },
    'alloc-survivors': { type: 'boolean', default: false },
    strace: { type: 'boolean', default: false },
    'strace-ms': { type: 'string', default: '5000' },
    'idle-ms': { type: 'string', default: '5000' },
    'events-replicas': { type: 'string' },
    'events-storage': { type: 'string' },
    'load-apis': { type: 'string' },
    'data-dir': { type: 'string' },
  },
});

function positiveInteger(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`--${name} takes a positive integer, got ${String(text)}`);
  return value;
}

const concurrency = positiveInteger('concurrency', flags.concurrency);
const durationMs = positiveInteger('duration-ms', flags['duration-ms']);
const warmupMs = Number(flags['warmup-ms']);
const valueBytes = positiveInteger('value-bytes', flags['value-bytes']);
const straceMs = positiveInteger('strace-ms', flags['strace-ms']);
const idleMs = positiveInteger('idle-ms', flags['idle-ms']);

function progress(message: string): void {
  process.stderr.write(`[bench:ha-write] ${message}\n`);
}

function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function kstore(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (flags['cpu-prof'] !== undefined) env.KSTORE_CPU_PROFILE_DIR = path.resolve(flags['cpu-prof']);
  // --alloc-prof: every process `cluster up` starts inherits NODE_OPTIONS, so each opens an
  // inspector on a free loopback port (inspector-gc.ts finds it from /proc).
  if (flags['alloc-prof'] !== undefined) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim();
  return run(process.execPath, [path.join(repoRoot, 'deploy', 'kstore.mjs'), ...args], env);
}

/** One process under measurement. */
interface Measured {
  readonly name: string;
  readonly kind: 'api' | 'store' | 'nats';
  readonly pid: number;
  readonly role?: string;
  readonly monitorUrl?: string;
}

interface StatusJson {
  readonly leader?: string;
  readonly stores: readonly { id: string; pid?: number; role: string }[];
  readonly apis: readonly { name: string; url: string; pid?: number }[];
  readonly nats: readonly { name: string; pid?: number }[];
}

interface ClusterJson {
  readonly cluster: string;
  readonly group: string;
  readonly natsUrls: readonly string[];
  readonly nats: readonly { name: string; monitorUrl: string }[];
  readonly kubeconfig?: string;
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

interface VarzCounters { inMsgs: number; outMsgs: number; inBytes: number; outBytes: number }

async function varz(monitorUrl: string): Promise<VarzCounters> {
  const body = await getJson(`${monitorUrl}/varz`);
  return { inMsgs: Number(body.in_msgs), outMsgs: Number(body.out_msgs), inBytes: Number(body.in_bytes), outBytes: Number(body.out_bytes) };
}

/** The change-event stream's last sequence as a nats-server's /jsz reports it (0 when it has none). */
async function streamLastSeq(monitorUrl: string): Promise<number> {
  const body = await getJson(`${monitorUrl}/jsz?streams=true`);
  const accounts = (body.account_details ?? []) as readonly { stream_detail?: readonly { name: string; state?: { last_seq?: number } }[] }[];
  for (const account of accounts) {
    for (const stream of account.stream_detail ?? []) {
      if (stream.name.startsWith('KSTORE_EVENTS_')) return Number(stream.state?.last_seq ?? 0);
    }
  }
  return 0;
}

interface ConnzEntry { readonly port: number; readonly name: string; readonly inMsgs: number; readonly outMsgs: number; readonly inBytes: number; readonly outBytes: number }

async function connz(monitorUrl: string): Promise<ConnzEntry[]> {
  const body = await getJson(`${monitorUrl}/connz?limit=1024`);
  const connections = (body.connections ?? []) as readonly Record<string, unknown>[];
  return connections.map((entry) => ({
    port: Number(entry.port), name: String(entry.name ?? ''),
    inMsgs: Number(entry.in_msgs), outMsgs: Number(entry.out_msgs), inBytes: Number(entry.in_bytes), outBytes: Number(entry.out_bytes),
  }));
}

/** Local TCP ports of a process's sockets (its /proc/<pid>/fd links matched to /proc/net/tcp{,6}). */
async function localPorts(pid: number): Promise<Set<number>> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(link);
    if (match) inodes.add(match[1]!);
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length < 10 || !inodes.has(columns[9]!)) continue;
      ports.add(Number.parseInt(columns[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

interface Snapshot {
  readonly machine: MachineCpu;
  readonly cpu: Map<string, number>;
  readonly systemCpu: Map<string, number>;
  readonly threads: Map<string, Map<string, number>>;
  readonly varz: Map<string, VarzCounters>;
  /** per kstore process: NATS messages/bytes it published (connz in) and was delivered (connz out). */
  readonly conns: Map<string, VarzCounters>;
  readonly loadCpuMs: number;
  /** The change-event stream's last sequence (messages published so far). */
  readonly streamLastSeq: number;
}

async function snapshot(processes: readonly Measured[], portsOf: Map<string, Set<number>>): Promise<Snapshot> {
  const cpu = new Map<string, number>();
  const systemCpu = new Map<string, number>();
  const varzByServer = new Map<string, VarzCounters>();
  const conns = new Map<string, VarzCounters>();
  const loadCpuMs = ownCpuMs();
  const machine = await machineCpuMs();
  const threads = new Map<string, Map<string, number>>();
  await Promise.all(processes.map(async (entry) => {
    const times = await processCpuMs(entry.pid);
    cpu.set(entry.name, times.user + times.system);
    systemCpu.set(entry.name, times.system);
    if (entry.kind !== 'nats') threads.set(entry.name, await threadCpuMs(entry.pid));
  }));
  for (const server of processes.filter((entry) => entry.kind === 'nats')) {
    varzByServer.set(server.name, await varz(server.monitorUrl!));
    for (const connection of await connz(server.monitorUrl!)) {
      for (const [owner, ports] of portsOf) {
        if (!ports.has(connection.port)) continue;
        const total = conns.get(owner) ?? { inMsgs: 0, outMsgs: 0, inBytes: 0, outBytes: 0 };
        conns.set(owner, { inMsgs: total.inMsgs + connection.inMsgs, outMsgs: total.outMsgs + connection.outMsgs, inBytes: total.inBytes + connection.inBytes, outBytes: total.outBytes + connection.outBytes });
      }
    }
  }
  const firstNats = processes.find((entry) => entry.kind === 'nats');
  const lastSeq = firstNats === undefined ? 0 : await streamLastSeq(firstNats.monitorUrl!);
  return { machine, cpu, systemCpu, threads, varz: varzByServer, conns, loadCpuMs, streamLastSeq: lastSeq };
}

function configMap(name: string, value: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } };
}

/** Creates at `concurrency` for warm-up + duration, calling `during` once the warm-up is over. */
async function createLoad(clients: readonly BenchClient[], prefix: string, measuredMs: number, during: (window: Promise<LevelResult>) => Promise<void>): Promise<LevelResult> {
  const value = 'x'.repeat(valueBytes);
  const level = runLevel(concurrency, warmupMs, measuredMs, async (client, sequence) => {
    const name = `${prefix}-${client}-${sequence}`;
    const response = await clients[client % clients.length]!.request('POST', '/api/v1/namespaces/bench-ha/configmaps', configMap(name, value));
    if (response.status !== 201) throw new Error(`create ${name}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
  });
  await new Promise((resolve) => setTimeout(resolve, warmupMs));
  await during(level);
  return level;
}

interface StraceCounts { readonly calls: Map<string, number>; readonly total: number }

/** `strace -c -f` summary table → calls per syscall. */
function parseStraceSummary(text: string): StraceCounts {
  const calls = new Map<string, number>();
  let total = 0;
  for (const line of text.split('\n')) {
    const columns = line.trim().split(/\s+/);
    // % time, seconds, usecs/call, calls, [errors], syscall
    if (columns.length < 5 || !/^\d+(\.\d+)?$/.test(columns[0]!)) continue;
    const name = columns[columns.length - 1]!;
    const count = Number(columns[3]);
    if (name === 'total') total = count;
    else calls.set(name, count);
  }
  return { calls, total };
}

async function main(): Promise<number> {
  const dir = flags['data-dir'] === undefined ? await makeTempDir('kstore-bench-ha-write-') : undefined;
  const dataDir = dir?.path ?? path.resolve(flags['data-dir']!);
  let clients: BenchClient[] = [];
  const down = async (): Promise<void> => {
    for (const client of clients) client.close();
    clients = [];
    const result = await kstore(['cluster', 'down', '--data-dir', dataDir]);
    if (result.code !== 0) progress(`cluster down exited ${String(result.code)}: ${(result.stdout + result.stderr).slice(-2000)}`);
  };
  try {
    progress(`cluster up in ${dataDir}`);
    const up = await kstore(['cluster', 'up', '--data-dir', dataDir, '--stores', '3', '--apis', '2',
      ...(flags['events-storage'] === undefined ? [] : ['--events-storage', flags['events-storage']])]);
    if (up.code !== 0) throw new Error(`kstore cluster up failed (exit ${String(up.code)}):\n${(up.stdout + up.stderr).slice(-4000)}`);
    const cluster = JSON.parse(await readFile(path.join(dataDir, 'cluster.json'), 'utf8')) as ClusterJson;
    if (flags['events-replicas'] !== undefined) {
      const replicas = positiveInteger('events-replicas', flags['events-replicas']);
      const connection = await connect({ servers: [...cluster.natsUrls] });
      try {
        const manager = await jetstreamManager(connection);
        const name = eventStreamName(cluster.cluster, cluster.group);
        const info = await manager.streams.info(name);
        await manager.streams.update(name, { ...info.config, num_replicas: replicas });
        progress(`event stream ${name}: replicas ${info.config.num_replicas} -> ${replicas}`);
      } finally {
        await connection.close();
      }
    }
    const credentials = await readKubeconfig(cluster.kubeconfig ?? path.join(dataDir, 'admin.kubeconfig'));
    const statusRun = await kstore(['cluster', 'status', '--data-dir', dataDir, '--json']);
    const status = JSON.parse(statusRun.stdout) as StatusJson;
    const processes: Measured[] = [
      ...status.apis.map((api) => ({ name: api.name, kind: 'api' as const, pid: api.pid! })),
      ...status.stores.map((store) => ({ name: store.id, kind: 'store' as const, pid: store.pid!, role: store.role })),
      ...status.nats.map((server) => ({ name: server.name, kind: 'nats' as const, pid: server.pid!, monitorUrl: cluster.nats.find((entry) => entry.name === server.name)?.monitorUrl })),
    ];
    for (const entry of processes) if (!Number.isSafeInteger(entry.pid)) throw new Error(`no pid for ${entry.name}`);
    progress(`processes: ${processes.map((entry) => `${entry.name}=${entry.pid}${entry.role === undefined ? '' : `(${entry.role})`}`).join(' ')}`);
    const loadApis = flags['load-apis'] === undefined ? status.apis.length : positiveInteger('load-apis', flags['load-apis']);
    clients = status.apis.slice(0, loadApis).map((api) => new BenchClient(api.url, credentials, concurrency));
    const namespace = await clients[0]!.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-ha' } });
    if (namespace.status !== 201 && namespace.status !== 409) throw new Error(`create namespace: HTTP ${namespace.status}`);
    const portsOf = new Map<string, Set<number>>();
    for (const entry of processes.filter((candidate) => candidate.kind !== 'nats')) portsOf.set(entry.name, await localPorts(entry.pid));

    progress(`idle window: ${idleMs} ms with no load`);
    const idleBefore = await snapshot(processes, portsOf);
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idleAfter = await snapshot(processes, portsOf);
    const idleCpuMsPerSecond = new Map(processes.map((entry) => [entry.name, round(((idleAfter.cpu.get(entry.name)! - idleBefore.cpu.get(entry.name)!) * 1000) / idleMs, 1)]));

    progress(`window 1: creates at ${concurrency} clients, ${warmupMs} ms warm-up, ${durationMs} ms measured (CPU, NATS)`);
    let before: Snapshot | undefined;
    let after: Snapshot | undefined;
    const allocationProfileDir = flags['alloc-prof'] === undefined ? undefined : path.resolve(flags['alloc-prof']);
    const load = await createLoad(clients, 'w1', durationMs, async (level) => {
      before = await snapshot(processes, portsOf);
      const sampling = allocationProfileDir === undefined ? [] : await Promise.all(processes.filter((entry) => entry.kind !== 'nats')
        .map(async (entry) => ({ entry, sampler: await startAllocationSampling(entry.pid, { survivorsOnly: flags['alloc-survivors'] }) })));
      await new Promise((resolve) => setTimeout(resolve, durationMs));
      after = await snapshot(processes, portsOf);
      if (allocationProfileDir !== undefined) {
        await mkdir(allocationProfileDir, { recursive: true });
        for (const { entry, sampler } of sampling) {
          await writeFile(path.join(allocationProfileDir, `${entry.name}${entry.role === undefined ? '' : `-${entry.role}`}.heapprofile`), JSON.stringify(await sampler.stop()));
        }
      }
      await level;
    });
    progress(`  ${JSON.stringify(load)}`);
    // The load's operations are those acknowledged within its measured window, which the
    // snapshots bracket (taken just after the warm-up and just before the window's end).
    const writes = load.operations;
    const perWrite = (value: number): number => round(value / writes);
    const rows = processes.map((entry) => {
      const cpu = after!.cpu.get(entry.name)! - before!.cpu.get(entry.name)!;
      const row: Record<string, unknown> = { process: entry.name, kind: entry.kind, pid: entry.pid, ...(entry.role === undefined ? {} : { role: entry.role }), cpuMs: round(cpu, 1), cpuMsPerWrite: perWrite(cpu), kernelCpuMsPerWrite: perWrite(after!.systemCpu.get(entry.name)! - before!.systemCpu.get(entry.name)!), idleCpuMsPerSecond: idleCpuMsPerSecond.get(entry.name) };
      if (entry.kind === 'nats') {
        const a = after!.varz.get(entry.name)!;
        const b = before!.varz.get(entry.name)!;
        Object.assign(row, { inMsgsPerWrite: perWrite(a.inMsgs - b.inMsgs), outMsgsPerWrite: perWrite(a.outMsgs - b.outMsgs), inBytesPerWrite: Math.round((a.inBytes - b.inBytes) / writes), outBytesPerWrite: Math.round((a.outBytes - b.outBytes) / writes) });
      } else {
        const threadsAfter = after!.threads.get(entry.name)!;
        const threadsBefore = before!.threads.get(entry.name)!;
        row.cpuMsPerWriteByThread = Object.fromEntries([...threadsAfter.entries()]
          .map(([kind, ms]) => [kind, perWrite(ms - (threadsBefore.get(kind) ?? 0))] as const)
          .filter(([, ms]) => ms > 0).sort((left, right) => right[1] - left[1]));
        const a = after!.conns.get(entry.name);
        const b = before!.conns.get(entry.name);
        if (a !== undefined && b !== undefined) {
          Object.assign(row, { natsPublishedPerWrite: perWrite(a.inMsgs - b.inMsgs), natsDeliveredPerWrite: perWrite(a.outMsgs - b.outMsgs), natsPublishedBytesPerWrite: Math.round((a.inBytes - b.inBytes) / writes), natsDeliveredBytesPerWrite: Math.round((a.outBytes - b.outBytes) / writes) });
        }
      }
      return row;
    });
    const serverCpu = rows.reduce((sum, row) => sum + Number(row.cpuMs), 0);
    // How well the Raft hop batches: NATS messages a follower received per write (appends,
    // heartbeats, commit-index updates). CPU per write rises with it; read the two together.
    const followerRows = rows.filter((row) => row.role === 'follower' && typeof row.natsDeliveredPerWrite === 'number');
    const followerMessagesPerWrite = followerRows.length === 0 ? null : round(followerRows.reduce((sum, row) => sum + Number(row.natsDeliveredPerWrite), 0) / followerRows.length);
    const result: Record<string, unknown> = {
      benchmark: 'bench:ha-write',
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version },
      settings: { concurrency, durationMs, warmupMs, idleMs, valueBytes, eventsReplicas: flags['events-replicas'] ?? 'as cluster up made it', eventsStorage: flags['events-storage'] ?? 'auto', loadApis: flags['load-apis'] ?? 'all', cpuProfiles: flags['cpu-prof'] !== undefined, allocationProfiles: flags['alloc-prof'] !== undefined },
      load, writes,
      serverCpuMsPerWrite: perWrite(serverCpu),
      followerMessagesPerWrite,
      // How well the event stream batches: its messages (publishes, each replicated and
      // delivered to every API replica) per write.
      eventStreamMessagesPerWrite: perWrite(after!.streamLastSeq - before!.streamLastSeq),
      loadGeneratorCpuMsPerWrite: perWrite(after!.loadCpuMs - before!.loadCpuMs),
      // What else ran on the machine in the window (other users' processes; CPU the hypervisor
      // gave to other guests): CPU per write rises when the write rate falls, since batches shrink.
      machineBusyCpuMsPerSecond: round(((after!.machine.busy - before!.machine.busy) * 1000) / durationMs, 0),
      otherProcessesCpuMsPerSecond: round(((after!.machine.busy - before!.machine.busy - serverCpu - (after!.loadCpuMs - before!.loadCpuMs)) * 1000) / durationMs, 0),
      stealCpuMsPerSecond: round(((after!.machine.steal - before!.machine.steal) * 1000) / durationMs, 0),
      processes: rows,
    };

    if (flags.strace) {
      const tracedProcesses = processes.filter((entry) => entry.kind !== 'nats');
      progress(`window 2: strace -c -f on ${tracedProcesses.map((entry) => entry.name).join(', ')} for ${straceMs} ms`);
      const traces: Promise<{ code: number | null; stdout: string; stderr: string }>[] = [];
      const tracers: ChildProcess[] = [];
      let traced: LevelResult | undefined;
      const straceLoad = await createLoad(clients, 'w2', straceMs, async (level) => {
        for (const entry of tracedProcesses) {
          const child = spawn('strace', ['-c', '-f', '-p', String(entry.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
          tracers.push(child);
          traces.push(new Promise((resolve) => {
            let stderr = '';
            child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
            child.once('exit', (code) => resolve({ code, stdout: '', stderr }));
          }));
        }
        await new Promise((resolve) => setTimeout(resolve, straceMs));
        for (const child of tracers) child.kill('SIGINT');
        traced = await level;
      });
      const summaries = await Promise.all(traces);
      const tracedWrites = (traced ?? straceLoad).operations;
      result.strace = {
        writes: tracedWrites,
        note: 'strace attaches after the warm-up and detaches at the window\'s end; writes are the window\'s acknowledged creates (approximately the traced span)',
        processes: tracedProcesses.map((entry, index) => {
          const counts = parseStraceSummary(summaries[index]!.stderr);
          if (counts.total === 0) return { process: entry.name, traceFailed: summaries[index]!.stderr.trim().split('\n').slice(-3).join(' | ') };
          const fsyncs = (counts.calls.get('fsync') ?? 0) + (counts.calls.get('fdatasync') ?? 0);
          const top = [...counts.calls.entries()].sort((left, right) => right[1] - left[1]).slice(0, 10).map(([name, calls]) => ({ syscall: name, perWrite: round(calls / tracedWrites) }));
          return { process: entry.name, ...(entry.role === undefined ? {} : { role: entry.role }), fsyncsPerWrite: round(fsyncs / tracedWrites), syscallsPerWrite: round(counts.total / tracedWrites), top };
        }),
      };
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    progress('cluster down');
    await down();
    await dir?.remove();
  }
}

process.exitCode = await main();
