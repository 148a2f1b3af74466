// End-to-end on an HA cluster (`kstore cluster up`: 3 nats-servers, 3 stores, 2 API replicas):
// Services created at the same time through both API replicas get distinct cluster IPs (the
// allocation happens in the replicated state machine's apply, not in an API replica), and a pod
// created through one replica is served, defaulted, by the other; the API replicas keep the
// kubernetes Service.
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

async function ok(args: readonly string[]): Promise<string> {
  const result = await kubectl.run(args);
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
});
