// End-to-end on an HA cluster (`kstore cluster up`: 3 nats-servers, 3 stores, 2 API replicas):
// Services created at the same time through both API replicas get distinct cluster IPs (the
// allocation happens in the replicated state machine's apply, not in an API replica), and a pod
// created through one replica is served, defaulted, by the other; the API replicas keep the
// kubernetes Service; a bound pod deleted gracefully through one replica is Terminating on the
// other until force-deleted, and the store leader's PodGC removes the pods of a deleted node.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: TempDir | undefined;
let kubectl: Kubectl;
let cluster: Target | undefined;

beforeAll(async () => {
  dir = await makeTempDir('kstore-e2e-workloads-ha-');
  cluster = await startCluster(dir, []);
  kubectl = new Kubectl({ kubeconfig: cluster.kubeconfig, cacheDir: path.join(dir.path, 'kube-cache') });
}, 120_000);

afterAll(async () => {
  kubectl?.stopAll();
  await cluster?.stop();
  await dir?.remove();
}, 60_000);

async function ok(args: readonly string[], input?: string): Promise<string> {
  const result = await kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, describeResult(args, result)).toBe(0);
  return result.stdout;
}

describe('workloads on an HA cluster', () => {
  it('hands out distinct cluster IPs to services created concurrently through both API replicas', async () => {
    const count = 8;
    await Promise.all(Array.from({ length: count }, (_, index) =>
      ok(['--context', index % 2 === 0 ? 'kstore-a1' : 'kstore-a2', 'create', 'service', 'clusterip', `s${index}`, '--tcp=80'])));
    const table = parseTable(await ok(['--context', 'kstore-a2', 'get', 'services', '-n', 'default']));
    const ips = table.rows.filter((row) => /^s\d+$/.test(row['NAME'] ?? '')).map((row) => row['CLUSTER-IP']);
    expect(ips).toHaveLength(count);
    expect(new Set(ips).size).toBe(count);
    for (const ip of ips) expect(ip).toMatch(/^10\.96\.0\.\d+$/);
  });

  it('keeps the kubernetes Service (the API replicas create it once default exists)', async () => {
    const row = await waitFor(async () => {
      const result = await kubectl.run(['--context', 'kstore-a1', 'get', 'service', 'kubernetes', '-n', 'default']);
      return result.code === 0 ? parseTable(result.stdout).rows[0] : undefined;
    }, { timeoutMs: 30_000, description: 'the kubernetes Service' });
    expect(row).toMatchObject({ TYPE: 'ClusterIP', 'CLUSTER-IP': '10.96.0.1', 'PORT(S)': '443/TCP' });
  });

  it('serves a pod created through one replica from the other, defaulted', async () => {
    expect(await ok(['--context', 'kstore-a1', 'run', 'web', '--image=nginx'])).toContain('pod/web created');
    const table = parseTable(await ok(['--context', 'kstore-a2', 'get', 'pods', '--field-selector', 'status.phase=Pending']));
    expect(table.rows.find((row) => row['NAME'] === 'web')).toMatchObject({ READY: '0/1', STATUS: 'Pending' });
    expect(await ok(['--context', 'kstore-a2', 'get', 'pod', 'web', '-o', 'jsonpath={.spec.containers[0].imagePullPolicy}'])).toBe('Always');
  });

  it('deletes a bound pod gracefully through one replica (Terminating on the other), force-deletes it, and the leader\'s PodGC removes a deleted node\'s pods', async () => {
    const node = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    const pod = (name: string, nodeName: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] } });
    await ok(['--context', 'kstore-a1', 'create', '-f', '-'], node('h1'));
    await ok(['--context', 'kstore-a1', 'create', '-f', '-'], node('h2'));
    await ok(['--context', 'kstore-a1', 'create', '-f', '-'], pod('graceful', 'h1'));
    await ok(['--context', 'kstore-a1', 'create', '-f', '-'], pod('orphan', 'h2'));
    // Start PodGC's 40 s quarantine first, so it runs while the graceful deletion is checked.
    await ok(['--context', 'kstore-a1', 'delete', 'node', 'h2']);

    expect(await ok(['--context', 'kstore-a1', 'delete', 'pod', 'graceful', '--wait=false'])).toContain('pod "graceful" deleted');
    const row = await waitFor(async () => {
      const result = await kubectl.run(['--context', 'kstore-a2', 'get', 'pod', 'graceful']);
      const status = result.code === 0 ? parseTable(result.stdout).rows[0] : undefined;
      return status?.['STATUS'] === 'Terminating' ? status : undefined;
    }, { timeoutMs: 20_000, description: 'the pod Terminating through a2' });
    expect(row).toMatchObject({ NAME: 'graceful' });
    expect(await ok(['--context', 'kstore-a2', 'get', 'pod', 'graceful', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}'])).toBe('30');
    expect(await ok(['--context', 'kstore-a2', 'delete', 'pod', 'graceful', '--grace-period=0', '--force'])).toContain('pod "graceful" force deleted');
    await waitFor(async () => (await kubectl.run(['--context', 'kstore-a1', 'get', 'pod', 'graceful'])).stderr.includes('NotFound'), { timeoutMs: 20_000, description: 'the pod gone through a1' });

    await waitFor(async () => (await kubectl.run(['--context', 'kstore-a2', 'get', 'pod', 'orphan'])).stderr.includes('NotFound'), { timeoutMs: 90_000, intervalMs: 1_000, description: 'PodGC to delete the pod of the deleted node' });
  }, 150_000);
});
