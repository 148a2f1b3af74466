// Owns: what an eviction (POST pods/<name>/eviction) asks of the PodDisruptionBudgets before
// the pod is deleted, as kube-apiserver's EvictionREST (pkg/registry/core/pod/storage/
// eviction.go) does. A pod that is Pending, Succeeded, Failed or already being deleted is
// deleted without consulting budgets. Otherwise the budgets of the pod's namespace whose
// non-empty selector matches the pod's labels are found: none — the eviction goes ahead; more
// than one — a 500 (the subresource does not support it); one — an unready pod is deleted
// without spending the budget when the budget allows it (unhealthyPodEvictionPolicy
// AlwaysAllow, or the application is healthy enough); else the budget is checked and
// decremented: a budget whose status the disruption controller has not caught up with
// (observedGeneration behind generation) or that allows no disruption answers 429
// TooManyRequests with kube's message and DisruptionBudget cause; an allowed eviction writes
// the budget's status first (disruptionsAllowed one less, the pod in disruptedPods, the
// DisruptionAllowed condition False when none remain), retried on a conflict, as kube's
// UpdateStatus does, and only then is the pod deleted. A dry run checks without writing.
import type { FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { findKind } from '../registry/kinds.ts';
import { selectorMatches } from '../registry/strategy-apps.ts';
import { ApiError, forbidden, notFound } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { formatTime } from './context.ts';
import { expectObject } from './results.ts';
import type { Target } from './target.ts';
import { writeRequestOf, writeUpdate } from './write-path.ts';

type Fields = Record<string, JsonValue>;

function isFields(value: JsonValue | undefined): value is Fields {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

function fields(value: JsonValue | undefined): Fields {
  return isFields(value) ? value : {};
}

function count(value: JsonValue | undefined): number {
  return typeof value === 'number' ? value : 0;
}

/** kube's MaxDisruptedPodSize: evictions the disruption controller has not confirmed yet. */
const maxDisruptedPods = 2000;
/** Conflicting writes of the budget's status tolerated before giving up (kube's EvictionsRetry). */
const statusAttempts = 20;
const evictionRefused = "Cannot evict pod as it would violate the pod's disruption budget.";

/** errors.NewTooManyRequests with the DisruptionBudget cause; Retry-After only when above 0 (omitempty). */
function tooManyRequests(cause: string, retryAfterSeconds: number): ApiError {
  return new ApiError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: evictionRefused, reason: 'TooManyRequests',
    details: { causes: [{ reason: 'DisruptionBudget', message: cause }], ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}) },
    code: 429,
  });
}

/** canIgnorePDB: the pod's disruption already happened, or it never ran. */
function canIgnoreBudgets(pod: KubeObject): boolean {
  const phase = fields(pod['status'] as JsonValue | undefined)['phase'];
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp !== undefined;
}

/** podutil.IsPodReady: the Ready condition is True. */
function podReady(pod: KubeObject): boolean {
  const conditions = fields(pod['status'] as JsonValue | undefined)['conditions'];
  return Array.isArray(conditions) && conditions.some((condition) => isFields(condition) && condition['type'] === 'Ready' && condition['status'] === 'True');
}

const pdbKind = findKind('policy', 'v1', 'poddisruptionbudgets');

function pdbTarget(namespace: string, name: string): Target {
  if (pdbKind === undefined) throw new Error('policy/v1 poddisruptionbudgets are not served');
  return { kind: pdbKind, namespace, name, subresource: 'status' };
}

/** getPodDisruptionBudgets: the namespace's budgets whose (non-empty) selector selects the pod. */
function budgetsOf(pod: KubeObject, context: EndpointContext): KubeObject[] {
  const namespace = pod.metadata.namespace ?? '';
  const labels = (pod.metadata.labels ?? {}) as Fields;
  return context.store.list({ group: 'policy', resource: 'poddisruptionbudgets', namespace }).items.filter((budget) => {
    const selector = fields(budget['spec'] as JsonValue | undefined)['selector'];
    if (!isFields(selector)) return false;
    const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
    // A nil or empty selector matches nothing here, not everything.
    if (Object.keys(fields(selector['matchLabels'])).length + expressions.length === 0) return false;
    return selectorMatches(selector, labels);
  });
}

