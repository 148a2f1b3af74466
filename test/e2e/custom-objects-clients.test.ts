// End-to-end: the official clients' CustomObjectsApi against one `kstore server` serving the
// CronTab CRD of test/support/crd-fixtures.ts (applied once with kubectl, then Established).
// @kubernetes/client-node (1.x, in this process): create (the schema's defaults applied), get,
// list with a label selector (items keep apiVersion and kind, as kube's unstructured lists do;
// through v1beta1 too), merge patch (client-node 1.x sends application/json-patch+json unless
// told otherwise) and a JSON patch (its default), replace and a stale replace (409),
// get and merge patch of the status subresource (spec kept), the scale subresource, a CEL rule
// violation and a transition rule violation (422 with kube's Status), delete (a Success
// Status) and a get after it (404), and its Watch class seeing ADDED, MODIFIED, DELETED for
// writes made during the watch. The Python client (Debian's python3-kubernetes with
// /usr/bin/python3; .ci/run installs it): test/e2e/clients/python_custom_objects.py does the
// same through kubernetes.client.CustomObjectsApi and kubernetes.watch.Watch().stream and
// prints one JSON object, one step of which each test here asserts. Every call has a deadline,
// so a server that never answers fails the test instead of hanging it.
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cronTab, cronTabCrd, cronTabCrdName } from '../support/crd-fixtures.ts';
import { repoRoot } from '../support/kstore-process.ts';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { waitFor } from '../support/wait-for.ts';
import { clientCalls } from '../support/client-calls.ts';

const group = 'stable.example.com';
const version = 'v1';
const plural = 'crontabs';
const nodeNamespace = 'customnode';
const pythonNamespace = 'custompython';
const callTimeoutMs = 15_000;

const python = '/usr/bin/python3';
const script = path.join(repoRoot, 'test', 'e2e', 'clients', 'python_custom_objects.py');
/** The script's requests time out after 15 s at most and its watch after 40 s; this bounds the whole run. */
const scriptTimeoutMs = 150_000;

/** Why the Python part cannot run here, or undefined when `/usr/bin/python3 -c 'import kubernetes'` works. */
function pythonClientMissing(): string | undefined {
  const probe = spawnSync(python, ['-c', 'import kubernetes'], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
  if (probe.error !== undefined) return `${python} cannot run: ${probe.error.message}`;
  if (probe.status !== 0) return `${python} -c 'import kubernetes' failed (exit ${String(probe.status)}): ${probe.stderr.trim().split('\n').pop() ?? ''}`;
  return undefined;
}
const missingPythonClient = pythonClientMissing();
// Where .ci/run installs the client (CI set) a missing one is a failure, not a skip.
const skipPython = missingPythonClient !== undefined && process.env['CI'] === undefined;

interface CronTab {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string; namespace: string; uid: string; resourceVersion: string; generation: number;
    creationTimestamp: string; labels?: Record<string, string>;
  };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

interface CronTabList {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string };
  items: CronTab[];
}

let fixture: KubectlServer | undefined;
let config: KubeConfig;
let api: CustomObjectsApi;

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-custom-objects-', nodeNamespace);
  await fixture.ok(['create', 'namespace', pythonNamespace]);
  expect(await fixture.ok(['apply', '-f', '-'], JSON.stringify(cronTabCrd()))).toContain(`customresourcedefinition.apiextensions.k8s.io/${cronTabCrdName} created`);
  expect(await fixture.ok(['wait', '--for', 'condition=Established', `crd/${cronTabCrdName}`, '--timeout', '30s'])).toContain('condition met');
  config = new KubeConfig();
  config.loadFromFile(fixture.server.kubeconfigPath);
  api = config.makeApiClient(CustomObjectsApi);
  // Established means served; a list proves it through this client before the tests start.
  await waitFor(async () => {
    await within('list while waiting to be served', api.listNamespacedCustomObject({ group, version, namespace: nodeNamespace, plural }));
    return true;
  }, { timeoutMs: 30_000, description: 'crontabs served', diagnostics });
}, 90_000);

