// Authorization chain and kube-apiserver's 403 wording, through fastify inject().
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { authnPlugin } from '../../../api/auth/authn.ts';
import type { Authenticator } from '../../../api/auth/authn.ts';
import { authorize, authzPlugin, forbiddenError, systemMastersAuthorizer } from '../../../api/auth/authz.ts';
import type { AuthorizationAttributes, Authorizer } from '../../../api/auth/authz.ts';

/** Reads "name;group,group" from x-test-user. */
const headerAuthenticator: Authenticator = (request) => {
  const header = request.headers['x-test-user'];
  if (typeof header !== 'string') return { type: 'noCredentials' };
  const [name = '', groups = ''] = header.split(';');
  return { type: 'authenticated', user: { name, uid: '', groups: groups.split(',').filter((group) => group !== ''), extra: {} } };
};

async function buildApp(authorizers: readonly Authorizer[]) {
  const app = Fastify();
  await app.register(authnPlugin, { authenticators: [headerAuthenticator] });
  await app.register(authzPlugin, { authorizers });
  app.all('/*', async (request) => ({ user: request.user, requestInfo: request.requestInfo }));
  await app.ready();
  return app;
}

const bob = { 'x-test-user': 'bob;developers' };
const admin = { 'x-test-user': 'admin;system:masters' };

describe('authn plugin - without credentials', () => {
  it('answers 401 with the Unauthorized Status as JSON', async () => {
    const app = await buildApp([systemMastersAuthorizer]);
    const response = await app.inject({ url: '/api/v1/namespaces' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  it('decorates the request with the user and the request info', async () => {
    const app = await buildApp([systemMastersAuthorizer]);
    const body = (await app.inject({ url: '/api/v1/namespaces/t/configmaps/c', headers: admin })).json();
    expect(body.user).toEqual({ name: 'admin', uid: '', groups: ['system:masters'], extra: {} });
    expect(body.requestInfo).toMatchObject({ verb: 'get', namespace: 't', resource: 'configmaps', name: 'c' });
  });
});

describe('authz plugin - system:masters', () => {
  it('allows members of system:masters anything', async () => {
    const app = await buildApp([systemMastersAuthorizer]);
    expect((await app.inject({ method: 'DELETE', url: '/api/v1/namespaces/x', headers: admin })).statusCode).toBe(200);
  });

  it.each([
    ['GET', '/api/v1/namespaces', 'namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope', { kind: 'namespaces' }],
    ['GET', '/api/v1/namespaces/t/configmaps', 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "t"', { kind: 'configmaps' }],
    ['GET', '/api/v1/namespaces/t/configmaps/c', 'configmaps "c" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "t"', { name: 'c', kind: 'configmaps' }],
    ['PATCH', '/apis/coordination.k8s.io/v1/namespaces/t/leases/l', 'leases.coordination.k8s.io "l" is forbidden: User "bob" cannot patch resource "leases" in API group "coordination.k8s.io" in the namespace "t"', { name: 'l', kind: 'leases', group: 'coordination.k8s.io' }],
    ['PUT', '/api/v1/namespaces/t/status', 'namespaces "t" is forbidden: User "bob" cannot update resource "namespaces/status" in API group "" in the namespace "t"', { name: 't', kind: 'namespaces' }],
    ['GET', '/healthz', 'forbidden: User "bob" cannot get path "/healthz"', {}],
  ])('denies %s %s with the kube-apiserver message', async (method, url, message, details) => {
    const app = await buildApp([systemMastersAuthorizer]);
    const response = await app.inject({ method: method as 'GET', url, headers: bob });
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
  });
});

describe('authz chain - first decision wins', () => {
  const attributes: AuthorizationAttributes = {
    user: { name: 'bob', uid: '', groups: [], extra: {} }, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/t/secrets/s',
    apiGroup: '', apiVersion: 'v1', namespace: 't', resource: 'secrets', subresource: '', name: 's',
  };
  const fixed = (name: string, decision: 'allow' | 'deny' | 'noOpinion', reason = ''): Authorizer => ({ name, authorize: () => ({ decision, reason }) });

  it('stops at the first deny even if a later authorizer would allow', async () => {
    expect((await authorize([fixed('a', 'noOpinion'), fixed('b', 'deny', 'no'), fixed('c', 'allow')], attributes)).decision).toBe('deny');
  });

  it('stops at the first allow', async () => {
    expect((await authorize([fixed('a', 'allow'), fixed('b', 'deny')], attributes)).decision).toBe('allow');
  });

  it('is noOpinion with joined reasons when nobody decides, and an empty chain denies', async () => {
    expect(await authorize([fixed('a', 'noOpinion', 'r1'), fixed('b', 'noOpinion'), fixed('c', 'noOpinion', 'r2')], attributes))
      .toEqual({ decision: 'noOpinion', reason: 'r1\nr2' });
    const app = await buildApp([]);
    expect((await app.inject({ url: '/version', headers: admin })).statusCode).toBe(403);
  });

  it('appends the reason after the message', () => {
    expect(forbiddenError(attributes, 'RBAC: role not found').status.message)
      .toBe('secrets "s" is forbidden: User "bob" cannot get resource "secrets" in API group "" in the namespace "t": RBAC: role not found');
  });

  it('answers 403 for a deny from a custom authorizer over HTTP', async () => {
    const app = await buildApp([fixed('deny-all', 'deny', 'closed'), systemMastersAuthorizer]);
    const response = await app.inject({ url: '/api/v1/namespaces', headers: admin });
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe('namespaces is forbidden: User "admin" cannot list resource "namespaces" in API group "" at the cluster scope: closed');
  });
});
