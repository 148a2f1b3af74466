// Anonymous requests and kube's FailOnError union in the authn plugin, through fastify inject().
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { authnPlugin, bearerTokenAuthenticator, withAuthenticatedGroup } from '../../../api/auth/authn.ts';
import type { AuthnOptions, Authenticator } from '../../../api/auth/authn.ts';
import { anonymousWithAlwaysAllowWarning, effectiveAnonymousAuth } from '../../../api/auth/anonymous.ts';
import { parseTokenFile, tokenFileAuthenticator } from '../../../api/auth/token-file.ts';

const tokens = bearerTokenAuthenticator([tokenFileAuthenticator(parseTokenFile('good-token,alice,1\n', 'tokens.csv'))]);

/** Rejects any request carrying x-bad-credential, else has nothing to say. */
const rejecting: Authenticator = (request) =>
  request.headers['x-bad-credential'] === undefined ? { type: 'noCredentials' } : { type: 'rejected', reason: 'bad credential' };

async function buildApp(options: Omit<AuthnOptions, 'authenticators'>) {
  const app = Fastify();
  await app.register(authnPlugin, { authenticators: [rejecting, tokens], ...options });
  app.all('/*', async (request) => ({ user: request.user, headers: request.headers }));
  await app.ready();
  return app;
}

const anonymous = { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} };

describe('anonymous requests', () => {
  it('makes a request without credentials system:anonymous in system:unauthenticated', async () => {
    const app = await buildApp({ anonymous: { enabled: true } });
    const reply = await app.inject({ url: '/api/v1/namespaces' });
    expect(reply.statusCode).toBe(200);
    expect(reply.json().user).toEqual(anonymous);
    await app.close();
  });

  it('answers 401 for a bad bearer token or any rejected credential, never anonymous', async () => {
    const app = await buildApp({ anonymous: { enabled: true } });
    expect((await app.inject({ url: '/healthz', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    expect((await app.inject({ url: '/healthz', headers: { 'x-bad-credential': '1' } })).statusCode).toBe(401);
    await app.close();
  });

  it('lets a later authenticator succeed after an earlier one rejected (kube\'s union)', async () => {
    const app = await buildApp({ anonymous: { enabled: true } });
    const reply = await app.inject({ url: '/healthz', headers: { 'x-bad-credential': '1', authorization: 'Bearer good-token' } });
    expect(reply.statusCode).toBe(200);
    expect(reply.json().user).toEqual({ name: 'alice', uid: '1', groups: ['system:authenticated'], extra: {} });
    await app.close();
  });

  it('answers 401 without credentials when anonymous auth is disabled or not configured', async () => {
    for (const options of [{ anonymous: { enabled: false } }, {}]) {
      const app = await buildApp(options);
      const reply = await app.inject({ url: '/healthz' });
      expect(reply.statusCode).toBe(401);
      expect(reply.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      await app.close();
    }
  });

  it('allows anonymous only on the exact configured paths (the query is not part of the path)', async () => {
    const app = await buildApp({ anonymous: { enabled: true, paths: ['/livez', '/readyz'] } });
    expect((await app.inject({ url: '/livez' })).json().user).toEqual(anonymous);
    expect((await app.inject({ url: '/readyz?verbose=1' })).json().user).toEqual(anonymous);
    expect((await app.inject({ url: '/livez/ping' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/livez/' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/v1/pods' })).statusCode).toBe(401);
    // Authenticated users are not limited to the paths.
    expect((await app.inject({ url: '/api/v1/pods', headers: { authorization: 'Bearer good-token' } })).statusCode).toBe(200);
    await app.close();
  });

  it('removes the Authorization header and the standard proxy headers once authenticated, even without request-header auth', async () => {
    const app = await buildApp({ anonymous: { enabled: true } });
    const reply = await app.inject({
      url: '/healthz',
      headers: { authorization: 'Bearer good-token', 'x-remote-user': 'root', 'x-remote-uid': '0', 'x-remote-group': 'system:masters', 'x-remote-extra-a': 'b', 'x-kept': 'yes' },
    });
    const headers = reply.json().headers as Record<string, string>;
    expect(Object.keys(headers).filter((name) => name.startsWith('x-remote') || name === 'authorization')).toEqual([]);
    expect(headers['x-kept']).toBe('yes');
    await app.close();
  });
});

describe('--anonymous-auth', () => {
  it('defaults to true and is turned off, with kube\'s warning, by the AlwaysAllow mode (even when given as true)', () => {
    expect(effectiveAnonymousAuth(undefined, ['Node', 'RBAC'])).toEqual({ enabled: true });
    expect(effectiveAnonymousAuth(false, ['RBAC'])).toEqual({ enabled: false });
    expect(effectiveAnonymousAuth(undefined, ['RBAC', 'AlwaysAllow'])).toEqual({ enabled: false, warning: anonymousWithAlwaysAllowWarning });
    expect(effectiveAnonymousAuth(true, ['AlwaysAllow'])).toEqual({ enabled: false, warning: anonymousWithAlwaysAllowWarning });
    expect(effectiveAnonymousAuth(false, ['AlwaysAllow'])).toEqual({ enabled: false });
  });
});

describe('the authenticated group', () => {
  it('is added unless the user is anonymous or already in system:authenticated or system:unauthenticated', () => {
    const user = { name: 'u', uid: '', groups: ['g'], extra: {} };
    expect(withAuthenticatedGroup(user).groups).toEqual(['g', 'system:authenticated']);
    expect(withAuthenticatedGroup({ ...user, groups: ['system:authenticated', 'g'] }).groups).toEqual(['system:authenticated', 'g']);
    expect(withAuthenticatedGroup({ ...user, groups: ['system:unauthenticated'] }).groups).toEqual(['system:unauthenticated']);
    expect(withAuthenticatedGroup({ ...user, name: 'system:anonymous', groups: [] }).groups).toEqual([]);
  });
});