afterAll(async () => {
  await fixture?.stop();
}, 60_000);

function diagnostics(): string {
  return `server output (tail):\n${fixture?.server.output().slice(-4000) ?? ''}`;
}

const { within, apiError } = clientCalls(callTimeoutMs, diagnostics);

function labelled(name: string, spec: Record<string, unknown>, labels: Record<string, string>, resourceVersion?: string): Record<string, unknown> {
  const object = cronTab(name, spec) as { metadata: Record<string, unknown> };
  object.metadata['labels'] = labels;
  if (resourceVersion !== undefined) object.metadata['resourceVersion'] = resourceVersion;
  return object;
}

/** kube's Status for a create refused by the CronTab CRD's messageExpression rule. */
function ruleViolation(name: string, image: string): unknown {
  const detail = `Invalid value: "object": replicas exceed maxReplicas for image ${image}`;
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
    message: `CronTab.${group} "${name}" is invalid: spec: ${detail}`,
    details: { name, group, kind: 'CronTab', causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'spec' }] },
  };
}

/** kube's Status for an update with a stale resourceVersion. */
function conflict(name: string): unknown {
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Conflict', code: 409,
    message: `Operation cannot be fulfilled on ${plural}.${group} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    details: { name, group, kind: plural },
  };
}

/** kube's Status for a custom object that does not exist. */
function notFound(name: string): unknown {
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404,
    message: `${plural}.${group} "${name}" not found`, details: { name, group, kind: plural },
  };
}

const defaults = { color: 'blue', replicas: 1, maxReplicas: 10 };

describe('@kubernetes/client-node CustomObjectsApi against kstore server', () => {
  const namespace = nodeNamespace;
  const name = 'node-crud';
  const labels = { app: name, client: 'node' };
  let created: CronTab;

  it('createNamespacedCustomObject stores a CronTab with the schema defaults; getNamespacedCustomObject reads it back', async () => {
    created = await within('create', api.createNamespacedCustomObject({
      group, version, namespace, plural, body: labelled(name, { cronSpec: '*/5 * * * *', image: 'web:1' }, labels),
    })) as CronTab;
    expect(created).toMatchObject({ apiVersion: `${group}/${version}`, kind: 'CronTab' });
    expect(created.metadata).toMatchObject({
      name, namespace, labels, generation: 1, uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      resourceVersion: expect.stringMatching(/^\d+$/), creationTimestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    });
    expect(created.spec).toEqual({ cronSpec: '*/5 * * * *', image: 'web:1', ...defaults });
    expect(created.status).toBeUndefined();
    const read = await within('get', api.getNamespacedCustomObject({ group, version, namespace, plural, name })) as CronTab;
    expect(read).toEqual(created);
  });

  it('listNamespacedCustomObject with a labelSelector lists only the matching CronTabs', async () => {
    await within('create other', api.createNamespacedCustomObject({
      group, version, namespace, plural, body: labelled('node-other', { cronSpec: '0 * * * *' }, { client: 'other' }),
    }));
    const all = await within('list', api.listNamespacedCustomObject({ group, version, namespace, plural })) as CronTabList;
    expect(all.items.map((item) => item.metadata.name).sort()).toEqual(['node-crud', 'node-other']);
    const selected = await within('list client=node', api.listNamespacedCustomObject({ group, version, namespace, plural, labelSelector: 'client=node' })) as CronTabList;
    expect(selected).toMatchObject({ apiVersion: `${group}/${version}`, kind: 'CronTabList', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
    expect(selected.items).toEqual([created]);
    const others = await within('list client!=node', api.listNamespacedCustomObject({ group, version, namespace, plural, labelSelector: 'client!=node' })) as CronTabList;
    expect(others.items.map((item) => item.metadata.name)).toEqual(['node-other']);
    const beta = await within('list through v1beta1', api.listNamespacedCustomObject({ group, version: 'v1beta1', namespace, plural, labelSelector: 'client=node' })) as CronTabList;
    expect(beta).toMatchObject({ apiVersion: `${group}/v1beta1`, kind: 'CronTabList' });
    expect(beta.items).toEqual([{ ...created, apiVersion: `${group}/v1beta1` }]);
    const none = await within('list app in (nothing)', api.listNamespacedCustomObject({ group, version, namespace, plural, labelSelector: 'app in (nothing)' })) as CronTabList;
    expect(none.items).toEqual([]);
  });

  it('patchNamespacedCustomObject: a merge patch (Content-Type set by setHeaderOptions) and a JSON patch (the default)', async () => {
    const merged = await within('merge patch', api.patchNamespacedCustomObject(
      { group, version, namespace, plural, name, body: { metadata: { labels: { patched: 'yes' } }, spec: { replicas: 3 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch))) as CronTab;
    expect(merged.metadata).toMatchObject({ uid: created.metadata.uid, generation: 2, labels: { ...labels, patched: 'yes' } });
    expect(merged.spec).toEqual({ cronSpec: '*/5 * * * *', image: 'web:1', ...defaults, replicas: 3 });
    expect(Number(merged.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    const jsonPatched = await within('json patch', api.patchNamespacedCustomObject(
      { group, version, namespace, plural, name, body: [{ op: 'replace', path: '/spec/image', value: 'web:2' }, { op: 'remove', path: '/metadata/labels/patched' }] })) as CronTab;
    expect(jsonPatched.metadata).toMatchObject({ generation: 3, labels });
    expect(jsonPatched.metadata.labels).toEqual(labels);
    expect(jsonPatched.spec).toEqual({ cronSpec: '*/5 * * * *', image: 'web:2', ...defaults, replicas: 3 });
  });

  it('replaceNamespacedCustomObject replaces the spec (defaults applied again); a stale resourceVersion is a 409 Conflict', async () => {
    const current = await within('get', api.getNamespacedCustomObject({ group, version, namespace, plural, name })) as CronTab;
    const replaced = await within('replace', api.replaceNamespacedCustomObject({
      group, version, namespace, plural, name, body: labelled(name, { cronSpec: '0 0 * * *', image: 'web:3', color: 'green' }, labels, current.metadata.resourceVersion),
    })) as CronTab;
    expect(replaced.metadata).toMatchObject({ uid: created.metadata.uid, generation: 4, labels });
    expect(replaced.spec).toEqual({ cronSpec: '0 0 * * *', image: 'web:3', color: 'green', replicas: 1, maxReplicas: 10 });
    const stale = await apiError('stale replace', api.replaceNamespacedCustomObject({
      group, version, namespace, plural, name, body: labelled(name, { cronSpec: '0 1 * * *' }, labels, current.metadata.resourceVersion),
    }));
    expect(stale).toEqual({ code: 409, body: conflict(name) });
  });

  it('the status subresource: patchNamespacedCustomObjectStatus changes only the status, getNamespacedCustomObjectStatus reads it, the main resource ignores status', async () => {
    const before = await within('get', api.getNamespacedCustomObject({ group, version, namespace, plural, name })) as CronTab;
    const patched = await within('patch status', api.patchNamespacedCustomObjectStatus(
      { group, version, namespace, plural, name, body: { spec: { replicas: 7 }, status: { replicas: 2, selector: `app=${name}` } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch))) as CronTab;
    expect(patched.status).toEqual({ replicas: 2, selector: `app=${name}` });
    expect(patched.spec).toEqual(before.spec);
    expect(patched.metadata.generation).toBe(before.metadata.generation);
    const status = await within('get status', api.getNamespacedCustomObjectStatus({ group, version, namespace, plural, name })) as CronTab;
    expect(status).toEqual(patched);
    const mainPatched = await within('merge patch of status through the main resource', api.patchNamespacedCustomObject(
      { group, version, namespace, plural, name, body: { status: { replicas: 99 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch))) as CronTab;
    expect(mainPatched.status).toEqual({ replicas: 2, selector: `app=${name}` });
    expect(mainPatched.metadata.generation).toBe(before.metadata.generation);
    const scale = await within('get scale', api.getNamespacedCustomObjectScale({ group, version, namespace, plural, name })) as Record<string, unknown>;
    expect(scale).toMatchObject({
      apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name, namespace, uid: created.metadata.uid },
      spec: { replicas: 1 }, status: { replicas: 2, selector: `app=${name}` },
    });
  });

  it('a CEL rule violation is a 422 Invalid with kube\'s message; a transition rule violation too; nothing is stored', async () => {
    const tooMany = await apiError('create breaking the rule', api.createNamespacedCustomObject({
      group, version, namespace, plural, body: cronTab('node-too-many', { cronSpec: '* * * * *', image: 'web:9', replicas: 20, maxReplicas: 10 }),
    }));
    expect(tooMany.code).toBe(422);
    expect((tooMany.body as { message: string }).message).toContain('spec: Invalid value: "object": replicas exceed maxReplicas for image web:9');
    expect(tooMany.body).toEqual(ruleViolation('node-too-many', 'web:9'));
    expect(await apiError('get of the refused CronTab', api.getNamespacedCustomObject({ group, version, namespace, plural, name: 'node-too-many' })))
      .toEqual({ code: 404, body: notFound('node-too-many') });
    const tiered = await within('create with a tier', api.createNamespacedCustomObject({
      group, version, namespace, plural, body: cronTab('node-tiered', { cronSpec: '* * * * *', tier: 'gold' }),
    })) as CronTab;
    const immutable = await apiError('patch of an immutable tier', api.patchNamespacedCustomObject(
      { group, version, namespace, plural, name: 'node-tiered', body: { spec: { tier: 'silver' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch)));
    expect(immutable.code).toBe(422);
    expect(immutable.body).toMatchObject({
      kind: 'Status', reason: 'Invalid', code: 422,
      message: `CronTab.${group} "node-tiered" is invalid: spec.tier: Invalid value: "string": tier is immutable`,
      details: { name: 'node-tiered', group, kind: 'CronTab', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "string": tier is immutable', field: 'spec.tier' }] },
    });
    const after = await within('get tiered', api.getNamespacedCustomObject({ group, version, namespace, plural, name: 'node-tiered' })) as CronTab;
    expect(after.spec['tier']).toBe('gold');
    expect(after.metadata.resourceVersion).toBe(tiered.metadata.resourceVersion);
  });

  it('deleteNamespacedCustomObject answers a Success Status; a get after it is a 404 NotFound', async () => {
    const deleted = await within('delete', api.deleteNamespacedCustomObject({ group, version, namespace, plural, name })) as Record<string, unknown>;
    expect(deleted).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name, group, kind: plural, uid: created.metadata.uid } });
    expect(await apiError('get after delete', api.getNamespacedCustomObject({ group, version, namespace, plural, name }))).toEqual({ code: 404, body: notFound(name) });
    expect(await apiError('delete again', api.deleteNamespacedCustomObject({ group, version, namespace, plural, name }))).toEqual({ code: 404, body: notFound(name) });
  });

  it('Watch on /apis/stable.example.com/v1/namespaces/<ns>/crontabs sees ADDED, MODIFIED, DELETED for writes made during the watch', async () => {
    const watched = 'node-watched';
    const listed = await within('list', api.listNamespacedCustomObject({ group, version, namespace, plural })) as CronTabList;
    const events: { type: string; apiVersion: string; kind: string; spec: Record<string, unknown>; resourceVersion: string }[] = [];
    let ended: unknown;
    const watch = new Watch(config);
    const controller = await within('watch', watch.watch(`/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
      { resourceVersion: listed.metadata.resourceVersion },
      (type: string, object: CronTab) => {
        if (object.metadata.name === watched) {
          events.push({ type, apiVersion: object.apiVersion, kind: object.kind, spec: object.spec, resourceVersion: object.metadata.resourceVersion });
        }
      },
      (error: unknown) => {
        ended = error ?? 'closed';
      }));
    try {
      expect(ended, 'the watch ended before any write').toBeUndefined();
      const added = await within('create', api.createNamespacedCustomObject({ group, version, namespace, plural, body: cronTab(watched, { cronSpec: '* * * * *', image: 'w:1' }) })) as CronTab;
      const modified = await within('patch', api.patchNamespacedCustomObject({ group, version, namespace, plural, name: watched, body: { spec: { image: 'w:2' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch))) as CronTab;
      await within('delete', api.deleteNamespacedCustomObject({ group, version, namespace, plural, name: watched }));
      await waitFor(() => events.length >= 3 || ended !== undefined, {
        timeoutMs: 15_000, description: 'three watch events', diagnostics: () => `events: ${JSON.stringify(events)}\n${diagnostics()}`,
      });
      const kind = { apiVersion: `${group}/${version}`, kind: 'CronTab' };
      expect(events, `watch ended: ${String(ended)}`).toEqual([
        { type: 'ADDED', ...kind, spec: { cronSpec: '* * * * *', image: 'w:1', ...defaults }, resourceVersion: added.metadata.resourceVersion },
        { type: 'MODIFIED', ...kind, spec: { cronSpec: '* * * * *', image: 'w:2', ...defaults }, resourceVersion: modified.metadata.resourceVersion },
        { type: 'DELETED', ...kind, spec: { cronSpec: '* * * * *', image: 'w:2', ...defaults }, resourceVersion: expect.stringMatching(/^\d+$/) },
      ]);
      expect(Number(events[2]?.resourceVersion)).toBeGreaterThan(Number(modified.metadata.resourceVersion));
    } finally {
      controller.abort();
    }
  });
});

