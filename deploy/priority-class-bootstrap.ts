// Owns: kube-apiserver's scheduling/bootstrap-system-priority-classes post-start hook for every
// API server: the two system PriorityClasses (system-node-critical, system-cluster-critical;
// api/registry/strategy-scheduling.ts holds their values) are created when missing. As in
// kube, an existing class of that name is left as it is, and the hook is done once every class
// exists: a failed round (no store leader yet) is retried every second until one succeeds.
// API servers racing each other: a create answering alreadyExists is success.
import { randomUUID } from 'node:crypto';
import { formatTime, systemPriorityClasses } from '../api/index.ts';
import type { StoreClient } from '../api/index.ts';
import type { KubeObject } from '../actors/index.ts';

const group = 'scheduling.k8s.io';
const identity = 'system:apiserver';

/** One round: each system class created unless present. */
export async function ensurePriorityClassBootstrap(client: StoreClient): Promise<void> {
  await client.readIndex();
  for (const priorityClass of systemPriorityClasses) {
    const key = { group, resource: 'priorityclasses', namespace: '', name: priorityClass.name };
    if (client.get(key) !== undefined) continue;
    const at = formatTime(new Date());
    const object = {
      apiVersion: `${group}/v1`, kind: 'PriorityClass',
      metadata: { name: priorityClass.name, uid: randomUUID(), creationTimestamp: at, generation: 1 },
      value: priorityClass.value, globalDefault: false, description: priorityClass.description, preemptionPolicy: 'PreemptLowerPriority',
    } as unknown as KubeObject;
    const result = await client.propose({ type: 'create', key, object, at, by: identity });
    if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create priorityclass ${priorityClass.name}: ${result.type}`);
  }
}

export const priorityClassBootstrapRetryMs = 1_000;

/** Runs rounds until one succeeds (an API replica may start before the store has a leader); the timer never holds the process. */
export function keepPriorityClassBootstrap(client: StoreClient, log: (message: string) => void): void {
  let lastProblem = '';
  const attempt = (): void => {
    ensurePriorityClassBootstrap(client).catch((error: unknown) => {
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== lastProblem) log(`system priority classes: ${problem}; retrying`);
      lastProblem = problem;
      setTimeout(attempt, priorityClassBootstrapRetryMs).unref();
    });
  };
  attempt();
}
