// Service account JWTs as kube mints and reads them: header {alg, kid}, payload keys in Go's
// sorted order, aud always an array, the kubernetes.io private claim, legacy claims; and the
// verifier's verdicts: foreign (not ours), rejected (ours, invalid) with reasons that never carry
// the token, verified with the audiences the token was accepted for.
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import { parseSigningKeyPem, publicKeyOf } from '../../../api/auth/service-account-keys.ts';
import {
  boundTokenTimeProblem, legacyIssuer, legacyTokenClaimProblem, serviceAccountTokenIssuer, serviceAccountTokenVerifier, splitServiceAccountUsername,
} from '../../../api/auth/service-account-token.ts';
import type { BoundTokenClaims } from '../../../api/auth/service-account-token.ts';

const pemOf = (key: KeyObject, type: 'pkcs1' | 'sec1'): string => key.export({ type, format: 'pem' }).toString();
const rsaKey = parseSigningKeyPem(pemOf(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, 'pkcs1'));
const ecKey = parseSigningKeyPem(pemOf(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey, 'sec1'));
const issuerUrl = 'https://kubernetes.default.svc.cluster.local';
const t0 = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
const account = { namespace: 'default', name: 'builder', uid: 'sa-uid-1' };

function payloadText(token: string): string {
  return Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8');
}

function issuerWith(key = rsaKey, now = () => t0) {
  return serviceAccountTokenIssuer({ signingKey: key, issuer: issuerUrl, apiAudiences: [issuerUrl], now, newJti: () => 'jti-1' });
}

describe('minting', () => {
  it('writes kube\'s bound token: {alg, kid} header, sorted claims, array aud, kubernetes.io claim', async () => {
    const minted = await issuerWith().mint({
      serviceAccount: account, audiences: ['api'], expirationSeconds: 3600,
      pod: { name: 'web-0', uid: 'pod-uid' }, node: { name: 'n1', uid: 'node-uid' },
    });
    expect(decodeProtectedHeader(minted.token)).toEqual({ alg: 'RS256', kid: rsaKey.keyId });
    const t = t0.getTime() / 1000;
    expect(payloadText(minted.token)).toBe(JSON.stringify({
      aud: ['api'], exp: t + 3600, iat: t, iss: issuerUrl, jti: 'jti-1',
      'kubernetes.io': { namespace: 'default', node: { name: 'n1', uid: 'node-uid' }, pod: { name: 'web-0', uid: 'pod-uid' }, serviceaccount: { name: 'builder', uid: 'sa-uid-1' } },
      nbf: t, sub: 'system:serviceaccount:default:builder',
    }));
    expect(minted.expiresAt.toISOString()).toBe('2026-01-01T13:00:00.000Z');
    expect(minted.jti).toBe('jti-1');
  });

  it('signs with ES384 for a P-384 key, adds warnafter when asked, and uses a fresh UUID jti by default', async () => {
    const issuer = serviceAccountTokenIssuer({ signingKey: ecKey, issuer: issuerUrl, apiAudiences: [issuerUrl], now: () => t0 });
    const first = await issuer.mint({ serviceAccount: account, audiences: [issuerUrl], expirationSeconds: 600, warnAfterSeconds: 3607 });
    const second = await issuer.mint({ serviceAccount: account, audiences: [issuerUrl], expirationSeconds: 600 });
    expect(decodeProtectedHeader(first.token).alg).toBe('ES384');
    expect((JSON.parse(payloadText(first.token)) as { 'kubernetes.io': { warnafter: number } })['kubernetes.io'].warnafter).toBe(t0.getTime() / 1000 + 3607);
    expect(first.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.jti).not.toBe(first.jti);
  });

  it('refuses a token bound to a secret and a pod at once', async () => {
    await expect(issuerWith().mint({ serviceAccount: account, audiences: ['a'], expirationSeconds: 600, secret: { name: 's', uid: 'u' }, pod: { name: 'p', uid: 'v' } }))
      .rejects.toThrow('internal error, token can only be bound to one object type');
  });

  it('writes legacy secret tokens with the legacy issuer and claims', async () => {
    const token = await issuerWith().mintLegacy({ serviceAccount: account, secretName: 'builder-token' });
    expect(JSON.parse(payloadText(token))).toEqual({
      iss: legacyIssuer, 'kubernetes.io/serviceaccount/namespace': 'default', 'kubernetes.io/serviceaccount/secret.name': 'builder-token',
      'kubernetes.io/serviceaccount/service-account.name': 'builder', 'kubernetes.io/serviceaccount/service-account.uid': 'sa-uid-1',
      sub: 'system:serviceaccount:default:builder',
    });
  });
});

