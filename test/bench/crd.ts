// Owns: `node --import tsx test/bench/crd.ts` — what CustomResourceDefinitions cost on a real
// `kstore server` (a temporary data dir, a free port) over HTTPS with the admin client
// certificate. A benchmark, not a test: it prints ONE JSON document on stdout (progress goes to
// stderr) and exits 0 unless something could not be measured. The comparison is within the run:
// custom resource creates with x-kubernetes-validations rules against the same creates without.
//
// - large CRDs (test/support/large-crd.ts): the ~330 KB operator CRD, then the ~1 MB one — the
//   wall time of the POST, of the POST until the Established condition is True and until the
//   kind is served (a list answers 200), the server's CPU milliseconds over that span (from
//   /proc/<pid>/stat), and the wall time of a re-apply (PUT with a changed description);
// - creates: two CRDs that differ only in their rules (`widgets-rules`: five typical rules — a
//   bound check across fields, a list all(), a regex matches(), a map all() over keys, an
//   optional-field comparison; `widgets-plain`: none), then for each, N closed-loop clients
//   (load.ts) POST the same Widget for a fixed duration after a warm-up: creates/s, p50/p99
//   latency, and the server's CPU milliseconds per create (/proc, around the measured window).
//   Both variants first warm up for twice the warm-up (JIT), then each round warms up again.
//   With --rounds 2 (the default) the variants run ABBA (plain, rules | rules, plain) so a
//   drifting machine biases neither; per-round figures and their totals are reported, and the
//   ratio rules/plain of each figure;
// - ruleEvaluation: the five rules alone evaluated in this process (CPU microseconds per object),
//   since the server's CPU per create moves between rounds by more than the rules cost.
//
// Flags: --duration 10s (or --duration-ms N) per variant and round, --warmup 2s (--warmup-ms N),
// --concurrency 16, --rounds 2, --skip-large, --cpu-prof DIR (the server writes a V8 CPU profile
// there when it exits; read it with test/bench/cpuprofile-summary.ts).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readKubeconfig } from '../support/kube-client.ts';
import { freePort } from '../support/free-port.ts';
import { kstoreNodeArgs, repoRoot } from '../support/kstore-process.ts';
import { largeCrd, largeCrdName, megabyteCrdOptions, operatorCrdOptions } from '../support/large-crd.ts';
import type { LargeCrdOptions } from '../support/large-crd.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { BenchClient } from './https-client.ts';
import { compileRules, validateWithRules } from '../../api/crd/cel/index.ts';
import type { CelSchema } from '../../api/crd/cel/index.ts';
import { now, runLevel } from './load.ts';
import type { LevelResult } from './load.ts';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string' },
    'duration-ms': { type: 'string', default: '10000' },
    warmup: { type: 'string' },
    'warmup-ms': { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '2' },
    'skip-large': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});

/** A Go-style duration (`10s`, `1500ms`, `1m`) or a plain number of milliseconds. */
function milliseconds(name: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (match === null) throw new TypeError(`--${name} takes a duration such as 10s or 1500ms, got ${text}`);
  return Number(match[1]) * (match[2] === 's' ? 1000 : match[2] === 'm' ? 60_000 : 1);
}

function positiveInteger(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`--${name} takes a positive integer, got ${String(text)}`);
  return value;
}

const durationMs = milliseconds('duration', flags.duration ?? flags['duration-ms'] ?? '10000');
const warmupMs = milliseconds('warmup', flags.warmup ?? flags['warmup-ms'] ?? '2000');
if (durationMs <= 0) throw new TypeError('--duration must be positive');
const concurrency = positiveInteger('concurrency', flags.concurrency);
const rounds = positiveInteger('rounds', flags.rounds);

function progress(message: string): void {
  process.stderr.write(`[bench:crd] ${message}\n`);
}

function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU milliseconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

// ---- the server ---------------------------------------------------------------------------------

