// Owns: the `cluster-info` ConfigMap in kube-public that a joining node reads before it has any
// credentials (kubeadm's bootstrap-token/clusterinfo phase): a kubeconfig naming the API server's
// URL and the cluster CA, and nothing secret. kube's bootstrap signer (actors/controllers/
// bootstrap-signer.ts) adds a JWS of its `kubeconfig` entry per signing token, with which the
// node checks it was not tampered with. Created when missing while bootstrap token authentication
// is on; an existing one is left alone (its server URL is the operator's), as kubeadm does on an
// upgrade. Retried each second until the store answers; a race with another replica is success.
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { formatTime } from '../api/index.ts';
import type { StoreClient } from '../api/index.ts';
import type { KubeObject, ObjectKey } from '../actors/index.ts';
import { clusterInfoKey } from '../actors/controllers/index.ts';

const identity = 'system:apiserver';
const retryMs = 1_000;

/** kubeadm's cluster-info kubeconfig: one unnamed cluster, no users or contexts. */
export function clusterInfoKubeconfig(server: string, caCertificate: string): string {
  return stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caCertificate).toString('base64'), server }, name: '' }],
    contexts: null, 'current-context': '', preferences: {}, users: null,
  });
}

export async function ensureClusterInfo(client: StoreClient, server: string, caCertificate: string): Promise<void> {
  await client.readIndex();
  const key: ObjectKey = clusterInfoKey;
  if (client.get(key) !== undefined) return;
  const at = formatTime(new Date());
  const object = {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: key.name, namespace: key.namespace, uid: randomUUID(), creationTimestamp: at },
    data: { kubeconfig: clusterInfoKubeconfig(server, caCertificate) },
  } as unknown as KubeObject;
  const result = await client.propose({ type: 'create', key, object, at, by: identity });
  if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create ${key.namespace}/${key.name}: ${result.type}`);
}

/** Tries until one round succeeds; the timer never holds the process. */
export function keepClusterInfo(client: StoreClient, server: () => string, caCertificate: string, log: (message: string) => void): void {
  let lastProblem = '';
  const attempt = (): void => {
    ensureClusterInfo(client, server(), caCertificate).catch((error: unknown) => {
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== lastProblem) log(`cluster-info: ${problem}; retrying`);
      lastProblem = problem;
      setTimeout(attempt, retryMs).unref();
    });
  };
  attempt();
}
