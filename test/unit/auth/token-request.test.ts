// The TokenRequest API through fastify inject: the real authn/authz hooks and resource routes
// over an in-memory store, with a token issuer in the endpoint context (buildServer does not take
// one yet, so the server is assembled here from the same parts). Validation errors with kube's
// messages, bound objects, defaults, the max-expiration cap, the one-year extension, and a
// minted token used as a bearer token; without an issuer the subresource is a 404.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AdmissionChain } from '../../../api/admission/chain.ts';
import { authnPlugin, bearerTokenAuthenticator } from '../../../api/auth/authn.ts';
import { authzPlugin } from '../../../api/auth/authz.ts';
import { RbacEscalationGuard } from '../../../api/auth/rbac-escalation.ts';
import { serviceAccountTokenAuthenticator } from '../../../api/auth/service-account-authn.ts';
import { parseSigningKeyPem, publicKeyOf } from '../../../api/auth/service-account-keys.ts';
import { serviceAccountTokenIssuer } from '../../../api/auth/service-account-token.ts';
import type { ServiceAccountTokenIssuer } from '../../../api/auth/service-account-token.ts';
import { featureGatesDefault } from '../../../api/endpoints/corrupt.ts';
import type { EndpointContext } from '../../../api/endpoints/context.ts';
import { patchMediaTypes } from '../../../api/endpoints/patch.ts';
import { registerResourceRoutes } from '../../../api/endpoints/routes.ts';
import { ApiMetrics } from '../../../api/metrics.ts';
import { bodyMediaTypes } from '../../../api/negotiation.ts';
import { registerStatusErrors } from '../../../api/status-errors.ts';
import { WatchCache } from '../../../api/watchcache/watch-cache.ts';
import { StoreClient, systemMastersAuthorizer } from '../../../api/index.ts';
import { admin, headerAuthenticator, ImmediateBackend, startHarness } from '../api/harness.ts';

const signingKey = parseSigningKeyPem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
const issuerUrl = 'https://kubernetes.default.svc';
const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);

interface World {
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  readonly issuer: ServiceAccountTokenIssuer;
  close(): Promise<void>;
}

const worlds: World[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

async function startWorld(settings: { maxExpirationSeconds?: number } = {}): Promise<World> {
  const client = new StoreClient(new ImmediateBackend());
  const now = () => new Date(t0);
  const issuer = serviceAccountTokenIssuer({ signingKey, issuer: issuerUrl, apiAudiences: [issuerUrl, 'kstore'], now, ...settings });
  const authorizers = [systemMastersAuthorizer];
  const app: FastifyInstance = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser([...bodyMediaTypes, ...patchMediaTypes], { parseAs: 'string' }, (_request, body, done) => done(null, body));
  registerStatusErrors(app);
  const cache = new WatchCache(client);
  app.addHook('preClose', async () => cache.close());
  const context: EndpointContext = {
    store: client, cache, now, newUid: randomUUID, randomSuffix: () => 'x2x2x', bookmarkIntervalMs: 60_000, metrics: new ApiMetrics(),
    featureGates: featureGatesDefault, authorizers, admission: new AdmissionChain({ store: client, randomSuffix: () => 'x2x2x' }),
    rbacGuard: new RbacEscalationGuard({ store: client, authorizers }), serviceAccountTokens: issuer,
  };
  const tokens = serviceAccountTokenAuthenticator({ publicKeys: [publicKeyOf(signingKey)], issuers: [issuerUrl], apiAudiences: [issuerUrl, 'kstore'], reader: client, now });
  await app.register(authnPlugin, { authenticators: [headerAuthenticator, bearerTokenAuthenticator([tokens])] });
  await app.register(authzPlugin, { authorizers });
  registerResourceRoutes(app, context);
  const request = (method: string, url: string, body?: unknown, headers: Record<string, string> = admin) => app.inject({
    method: method as 'POST', url, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const created = async (url: string, body: unknown) => expect((await request('POST', url, body)).statusCode).toBe(201);
  await created('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 't' } });
  for (const name of ['builder', 'default']) await created('/api/v1/namespaces/t/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  await created('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
  await created('/api/v1/namespaces/t/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'runner' },
    spec: { serviceAccountName: 'builder', nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] },
  });
  await created('/api/v1/namespaces/t/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stranger' }, spec: { serviceAccountName: 'default', containers: [{ name: 'c', image: 'busybox' }] },
  });
  await created('/api/v1/namespaces/t/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'anchor' } });
  const world = { request, issuer, close: () => app.close() };
  worlds.push(world);
  return world;
}

const tokenUrl = '/api/v1/namespaces/t/serviceaccounts/builder/token';
const tokenRequest = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata, spec });

