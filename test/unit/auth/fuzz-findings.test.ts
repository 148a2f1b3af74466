// What the request fuzzer (test/fuzz/request-fuzz.ts) found, each as the smallest request that
// shows it, against the real buildServer (test/unit/api/harness.ts) with the RBAC authorizer.
// Each was failing until its fix; they stay as regression tests.
//
// Finding 1 (fixed: api/endpoints/routes.ts answers a served subresource's other verbs 405,
// delete.ts refuses any subresource): a DELETE of an object's subresource path deleted the object itself, whatever the
// subresource (serviceaccounts/<name>/token, configmaps/<name>/status, .../<name>/bogus). The
// request is authorized as `delete` on `<resource>/<subresource>`, so a user granted only that
// (e.g. delete on serviceaccounts/token) deletes the service account: what was served (delete
// serviceaccounts) is not what was authorized. kube-apiserver installs no DELETE handler on
// these paths: serviceaccounts/token takes only POST (405 MethodNotAllowed), and configmaps has
// no status subresource (404 NotFound); the object is left alone.
import { afterEach, describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { authorizersFor } from '../../../api/auth/rbac-authorizer.ts';
import { ImmediateBackend, startHarness } from '../api/harness.ts';
import type { Harness } from '../api/harness.ts';

const rbac = 'rbac.authorization.k8s.io';
const dora = { 'x-test-user': 'dora;' };
const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

/** A server with RBAC where dora may only delete serviceaccounts/token and configmaps/status in t. */
async function startWorld(): Promise<Harness> {
  const backend = new ImmediateBackend();
  const store = new StoreClient(backend);
  const harness = await startHarness(['default', 't'], { backend, authorizers: authorizersFor(['RBAC'], store) });
  harnesses.push(harness);
  const created = async (url: string, body: unknown) => expect((await harness.request('POST', url, body)).statusCode).toBe(201);
  await created(`/apis/${rbac}/v1/namespaces/t/roles`, {
    apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'subresource-deleter' },
    rules: [{ apiGroups: [''], resources: ['serviceaccounts/token', 'configmaps/status'], verbs: ['delete'] }],
  });
  await created(`/apis/${rbac}/v1/namespaces/t/rolebindings`, {
    apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'subresource-deleter' },
    roleRef: { apiGroup: rbac, kind: 'Role', name: 'subresource-deleter' }, subjects: [{ kind: 'User', name: 'dora' }],
  });
  await created('/api/v1/namespaces/t/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'b' } });
  return harness;
}

describe('fuzz finding: DELETE of a subresource path', () => {
  it('dora may not delete the service account itself', async () => {
    const harness = await startWorld();
    expect((await harness.request('DELETE', '/api/v1/namespaces/t/serviceaccounts/default', undefined, dora)).statusCode).toBe(403);
  });

  it('DELETE serviceaccounts/<name>/token is a 405 and leaves the service account', async () => {
    const harness = await startWorld();
    const response = await harness.request('DELETE', '/api/v1/namespaces/t/serviceaccounts/default/token', undefined, dora);
    expect(response.statusCode, response.body).toBe(405);
    expect(response.json()).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    expect((await harness.request('GET', '/api/v1/namespaces/t/serviceaccounts/default')).statusCode).toBe(200);
  });

  it('DELETE configmaps/<name>/status (no such subresource) is a 404 and leaves the config map', async () => {
    const harness = await startWorld();
    const response = await harness.request('DELETE', '/api/v1/namespaces/t/configmaps/settings/status', undefined, dora);
    expect(response.statusCode, response.body).toBe(404);
    expect((await harness.request('GET', '/api/v1/namespaces/t/configmaps/settings')).statusCode).toBe(200);
  });

  it('an administrator\'s DELETE of a bogus subresource deletes nothing either', async () => {
    const harness = await startWorld();
    const response = await harness.request('DELETE', '/api/v1/namespaces/t/configmaps/settings/bogus');
    expect(response.statusCode, response.body).toBe(404);
    expect((await harness.request('GET', '/api/v1/namespaces/t/configmaps/settings')).statusCode).toBe(200);
  });
});