/** pdbhelper.UpdateDisruptionAllowedCondition for a budget with no disruption left (apimeta.SetStatusCondition). */
function insufficientPodsCondition(status: Fields, now: string): void {
  const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter(isFields) : [];
  const existing = conditions.find((condition) => condition['type'] === 'DisruptionAllowed');
  const condition: Fields = {
    type: 'DisruptionAllowed', status: 'False', ...(isFields(existing) ? { lastTransitionTime: existing['lastTransitionTime'] ?? now } : { lastTransitionTime: now }),
    reason: 'InsufficientPods', message: '', observedGeneration: status['observedGeneration'] ?? 0,
  };
  if (existing === undefined) conditions.push(condition);
  else {
    if (existing['status'] !== 'False') condition['lastTransitionTime'] = now;
    conditions.splice(conditions.indexOf(existing), 1, { ...existing, ...condition, message: existing['message'] ?? '' });
  }
  status['conditions'] = conditions;
}

/**
 * checkAndDecrement: refuses an eviction the budget does not allow, else records it in the
 * budget's status (not for a dry run). Returns false when the status write met a newer budget
 * (the conflict is thrown on the `last` attempt).
 */
async function checkAndDecrement(request: FastifyRequest, context: EndpointContext, pod: KubeObject, budget: KubeObject, dryRun: boolean, last: boolean): Promise<boolean> {
  const name = budget.metadata.name ?? '';
  const status: Fields = structuredClone(fields(budget['status'] as JsonValue | undefined));
  if (count(status['observedGeneration']) < (budget.metadata.generation ?? 0)) {
    throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10);
  }
  const allowed = count(status['disruptionsAllowed']);
  const qualified = { group: 'policy', resource: 'poddisruptionbudget' };
  if (allowed < 0) throw forbidden(qualified, name, 'pdb disruptions allowed is negative');
  if (Object.keys(fields(status['disruptedPods'])).length > maxDisruptedPods) {
    throw forbidden(qualified, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (allowed === 0) {
    throw tooManyRequests(`The disruption budget ${name} needs ${count(status['desiredHealthy'])} healthy pods and has ${count(status['currentHealthy'])} currently`, 0);
  }
  if (dryRun) return true;
  const now = formatTime(context.now());
  status['disruptionsAllowed'] = allowed - 1;
  if (allowed - 1 === 0) insufficientPodsCondition(status, now);
  status['disruptedPods'] = { ...fields(status['disruptedPods']), [pod.metadata.name ?? '']: now };
  const updated = { ...structuredClone(budget), status } as KubeObject;
  const target = pdbTarget(budget.metadata.namespace ?? '', name);
  const result = await writeUpdate(writeRequestOf(request, target, context, false, 'status'), budget, updated, { resourceVersion: budget.metadata.resourceVersion ?? '' });
  if (result.type === 'conflict' && !last) return false;
  expectObject(result, target, name);
  return true;
}

/**
 * The budget check of an eviction of `pod`, before the pod is deleted: throws the refusal, or
 * returns once the eviction may go ahead (the budget's status written, unless `dryRun`).
 * Returns true when the pod is to be deleted only at the resourceVersion it was read at (an
 * unready pod let go without spending the budget must not have become ready since).
 */
export async function admitEviction(request: FastifyRequest, context: EndpointContext, pod: KubeObject, dryRun: boolean): Promise<boolean> {
  if (canIgnoreBudgets(pod)) return false;
  const budgets = budgetsOf(pod, context);
  if (budgets.length > 1) {
    throw new ApiError({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    });
  }
  let budget = budgets[0];
  if (budget === undefined) return false;
  if (!podReady(pod)) {
    const spec = fields(budget['spec'] as JsonValue | undefined);
    const status = fields(budget['status'] as JsonValue | undefined);
    // An unready pod does not count towards the budget: deleting it disrupts nothing more.
    if (spec['unhealthyPodEvictionPolicy'] === 'AlwaysAllow') return true;
    const desired = count(status['desiredHealthy']);
    if (count(status['currentHealthy']) >= desired && desired > 0) return true;
  }
  const key = { group: 'policy', resource: 'poddisruptionbudgets', namespace: budget.metadata.namespace ?? '', name: budget.metadata.name ?? '' };
  for (let attempt = 1; ; attempt++) {
    if (await checkAndDecrement(request, context, pod, budget, dryRun, attempt === statusAttempts)) return false;
    await context.store.readIndex();
    budget = context.store.get(key);
    if (budget === undefined) throw notFound({ group: 'policy', resource: 'poddisruptionbudgets' }, key.name);
  }
}
