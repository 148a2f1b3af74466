// The webhook authorizer against a real HTTPS review webhook: the SubjectAccessReview the webhook
// receives (v1 `groups`, v1beta1 `group`; resource and non-resource requests; uid and extra),
// allow / deny / no opinion with the reason passed through, allowed-and-denied, kube's cache
// (authorized and unauthorized TTLs on an injected clock, 0 caching nothing, large attributes
// never cached) and failures (5xx retried, timeout, garbage, wrong types, unknown CA) decided by
// the failure policy with the error beside the decision.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UserInfo } from '../../../api/auth/authn.ts';
import { authorize } from '../../../api/auth/authz.ts';
import type { AuthorizationAttributes } from '../../../api/auth/authz.ts';
import { subjectAccessReviewSpec, webhookAuthorizer } from '../../../api/auth/authorization-webhook.ts';
import type { WebhookAuthorizerOptions } from '../../../api/auth/authorization-webhook.ts';
import { webhookClientFromKubeconfig } from '../../../api/auth/webhook-kubeconfig.ts';
import type { WebhookClient } from '../../../api/auth/webhook-kubeconfig.ts';
import { startReviewWebhook, unrelatedCaPem } from '../../support/review-webhook.ts';
import type { ReviewWebhook } from '../../support/review-webhook.ts';

let webhook: ReviewWebhook;
const clients: WebhookClient[] = [];
let clock = 5_000_000;
const now = () => clock;
const noSleep = async () => undefined;

beforeEach(async () => {
  webhook = await startReviewWebhook();
  clock = 5_000_000;
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await webhook.close();
});

const jane: UserInfo = { name: 'jane', uid: 'uid-7', groups: ['devs', 'system:authenticated'], extra: { 'scopes.example.com': ['read'], a: ['1', '2'] } };

function resourceRequest(overrides: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user: jane, verb: 'get', isResourceRequest: true, path: '/apis/apps/v1/namespaces/prod/deployments/web/scale',
    apiGroup: 'apps', apiVersion: 'v1', namespace: 'prod', resource: 'deployments', subresource: 'scale', name: 'web', ...overrides,
  };
}

const healthz: AuthorizationAttributes = {
  user: { name: 'bob', uid: '', groups: [], extra: {} }, verb: 'get', isResourceRequest: false, path: '/healthz',
  apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '',
};

async function client(options: { timeoutMs?: number; caPem?: string } = {}): Promise<WebhookClient> {
  const created = webhookClientFromKubeconfig(
    await webhook.writeKubeconfig(options.caPem === undefined ? {} : { caPem: options.caPem }),
    options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
  );
  clients.push(created);
  return created;
}

async function authorizer(options: Partial<WebhookAuthorizerOptions> = {}) {
  return webhookAuthorizer({ name: 'webhook', client: await client(), now, sleep: noSleep, ...options });
}

function status(fields: Record<string, unknown>, apiVersion = 'authorization.k8s.io/v1') {
  return { json: { apiVersion, kind: 'SubjectAccessReview', status: fields } };
}

describe('asking the webhook', () => {
  it('sends a v1 review of a resource request and allows what the webhook allows', async () => {
    webhook.answer(() => status({ allowed: true, reason: 'jane may scale' }));
    const webhookAuthz = await authorizer({ version: 'v1' });
    expect(webhookAuthz.name).toBe('webhook');
    await expect(webhookAuthz.authorize(resourceRequest())).resolves.toEqual({ decision: 'allow', reason: 'jane may scale' });
    expect(webhook.received[0]?.body).toEqual({
      kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: { namespace: 'prod', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' },
        user: 'jane', groups: ['devs', 'system:authenticated'], extra: { a: ['1', '2'], 'scopes.example.com': ['read'] }, uid: 'uid-7',
      },
      status: { allowed: false },
    });
  });

  it('sends v1beta1 (the default) with `group`, a non-resource request, and denies what the webhook denies', async () => {
    webhook.answer(() => status({ allowed: false, denied: true, reason: 'no health for bob' }, 'authorization.k8s.io/v1beta1'));
    const webhookAuthz = await authorizer();
    await expect(webhookAuthz.authorize(healthz)).resolves.toEqual({ decision: 'deny', reason: 'no health for bob' });
    const cluster = resourceRequest({ user: { ...jane, extra: {} }, namespace: '', subresource: '', name: '', verb: 'list', apiGroup: '' });
    webhook.answer(() => status({ allowed: false }, 'authorization.k8s.io/v1beta1'));
    await webhookAuthz.authorize(cluster);
    expect(webhook.received.map((review) => review.body)).toEqual([
      {
        kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1beta1', metadata: { creationTimestamp: null },
        spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'bob' }, status: { allowed: false },
      },
      {
        kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1beta1', metadata: { creationTimestamp: null },
        spec: { resourceAttributes: { verb: 'list', version: 'v1', resource: 'deployments' }, user: 'jane', group: ['devs', 'system:authenticated'], uid: 'uid-7' },
        status: { allowed: false },
      },
    ]);
  });

  it('has no opinion when the webhook neither allows nor denies, passing the reason on to the chain', async () => {
    webhook.answer(() => status({ allowed: false, reason: 'not my namespace' }));
    const webhookAuthz = await authorizer({ version: 'v1' });
    await expect(webhookAuthz.authorize(resourceRequest())).resolves.toEqual({ decision: 'noOpinion', reason: 'not my namespace' });
    await expect(authorize([webhookAuthz], resourceRequest())).resolves.toEqual({ decision: 'noOpinion', reason: 'not my namespace' });
  });

  it('denies, with an error, an answer that both allows and denies', async () => {
    webhook.answer(() => status({ allowed: true, denied: true, reason: 'confused' }));
    await expect((await authorizer({ version: 'v1' })).authorize(healthz)).resolves.toEqual({
      decision: 'deny', reason: 'confused', error: 'webhook subject access review returned both allow and deny response',
    });
  });

  it('refuses an unsupported version', async () => {
    const created = await client();
    expect(() => webhookAuthorizer({ name: 'w', client: created, version: 'v2' }))
      .toThrow('unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"');
  });
});

