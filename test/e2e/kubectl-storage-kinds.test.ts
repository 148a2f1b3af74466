// End-to-end: the storage, quota, scheduling and node kinds through the real kubectl against
// one kstore server: `api-resources` with kube's short names, `get pc` showing the two system
// priority classes created at start, `create priorityclass` (and a user value over the limit
// refused in kube's words), `create quota` printed with kube's Request/Limit columns, `apply`
// of a StorageClass and a PersistentVolumeClaim (the claim Pending, the class "(default)"), and
// `get cs` with kube's deprecation warning on stderr. No quota controller or volume binder
// runs: quota usage and claim binding stay as stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;
const ns = 'storage';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-storage-', ns);
});

afterAll(async () => {
  await fixture?.stop();
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

const storageManifest = [
  'apiVersion: storage.k8s.io/v1',
  'kind: StorageClass',
  'metadata:',
  '  name: fast',
  '  annotations:',
  '    storageclass.kubernetes.io/is-default-class: "true"',
  'provisioner: example.com/fast',
  'volumeBindingMode: WaitForFirstConsumer',
  '---',
  'apiVersion: v1',
  'kind: PersistentVolumeClaim',
  'metadata:',
  '  name: data',
  `  namespace: ${ns}`,
  'spec:',
  '  storageClassName: fast',
  '  accessModes: [ReadWriteOnce]',
  '  resources:',
  '    requests:',
  '      storage: 1536Mi',
  '',
].join('\n');

describe('kubectl with the storage, quota and scheduling kinds', () => {
  it('kubectl api-resources lists them with kube\'s short names', async () => {
    const table = parseTable(await ok(['api-resources']));
    const row = (name: string) => table.rows.find((candidate) => candidate['NAME'] === name);
    expect(row('persistentvolumes')).toMatchObject({ SHORTNAMES: 'pv', APIVERSION: 'v1', NAMESPACED: 'false', KIND: 'PersistentVolume' });
    expect(row('persistentvolumeclaims')).toMatchObject({ SHORTNAMES: 'pvc', NAMESPACED: 'true' });
    expect(row('limitranges')).toMatchObject({ SHORTNAMES: 'limits' });
    expect(row('resourcequotas')).toMatchObject({ SHORTNAMES: 'quota' });
    expect(row('componentstatuses')).toMatchObject({ SHORTNAMES: 'cs', NAMESPACED: 'false' });
    expect(row('storageclasses')).toMatchObject({ SHORTNAMES: 'sc', APIVERSION: 'storage.k8s.io/v1' });
    expect(row('priorityclasses')).toMatchObject({ SHORTNAMES: 'pc', APIVERSION: 'scheduling.k8s.io/v1' });
    expect(row('runtimeclasses')).toMatchObject({ APIVERSION: 'node.k8s.io/v1', KIND: 'RuntimeClass' });
  });

  it('kubectl get pc shows the two system priority classes created at start', async () => {
    const table = parseTable(await ok(['get', 'pc']));
    expect(table.headers).toEqual(['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    expect(table.rows.map((row) => [row['NAME'], row['VALUE'], row['GLOBAL-DEFAULT'], row['PREEMPTIONPOLICY']])).toEqual([
      ['system-cluster-critical', '2000000000', 'false', 'PreemptLowerPriority'],
      ['system-node-critical', '2000001000', 'false', 'PreemptLowerPriority'],
    ]);
  });

  it('kubectl create priorityclass makes a class; a user value above 1000000000 is refused', async () => {
    expect(await ok(['create', 'priorityclass', 'high', '--value=1000', '--description=batch work', '--preemption-policy=Never'])).toContain('priorityclass.scheduling.k8s.io/high created');
    const row = parseTable(await ok(['get', 'priorityclass', 'high'])).rows[0];
    expect(row).toMatchObject({ NAME: 'high', VALUE: '1000', 'GLOBAL-DEFAULT': 'false', PREEMPTIONPOLICY: 'Never' });
    const refused = await fixture!.kubectl.run(['create', 'priorityclass', 'huge', '--value=2000000000']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('maximum allowed value of a user defined priority is 1000000000');
  });

  it('kubectl create quota makes a ResourceQuota printed with Request and Limit', async () => {
    expect(await ok(['create', 'quota', 'compute', '--hard=pods=10,requests.cpu=0.5,limits.memory=2048Mi', '-n', ns])).toContain('resourcequota/compute created');
    const spec = parse(await ok(['get', 'quota', 'compute', '-n', ns, '-o', 'yaml'])) as { spec: { hard: Record<string, string> } };
    expect(spec.spec.hard).toEqual({ pods: '10', 'requests.cpu': '500m', 'limits.memory': '2Gi' });
    const table = parseTable(await ok(['get', 'quota', '-n', ns]));
    expect(table.headers).toEqual(['NAME', 'AGE', 'REQUEST', 'LIMIT']);
    // No quota controller fills the status, so used and hard print as kube's zero quantity.
    expect(table.rows[0]).toMatchObject({ NAME: 'compute', REQUEST: 'pods: 0/0, requests.cpu: 0/0', LIMIT: 'limits.memory: 0/0' });
  });

  it('kubectl apply of a StorageClass and a PersistentVolumeClaim: defaults, the default class marked, the claim Pending', async () => {
    const applied = await ok(['apply', '-f', '-'], storageManifest);
    expect(applied).toContain('storageclass.storage.k8s.io/fast created');
    expect(applied).toContain('persistentvolumeclaim/data created');
    expect(await ok(['apply', '-f', '-'], storageManifest)).toContain('persistentvolumeclaim/data unchanged');
    const classes = parseTable(await ok(['get', 'sc']));
    expect(classes.headers).toEqual(['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    expect(classes.rows[0]).toMatchObject({ NAME: 'fast (default)', PROVISIONER: 'example.com/fast', RECLAIMPOLICY: 'Delete', VOLUMEBINDINGMODE: 'WaitForFirstConsumer', ALLOWVOLUMEEXPANSION: 'false' });
    const claims = parseTable(await ok(['get', 'pvc', '-n', ns]));
    expect(claims.rows[0]).toMatchObject({ NAME: 'data', STATUS: 'Pending', VOLUME: '', STORAGECLASS: 'fast', VOLUMEATTRIBUTESCLASS: '<unset>' });
    expect(await ok(['get', 'pvc', 'data', '-n', ns, '-o', 'jsonpath={.spec.volumeMode} {.spec.resources.requests.storage} {.status.phase}'])).toBe('Filesystem 1536Mi Pending');
    expect(await ok(['describe', 'pvc', 'data', '-n', ns])).toMatch(/Status:\s+Pending/);
    expect(await ok(['explain', 'pvc.spec.volumeName'])).toContain('The volume the claim is bound to');
    const refused = await fixture!.kubectl.run(['patch', 'pvc', 'data', '-n', ns, '--type=merge', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
  });

  it('kubectl get cs prints kube\'s deprecation warning and the store as etcd-0', async () => {
    const result = await fixture!.kubectl.run(['get', 'cs']);
    expect(result.code, fixture!.diagnostics(['get', 'cs'], result)).toBe(0);
    expect(result.stderr).toContain('Warning: v1 ComponentStatus is deprecated in v1.19+');
    const table = parseTable(result.stdout);
    expect(table.headers).toEqual(['NAME', 'STATUS', 'MESSAGE', 'ERROR']);
    expect(table.rows).toEqual([{ NAME: 'etcd-0', STATUS: 'Healthy', MESSAGE: 'ok', ERROR: '' }]);
  });
});
