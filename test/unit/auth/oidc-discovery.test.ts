// Service account issuer discovery: kube's documents, media types and cache header, the
// conditions under which kube serves them at all, authorization by the authz hook, and a JWKS
// that a relying party (jose's local JWK set) verifies a minted token with.
import { generateKeyPairSync } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { JSONWebKeySet } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { authnPlugin } from '../../../api/auth/authn.ts';
import { authzPlugin } from '../../../api/auth/authz.ts';
import type { Authorizer } from '../../../api/auth/authz.ts';
import { oidcDiscoveryPlugin, openIdMetadata } from '../../../api/auth/oidc-discovery.ts';
import type { OpenIdMetadata } from '../../../api/auth/oidc-discovery.ts';
import { parseSigningKeyPem, publicKeyOf } from '../../../api/auth/service-account-keys.ts';
import { serviceAccountTokenIssuer } from '../../../api/auth/service-account-token.ts';
import { systemMastersAuthorizer } from '../../../api/index.ts';
import { admin, headerAuthenticator } from '../api/harness.ts';

const rsa = parseSigningKeyPem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
const ec = parseSigningKeyPem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString());
const issuerUrl = 'https://kubernetes.default.svc';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** Lets anyone read the discovery paths, as kube's system:service-account-issuer-discovery binding does for system:authenticated. */
const discoveryReaders: Authorizer = {
  name: 'discovery-readers',
  authorize: (attributes) => (
    !attributes.isResourceRequest && ['/.well-known/openid-configuration', '/openid/v1/jwks'].includes(attributes.path) && attributes.verb === 'get'
      ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' }
  ),
};

async function serve(metadata: OpenIdMetadata, authorizers: readonly Authorizer[]): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(authnPlugin, { authenticators: [headerAuthenticator] });
  await app.register(authzPlugin, { authorizers: [...authorizers] });
  await app.register(oidcDiscoveryPlugin, { metadata });
  apps.push(app);
  return app;
}

describe('openIdMetadata', () => {
  it('renders kube\'s configuration and key set', async () => {
    const metadata = await openIdMetadata({ issuer: issuerUrl, externalAddress: '10.0.0.1:6443', publicKeys: [publicKeyOf(rsa), publicKeyOf(ec), publicKeyOf(rsa)] });
    expect(metadata.configuration).toBe(JSON.stringify({
      issuer: issuerUrl, jwks_uri: 'https://10.0.0.1:6443/openid/v1/jwks', response_types_supported: ['id_token'], subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256', 'RS256'],
    }));
    const keys = (JSON.parse(metadata.keySet) as { keys: Record<string, string>[] }).keys;
    expect(keys.map((key) => Object.keys(key))).toEqual([['use', 'kty', 'kid', 'alg', 'n', 'e'], ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y'], ['use', 'kty', 'kid', 'alg', 'n', 'e']]);
    expect(keys[0]).toMatchObject({ use: 'sig', kty: 'RSA', kid: rsa.keyId, alg: 'RS256', e: 'AQAB' });
    expect(keys[1]).toMatchObject({ use: 'sig', kty: 'EC', kid: ec.keyId, crv: 'P-256', alg: 'ES256' });
    const explicit = await openIdMetadata({ issuer: issuerUrl, jwksUri: 'https://keys.example/jwks', publicKeys: [publicKeyOf(ec)] });
    expect(JSON.parse(explicit.configuration)).toMatchObject({ jwks_uri: 'https://keys.example/jwks' });
  });

  it('refuses what kube refuses, so the endpoints are left out', async () => {
    const keys = [publicKeyOf(rsa)];
    await expect(openIdMetadata({ issuer: 'kubernetes/serviceaccount', externalAddress: 'a', publicKeys: keys })).rejects.toThrow();
    await expect(openIdMetadata({ issuer: 'http://kube.example', externalAddress: 'a', publicKeys: keys })).rejects.toThrow('issuer URL must use https scheme, got: http://kube.example');
    await expect(openIdMetadata({ issuer: 'https://kube.example?x=1', externalAddress: 'a', publicKeys: keys })).rejects.toThrow('issuer URL may not include a query, got: https://kube.example?x=1');
    await expect(openIdMetadata({ issuer: 'https://kube.example#f', externalAddress: 'a', publicKeys: keys })).rejects.toThrow('issuer URL may not include a fragment, got: https://kube.example#f');
    await expect(openIdMetadata({ issuer: issuerUrl, publicKeys: keys })).rejects.toThrow('either the JWKS URI or the default external address, or both, must be set');
    await expect(openIdMetadata({ issuer: issuerUrl, jwksUri: 'http://keys.example/jwks', publicKeys: keys })).rejects.toThrow('jwksURI requires https scheme');
    await expect(openIdMetadata({ issuer: issuerUrl, externalAddress: 'a', publicKeys: [] })).rejects.toThrow('no keys provided for validating keyset');
  });
});

describe('the discovery endpoints', () => {
  it('serve both documents with kube\'s media types and Cache-Control, and a JWKS that verifies a minted token', async () => {
    const metadata = await openIdMetadata({ issuer: issuerUrl, externalAddress: 'kube.example', publicKeys: [publicKeyOf(ec), publicKeyOf(rsa)] });
    const app = await serve(metadata, [discoveryReaders]);
    const configuration = await app.inject({ method: 'GET', url: '/.well-known/openid-configuration', headers: { 'x-test-user': 'alice' } });
    expect(configuration.statusCode).toBe(200);
    expect(configuration.headers['content-type']).toBe('application/json');
    expect(configuration.headers['cache-control']).toBe('public, max-age=3600');
    expect(configuration.body).toBe(metadata.configuration);
    const jwks = await app.inject({ method: 'GET', url: '/openid/v1/jwks', headers: { 'x-test-user': 'alice' } });
    expect([jwks.statusCode, jwks.headers['content-type'], jwks.headers['cache-control']]).toEqual([200, 'application/jwk-set+json', 'public, max-age=3600']);
    const keySet = createLocalJWKSet(JSON.parse(jwks.body) as JSONWebKeySet);
    for (const signingKey of [rsa, ec]) {
      const issuer = serviceAccountTokenIssuer({ signingKey, issuer: issuerUrl, apiAudiences: [issuerUrl] });
      const { token } = await issuer.mint({ serviceAccount: { namespace: 'ci', name: 'builder', uid: 'u' }, audiences: ['vault'], expirationSeconds: 600 });
      const { payload, protectedHeader } = await jwtVerify(token, keySet, { issuer: issuerUrl, audience: 'vault' });
      expect([payload.sub, protectedHeader.kid]).toEqual(['system:serviceaccount:ci:builder', signingKey.keyId]);
    }
  });

  it('are authorized by the authz hook like any non-resource path', async () => {
    const metadata = await openIdMetadata({ issuer: issuerUrl, externalAddress: 'kube.example', publicKeys: [publicKeyOf(ec)] });
    const app = await serve(metadata, [systemMastersAuthorizer]);
    const refused = await app.inject({ method: 'GET', url: '/openid/v1/jwks', headers: { 'x-test-user': 'alice' } });
    expect(refused.statusCode).toBe(403);
    expect((JSON.parse(refused.body) as { message: string }).message).toBe('forbidden: User "alice" cannot get path "/openid/v1/jwks"');
    expect((await app.inject({ method: 'GET', url: '/openid/v1/jwks', headers: admin })).statusCode).toBe(200);
  });
});
