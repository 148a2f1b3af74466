// Bootstrap tokens through the real API server (buildServer over a real ClusterState): validation
// of token secrets (422 with field causes), the bootstrap token authenticator (401 for every bad
// token, never anonymous), and the whole lifecycle walked over HTTP with the controllers on a
// fake clock: create → authenticate → expire → 401 → cleaned up, and cluster-info signed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../actors/index.ts';
import { BootstrapSigner, TokenCleaner, TokenExpirer } from '../../../actors/controllers/index.ts';
import type { Controller, ControllerContext, ControllerTimers } from '../../../actors/controllers/index.ts';
import { authorizersFor, bootstrapClusterRoleBindings, bootstrapClusterRoles, buildServer, clusterRoleBindingObject, clusterRoleObject, StoreClient } from '../../../api/index.ts';
import { authenticateBootstrapToken, bootstrapTokenAuthenticator } from '../../../api/auth/bootstrap-token-authn.ts';
import { bearerTokenAuthenticator } from '../../../api/auth/authn.ts';
import { admin, headerAuthenticator, ImmediateBackend } from './harness.ts';

const t0 = Date.UTC(2026, 0, 1);
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface World {
  readonly backend: ImmediateBackend;
  readonly client: StoreClient;
  request(method: string, url: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  asToken(token: string, url?: string): Promise<LightMyRequestResponse>;
  readonly clock: { ms: number };
  readonly context: ControllerContext;
  readonly timers: ControllerTimers & { fire(): void };
  readonly logs: string[];
  close(): Promise<void>;
}

const worlds: World[] = [];
const controllers: Controller[] = [];
afterEach(async () => {
  for (const controller of controllers.splice(0)) await controller.stop();
  for (const world of worlds.splice(0)) await world.close();
});

async function startWorld(): Promise<World> {
  const backend = new ImmediateBackend();
  const client = new StoreClient(backend);
  const clock = { ms: t0 };
  const now = () => new Date(clock.ms);
  const { app } = await buildServer({
    store: client, now,
    authenticators: [headerAuthenticator, bearerTokenAuthenticator([bootstrapTokenAuthenticator(client, now)])],
    authorizers: authorizersFor(['RBAC'], client),
  });
  const request = (method: string, url: string, options: { body?: unknown; headers?: Record<string, string> } = {}) => app.inject({
    method: method as 'GET', url,
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.headers ?? admin) },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
  for (const name of ['default', 'kube-system', 'kube-public']) {
    const response = await request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
    expect(response.statusCode).toBe(201);
  }
  // From kube's default RBAC policy, which each API server keeps: system:discovery for system:authenticated.
  const discoveryRole = clusterRoleObject(bootstrapClusterRoles.find((role) => role.name === 'system:discovery')!);
  const discoveryBinding = clusterRoleBindingObject(bootstrapClusterRoleBindings.find((binding) => binding.name === 'system:discovery')!);
  expect((await request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: discoveryRole })).statusCode).toBe(201);
  expect((await request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: discoveryBinding })).statusCode).toBe(201);
  const pending: (() => void)[] = [];
  const timers = {
    set(_delayMs: number, callback: () => void) {
      pending.push(callback);
      return () => {
        const at = pending.indexOf(callback);
        if (at >= 0) pending.splice(at, 1);
      };
    },
    fire() {
      for (const callback of pending.splice(0)) callback();
    },
  };
  const logs: string[] = [];
  const context: ControllerContext = {
    state: backend.state, propose: (command) => client.propose(command), now: () => iso(clock.ms),
    log: (message, fields) => logs.push(JSON.stringify({ message, ...fields })),
  };
  const world: World = {
    backend, client, request, clock, context, timers, logs,
    asToken: (token, url = '/api') => request('GET', url, { headers: { authorization: `Bearer ${token}` } }),
    close: () => app.close(),
  };
  worlds.push(world);
  return world;
}

function tokenSecret(id: string, stringData: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', stringData, ...extra };
}

const good = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' };

interface Cause { reason: string; message: string; field: string }
function causesOf(response: LightMyRequestResponse): Cause[] {
  return (JSON.parse(response.body) as { details: { causes: Cause[] } }).details.causes;
}

