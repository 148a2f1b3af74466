// Owns: `npm run bench:api` — the Kubernetes API's performance over HTTPS on this machine, for
// the HA cluster (`kstore cluster up`: 3 nats-servers, 3 stores, 2 API replicas) next to the
// all-in-one `kstore server` as the baseline, measured in the same run. A benchmark, not a
// test: it prints ONE JSON document on stdout (progress goes to stderr) and exits 0 unless a
// target could not be measured at all.
//
// Per target:
// - creates: closed-loop clients (load.ts) at each concurrency (default 1, 16, 64, 256; 10 s each
//   after 1 s of warm-up) POST ConfigMaps with 700 bytes of data; keep-alive HTTPS connections
//   with the admin client certificate, clients spread round-robin over the API endpoints;
// - gets: 64 clients GET ConfigMaps created earlier (random names), Most Recent reads;
// - lists: 16 clients list a namespace holding the benchmark's 100 labelled ConfigMaps (Most
//   Recent); only the items carrying the benchmark's label are counted, since the namespace also
//   holds what the server publishes into every namespace (the root CA publisher's
//   `kube-root-ca.crt`);
// - watch delivery (watch-delivery.ts): W watchers (default 100 and 1,000, spread over the endpoints) watch one
//   namespace from its list resourceVersion while one writer updates a ConfigMap at a steady pace
//   (default 20/s, 100 updates); for each update and watcher: arrival minus the write's start
//   (includes the commit), and arrival minus the write's acknowledgement (negative when the event
//   beat the response), p50/p99, and how many expected events never arrived.
//
// Flags: --targets cluster,server --concurrency 1,16,64,256 --duration-ms N --warmup-ms N
// --watchers 100,1000 --watch-updates N --watch-rate N --value-bytes N --kubeconfig FILE (an
// existing cluster instead of starting targets: named "external") --cpu-prof DIR (the cluster's
// kstore processes write V8 CPU profiles there; read them with test/bench/cpuprofile-summary.ts).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readKubeconfig } from '../support/kube-client.ts';
import type { Credentials } from '../support/kube-client.ts';
import { KstoreProcess, repoRoot } from '../support/kstore-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { BenchClient, configMap, ensureNamespace, expectStatus } from './https-client.ts';
import { runLevel } from './load.ts';
import type { LevelResult } from './load.ts';
import { measureWatchDelivery } from './watch-delivery.ts';
import type { WatchDeliveryResult } from './watch-delivery.ts';

const { values: flags } = parseArgs({
  options: {
    targets: { type: 'string', default: 'cluster,server' },
    concurrency: { type: 'string', default: '1,16,64,256' },
    'duration-ms': { type: 'string', default: '10000' },
    'warmup-ms': { type: 'string', default: '1000' },
    watchers: { type: 'string', default: '100,1000' },
    'watch-updates': { type: 'string', default: '100' },
    'watch-rate': { type: 'string', default: '20' },
    'value-bytes': { type: 'string', default: '700' },
    kubeconfig: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});

function positiveIntegers(name: string, text: string | undefined): number[] {
  return (text ?? '').split(',').map((item) => {
    const value = Number(item);
    if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`--${name} takes positive integers, got ${String(item)}`);
    return value;
  });
}

const levels = positiveIntegers('concurrency', flags.concurrency);
const durationMs = positiveIntegers('duration-ms', flags['duration-ms'])[0]!;
const warmupMs = Number(flags['warmup-ms']);
const watcherCounts = positiveIntegers('watchers', flags.watchers);
const watchUpdates = positiveIntegers('watch-updates', flags['watch-updates'])[0]!;
const watchRate = positiveIntegers('watch-rate', flags['watch-rate'])[0]!;
const valueBytes = positiveIntegers('value-bytes', flags['value-bytes'])[0]!;
const targetNames = (flags.targets ?? '').split(',').filter((name) => name !== '');
const getConcurrency = 64;
const listConcurrency = 16;
const listNamespaceSize = 100;
const readDurationMs = Math.min(durationMs, 5_000);

function progress(message: string): void {
  process.stderr.write(`[bench:api] ${message}\n`);
}

function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A running system under test: API endpoints, the admin credentials, and how to stop it. */
interface Target {
  readonly name: string;
  readonly endpoints: readonly string[];
  readonly credentials: Credentials;
  stop(): Promise<void>;
}

