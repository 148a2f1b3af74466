// The one request parser and the one write path, from the outside: what authorization decided
// on is what is served (odd path spellings never reach a handler as something else), query
// options read as kube reads them, a response type is negotiated before a write runs, and
// refusals the state decides cost no proposal and move no resourceVersion.
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { authorizersFor } from '../../../api/auth/rbac-authorizer.ts';
import type { RbacReader } from '../../../api/auth/rbac-authorizer.ts';
import { ensureRbacBootstrap } from '../../../deploy/rbac-bootstrap.ts';
import { configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const cms = '/api/v1/namespaces/t/configmaps';
const bob = { 'x-test-user': 'bob;' };
let harness: Harness;
const reader: RbacReader = { get: (key) => harness.backend.get(key), list: (collection) => harness.backend.list(collection) };

beforeEach(async () => {
  harness = await startHarness(['default', 't'], { authorizers: authorizersFor(['RBAC'], reader) });
  await ensureRbacBootstrap(new StoreClient(harness.backend));
  // bob may get (only get) anything in namespace t.
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'getter' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get'] }] };
  expect((await harness.request('POST', `${rbac}/namespaces/t/roles`, role)).statusCode).toBe(201);
  const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'getter' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'getter' }, subjects: [{ kind: 'User', name: 'bob' }] };
  expect((await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, binding)).statusCode).toBe(201);
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { password: 'hunter2' } };
  expect((await harness.request('POST', '/api/v1/namespaces/t/secrets', secret)).statusCode).toBe(201);
});
afterEach(async () => {
  await harness.close();
});

/** A request sent over a real connection with the path exactly as given. */
async function rawRequest(method: string, path: string, headers: Record<string, string> = { 'x-test-user': 'admin;system:masters' }): Promise<{ status: number; body: string }> {
  if (!harness.app.server.listening) await harness.app.listen({ port: 0, host: '127.0.0.1' });
  const address = harness.app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: Number(port), method, path, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('paths: what is served is what was authorized', () => {
  it('a user with only get cannot list through a doubled slash or any other odd spelling', async () => {
    expect((await harness.request('GET', '/api/v1/namespaces/t/secrets', undefined, bob)).statusCode).toBe(403);
    for (const path of [
      '/api/v1/namespaces/t//secrets', '/api/v1//namespaces/t/secrets', '/api/v1/namespaces/t/./secrets',
      '/api/v1/namespaces/t/secrets/../secrets', '/api/v1/namespaces/t%2Fsecrets', '/api/v1/namespaces/t/secrets%2F',
      '//api/v1/namespaces/t/secrets', '/api/v1/namespaces//secrets',
    ]) {
      const response = await harness.request('GET', path, undefined, bob);
      expect([403, 404], `${path}: ${response.body}`).toContain(response.statusCode);
      expect(response.body, path).not.toContain('hunter2');
      expect(response.body, path).not.toContain('aHVudGVyMg');
    }
  });

  it('non-canonical API paths are the bare 404 Status, also for an administrator; a malformed escape is a 400 Status', async () => {
    for (const path of ['/api/v1//namespaces/t/configmaps', '/api/v1/namespaces/a%2Fb/configmaps', `${cms}//`]) {
      const response = await harness.request('GET', path);
      expect(response.statusCode, path).toBe(404);
      expect(response.json(), path).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' });
    }
    // `.` and `..` segments only arrive as sent over a real connection (inject normalises them).
    await harness.request('POST', cms, configMap('x'));
    for (const path of [`${cms}/./x`, `${cms}/../configmaps/x`, '/api/v1/namespaces/t/./configmaps']) {
      const response = await rawRequest('GET', path);
      expect(response.status, path).toBe(404);
      expect(JSON.parse(response.body), `${path}: ${response.body}`).toMatchObject({ kind: "Status", reason: "NotFound" });
    }
    const malformed = await harness.request('GET', `${cms}/%zz`);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json(), malformed.body).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    expect(malformed.json().message).toContain('invalid URL escape "%zz"');
  });

  it('one trailing slash is the same resource', async () => {
    expect((await harness.request('GET', `${cms}/`)).json()).toMatchObject({ kind: 'ConfigMapList' });
  });

  it('a cluster-scoped kind under a namespace names nothing', async () => {
    expect((await harness.request('GET', '/api/v1/namespaces/t/nodes')).statusCode).toBe(404);
    expect((await harness.request('GET', '/api/v1/namespaces/t/namespaces')).statusCode).toBe(404);
  });
});