interface Failure {
  readonly ok: false;
  readonly status?: number;
  readonly reason?: string;
  readonly body?: unknown;
  readonly error?: string;
}
type Step<T> = { readonly ok: true; readonly value: T } | Failure;

interface PythonCronTab {
  readonly pythonType: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly generation: number;
  readonly labels: Record<string, string> | null;
  readonly spec: Record<string, unknown> | null;
  readonly status: Record<string, unknown> | null;
}

interface ErrorAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly unexpectedSuccess?: unknown;
}

interface PythonWatchEvent {
  readonly type: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly spec: Record<string, unknown> | null;
  readonly resourceVersion: string;
  readonly objectType: string;
}

interface PythonReport {
  readonly clientVersion: string;
  readonly create: Step<PythonCronTab>;
  readonly createOther: Step<PythonCronTab>;
  readonly get: Step<PythonCronTab>;
  readonly list: Step<{ apiVersion: string; kind: string; resourceVersion: string; items: PythonCronTab[] }>;
  readonly patch: Step<PythonCronTab>;
  readonly replace: Step<PythonCronTab>;
  readonly replaceStale: Step<ErrorAnswer>;
  readonly patchStatus: Step<PythonCronTab>;
  readonly getStatus: Step<PythonCronTab>;
  readonly ruleViolation: Step<ErrorAnswer>;
  readonly getRejected: Step<ErrorAnswer>;
  readonly delete: Step<Record<string, unknown>>;
  readonly getAfterDelete: Step<ErrorAnswer>;
  readonly deleteOther: Step<Record<string, unknown>>;
  readonly watch: Step<{ events: PythonWatchEvent[]; writes: Record<string, Step<string>>; deadlinePassed: boolean; seconds: number }>;
}

