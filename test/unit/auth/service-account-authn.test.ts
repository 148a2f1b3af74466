// The service account token authenticator over an in-memory state: bound tokens checked against
// their service account, pod, secret and node (deletions with kube's 60 s leeway), legacy secret
// tokens with and without --service-account-lookup, and the user kube makes of a token.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KubeObject, ObjectKey } from '../../../actors/index.ts';
import { serviceAccountTokenAuthenticator } from '../../../api/auth/service-account-authn.ts';
import { parseSigningKeyPem, publicKeyOf } from '../../../api/auth/service-account-keys.ts';
import { serviceAccountTokenIssuer } from '../../../api/auth/service-account-token.ts';
import type { BoundTokenSpec } from '../../../api/auth/service-account-token.ts';

const signingKey = parseSigningKeyPem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString());
const issuerUrl = 'https://kubernetes.default.svc';
const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

class State {
  readonly objects = new Map<string, KubeObject>();
  static key(k: ObjectKey): string {
    return `${k.resource}/${k.namespace}/${k.name}`;
  }
  get(key: ObjectKey): KubeObject | undefined {
    return this.objects.get(State.key(key));
  }
  put(resource: string, namespace: string, name: string, uid: string, extra: Partial<KubeObject['metadata']> = {}, fields: Record<string, unknown> = {}): void {
    this.objects.set(`${resource}/${namespace}/${name}`, { apiVersion: 'v1', kind: resource, metadata: { name, namespace, uid, ...extra }, ...fields } as KubeObject);
  }
}

function world(options: { lookup?: boolean; audiences?: string[] } = {}) {
  const state = new State();
  const clock = { ms: t0 };
  const now = () => new Date(clock.ms);
  const issuer = serviceAccountTokenIssuer({ signingKey, issuer: issuerUrl, apiAudiences: [issuerUrl], now, newJti: () => 'a1b2' });
  const authenticate = serviceAccountTokenAuthenticator({
    publicKeys: [publicKeyOf(signingKey)], issuers: [issuerUrl], apiAudiences: options.audiences ?? [issuerUrl], reader: state, now,
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
  });
  state.put('serviceaccounts', 'ci', 'builder', 'sa-uid');
  const mint = async (spec: Partial<BoundTokenSpec> = {}) => (await issuer.mint({
    serviceAccount: { namespace: 'ci', name: 'builder', uid: 'sa-uid' }, audiences: [issuerUrl], expirationSeconds: 3600, ...spec,
  })).token;
  return { state, clock, issuer, authenticate, mint };
}

