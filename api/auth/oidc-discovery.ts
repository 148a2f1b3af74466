// Owns: service account issuer discovery, GET /.well-known/openid-configuration and GET
// /openid/v1/jwks, as kube-apiserver serves them (pkg/serviceaccount/openidmetadata.go and
// pkg/routes/openidmetadata.go). Both documents are rendered once, from the first
// --service-account-issuer and the --service-account-key-file keys: the configuration {issuer,
// jwks_uri (--service-account-jwks-uri, else https://<external address>/openid/v1/jwks),
// response_types_supported ["id_token"], subject_types_supported ["public"],
// id_token_signing_alg_values_supported (the keys' algorithms, sorted, once each)} as
// application/json, and the key set {keys: [{use "sig", kty, kid, crv, alg, x, y, n, e}]} as
// application/jwk-set+json, both with Cache-Control: public, max-age=3600. As in kube, the
// endpoints exist only when the documents can be made: the issuer must be an https URL without
// query or fragment, the JWKS URI https, and there must be keys; otherwise openIdMetadata throws
// kube's reason and the caller leaves the endpoints out (kube logs it and goes on). Who may read
// them is the authz hook's business (kube's system:service-account-issuer-discovery role).
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { exportJWK } from 'jose';
import type { ServiceAccountPublicKey } from './service-account-keys.ts';

export const openIdConfigurationPath = '/.well-known/openid-configuration';
export const jwksPath = '/openid/v1/jwks';
export const jwksMediaType = 'application/jwk-set+json';
export const discoveryCacheControl = 'public, max-age=3600';

export interface OpenIdMetadataOptions {
  /** The first --service-account-issuer. */
  readonly issuer: string;
  /** --service-account-jwks-uri. */
  readonly jwksUri?: string;
  /** The server's external address (host[:port]) the default JWKS URI is built on. */
  readonly externalAddress?: string;
  /** --service-account-key-file's keys. */
  readonly publicKeys: readonly ServiceAccountPublicKey[];
}

/** The two rendered documents. */
export interface OpenIdMetadata {
  readonly configuration: string;
  readonly keySet: string;
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new Error(`parse ${JSON.stringify(text)}: invalid URI for request`);
  }
}

/** The JWKS URI kube publishes (an explicit https one, or https://<external address>/openid/v1/jwks). */
function jwksUriOf(jwksUri: string | undefined, externalAddress: string | undefined): string {
  if (jwksUri !== undefined && jwksUri !== '') {
    const parsed = parseUrl(jwksUri);
    if (parsed.protocol !== 'https:') throw new Error(`jwksURI requires https scheme, parsed as: ${jwksUri}`);
    return jwksUri;
  }
  const address = externalAddress ?? '';
  const built = `https://${address}${jwksPath}`;
  let parsed: URL | undefined;
  try {
    parsed = new URL(built);
  } catch {
    parsed = undefined;
  }
  if (address === '' || parsed === undefined || parsed.host !== address.toLowerCase() || parsed.pathname !== jwksPath) {
    throw new Error(`attempted to build jwks_uri from external address ${address}, but could not construct a valid URL. Error: ${address === '' ? 'empty address' : `got ${built}`}`);
  }
  return built;
}

/** One key as go-jose writes a public JSONWebKey (its field order). */
async function jwkOf(key: ServiceAccountPublicKey): Promise<Record<string, string>> {
  const jwk = await exportJWK(key.publicKey);
  const fields: Record<string, string | undefined> = {
    use: 'sig', kty: jwk.kty, kid: key.keyId, crv: jwk.crv, alg: key.algorithm, x: jwk.x, y: jwk.y, n: jwk.n, e: jwk.e,
  };
  return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** kube's NewOpenIDMetadataProvider: the rendered documents, or an Error saying why discovery cannot be served. */
export async function openIdMetadata(options: OpenIdMetadataOptions): Promise<OpenIdMetadata> {
  if (options.issuer === '') throw new Error('empty issuer URL');
  if ((options.jwksUri ?? '') === '' && (options.externalAddress ?? '') === '') {
    throw new Error('either the JWKS URI or the default external address, or both, must be set');
  }
  const issuer = parseUrl(options.issuer);
  if (issuer.protocol !== 'https:') throw new Error(`issuer URL must use https scheme, got: ${options.issuer}`);
  if (issuer.search !== '') throw new Error(`issuer URL may not include a query, got: ${options.issuer}`);
  if (issuer.hash !== '') throw new Error(`issuer URL may not include a fragment, got: ${options.issuer}`);
  const jwksUri = jwksUriOf(options.jwksUri, options.externalAddress);
  if (options.publicKeys.length === 0) throw new Error('no keys provided for validating keyset');
  const keys = await Promise.all(options.publicKeys.map(jwkOf));
  const algorithms = [...new Set(options.publicKeys.map((key) => key.algorithm))].sort();
  return {
    configuration: JSON.stringify({
      issuer: options.issuer, jwks_uri: jwksUri, response_types_supported: ['id_token'], subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: algorithms,
    }),
    keySet: JSON.stringify({ keys }),
  };
}

export interface OidcDiscoveryPluginOptions {
  readonly metadata: OpenIdMetadata;
}

async function oidcDiscoveryPluginBody(app: FastifyInstance, options: OidcDiscoveryPluginOptions): Promise<void> {
  // Sent as bytes: fastify would add "; charset=utf-8" to a JSON string's media type, which kube does not.
  app.get(openIdConfigurationPath, async (_request, reply) =>
    reply.header('Cache-Control', discoveryCacheControl).header('content-type', 'application/json').send(Buffer.from(options.metadata.configuration)));
  app.get(jwksPath, async (_request, reply) =>
    reply.header('Cache-Control', discoveryCacheControl).header('content-type', jwksMediaType).send(Buffer.from(options.metadata.keySet)));
}

/** Serves the discovery documents; register after the authn/authz plugins, only when openIdMetadata succeeded. */
export const oidcDiscoveryPlugin = fastifyPlugin(oidcDiscoveryPluginBody, { name: 'kstore-oidc-discovery', fastify: '5.x' });
