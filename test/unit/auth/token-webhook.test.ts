// The webhook token authenticator against a real HTTPS review webhook: the TokenReview the
// webhook receives (v1beta1 by default, v1), the user it answers (system:authenticated added as
// kube's group adder does), audiences, unauthenticated answers, kube's cache (answers without
// errors, for the TTL, on an injected clock; concurrent lookups share one call) and failures
// (5xx with retries, timeout, garbage, wrong version, unknown CA), never with the token in a reason.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticateToken } from '../../../api/auth/authn.ts';
import { tokenWebhookAuthenticator } from '../../../api/auth/token-webhook.ts';
import type { TokenWebhookOptions } from '../../../api/auth/token-webhook.ts';
import { webhookClientFromKubeconfig } from '../../../api/auth/webhook-kubeconfig.ts';
import type { WebhookClient } from '../../../api/auth/webhook-kubeconfig.ts';
import { startReviewWebhook, unrelatedCaPem } from '../../support/review-webhook.ts';
import type { ReviewWebhook } from '../../support/review-webhook.ts';

const token = 'secret-token-0123456789';
let webhook: ReviewWebhook;
const clients: WebhookClient[] = [];
let clock = 1_000_000;
const now = () => clock;
const noSleep = async () => undefined;

beforeEach(async () => {
  webhook = await startReviewWebhook();
  clock = 1_000_000;
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await webhook.close();
});

async function client(timeoutMs?: number, caPem?: string): Promise<WebhookClient> {
  const created = webhookClientFromKubeconfig(await webhook.writeKubeconfig(caPem === undefined ? {} : { caPem }), timeoutMs === undefined ? {} : { timeoutMs });
  clients.push(created);
  return created;
}

async function authenticator(options: Partial<TokenWebhookOptions> = {}) {
  return tokenWebhookAuthenticator({ client: await client(), now, sleep: noSleep, ...options });
}

function answer(status: Record<string, unknown>, apiVersion = 'authentication.k8s.io/v1beta1') {
  return { json: { apiVersion, kind: 'TokenReview', status } };
}

describe('asking the webhook', () => {
  it('sends a v1beta1 TokenReview by default and returns the user it names, in system:authenticated', async () => {
    webhook.answer(() => answer({ authenticated: true, user: { username: 'jane', uid: 'u-1', groups: ['devs'], extra: { scopes: ['a', 'b'] } } }));
    const authenticate = await authenticator();
    await expect(authenticate(token)).resolves.toEqual({
      type: 'authenticated', user: { name: 'jane', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } },
    });
    expect(webhook.received.map((review) => review.body)).toEqual([{
      kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1beta1', metadata: { creationTimestamp: null }, spec: { token }, status: { user: {} },
    }]);
  });

  it('sends v1 with the API audiences and keeps the audiences both name', async () => {
    webhook.answer(() => answer({ authenticated: true, user: { username: 'jane' }, audiences: ['api', 'other'] }, 'authentication.k8s.io/v1'));
    const authenticate = await authenticator({ version: 'v1', apiAudiences: ['api', 'extra'] });
    await expect(authenticate(token)).resolves.toEqual({
      type: 'authenticated', user: { name: 'jane', uid: '', groups: ['system:authenticated'], extra: {} }, audiences: ['api'],
    });
    expect(webhook.received[0]?.body).toEqual({
      kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec: { token, audiences: ['api', 'extra'] }, status: { user: {} },
    });
  });

  it('takes the API audiences when the webhook names none, and leaves a token for other audiences alone', async () => {
    webhook.answer(() => answer({ authenticated: true, user: { username: 'jane' } }));
    await expect((await authenticator({ apiAudiences: ['api'] }))(token)).resolves.toMatchObject({ type: 'authenticated', audiences: ['api'] });
    webhook.answer(() => answer({ authenticated: true, user: { username: 'jane' }, audiences: ['elsewhere'] }));
    await expect((await authenticator({ apiAudiences: ['api'] }))(token)).resolves.toEqual({ type: 'noCredentials' });
  });

  it('does not add system:authenticated twice, nor to system:anonymous or a system:unauthenticated user', async () => {
    const users = [
      { username: 'a', groups: ['system:authenticated', 'x'] },
      { username: 'system:anonymous', groups: ['y'] },
      { username: 'b', groups: ['system:unauthenticated'] },
    ];
    webhook.answer((_, index) => answer({ authenticated: true, user: users[index] }));
    const authenticate = await authenticator();
    const groups: (readonly string[])[] = [];
    for (const name of ['t1', 't2', 't3']) {
      const result = await authenticate(name);
      groups.push(result.type === 'authenticated' ? result.user.groups : []);
    }
    expect(groups).toEqual([['system:authenticated', 'x'], ['y'], ['system:unauthenticated']]);
  });

  it('leaves an unauthenticated token to the other authenticators (the union says invalid bearer token)', async () => {
    webhook.answer(() => answer({ authenticated: false }));
    const authenticate = await authenticator();
    await expect(authenticate(token)).resolves.toEqual({ type: 'noCredentials' });
    await expect(authenticateToken(token, [authenticate])).resolves.toEqual({ type: 'rejected', reason: 'invalid bearer token' });
  });

  it('rejects with status.error, redacting the token, and does not cache it', async () => {
    webhook.answer((review) => answer({ authenticated: false, error: `token ${String(review.spec.token)} has expired` }));
    const authenticate = await authenticator();
    await expect(authenticate(token)).resolves.toEqual({ type: 'rejected', reason: 'token [redacted] has expired' });
    await authenticate(token);
    expect(webhook.received).toHaveLength(2);
  });

  it('refuses an unsupported version', async () => {
    const created = await client();
    expect(() => tokenWebhookAuthenticator({ client: created, version: 'v2' }))
      .toThrow('unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"');
  });
});

