// TokenReview through fastify inject: the real authn/authz hooks, discovery and the review plugin
// over the static token file, the service account token authenticator and a token webhook (a
// fake client). Static tokens, unknown tokens, service account tokens checked for audiences they
// have and have not, the audience-agnostic rule for the token file, kube's errors and 400s,
// protobuf in and out, and discovery listing tokenreviews as kube 1.33 does.
import { generateKeyPairSync } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject, ObjectKey } from '../../../actors/index.ts';
import { authnPlugin, bearerTokenAuthenticator } from '../../../api/auth/authn.ts';
import type { TokenAuthenticator } from '../../../api/auth/authn.ts';
import { authzPlugin } from '../../../api/auth/authz.ts';
import { serviceAccountTokenAuthenticator } from '../../../api/auth/service-account-authn.ts';
import { parseSigningKeyPem, publicKeyOf } from '../../../api/auth/service-account-keys.ts';
import { serviceAccountTokenIssuer } from '../../../api/auth/service-account-token.ts';
import { parseTokenFile, tokenFileAuthenticator } from '../../../api/auth/token-file.ts';
import { tokenReviewPlugin } from '../../../api/auth/token-review.ts';
import { tokenWebhookAuthenticator } from '../../../api/auth/token-webhook.ts';
import type { WebhookClient } from '../../../api/auth/webhook-kubeconfig.ts';
import { decodeProtobufObject, encodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../../../api/codecs/protobuf.ts';
import { discoveryPlugin } from '../../../api/discovery.ts';
import { bodyMediaTypes } from '../../../api/negotiation.ts';
import { registerStatusErrors } from '../../../api/status-errors.ts';
import { systemMastersAuthorizer } from '../../../api/index.ts';
import { admin, headerAuthenticator } from '../api/harness.ts';

const signingKey = parseSigningKeyPem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString());
const issuerUrl = 'https://kubernetes.default.svc';
const apiAudiences = [issuerUrl, 'kstore'];
const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const url = '/apis/authentication.k8s.io/v1/tokenreviews';
const staticToken = 'static-token-0123456789';

class Objects {
  readonly objects = new Map<string, KubeObject>();
  get(key: ObjectKey): KubeObject | undefined {
    return this.objects.get(`${key.resource}/${key.namespace}/${key.name}`);
  }
  put(resource: string, namespace: string, name: string, uid: string): void {
    this.objects.set(`${resource}/${namespace}/${name}`, { apiVersion: 'v1', kind: resource, metadata: { name, namespace, uid } } as KubeObject);
  }
}

/** A token webhook that knows one token, answering for the audiences it is told to (or none). */
function fakeWebhook(answerAudiences: readonly string[], sent: unknown[]): WebhookClient {
  return {
    url: 'https://webhook.example',
    close: () => undefined,
    post: async (body) => {
      sent.push(body);
      const token = (body as { spec: { token: string } }).spec.token;
      return {
        apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview',
        status: token === 'webhook-token'
          ? { authenticated: true, user: { username: 'hooked', uid: 'h1', groups: ['hook-group'], extra: { scope: ['a', 'b'] } }, audiences: [...answerAudiences] }
          : token === 'webhook-refused' ? { authenticated: false, error: 'the webhook says no' } : { authenticated: false },
      };
    },
  };
}