describe('bootstrap token secret validation', () => {
  it('accepts a well-formed token secret given as stringData, and as base64 data', async () => {
    const w = await startWorld();
    const created = await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('abcdef', { ...good, expiration: '2026-01-01T00:10:00Z', description: 'joining' }) });
    expect(created.statusCode).toBe(201);
    const data = Object.fromEntries(Object.entries({ 'token-id': 'zyxwvu', 'token-secret': 'aaaaaaaaaaaaaaaa', expiration: '2026-01-01T01:00:00+01:00' }).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
    const viaData = await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: { ...tokenSecret('zyxwvu', {}), stringData: undefined, data } });
    expect(viaData.statusCode).toBe(201);
  });

  it('refuses malformed ones with 422 Invalid and a cause per problem; the token secret is never echoed', async () => {
    const w = await startWorld();
    const bad = await w.request('POST', '/api/v1/namespaces/kube-system/secrets', {
      body: tokenSecret('abcdef', {
        'token-id': 'ABCDEF', 'token-secret': 'short-SECRET', expiration: 'next tuesday',
        'usage-bootstrap-authentication': 'yes', 'usage-bootstrap-signing': 'true',
        'auth-extra-groups': 'system:bootstrappers:ok,system:masters',
      }),
    });
    expect(bad.statusCode).toBe(422);
    const status = JSON.parse(bad.body) as { reason: string; message: string; details: { kind: string; name: string } };
    expect(status).toMatchObject({ reason: 'Invalid', details: { kind: 'Secret', name: 'bootstrap-token-abcdef' } });
    expect(status.message).toMatch(/^Secret "bootstrap-token-abcdef" is invalid: \[/);
    expect(causesOf(bad)).toEqual([
      { reason: 'FieldValueInvalid', field: 'data[token-id]', message: "Invalid value: \"ABCDEF\": a bootstrap token ID must consist of 6 lowercase alphanumeric characters (regex used for validation is '[a-z0-9]{6}')" },
      { reason: 'FieldValueInvalid', field: 'data[token-secret]', message: "Invalid value: a bootstrap token secret must consist of 16 lowercase alphanumeric characters (regex used for validation is '[a-z0-9]{16}')" },
      { reason: 'FieldValueInvalid', field: 'data[expiration]', message: 'Invalid value: "next tuesday": must be a date-time in RFC 3339 format (e.g. "2006-01-02T15:04:05Z")' },
      { reason: 'FieldValueInvalid', field: 'data[usage-bootstrap-authentication]', message: 'Invalid value: "yes": a bootstrap token usage must be "true" (or left out)' },
      { reason: 'FieldValueInvalid', field: 'data[auth-extra-groups]', message: 'Invalid value: "system:masters": bootstrap group "system:masters" is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)' },
    ]);
    expect(bad.body).not.toContain('short-SECRET');
    expect(w.backend.state.get({ group: '', resource: 'secrets', namespace: 'kube-system', name: 'bootstrap-token-abcdef' })).toBeUndefined();
  });

  it('requires token-id and token-secret, and a name that matches the token id', async () => {
    const w = await startWorld();
    const missing = await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('abcdef', { description: 'x' }) });
    expect(missing.statusCode).toBe(422);
    expect(causesOf(missing)).toEqual([
      { reason: 'FieldValueRequired', field: 'data[token-id]', message: 'Required value: a bootstrap token secret needs its token ID' },
      { reason: 'FieldValueRequired', field: 'data[token-secret]', message: 'Required value: a bootstrap token secret needs its token secret' },
    ]);
    const mismatch = await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('abcdef', { ...good, 'token-id': 'ghijkl' }) });
    expect(mismatch.statusCode).toBe(422);
    expect(causesOf(mismatch)).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "bootstrap-token-abcdef": a bootstrap token secret must be named bootstrap-token-<token-id>, here "bootstrap-token-ghijkl"' },
    ]);
    // An update is validated too.
    expect((await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('abcdef', good) })).statusCode).toBe(201);
    const patched = await w.request('PATCH', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef', {
      body: { stringData: { expiration: 'soon' } }, headers: { ...admin, 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.statusCode).toBe(422);
  });

  it('leaves other secrets alone: the token type outside kube-system, other types in kube-system', async () => {
    const w = await startWorld();
    const elsewhere = await w.request('POST', '/api/v1/namespaces/default/secrets', { body: { ...tokenSecret('abcdef', { 'token-id': 'NOPE' }), metadata: { name: 'whatever', namespace: 'default' } } });
    expect(elsewhere.statusCode).toBe(201);
    const opaque = await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: { ...tokenSecret('abcdef', { 'token-id': 'NOPE' }), type: 'Opaque' } });
    expect(opaque.statusCode).toBe(201);
  });
});