interface Server {
  readonly pid: number;
  readonly url: string;
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

/** `kstore server` as a child process (own spawn, so --cpu-prof can pass node flags). */
async function startServer(dir: TempDir): Promise<Server> {
  const port = await freePort('127.0.0.1');
  const nodeArgs = flags['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', path.resolve(flags['cpu-prof'])];
  const child: ChildProcess = spawn(process.execPath, [...kstoreNodeArgs('alone'), ...nodeArgs, path.join(repoRoot, 'deploy', 'kstore.mjs'), 'server', '--port', String(port), '--data-dir', dir.path], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  };
  const ready = await new Promise<{ url: string; kubeconfig: string } | undefined>((resolve) => {
    const deadline = setTimeout(() => resolve(undefined), 90_000);
    const check = (): void => {
      const url = /^kstore ready: serving (https:\/\/\S+)/m.exec(output)?.[1];
      const kubeconfig = /^kubeconfig: (.+)$/m.exec(output)?.[1];
      if (url !== undefined && kubeconfig !== undefined) {
        clearTimeout(deadline);
        resolve({ url, kubeconfig: kubeconfig.trim() });
      }
    };
    child.stdout?.on('data', check);
    void exited.then(() => { clearTimeout(deadline); resolve(undefined); });
  });
  if (ready === undefined || child.pid === undefined) {
    await stop();
    throw new Error(`kstore server did not become ready:\n${output.slice(-4000)}`);
  }
  return { pid: child.pid, url: ready.url, kubeconfig: ready.kubeconfig, stop };
}

type Body = Record<string, unknown>;

async function expectStatus(promise: Promise<{ status: number; body: Body }>, accepted: readonly number[], what: string): Promise<Body> {
  const response = await promise;
  if (!accepted.includes(response.status)) throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 500)}`);
  return response.body;
}

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function established(crd: Body): boolean {
  const conditions = (crd['status'] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((condition) => condition.type === 'Established' && condition.status === 'True');
}

async function pollUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = now() + timeoutMs;
  while (!(await condition())) {
    if (now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

// ---- large CRDs --------------------------------------------------------------------------------------

interface LargeCrdResult {
  readonly name: string;
  readonly bytes: number;
  readonly versions: number;
  readonly rules: number;
  readonly createMs: number;
  readonly establishedMs: number;
  readonly servedMs: number;
  readonly serverCpuMs: number;
  readonly reapplyMs: number;
}

async function measureLargeCrd(server: Server, client: BenchClient, options: LargeCrdOptions): Promise<LargeCrdResult> {
  const crd = largeCrd(options);
  const text = JSON.stringify(crd);
  const name = largeCrdName(options);
  progress(`large CRD ${name} (${text.length} bytes)`);
  // The Established condition is seen on a watch (polling a 1 MB object would load the server it measures).
  const listed = await expectStatus(client.request('GET', `${crds}?fieldSelector=metadata.name%3D${name}`), [200], 'list CRDs');
  const resourceVersion = String((listed['metadata'] as { resourceVersion?: string } | undefined)?.resourceVersion ?? '');
  let isEstablished: number | undefined;
  const watch = await client.watch(`${crds}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${resourceVersion}`, (event, arrived) => {
    if (isEstablished === undefined && established(event.object as unknown as Body)) isEstablished = arrived;
  });
  const cpuBefore = cpuMs(server.pid);
  const started = now();
  let created: number;
  let served: number;
  try {
    await expectStatus(client.request('POST', crds, crd), [201], `create ${name}`);
    created = now();
    await pollUntil(async () => (await client.request('GET', `/apis/${options.group}/v1/namespaces/bench/storageclusters`)).status === 200, `${name} served`);
    served = now();
    await pollUntil(async () => isEstablished !== undefined, `${name} Established`);
  } finally {
    watch.stop();
  }
  const cpuAfter = cpuMs(server.pid);
  const stored = await expectStatus(client.request('GET', `${crds}/${name}`), [200], `get ${name}`);
  const changed = structuredClone(stored) as { spec: { versions: { schema: { openAPIV3Schema: { description?: string } } }[] }; status?: unknown };
  delete changed.status;
  changed.spec.versions.at(-1)!.schema.openAPIV3Schema.description = 'Described anew by a re-apply.';
  const reapplyStarted = now();
  await expectStatus(client.request('PUT', `${crds}/${name}`, changed), [200], `re-apply ${name}`);
  const reapplied = now();
  return {
    name, bytes: text.length, versions: options.versions.length, rules: (text.match(/"rule":/g) ?? []).length,
    createMs: round(created - started), establishedMs: round(isEstablished! - started), servedMs: round(served - started),
    serverCpuMs: round(cpuAfter - cpuBefore), reapplyMs: round(reapplied - reapplyStarted),
  };
}

// ---- creates with and without rules -----------------------------------------------------------------

const benchGroup = 'bench.example.com';

/** Five typical rules: a cross-field bound, a list all(), a regex matches(), a map all() over keys, an optional field. */
const widgetRules = {
  spec: [{ rule: 'self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas', message: 'replicas must be within [minReplicas, maxReplicas]' }],
  ports: [{ rule: 'self.all(p, p.port > 1024 || p.privileged)', message: 'ports up to 1024 must be privileged' }],
  image: [{ rule: "self.matches('^[a-z0-9.-]+(/[a-z0-9._-]+)*(:[A-Za-z0-9._-]+)?$')", message: 'image must be a lowercase reference' }],
  labels: [{ rule: 'self.all(k, k.size() <= 63)', message: 'label keys are at most 63 characters' }],
  timeout: [{ rule: '!has(self.timeoutSeconds) || self.timeoutSeconds < self.periodSeconds', message: 'timeoutSeconds must be less than periodSeconds', fieldPath: '.timeoutSeconds' }],
} as const;

function widgetCrd(plural: string, withRules: boolean): Body {
  const rules = (list: readonly Body[]): Body => (withRules ? { 'x-kubernetes-validations': list } : {});
  const spec = {
    type: 'object', required: ['replicas', 'image'], ...rules([...widgetRules.spec, ...widgetRules.timeout]),
    properties: {
      replicas: { type: 'integer', minimum: 0, maximum: 1000 },
      minReplicas: { type: 'integer', minimum: 0, default: 1 },
      maxReplicas: { type: 'integer', minimum: 0, default: 100 },
      image: { type: 'string', maxLength: 256, ...rules(widgetRules.image) },
      ports: {
        type: 'array', maxItems: 16, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], ...rules(widgetRules.ports),
        items: {
          type: 'object', required: ['name', 'port'],
          properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer', minimum: 1, maximum: 65535 }, privileged: { type: 'boolean', default: false } },
        },
      },
      labels: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 63 }, ...rules(widgetRules.labels) },
      periodSeconds: { type: 'integer', minimum: 1, default: 30 },
      timeoutSeconds: { type: 'integer', minimum: 1 },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${benchGroup}` },
    spec: {
      group: benchGroup, scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind: withRules ? 'RuledWidget' : 'PlainWidget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }],
    },
  };
}

