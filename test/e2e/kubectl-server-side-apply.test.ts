// End-to-end: server-side apply and managedFields through the real kubectl against one kstore
// server: `kubectl apply --server-side -f` creates then updates a ConfigMap and a Pod,
// `kubectl get -o yaml --show-managed-fields` shows the entries (Apply and Update), a conflict
// between two `--field-manager`s fails with kube's message, `--force-conflicts` wins, and a
// field dropped from the applied file is removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { Kubectl } from '../support/kubectl.ts';
import type { KubectlResult } from '../support/kubectl.ts';

let fixture: KubectlServer | undefined;
let kubectl: Kubectl;
const ns = 'ssa';

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  time: string;
  subresource?: string;
}

interface Stored {
  metadata: { managedFields?: Entry[]; resourceVersion: string };
  data?: Record<string, string>;
  spec?: { containers: { name: string; image: string }[] };
}

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-ssa-', ns);
  kubectl = fixture.kubectl;
});

afterAll(async () => {
  await fixture?.stop();
});

function diagnostics(args: readonly string[], result: KubectlResult): string {
  return fixture!.diagnostics(args, result);
}

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

async function fails(args: readonly string[], input?: string): Promise<KubectlResult> {
  const result = await kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, diagnostics(args, result)).not.toBe(0);
  return result;
}

async function getYaml(kind: string, name: string): Promise<Stored> {
  return parse(await ok(['get', kind, name, '-n', ns, '-o', 'yaml', '--show-managed-fields'])) as Stored;
}

const configMap = (data: Record<string, string>): string => [
  'apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', `  namespace: ${ns}`, 'data:',
  ...Object.entries(data).map(([key, value]) => `  ${key}: "${value}"`), '',
].join('\n');

const pod = (image: string): string => [
  'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', `  namespace: ${ns}`, '  labels:', '    app: web', 'spec:', '  containers:',
  '  - name: web', `    image: ${image}`, '',
].join('\n');

