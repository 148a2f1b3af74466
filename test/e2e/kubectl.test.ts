// End-to-end: one kstore server for this file, driven by the real kubectl binary. Asserts what
// kubectl prints (tables, YAML, messages), not only exit codes. Tests that need an object
// another test creates make sure it exists first (through `kubectl create -f -`), so a failure
// in one test does not cascade into the others.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { KstoreProcess } from '../support/kstore-process.ts';
import { describeResult, Kubectl, versionedKubectls } from '../support/kubectl.ts';
import type { KubectlResult } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
/** kubectl's HumanDuration: 0s, 42s, 2m3s, 10m, 3h4m, 5d, 2y... */
const agePattern = /^\d+[smhdy](\d+[smh])?$/;
const uidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
}

interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  data?: Record<string, string>;
}

let dir: TempDir | undefined;
let server: KstoreProcess | undefined;
let kubectl: Kubectl;

beforeAll(async () => {
  dir = await makeTempDir('kstore-e2e-kubectl-');
  server = await KstoreProcess.start({ dataDir: path.join(dir.path, 'data') });
  kubectl = new Kubectl({ kubeconfig: server.kubeconfigPath, cacheDir: path.join(dir.path, 'kube-cache') });
});

afterAll(async () => {
  kubectl?.stopAll();
  if (server) await server.stop().catch(() => server?.kill());
  await dir?.remove();
});

function diagnostics(args: readonly string[], result: KubectlResult): string {
  return `${describeResult(args, result)}\nserver output (tail):\n${server?.output().slice(-4000) ?? ''}`;
}

/** Runs kubectl and expects exit code 0; returns stdout. */
async function ok(args: readonly string[], options: { input?: string; client?: Kubectl } = {}): Promise<string> {
  const result = await (options.client ?? kubectl).run(args, options.input === undefined ? {} : { input: options.input });
  expect(result.code, diagnostics(args, result)).toBe(0);
  return result.stdout;
}

/** Runs kubectl and expects it to fail; returns the result. */
async function fails(args: readonly string[], options: { client?: Kubectl } = {}): Promise<KubectlResult> {
  const result = await (options.client ?? kubectl).run(args);
  expect(result.code, diagnostics(args, result)).not.toBe(0);
  return result;
}

async function getObject(args: readonly string[]): Promise<KubeObject> {
  return parse(await ok([...args, '-o', 'yaml'])) as KubeObject;
}

function resourceVersionOf(object: KubeObject): bigint {
  const value = object.metadata?.resourceVersion;
  expect(value, `resourceVersion of ${JSON.stringify(object.metadata)}`).toMatch(/^\d+$/);
  return BigInt(value ?? '0');
}

/** Test precondition: the namespace exists (created with `create -f -` if it does not). */
async function ensureNamespace(name: string): Promise<void> {
  if ((await kubectl.run(['get', 'namespace', name, '-o', 'name'])).code === 0) return;
  await ok(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) });
}

/** Test precondition: the configmap exists (created with `create -f -` if it does not). */
async function ensureConfigMap(namespace: string, name: string, data: Record<string, string>): Promise<void> {
  await ensureNamespace(namespace);
  if ((await kubectl.run(['get', 'configmap', name, '-n', namespace, '-o', 'name'])).code === 0) return;
  await ok(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data }) });
}

async function writeTempFile(name: string, content: string): Promise<string> {
  if (!dir) throw new Error('no temp dir');
  const file = path.join(dir.path, name);
  await writeFile(file, content);
  return file;
}

