// Owns: `npm run bench:scale` — what N stored objects cost `kstore server`: resident memory per
// object, V8 heap per object, restart to ready (after SIGTERM and after SIGKILL), chunked list
// paging and a full unchunked list. A benchmark, not a test: ONE JSON document on stdout,
// progress on stderr.
//
// Steps, on one server with a temporary data directory:
// 1. start it empty, wait for its RSS to settle, read VmRSS from /proc/<pid>/status;
// 2. fill: `--concurrency` keep-alive HTTPS clients create N ConfigMaps (default 100,000, each
//    with `--value-bytes` of data: ~1.1 KB of JSON at the default) in one namespace; reports
//    creates/s and the server's CPU ms per create (utime + stime from /proc/<pid>/stat);
// 3. settle (RSS sampled each second until it moves less than 1% over three samples), force two
//    full garbage collections in the server through its V8 inspector (the bench starts it with
//    node's `--inspect=127.0.0.1:0`; nothing is exposed by the product: inspector-gc.ts), then
//    read VmRSS, process.memoryUsage() (heap used/committed, external, array buffers) and
//    /proc/<pid>/smaps_rollup; per object = (filled − empty) / N for each. The empty figures are
//    taken the same way. Also the server's newest Raft snapshot (index, bytes: its log line) and
//    the applied index (the list's resourceVersion): what the Raft log still holds;
// 4. list paging: walks the whole namespace with limit=500 and continue tokens, p50/p99/max per
//    page; then one unchunked list (time to the last byte);
// 5. restart: once the machine is quiet (at most 15 s: the full list leaves work behind, such
//    as this process's GC of it), SIGTERM, start again on the same data directory, time from
//    spawn to /readyz 200 and RSS then, the machine's other CPU meanwhile, the server's CPU time at /readyz 200 (all threads, and its main thread: what
//    the wall time cannot go below), and RSS, heap and external memory after forced GCs once RSS
//    settled; the same after SIGKILL (the WAL tail is replayed).
//
// With `--target cluster`: `kstore cluster up` (3 stores, 2 API replicas; every kstore process
// started with NODE_OPTIONS=--inspect=127.0.0.1:0 in the bench's environment), filled through
// both API replicas, and the same memory figures for each store member (the store process, not
// its supervisor) and each API replica; then the list paging on one replica; then restarts, one
// at a time, of a follower store (SIGTERM, then SIGKILL), the leader store (SIGKILL) and an API
// replica (SIGKILL), each started again by `kstore cluster up` and timed from its own start to
// caught up (a store) or /readyz 200 (an API replica): cluster-restart.ts.
//
// Flags: --target server|cluster (default server) --objects N (default 100000) --concurrency N (default 64) --value-bytes N (default 700)
// --page-limit N (default 500) --heap-snapshot DIR (after the fill, the server writes a V8 heap
// snapshot there on SIGUSR2 through --heapsnapshot-signal; for docs/memory-and-restart.md; the
// RSS figures are taken before it) --data-dir DIR (an empty directory to use and keep, e.g. to
// profile a restart of it afterwards; default a temporary one, removed; with --target cluster the
// cluster's directory, stopped by `kstore cluster down` at the end). Use a smaller
// --objects while developing. --events-storage S: `cluster up`'s flag (auto, memory or file).
// --restarts-only (with --target cluster and the --data-dir of a cluster filled by an earlier run):
// starts that cluster and measures only the restarts, e.g. to compare two checkouts on one data
// dir, alternating.
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { httpsRequest, readKubeconfig } from '../support/kube-client.ts';
import type { KubeconfigCredentials } from '../support/kube-client.ts';
import { freePort } from '../support/free-port.ts';
import { kstoreNodeArgs, repoRoot } from '../support/kstore-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { restartClusterMembers } from './cluster-restart.ts';
import { BenchClient } from './https-client.ts';
import { memoryAfterFullGc } from './inspector-gc.ts';
import { killClusterSync, killKstoreCommands, runKstore } from './kstore-commands.ts';
import type { ClusterProcesses } from './kstore-commands.ts';
import type { MemoryAfterGc } from './inspector-gc.ts';
import { now } from './load.ts';
import { machineCpuMs, ownCpuMs, waitForQuietMachine } from './proc-cpu.ts';

