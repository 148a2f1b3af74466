// A kind serves only its verbs (kube installs a route per verb): another method on a served path
// is 405, an item path of a kind without item verbs names nothing (404). core/v1 `bindings` is
// such a kind: POST-only, it assigns the pod its Binding's metadata.name names, as
// pods/<name>/binding does.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

async function createPod(name: string): Promise<void> {
  const response = await harness.request('POST', '/api/v1/namespaces/t/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  expect(response.statusCode, response.body).toBe(201);
}

describe('verbs a kind does not serve', () => {
  it('DELETE of the namespaces collection (no deletecollection) is 405 MethodNotAllowed', async () => {
    const response = await harness.request('DELETE', '/api/v1/namespaces');
    expect(response.statusCode).toBe(405);
    expect(response.json()).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  });

  it('GET and watch of bindings are 405; an item path of bindings is 404', async () => {
    expect((await harness.request('GET', '/api/v1/namespaces/t/bindings')).statusCode).toBe(405);
    expect((await harness.request('GET', '/api/v1/namespaces/t/bindings?watch=1')).statusCode).toBe(405);
    expect((await harness.request('GET', '/api/v1/namespaces/t/bindings/p')).statusCode).toBe(404);
  });
});

describe('POST bindings', () => {
  it('assigns the pod named by the Binding to the node', async () => {
    await createPod('p');
    const response = await harness.request('POST', '/api/v1/namespaces/t/bindings', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    const pod = (await harness.request('GET', '/api/v1/namespaces/t/pods/p')).json() as { spec: { nodeName: string }; status: { conditions: { type: string; status: string }[] } };
    expect(pod.spec.nodeName).toBe('n1');
    expect(pod.status.conditions).toContainEqual(expect.objectContaining({ type: 'PodScheduled', status: 'True' }));
    const again = await harness.request('POST', '/api/v1/namespaces/t/bindings', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { name: 'n2' } });
    expect(again.statusCode).toBe(409);
  });

  it('needs the pod\'s name and an existing pod', async () => {
    const nameless = await harness.request('POST', '/api/v1/namespaces/t/bindings', { apiVersion: 'v1', kind: 'Binding', metadata: {}, target: { name: 'n1' } });
    expect(nameless.statusCode).toBe(422);
    const absent = await harness.request('POST', '/api/v1/namespaces/t/bindings', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'ghost' }, target: { name: 'n1' } });
    expect(absent.statusCode).toBe(404);
  });
});