describe('bootstrap token authentication', () => {
  it('authenticates as system:bootstrap:<id> with system:bootstrappers, the extra groups and system:authenticated', async () => {
    const w = await startWorld();
    await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('abcdef', good) });
    expect(authenticateBootstrapToken('abcdef.0123456789abcdef', w.client, () => new Date(w.clock.ms))).toEqual({
      type: 'authenticated',
      user: { name: 'system:bootstrap:abcdef', uid: '', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'], extra: {} },
    });
    const response = await w.asToken('abcdef.0123456789abcdef');
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ kind: 'APIVersions' });
    // Authenticated, but the default RBAC policy grants no more than discovery: 403, not 401.
    const secrets = await w.asToken('abcdef.0123456789abcdef', '/api/v1/namespaces/kube-system/secrets');
    expect(secrets.statusCode).toBe(403);
    expect(JSON.parse(secrets.body).message).toContain('User "system:bootstrap:abcdef" cannot list resource "secrets"');
  });

  it('answers 401 Unauthorized for malformed, unknown, wrong, unusable or expired tokens (never anonymous)', async () => {
    const w = await startWorld();
    await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('abcdef', { ...good, expiration: '2026-01-01T00:10:00Z' }) });
    await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('noauth', { 'token-id': 'noauth', 'token-secret': '0123456789abcdef', 'usage-bootstrap-signing': 'true' }) });
    const unauthorized = async (headers: Record<string, string>) => {
      const response = await w.request('GET', '/api', { headers });
      expect(response.statusCode, JSON.stringify(headers)).toBe(401);
      expect(JSON.parse(response.body)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    };
    await unauthorized({ authorization: 'Bearer abcdef0123456789abcdef' });
    await unauthorized({ authorization: 'Bearer ABCDEF.0123456789abcdef' });
    await unauthorized({ authorization: 'Bearer abcdef.0123456789abcde' });
    await unauthorized({ authorization: 'Bearer ' });
    await unauthorized({ authorization: 'Basic YWJjOmRlZg==' });
    await unauthorized({});
    await unauthorized({ authorization: 'Bearer zzzzzz.0123456789abcdef' }); // unknown token id
    await unauthorized({ authorization: 'Bearer abcdef.0123456789abcdee' }); // wrong secret
    await unauthorized({ authorization: 'Bearer noauth.0123456789abcdef' }); // no usage-bootstrap-authentication
    expect((await w.asToken('abcdef.0123456789abcdef')).statusCode).toBe(200);
    // Expired by the clock at request time, before any expireTokens command.
    w.clock.ms = Date.parse('2026-01-01T00:10:00Z');
    await unauthorized({ authorization: 'Bearer abcdef.0123456789abcdef' });
  });

  it('rejects a token whose secret is being deleted, and one with invalid extra groups stored before validation', () => {
    const object = (extra: Partial<KubeObject['metadata']>, data: Record<string, string>): KubeObject => ({
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system', ...extra }, type: 'bootstrap.kubernetes.io/token',
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    });
    const reader = (stored: KubeObject) => ({ get: () => stored, lifecycleOf: () => undefined });
    const now = () => new Date(t0);
    const base = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };
    expect(authenticateBootstrapToken('abcdef.0123456789abcdef', reader(object({}, base)), now).type).toBe('authenticated');
    expect(authenticateBootstrapToken('abcdef.0123456789abcdef', reader(object({ deletionTimestamp: iso(t0) }, base)), now)).toMatchObject({ type: 'rejected', reason: 'bootstrap secret kube-system/bootstrap-token-abcdef is deleted and awaiting removal' });
    expect(authenticateBootstrapToken('abcdef.0123456789abcdef', reader(object({}, { ...base, 'auth-extra-groups': 'system:masters' })), now).type).toBe('rejected');
    expect(authenticateBootstrapToken('abcdef.0123456789abcdef', reader(object({}, { ...base, 'token-id': 'other1' })), now).type).toBe('rejected');
    const { 'token-secret': _secret, ...noSecret } = base;
    expect(authenticateBootstrapToken('abcdef.0123456789abcdef', reader(object({}, noSecret)), now).type).toBe('rejected');
    const reason = authenticateBootstrapToken('abcdef.0123456789abcdee', reader(object({}, base)), now);
    expect(JSON.stringify(reason)).not.toMatch(/0123456789abcde/);
  });
});