const { values: flags } = parseArgs({
  options: {
    objects: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '64' },
    'value-bytes': { type: 'string', default: '700' },
    'page-limit': { type: 'string', default: '500' },
    'heap-snapshot': { type: 'string' },
    'data-dir': { type: 'string' },
    target: { type: 'string', default: 'server' },
    'events-storage': { type: 'string' },
    'restarts-only': { type: 'boolean', default: false },
  },
});

function positiveInteger(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`--${name} takes a positive integer, got ${String(text)}`);
  return value;
}

const objectCount = positiveInteger('objects', flags.objects);
const concurrency = positiveInteger('concurrency', flags.concurrency);
const valueBytes = positiveInteger('value-bytes', flags['value-bytes']);
const pageLimit = positiveInteger('page-limit', flags['page-limit']);
const heapSnapshotDir = flags['heap-snapshot'] === undefined ? undefined : path.resolve(flags['heap-snapshot']);
const target = flags.target;
if (target !== 'server' && target !== 'cluster') throw new TypeError(`--target takes server or cluster, got ${String(target)}`);
const namespace = 'scale';
const clockTicksPerSecond = 100;

function progress(message: string): void {
  process.stderr.write(`[bench:scale] ${message}\n`);
}

function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function percentile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!);
}

async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** utime + stime of `pid` (all its threads), or of its thread `tid` (the main thread: tid = pid), ms. */
async function cpuMs(pid: number, tid?: number): Promise<number> {
  const stat = await readFile(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Samples RSS each second until three consecutive samples agree within 1% (at most 30 s). */
async function settledRss(pid: number): Promise<number> {
  const samples: number[] = [await rssBytes(pid)];
  for (let second = 0; second < 30; second++) {
    await delay(1_000);
    samples.push(await rssBytes(pid));
    const recent = samples.slice(-3);
    if (recent.length === 3 && Math.max(...recent) - Math.min(...recent) <= 0.01 * Math.max(...recent)) break;
  }
  return samples.at(-1)!;
}

/** A `kstore server` started by this bench with its own node flags (KstoreProcess passes none). */
interface Server {
  readonly pid: number;
  readonly url: string;
  readonly kubeconfigPath: string;
  output(): string;
  signal(signal: NodeJS.Signals): void;
  stop(signal: NodeJS.Signals): Promise<void>;
}

async function startServer(dataDir: string, port: number, nodeFlags: readonly string[]): Promise<{ server: Server; spawnedAt: number }> {
  const spawnedAt = now();
  const child = spawn(process.execPath, [...kstoreNodeArgs('alone'), ...nodeFlags, path.join(repoRoot, 'deploy', 'kstore.mjs'), 'server', '--port', String(port), '--data-dir', dataDir], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  process.once('exit', () => child.kill('SIGKILL'));
  const ready = await waitFor(() => {
    if (exited) throw new Error(`kstore server exited before ready:\n${output.slice(-3000)}`);
    return /^kstore ready: serving (https:\/\/\S+)/m.exec(output) ?? false;
  }, { timeoutMs: 180_000, intervalMs: 20, description: 'the kstore ready line', diagnostics: () => output.slice(-3000) }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exit;
    throw error;
  });
  const kubeconfig = /^kubeconfig: (.+)$/m.exec(output);
  if (kubeconfig?.[1] === undefined || child.pid === undefined) throw new Error(`ready line without kubeconfig:\n${output}`);
  const server: Server = {
    pid: child.pid, url: ready[1]!, kubeconfigPath: kubeconfig[1].trim(),
    output: () => output,
    signal: (signal) => { child.kill(signal); },
    stop: async (signal) => {
      if (!exited) child.kill(signal);
      await exit;
    },
  };
  return { server, spawnedAt };
}

async function waitReady(server: Server, credentials: KubeconfigCredentials): Promise<void> {
  await waitFor(async () => {
    const response = await httpsRequest(server.url, credentials, { path: '/readyz', timeoutMs: 5_000 }).catch(() => undefined);
    return response?.status === 200;
  }, { timeoutMs: 180_000, intervalMs: 25, description: '/readyz 200' });
}

function configMap(index: number, value: string): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: `cm-${String(index).padStart(7, '0')}`, namespace, labels: { app: 'bench-scale', shard: String(index % 16) } },
    data: { value },
  };
}