function widget(kind: string, name: string): Body {
  return {
    apiVersion: `${benchGroup}/v1`, kind, metadata: { name, labels: { app: 'bench' } },
    spec: {
      replicas: 3, minReplicas: 1, maxReplicas: 10, image: 'registry.example.com/team/widget:1.2.3',
      ports: [{ name: 'http', port: 8080 }, { name: 'https', port: 8443 }, { name: 'metrics', port: 9090 }, { name: 'dns', port: 53, privileged: true }],
      labels: { 'app.kubernetes.io/name': 'widget', 'app.kubernetes.io/part-of': 'bench', tier: 'backend', track: 'stable' },
      periodSeconds: 30, timeoutSeconds: 10,
    },
  };
}

interface Variant {
  readonly label: 'withRules' | 'withoutRules';
  readonly plural: string;
  readonly kind: string;
}

const variants: Record<Variant['label'], Variant> = {
  withoutRules: { label: 'withoutRules', plural: 'widgetsplain', kind: 'PlainWidget' },
  withRules: { label: 'withRules', plural: 'widgetsrules', kind: 'RuledWidget' },
};

interface RoundResult extends LevelResult {
  readonly serverCpuMsPerCreate: number;
}

async function createRound(server: Server, client: BenchClient, variant: Variant, roundIndex: number): Promise<RoundResult> {
  const url = `/apis/${benchGroup}/v1/namespaces/bench/${variant.plural}`;
  const create = (prefix: string) => async (proposer: number, sequence: number): Promise<void> => {
    const name = `${prefix}-${proposer}-${sequence}`;
    await expectStatus(client.request('POST', url, widget(variant.kind, name)), [201], `create ${variant.kind} ${name}`);
  };
  if (warmupMs > 0) await runLevel(concurrency, 0, warmupMs, create(`w${roundIndex}`));
  const cpuBefore = cpuMs(server.pid);
  const result = await runLevel(concurrency, 0, durationMs, create(`m${roundIndex}`));
  const cpuAfter = cpuMs(server.pid);
  return { ...result, serverCpuMsPerCreate: round((cpuAfter - cpuBefore) / Math.max(1, result.operations + result.errors), 3) };
}

