// Owns: kube-apiserver's rbac/bootstrap-roles post-start hook for every API server: the default
// ClusterRoles and ClusterRoleBindings of api/auth/rbac-bootstrap-policy.ts are created when missing
// (at start, then checked every 10 s like the kubernetes Service, so a deleted one comes back —
// a check only when a ClusterRole or ClusterRoleBinding changed since the last complete round,
// or the replica re-synced: a round costs a reconcile of every default role);
// an existing one annotated rbac.authorization.kubernetes.io/autoupdate=true is reconciled as
// kube's non-tightening reconcile does — missing rules, aggregation selectors, subjects, labels
// and annotations are added, nothing is removed; one without the annotation is left alone. API
// servers racing each other: creates answer alreadyExists, updates carry a resourceVersion
// precondition (a conflict is retried on the next round).
import { randomUUID } from 'node:crypto';
import {
  autoUpdateAnnotation, bootstrapClusterRoleBindings, bootstrapClusterRoles, clusterRoleBindingObject, clusterRoleObject, formatTime,
  missingRules, rulesOf, subjectsOf,
} from '../api/index.ts';
import type { StoreClient } from '../api/index.ts';
import type { ChangeEvent, KubeObject, ObjectKey } from '../actors/index.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
const identity = 'system:apiserver';

type Fields = Record<string, unknown>;

function withMetadata(current: KubeObject, wanted: Fields): { object: KubeObject; changed: boolean } {
  const object = structuredClone(current);
  const wantedMetadata = wanted['metadata'] as { labels: Record<string, string>; annotations: Record<string, string> };
  let changed = false;
  for (const [field, values] of [['labels', wantedMetadata.labels], ['annotations', wantedMetadata.annotations]] as const) {
    const present = { ...(object.metadata[field] ?? {}) };
    for (const [key, value] of Object.entries(values)) {
      if (present[key] === undefined) {
        present[key] = value;
        changed = true;
      }
    }
    object.metadata[field] = present;
  }
  return { object, changed };
}

/** The reconciled ClusterRole, or undefined when nothing is missing. */
export function reconcileClusterRole(current: KubeObject, wanted: Fields): KubeObject | undefined {
  const { object, changed: metadataChanged } = withMetadata(current, wanted);
  let changed = metadataChanged;
  const wantedAggregation = wanted['aggregationRule'] as { clusterRoleSelectors: unknown[] } | undefined;
  if (wantedAggregation !== undefined) {
    const currentAggregation = (object['aggregationRule'] ?? {}) as { clusterRoleSelectors?: unknown[] };
    const selectors = [...(currentAggregation.clusterRoleSelectors ?? [])];
    for (const selector of wantedAggregation.clusterRoleSelectors) {
      if (!selectors.some((present) => JSON.stringify(present) === JSON.stringify(selector))) {
        selectors.push(selector);
        changed = true;
      }
    }
    (object as Fields)['aggregationRule'] = { ...currentAggregation, clusterRoleSelectors: selectors } as never;
  } else {
    const present = rulesOf(object);
    const additions = rulesOf(wanted).filter((rule) => missingRules(present, [rule]).length > 0);
    if (additions.length > 0) {
      (object as Fields)['rules'] = [...((object['rules'] as unknown[] | undefined) ?? []), ...additions] as never;
      changed = true;
    }
  }
  return changed ? object : undefined;
}

/** The reconciled ClusterRoleBinding (missing subjects added), or undefined when nothing is missing. */
export function reconcileClusterRoleBinding(current: KubeObject, wanted: Fields): KubeObject | undefined {
  const { object, changed: metadataChanged } = withMetadata(current, wanted);
  const present = subjectsOf(object);
  const additions = (wanted['subjects'] as Fields[]).filter((subject) => !present.some((existing) => existing.kind === subject['kind'] && existing.name === subject['name'] && (existing.namespace ?? '') === (subject['namespace'] ?? '')));
  if (additions.length > 0) (object as Fields)['subjects'] = [...((object['subjects'] as unknown[] | undefined) ?? []), ...additions] as never;
  return metadataChanged || additions.length > 0 ? object : undefined;
}