interface World {
  request(body: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  get(path: string): Promise<LightMyRequestResponse>;
  mint(audiences: readonly string[]): Promise<string>;
  readonly webhookCalls: unknown[];
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function startWorld(options: { apiAudiences?: readonly string[]; webhookAudiences?: readonly string[] } = {}): Promise<World> {
  const audiences = options.apiAudiences ?? apiAudiences;
  const now = () => new Date(t0);
  const objects = new Objects();
  objects.put('serviceaccounts', 'ci', 'builder', 'sa-uid');
  const issuer = serviceAccountTokenIssuer({ signingKey, issuer: issuerUrl, apiAudiences: audiences, now, newJti: () => 'j1' });
  const webhookCalls: unknown[] = [];
  const tokens: TokenAuthenticator[] = [
    tokenFileAuthenticator(parseTokenFile(`${staticToken},alice,1001,"dev,ops"\n`, '/etc/tokens.csv')),
    serviceAccountTokenAuthenticator({ publicKeys: [publicKeyOf(signingKey)], issuers: [issuerUrl], apiAudiences: audiences, reader: objects, now }),
    tokenWebhookAuthenticator({ client: fakeWebhook(options.webhookAudiences ?? [], webhookCalls), version: 'v1', apiAudiences: audiences, cacheTtlMs: 0 }),
  ];
  const app = Fastify();
  apps.push(app);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser([...bodyMediaTypes], { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addContentTypeParser(PROTOBUF_MEDIA_TYPE, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  registerStatusErrors(app);
  await app.register(authnPlugin, { authenticators: [headerAuthenticator, bearerTokenAuthenticator(tokens)] });
  await app.register(authzPlugin, { authorizers: [systemMastersAuthorizer] });
  await app.register(tokenReviewPlugin, { authenticators: tokens, apiAudiences: audiences });
  await app.register(discoveryPlugin, {});
  return {
    request: (body, headers = {}) => app.inject({
      method: 'POST', url, headers: { ...admin, 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    }),
    get: (path) => app.inject({ method: 'GET', url: path, headers: admin }),
    mint: async (tokenAudiences) => (await issuer.mint({ serviceAccount: { namespace: 'ci', name: 'builder', uid: 'sa-uid' }, audiences: [...tokenAudiences], expirationSeconds: 3600 })).token,
    webhookCalls,
  };
}

const tokenReview = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata, spec });
const json = (response: LightMyRequestResponse): Record<string, unknown> => JSON.parse(response.body) as Record<string, unknown>;
const statusOf = (response: LightMyRequestResponse): unknown => json(response)['status'];

const serviceAccountUser = {
  username: 'system:serviceaccount:ci:builder', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
  extra: { 'authentication.kubernetes.io/credential-id': ['JTI=j1'] },
};

describe('POST tokenreviews', () => {
  it('authenticates a static token: the user with system:authenticated, the API audiences, the review echoed', async () => {
    const w = await startWorld();
    const response = await w.request(tokenReview({ token: staticToken }, { name: 'r1', namespace: 'ignored', uid: 'dropped' }));
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({
      kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { name: 'r1', creationTimestamp: null },
      spec: { token: staticToken },
      status: { authenticated: true, user: { username: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] }, audiences: apiAudiences },
    });
  });

  it('answers an unknown token with authenticated omitted and kube\'s "invalid bearer token"', async () => {
    const w = await startWorld();
    const response = await w.request(tokenReview({ token: 'nobody-knows-this' }));
    expect(response.statusCode).toBe(201);
    expect(statusOf(response)).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  it('reports an authenticator\'s error as the review\'s error, without the token', async () => {
    const w = await startWorld();
    const response = await w.request(tokenReview({ token: 'webhook-refused' }));
    expect(statusOf(response)).toEqual({ user: {}, error: 'the webhook says no' });
  });

  it('takes the first word of a token with spaces, and nothing from a token starting with a space', async () => {
    const w = await startWorld();
    expect(statusOf(await w.request(tokenReview({ token: `${staticToken} trailing words` })))).toMatchObject({ authenticated: true, user: { username: 'alice' } });
    expect(statusOf(await w.request(tokenReview({ token: ` ${staticToken}` })))).toEqual({ user: {} });
  });

  it('checks a service account token for the API audiences by default', async () => {
    const w = await startWorld();
    const token = await w.mint(['kstore', 'elsewhere']);
    expect(statusOf(await w.request(tokenReview({ token })))).toEqual({ authenticated: true, user: serviceAccountUser, audiences: ['kstore'] });
  });

  it('checks a service account token for the audiences asked: accepted for those it has, in the order asked', async () => {
    const w = await startWorld();
    const token = await w.mint(['vault', 'kstore', 'db']);
    const response = await w.request(tokenReview({ token, audiences: ['db', 'other', 'vault'] }));
    expect(json(response)['spec']).toEqual({ token, audiences: ['db', 'other', 'vault'] });
    expect(statusOf(response)).toEqual({ authenticated: true, user: serviceAccountUser, audiences: ['db', 'vault'] });
  });

  it('refuses a service account token for audiences it does not have, with kube\'s error', async () => {
    const w = await startWorld();
    const token = await w.mint(['vault']);
    const status = statusOf(await w.request(tokenReview({ token, audiences: ['db', 'cache'] }))) as { error: string };
    expect(status).toEqual({ user: {}, error: 'token audiences ["vault"] is invalid for the target audiences ["db" "cache"]' });
    expect(status.error).not.toContain(token);
  });

  it('accepts a static token only for asked audiences that are API audiences (kube\'s audience-agnostic wrapper)', async () => {
    const w = await startWorld();
    expect(statusOf(await w.request(tokenReview({ token: staticToken, audiences: ['other', 'kstore'] })))).toMatchObject({ authenticated: true, audiences: ['kstore'] });
    expect(statusOf(await w.request(tokenReview({ token: staticToken, audiences: ['other'] })))).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  it('sends the asked audiences to the webhook and takes the audiences it names that were asked, in its order', async () => {
    const w = await startWorld({ webhookAudiences: ['b', 'x', 'a'] });
    const status = statusOf(await w.request(tokenReview({ token: 'webhook-token', audiences: ['a', 'b'] })));
    expect(status).toEqual({
      authenticated: true, user: { username: 'hooked', uid: 'h1', groups: ['hook-group', 'system:authenticated'], extra: { scope: ['a', 'b'] } }, audiences: ['b', 'a'],
    });
    expect(w.webhookCalls).toContainEqual(expect.objectContaining({ spec: { token: 'webhook-token', audiences: ['a', 'b'] } }));
  });

  it('without API audiences, checks none unless asked and then answers kube\'s 500 for an authenticator accepting none of them', async () => {
    const w = await startWorld({ apiAudiences: [] });
    expect(statusOf(await w.request(tokenReview({ token: staticToken })))).toEqual({
      authenticated: true, user: { username: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] },
    });
    const token = await w.mint(['vault']);
    const response = await w.request(tokenReview({ token, audiences: ['db'] }));
    expect(response.statusCode).toBe(500);
    expect(json(response)).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: error validating audiences' });
  });

  it('refuses an empty token and malformed reviews with kube\'s 400s', async () => {
    const w = await startWorld();
    const empty = await w.request(tokenReview({}));
    expect(empty.statusCode).toBe(400);
    expect(json(empty)).toMatchObject({ reason: 'BadRequest', message: 'token is required for TokenReview in authentication' });
    const wrongVersion = await w.request({ apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', spec: { token: staticToken } });
    expect(json(wrongVersion)['message']).toBe('the API version in the data (authentication.k8s.io/v1beta1) does not match the expected API version (authentication.k8s.io/v1)');
    const wrongKind = await w.request({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', spec: { token: staticToken } });
    expect(json(wrongKind)['message']).toBe('the kind in the data (SelfSubjectReview) does not match the expected kind (TokenReview)');
    const badToken = await w.request(tokenReview({ token: 42 }));
    expect(badToken.statusCode).toBe(400);
    expect(json(badToken)['message']).toBe('TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal number into Go struct field TokenReviewSpec.spec.token of type string');
    const badAudiences = await w.request(tokenReview({ token: staticToken, audiences: 'kstore' }));
    expect(json(badAudiences)['message']).toBe('TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal string into Go struct field TokenReviewSpec.spec.audiences of type []string');
  });

  it('is authorized as create tokenreviews: a user without that permission gets a 403', async () => {
    const w = await startWorld();
    const response = await w.request(tokenReview({ token: staticToken }), { 'x-test-user': 'someone;' });
    expect(response.statusCode).toBe(403);
    expect(json(response)['message']).toContain('cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope');
  });

  it('takes and answers protobuf', async () => {
    const w = await startWorld();
    const body = encodeProtobufObject(tokenReview({ token: staticToken, audiences: ['kstore'] }));
    const response = await w.request(body, { 'content-type': PROTOBUF_MEDIA_TYPE, accept: PROTOBUF_MEDIA_TYPE });
    expect(response.statusCode).toBe(201);
    expect(response.headers['content-type']).toBe(PROTOBUF_MEDIA_TYPE);
    expect(decodeProtobufObject(response.rawPayload)).toMatchObject({
      kind: 'TokenReview', spec: { token: staticToken, audiences: ['kstore'] },
      status: { authenticated: true, user: { username: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] }, audiences: ['kstore'] },
    });
  });
});

describe('discovery', () => {
  it('lists tokenreviews in authentication.k8s.io/v1 as kube 1.33 does: create only, cluster-scoped, kind TokenReview', async () => {
    const w = await startWorld();
    const body = json(await w.get('/apis/authentication.k8s.io/v1')) as { resources: Record<string, unknown>[] };
    expect(body.resources).toContainEqual({ name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] });
  });
});

describe('audiences through the token authenticators', () => {
  it('the webhook caches an answer per token and asked audiences', async () => {
    const sent: unknown[] = [];
    const authenticate = tokenWebhookAuthenticator({ client: fakeWebhook(['a'], sent), version: 'v1', apiAudiences: ['a'], now: () => t0 });
    expect(await authenticate('webhook-token', ['a'])).toMatchObject({ type: 'authenticated', audiences: ['a'] });
    expect(await authenticate('webhook-token', ['c'])).toEqual({ type: 'noCredentials' });
    expect(await authenticate('webhook-token')).toMatchObject({ type: 'authenticated', audiences: ['a'] });
    expect(sent).toHaveLength(2);
  });
});
