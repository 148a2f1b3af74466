// policy/v1 PodDisruptionBudgets through the API (status reset to zero counters on create and
// kept on writes to the main resource, generation, kube's validation messages, the printer
// columns) and the evictions they govern: an eviction the budget forbids is 429
// TooManyRequests with kube's message and DisruptionBudget cause, an allowed one records
// itself in the budget's status (disruptionsAllowed one less, the pod in disruptedPods) before
// the pod is deleted, and the cases kube lets through without spending the budget.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createdObject, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const pdbs = '/apis/policy/v1/namespaces/t/poddisruptionbudgets';
const pods = '/api/v1/namespaces/t/pods';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function pdb(name: string, spec: Json): Json {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } };
}

const create = (url: string, object: Json): Promise<Json> => createdObject<Json>(harness, url, object);

/** A pod of app=web in the given phase, Ready unless said otherwise (as a kubelet would report it). */
async function runningPod(name: string, phase = 'Running', ready = true, labels: Json = { app: 'web' }): Promise<Json> {
  const created = await create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
  const status = { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
  const response = await harness.request('PUT', `${pods}/${name}/status`, { ...created, status });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** What the disruption controller would write into the budget's status. */
async function observe(name: string, status: Json): Promise<Json> {
  const current = (await harness.request('GET', `${pdbs}/${name}`)).json();
  const response = await harness.request('PUT', `${pdbs}/${name}/status`, { ...current, status: { observedGeneration: current.metadata.generation, expectedPods: 2, ...status } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

function evict(name: string, deleteOptions?: Json) {
  return harness.request('POST', `${pods}/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...(deleteOptions ? { deleteOptions } : {}) });
}

describe('poddisruptionbudgets', () => {
  it('are created with zero status counters and generation 1, keep the status on a PUT and bump the generation on a spec change', async () => {
    const created = await create(pdbs, { ...pdb('web', { minAvailable: 1 }), status: { disruptionsAllowed: 5 } });
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const observed = await observe('web', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 });
    const changed = await harness.request('PUT', `${pdbs}/web`, { ...observed, spec: { ...observed.spec, minAvailable: '50%' }, status: {} });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().metadata.generation).toBe(2);
    expect(changed.json().status).toMatchObject({ disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, observedGeneration: 1 });
  });

  it('refuse what kube\'s validation refuses', async () => {
    const both = await harness.request('POST', pdbs, pdb('both', { minAvailable: 1, maxUnavailable: '150%', unhealthyPodEvictionPolicy: 'Sometimes' }));
    expect(both.statusCode).toBe(422);
    const causes = (both.json().details.causes as Json[]).map(({ field, message }) => ({ field, message }));
    expect(causes).toHaveLength(3);
    expect(causes[0]).toMatchObject({ field: 'spec', message: expect.stringContaining('minAvailable and maxUnavailable cannot be both set') as string });
    expect(causes.slice(1)).toEqual([
      { field: 'spec.maxUnavailable', message: 'Invalid value: "150%": must not be greater than 100%' },
      { field: 'spec.unhealthyPodEvictionPolicy', message: 'Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"' },
    ]);
    const negative = await harness.request('POST', pdbs, pdb('negative', { minAvailable: -1 }));
    expect(negative.json().details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.minAvailable' }]);
  });

  it('print kube\'s budget columns', async () => {
    await create(pdbs, pdb('min', { minAvailable: 2 }));
    await create(pdbs, pdb('max', { maxUnavailable: '25%' }));
    await observe('min', { disruptionsAllowed: 3, currentHealthy: 5, desiredHealthy: 2 });
    const response = await harness.request('GET', pdbs, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    const table = response.json();
    expect(table.columnDefinitions.map((column: Json) => [column.name, column.type])).toEqual([
      ['Name', 'string'], ['Min Available', 'string'], ['Max Unavailable', 'string'], ['Allowed Disruptions', 'integer'], ['Age', 'string'],
    ]);
    expect(table.rows.map((row: Json) => row.cells.slice(0, 4))).toEqual([['max', 'N/A', '25%', 0], ['min', '2', 'N/A', 3]]);
  });
});

describe('evictions under a budget', () => {
  it('decrement disruptionsAllowed and record the pod before deleting it, then refuse with 429 and kube\'s cause', async () => {
    await runningPod('a');
    await runningPod('b');
    await create(pdbs, pdb('web', { minAvailable: 1 }));
    await observe('web', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 });
    const allowed = await evict('a', { gracePeriodSeconds: 0 });
    expect(allowed.statusCode, allowed.body).toBe(201);
    expect((await harness.request('GET', `${pods}/a`)).statusCode).toBe(404);
    const budget = (await harness.request('GET', `${pdbs}/web`)).json();
    expect(budget.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(budget.status.disruptedPods as Json)).toEqual(['a']);
    expect(budget.status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', observedGeneration: 1 })]);
    const refused = await evict('b');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(refused.json()).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'TooManyRequests', code: 429,
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 2 currently' }] },
    });
    expect((await harness.request('GET', `${pods}/b`)).json().metadata.deletionTimestamp).toBeUndefined();
  });

  it('refuse while the budget\'s status is behind its spec, and check without writing on a dry run', async () => {
    await runningPod('a');
    await create(pdbs, pdb('web', { maxUnavailable: 1 }));
    const pending = await evict('a');
    expect(pending.statusCode).toBe(429);
    expect(pending.headers['retry-after']).toBe('10');
    expect(pending.json().details).toEqual({ causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }], retryAfterSeconds: 10 });
    await observe('web', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 });
    const dry = await harness.request('POST', `${pods}/a/eviction?dryRun=All`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a' } });
    expect(dry.statusCode, dry.body).toBe(201);
    expect((await harness.request('GET', `${pdbs}/web`)).json().status.disruptionsAllowed).toBe(1);
    expect((await harness.request('GET', `${pods}/a`)).json().metadata.deletionTimestamp).toBeUndefined();
  });

  it('let through pods the budget does not guard: pending ones, unready ones under AlwaysAllow, and pods no budget selects', async () => {
    await runningPod('pending', 'Pending');
    await runningPod('unready', 'Running', false);
    await runningPod('other', 'Running', true, { app: 'other' });
    await create(pdbs, pdb('web', { minAvailable: 2, unhealthyPodEvictionPolicy: 'AlwaysAllow' }));
    await observe('web', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 });
    for (const name of ['pending', 'unready', 'other']) {
      const response = await evict(name, { gracePeriodSeconds: 0 });
      expect(response.statusCode, `${name}: ${response.body}`).toBe(201);
    }
    expect((await harness.request('GET', `${pdbs}/web`)).json().status.disruptionsAllowed).toBe(0);
  });

  it('answer 500 when more than one budget selects the pod', async () => {
    await runningPod('a');
    await create(pdbs, pdb('one', { minAvailable: 1 }));
    await create(pdbs, pdb('two', { maxUnavailable: 1 }));
    const response = await evict('a');
    expect(response.statusCode).toBe(500);
    expect(response.json().message).toBe('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  });
});
