// Owns: the `kubernetes` Service in `default` that every kube-apiserver keeps (its "kubernetes
// service" controller): cluster IP the first address of the service range, https 443 to the
// API server's secure port, labels component=apiserver and provider=kubernetes. Created when
// absent (at start, then checked every 10 s, so a deleted one comes back, and an API replica
// that starts before the store leader made `default` creates it once the namespace exists); an
// existing one is left as it is (API replicas racing to create it: the first wins).
// And its Endpoints (kube's lease endpoint reconciler): the advertised address and secure port of
// every live API server (deploy/advertise-address.ts; for API replicas, those heard from on the
// replica announcements), one subset per port, addresses sorted, label
// endpointslice.kubernetes.io/skip-mirror=true; rewritten when the set changes, left alone
// while no API server advertises an address (all bound to loopback).
import { randomUUID } from 'node:crypto';
import { formatTime } from '../api/index.ts';
import type { StoreClient } from '../api/index.ts';
import { kubernetesServiceIp } from '../actors/index.ts';

export const kubernetesServiceKey = { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' } as const;

export async function ensureKubernetesService(client: StoreClient, securePort: number): Promise<void> {
  await client.readIndex();
  if (client.get(kubernetesServiceKey)) return;
  const now = formatTime(new Date());
  const object = {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', uid: randomUUID(), creationTimestamp: now, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: securePort }],
      clusterIP: kubernetesServiceIp, clusterIPs: [kubernetesServiceIp], type: 'ClusterIP', sessionAffinity: 'None',
      ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  };
  const result = await client.propose({ type: 'create', key: kubernetesServiceKey, object, at: now, by: 'system:apiserver' });
  if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create the kubernetes Service: ${result.type}`);
}

export const kubernetesEndpointsKey = { group: '', resource: 'endpoints', namespace: 'default', name: 'kubernetes' } as const;

/** One API server as the Endpoints name it. */
export interface ApiServerEndpoint {
  readonly ip: string;
  readonly port: number;
}

/** The Endpoints subsets for these API servers: one per port, addresses sorted and unique. */
export function kubernetesEndpointSubsets(endpoints: readonly ApiServerEndpoint[]): { addresses: { ip: string }[]; ports: { name: string; port: number; protocol: string }[] }[] {
  const byPort = new Map<number, Set<string>>();
  for (const endpoint of endpoints) byPort.set(endpoint.port, (byPort.get(endpoint.port) ?? new Set<string>()).add(endpoint.ip));
  return [...byPort.entries()].sort(([a], [b]) => a - b).map(([port, ips]) => ({
    addresses: [...ips].sort().map((ip) => ({ ip })),
    ports: [{ name: 'https', port, protocol: 'TCP' }],
  }));
}

/** Creates or rewrites the `kubernetes` Endpoints to name exactly these API servers (none: left alone). */
export async function ensureKubernetesEndpoints(client: StoreClient, endpoints: readonly ApiServerEndpoint[]): Promise<void> {
  if (endpoints.length === 0) return;
  await client.readIndex();
  const subsets = kubernetesEndpointSubsets(endpoints);
  const current = client.get(kubernetesEndpointsKey);
  const now = formatTime(new Date());
  if (current === undefined) {
    const object = {
      apiVersion: 'v1', kind: 'Endpoints',
      metadata: { name: 'kubernetes', namespace: 'default', uid: randomUUID(), creationTimestamp: now, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets,
    };
    const result = await client.propose({ type: 'create', key: kubernetesEndpointsKey, object, at: now, by: 'system:apiserver' });
    if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create the kubernetes Endpoints: ${result.type}`);
    return;
  }
  if (JSON.stringify(current['subsets']) === JSON.stringify(subsets)) return;
  const object = { ...structuredClone(current), subsets };
  const result = await client.propose({
    type: 'update', key: kubernetesEndpointsKey, object, at: now, by: 'system:apiserver',
    preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' },
  });
  // conflict: another API server rewrote it meanwhile; the next round compares again.
  if (result.type !== 'stored' && result.type !== 'conflict') throw new Error(`could not update the kubernetes Endpoints: ${result.type}`);
}

export const kubernetesServiceIntervalMs = 10_000;

/**
 * Keeps the Service present, and the Endpoints naming `endpoints()`, until stopped; failures (no
 * `default` yet, no leader) are retried.
 */
export function keepKubernetesService(client: StoreClient, securePort: number, log: (message: string) => void, endpoints: () => readonly ApiServerEndpoint[] = () => []): { stop(): void } {
  let lastProblem = '';
  const attempt = () => {
    ensureKubernetesService(client, securePort).then(() => ensureKubernetesEndpoints(client, endpoints())).then(() => { lastProblem = ''; }, (error: unknown) => {
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== lastProblem) log(`kubernetes Service: ${problem}; retrying`);
      lastProblem = problem;
    });
  };
  attempt();
  const timer = setInterval(attempt, kubernetesServiceIntervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