describe('caching', () => {
  it('reuses allowed answers for authorizedTTL and others for unauthorizedTTL', async () => {
    webhook.answer((review) => status({ allowed: review.spec.user === 'jane' }));
    const webhookAuthz = await authorizer({ version: 'v1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000 });
    await webhookAuthz.authorize(resourceRequest());
    await webhookAuthz.authorize(healthz);
    clock += 29_999;
    await expect(webhookAuthz.authorize(resourceRequest())).resolves.toEqual({ decision: 'allow', reason: '' });
    await expect(webhookAuthz.authorize(healthz)).resolves.toEqual({ decision: 'noOpinion', reason: '' });
    expect(webhook.received).toHaveLength(2);
    clock += 1;
    await webhookAuthz.authorize(healthz);
    await webhookAuthz.authorize(resourceRequest());
    expect(webhook.received).toHaveLength(3);
    clock += 300_000;
    await webhookAuthz.authorize(resourceRequest());
    expect(webhook.received).toHaveLength(4);
  });

  it('keys the cache by the whole review: another user, verb or name asks again', async () => {
    webhook.answer(() => status({ allowed: true }));
    const webhookAuthz = await authorizer({ version: 'v1' });
    await webhookAuthz.authorize(resourceRequest());
    await webhookAuthz.authorize(resourceRequest({ verb: 'update' }));
    await webhookAuthz.authorize(resourceRequest({ name: 'db' }));
    await webhookAuthz.authorize(resourceRequest({ user: { ...jane, groups: ['devs'] } }));
    await webhookAuthz.authorize(resourceRequest());
    expect(webhook.received).toHaveLength(4);
    expect(subjectAccessReviewSpec(resourceRequest())).toEqual(webhook.received[0]?.body.spec);
  });

  it('caches nothing with TTLs of 0, nor a request whose attributes are 10000 bytes or more', async () => {
    webhook.answer(() => status({ allowed: true }));
    const uncached = await authorizer({ authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
    await uncached.authorize(healthz);
    await uncached.authorize(healthz);
    expect(webhook.received).toHaveLength(2);
    const cached = await authorizer();
    const huge = resourceRequest({ name: 'n'.repeat(10_000) });
    await cached.authorize(huge);
    await cached.authorize(huge);
    expect(webhook.received).toHaveLength(4);
  });
});

describe('a webhook that fails', () => {
  it('retries a 500 five times, then has no opinion with the error (NoOpinion policy), uncached', async () => {
    webhook.answer(() => ({ text: 'database down', status: 500 }));
    const webhookAuthz = await authorizer({ version: 'v1' });
    await expect(webhookAuthz.authorize(healthz)).resolves.toEqual({
      decision: 'noOpinion', reason: '', error: 'an error on the server ("database down") has prevented the request from succeeding',
    });
    expect(webhook.received).toHaveLength(5);
    webhook.answer(() => status({ allowed: true }));
    await expect(webhookAuthz.authorize(healthz)).resolves.toEqual({ decision: 'allow', reason: '' });
  });

  it('denies with the Deny failure policy', async () => {
    webhook.answer(() => ({ json: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'bad request body', reason: 'BadRequest', code: 400 }, status: 400 }));
    const webhookAuthz = await authorizer({ version: 'v1', failurePolicy: 'Deny' });
    await expect(webhookAuthz.authorize(healthz)).resolves.toEqual({ decision: 'deny', reason: '', error: 'bad request body' });
    expect(webhook.received).toHaveLength(1);
  });

  it('times out a webhook that never answers (the timeoutMs option)', async () => {
    webhook.answer(() => ({ hang: true }));
    const webhookAuthz = await authorizer({ version: 'v1', timeoutMs: 150 });
    await expect(webhookAuthz.authorize(healthz)).resolves.toEqual({
      decision: 'noOpinion', reason: '', error: `Post "${webhook.url}": context deadline exceeded`,
    });
  });

  it('fails on garbage, a wrongly typed status and an unknown CA', async () => {
    const webhookAuthz = await authorizer({ version: 'v1', failurePolicy: 'Deny' });
    webhook.answer(() => ({ text: 'garbage', contentType: 'application/json' }));
    expect(await webhookAuthz.authorize(healthz)).toMatchObject({ decision: 'deny', reason: '', error: expect.stringMatching(/^couldn't get version\/kind; json parse error/) });
    webhook.answer(() => status({ allowed: 'true' }));
    expect(await webhookAuthz.authorize(healthz)).toEqual({
      decision: 'deny', reason: '', error: 'json: cannot unmarshal string into Go struct field SubjectAccessReviewStatus.status.allowed of type bool',
    });
    const untrusted = webhookAuthorizer({ name: 'w', client: await client({ caPem: await unrelatedCaPem() }), version: 'v1', sleep: noSleep });
    expect(await untrusted.authorize(healthz)).toEqual({
      decision: 'noOpinion', reason: '', error: `Post "${webhook.url}": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    });
  });
});