/** What kubeadm does with cluster-info: rebuild `header.payload.signature` (payload = kubeconfig) and verify HS256 with the token. */
function verifyDetached(detached: string, kubeconfig: string, token: string): boolean {
  const [header = '', payload, signature = ''] = detached.split('.');
  if (payload !== '') return false;
  const expected = createHmac('sha256', token).update(`${header}.${Buffer.from(kubeconfig).toString('base64url')}`).digest();
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('the bootstrap token lifecycle over HTTP', () => {
  it('create → authenticate (200) → the expiry command flips it → 401 → the cleaner deletes it; cluster-info signed meanwhile', async () => {
    const w = await startWorld();
    const run = <T extends Controller>(controller: T): T => {
      controller.start();
      controllers.push(controller);
      return controller;
    };
    const expirer = run(new TokenExpirer(w.context, w.timers));
    const cleaner = run(new TokenCleaner(w.context));
    const signer = run(new BootstrapSigner(w.context));
    const settle = async () => {
      await expirer.idle();
      await cleaner.idle();
      await signer.idle();
    };
    const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: Q0E=\n    server: https://127.0.0.1:6443\n  name: ""\n';
    expect((await w.request('POST', '/api/v1/namespaces/kube-public/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } } })).statusCode).toBe(201);

    // A token that expires in 60 s.
    const created = await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('abcdef', { ...good, expiration: iso(t0 + 60_000) }) });
    expect(created.statusCode).toBe(201);
    await settle();
    expect((await w.asToken('abcdef.0123456789abcdef')).statusCode).toBe(200);
    const key = { group: '', resource: 'secrets', namespace: 'kube-system', name: 'bootstrap-token-abcdef' };
    expect(w.backend.state.lifecycleOf(key)?.token?.state).toBe('valid');

    // cluster-info carries a signature a joining node verifies with the token.
    const clusterInfo = await w.request('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info');
    const signed = (JSON.parse(clusterInfo.body) as { data: Record<string, string> }).data;
    expect(verifyDetached(signed['jws-kubeconfig-abcdef']!, kubeconfig, 'abcdef.0123456789abcdef')).toBe(true);
    expect(verifyDetached(signed['jws-kubeconfig-abcdef']!, kubeconfig, 'abcdef.ffffffffffffffff')).toBe(false);

    // The leader's clock passes the expiration; the timer fires; expireTokens is committed.
    w.clock.ms = t0 + 60_000;
    w.timers.fire();
    await settle();
    // The cleaner deleted it once expired; the history shows valid → expired → deleted.
    const events = w.backend.state.eventsSince(0);
    if (events.type !== 'events') throw new Error('history compacted');
    const tokenEvents = events.events.filter((event) => event.key.name === 'bootstrap-token-abcdef');
    expect(tokenEvents.map((event) => [event.type, event.lifecycle?.token?.state])).toEqual([['ADDED', 'valid'], ['MODIFIED', 'expired'], ['DELETED', 'deleted']]);
    expect(tokenEvents[1]?.lifecycle?.token?.transitions.at(-1)).toMatchObject({ event: 'EXPIRE', from: 'valid', to: 'expired', at: iso(t0 + 60_000), by: 'system:serviceaccount:kube-system:token-cleaner' });
    expect(tokenEvents[2]?.lifecycle?.token?.transitions.at(-1)).toMatchObject({ event: 'DELETE', from: 'expired', to: 'deleted' });

    expect((await w.asToken('abcdef.0123456789abcdef')).statusCode).toBe(401);
    expect((await w.request('GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef')).statusCode).toBe(404);
    const after = (JSON.parse((await w.request('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info')).body) as { data: Record<string, string> }).data;
    expect(Object.keys(after)).toEqual(['kubeconfig']);
    expect(w.logs.join('\n')).not.toContain('0123456789abcdef');
  });

  it('the expired state alone (before the clock check would) refuses authentication', async () => {
    const w = await startWorld();
    await w.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: tokenSecret('abcdef', { ...good, expiration: iso(t0 + 60_000) }) });
    // The replicated state says expired at T = expiration, while this API server's clock lags behind.
    await w.client.propose({ type: 'expireTokens', at: iso(t0 + 60_000) });
    expect((await w.asToken('abcdef.0123456789abcdef')).statusCode).toBe(401);
  });
});