async function startServer(): Promise<Target> {
  const dir = await makeTempDir('kstore-bench-api-server-');
  const server = await KstoreProcess.start({ dataDir: dir.path });
  const kubeconfig = await readKubeconfig(server.kubeconfigPath);
  return {
    name: 'server', endpoints: [server.url], credentials: kubeconfig,
    stop: async () => {
      await server.stop().catch(() => server.kill());
      await dir.remove();
    },
  };
}

function runKstore(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const env = flags['cpu-prof'] === undefined ? process.env : { ...process.env, KSTORE_CPU_PROFILE_DIR: path.resolve(flags['cpu-prof']) };
    const child = spawn(process.execPath, [path.join(repoRoot, 'deploy', 'kstore.mjs'), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

interface ClusterFile {
  readonly apis?: readonly { readonly url?: string }[];
  readonly kubeconfig?: string;
}

async function startCluster(): Promise<Target> {
  const dir = await makeTempDir('kstore-bench-api-cluster-');
  const down = async (): Promise<void> => {
    const result = await runKstore(['cluster', 'down', '--data-dir', dir.path]);
    if (result.code !== 0) progress(`cluster down exited ${String(result.code)}: ${result.output.slice(-2000)}`);
  };
  const up = await runKstore(['cluster', 'up', '--data-dir', dir.path, '--stores', '3', '--apis', '2']);
  if (up.code !== 0) {
    await down();
    await dir.remove();
    throw new Error(`kstore cluster up failed (exit ${String(up.code)}):\n${up.output.slice(-4000)}`);
  }
  const cluster = JSON.parse(await readFile(path.join(dir.path, 'cluster.json'), 'utf8')) as ClusterFile;
  const endpoints = (cluster.apis ?? []).map((api) => api.url).filter((url): url is string => typeof url === 'string');
  if (endpoints.length === 0) throw new Error('cluster.json lists no API replica URL');
  const credentials = await readKubeconfig(cluster.kubeconfig ?? path.join(dir.path, 'admin.kubeconfig'));
  return {
    name: 'cluster', endpoints, credentials,
    stop: async () => {
      await down();
      await dir.remove();
    },
  };
}

async function externalTarget(kubeconfig: string): Promise<Target> {
  const credentials = await readKubeconfig(kubeconfig);
  return { name: 'external', endpoints: [credentials.server], credentials, stop: async () => {} };
}

/** Clients over all endpoints; client i talks to endpoint i mod n. */
class Clients {
  readonly all: BenchClient[];

  constructor(target: Target, maxSocketsEach: number) {
    this.all = target.endpoints.map((endpoint) => new BenchClient(endpoint, target.credentials, maxSocketsEach));
  }

  of(position: number): BenchClient {
    return this.all[position % this.all.length]!;
  }

  close(): void {
    for (const client of this.all) client.close();
  }
}

/** The label on the ConfigMaps the lists step creates; the list check counts only these. */
const listItemLabel = { key: 'bench.kstore.io/list', value: 'item' } as const;

function isListItem(item: unknown): boolean {
  const labels = (item as { metadata?: { labels?: Record<string, unknown> } } | null)?.metadata?.labels;
  return labels?.[listItemLabel.key] === listItemLabel.value;
}

interface TargetResult {
  readonly endpoints: number;
  readonly creates: readonly LevelResult[];
  readonly gets: LevelResult;
  readonly lists: LevelResult & { readonly itemsPerList: number };
  readonly watch: readonly WatchDeliveryResult[];
}

async function measureCreates(clients: Clients, value: string): Promise<{ results: LevelResult[]; names: string[] }> {
  const namespace = 'bench';
  await ensureNamespace(clients.of(0), namespace);
  const names: string[] = [];
  const results: LevelResult[] = [];
  for (const concurrency of levels) {
    progress(`creates at ${concurrency} clients`);
    const result = await runLevel(concurrency, warmupMs, durationMs, async (client, sequence) => {
      const name = `c${concurrency}-${client}-${sequence}`;
      await expectStatus(clients.of(client).request('POST', `/api/v1/namespaces/${namespace}/configmaps`, configMap(name, value)), [201], `create ${name}`);
      if (names.length < 20_000) names.push(name);
    });
    results.push(result);
    progress(`  ${JSON.stringify(result)}`);
  }
  return { results, names };
}

async function measureGets(clients: Clients, names: readonly string[]): Promise<LevelResult> {
  progress(`gets at ${getConcurrency} clients`);
  let next = 0;
  return runLevel(getConcurrency, warmupMs, readDurationMs, async (client) => {
    const name = names[(next = (next + 7919) % names.length)]!;
    await expectStatus(clients.of(client).request('GET', `/api/v1/namespaces/bench/configmaps/${name}`), [200], `get ${name}`);
  });
}

async function measureLists(clients: Clients, value: string): Promise<LevelResult & { itemsPerList: number }> {
  const namespace = 'bench-list';
  await ensureNamespace(clients.of(0), namespace);
  for (let start = 0; start < listNamespaceSize; start += 20) {
    await Promise.all(Array.from({ length: Math.min(20, listNamespaceSize - start) }, (_, offset) =>
      expectStatus(clients.of(offset).request('POST', `/api/v1/namespaces/${namespace}/configmaps`, configMap(`l-${start + offset}`, value, { [listItemLabel.key]: listItemLabel.value })), [201, 409], 'create list item')));
  }
  progress(`lists at ${listConcurrency} clients`);
  const result = await runLevel(listConcurrency, warmupMs, readDurationMs, async (client) => {
    const body = await expectStatus(clients.of(client).request('GET', `/api/v1/namespaces/${namespace}/configmaps`), [200], 'list');
    // The request lists the whole namespace (what the figure measures); the check counts only the
    // benchmark's own items, whatever else controllers have put there.
    const items = body.items;
    if (!Array.isArray(items)) throw new Error('list returned no items array');
    const own = items.filter(isListItem).length;
    if (own !== listNamespaceSize) throw new Error(`list returned ${own} of the benchmark's ${listNamespaceSize} items (${items.length} in all)`);
  });
  return { ...result, itemsPerList: listNamespaceSize };
}

async function measure(target: Target): Promise<TargetResult> {
  const maxSockets = Math.max(...levels, getConcurrency, listConcurrency);
  const clients = new Clients(target, maxSockets);
  const value = 'x'.repeat(valueBytes);
  try {
    const creates = await measureCreates(clients, value);
    const gets = await measureGets(clients, creates.names);
    progress(`  ${JSON.stringify(gets)}`);
    const lists = await measureLists(clients, value);
    progress(`  ${JSON.stringify(lists)}`);
    const watch: WatchDeliveryResult[] = [];
    for (const count of watcherCounts) {
      const result = await measureWatchDelivery({
        namespace: `bench-watch-${count}`, watchers: count, updates: watchUpdates, ratePerSecond: watchRate,
        writer: clients.of(0), watcherClient: (position) => clients.of(position), progress,
      });
      progress(`  ${JSON.stringify(result)}`);
      watch.push(result);
    }
    return { endpoints: target.endpoints.length, creates: creates.results, gets, lists, watch };
  } finally {
    clients.close();
  }
}

async function main(): Promise<number> {
  const results: Record<string, TargetResult | { readonly unavailable: string }> = {};
  const starters: Record<string, () => Promise<Target>> = { server: startServer, cluster: startCluster };
  const plan = flags.kubeconfig === undefined ? targetNames : ['external'];
  let measured = 0;
  for (const name of plan) {
    let target: Target;
    try {
      if (name === 'external') target = await externalTarget(flags.kubeconfig!);
      else {
        const start = starters[name];
        if (start === undefined) throw new Error(`unknown target ${name} (cluster, server)`);
        progress(`starting ${name}`);
        target = await start();
      }
    } catch (error) {
      results[name] = { unavailable: error instanceof Error ? error.message : String(error) };
      progress(`${name} unavailable: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    try {
      results[name] = await measure(target);
      measured += 1;
    } catch (error) {
      results[name] = { unavailable: `measurement failed: ${error instanceof Error ? error.message : String(error)}` };
      progress(`${name} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    } finally {
      await target.stop();
    }
  }
  const document = {
    benchmark: 'bench:api',
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memoryGiB: round(os.totalmem() / 2 ** 30, 1), node: process.version },
    settings: { levels, durationMs, warmupMs, valueBytes, getConcurrency, listConcurrency, listNamespaceSize, watcherCounts, watchUpdates, watchRate },
    aims: {
      createsAt64: 'within 2x of bench:raft proposals/s at 64',
      createP99At16Ms: 50,
      watchDeliveryP99At1000WatchersMs: 100,
    },
    results,
  };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  return measured > 0 ? 0 : 1;
}

process.exitCode = await main();
