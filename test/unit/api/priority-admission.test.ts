// The Priority admission plugin: a pod's priority and preemption policy come from its
// PriorityClass (or the global default, else 0), a conflicting value written in the pod or an
// unknown class is 403 with kube's message, updates keep what create computed, and only one
// PriorityClass may be the global default.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePriorityClassBootstrap } from '../../../deploy/priority-class-bootstrap.ts';
import { StoreClient } from '../../../api/index.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const pods = '/api/v1/namespaces/t/pods';
const classes = '/apis/scheduling.k8s.io/v1/priorityclasses';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeEach(async () => {
  harness = await startHarness();
  await ensurePriorityClassBootstrap(new StoreClient(harness.backend));
});
afterEach(async () => {
  await harness.close();
});

function pod(name: string, spec: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

async function createdSpec(object: Json): Promise<Json> {
  const response = await harness.request('POST', pods, object);
  expect(response.statusCode, response.body).toBe(201);
  return response.json().spec;
}

describe('Priority admission', () => {
  it('resolves a named class: system-node-critical gives its value and preemption policy', async () => {
    expect(await createdSpec(pod('critical', { priorityClassName: 'system-node-critical' }))).toMatchObject({
      priorityClassName: 'system-node-critical', priority: 2000001000, preemptionPolicy: 'PreemptLowerPriority',
    });
  });

  it('gives a pod without a class priority 0, then the global default class once there is one', async () => {
    const plain = await createdSpec(pod('plain'));
    expect(plain).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(plain['priorityClassName']).toBeUndefined();
    const created = await harness.request('POST', classes, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'normal' }, value: 1000, globalDefault: true, preemptionPolicy: 'Never' });
    expect(created.statusCode, created.body).toBe(201);
    expect(await createdSpec(pod('defaulted'))).toMatchObject({ priorityClassName: 'normal', priority: 1000, preemptionPolicy: 'Never' });
  });

  it('refuses an unknown class and a priority that differs from the class\'s (403)', async () => {
    const unknown = await harness.request('POST', pods, pod('lost', { priorityClassName: 'nope' }));
    expect(unknown.statusCode).toBe(403);
    expect(unknown.json().message).toBe('pods "lost" is forbidden: no PriorityClass with name nope was found');
    const conflicting = await harness.request('POST', pods, pod('odd', { priorityClassName: 'system-cluster-critical', priority: 5 }));
    expect(conflicting.statusCode).toBe(403);
    expect(conflicting.json().message).toBe('pods "odd" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 2000000000 from the given PriorityClass name');
    expect((await harness.request('GET', `${pods}/odd`)).statusCode).toBe(404);
  });

  it('keeps the computed priority when an update leaves it out', async () => {
    await createdSpec(pod('kept', { priorityClassName: 'system-cluster-critical' }));
    const current = (await harness.request('GET', `${pods}/kept`)).json();
    delete current.spec.priority;
    delete current.spec.preemptionPolicy;
    current.metadata.labels = { touched: 'yes' };
    const updated = await harness.request('PUT', `${pods}/kept`, current);
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().spec).toMatchObject({ priority: 2000000000, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('allows only one global default PriorityClass', async () => {
    const first = await harness.request('POST', classes, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'first' }, value: 10, globalDefault: true });
    expect(first.statusCode, first.body).toBe(201);
    const second = await harness.request('POST', classes, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'second' }, value: 20, globalDefault: true });
    expect(second.statusCode).toBe(403);
    expect(second.json().message).toBe('priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already marked as default. Only one default can exist');
  });
});
