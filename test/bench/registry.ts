// Owns: `npm run bench:registry` — what describing every kind as data (the generated 1.33
// descriptions, schemas and protobuf messages built from them at start) costs, measured against
// an earlier revision of kstore in the same run. A benchmark, not a test: it prints ONE JSON
// document on stdout (progress goes to stderr).
//
// For this checkout and for `--compare REV` (default 49dec8c, the last revision whose kinds
// were hand-written tables; checked out into a temporary git worktree that shares this
// checkout's node_modules), each measured the same way:
// - registry load: a fresh node process imports the API tier (api/index.ts) `--runs` times;
//   wall and CPU milliseconds of the import (median), and the number of kinds served;
// - server start: `kstore server` on a free port and a new data dir, `--runs` times; wall
//   milliseconds from spawn to its ready line and the process's CPU milliseconds at that point
//   (from /proc/<pid>/stat), median;
// - per request: on one started server, `--requests` sequential ConfigMap creates, then as many
//   GETs of them, then as many namespace lists (limit 10) over keep-alive HTTPS with the admin
//   client certificate; the server's CPU milliseconds per request from /proc (before and after
//   each phase), and requests/s.
//
// Flags: --compare REV (or "none") --runs N (default 5) --requests N (default 2000).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readKubeconfig } from '../support/kube-client.ts';
import { freePort } from '../support/free-port.ts';
import { repoRoot } from '../support/kstore-process.ts';
import { BenchClient } from './https-client.ts';

const { values: flags } = parseArgs({
  options: {
    compare: { type: 'string', default: '49dec8c' },
    runs: { type: 'string', default: '5' },
    requests: { type: 'string', default: '2000' },
  },
});

function positive(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`--${name} takes a positive integer, got ${String(text)}`);
  return value;
}

const runs = positive('runs', flags.runs);
const requests = positive('requests', flags.requests);

function log(message: string): void {
  process.stderr.write(`[bench:registry] ${message}\n`);
}

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU milliseconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

interface RegistryLoad { readonly wallMs: number; readonly cpuMs: number; readonly kinds: number }

/** Imports the API tier in a fresh process and reports how long the import took. */
function loadRegistry(root: string): RegistryLoad {
  const script = `
    const started = performance.now(); const cpu = process.cpuUsage();
    await import(${JSON.stringify(path.join(root, 'api', 'index.ts'))});
    const { servedKinds } = await import(${JSON.stringify(path.join(root, 'api', 'registry', 'kinds.ts'))});
    const used = process.cpuUsage(cpu);
    process.stdout.write(JSON.stringify({ wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, kinds: servedKinds.length }));`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output) as RegistryLoad;
}

interface StartedServer {
  readonly pid: number;
  readonly url: string;
  readonly kubeconfig: string;
  readonly readyWallMs: number;
  readonly readyCpuMs: number;
  stop(): Promise<void>;
}

async function startServer(root: string): Promise<StartedServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kstore-bench-registry-'));
  const port = await freePort('127.0.0.1');
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(root, 'deploy', 'kstore.mjs'), 'server', '--port', String(port), '--data-dir', dataDir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const ready = await new Promise<{ url: string; kubeconfig: string } | undefined>((resolve) => {
    const deadline = setTimeout(() => resolve(undefined), 60_000);
    const check = (): void => {
      const url = /^kstore ready: serving (https:\/\/\S+)/m.exec(output)?.[1];
      const kubeconfig = /^kubeconfig: (.+)$/m.exec(output)?.[1];
      if (url !== undefined && kubeconfig !== undefined) {
        clearTimeout(deadline);
        resolve({ url, kubeconfig: kubeconfig.trim() });
      }
    };
    child.stdout.on('data', check);
    void exited.then(() => { clearTimeout(deadline); resolve(undefined); });
  });
  if (ready === undefined || child.pid === undefined) {
    await stop();
    throw new Error(`kstore server in ${root} did not become ready:\n${output}`);
  }
  return { pid: child.pid, url: ready.url, kubeconfig: ready.kubeconfig, readyWallMs: performance.now() - started, readyCpuMs: cpuMs(child.pid), stop };
}

