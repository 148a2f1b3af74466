// Owns: tests of the `lifecycle` subresource (api/endpoints/lifecycle.ts) through the real
// server: the view of a live, a finalizing and a namespace object, the users who caused each
// transition, the watch of transitions, and the errors.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
let baseUrl: string;
const cms = '/api/v1/namespaces/t/configmaps';

beforeEach(async () => {
  harness = await startHarness(['default', 't']);
  baseUrl = await harness.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await harness.close();
});

interface View {
  kind: string;
  apiVersion: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string };
  object: { apiVersion: string; kind: string; resource: string };
  machines: { name: string; state: string; waitingFor: string; context: { finalizers: string[]; deletionTimestamp: string | null }; statechart: { id: string; states: { name: string }[] }; history: { event: string; from: string | null; to: string; revision: string; time: string; user?: string }[] }[];
}

const alice = { 'x-test-user': 'alice;system:masters' };
const bob = { 'x-test-user': 'bob;system:masters' };

describe('the lifecycle subresource', () => {
  it('shows the deletion machine of a live object: statechart, state, what it waits for, who created it', async () => {
    const created = (await harness.request('POST', cms, configMap('c'), alice)).json();
    const response = await harness.request('GET', `${cms}/c/lifecycle`);
    expect(response.statusCode, response.body).toBe(200);
    const view = response.json<View>();
    expect(view).toMatchObject({
      kind: 'ObjectLifecycle', apiVersion: 'kstore.k8s.io/v1alpha1',
      metadata: { name: 'c', namespace: 't', uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion },
      object: { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps' },
    });
    expect(view.machines).toHaveLength(1);
    const [machine] = view.machines;
    expect(machine).toMatchObject({ name: 'deletion', state: 'live', waitingFor: 'live: waiting for a delete', context: { finalizers: [], deletionTimestamp: null } });
    expect(machine!.statechart.states.map((state) => state.name)).toEqual(['live', 'terminating', 'finalizing', 'removed']);
    // The transition's time is the command's own clock reading, taken after creationTimestamp
    // (seconds apart at most, on a loaded machine; the bound only says it is this creation's).
    expect(machine!.history).toEqual([{ event: 'CREATE', from: null, to: 'live', revision: created.metadata.resourceVersion, time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), user: 'alice' }]);
    expect(Date.parse(machine!.history[0]!.time) - Date.parse(created.metadata.creationTimestamp)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(machine!.history[0]!.time) - Date.parse(created.metadata.creationTimestamp)).toBeLessThanOrEqual(30_000);
  });

  it('a delete with finalizers: finalizing, waiting for the named finalizers, the deleting user in the history', async () => {
    await harness.request('POST', cms, configMap('f', { a: 'b' }, { finalizers: ['example.com/cleanup'] }), alice);
    expect((await harness.request('DELETE', `${cms}/f`, undefined, bob)).statusCode).toBe(200);
    const view = (await harness.request('GET', `${cms}/f/lifecycle`)).json<View>();
    const [machine] = view.machines;
    expect(machine!.state).toBe('finalizing');
    expect(machine!.waitingFor).toBe('finalizing: waiting for finalizers example.com/cleanup');
    expect(machine!.history.map((entry) => [entry.event, entry.from, entry.to, entry.user])).toEqual([
      ['CREATE', null, 'live', 'alice'],
      ['DELETE', 'live', 'finalizing', 'bob'],
    ]);
    // YAML on request, as any read.
    const yaml = await harness.request('GET', `${cms}/f/lifecycle`, undefined, { accept: 'application/yaml' });
    expect(yaml.body).toContain('waitingFor: "finalizing: waiting for finalizers example.com/cleanup"');
  });

  it('serves cluster-scoped objects too (a namespace)', async () => {
    const view = (await harness.request('GET', '/api/v1/namespaces/t/lifecycle')).json<View>();
    expect(view).toMatchObject({ metadata: { name: 't' }, object: { kind: 'Namespace', resource: 'namespaces' } });
    expect(view.machines[0]!.state).toBe('live');
    expect(view.machines[0]!.waitingFor).toBe('live: waiting for a delete (then finalizing until finalizers kubernetes are removed)');
  });

  it('watch=1 streams the current view, each transition, and the removal', async () => {
    await harness.request('POST', cms, configMap('w', { a: 'b' }, { finalizers: ['example.com/hold'] }), alice);
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}${cms}/w/lifecycle?watch=1`, { headers: admin, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const next = async (): Promise<{ type: string; object: View }> => {
      while (!buffer.includes('\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`ended; buffered ${buffer}`);
        buffer += value;
      }
      const line = buffer.slice(0, buffer.indexOf('\n'));
      buffer = buffer.slice(buffer.indexOf('\n') + 1);
      return JSON.parse(line) as { type: string; object: View };
    };
    try {
      expect(await next()).toMatchObject({ type: 'ADDED', object: { machines: [{ state: 'live' }] } });
      // A plain update moves no machine: nothing is streamed for it.
      const current = (await harness.request('GET', `${cms}/w`)).json();
      await harness.request('PUT', `${cms}/w`, { ...current, data: { a: 'changed' } });
      await harness.request('DELETE', `${cms}/w`, undefined, bob);
      const finalizing = await next();
      expect(finalizing).toMatchObject({ type: 'MODIFIED', object: { machines: [{ state: 'finalizing', waitingFor: 'finalizing: waiting for finalizers example.com/hold' }] } });
      await harness.request('PATCH', `${cms}/w`, '{"metadata":{"finalizers":null}}', { 'content-type': 'application/merge-patch+json', ...alice });
      const removed = await next();
      expect(removed.type).toBe('DELETED');
      expect(removed.object.machines[0]!.state).toBe('removed');
      expect(removed.object.machines[0]!.history.at(-1)).toMatchObject({ event: 'FINALIZERS_CHANGED', from: 'finalizing', to: 'removed', user: 'alice' });
      expect((await reader.read()).done).toBe(true);
    } finally {
      controller.abort();
    }
  });

  it('a bootstrap token secret shows its token machine too, and the expiry committed by the leader', async () => {
    const token = await startHarness(['default', 'kube-system']);
    try {
      const secret = {
        apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
        stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', expiration: '2030-01-01T00:00:00Z', 'usage-bootstrap-authentication': 'true' },
      };
      expect((await token.request('POST', '/api/v1/namespaces/kube-system/secrets', secret, alice)).statusCode).toBe(201);
      const path = '/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef/lifecycle';
      const before = (await token.request('GET', path)).json<View>();
      expect(before.machines.map((machine) => [machine.name, machine.state, machine.waitingFor])).toEqual([
        ['deletion', 'live', 'live: waiting for a delete'],
        ['token', 'valid', 'valid: waiting for the expiration 2030-01-01T00:00:00Z'],
      ]);
      expect(before.machines[1]!.statechart.states.map((state) => state.name)).toEqual(['valid', 'expired', 'deleted']);
      // The leader's token expirer commits the time; every replica then agrees it expired.
      await token.backend.propose({ type: 'expireTokens', at: '2030-01-01T00:00:05Z', by: 'system:serviceaccount:kube-system:token-expirer' });
      const after = (await token.request('GET', path)).json<View>();
      expect(after.machines[1]).toMatchObject({ state: 'expired', waitingFor: 'expired: waiting for the token cleaner (or a delete)' });
      expect(after.machines[1]!.history.at(-1)).toMatchObject({ from: 'valid', to: 'expired', time: '2030-01-01T00:00:05Z', user: 'system:serviceaccount:kube-system:token-expirer' });
    } finally {
      await token.close();
    }
  });

  it('404 for an absent object, 405 for a write', async () => {
    const missing = await harness.request('GET', `${cms}/absent/lifecycle`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'configmaps "absent" not found' });
    await harness.request('POST', cms, configMap('p'));
    const write = await harness.request('PUT', `${cms}/p/lifecycle`, {});
    expect(write.statusCode).toBe(405);
    expect(write.json()).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
  });
});
