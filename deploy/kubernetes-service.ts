// Owns: the `kubernetes` Service in `default` that every kube-apiserver keeps (its "kubernetes
// service" controller): cluster IP the first address of the service range, https 443 to the
// API server's secure port, labels component=apiserver and provider=kubernetes. Created when
// absent (at start, then checked every 10 s, so a deleted one comes back, and an API replica
// that starts before the store leader made `default` creates it once the namespace exists); an
// existing one is left as it is (API replicas racing to create it: the first wins). Its Endpoints (the API servers' addresses) are
// not published: `kstore server` listens on loopback by default, which Endpoints may not name.
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

export const kubernetesServiceIntervalMs = 10_000;

/** Keeps the Service present until stopped; failures (no `default` yet, no leader) are retried. */
export function keepKubernetesService(client: StoreClient, securePort: number, log: (message: string) => void): { stop(): void } {
  let lastProblem = '';
  const attempt = () => {
    ensureKubernetesService(client, securePort).then(() => { lastProblem = ''; }, (error: unknown) => {
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