interface Answer {
  kind: string;
  apiVersion: string;
  metadata: Record<string, unknown>;
  spec: { audiences: string[]; expirationSeconds: number; boundObjectRef: unknown };
  status: { token: string; expirationTimestamp: string };
  message?: string;
  reason?: string;
  details?: { causes?: { reason: string; message: string; field: string }[] };
}

const answer = (response: LightMyRequestResponse): Answer => JSON.parse(response.body) as Answer;
const claimsOf = (token: string): Record<string, unknown> => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

describe('POST serviceaccounts/<name>/token', () => {
  it('mints a token with kube\'s defaults and answers the TokenRequest with its status', async () => {
    const w = await startWorld();
    const response = await w.request('POST', tokenUrl, tokenRequest());
    expect(response.statusCode).toBe(201);
    const body = answer(response);
    expect({ ...body, status: { ...body.status, token: '…' } }).toEqual({
      kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'builder', namespace: 't', creationTimestamp: '2026-01-01T12:00:00Z' },
      spec: { audiences: [issuerUrl, 'kstore'], expirationSeconds: 3600, boundObjectRef: null },
      status: { token: '…', expirationTimestamp: '2026-01-01T13:00:00Z' },
    });
    expect(claimsOf(body.status.token)).toMatchObject({ iss: issuerUrl, sub: 'system:serviceaccount:t:builder', aud: [issuerUrl, 'kstore'], exp: t0 / 1000 + 3600 });
  });

  it('answers kube\'s validation errors', async () => {
    const w = await startWorld();
    const short = answer(await w.request('POST', tokenUrl, tokenRequest({ expirationSeconds: 60 })));
    expect(short.message).toBe('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
    expect(short.details?.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds', message: 'Invalid value: 60: may not specify a duration less than 10 minutes' }]);
    const long = await w.request('POST', tokenUrl, tokenRequest({ expirationSeconds: 2 ** 32 + 1 }));
    expect([long.statusCode, answer(long).message]).toEqual([422, `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: ${2 ** 32 + 1}: may not specify a duration larger than 2^32 seconds`]);
    // int64 as Go decodes it: exact beyond 2^53, and no fraction or exponent.
    const int64Max = '9223372036854775807';
    const huge = await w.request('POST', tokenUrl, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":${int64Max}}}`);
    expect([huge.statusCode, answer(huge).message]).toEqual([422, `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: ${int64Max}: may not specify a duration larger than 2^32 seconds`]);
    for (const literal of ['9223372036854775808', '3600.0', '36e2']) {
      const refused = await w.request('POST', tokenUrl, `{"spec":{"expirationSeconds":${literal}}}`);
      expect([refused.statusCode, answer(refused).message]).toEqual([400, `TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal number ${literal} into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64`]);
    }
    const renamed = await w.request('POST', tokenUrl, tokenRequest({}, { name: 'other' }));
    expect([renamed.statusCode, answer(renamed).message]).toEqual([422, 'TokenRequest.authentication.k8s.io "builder" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified']);
    const missing = await w.request('POST', '/api/v1/namespaces/t/serviceaccounts/ghost/token', tokenRequest());
    expect([missing.statusCode, answer(missing).message]).toEqual([404, 'serviceaccounts "ghost" not found']);
    const wrongKind = await w.request('POST', tokenUrl, { apiVersion: 'v1', kind: 'Eviction' });
    expect(wrongKind.statusCode).toBe(400);
  });

  it('binds to a pod of this service account, naming its node, and checks the bound object', async () => {
    const w = await startWorld();
    const pod = answer(await w.request('GET', '/api/v1/namespaces/t/pods/runner')).metadata;
    const node = answer(await w.request('GET', '/api/v1/nodes/node-1')).metadata;
    const bound = await w.request('POST', tokenUrl, tokenRequest({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner', uid: pod['uid'] } }));
    expect(bound.statusCode).toBe(201);
    expect(answer(bound).spec.boundObjectRef).toEqual({ kind: 'Pod', apiVersion: 'v1', name: 'runner', uid: pod['uid'] });
    expect(claimsOf(answer(bound).status.token)['kubernetes.io']).toEqual({
      namespace: 't', node: { name: 'node-1', uid: node['uid'] }, pod: { name: 'runner', uid: pod['uid'] },
      serviceaccount: { name: 'builder', uid: expect.any(String) as unknown },
    });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ kind: 'Pod', apiVersion: 'v1', name: 'stranger' }, 400, 'cannot bind token for serviceaccount "builder" to pod running with different serviceaccount name.'],
      [{ kind: 'Pod', apiVersion: 'v1', name: 'nope' }, 404, 'pods "nope" not found'],
      [{ kind: 'Pod', apiVersion: 'v1', name: 'runner', uid: 'stale' }, 409, 'Operation cannot be fulfilled on Pod "runner": the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated'],
      [{ kind: 'ConfigMap', apiVersion: 'v1', name: 'x' }, 400, 'cannot bind token to object of type /v1, Kind=ConfigMap'],
      [{ kind: 'Pod', apiVersion: 'apps/v1', name: 'runner' }, 400, 'cannot bind token to object of type apps/v1, Kind=Pod'],
      [{ kind: 'Secret', apiVersion: 'v1' }, 400, 'Name parameter required.'],
    ];
    for (const [ref, code, message] of cases) {
      const response = await w.request('POST', tokenUrl, tokenRequest({ boundObjectRef: ref }));
      expect([response.statusCode, answer(response).message]).toEqual([code, message]);
    }
    for (const ref of [{ kind: 'Secret', apiVersion: 'v1', name: 'anchor' }, { kind: 'Node', apiVersion: 'v1', name: 'node-1' }]) {
      expect((await w.request('POST', tokenUrl, tokenRequest({ boundObjectRef: ref }))).statusCode).toBe(201);
    }
  });

  it('shortens a request above --service-account-max-token-expiration with kube\'s warning, and extends 3607 s pod tokens', async () => {
    const w = await startWorld({ maxExpirationSeconds: 7200 });
    const capped = await w.request('POST', tokenUrl, tokenRequest({ expirationSeconds: 86_400, audiences: ['vault'] }));
    expect(answer(capped).spec).toEqual({ audiences: ['vault'], expirationSeconds: 7200, boundObjectRef: null });
    expect(capped.headers['warning']).toEqual(['299 - "requested expiration of 86400 seconds shortened to 7200 seconds"']);
    expect(answer(capped).status.expirationTimestamp).toBe('2026-01-01T14:00:00Z');
    const extended = answer(await w.request('POST', tokenUrl, tokenRequest({ expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } })));
    const claims = claimsOf(extended.status.token) as { exp: number; 'kubernetes.io': { warnafter: number } };
    expect(claims.exp).toBe(t0 / 1000 + 365 * 24 * 3600);
    expect(claims['kubernetes.io'].warnafter).toBe(t0 / 1000 + 3607);
    expect(extended.status.expirationTimestamp).toBe('2026-01-01T13:00:07Z');
  });

  it('issues a token the server then takes as the service account; others may not ask', async () => {
    const w = await startWorld();
    const token = answer(await w.request('POST', tokenUrl, tokenRequest())).status.token;
    const asAccount = await w.request('GET', '/api/v1/namespaces/t/pods', undefined, { authorization: `Bearer ${token}` });
    expect(asAccount.statusCode).toBe(403);
    expect(answer(asAccount).message).toContain('User "system:serviceaccount:t:builder" cannot list resource "pods"');
    const refused = await w.request('POST', tokenUrl, tokenRequest(), { 'x-test-user': 'bob' });
    expect([refused.statusCode, answer(refused).message]).toEqual([403, 'serviceaccounts "builder" is forbidden: User "bob" cannot create resource "serviceaccounts/token" in API group "" in the namespace "t"']);
    const forged = `${token.slice(0, token.lastIndexOf('.') + 1)}${'A'.repeat(342)}`;
    expect((await w.request('GET', '/api/v1/namespaces/t/pods', undefined, { authorization: `Bearer ${forged}` })).statusCode).toBe(401);
  });
});

describe('without a token issuer', () => {
  it('does not serve the subresource, yet discovery lists it as kube 1.33 does', async () => {
    const harness = await startHarness(['t']);
    try {
      const response = await harness.request('POST', '/api/v1/namespaces/t/serviceaccounts/default/token', tokenRequest());
      expect([response.statusCode, answer(response).message]).toEqual([404, 'the server could not find the requested resource']);
      const resources = JSON.parse((await harness.request('GET', '/api/v1')).body) as { resources: { name: string; verbs: string[] }[] };
      expect(resources.resources.find((resource) => resource.name === 'serviceaccounts/token')?.verbs).toEqual(['create']);
    } finally {
      await harness.close();
    }
  });
});