describe('caching', () => {
  it('reuses an answer for the TTL (authenticated and unauthenticated alike), then asks again', async () => {
    webhook.answer((review) => answer(review.spec.token === token ? { authenticated: true, user: { username: 'jane' } } : { authenticated: false }));
    const authenticate = await authenticator({ cacheTtlMs: 120_000 });
    await authenticate(token);
    await authenticate('unknown-token');
    clock += 119_000;
    await expect(authenticate(token)).resolves.toMatchObject({ type: 'authenticated' });
    await expect(authenticate('unknown-token')).resolves.toEqual({ type: 'noCredentials' });
    expect(webhook.received).toHaveLength(2);
    clock += 1_000;
    await authenticate(token);
    expect(webhook.received).toHaveLength(3);
  });

  it('caches nothing with a TTL of 0, and shares one call among concurrent lookups of a token', async () => {
    webhook.answer(() => answer({ authenticated: true, user: { username: 'jane' } }));
    const uncached = await authenticator({ cacheTtlMs: 0 });
    await uncached(token);
    await uncached(token);
    expect(webhook.received).toHaveLength(2);
    const shared = await authenticator({ cacheTtlMs: 0 });
    const results = await Promise.all([shared(token), shared(token), shared(token)]);
    expect(results.every((result) => result.type === 'authenticated')).toBe(true);
    expect(webhook.received).toHaveLength(3);
  });
});

describe('a webhook that fails', () => {
  it('retries a 500 five times, then rejects without the token (even if the webhook echoes it), uncached', async () => {
    webhook.answer((review) => ({ text: `cannot check ${String(review.spec.token)}`, status: 500 }));
    const authenticate = await authenticator();
    const result = await authenticate(token);
    expect(result).toEqual({ type: 'rejected', reason: 'an error on the server ("cannot check [redacted]") has prevented the request from succeeding' });
    expect(webhook.received).toHaveLength(5);
    webhook.answer(() => answer({ authenticated: true, user: { username: 'jane' } }));
    await expect(authenticate(token)).resolves.toMatchObject({ type: 'authenticated' });
  });

  it('rejects after the timeout when the webhook never answers', async () => {
    webhook.answer(() => ({ hang: true }));
    const authenticate = tokenWebhookAuthenticator({ client: await client(150), now, sleep: noSleep });
    const result = await authenticate(token);
    expect(result).toEqual({ type: 'rejected', reason: `Post "${webhook.url}": context deadline exceeded` });
  });

  it('rejects garbage, another version, a wrongly typed field and an unknown CA', async () => {
    const authenticate = await authenticator();
    webhook.answer(() => ({ text: '{not json', contentType: 'application/json' }));
    expect(await authenticate('t1')).toMatchObject({ type: 'rejected', reason: expect.stringMatching(/^couldn't get version\/kind; json parse error/) });
    webhook.answer(() => answer({ authenticated: true }, 'authentication.k8s.io/v1'));
    expect(await authenticate('t2')).toEqual({ type: 'rejected', reason: 'converting (v1.TokenReview) to (v1beta1.TokenReview): unknown conversion' });
    webhook.answer(() => answer({ authenticated: 'yes' }));
    expect(await authenticate('t3')).toEqual({
      type: 'rejected', reason: 'json: cannot unmarshal string into Go struct field TokenReviewStatus.status.authenticated of type bool',
    });
    const untrusted = tokenWebhookAuthenticator({ client: await client(undefined, await unrelatedCaPem()), now, sleep: noSleep });
    expect(await untrusted(token)).toEqual({
      type: 'rejected', reason: `Post "${webhook.url}": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    });
  });
});