interface Phase { readonly requests: number; readonly perSecond: number; readonly serverCpuMsPerRequest: number; readonly failures: number }

async function phase(server: StartedServer, count: number, request: (sequence: number) => Promise<boolean>): Promise<Phase> {
  const cpuBefore = cpuMs(server.pid);
  const started = performance.now();
  let failures = 0;
  for (let sequence = 0; sequence < count; sequence++) if (!(await request(sequence))) failures++;
  const seconds = (performance.now() - started) / 1000;
  return { requests: count, perSecond: round(count / seconds), serverCpuMsPerRequest: round((cpuMs(server.pid) - cpuBefore) / count), failures };
}

async function perRequest(server: StartedServer): Promise<Record<string, Phase>> {
  const client = new BenchClient(server.url, await readKubeconfig(server.kubeconfig), 1);
  try {
    const namespace = '/api/v1/namespaces/default/configmaps';
    const value = 'x'.repeat(700);
    // Warm-up: the first requests load code paths the measured ones then share.
    for (let sequence = 0; sequence < 50; sequence++) await client.request('GET', `${namespace}?limit=1`);
    const creates = await phase(server, requests, async (sequence) => {
      const response = await client.request('POST', namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bench-${sequence}` }, data: { value } });
      return response.status === 201;
    });
    const gets = await phase(server, requests, async (sequence) => (await client.request('GET', `${namespace}/bench-${sequence}`)).status === 200);
    const lists = await phase(server, requests, async () => (await client.request('GET', `${namespace}?limit=10`)).status === 200);
    return { creates, gets, lists };
  } finally {
    client.close();
  }
}

async function measure(root: string, revision: string): Promise<Record<string, unknown>> {
  log(`${revision}: registry load x${runs}`);
  const loads = Array.from({ length: runs }, () => loadRegistry(root));
  log(`${revision}: server start x${runs}`);
  const starts: { wallMs: number; cpuMs: number }[] = [];
  for (let run = 0; run < runs; run++) {
    const server = await startServer(root);
    starts.push({ wallMs: server.readyWallMs, cpuMs: server.readyCpuMs });
    await server.stop();
  }
  log(`${revision}: ${requests} requests per phase`);
  const server = await startServer(root);
  let phases: Record<string, Phase>;
  try {
    phases = await perRequest(server);
  } finally {
    await server.stop();
  }
  return {
    revision,
    kinds: loads[0]!.kinds,
    registryLoad: { wallMs: round(median(loads.map((load) => load.wallMs))), cpuMs: round(median(loads.map((load) => load.cpuMs))) },
    serverStart: { wallMs: round(median(starts.map((start) => start.wallMs))), cpuMs: round(median(starts.map((start) => start.cpuMs))) },
    perRequest: phases,
  };
}

function git(args: readonly string[], cwd = repoRoot): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

async function main(): Promise<void> {
  const results: Record<string, unknown>[] = [];
  const head = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain']) !== '';
  results.push(await measure(repoRoot, `${head}${dirty ? '+changes' : ''} (this checkout)`));
  if (flags.compare !== 'none') {
    const worktree = mkdtempSync(path.join(os.tmpdir(), 'kstore-bench-compare-'));
    rmSync(worktree, { recursive: true });
    git(['worktree', 'add', '--detach', worktree, flags.compare]);
    try {
      symlinkSync(path.join(repoRoot, 'node_modules'), path.join(worktree, 'node_modules'));
      results.push(await measure(worktree, git(['rev-parse', '--short', 'HEAD'], worktree)));
    } finally {
      git(['worktree', 'remove', '--force', worktree]);
    }
  }
  process.stdout.write(`${JSON.stringify({
    benchmark: 'registry', date: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? '', node: process.version },
    runs, requests, results,
  }, null, 2)}\n`);
}

await main();