describe('verifying', () => {
  const verify = serviceAccountTokenVerifier({ publicKeys: [publicKeyOf(ecKey), publicKeyOf(rsaKey)], issuers: [issuerUrl, 'https://old.example'], apiAudiences: [issuerUrl, 'api'] });

  it('verifies a token of each key, keeping the audiences it was accepted for', async () => {
    const minted = await issuerWith().mint({ serviceAccount: account, audiences: ['api', 'other'], expirationSeconds: 3600 });
    const result = await verify(minted.token);
    expect(result.type).toBe('verified');
    if (result.type !== 'verified') return;
    expect(result.audiences).toEqual(['api']);
    expect(result.claims).toMatchObject({ kind: 'bound', namespace: 'default', serviceAccount: { name: 'builder', uid: 'sa-uid-1' }, jti: 'jti-1' });
    expect((await verify((await issuerWith(ecKey).mint({ serviceAccount: account, audiences: ['api'], expirationSeconds: 600 })).token)).type).toBe('verified');
  });

  it('leaves anything not ours to other authenticators: not a JWT, JSON, a foreign issuer, bad base64', async () => {
    const foreign = serviceAccountTokenIssuer({ signingKey: rsaKey, issuer: 'https://elsewhere', apiAudiences: [], now: () => t0 });
    const token = (await foreign.mint({ serviceAccount: account, audiences: ['api'], expirationSeconds: 600 })).token;
    for (const candidate of ['abcdef.0123456789abcdef', '{"iss":"kubernetes/serviceaccount"}', token, 'a.b+c.d', 'x.y.z']) {
      expect(await verify(candidate)).toEqual({ type: 'foreign' });
    }
  });

  it('rejects a tampered token of ours without echoing it', async () => {
    const minted = await issuerWith().mint({ serviceAccount: account, audiences: ['api'], expirationSeconds: 600 });
    const [header, payload] = minted.token.split('.');
    const changed = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    changed['sub'] = 'system:serviceaccount:kube-system:admin';
    const forged = `${header}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${minted.token.split('.')[2]}`;
    const result = await verify(forged);
    expect(result).toEqual({ type: 'rejected', reason: 'go-jose/go-jose: error in cryptographic primitive' });
    const badSignature = `${minted.token.slice(0, -4)}AAAA`;
    const second = await verify(badSignature);
    expect(second.type).toBe('rejected');
    if (second.type === 'rejected') expect(second.reason).not.toContain(minted.token.split('.')[2]!.slice(0, 20));
  });

  it('uses the keys of the token\'s kid only, and all keys when it has none', async () => {
    const stranger = parseSigningKeyPem(pemOf(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, 'pkcs1'));
    const minted = await issuerWith(stranger).mint({ serviceAccount: account, audiences: ['api'], expirationSeconds: 600 });
    expect(await verify(minted.token)).toEqual({ type: 'rejected', reason: 'invalid signature, no keys found' });
    const withoutKid = serviceAccountTokenVerifier({ publicKeys: [{ ...publicKeyOf(ecKey), keyId: 'x' }, { ...publicKeyOf(rsaKey), keyId: 'y' }], issuers: [issuerUrl], apiAudiences: ['api'] });
    const good = await issuerWith().mint({ serviceAccount: account, audiences: ['api'], expirationSeconds: 600 });
    // Keys listed under other ids do not match the kid...
    expect((await withoutKid(good.token)).type).toBe('rejected');
    // ...but a token without kid is tried against every key.
    const { CompactSign } = await import('jose');
    const bare = await new CompactSign(new TextEncoder().encode(payloadText(good.token))).setProtectedHeader({ alg: 'RS256' }).sign(rsaKey.privateKey);
    expect((await withoutKid(bare)).type).toBe('verified');
  });

  it('rejects audiences that miss the API audiences, naming both lists as Go prints them', async () => {
    const minted = await issuerWith().mint({ serviceAccount: account, audiences: ['vault', 'db'], expirationSeconds: 600 });
    expect(await verify(minted.token)).toEqual({ type: 'rejected', reason: `token audiences ["vault" "db"] is invalid for the target audiences ["${issuerUrl}" "api"]` });
  });

  it('accepts every configured issuer and the legacy one; a legacy token without aud gets the API audiences', async () => {
    const old = serviceAccountTokenIssuer({ signingKey: rsaKey, issuer: 'https://old.example', apiAudiences: [], now: () => t0 });
    expect((await verify((await old.mint({ serviceAccount: account, audiences: ['api'], expirationSeconds: 600 })).token)).type).toBe('verified');
    const legacy = await verify(await issuerWith().mintLegacy({ serviceAccount: account, secretName: 's' }));
    expect(legacy.type === 'verified' && legacy.claims.kind === 'legacy' && legacy.audiences).toEqual([issuerUrl, 'api']);
  });
});