describe('kubectl against a kstore server', () => {
  it('lists the four system namespaces as Active with an age', async () => {
    const table = parseTable(await ok(['get', 'namespaces']));
    expect(table.headers).toEqual(['NAME', 'STATUS', 'AGE']);
    for (const name of systemNamespaces) {
      const row = table.rows.find((candidate) => candidate['NAME'] === name);
      expect(row, `namespace ${name} in\n${JSON.stringify(table.rows)}`).toBeDefined();
      expect(row?.['STATUS']).toBe('Active');
      expect(row?.['AGE']).toMatch(agePattern);
    }
  });

  it('creates a namespace with `create namespace` and then lists it as Active', async () => {
    expect((await ok(['create', 'namespace', 't'])).trim()).toBe('namespace/t created');
    const table = parseTable(await ok(['get', 'namespace', 't']));
    expect(table.rows).toHaveLength(1);
    expect(table.rows[0]).toMatchObject({ NAME: 't', STATUS: 'Active' });
  });

  it('creates a configmap from a literal, and `get -o yaml` shows its data and server-set metadata', async () => {
    await ensureNamespace('t');
    expect((await ok(['create', 'configmap', 'c', '-n', 't', '--from-literal=a=b'])).trim()).toBe('configmap/c created');
    const object = await getObject(['get', 'configmap', 'c', '-n', 't']);
    expect(object.apiVersion).toBe('v1');
    expect(object.kind).toBe('ConfigMap');
    expect(object.data).toEqual({ a: 'b' });
    expect(object.metadata?.name).toBe('c');
    expect(object.metadata?.namespace).toBe('t');
    expect(object.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(object.metadata?.uid).toMatch(uidPattern);
    expect(object.metadata?.creationTimestamp).toMatch(timestampPattern);
  });

  it('lists configmaps of all namespaces with NAMESPACE, NAME, DATA and AGE columns', async () => {
    await ensureConfigMap('t', 'c', { a: 'b' });
    const table = parseTable(await ok(['get', 'configmaps', '-A']));
    expect(table.headers).toEqual(['NAMESPACE', 'NAME', 'DATA', 'AGE']);
    const row = table.rows.find((candidate) => candidate['NAMESPACE'] === 't' && candidate['NAME'] === 'c');
    expect(row, JSON.stringify(table.rows)).toBeDefined();
    expect(row?.['DATA']).toBe('1');
    expect(row?.['AGE']).toMatch(agePattern);
  });

  it('replaces a configmap with an edited copy, which then shows the new value and a higher resourceVersion', async () => {
    await ensureConfigMap('t', 'c', { a: 'b' });
    const before = await getObject(['get', 'configmap', 'c', '-n', 't']);
    const edited = { ...before, data: { a: 'replaced' } };
    const file = await writeTempFile('c-replaced.yaml', stringify(edited));
    expect((await ok(['replace', '-f', file])).trim()).toBe('configmap/c replaced');
    const after = await getObject(['get', 'configmap', 'c', '-n', 't']);
    expect(after.data).toEqual({ a: 'replaced' });
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(resourceVersionOf(after)).toBeGreaterThan(resourceVersionOf(before));
  });

  it('refuses a replace with a stale resourceVersion with a Conflict error', async () => {
    await ensureConfigMap('t', 'stale', { a: 'b' });
    const original = await getObject(['get', 'configmap', 'stale', '-n', 't']);
    const first = await writeTempFile('stale-first.yaml', stringify({ ...original, data: { a: 'first' } }));
    expect((await ok(['replace', '-f', first])).trim()).toBe('configmap/stale replaced');
    const second = await writeTempFile('stale-second.yaml', stringify({ ...original, data: { a: 'second' } }));
    const result = await fails(['replace', '-f', second]);
    expect(result.stderr).toContain('Error from server (Conflict)');
    expect(result.stderr).toContain('Operation cannot be fulfilled on configmaps "stale": the object has been modified');
    expect((await getObject(['get', 'configmap', 'stale', '-n', 't'])).data).toEqual({ a: 'first' });
  });

  it('creates a generic secret whose data is the base64 of the literal', async () => {
    await ensureNamespace('t');
    expect((await ok(['create', 'secret', 'generic', 's', '-n', 't', '--from-literal=k=v'])).trim()).toBe('secret/s created');
    expect(await ok(['get', 'secret', 's', '-n', 't', '-o', 'jsonpath={.data.k}'])).toBe(Buffer.from('v').toString('base64'));
  });

  it('watches configmaps with `get -w` and prints objects created and changed meanwhile by other kubectl commands', async () => {
    await ensureConfigMap('t', 'c', { a: 'b' });
    const watch = kubectl.start(['get', 'configmaps', '-n', 't', '-w', '--request-timeout=90s']);
    try {
      const rowsOf = (): Readonly<Record<string, string>>[] => [...parseTable(watch.stdout()).rows];
      const watchDiagnostics = (): string => `watch stdout:\n${watch.stdout()}\nwatch stderr:\n${watch.stderr()}`;
      await waitFor(() => rowsOf().some((row) => row['NAME'] === 'c'), {
        timeoutMs: 30_000, description: 'the initial list of the watch to show configmap c', diagnostics: watchDiagnostics,
      });
      await ok(['create', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w', namespace: 't' }, data: { one: '1' } }),
      });
      await waitFor(() => rowsOf().some((row) => row['NAME'] === 'w' && row['DATA'] === '1'), {
        timeoutMs: 30_000, description: 'the watch to print the created configmap w with 1 data item', diagnostics: watchDiagnostics,
      });
      expect((await ok(['patch', 'configmap', 'w', '-n', 't', '--type=merge', '-p', '{"data":{"two":"2"}}'])).trim()).toBe('configmap/w patched');
      await waitFor(() => rowsOf().some((row) => row['NAME'] === 'w' && row['DATA'] === '2'), {
        timeoutMs: 30_000, description: 'the watch to print the patched configmap w with 2 data items', diagnostics: watchDiagnostics,
      });
      expect(watch.exitCode, watchDiagnostics()).toBeUndefined();
    } finally {
      await watch.stop();
    }
  });

  it('deletes a configmap, after which get reports NotFound', async () => {
    await ensureConfigMap('t', 'c', { a: 'b' });
    expect((await ok(['delete', 'configmap', 'c', '-n', 't'])).trim()).toBe('configmap "c" deleted');
    const result = await fails(['get', 'configmap', 'c', '-n', 't']);
    expect(result.stderr.trim()).toBe('Error from server (NotFound): configmaps "c" not found');
  });

  it('lists the served resources with short names, API versions and scope in `api-resources`', async () => {
    const table = parseTable(await ok(['api-resources']));
    expect(table.headers).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    const expected = [
      { NAME: 'configmaps', SHORTNAMES: 'cm', APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'ConfigMap' },
      { NAME: 'namespaces', SHORTNAMES: 'ns', APIVERSION: 'v1', NAMESPACED: 'false', KIND: 'Namespace' },
      { NAME: 'serviceaccounts', SHORTNAMES: 'sa', APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'ServiceAccount' },
      { NAME: 'secrets', SHORTNAMES: '', APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'Secret' },
      { NAME: 'events', SHORTNAMES: 'ev', APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'Event' },
      { NAME: 'leases', SHORTNAMES: '', APIVERSION: 'coordination.k8s.io/v1', NAMESPACED: 'true', KIND: 'Lease' },
      { NAME: 'deployments', SHORTNAMES: 'deploy', APIVERSION: 'apps/v1', NAMESPACED: 'true', KIND: 'Deployment' },
    ];
    for (const resource of expected) expect(table.rows).toContainEqual(resource);
  });

  it('lists v1, coordination.k8s.io/v1 and apps/v1 in `api-versions`', async () => {
    const versions = (await ok(['api-versions'])).split('\n').map((line) => line.trim());
    expect(versions).toContain('v1');
    expect(versions).toContain('coordination.k8s.io/v1');
    expect(versions).toContain('apps/v1');
  });

  it('prints a Server Version in `version`', async () => {
    expect(await ok(['version'])).toMatch(/^Server Version: v?\d+\.\d+/m);
  });

  it('rejects `create -f` of a manifest with an unknown field under the default strict validation, naming the field', async () => {
    await ensureNamespace('t');
    const file = await writeTempFile('unknown-field.yaml', stringify({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unknown-field', namespace: 't' }, bogusField: 1, data: { a: 'b' },
    }));
    const result = await fails(['create', '-f', file]);
    expect(result.stderr).toMatch(/unknown field "bogusField"/);
    const lookup = await fails(['get', 'configmap', 'unknown-field', '-n', 't']);
    expect(lookup.stderr).toContain('(NotFound)');
  });

  it('does not store an object created with --dry-run=server', async () => {
    await ensureNamespace('t');
    const file = await writeTempFile('dry-run.yaml', stringify({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry', namespace: 't' }, data: { key: 'value' },
    }));
    expect((await ok(['create', '-f', file, '--dry-run=server'])).trim()).toBe('configmap/dry created (server dry run)');
    const lookup = await fails(['get', 'configmap', 'dry', '-n', 't']);
    expect(lookup.stderr.trim()).toBe('Error from server (NotFound): configmaps "dry" not found');
  });

  it('keeps an object with a finalizer after delete, with a deletionTimestamp, until the finalizer is removed', async () => {
    await ensureNamespace('t');
    const file = await writeTempFile('finalized.yaml', stringify({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f', namespace: 't', finalizers: ['example.com/hold'] }, data: { a: 'b' },
    }));
    expect((await ok(['create', '-f', file])).trim()).toBe('configmap/f created');
    expect((await ok(['delete', 'configmap', 'f', '-n', 't', '--wait=false'])).trim()).toBe('configmap "f" deleted');
    const terminating = await getObject(['get', 'configmap', 'f', '-n', 't']);
    expect(terminating.metadata?.deletionTimestamp).toMatch(timestampPattern);
    expect(terminating.metadata?.finalizers).toEqual(['example.com/hold']);
    expect(terminating.data).toEqual({ a: 'b' });
    expect((await ok(['patch', 'configmap', 'f', '-n', 't', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'])).trim())
      .toBe('configmap/f patched');
    const gone = await waitFor(async () => {
      const result = await kubectl.run(['get', 'configmap', 'f', '-n', 't']);
      return result.code !== 0 && result.stderr.includes('(NotFound)') ? result : undefined;
    }, { timeoutMs: 10_000, description: 'configmap f to be gone once its finalizer is removed' });
    expect(gone.stderr.trim()).toBe('Error from server (NotFound): configmaps "f" not found');
  });
});

const kubectlVersions = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];

describe('kubectl versions 1.27 to 1.33 (smoke)', () => {
  for (const versioned of versionedKubectls(kubectlVersions)) {
    const name = `smoke-${versioned.version.replace('.', '-')}`;
    if (!versioned.present) {
      it.skip(`kubectl ${versioned.version}: skipped because ${versioned.path} is not on this machine`, () => undefined);
      continue;
    }
    it(`kubectl ${versioned.version} lists namespaces, creates, gets and deletes a configmap, and lists api-resources`, async () => {
      if (!dir || !server) throw new Error('server not started');
      const client = new Kubectl({
        kubeconfig: server.kubeconfigPath, binary: versioned.path, cacheDir: path.join(dir.path, `kube-cache-${versioned.version}`),
      });
      const namespaces = parseTable(await ok(['get', 'namespaces'], { client }));
      expect(namespaces.rows).toContainEqual(expect.objectContaining({ NAME: 'default', STATUS: 'Active' }));
      expect((await ok(['create', 'configmap', name, '-n', 'default', '--from-literal=k=v'], { client })).trim())
        .toBe(`configmap/${name} created`);
      expect(await ok(['get', 'configmap', name, '-n', 'default', '-o', 'jsonpath={.data.k}'], { client })).toBe('v');
      expect((await ok(['delete', 'configmap', name, '-n', 'default'], { client })).trim()).toBe(`configmap "${name}" deleted`);
      const lookup = await fails(['get', 'configmap', name, '-n', 'default'], { client });
      expect(lookup.stderr.trim()).toBe(`Error from server (NotFound): configmaps "${name}" not found`);
      const resources = parseTable(await ok(['api-resources'], { client }));
      expect(resources.rows).toContainEqual(expect.objectContaining({ NAME: 'configmaps', SHORTNAMES: 'cm', APIVERSION: 'v1' }));
    });
  }
});
