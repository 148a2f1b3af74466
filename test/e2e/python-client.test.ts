// End-to-end: the official Python client (Debian's python3-kubernetes, run with /usr/bin/python3;
// .ci/run installs it) against `kstore server` and against an HA cluster (`kstore cluster up`:
// writes through replica a1, reads and the watch through a2). test/e2e/clients/python_client.py
// does the work — list namespaces, VersionApi.get_code (GET /version/), ConfigMap create, get,
// replace, patch, delete, a kubernetes.watch.Watch().stream (watch=True) during writes, and a
// replace of a missing ConfigMap — and prints one JSON object; each test here asserts one step
// of it, so one failing step does not hide the others.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { repoRoot } from '../support/kstore-process.ts';
import { Kubectl } from '../support/kubectl.ts';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';

const python = '/usr/bin/python3';
const script = path.join(repoRoot, 'test', 'e2e', 'clients', 'python_client.py');
/** The script's own requests time out after 15 s at most; this bounds the whole run. */
const scriptTimeoutMs = 90_000;
const namespace = 'pyclient';

const clientPresent = existsSync(python) && existsSync('/usr/lib/python3/dist-packages/kubernetes/__init__.py');
// Where .ci/run installs the client a missing one is a failure, not a skip.
const runSuite = clientPresent || process.env['CI'] !== undefined;

interface Failure {
  readonly ok: false;
  readonly status?: number;
  readonly reason?: string;
  readonly body?: unknown;
  readonly error?: string;
}
type Step<T> = { readonly ok: true; readonly value: T } | Failure;

interface ConfigMapSummary {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly data: Record<string, string> | null;
}

interface WatchedEvent {
  readonly type: string;
  readonly name: string;
  readonly data: Record<string, string> | null;
  readonly objectClass: string;
}

interface ClientReport {
  readonly clientVersion: string;
  readonly version: Step<{ major: string; minor: string; gitVersion: string; platform: string }>;
  readonly listNamespaces: Step<string[]>;
  readonly create: Step<ConfigMapSummary>;
  readonly get: Step<ConfigMapSummary>;
  readonly replace: Step<ConfigMapSummary>;
  readonly patch: Step<ConfigMapSummary>;
  readonly delete: Step<{ kind?: string; status?: string }>;
  readonly getAfterDelete: Step<{ status: number }>;
  readonly watch: Step<{ events: WatchedEvent[]; writes: Record<string, Step<string>>; seconds: number }>;
  readonly replaceMissing: Step<{ status: number; reason?: string; message?: string; created?: ConfigMapSummary }>;
}

interface ScriptRun {
  readonly report: ClientReport | undefined;
  /** The command, exit, stderr and stdout, for assertion messages. */
  readonly description: string;
}

function runScript(kubeconfig: string, prefix: string, contexts: { write?: string; read?: string } = {}): Promise<ScriptRun> {
  const args = [script, '--kubeconfig', kubeconfig, '--namespace', namespace, '--prefix', prefix];
  if (contexts.write !== undefined) args.push('--write-context', contexts.write);
  if (contexts.read !== undefined) args.push('--read-context', contexts.read);
  return new Promise((resolve) => {
    execFile(python, args, { timeout: scriptTimeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const exit = error === null ? 'exit 0' : error.killed ? `killed after ${scriptTimeoutMs} ms` : `failed: ${error.message}`;
      const description = `${python} ${args.join(' ')}: ${exit}\nstderr:\n${stderr.slice(-4000)}\nstdout:\n${stdout.slice(-8000)}`;
      let report: ClientReport | undefined;
      try {
        report = JSON.parse(stdout) as ClientReport;
      } catch {
        report = undefined;
      }
      resolve({ report, description });
    });
  });
}

/** The value of a step that must have succeeded; the assertion message has the whole run. */
function valueOf<T>(run: ScriptRun | undefined, name: keyof ClientReport, diagnostics: () => string): T {
  const report = run?.report;
  expect(report, run?.description ?? 'the script did not run').toBeDefined();
  const step = report?.[name] as Step<T> | undefined;
  expect(step?.ok, `step ${String(name)}: ${JSON.stringify(step)}\n${run?.description ?? ''}\n${diagnostics()}`).toBe(true);
  return (step as { value: T }).value;
}

