// Owns: the default ServiceCIDR `kubernetes` every kube-apiserver 1.33 keeps (its
// kubernetes-service-cidr-controller): spec.cidrs is the service cluster IP range
// (actors/service-allocation.ts, kube's --service-cluster-ip-range), created when absent (at
// start, then checked every 10 s, so a deleted one comes back), and its Ready condition set True
// ("Kubernetes default Service CIDR is ready") when it has none and its ranges match. An
// existing one whose ranges differ is left alone, as kube leaves it. API servers racing to create
// it: the first wins; status updates carry a resourceVersion precondition.
import { randomUUID } from 'node:crypto';
import { formatTime } from '../api/index.ts';
import type { StoreClient } from '../api/index.ts';
import { serviceClusterIpRange } from '../actors/index.ts';
import type { KubeObject } from '../actors/index.ts';

export const defaultServiceCidrKey = { group: 'networking.k8s.io', resource: 'servicecidrs', namespace: '', name: 'kubernetes' } as const;
const identity = 'system:apiserver';

function readyCondition(object: KubeObject): Record<string, unknown> | undefined {
  const status = (object['status'] ?? {}) as { conditions?: Record<string, unknown>[] };
  return (status.conditions ?? []).find((condition) => condition['type'] === 'Ready');
}

/** One round: create the default ServiceCIDR when absent, then mark it Ready when nothing says otherwise. */
export async function ensureDefaultServiceCidr(client: StoreClient, cidrs: readonly string[] = [serviceClusterIpRange]): Promise<void> {
  await client.readIndex();
  let current = client.get(defaultServiceCidrKey);
  if (current === undefined) {
    const at = formatTime(new Date());
    const object: KubeObject = {
      apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR',
      metadata: { name: 'kubernetes', uid: randomUUID(), creationTimestamp: at },
      spec: { cidrs: [...cidrs] },
    };
    const result = await client.propose({ type: 'create', key: defaultServiceCidrKey, object, at, by: identity });
    if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create the default ServiceCIDR: ${result.type}`);
    current = client.get(defaultServiceCidrKey);
    if (current === undefined) return;
  }
  if (current.metadata.deletionTimestamp !== undefined) return;
  const specCidrs = ((current['spec'] ?? {}) as { cidrs?: unknown[] }).cidrs ?? [];
  if (JSON.stringify(specCidrs) !== JSON.stringify(cidrs)) return;
  const ready = readyCondition(current);
  if (ready !== undefined && ready['status'] !== 'Unknown') return;
  const at = formatTime(new Date());
  const status = (current['status'] ?? {}) as { conditions?: Record<string, unknown>[] };
  const conditions = (status.conditions ?? []).filter((condition) => condition['type'] !== 'Ready');
  conditions.push({ type: 'Ready', status: 'True', lastTransitionTime: at, reason: '', message: 'Kubernetes default Service CIDR is ready' });
  const object = { ...structuredClone(current), status: { ...status, conditions } } as KubeObject;
  const result = await client.propose({ type: 'update', key: defaultServiceCidrKey, object, at, by: identity, preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' } });
  if (result.type !== 'stored' && result.type !== 'conflict') throw new Error(`could not mark the default ServiceCIDR ready: ${result.type}`);
}

export const defaultServiceCidrIntervalMs = 10_000;
const retryMs = 1_000;

/** Keeps the default ServiceCIDR until stopped: a round at once, then every 10 s (1 s after a failed round). */
export function keepDefaultServiceCidr(client: StoreClient, log: (message: string) => void): { stop(): void } {
  let lastProblem = '';
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(attempt, delayMs);
    timer.unref();
  };
  function attempt(): void {
    ensureDefaultServiceCidr(client).then(() => {
      lastProblem = '';
      schedule(defaultServiceCidrIntervalMs);
    }, (error: unknown) => {
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== lastProblem) log(`default ServiceCIDR: ${problem}; retrying`);
      lastProblem = problem;
      schedule(retryMs);
    });
  }
  attempt();
  return { stop: () => { stopped = true; clearTimeout(timer); } };
}