/** Creates the N ConfigMaps through `clients` (round robin per request); CPU of `pids` summed. */
async function fill(clients: readonly BenchClient[], pids: readonly number[]): Promise<Record<string, number>> {
  const value = 'x'.repeat(valueBytes);
  let next = 0;
  let errors = 0;
  const totalCpuMs = async (): Promise<number> => (await Promise.all(pids.map((pid) => cpuMs(pid)))).reduce((sum, ms) => sum + ms, 0);
  const cpuBefore = await totalCpuMs();
  const started = now();
  let lastReport = started;
  const worker = async (): Promise<void> => {
    while (next < objectCount) {
      const index = next++;
      const client = clients[index % clients.length]!;
      const response = await client.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, configMap(index, value));
      if (response.status !== 201) {
        errors++;
        if (errors > 100) throw new Error(`too many failed creates; last HTTP ${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`);
        next = Math.min(next, index); // retried by whichever worker comes next
      }
      if (now() - lastReport > 5_000) {
        lastReport = now();
        progress(`filled ${next}/${objectCount}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  const seconds = (now() - started) / 1000;
  const cpu = (await totalCpuMs()) - cpuBefore;
  return { creates: objectCount, errors, seconds: round(seconds), perSecond: round(objectCount / seconds), serverCpuMsPerCreate: round(cpu / objectCount, 3) };
}

/** RSS settled, then the process's memory after two forced full GCs (and once more a second later: V8 gives pages back after sweeping). */
async function memoryOf(pid: number): Promise<MemoryAfterGc> {
  await settledRss(pid);
  await memoryAfterFullGc(pid);
  await delay(1_000);
  return memoryAfterFullGc(pid);
}

const mib = (bytes: number): number => round(bytes / 2 ** 20);

/** Empty and filled figures of one process, and (filled − empty) / N for each. */
function memoryReport(empty: MemoryAfterGc, filled: MemoryAfterGc): Record<string, unknown> {
  const fields = ['rss', 'heapUsed', 'heapTotal', 'external', 'arrayBuffers', 'anonymous', 'fileBacked'] as const;
  const perObject = (field: (typeof fields)[number]): number => Math.round((filled[field] - empty[field]) / objectCount);
  // RSS not explained by the V8 heap's committed pages and the array buffers: malloc'd memory of
  // node, V8 and libc (including freed pages glibc keeps), code and thread stacks.
  const other = (memory: MemoryAfterGc): number => memory.rss - memory.heapTotal - memory.external;
  return {
    rssBytesPerObject: perObject('rss'),
    heapUsedBytesPerObject: perObject('heapUsed'),
    heapCommittedBytesPerObject: perObject('heapTotal'),
    externalBytesPerObject: perObject('external'),
    arrayBuffersBytesPerObject: perObject('arrayBuffers'),
    otherBytesPerObject: Math.round((other(filled) - other(empty)) / objectCount),
    emptyMiB: Object.fromEntries(fields.map((field) => [field, mib(empty[field])])),
    filledMiB: Object.fromEntries(fields.map((field) => [field, mib(filled[field])])),
    note: 'after two forced full GCs (inspector); other = rss − heapTotal − external (malloc, code, stacks)',
  };
}

/** The newest "raft snapshot taken" log line's index and bytes in `output`. */
function newestSnapshot(output: string): { index: number; bytes: number } | null {
  let newest: { index: number; bytes: number } | null = null;
  for (const line of output.split('\n')) {
    if (!line.includes('"raft snapshot taken"') && !line.includes('"raft snapshot installed"')) continue;
    try {
      const fields = JSON.parse(line.slice(line.indexOf('{'))) as { index?: number; bytes?: number };
      if (typeof fields.index === 'number' && typeof fields.bytes === 'number') newest = { index: fields.index, bytes: fields.bytes };
    } catch {
      // not a JSON log line
    }
  }
  return newest;
}

/** The applied index the server serves at (a list's resourceVersion). */
async function appliedIndex(client: BenchClient): Promise<number> {
  const response = await client.request('GET', `/api/v1/namespaces/${namespace}/configmaps?limit=1`);
  return Number((response.body['metadata'] as { resourceVersion?: string } | undefined)?.resourceVersion);
}

async function walkPages(client: BenchClient): Promise<Record<string, number | null>> {
  const latencies: number[] = [];
  let token: string | undefined;
  let items = 0;
  do {
    const query = `limit=${pageLimit}${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`;
    const started = now();
    const response = await client.request('GET', `/api/v1/namespaces/${namespace}/configmaps?${query}`);
    latencies.push(now() - started);
    if (response.status !== 200) throw new Error(`list page: HTTP ${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`);
    items += (response.body['items'] as unknown[]).length;
    const metadata = response.body['metadata'] as { continue?: string } | undefined;
    token = metadata?.continue === '' ? undefined : metadata?.continue;
  } while (token !== undefined);
  const sorted = [...latencies].sort((a, b) => a - b);
  return { pages: latencies.length, items, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: percentile(sorted, 1) };
}

async function fullList(server: Server, credentials: KubeconfigCredentials): Promise<Record<string, number>> {
  const started = now();
  const response = await httpsRequest(server.url, credentials, { path: `/api/v1/namespaces/${namespace}/configmaps`, timeoutMs: 120_000 });
  const ms = now() - started;
  if (response.status !== 200) throw new Error(`full list: HTTP ${response.status}`);
  const items = (JSON.parse(response.body) as { items: unknown[] }).items.length;
  return { items, ms: round(ms), bytes: Buffer.byteLength(response.body) };
}

async function restart(server: Server, dataDir: string, port: number, signal: NodeJS.Signals, credentials: KubeconfigCredentials): Promise<{ server: Server; result: Record<string, number | boolean> }> {
  const quiet = await waitForQuietMachine();
  const machineBefore = await machineCpuMs();
  const ownBefore = ownCpuMs();
  const stopped = now();
  await server.stop(signal);
  const stopMs = now() - stopped;
  const { server: next, spawnedAt } = await startServer(dataDir, port, ['--inspect=127.0.0.1:0']);
  const readyLineMs = now() - spawnedAt;
  await waitReady(next, credentials);
  const readyMs = now() - spawnedAt;
  const [readyCpuMs, readyMainThreadCpuMs] = await Promise.all([cpuMs(next.pid), cpuMs(next.pid, next.pid)]);
  const machineBusyMs = (await machineCpuMs()).busy - machineBefore.busy;
  const loadGeneratorCpuMs = ownCpuMs() - ownBefore;
  const rss = await rssBytes(next.pid);
  const settled = await memoryOf(next.pid);
  return {
    server: next,
    result: {
      quietBeforeStop: quiet.quiet, quietWaitMs: quiet.waitedMs,
      stopMs: round(stopMs), readyLineMs: round(readyLineMs), readyzMs: round(readyMs), cpuMs: readyCpuMs, mainThreadCpuMs: readyMainThreadCpuMs,
      // The machine's CPU from the stop to /readyz besides the restarted server's: the stopped
      // server's exit, this process (the load generator, polling /readyz) and other processes.
      otherCpuMs: round(machineBusyMs - readyCpuMs), loadGeneratorCpuMs: round(loadGeneratorCpuMs), rssMiB: round(rss / 2 ** 20),
      rssAfterGcMiB: mib(settled.rss), heapUsedAfterGcMiB: mib(settled.heapUsed), externalAfterGcMiB: mib(settled.external),
    },
  };
}

async function writeHeapSnapshot(server: Server, directory: string): Promise<string> {
  const before = new Set(await readdir(directory));
  server.signal('SIGUSR2');
  const written = await waitFor(async () => {
    const fresh = (await readdir(directory)).filter((name) => name.endsWith('.heapsnapshot') && !before.has(name));
    return fresh[0];
  }, { timeoutMs: 600_000, intervalMs: 500, description: 'the heap snapshot file' });
  // The file grows until V8 is done; wait for its size to stop moving.
  let size = -1;
  for (;;) {
    await delay(2_000);
    const current = (await readFile(path.join(directory, written)).catch(() => Buffer.alloc(0))).length;
    if (current === size && current > 0) break;
    size = current;
  }
  return path.join(directory, written);
}

async function runServer(): Promise<void> {
  const dir = flags['data-dir'] === undefined
    ? await makeTempDir('kstore-bench-scale-')
    : { path: path.resolve(flags['data-dir']), remove: async (): Promise<void> => {} };
  const snapshotFlags = heapSnapshotDir === undefined ? [] : ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapSnapshotDir}`];
  const port = await freePort('127.0.0.1');
  let { server } = await startServer(dir.path, port, ['--inspect=127.0.0.1:0', ...snapshotFlags]);
  const client = new BenchClient(server.url, await readKubeconfig(server.kubeconfigPath), concurrency);
  try {
    const credentials = await readKubeconfig(server.kubeconfigPath);
    const pid = server.pid;
    const created = await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    if (created.status !== 201) throw new Error(`namespace: HTTP ${created.status}`);
    const empty = await memoryOf(pid);
    progress(`empty: RSS ${mib(empty.rss)} MiB after GC; filling ${objectCount} ConfigMaps with ${concurrency} clients`);
    const filled = await fill([client], [pid]);
    progress(`filled in ${filled['seconds']} s; settling`);
    const full = await memoryOf(pid);
    const sample = await client.request('GET', `/api/v1/namespaces/${namespace}/configmaps/cm-0000000`);
    const objectJsonBytes = Buffer.byteLength(JSON.stringify(sample.body));
    const memory = { objectJsonBytes, ...memoryReport(empty, full) };
    const raft = { appliedIndex: await appliedIndex(client), newestSnapshot: newestSnapshot(server.output()) };
    progress(`memory: ${JSON.stringify(memory)} raft: ${JSON.stringify(raft)}`);
    const heapSnapshot = heapSnapshotDir === undefined ? undefined : await writeHeapSnapshot(server, heapSnapshotDir);
    if (heapSnapshot !== undefined) progress(`heap snapshot: ${heapSnapshot}`);
    progress('walking list pages');
    const paging = { limit: pageLimit, ...(await walkPages(client)) };
    progress(`pages: ${JSON.stringify(paging)}; full list`);
    const unchunked = await fullList(server, credentials);
    progress(`full list: ${JSON.stringify(unchunked)}; restart after SIGTERM`);
    client.close();
    const afterTerm = await restart(server, dir.path, port, 'SIGTERM', credentials);
    server = afterTerm.server;
    progress(`SIGTERM restart: ${JSON.stringify(afterTerm.result)}; restart after SIGKILL`);
    const afterKill = await restart(server, dir.path, port, 'SIGKILL', credentials);
    server = afterKill.server;
    progress(`SIGKILL restart: ${JSON.stringify(afterKill.result)}`);
    const report = {
      bench: 'scale', target: 'server', date: new Date().toISOString(), objects: objectCount, concurrency, valueBytes,
      fill: filled, memory, raft, ...(heapSnapshot === undefined ? {} : { heapSnapshot }),
      listPages: paging, fullList: unchunked,
      restart: { afterSigterm: afterTerm.result, afterSigkill: afterKill.result },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    client.close();
    await server.stop('SIGKILL');
    await dir.remove();
  }
}

// ---------------------------------------------------------------------------------------------
// --target cluster


/** The store members' log lines (their JSON log files under the cluster's directory). */
async function storeLogs(dataDir: string): Promise<Map<string, string>> {
  const logs = new Map<string, string>();
  const walk = async (directory: string): Promise<void> => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith('.log')) logs.set(path.relative(dataDir, full), await readFile(full, 'utf8'));
    }
  };
  await walk(dataDir);
  return logs;
}

async function runCluster(): Promise<void> {
  const dir = flags['data-dir'] === undefined
    ? await makeTempDir('kstore-bench-scale-cluster-')
    : { path: path.resolve(flags['data-dir']), remove: async (): Promise<void> => {} };
  let clients: BenchClient[] = [];
  let interrupted = true;
  const onExit = (): void => {
    killKstoreCommands();
    if (interrupted) killClusterSync(dir.path);
  };
  process.once('exit', onExit);
  try {
    // Every kstore process `up` starts inherits NODE_OPTIONS: an inspector on a free loopback port.
    const up = await runKstore(['cluster', 'up', '--data-dir', dir.path, '--stores', '3', '--apis', '2',
      ...(flags['events-storage'] === undefined ? [] : ['--events-storage', flags['events-storage']])], { NODE_OPTIONS: '--inspect=127.0.0.1:0' });
    if (up.code !== 0) throw new Error(`kstore cluster up failed (exit ${String(up.code)}):\n${up.output.slice(-4000)}`);
    const statusRun = await runKstore(['cluster', 'status', '--data-dir', dir.path, '--json']);
    const status = JSON.parse(statusRun.stdout) as ClusterProcesses;
    const members = [
      ...status.stores.map((store) => ({ name: store.id, kind: 'store' as const, pid: store.pid })),
      ...status.apis.map((api) => ({ name: api.name, kind: 'api' as const, pid: api.pid })),
    ].map((member) => {
      if (member.pid === undefined) throw new Error(`cluster status gives no pid for ${member.name}`);
      return { ...member, pid: member.pid };
    });
    const credentials = await readKubeconfig(path.join(dir.path, 'admin.kubeconfig'));
    clients = status.apis.map((api) => new BenchClient(api.url, credentials, Math.ceil(concurrency / status.apis.length)));
    if (flags['restarts-only']) {
      const raft = { appliedIndex: await appliedIndex(clients[0]!) };
      progress(`restarting members of the cluster in ${dir.path} (applied index ${raft.appliedIndex})`);
      const restart = await restartClusterMembers(dir.path, { NODE_OPTIONS: '--inspect=127.0.0.1:0' }, credentials, clients.at(-1)!, progress);
      process.stdout.write(`${JSON.stringify({ bench: 'scale', target: 'cluster', restartsOnly: true, date: new Date().toISOString(), raft, restart }, null, 2)}\n`);
      return;
    }
    const created = await clients[0]!.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    if (created.status !== 201) throw new Error(`namespace: HTTP ${created.status}`);
    const empty = new Map<string, MemoryAfterGc>();
    for (const member of members) empty.set(member.name, await memoryOf(member.pid));
    progress(`empty: ${members.map((member) => `${member.name} ${mib(empty.get(member.name)!.rss)} MiB`).join(', ')}; filling ${objectCount} ConfigMaps`);
    const filled = await fill(clients, members.map((member) => member.pid));
    progress(`filled in ${filled['seconds']} s; settling`);
    const memory: Record<string, unknown> = {};
    for (const member of members) {
      memory[member.name] = { kind: member.kind, ...memoryReport(empty.get(member.name)!, await memoryOf(member.pid)) };
      progress(`${member.name}: ${JSON.stringify(memory[member.name])}`);
    }
    const logs = await storeLogs(dir.path);
    const snapshots = Object.fromEntries([...logs].map(([file, text]) => [file, newestSnapshot(text)]).filter(([, snapshot]) => snapshot !== null));
    const raft = { appliedIndex: await appliedIndex(clients[0]!), newestSnapshots: snapshots };
    progress('walking list pages');
    const paging = { limit: pageLimit, ...(await walkPages(clients[0]!)) };
    progress(`pages: ${JSON.stringify(paging)}; restarting members`);
    const restart = await restartClusterMembers(dir.path, { NODE_OPTIONS: '--inspect=127.0.0.1:0' }, credentials, clients.at(-1)!, progress);
    const report = {
      bench: 'scale', target: 'cluster', date: new Date().toISOString(), objects: objectCount, concurrency, valueBytes,
      fill: { ...filled, cpuNote: 'serverCpuMsPerCreate: the stores and API replicas together' }, memory, raft, listPages: paging, restart,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    for (const client of clients) client.close();
    const down = await runKstore(['cluster', 'down', '--data-dir', dir.path]).catch((error: unknown) => ({ code: null, output: String(error) }));
    if (down.code === 0) interrupted = false;
    else progress(`cluster down exited ${String(down.code)}: ${down.output.slice(-2000)}; SIGKILL`);
    onExit();
    process.off('exit', onExit);
    await dir.remove();
  }
}

function main(): Promise<void> {
  if (flags['restarts-only'] && (target !== 'cluster' || flags['data-dir'] === undefined)) {
    return Promise.reject(new TypeError('--restarts-only takes --target cluster and the --data-dir of a filled cluster'));
  }
  return target === 'cluster' ? runCluster() : runServer();
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench:scale] failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