describe('claim checks', () => {
  const claims = (times: Partial<BoundTokenClaims>): BoundTokenClaims => ({
    kind: 'bound', issuer: issuerUrl, subject: '', audiences: [], jti: '', namespace: 'default', serviceAccount: { name: 'a', uid: 'b' }, ...times,
  });
  const at = t0.getTime() / 1000;

  it('applies go-jose\'s 60 s leeway to exp, nbf and iat', () => {
    expect(boundTokenTimeProblem(claims({ expiresAt: at - 60 }), t0)).toBeUndefined();
    expect(boundTokenTimeProblem(claims({ expiresAt: at - 61 }), t0)).toBe('service account token has expired');
    expect(boundTokenTimeProblem(claims({ notBefore: at + 60 }), t0)).toBeUndefined();
    expect(boundTokenTimeProblem(claims({ notBefore: at + 61 }), t0)).toBe('service account token is not valid yet');
    expect(boundTokenTimeProblem(claims({ issuedAt: at + 61 }), t0)).toBe('service account token is issued in the future');
    expect(boundTokenTimeProblem(claims({}), t0)).toBeUndefined();
  });

  it('checks legacy claims as kube\'s legacy validator does', () => {
    const legacy = { kind: 'legacy' as const, subject: 'system:serviceaccount:default:builder', audiences: [], namespace: 'default', secretName: 's', serviceAccountName: 'builder', serviceAccountUid: 'u' };
    expect(legacyTokenClaimProblem(legacy)).toBeUndefined();
    expect(legacyTokenClaimProblem({ ...legacy, secretName: '' })).toBe('secretName claim is missing');
    expect(legacyTokenClaimProblem({ ...legacy, serviceAccountUid: '' })).toBe('serviceAccountUID claim is missing');
    expect(legacyTokenClaimProblem({ ...legacy, subject: 'system:serviceaccount:other:builder' })).toBe('sub claim is invalid');
    expect(splitServiceAccountUsername('system:serviceaccount:Bad:x')).toBeUndefined();
    expect(splitServiceAccountUsername('system:serviceaccount:ns:a.b')).toEqual(['ns', 'a.b']);
  });
});
