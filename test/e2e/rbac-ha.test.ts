// End to end on an HA cluster (`kstore cluster up`: 3 stores, 2 API replicas): RBAC objects
// written through replica a1 decide requests on replica a2, which reads its own copy of the
// store; both replicas keep the bootstrap policy and the store leader aggregates admin.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { adminKubeconfig } from '../../deploy/kubeconfig.ts';
import { issueClientCertificate, pkiPaths } from '../../deploy/pki.ts';
import { startCluster } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: TempDir;
let cluster: Target;
let admin: Kubectl;
let janeOnA2: Kubectl;

beforeAll(async () => {
  dir = await makeTempDir('kstore-rbac-ha-');
  cluster = await startCluster(dir);
  const dataDir = path.join(dir.path, 'ha');
  const { cert, key } = await issueClientCertificate(dataDir, 'jane', ['developers']);
  const caCert = await readFile(pkiPaths(dataDir).caCert, 'utf8');
  const janeConfig = path.join(dir.path, 'jane-a2.kubeconfig');
  await writeFile(janeConfig, stringify(adminKubeconfig(cluster.reader, { caCert, adminCert: cert, adminKey: key })), { mode: 0o600 });
  admin = new Kubectl({ kubeconfig: cluster.kubeconfig, cacheDir: path.join(dir.path, 'cache-admin') });
  janeOnA2 = new Kubectl({ kubeconfig: janeConfig, cacheDir: path.join(dir.path, 'cache-jane') });
});

afterAll(async () => {
  await cluster?.stop();
  await dir?.remove();
});

async function onA1(args: string[]): Promise<string> {
  const full = ['--context', 'kstore-a1', ...args];
  const result = await admin.run(full);
  expect(result.code, describeResult(full, result)).toBe(0);
  return result.stdout;
}

describe('RBAC across API replicas', () => {
  it('a binding made through a1 lets jane read pods through a2, in that namespace only', async () => {
    await onA1(['create', 'namespace', 'ha-team']);
    expect((await janeOnA2.run(['auth', 'can-i', 'list', 'pods', '-n', 'ha-team'])).stdout.trim()).toBe('no');
    await onA1(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods', '-n', 'ha-team']);
    await onA1(['create', 'rolebinding', 'jane-reads', '--role=pod-reader', '--user=jane', '-n', 'ha-team']);
    // a2's copy follows the event stream: the grant shows there once the binding arrived.
    await waitFor(async () => (await janeOnA2.run(['auth', 'can-i', 'list', 'pods', '-n', 'ha-team'])).stdout.trim() === 'yes', { timeoutMs: 15_000, description: 'the binding reaches a2' });
    const allowed = await janeOnA2.run(['get', 'pods', '-n', 'ha-team']);
    expect(allowed.code, describeResult(['get', 'pods'], allowed)).toBe(0);
    const forbidden = await janeOnA2.run(['get', 'pods', '-n', 'default']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('User "jane" cannot list resource "pods" in API group "" in the namespace "default"');
  });

  it('admin is aggregated and served the same by both replicas', async () => {
    const rulesOn = async (context: string) => {
      const result = await admin.run(['--context', context, 'get', 'clusterrole', 'admin', '-o', 'yaml']);
      return (parse(result.stdout) as { rules?: unknown[] }).rules ?? [];
    };
    const onA2 = await waitFor(async () => {
      const rules = await rulesOn('kstore-a2');
      return rules.length > 0 ? rules : undefined;
    }, { timeoutMs: 15_000, description: 'admin aggregated' });
    await waitFor(async () => JSON.stringify(await rulesOn('kstore-a1')) === JSON.stringify(onA2), { timeoutMs: 15_000, description: 'the same rules on a1' });
  });
});
