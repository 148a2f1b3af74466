// End-to-end with real kubectl: `kstore server --advertise-address` publishes the `kubernetes`
// Endpoints in `default` naming that address and the secure port (kube's endpoint reconciler),
// puts it back after a delete, and a server on loopback only publishes none.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

interface EndpointsJson {
  readonly metadata: { readonly labels?: Record<string, string> };
  readonly subsets: readonly { readonly addresses: readonly { readonly ip: string }[]; readonly ports: readonly { readonly name: string; readonly port: number; readonly protocol: string }[] }[];
}

describe('the kubernetes Endpoints', () => {
  let dir: TempDir | undefined;
  let advertised: Target | undefined;
  let loopback: Target | undefined;
  let kubectl: Kubectl;

  beforeAll(async () => {
    dir = await makeTempDir('kstore-e2e-endpoints-');
    advertised = await startServer({ path: path.join(dir.path, 'advertised'), remove: async () => {} }, ['--advertise-address', '10.11.12.13']);
    loopback = await startServer({ path: path.join(dir.path, 'loopback'), remove: async () => {} });
    kubectl = new Kubectl({ kubeconfig: advertised.kubeconfig, cacheDir: path.join(dir.path, 'kube-cache') });
  }, 120_000);

  afterAll(async () => {
    kubectl?.stopAll();
    await advertised?.stop();
    await loopback?.stop();
    await dir?.remove();
  }, 60_000);

  const endpoints = async (kubeconfig: string): Promise<EndpointsJson | undefined> => {
    const result = await kubectl.run(['--kubeconfig', kubeconfig, 'get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'json']);
    return result.code === 0 ? JSON.parse(result.stdout) as EndpointsJson : undefined;
  };

  it('names the advertised address and the secure port, and comes back after a delete', async () => {
    const port = Number(new URL(advertised!.writer).port);
    const published = await waitFor(() => endpoints(advertised!.kubeconfig), { timeoutMs: 30_000, description: 'kubernetes Endpoints' });
    expect(published.subsets).toEqual([{ addresses: [{ ip: '10.11.12.13' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }]);
    expect(published.metadata.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    const table = await kubectl.run(['get', 'endpoints', 'kubernetes', '-n', 'default']);
    expect(table.code, describeResult(['get', 'endpoints'], table)).toBe(0);
    expect(table.stdout).toContain(`10.11.12.13:${port}`);

    const deleted = await kubectl.run(['delete', 'endpoints', 'kubernetes', '-n', 'default']);
    expect(deleted.code, describeResult(['delete'], deleted)).toBe(0);
    const back = await waitFor(() => endpoints(advertised!.kubeconfig), { timeoutMs: 30_000, description: 'kubernetes Endpoints back' });
    expect(back.subsets[0]?.addresses).toEqual([{ ip: '10.11.12.13' }]);
  });

  it('a server on loopback only publishes none (while it keeps the kubernetes Service)', async () => {
    await waitFor(async () => (await kubectl.run(['--kubeconfig', loopback!.kubeconfig, 'get', 'service', 'kubernetes', '-n', 'default'])).code === 0, { timeoutMs: 30_000, description: 'kubernetes Service' });
    expect(await endpoints(loopback!.kubeconfig)).toBeUndefined();
  });
});
