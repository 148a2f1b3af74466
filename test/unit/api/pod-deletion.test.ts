// Graceful pod deletion over HTTP (kube-apiserver's podStrategy.CheckGracefulDelete and
// BeforeDelete): a bound, running pod is kept with deletionTimestamp = now + grace and answered
// with 200 and the pod; a later delete may only shorten; gracePeriodSeconds=0 removes it and
// answers with the deleted pod (pods' ReturnDeletedObject); unbound and finished pods go at once;
// eviction and deletecollection follow the same rules; other kinds are unchanged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NamespaceLifecycleController } from '../../../actors/controllers/index.ts';
import { formatTime } from '../../../api/index.ts';
import { deletionGracePeriod } from '../../../actors/index.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const pods = '/api/v1/namespaces/t/pods';

function pod(name: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

async function create(body: unknown) {
  const response = await harness.request('POST', pods, body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

function secondsBetween(from: string, to: string): number {
  return (Date.parse(to) - Date.parse(from)) / 1000;
}

describe('graceful deletion of pods', () => {
  it('keeps a bound pod terminating for its terminationGracePeriodSeconds, answering 200 with the pod', async () => {
    await create(pod('p', { nodeName: 'n1' }));
    const before = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    const deleted = await harness.request('DELETE', `${pods}/p`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    const body = deleted.json();
    expect(body).toMatchObject({ kind: 'Pod', metadata: { name: 'p', deletionGracePeriodSeconds: 30 } });
    const seconds = secondsBetween(before, body.metadata.deletionTimestamp);
    expect(seconds).toBeGreaterThanOrEqual(30);
    expect(seconds).toBeLessThanOrEqual(32);
    const got = await harness.request('GET', `${pods}/p`);
    expect(got.statusCode).toBe(200);
    expect(got.json().metadata.deletionTimestamp).toBe(body.metadata.deletionTimestamp);
    const lifecycle = (await harness.request('GET', `${pods}/p/lifecycle`)).json();
    expect(lifecycle.machines[0]).toMatchObject({ state: 'terminating' });
    expect(lifecycle.machines[0].waitingFor).toContain('waiting for the kubelet on node n1 to stop its containers, or a delete with grace period 0');
  });

  it('shortens but never lengthens; gracePeriodSeconds=0 removes and answers with the deleted pod', async () => {
    await create(pod('p', { nodeName: 'n1' }));
    const first = (await harness.request('DELETE', `${pods}/p`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 60 })).json();
    expect(first.metadata.deletionGracePeriodSeconds).toBe(60);
    const shorter = (await harness.request('DELETE', `${pods}/p?gracePeriodSeconds=10`)).json();
    expect(shorter.metadata.deletionGracePeriodSeconds).toBe(10);
    expect(secondsBetween(shorter.metadata.deletionTimestamp, first.metadata.deletionTimestamp)).toBe(50);
    const longer = await harness.request('DELETE', `${pods}/p?gracePeriodSeconds=45`);
    expect(longer.statusCode).toBe(200);
    expect(longer.json().metadata).toMatchObject({ deletionGracePeriodSeconds: 10, resourceVersion: shorter.metadata.resourceVersion });
    const plain = (await harness.request('DELETE', `${pods}/p`)).json();
    expect(plain.metadata.resourceVersion).toBe(shorter.metadata.resourceVersion);
    const forced = await harness.request('DELETE', `${pods}/p?gracePeriodSeconds=0`);
    expect(forced.statusCode).toBe(200);
    expect(forced.json()).toMatchObject({ kind: 'Pod', metadata: { name: 'p', deletionGracePeriodSeconds: 0 } });
    expect((await harness.request('GET', `${pods}/p`)).statusCode).toBe(404);
  });

  it('deletes unbound, Succeeded and Failed pods at once, answering with the deleted pod', async () => {
    await create(pod('unbound'));
    const unbound = await harness.request('DELETE', `${pods}/unbound`);
    expect(unbound.statusCode).toBe(200);
    expect(unbound.json()).toMatchObject({ kind: 'Pod', metadata: { name: 'unbound' } });
    expect((await harness.request('GET', `${pods}/unbound`)).statusCode).toBe(404);
    for (const phase of ['Succeeded', 'Failed']) {
      const name = phase.toLowerCase();
      await create(pod(name, { nodeName: 'n1' }));
      const status = await harness.request('PATCH', `${pods}/${name}/status`, JSON.stringify({ status: { phase } }), { 'content-type': 'application/merge-patch+json' });
      expect(status.statusCode, status.body).toBe(200);
      expect((await harness.request('DELETE', `${pods}/${name}`)).statusCode).toBe(200);
      expect((await harness.request('GET', `${pods}/${name}`)).statusCode).toBe(404);
    }
  });

  it('keeps finalizers: grace 0 leaves a finalizer-held pod finalizing with deletionGracePeriodSeconds 0', async () => {
    await create({ ...pod('p', { nodeName: 'n1' }), metadata: { name: 'p', finalizers: ['example.com/hold'] } });
    expect((await harness.request('DELETE', `${pods}/p`)).json().metadata.deletionGracePeriodSeconds).toBe(30);
    const forced = await harness.request('DELETE', `${pods}/p?gracePeriodSeconds=0`);
    expect(forced.statusCode).toBe(200);
    expect(forced.json().metadata).toMatchObject({ deletionGracePeriodSeconds: 0, finalizers: ['example.com/hold'] });
    const current = (await harness.request('GET', `${pods}/p`)).json();
    const released = await harness.request('PUT', `${pods}/p`, { ...current, metadata: { ...current.metadata, finalizers: [] } });
    expect(released.statusCode, released.body).toBe(200);
    expect((await harness.request('GET', `${pods}/p`)).statusCode).toBe(404);
  });

  it('evicts with the same rules: a bound pod terminates, an eviction with grace 0 removes it', async () => {
    await create(pod('p', { nodeName: 'n1' }));
    const evicted = await harness.request('POST', `${pods}/p/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } });
    expect(evicted.statusCode, evicted.body).toBe(201);
    expect((await harness.request('GET', `${pods}/p`)).json().metadata.deletionGracePeriodSeconds).toBe(30);
    const again = await harness.request('POST', `${pods}/p/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' }, deleteOptions: { gracePeriodSeconds: 0 } });
    expect(again.statusCode, again.body).toBe(201);
    expect((await harness.request('GET', `${pods}/p`)).statusCode).toBe(404);
  });

  it('deletecollection gives each pod its own grace period', async () => {
    await create(pod('bound', { nodeName: 'n1' }));
    await create(pod('unbound'));
    const deleted = await harness.request('DELETE', pods);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().items.map((item: { metadata: { name: string } }) => item.metadata.name).sort()).toEqual(['bound', 'unbound']);
    expect((await harness.request('GET', `${pods}/unbound`)).statusCode).toBe(404);
    expect((await harness.request('GET', `${pods}/bound`)).json().metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await harness.request('DELETE', `${pods}?gracePeriodSeconds=0`)).statusCode).toBe(200);
    expect((await harness.request('GET', pods)).json().items).toEqual([]);
  });

  it('a dry-run delete shows the deletionTimestamp a graceful deletion would set, and stores nothing', async () => {
    await create(pod('p', { nodeName: 'n1' }));
    const dry = await harness.request('DELETE', `${pods}/p?dryRun=All`);
    expect(dry.statusCode).toBe(200);
    expect(dry.json().metadata.deletionGracePeriodSeconds).toBe(30);
    expect(dry.json().metadata.deletionTimestamp).toBeDefined();
    expect((await harness.request('GET', `${pods}/p`)).json().metadata.deletionTimestamp).toBeUndefined();
  });

  it('leaves other kinds alone: a configmap delete ignores gracePeriodSeconds and answers a Status', async () => {
    await harness.request('POST', '/api/v1/namespaces/t/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    const deleted = await harness.request('DELETE', '/api/v1/namespaces/t/configmaps/c?gracePeriodSeconds=30');
    expect(deleted.json()).toMatchObject({ kind: 'Status', status: 'Success' });
  });
});

describe('namespace deletion and pods', () => {
  it('removes bound pods, also terminating ones, with grace period 0 (no kubelet would ever stop them), then the namespace', async () => {
    const controller = new NamespaceLifecycleController({
      state: harness.backend.state, propose: (command) => harness.backend.propose(command), now: () => formatTime(new Date()), log: () => undefined,
    });
    controller.start();
    try {
      await create(pod('running', { nodeName: 'n1' }));
      await create(pod('stopping', { nodeName: 'n1' }));
      expect((await harness.request('DELETE', `${pods}/stopping`)).json().metadata.deletionGracePeriodSeconds).toBe(30);
      expect((await harness.request('DELETE', '/api/v1/namespaces/t')).statusCode).toBe(200);
      await waitFor(async () => (await harness.request('GET', '/api/v1/namespaces/t')).statusCode === 404, { timeoutMs: 10_000, description: 'namespace t removed' });
      expect((await harness.request('GET', `${pods}/running`)).statusCode).toBe(404);
    } finally {
      await controller.stop();
    }
  });
});

describe('the grace period a pod delete carries (CheckGracefulDelete)', () => {
  const pods = { group: '', resource: 'pods' };
  const bound = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1', terminationGracePeriodSeconds: 30 } };
  it('uses the request, else the spec; 0 when unbound or finished; a negative period is 1', () => {
    expect(deletionGracePeriod(pods, bound, undefined)).toBe(30);
    expect(deletionGracePeriod(pods, bound, 5)).toBe(5);
    expect(deletionGracePeriod(pods, bound, -3)).toBe(1);
    expect(deletionGracePeriod(pods, { ...bound, spec: { nodeName: 'n1' } }, undefined)).toBe(0);
    expect(deletionGracePeriod(pods, { ...bound, spec: { terminationGracePeriodSeconds: 30 } }, 10)).toBe(0);
    expect(deletionGracePeriod(pods, { ...bound, status: { phase: 'Succeeded' } }, 10)).toBe(0);
    expect(deletionGracePeriod(pods, { ...bound, status: { phase: 'Failed' } }, undefined)).toBe(0);
    expect(deletionGracePeriod(pods, bound, 1e15)).toBe(100 * 365 * 24 * 3600);
  });

  it('for a pod already being deleted only an explicit period counts; other kinds carry none', () => {
    const terminating = { ...bound, metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 } };
    expect(deletionGracePeriod(pods, terminating, undefined)).toBeUndefined();
    expect(deletionGracePeriod(pods, terminating, 0)).toBe(0);
    expect(deletionGracePeriod({ group: '', resource: 'configmaps' }, bound, 30)).toBeUndefined();
  });
});