interface VariantSummary {
  readonly rounds: readonly RoundResult[];
  readonly operations: number;
  readonly errors: number;
  readonly perSecond: number;
  /** Mean of the rounds' p50 and the worst round's p99. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly serverCpuMsPerCreate: number;
}

function summarize(results: readonly RoundResult[]): VariantSummary {
  const operations = results.reduce((sum, result) => sum + result.operations, 0);
  const seconds = results.reduce((sum, result) => sum + result.seconds, 0);
  const cpu = results.reduce((sum, result) => sum + result.serverCpuMsPerCreate * (result.operations + result.errors), 0);
  const attempts = results.reduce((sum, result) => sum + result.operations + result.errors, 0);
  return {
    rounds: results, operations, errors: results.reduce((sum, result) => sum + result.errors, 0),
    perSecond: round(operations / seconds, 1),
    p50Ms: round(results.reduce((sum, result) => sum + result.p50Ms, 0) / results.length),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    serverCpuMsPerCreate: round(cpu / Math.max(1, attempts), 3),
  };
}

async function measureCreates(server: Server, client: BenchClient): Promise<Record<string, unknown>> {
  for (const variant of Object.values(variants)) {
    const name = `${variant.plural}.${benchGroup}`;
    await expectStatus(client.request('POST', crds, widgetCrd(variant.plural, variant.label === 'withRules')), [201], `create CRD ${name}`);
    await pollUntil(async () => (await client.request('GET', `/apis/${benchGroup}/v1/namespaces/bench/${variant.plural}`)).status === 200, `${name} served`);
  }
  // The rules really run: an object that breaks them is refused.
  const broken = widget('RuledWidget', 'broken');
  (broken['spec'] as Body)['image'] = 'Not An Image';
  await expectStatus(client.request('POST', `/apis/${benchGroup}/v1/namespaces/bench/widgetsrules`, broken), [422], 'a Widget that breaks a rule');
  // The server's first creates of each kind pay for JIT compilation: both variants warm up before any round.
  for (const variant of Object.values(variants)) {
    progress(`warm-up: ${variant.label}, ${concurrency} clients, ${2 * warmupMs} ms`);
    const url = `/apis/${benchGroup}/v1/namespaces/bench/${variant.plural}`;
    await runLevel(concurrency, 0, Math.max(2 * warmupMs, 1), async (proposer, sequence) => {
      await expectStatus(client.request('POST', url, widget(variant.kind, `warm-${proposer}-${sequence}`)), [201], `warm-up create ${variant.kind}`);
    });
  }
  const byVariant: Record<Variant['label'], RoundResult[]> = { withRules: [], withoutRules: [] };
  for (let index = 0; index < rounds; index++) {
    const order = index % 2 === 0 ? [variants.withoutRules, variants.withRules] : [variants.withRules, variants.withoutRules];
    for (const variant of order) {
      progress(`round ${index + 1}/${rounds}: ${variant.label}, ${concurrency} clients, ${durationMs} ms`);
      const result = await createRound(server, client, variant, index);
      progress(`  ${JSON.stringify(result)}`);
      byVariant[variant.label].push(result);
    }
  }
  const withRules = summarize(byVariant.withRules);
  const withoutRules = summarize(byVariant.withoutRules);
  return {
    rules: Object.values(widgetRules).flat().map((rule) => rule.rule),
    withRules, withoutRules,
    ratioWithToWithout: {
      perSecond: round(withRules.perSecond / withoutRules.perSecond, 3),
      p50Ms: round(withRules.p50Ms / withoutRules.p50Ms, 3),
      p99Ms: round(withRules.p99Ms / withoutRules.p99Ms, 3),
      serverCpuMsPerCreate: round(withRules.serverCpuMsPerCreate / withoutRules.serverCpuMsPerCreate, 3),
    },
  };
}

/**
 * The rules alone, in this process: the CPU microseconds one Widget's five rules take to
 * evaluate (compiled once, as the server compiles them once per CRD version), median of 5
 * batches. The server's CPU per create above moves more than this between rounds.
 */
function measureRuleEvaluation(): { readonly microsecondsPerObject: number; readonly causes: number } {
  const crd = widgetCrd('widgets-rules', true) as { spec: { versions: { schema: { openAPIV3Schema: CelSchema } }[] } };
  const compiled = compileRules(crd.spec.versions[0]!.schema.openAPIV3Schema);
  const object = widget('RuledWidget', 'measured');
  const batch = 5_000;
  for (let index = 0; index < batch; index++) validateWithRules(compiled, object, undefined);
  const samples: number[] = [];
  for (let sample = 0; sample < 5; sample++) {
    const started = process.cpuUsage();
    for (let index = 0; index < batch; index++) validateWithRules(compiled, object, undefined);
    const used = process.cpuUsage(started);
    samples.push((used.user + used.system) / batch);
  }
  samples.sort((a, b) => a - b);
  return { microsecondsPerObject: round(samples[2]!, 1), causes: validateWithRules(compiled, object, undefined).length };
}

async function main(): Promise<number> {
  const dir = await makeTempDir('kstore-bench-crd-');
  let server: Server | undefined;
  let client: BenchClient | undefined;
  const results: Record<string, unknown> = {};
  let failed = false;
  try {
    progress('starting kstore server');
    server = await startServer(dir);
    client = new BenchClient(server.url, await readKubeconfig(server.kubeconfig), concurrency);
    await expectStatus(client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }), [201, 409], 'create namespace bench');
    if (!flags['skip-large']) {
      const large: LargeCrdResult[] = [];
      for (const options of [operatorCrdOptions, megabyteCrdOptions]) {
        const result = await measureLargeCrd(server, client, options);
        progress(`  ${JSON.stringify(result)}`);
        large.push(result);
      }
      results['largeCrds'] = large;
    }
    results['creates'] = await measureCreates(server, client);
    results['ruleEvaluation'] = measureRuleEvaluation();
  } catch (error) {
    failed = true;
    results['failure'] = error instanceof Error ? error.message : String(error);
    progress(`failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  } finally {
    client?.close();
    await server?.stop();
    await dir.remove();
  }
  const document = {
    benchmark: 'bench:crd',
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memoryGiB: round(os.totalmem() / 2 ** 30, 1), node: process.version },
    settings: { durationMs, warmupMs, concurrency, rounds, target: 'kstore server' },
    ...results,
  };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  return failed ? 1 : 0;
}

process.exitCode = await main();