describe('kubectl apply --server-side', () => {
  it('creates then updates a ConfigMap; get --show-managed-fields shows the Apply entry', async () => {
    expect(await ok(['apply', '--server-side', '-f', '-'], configMap({ a: '1', b: '2' }))).toContain('configmap/settings serverside-applied');
    const created = await getYaml('configmap', 'settings');
    expect(created.data).toEqual({ a: '1', b: '2' });
    expect(created.metadata.managedFields).toEqual([{
      apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } },
      manager: 'kubectl', operation: 'Apply', time: expect.any(String) as unknown,
    }]);
    // Without --show-managed-fields kubectl hides them.
    expect(parse(await ok(['get', 'configmap', 'settings', '-n', ns, '-o', 'yaml'])).metadata.managedFields).toBeUndefined();
    // Dropping b from the file removes it; changing a updates it.
    expect(await ok(['apply', '--server-side', '-f', '-'], configMap({ a: '3' }))).toContain('configmap/settings serverside-applied');
    const updated = await getYaml('configmap', 'settings');
    expect(updated.data).toEqual({ a: '3' });
    expect(updated.metadata.managedFields?.map((entry) => [entry.manager, entry.operation, entry.fieldsV1])).toEqual([['kubectl', 'Apply', { 'f:data': { 'f:a': {} } }]]);
  });

  it('a second field manager conflicts with kube\'s message; --force-conflicts takes the field', async () => {
    const conflict = await fails(['apply', '--server-side', '--field-manager=other', '-f', '-'], configMap({ a: 'theirs' }));
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    expect(conflict.stderr).toContain('--force-conflicts');
    expect(await ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], configMap({ a: 'theirs' })))
      .toContain('configmap/settings serverside-applied');
    const forced = await getYaml('configmap', 'settings');
    expect(forced.data).toEqual({ a: 'theirs' });
    expect(forced.metadata.managedFields?.map((entry) => [entry.manager, entry.operation, entry.fieldsV1])).toEqual([['other', 'Apply', { 'f:data': { 'f:a': {} } }]]);
  });

  it('updaters show up as Update entries next to the applier', async () => {
    await ok(['label', 'configmap', 'settings', '-n', ns, 'team=blue']);
    const labelled = await getYaml('configmap', 'settings');
    const updater = labelled.metadata.managedFields?.find((entry) => entry.operation === 'Update');
    expect(updater).toMatchObject({ manager: 'kubectl-label', apiVersion: 'v1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } } } });
    // The Update entries follow the Apply entries.
    expect(labelled.metadata.managedFields?.map((entry) => entry.operation)).toEqual(['Apply', 'Update']);
  });

  it('kubectl apply (client-side) then apply --server-side takes the fields over without a conflict', async () => {
    const manifest = (value: string): string => configMap({ mode: value }).replace('name: settings', 'name: migrated');
    expect(await ok(['apply', '-f', '-'], manifest('client'))).toContain('configmap/migrated created');
    const clientSide = await getYaml('configmap', 'migrated');
    expect(clientSide.metadata.managedFields?.map((entry) => [entry.manager, entry.operation])).toEqual([['kubectl-client-side-apply', 'Update']]);
    expect(await ok(['apply', '--server-side', '-f', '-'], manifest('server'))).toContain('configmap/migrated serverside-applied');
    const serverSide = parse(await ok(['get', 'configmap', 'migrated', '-n', ns, '-o', 'yaml', '--show-managed-fields'])) as Stored & { metadata: { annotations: Record<string, string> } };
    expect(serverSide.data).toEqual({ mode: 'server' });
    // kubectl then rewrites managedFields itself (csaupgrade, a JSON patch kept as given): the
    // client-side entry becomes kubectl's Apply and kubectl-last-applied keeps the annotation.
    // Entries of one operation are ordered by their time in seconds, then by manager (kube's
    // sortEncodedManagedFields): the two Apply entries may or may not fall in the same second.
    const byManager = [...(serverSide.metadata.managedFields ?? [])].sort((a, b) => a.manager.localeCompare(b.manager));
    expect(byManager.map((entry) => [entry.manager, entry.operation, entry.fieldsV1])).toEqual([
      ['kubectl', 'Apply', { 'f:data': { 'f:mode': {} } }],
      ['kubectl-last-applied', 'Apply', { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }],
    ]);
    expect(JSON.parse(serverSide.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']!)).toMatchObject({ data: { mode: 'server' } });
  });

  it('creates then updates a Pod, merging its containers by name', async () => {
    expect(await ok(['apply', '--server-side', '-f', '-'], pod('nginx:1.27'))).toContain('pod/web serverside-applied');
    const created = await getYaml('pod', 'web');
    expect(created.spec?.containers.map((container) => container.image)).toEqual(['nginx:1.27']);
    expect(created.metadata.managedFields).toEqual([{
      apiVersion: 'v1', fieldsType: 'FieldsV1', manager: 'kubectl', operation: 'Apply', time: expect.any(String) as unknown,
      fieldsV1: {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    }]);
    expect(await ok(['apply', '--server-side', '-f', '-'], pod('nginx:1.28'))).toContain('pod/web serverside-applied');
    const updated = await getYaml('pod', 'web');
    expect(updated.spec?.containers.map((container) => container.image)).toEqual(['nginx:1.28']);
    // An unknown field is refused whatever the validation level, as kube's typed conversion does.
    const unknown = await fails(['apply', '--server-side', '--validate=false', '-f', '-'], `${pod('nginx:1.28')}    bogus: 1\n`);
    expect(unknown.stderr).toContain('failed to create typed patch object (ssa/web; /v1, Kind=Pod): .spec.containers[name="web"].bogus: field not declared in schema');
    // A dry run answers the applied object and stores nothing.
    await ok(['apply', '--server-side', '--dry-run=server', '-f', '-'], pod('nginx:1.29'));
    expect((await getYaml('pod', 'web')).spec?.containers[0]?.image).toBe('nginx:1.28');
  });
});