/** The same assertions for every deployment; `start` runs the script and returns its output. */
function describeClient(title: string, start: () => Promise<{ run: ScriptRun; prefix: string; diagnostics: () => string }>, stop: () => Promise<void>): void {
  describe.skipIf(!runSuite)(title, () => {
    let run: ScriptRun | undefined;
    let prefix = '';
    let diagnostics = (): string => '';

    beforeAll(async () => {
      ({ run, prefix, diagnostics } = await start());
    }, 240_000);

    afterAll(stop, 60_000);

    const value = <T>(name: keyof ClientReport): T => valueOf<T>(run, name, diagnostics);

    it('VersionApi().get_code() reads GET /version/', () => {
      expect(value<{ major: string; gitVersion: string }>('version')).toMatchObject({ major: '1', gitVersion: expect.stringMatching(/^v1\.\d+\./) });
    });

    it('CoreV1Api().list_namespace() lists the system namespaces and the test namespace', () => {
      expect(value<string[]>('listNamespaces')).toEqual(expect.arrayContaining(['default', 'kube-system', namespace]));
    });

    it('creates, gets, replaces and strategic-merge patches a ConfigMap, keeping its uid', () => {
      const created = value<ConfigMapSummary>('create');
      expect(created).toMatchObject({ name: `${prefix}-crud`, namespace, data: { a: '1' } });
      expect(value<ConfigMapSummary>('get')).toEqual(created);
      const replaced = value<ConfigMapSummary>('replace');
      expect(replaced).toMatchObject({ uid: created.uid, data: { a: '2' } });
      expect(Number(replaced.resourceVersion)).toBeGreaterThan(Number(created.resourceVersion));
      expect(value<ConfigMapSummary>('patch')).toMatchObject({ uid: created.uid, data: { a: '2', b: '3' } });
    });

    it('deletes the ConfigMap (a Success Status), after which a read is a 404', () => {
      expect(value<{ kind: string; status: string }>('delete')).toMatchObject({ kind: 'Status', status: 'Success' });
      expect(value<{ status: number }>('getAfterDelete')).toEqual({ status: 404 });
    });

    it('watch.Watch().stream(list_namespaced_config_map) yields ADDED, MODIFIED, DELETED for writes made during the watch', () => {
      const watched = value<{ events: WatchedEvent[]; writes: Record<string, Step<string>> }>('watch');
      for (const [name, write] of Object.entries(watched.writes)) expect(write.ok, `write ${name}: ${JSON.stringify(write)}`).toBe(true);
      expect(watched.events.map((event) => event.type), JSON.stringify(watched)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(watched.events.map((event) => event.data)).toEqual([{ v: '1' }, { v: '2' }, { v: '2' }]);
      expect(watched.events.every((event) => event.objectClass === 'V1ConfigMap')).toBe(true);
    });

    it('replace_namespaced_config_map of a missing ConfigMap is an ApiException 404 NotFound', () => {
      const replaced = value<{ status: number; reason?: string; message?: string }>('replaceMissing');
      expect(replaced).toMatchObject({ status: 404, reason: 'NotFound', message: `configmaps "${prefix}-missing" not found` });
    });
  });
}

let serverFixture: KubectlServer | undefined;
describeClient('the Python client (python3-kubernetes) against kstore server', async () => {
  serverFixture = await startKubectlServer('kstore-e2e-python-client-', namespace);
  const fixture = serverFixture;
  const run = await runScript(fixture.server.kubeconfigPath, 'py');
  return { run, prefix: 'py', diagnostics: () => `server output (tail):\n${fixture.server.output().slice(-4000)}` };
}, async () => {
  await serverFixture?.stop();
});

let clusterDir: TempDir | undefined;
let cluster: Target | undefined;
let clusterKubectl: Kubectl | undefined;
describeClient('the Python client against an HA cluster (kstore cluster up: writes through a1, reads and the watch through a2)', async () => {
  clusterDir = await makeTempDir('kstore-e2e-python-client-ha-');
  cluster = await startCluster(clusterDir);
  clusterKubectl = new Kubectl({ kubeconfig: cluster.kubeconfig, cacheDir: path.join(clusterDir.path, 'kube-cache') });
  const created = await clusterKubectl.run(['--context', 'kstore-a1', 'create', 'namespace', namespace]);
  expect(created.code, created.stderr).toBe(0);
  const run = await runScript(cluster.kubeconfig, 'pyha', { write: 'kstore-a1', read: 'kstore-a2' });
  const logs = path.join(clusterDir.path, 'ha', 'logs');
  const diagnostics = (): string => ['api-a1.log', 'api-a2.log'].map((name) => {
    const file = path.join(logs, name);
    return existsSync(file) ? `--- ${name} (tail) ---\n${readFileSync(file, 'utf8').slice(-2000)}` : '';
  }).join('\n');
  return { run, prefix: 'pyha', diagnostics };
}, async () => {
  clusterKubectl?.stopAll();
  await cluster?.stop();
  await clusterDir?.remove();
});