describe('bound tokens', () => {
  it('authenticate as the service account, with kube\'s groups, uid, credential id and audiences', async () => {
    const w = world();
    expect(await w.authenticate(await w.mint())).toEqual({
      type: 'authenticated', audiences: [issuerUrl],
      user: {
        name: 'system:serviceaccount:ci:builder', uid: 'sa-uid',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': ['JTI=a1b2'] },
      },
    });
  });

  it('leave tokens that are not theirs to the next authenticator', async () => {
    const w = world();
    expect(await w.authenticate('abcdef.0123456789abcdef')).toEqual({ type: 'noCredentials' });
    const other = serviceAccountTokenIssuer({ signingKey, issuer: 'https://other', apiAudiences: [], now: () => new Date(t0) });
    const token = (await other.mint({ serviceAccount: { namespace: 'ci', name: 'builder', uid: 'sa-uid' }, audiences: [issuerUrl], expirationSeconds: 600 })).token;
    expect(await w.authenticate(token)).toEqual({ type: 'noCredentials' });
  });

  it('are rejected when tampered with, expired past the leeway, or for other audiences', async () => {
    const w = world();
    const token = await w.mint();
    const tampered = `${token.slice(0, token.lastIndexOf('.') + 1)}${'A'.repeat(86)}`;
    expect((await w.authenticate(tampered)).type).toBe('rejected');
    w.clock.ms = t0 + 3600_000 + 60_000;
    expect((await w.authenticate(token)).type).toBe('authenticated');
    w.clock.ms = t0 + 3600_000 + 61_000;
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'service account token has expired' });
    w.clock.ms = t0;
    const elsewhere = await w.mint({ audiences: ['vault'] });
    const result = await w.authenticate(elsewhere);
    expect(result.type).toBe('rejected');
    if (result.type === 'rejected') {
      expect(result.reason).toBe(`token audiences ["vault"] is invalid for the target audiences ["${issuerUrl}"]`);
      expect(result.reason).not.toContain(elsewhere);
    }
  });

  it('stop working when the service account is gone, recreated, or deleted longer ago than the leeway', async () => {
    const w = world();
    const token = await w.mint();
    w.state.put('serviceaccounts', 'ci', 'builder', 'sa-uid', { deletionTimestamp: iso(t0 - 30_000) });
    expect((await w.authenticate(token)).type).toBe('authenticated');
    w.state.put('serviceaccounts', 'ci', 'builder', 'sa-uid', { deletionTimestamp: iso(t0 - 61_000) });
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'service account ci/builder has been deleted' });
    w.state.put('serviceaccounts', 'ci', 'builder', 'new-uid');
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'service account UID (new-uid) does not match claim (sa-uid)' });
    w.state.objects.clear();
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'serviceaccounts "builder" not found' });
  });

  it('bound to a pod carry its name, uid and node, and die with the pod', async () => {
    const w = world();
    w.state.put('pods', 'ci', 'runner', 'pod-uid');
    const token = await w.mint({ pod: { name: 'runner', uid: 'pod-uid' }, node: { name: 'node-1', uid: 'node-uid' } });
    const result = await w.authenticate(token);
    expect(result.type === 'authenticated' && result.user.extra).toEqual({
      'authentication.kubernetes.io/pod-name': ['runner'], 'authentication.kubernetes.io/pod-uid': ['pod-uid'],
      'authentication.kubernetes.io/credential-id': ['JTI=a1b2'],
      'authentication.kubernetes.io/node-name': ['node-1'], 'authentication.kubernetes.io/node-uid': ['node-uid'],
    });
    w.state.put('pods', 'ci', 'runner', 'pod-uid', { deletionTimestamp: iso(t0 - 120_000) });
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'service account token has been invalidated' });
    w.state.put('pods', 'ci', 'runner', 'other');
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'pod UID (other) does not match service account pod ref claim (pod-uid)' });
    w.state.objects.delete('pods/ci/runner');
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'service account token has been invalidated' });
  });

  it('bound to a secret or a node alone are checked against it, even without --service-account-lookup', async () => {
    const w = world({ lookup: false });
    w.state.put('secrets', 'ci', 'anchor', 'sec-uid');
    w.state.put('nodes', '', 'node-1', 'node-uid');
    const secretBound = await w.mint({ secret: { name: 'anchor', uid: 'sec-uid' } });
    const nodeBound = await w.mint({ node: { name: 'node-1', uid: 'node-uid' } });
    expect((await w.authenticate(secretBound)).type).toBe('authenticated');
    const nodeUser = await w.authenticate(nodeBound);
    expect(nodeUser.type === 'authenticated' && nodeUser.user.extra['authentication.kubernetes.io/node-name']).toEqual(['node-1']);
    w.state.objects.delete('secrets/ci/anchor');
    w.state.put('nodes', '', 'node-1', 'replaced');
    expect(await w.authenticate(secretBound)).toEqual({ type: 'rejected', reason: 'service account token has been invalidated' });
    expect(await w.authenticate(nodeBound)).toEqual({ type: 'rejected', reason: 'node UID (replaced) does not match service account node ref claim (node-uid)' });
  });
});

describe('legacy secret tokens', () => {
  async function legacySetup(lookup?: boolean) {
    const w = world(lookup === undefined ? {} : { lookup });
    const token = await w.issuer.mintLegacy({ serviceAccount: { namespace: 'ci', name: 'builder', uid: 'sa-uid' }, secretName: 'builder-token' });
    const secret = (value: string, labels: Record<string, string> = {}) => w.state.put('secrets', 'ci', 'builder-token', 'sec-uid', { labels }, {
      type: 'kubernetes.io/service-account-token', data: { token: Buffer.from(value).toString('base64') },
    });
    return { w, token, secret };
  }

  it('authenticate while their Secret holds exactly them (lookup on by default), without extra', async () => {
    const { w, token, secret } = await legacySetup();
    secret(token);
    expect(await w.authenticate(token)).toEqual({
      type: 'authenticated', audiences: [issuerUrl],
      user: { name: 'system:serviceaccount:ci:builder', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'], extra: {} },
    });
    secret(`${token}x`);
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: "Token does not match server's copy" });
    w.state.objects.delete('secrets/ci/builder-token');
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'Token has been invalidated' });
  });

  it('are refused when the account changed or the token was marked invalid', async () => {
    const { w, token, secret } = await legacySetup();
    secret(token, { 'kubernetes.io/legacy-token-invalid-since': '2025-12-01' });
    const marked = await w.authenticate(token);
    expect(marked.type === 'rejected' && marked.reason).toMatch(/^the token in secret ci\/builder-token for service account ci\/builder has been marked invalid/);
    secret(token);
    w.state.put('serviceaccounts', 'ci', 'builder', 'other-uid');
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'ServiceAccount UID (other-uid) does not match claim (sa-uid)' });
    w.state.put('serviceaccounts', 'ci', 'builder', 'sa-uid', { deletionTimestamp: iso(t0) });
    expect(await w.authenticate(token)).toEqual({ type: 'rejected', reason: 'ServiceAccount ci/builder has been deleted' });
  });

  it('with --service-account-lookup=false are taken on their signature and claims alone', async () => {
    const { w, token } = await legacySetup(false);
    w.state.objects.clear();
    expect((await w.authenticate(token)).type).toBe('authenticated');
  });
});