describe('query options as kube reads them', () => {
  it('watch=True, watch=t and watch= start a watch; watch=0 and watch=FALSE list', async () => {
    for (const value of ['True', 't', 'TRUE', '1', '', 'yes']) {
      const response = await harness.app.inject({ method: 'GET', url: `${cms}?watch=${value}&timeoutSeconds=1`, headers: { 'x-test-user': 'admin;system:masters' } });
      expect(response.statusCode, value).toBe(200);
      expect(response.body, value).not.toContain('"kind":"ConfigMapList"');
    }
    for (const value of ['0', 'false', 'FALSE', 'False']) {
      expect((await harness.request('GET', `${cms}?watch=${value}`)).json().kind, value).toBe('ConfigMapList');
    }
  });

  it('an authorizer asked about a watch=True sees a watch, and the handler serves one', async () => {
    // bob may get but not watch: a watch spelled any way is refused, a plain list too.
    for (const value of ['True', 'true', '1']) {
      expect((await harness.request('GET', `${cms}?watch=${value}`, undefined, bob)).statusCode, value).toBe(403);
    }
  });

  it('integer options are strconv.ParseInt: garbage and int64 overflow are 400', async () => {
    const cases: [string, string][] = [
      [`${cms}?limit=abc`, 'strconv.ParseInt: parsing "abc": invalid syntax'],
      [`${cms}?watch=1&timeoutSeconds=99999999999999999999`, 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
      [`${cms}/x?gracePeriodSeconds=1.5`, 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ];
    for (const [path, message] of cases) {
      const method = path.includes('gracePeriodSeconds') ? 'DELETE' : 'GET';
      const response = await harness.request(method, path);
      expect(response.statusCode, path).toBe(400);
      expect(response.json().message, path).toBe(message);
    }
    // A parameter of another verb's options is ignored, as kube's codec ignores it.
    expect((await harness.request('POST', `${cms}?limit=abc`, configMap('c'))).statusCode).toBe(201);
  });

  it('sendInitialEvents on a list is 422 as ValidateListOptions', async () => {
    const response = await harness.request('GET', `${cms}?sendInitialEvents=true`);
    expect(response.statusCode).toBe(422);
    expect(response.json().message).toContain('sendInitialEvents is forbidden for list');
  });
});

describe('the write path', () => {
  it('Accept: application/xml on a write is 406 before anything is stored', async () => {
    const before = harness.backend.proposals;
    const response = await harness.request('POST', cms, configMap('c'), { accept: 'application/xml' });
    expect(response.statusCode).toBe(406);
    expect(harness.backend.proposals).toBe(before);
    expect((await harness.request('GET', `${cms}/c`)).statusCode).toBe(404);
  });

  it('a dry-run create of an existing name is 409 AlreadyExists', async () => {
    await harness.request('POST', cms, configMap('c'));
    const response = await harness.request('POST', `${cms}?dryRun=All`, configMap('c'));
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "c" already exists' });
  });

  it('refused writes cost no proposal and do not move the list resourceVersion', async () => {
    await harness.request('POST', cms, configMap('c'));
    const listVersion = async () => (await harness.request('GET', cms)).json().metadata.resourceVersion as string;
    const version = await listVersion();
    const proposals = harness.backend.proposals;
    const refusals: [string, string, unknown, number][] = [
      ['DELETE', `${cms}/missing`, undefined, 404],
      ['POST', '/api/v1/namespaces/nowhere/configmaps', configMap('x'), 404],
      ['POST', cms, configMap('c'), 409],
      ['PUT', `${cms}/c`, configMap('c', { a: 'z' }, { resourceVersion: '1' }), 409],
      ['PATCH', `${cms}/missing`, '{"data":{"a":"b"}}', 404],
      ['DELETE', `${cms}/c`, { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } }, 409],
    ];
    for (const [method, path, body, code] of refusals) {
      const headers: Record<string, string> = method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {};
      const response = await harness.request(method, path, body, headers);
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(code);
    }
    expect(harness.backend.proposals).toBe(proposals);
    expect(await listVersion()).toBe(version);
  });

  it('a patch that changes metadata.uid is 422 field is immutable; a PUT with another uid is a 409 precondition', async () => {
    const created = (await harness.request('POST', cms, configMap('c'))).json();
    const merge = await harness.request('PATCH', `${cms}/c`, '{"metadata":{"uid":"other"}}', { 'content-type': 'application/merge-patch+json' });
    expect(merge.statusCode).toBe(422);
    expect(merge.json().details.causes).toContainEqual({ reason: 'FieldValueInvalid', message: 'Invalid value: "other": field is immutable', field: 'metadata.uid' });
    const jsonPatch = await harness.request('PATCH', `${cms}/c`, '[{"op":"replace","path":"/metadata/uid","value":"other"}]', { 'content-type': 'application/json-patch+json' });
    expect(jsonPatch.statusCode).toBe(422);
    const put = await harness.request('PUT', `${cms}/c`, { ...created, metadata: { ...created.metadata, uid: 'other' } });
    expect(put.statusCode).toBe(409);
    expect(put.json().message).toContain('Precondition failed: UID in precondition: other');
  });
});
