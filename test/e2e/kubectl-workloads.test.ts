// End-to-end: pods, services, nodes and endpoints through the real kubectl against one kstore
// server: `kubectl run`, `create service`, `get` (tables as kube-apiserver prints them),
// `get all`, field selectors, `logs` (no kubelets), `drain` (cordon, evictions through the pod
// eviction subresource with kubectl's protobuf client, waiting for the pods to go: gracefully
// evicted pods stay Terminating with no kubelet, `--grace-period=0` removes them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { Kubectl } from '../support/kubectl.ts';
import type { KubectlResult } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;
let kubectl: Kubectl;
const ns = 'work';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-workloads-', ns);
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

async function ensure(object: Record<string, unknown>): Promise<void> {
  const metadata = object['metadata'] as { name: string; namespace?: string };
  const scope = metadata.namespace ? ['-n', metadata.namespace] : [];
  if ((await kubectl.run(['get', String(object['kind']).toLowerCase(), metadata.name, ...scope, '-o', 'name'])).code === 0) return;
  await ok(['create', '-f', '-'], JSON.stringify(object));
}

describe('kubectl with pods, services, nodes and endpoints', () => {
  it('kubectl run creates a defaulted Pending pod that get prints as kube-apiserver does', async () => {
    expect(await ok(['run', 'web', '--image=nginx:1.27', '-n', ns, '--labels=app=web'])).toContain('pod/web created');
    const table = parseTable(await ok(['get', 'pods', '-n', ns]));
    expect(table.headers).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(table.rows.find((row) => row['NAME'] === 'web')).toMatchObject({ READY: '0/1', STATUS: 'Pending', RESTARTS: '0' });
    const wide = parseTable(await ok(['get', 'pod', 'web', '-n', ns, '-o', 'wide']));
    expect(wide.headers).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED', 'NODE', 'READINESS', 'GATES']);
    const pod = parse(await ok(['get', 'pod', 'web', '-n', ns, '-o', 'yaml'])) as { spec: Record<string, unknown> & { containers: Record<string, unknown>[] }; status: Record<string, unknown> };
    expect(pod.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30 });
    expect(pod.spec.containers[0]).toMatchObject({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' });
    expect(pod.status).toMatchObject({ phase: 'Pending' });
    // No node assigned: kube-apiserver has no kubelet location and streams an empty log.
    expect(await ok(['logs', 'web', '-n', ns])).toBe('');
    const exec = await kubectl.run(['exec', 'web', '-n', ns, '--', 'ls']);
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toContain('Error from server (BadRequest): pod web does not have a host assigned');
    const selected = await ok(['get', 'pods', '-n', ns, '--field-selector', 'status.phase=Pending,spec.nodeName=', '-o', 'name']);
    expect(selected.split('\n')).toContain('pod/web');
    const refused = await kubectl.run(['get', 'pods', '-n', ns, '--field-selector', 'spec.image=x']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('"spec.image" is not a known field selector');
  });

  it('the kubernetes Service exists in default with the first address of the range', async () => {
    const table = parseTable(await ok(['get', 'service', 'kubernetes', '-n', 'default']));
    expect(table.rows[0]).toMatchObject({ NAME: 'kubernetes', TYPE: 'ClusterIP', 'CLUSTER-IP': '10.96.0.1', 'PORT(S)': '443/TCP' });
  });

  it('kubectl set image and a repeated kubectl apply patch a pod strategically', async () => {
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'two', namespace: ns }, spec: { containers: [{ name: 'a', image: 'nginx:1.27' }, { name: 'b', image: 'busybox:1.36' }] } });
    expect(await ok(['apply', '-f', '-'], manifest)).toContain('pod/two created');
    expect(await ok(['set', 'image', 'pod/two', 'b=busybox:1.37', '-n', ns])).toContain('pod/two image updated');
    const images = await ok(['get', 'pod', 'two', '-n', ns, '-o', 'jsonpath={.spec.containers[*].image}']);
    expect(images).toBe('nginx:1.27 busybox:1.37');
    const changed = manifest.replace('nginx:1.27', 'nginx:1.28');
    expect(await ok(['apply', '-f', '-'], changed)).toContain('pod/two configured');
    expect(await ok(['get', 'pod', 'two', '-n', ns, '-o', 'jsonpath={.spec.containers[*].image}'])).toBe('nginx:1.28 busybox:1.36');
  });

  it('kubectl create service allocates cluster IPs; headless keeps None', async () => {
    expect(await ok(['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', ns])).toContain('service/web created');
    expect(await ok(['create', 'service', 'clusterip', 'db', '--clusterip=None', '-n', ns])).toContain('service/db created');
    const table = parseTable(await ok(['get', 'svc', '-n', ns]));
    expect(table.headers).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    const web = table.rows.find((row) => row['NAME'] === 'web');
    expect(web).toMatchObject({ TYPE: 'ClusterIP', 'EXTERNAL-IP': '<none>', 'PORT(S)': '80/TCP' });
    expect(web?.['CLUSTER-IP']).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(table.rows.find((row) => row['NAME'] === 'db')).toMatchObject({ 'CLUSTER-IP': 'None' });
    const patched = await kubectl.run(['patch', 'svc', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"clusterIP":"10.96.7.7","clusterIPs":["10.96.7.7"]}}']);
    expect(patched.code).not.toBe(0);
    expect(patched.stderr).toContain('may not change once set');
    const all = await ok(['get', 'all', '-n', ns]);
    expect(all).toContain('pod/web');
    expect(all).toContain('service/web');
  });

  it('kubectl get pods,svc,nodes,ep prints each kind\'s table', async () => {
    await ensure({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/worker': '' } }, status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.0' } } });
    await ensure({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: ns }, subsets: [{ addresses: [{ ip: '10.1.0.5' }], ports: [{ port: 8080 }] }] });
    await ensure({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: ns }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } });
    await ensure({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { ports: [{ port: 80 }] } });
    const output = await ok(['get', 'pods,svc,nodes,ep', '-n', ns]);
    const tables = output.split(/\n\s*\n/).filter((part) => part.trim() !== '').map(parseTable);
    const byHeaders = (first: string) => tables.find((table) => table.headers.join(' ').startsWith(first));
    expect(byHeaders('NAME READY STATUS RESTARTS AGE')?.rows.map((row) => row['NAME'])).toContain('pod/web');
    expect(byHeaders('NAME TYPE CLUSTER-IP')?.rows.map((row) => row['NAME'])).toContain('service/web');
    expect(byHeaders('NAME STATUS ROLES AGE VERSION')?.rows.find((row) => row['NAME'] === 'node/n1')).toMatchObject({ STATUS: 'Ready', ROLES: 'worker', VERSION: 'v1.32.0' });
    expect(byHeaders('NAME ENDPOINTS AGE')?.rows.find((row) => row['NAME'] === 'endpoints/web')).toMatchObject({ ENDPOINTS: '10.1.0.5:8080' });
  });

  it('kubectl drain cordons the node and evicts its pods: gracefully they stay Terminating (no kubelet), --grace-period=0 removes them', async () => {
    await ensure({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    await ensure({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'placed', namespace: ns }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'busybox' }] } });
    await ensure({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'elsewhere', namespace: ns }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } });
    // The eviction deletes the pod gracefully: it waits for a kubelet that kstore does not run, so drain times out.
    const graceful = await kubectl.run(['drain', 'n2', '--force', '--timeout=5s']);
    const gracefulOutput = `${graceful.stdout}${graceful.stderr}`;
    expect(graceful.code, diagnostics(['drain', 'n2', '--timeout=5s'], graceful)).not.toBe(0);
    expect(gracefulOutput).toContain('node/n2 cordoned');
    expect(gracefulOutput).toContain(`evicting pod ${ns}/placed`);
    expect(gracefulOutput).toContain('error when waiting for pod "placed" in namespace "work" to terminate');
    expect(parseTable(await ok(['get', 'pod', 'placed', '-n', ns])).rows[0]?.['STATUS']).toBe('Terminating');
    // What a user does when the kubelet is gone: evict with grace period 0.
    const drained = await kubectl.run(['drain', 'n2', '--force', '--grace-period=0', '--timeout=60s']);
    const output = `${drained.stdout}${drained.stderr}`;
    expect(drained.code, diagnostics(['drain', 'n2', '--grace-period=0'], drained)).toBe(0);
    expect(output).toContain(`evicting pod ${ns}/placed`);
    expect(output).toContain('node/n2 drained');
    expect((await kubectl.run(['get', 'pod', 'placed', '-n', ns])).code).not.toBe(0);
    expect(await ok(['get', 'pod', 'elsewhere', '-n', ns, '-o', 'name'])).toContain('pod/elsewhere');
    const node = parseTable(await ok(['get', 'node', 'n2']));
    expect(node.rows[0]?.['STATUS']).toBe('Unknown,SchedulingDisabled');
    // A pod on a node without a kubelet: the logs request fails as it does when kube-apiserver cannot reach one.
    const logs = await kubectl.run(['logs', 'elsewhere', '-n', ns]);
    expect(logs.code).not.toBe(0);
    expect(logs.stderr).toContain('no kubelet');
  });
});
