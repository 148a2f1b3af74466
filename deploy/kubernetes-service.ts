// Owns: the `kubernetes` Service in `default` that kube-apiserver keeps (its "master" endpoint
// reconciler's Service): cluster IP the first address of the service range, https 443 to the
// API server's secure port, labels component=apiserver and provider=kubernetes. Created once
// if absent; an existing one is left as it is. Its Endpoints (the API servers' addresses) are
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