async function ensureOne(client: StoreClient, key: ObjectKey, wanted: Fields, reconcile: (current: KubeObject, wanted: Fields) => KubeObject | undefined): Promise<void> {
  const current = client.get(key);
  const at = formatTime(new Date());
  if (current === undefined) {
    const metadata = { ...(wanted['metadata'] as Fields), uid: randomUUID(), creationTimestamp: at };
    const result = await client.propose({ type: 'create', key, object: { ...wanted, metadata } as KubeObject, at, by: identity });
    if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create ${key.resource} ${key.name}: ${result.type}`);
    return;
  }
  if (current.metadata.annotations?.[autoUpdateAnnotation] !== 'true' || current.metadata.deletionTimestamp !== undefined) return;
  const object = reconcile(current, wanted);
  if (object === undefined) return;
  const result = await client.propose({ type: 'update', key, object, at, by: identity, preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' } });
  if (result.type !== 'stored' && result.type !== 'conflict') throw new Error(`could not reconcile ${key.resource} ${key.name}: ${result.type}`);
}

/** One round: every default ClusterRole, then every default ClusterRoleBinding. */
export async function ensureRbacBootstrap(client: StoreClient): Promise<void> {
  await client.readIndex();
  for (const role of bootstrapClusterRoles) {
    await ensureOne(client, { group: rbacGroup, resource: 'clusterroles', namespace: '', name: role.name }, clusterRoleObject(role), reconcileClusterRole);
  }
  for (const binding of bootstrapClusterRoleBindings) {
    await ensureOne(client, { group: rbacGroup, resource: 'clusterrolebindings', namespace: '', name: binding.name }, clusterRoleBindingObject(binding), reconcileClusterRoleBinding);
  }
}

export const rbacBootstrapIntervalMs = 10_000;
/** Until the first round succeeds (an API replica starting before the store has a leader), it is retried this often. */
export const rbacBootstrapRetryMs = 1_000;

/** Whether a change touches what a round reconciles (a ClusterRole or ClusterRoleBinding). */
function touchesRbacPolicy(event: ChangeEvent): boolean {
  return event.key.group === rbacGroup && (event.key.resource === 'clusterroles' || event.key.resource === 'clusterrolebindings');
}

/**
 * Keeps the bootstrap policy present until stopped: a round at once, then every 10 s; a failed
 * round (no leader yet) is retried after 1 s, so non-admin users are not left without the
 * default discovery grants for long after a start. A round finds nothing to do unless a
 * ClusterRole or ClusterRoleBinding changed after the previous complete round began (every
 * change reaches this replica's copy as an event; a re-sync of the copy counts as a change),
 * so the periodic check skips the round while none did.
 */
export function keepRbacBootstrap(client: StoreClient, log: (message: string) => void): { stop(): void } {
  let lastProblem = '';
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let changed = true;
  const unsubscribe = client.subscribe((events) => {
    if (!changed && events.some(touchesRbacPolicy)) changed = true;
  });
  const unsubscribeResyncs = client.subscribeResyncs(() => { changed = true; });
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(attempt, delayMs);
    timer.unref();
  };
  function attempt(): void {
    if (!changed) {
      schedule(rbacBootstrapIntervalMs);
      return;
    }
    // Changes from here on (this round's own writes among them) make the next round run.
    changed = false;
    ensureRbacBootstrap(client).then(() => {
      lastProblem = '';
      schedule(rbacBootstrapIntervalMs);
    }, (error: unknown) => {
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== lastProblem) log(`rbac bootstrap policy: ${problem}; retrying`);
      lastProblem = problem;
      changed = true;
      schedule(rbacBootstrapRetryMs);
    });
  }
  attempt();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      unsubscribe();
      unsubscribeResyncs();
    },
  };
}
