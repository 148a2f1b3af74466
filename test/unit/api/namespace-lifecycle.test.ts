// Namespace deletion end to end over the API with the namespace lifecycle controller running:
// Terminating (phase, deletionTimestamp), creates refused with 403, content deleted (waiting
// for content finalizers), then the namespace itself removed; and the finalize subresource.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NamespaceLifecycleController } from '../../../actors/controllers/index.ts';
import { formatTime } from '../../../api/index.ts';
import { waitFor } from '../../support/wait-for.ts';
import { configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
let controller: NamespaceLifecycleController;

beforeEach(async () => {
  harness = await startHarness(['default', 'doomed']);
  controller = new NamespaceLifecycleController({
    state: harness.backend.state, propose: (command) => harness.backend.propose(command),
    now: () => formatTime(new Date()), log: () => undefined,
  });
  controller.start();
});
afterEach(async () => {
  await controller.stop();
  await harness.close();
});

const namespacePath = '/api/v1/namespaces/doomed';
const cms = `${namespacePath}/configmaps`;

describe('namespace lifecycle', () => {
  it('deletes a namespace content, waits for content finalizers, then removes the namespace', async () => {
    await harness.request('POST', cms, configMap('plain'));
    await harness.request('POST', cms, configMap('held', {}, { finalizers: ['example.com/hold'] }));
    const deleted = await harness.request('DELETE', namespacePath);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    expect(deleted.json().metadata.deletionTimestamp).toBeDefined();

    const refused = await harness.request('POST', cms, configMap('late'));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toContain('because it is being terminated');

    await waitFor(async () => (await harness.request('GET', `${cms}/plain`)).statusCode === 404, { timeoutMs: 10_000, description: 'plain configmap deleted' });
    const held = (await harness.request('GET', `${cms}/held`)).json();
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect((await harness.request('GET', namespacePath)).statusCode).toBe(200);

    await harness.request('PUT', `${cms}/held`, { ...held, metadata: { ...held.metadata, finalizers: [] } });
    await waitFor(async () => (await harness.request('GET', namespacePath)).statusCode === 404, { timeoutMs: 10_000, description: 'namespace removed' });
  });

  it('spec.finalizers change only through the finalize subresource', async () => {
    await controller.stop();
    const namespace = (await harness.request('GET', namespacePath)).json();
    const put = await harness.request('PUT', namespacePath, { ...namespace, spec: { finalizers: [] } });
    expect(put.json().spec.finalizers).toEqual(['kubernetes']);
    await harness.request('DELETE', namespacePath);
    const terminating = (await harness.request('GET', namespacePath)).json();
    expect(terminating.status.phase).toBe('Terminating');
    const finalized = await harness.request('PUT', `${namespacePath}/finalize`, { ...terminating, spec: { finalizers: [] } });
    expect(finalized.statusCode).toBe(200);
    expect((await harness.request('GET', namespacePath)).statusCode).toBe(404);
  });

  it('an unknown subresource is 404', async () => {
    const response = await harness.request('PUT', `${namespacePath}/bogus`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    expect(response.statusCode).toBe(404);
  });
});