interface ScriptRun {
  readonly report: PythonReport | undefined;
  /** The command, exit, stderr and stdout, for assertion messages. */
  readonly description: string;
}

function runScript(kubeconfig: string, namespace: string, prefix: string): Promise<ScriptRun> {
  const args = [script, '--kubeconfig', kubeconfig, '--namespace', namespace, '--prefix', prefix];
  return new Promise((resolve) => {
    execFile(python, args, { timeout: scriptTimeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const exit = error === null ? 'exit 0' : error.killed ? `killed after ${scriptTimeoutMs} ms` : `failed: ${error.message}`;
      const description = `${python} ${args.join(' ')}: ${exit}\nstderr:\n${stderr.slice(-4000)}\nstdout:\n${stdout.slice(-8000)}`;
      let report: PythonReport | undefined;
      try {
        report = JSON.parse(stdout) as PythonReport;
      } catch {
        report = undefined;
      }
      resolve({ report, description });
    });
  });
}

const pythonTitle = skipPython
  ? `the Python client's CustomObjectsApi (skipped: ${missingPythonClient ?? ''}; .ci/run installs python3-kubernetes)`
  : 'the Python client\'s CustomObjectsApi (python3-kubernetes) against kstore server';

describe.skipIf(skipPython)(pythonTitle, () => {
  const namespace = pythonNamespace;
  const prefix = 'py';
  const name = `${prefix}-crud`;
  const labels = { app: name, client: 'python' };
  let run: ScriptRun | undefined;

  beforeAll(async () => {
    expect(missingPythonClient, 'CI is set, where .ci/run installs python3-kubernetes').toBeUndefined();
    run = await runScript(fixture!.server.kubeconfigPath, namespace, prefix);
  }, scriptTimeoutMs + 10_000);

  function value<T>(step: keyof PythonReport): T {
    const report = run?.report;
    expect(report, run?.description ?? 'the script did not run').toBeDefined();
    const answer = report?.[step] as Step<T> | undefined;
    expect(answer?.ok, `step ${String(step)}: ${JSON.stringify(answer)}\n${run?.description ?? ''}\n${diagnostics()}`).toBe(true);
    return (answer as { value: T }).value;
  }

  it('create_namespaced_custom_object applies the schema defaults; get_namespaced_custom_object reads it back as a dict', () => {
    const created = value<PythonCronTab>('create');
    expect(created).toMatchObject({
      pythonType: 'dict', apiVersion: `${group}/${version}`, kind: 'CronTab', name, namespace, labels, generation: 1,
      uid: expect.stringMatching(/^[0-9a-f-]{36}$/), resourceVersion: expect.stringMatching(/^\d+$/), status: null,
    });
    expect(created.spec).toEqual({ cronSpec: '*/5 * * * *', image: 'web:1', ...defaults });
    expect(value<PythonCronTab>('get')).toEqual(created);
  });

  it('list_namespaced_custom_object with label_selector lists only the matching CronTab', () => {
    const listed = value<{ apiVersion: string; kind: string; resourceVersion: string; items: PythonCronTab[] }>('list');
    expect(value<PythonCronTab>('createOther').labels).toEqual({ client: 'other' });
    expect(listed).toMatchObject({ apiVersion: `${group}/${version}`, kind: 'CronTabList', resourceVersion: expect.stringMatching(/^\d+$/) });
    expect(listed.items).toEqual([value<PythonCronTab>('create')]);
  });

  it('patch_namespaced_custom_object (a merge patch) and replace_namespaced_custom_object keep the uid; a stale replace is a 409 Conflict', () => {
    const created = value<PythonCronTab>('create');
    const patched = value<PythonCronTab>('patch');
    expect(patched).toMatchObject({ uid: created.uid, generation: 2, labels: { ...labels, patched: 'yes' } });
    expect(patched.spec).toEqual({ cronSpec: '*/5 * * * *', image: 'web:1', ...defaults, replicas: 3 });
    const replaced = value<PythonCronTab>('replace');
    expect(replaced).toMatchObject({ uid: created.uid, generation: 3, labels });
    expect(replaced.labels).toEqual(labels);
    expect(replaced.spec).toEqual({ cronSpec: '0 0 * * *', image: 'web:2', color: 'green', replicas: 1, maxReplicas: 10 });
    expect(Number(replaced.resourceVersion)).toBeGreaterThan(Number(patched.resourceVersion));
    expect(value<ErrorAnswer>('replaceStale')).toEqual({ status: 409, body: conflict(name) });
  });

  it('patch_namespaced_custom_object_status changes only the status; get_namespaced_custom_object_status reads it', () => {
    const replaced = value<PythonCronTab>('replace');
    const patched = value<PythonCronTab>('patchStatus');
    expect(patched.status).toEqual({ replicas: 2, selector: `app=${name}` });
    expect(patched.spec).toEqual(replaced.spec);
    expect(patched.generation).toBe(replaced.generation);
    expect(value<PythonCronTab>('getStatus')).toEqual(patched);
  });

  it('a create breaking the CEL rule is an ApiException 422 with kube\'s Status, and stores nothing', () => {
    const refused = value<ErrorAnswer>('ruleViolation');
    expect(refused.status).toBe(422);
    expect((refused.body as { message?: string } | undefined)?.message).toContain('spec: Invalid value: "object": replicas exceed maxReplicas for image web:3');
    expect(refused.body).toEqual(ruleViolation(`${prefix}-too-many`, 'web:3'));
    expect(value<ErrorAnswer>('getRejected')).toEqual({ status: 404, body: notFound(`${prefix}-too-many`) });
  });

  it('delete_namespaced_custom_object answers a Success Status; a get after it is a 404', () => {
    const created = value<PythonCronTab>('create');
    expect(value<Record<string, unknown>>('delete')).toMatchObject({ kind: 'Status', status: 'Success', details: { name, group, kind: plural, uid: created.uid } });
    expect(value<ErrorAnswer>('getAfterDelete')).toEqual({ status: 404, body: notFound(name) });
    expect(value<Record<string, unknown>>('deleteOther')).toMatchObject({ status: 'Success' });
  });

  it('watch.Watch().stream(list_namespaced_custom_object) yields ADDED, MODIFIED, DELETED for writes made during the watch', () => {
    const watched = value<{ events: PythonWatchEvent[]; writes: Record<string, Step<string>>; deadlinePassed: boolean }>('watch');
    for (const [write, outcome] of Object.entries(watched.writes)) expect(outcome.ok, `write ${write}: ${JSON.stringify(outcome)}`).toBe(true);
    expect(watched.deadlinePassed).toBe(false);
    expect(watched.events.map((event) => event.type), JSON.stringify(watched)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const created = watched.writes['create'] as { value: string };
    const patched = watched.writes['patch'] as { value: string };
    expect(watched.writes['delete']).toEqual({ ok: true, value: 'Success' });
    const kind = { name: `${prefix}-watched`, apiVersion: `${group}/${version}`, kind: 'CronTab', objectType: 'dict' };
    expect(watched.events).toEqual([
      { type: 'ADDED', ...kind, spec: { cronSpec: '* * * * *', image: 'w:1', ...defaults }, resourceVersion: created.value },
      { type: 'MODIFIED', ...kind, spec: { cronSpec: '* * * * *', image: 'w:2', ...defaults }, resourceVersion: patched.value },
      { type: 'DELETED', ...kind, spec: { cronSpec: '* * * * *', image: 'w:2', ...defaults }, resourceVersion: expect.stringMatching(/^\d+$/) },
    ]);
    expect(Number(watched.events[2]?.resourceVersion)).toBeGreaterThan(Number(patched.value));
  });
});
