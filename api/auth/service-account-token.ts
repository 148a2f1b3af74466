// Owns: service account tokens as JWTs — minting them and checking everything a token says about
// itself, as kube's pkg/serviceaccount does (jwt.go, claims.go, legacy.go); what the cluster
// says about the objects a token names is service-account-authn.ts's.
// Minting (kube's serviceaccount.Claims and JWTTokenGenerator): a bound token carries iss (the
// first --service-account-issuer), sub system:serviceaccount:<ns>:<name>, aud (always an
// array), exp, iat, nbf, jti (a random UUID) and the private claim "kubernetes.io" {namespace,
// serviceaccount{name,uid}, pod|secret{name,uid}, node{name,uid}, warnafter}; a legacy (secret)
// token carries iss "kubernetes/serviceaccount", sub and the four
// "kubernetes.io/serviceaccount/..." claims. The header is {alg, kid}, the payload's keys are in
// Go's sorted map order, as go-jose writes them.
// Verifying (kube's jwtTokenAuthenticator): a token that is not a compact JWS, or whose unverified
// iss is none of ours, is `foreign` (another token authenticator's); otherwise the signature must
// verify with the keys of the token's kid (all keys when it has none), the issuer must be ours,
// and the token's audiences (the API audiences when it has none) must meet the audiences asked
// for (a TokenReview's; by default the API audiences).
// The claim checks that follow are kube's validators': a bound token's exp/nbf/iat with go-jose's
// 60 s leeway, a legacy token's required claims and subject. Reasons never carry the token.
import { randomUUID } from 'node:crypto';
import { CompactSign, compactVerify, decodeProtectedHeader } from 'jose';
import type { ServiceAccountPublicKey, ServiceAccountSigningAlgorithm, ServiceAccountSigningKey } from './service-account-keys.ts';

/** kube's serviceaccount.LegacyIssuer: the issuer of secret-based tokens. */
export const legacyIssuer = 'kubernetes/serviceaccount';
/** go-jose's jwt.DefaultLeeway, which kube's validator uses for exp, nbf, iat and deletions. */
export const leewaySeconds = 60;
/** kube's WarnOnlyBoundTokenExpirationSeconds: a pod's projected token asking this is extended. */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
/** kube's ExpirationExtensionSeconds: how long such a token really lives (one year). */
export const expirationExtensionSeconds = 24 * 365 * 60 * 60;

export const serviceAccountUsernamePrefix = 'system:serviceaccount:';
export const allServiceAccountsGroup = 'system:serviceaccounts';
export const serviceAccountGroupPrefix = 'system:serviceaccounts:';

const legacyClaim = {
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUid: 'kubernetes.io/serviceaccount/service-account.uid',
} as const;

/** apiserverserviceaccount.MakeUsername. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${serviceAccountUsernamePrefix}${namespace}:${name}`;
}

export interface ServiceAccountIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** A {name, uid} reference of the private claim. */
export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** What a bound token is minted for (kube's Claims arguments). A secret binds alone; a pod may come with its node. */
export interface BoundTokenSpec {
  readonly serviceAccount: ServiceAccountIdentity;
  readonly audiences: readonly string[];
  /** How long the token is valid (its exp is issued-at plus this). */
  readonly expirationSeconds: number;
  /** When set, the warnafter claim: issued-at plus this. */
  readonly warnAfterSeconds?: number;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
}

export interface MintedToken {
  readonly token: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
  readonly jti: string;
}

/** What a legacy (secret-based) token is minted for (kube's LegacyClaims). */
export interface LegacyTokenSpec {
  readonly serviceAccount: ServiceAccountIdentity;
  readonly secretName: string;
}

/**
 * The token signer with the settings the TokenRequest API needs: mints bound tokens (the
 * TokenRequest subresource) and legacy ones (a token controller, tests).
 */
export interface ServiceAccountTokenIssuer {
  /** The first --service-account-issuer: the iss of every bound token minted here. */
  readonly issuer: string;
  /** --api-audiences (default: the issuers): a TokenRequest's default audiences. */
  readonly apiAudiences: readonly string[];
  /** --service-account-max-token-expiration in seconds; undefined: no cap. */
  readonly maxExpirationSeconds: number | undefined;
  /** --service-account-extend-token-expiration (kube's default true). */
  readonly extendExpiration: boolean;
  /** The clock tokens are issued by. */
  readonly now: () => Date;
  mint(spec: BoundTokenSpec): Promise<MintedToken>;
  mintLegacy(spec: LegacyTokenSpec): Promise<string>;
}

export interface ServiceAccountTokenIssuerOptions {
  readonly signingKey: ServiceAccountSigningKey;
  readonly issuer: string;
  readonly apiAudiences: readonly string[];
  readonly maxExpirationSeconds?: number;
  readonly extendExpiration?: boolean;
  readonly now?: () => Date;
  /** The jti of each bound token (default: a random UUID). */
  readonly newJti?: () => string;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Go marshals the claim map with its keys sorted; so does this. */
function sortedKeys(value: Json): Json {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortedKeys);
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys(value[key]!)]));
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

async function sign(key: ServiceAccountSigningKey, payload: Record<string, Json>): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(sortedKeys(payload)));
  return new CompactSign(bytes).setProtectedHeader({ alg: key.algorithm, kid: key.keyId }).sign(key.privateKey);
}

function refClaim(ref: ObjectRef): Record<string, Json> {
  // kube's ref has omitempty on both fields.
  return { ...(ref.name === '' ? {} : { name: ref.name }), ...(ref.uid === '' ? {} : { uid: ref.uid }) };
}

/** The claims of a bound token issued at `now` with id `jti` (kube's serviceaccount.Claims). */
export function boundTokenClaims(issuer: string, spec: BoundTokenSpec, now: Date, jti: string): Record<string, Json> {
  if (spec.secret !== undefined && (spec.pod !== undefined || spec.node !== undefined)) {
    throw new Error('internal error, token can only be bound to one object type');
  }
  const issuedAt = seconds(now);
  const kubernetes: Record<string, Json> = {
    namespace: spec.serviceAccount.namespace,
    serviceaccount: refClaim({ name: spec.serviceAccount.name, uid: spec.serviceAccount.uid }),
    ...(spec.pod === undefined ? {} : { pod: refClaim(spec.pod) }),
    ...(spec.secret === undefined ? {} : { secret: refClaim(spec.secret) }),
    ...(spec.node === undefined ? {} : { node: refClaim(spec.node) }),
    ...(spec.warnAfterSeconds === undefined || spec.warnAfterSeconds === 0 ? {} : { warnafter: issuedAt + spec.warnAfterSeconds }),
  };
  return {
    aud: [...spec.audiences], exp: issuedAt + spec.expirationSeconds, iat: issuedAt, iss: issuer, jti,
    'kubernetes.io': kubernetes, nbf: issuedAt, sub: serviceAccountUsername(spec.serviceAccount.namespace, spec.serviceAccount.name),
  };
}

/** The claims of a legacy secret-based token (kube's LegacyClaims with the legacy issuer). */
export function legacyTokenClaims(spec: LegacyTokenSpec): Record<string, Json> {
  const { namespace, name, uid } = spec.serviceAccount;
  return {
    iss: legacyIssuer, sub: serviceAccountUsername(namespace, name),
    [legacyClaim.namespace]: namespace, [legacyClaim.secretName]: spec.secretName,
    [legacyClaim.serviceAccountName]: name, [legacyClaim.serviceAccountUid]: uid,
  };
}

/** The signer of service account tokens, with the TokenRequest API's settings. */
export function serviceAccountTokenIssuer(options: ServiceAccountTokenIssuerOptions): ServiceAccountTokenIssuer {
  const now = options.now ?? (() => new Date());
  const newJti = options.newJti ?? randomUUID;
  return {
    issuer: options.issuer,
    apiAudiences: [...options.apiAudiences],
    maxExpirationSeconds: options.maxExpirationSeconds,
    extendExpiration: options.extendExpiration ?? true,
    now,
    async mint(spec) {
      const issuedAt = new Date(seconds(now()) * 1000);
      const jti = newJti();
      const token = await sign(options.signingKey, boundTokenClaims(options.issuer, spec, issuedAt, jti));
      return { token, issuedAt, expiresAt: new Date(issuedAt.getTime() + spec.expirationSeconds * 1000), jti };
    },
    mintLegacy: (spec) => sign(options.signingKey, legacyTokenClaims(spec)),
  };
}

/** The claims of a verified bound token (jwt.Claims and kube's privateClaims). */
export interface BoundTokenClaims {
  readonly kind: 'bound';
  readonly issuer: string;
  readonly subject: string;
  readonly audiences: readonly string[];
  readonly jti: string;
  readonly expiresAt?: number;
  readonly notBefore?: number;
  readonly issuedAt?: number;
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
  readonly warnAfter?: number;
}

/** The claims of a verified legacy token (kube's legacyPrivateClaims). */
export interface LegacyTokenClaims {
  readonly kind: 'legacy';
  readonly subject: string;
  /** Legacy tokens carry none; any they carry are checked as a bound token's are. */
  readonly audiences: readonly string[];
  readonly namespace: string;
  readonly secretName: string;
  readonly serviceAccountName: string;
  readonly serviceAccountUid: string;
}

export type ServiceAccountTokenClaims = BoundTokenClaims | LegacyTokenClaims;

/**
 * What a token says of itself: `foreign` — not a service account token of this server (let
 * another authenticator try); `rejected` — ours but invalid; `verified` — signature, issuer and
 * audiences hold (`audiences`: those it was accepted for).
 */
export type TokenVerification =
  | { readonly type: 'foreign' }
  | { readonly type: 'rejected'; readonly reason: string }
  | { readonly type: 'verified'; readonly claims: ServiceAccountTokenClaims; readonly audiences: readonly string[] };

export interface ServiceAccountTokenVerifierOptions {
  /** --service-account-key-file's keys. */
  readonly publicKeys: readonly ServiceAccountPublicKey[];
  /** --service-account-issuer (all accepted); the legacy issuer is always accepted too. */
  readonly issuers: readonly string[];
  /** --api-audiences (default: the issuers). */
  readonly apiAudiences: readonly string[];
}

/** A JSON object, or undefined for anything else. */
function objectOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The unverified iss of a compact JWS (hasCorrectIssuer's reading), or undefined when it is no JWT. */
function unverifiedIssuer(token: string): string | undefined {
  if (token.trim().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const payload = parts[1]!;
  // base64.RawURLEncoding: the URL alphabet, no padding.
  if (!/^[A-Za-z0-9_-]*$/.test(payload) || payload.length % 4 === 1) return undefined;
  try {
    const claims = objectOf(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    const issuer = claims?.['iss'];
    return typeof issuer === 'string' ? issuer : undefined;
  } catch {
    return undefined;
  }
}

/** The algorithms go-jose accepts for a key: any RSA one for RSA, the curve's own for ECDSA. */
function acceptedAlgorithms(algorithm: ServiceAccountSigningAlgorithm): string[] {
  return algorithm === 'RS256' ? ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] : [algorithm];
}

/** go-jose's ErrCryptoFailure, what kube reports for a signature no key verifies. */
const signatureFailure = 'go-jose/go-jose: error in cryptographic primitive';

/** utilerrors.NewAggregate's message. */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

/** Go's %q of a []string: ["a" "b"]. */
export function quotedList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
}

class ClaimError extends Error {}

function optionalString(claims: Record<string, unknown>, name: string, where = ''): string {
  const value = claims[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new ClaimError(`json: cannot unmarshal ${typeof value} into claim ${where}${name} of type string`);
  return value;
}

function optionalDate(claims: Record<string, unknown>, name: string, where = ''): number | undefined {
  const value = claims[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ClaimError(`go-jose/go-jose/jwt: expected number date in claim ${where}${name}`);
  return Math.trunc(value);
}

function audiencesOf(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  throw new ClaimError('go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience');
}

function refOf(value: unknown, where: string): ObjectRef | undefined {
  if (value === undefined || value === null) return undefined;
  const ref = objectOf(value);
  if (ref === undefined) throw new ClaimError(`json: cannot unmarshal claim ${where} into a reference`);
  return { name: optionalString(ref, 'name', `${where}.`), uid: optionalString(ref, 'uid', `${where}.`) };
}

function boundClaimsOf(claims: Record<string, unknown>): BoundTokenClaims {
  const privateValue = claims['kubernetes.io'];
  const kubernetes = privateValue === undefined || privateValue === null ? {} : objectOf(privateValue);
  if (kubernetes === undefined) throw new ClaimError('json: cannot unmarshal claim kubernetes.io into its private claims');
  const where = 'kubernetes.io.';
  const pod = refOf(kubernetes['pod'], `${where}pod`);
  const secret = refOf(kubernetes['secret'], `${where}secret`);
  const node = refOf(kubernetes['node'], `${where}node`);
  const expiresAt = optionalDate(claims, 'exp');
  const notBefore = optionalDate(claims, 'nbf');
  const issuedAt = optionalDate(claims, 'iat');
  const warnAfter = optionalDate(kubernetes, 'warnafter', where);
  return {
    kind: 'bound', issuer: optionalString(claims, 'iss'), subject: optionalString(claims, 'sub'), audiences: audiencesOf(claims['aud']),
    jti: optionalString(claims, 'jti'),
    ...(expiresAt === undefined ? {} : { expiresAt }), ...(notBefore === undefined ? {} : { notBefore }), ...(issuedAt === undefined ? {} : { issuedAt }),
    namespace: optionalString(kubernetes, 'namespace', where),
    serviceAccount: refOf(kubernetes['serviceaccount'], `${where}serviceaccount`) ?? { name: '', uid: '' },
    ...(pod === undefined ? {} : { pod }), ...(secret === undefined ? {} : { secret }), ...(node === undefined ? {} : { node }),
    ...(warnAfter === undefined ? {} : { warnAfter }),
  };
}

function legacyClaimsOf(claims: Record<string, unknown>): LegacyTokenClaims {
  // The registered claims are decoded (and must be well typed) even though legacy tokens use sub alone.
  const audiences = audiencesOf(claims['aud']);
  for (const name of ['exp', 'nbf', 'iat']) optionalDate(claims, name);
  optionalString(claims, 'jti');
  return {
    kind: 'legacy', subject: optionalString(claims, 'sub'), audiences,
    namespace: optionalString(claims, legacyClaim.namespace), secretName: optionalString(claims, legacyClaim.secretName),
    serviceAccountName: optionalString(claims, legacyClaim.serviceAccountName), serviceAccountUid: optionalString(claims, legacyClaim.serviceAccountUid),
  };
}

/** The verified payload of `token` under one of `keys`, or the reason none verifies it. */
async function verifiedPayload(token: string, keys: readonly ServiceAccountPublicKey[]): Promise<{ payload: Uint8Array } | { reason: string }> {
  const failures: string[] = [];
  for (const key of keys) {
    try {
      const { payload } = await compactVerify(token, key.publicKey, { algorithms: acceptedAlgorithms(key.algorithm) });
      return { payload };
    } catch {
      failures.push(signatureFailure);
    }
  }
  return { reason: aggregate(failures) };
}

/**
 * Checks a token's signature, issuer and audiences (kube's jwtTokenAuthenticator before its
 * validator). `audiences`: the audiences asked for (absent or empty: the API audiences); the
 * token is accepted for those of them it names (the API audiences when it names none), in the
 * order asked, and rejected when that leaves none while there are API audiences.
 */
export function serviceAccountTokenVerifier(options: ServiceAccountTokenVerifierOptions): (token: string, audiences?: readonly string[]) => Promise<TokenVerification> {
  const issuers = new Set([...options.issuers, legacyIssuer]);
  const implicitAudiences = [...options.apiAudiences];
  return async (token, requested) => {
    const claimedIssuer = unverifiedIssuer(token);
    if (claimedIssuer === undefined || !issuers.has(claimedIssuer)) return { type: 'foreign' };
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      // Not a JWS go-jose can parse: not a service account token after all.
      return { type: 'foreign' };
    }
    const keyId = typeof kid === 'string' ? kid : '';
    const keys = keyId === '' ? options.publicKeys : options.publicKeys.filter((key) => key.keyId === keyId);
    if (keys.length === 0) return { type: 'rejected', reason: 'invalid signature, no keys found' };
    const verified = await verifiedPayload(token, keys);
    if ('reason' in verified) return { type: 'rejected', reason: verified.reason };
    let claims: ServiceAccountTokenClaims;
    let issuer: string;
    try {
      const payload = objectOf(JSON.parse(new TextDecoder().decode(verified.payload)));
      if (payload === undefined) throw new ClaimError('json: cannot unmarshal the payload into claims');
      issuer = optionalString(payload, 'iss');
      claims = issuer === legacyIssuer ? legacyClaimsOf(payload) : boundClaimsOf(payload);
    } catch (error) {
      return { type: 'rejected', reason: error instanceof ClaimError ? error.message : 'go-jose/go-jose/jwt: the payload is not valid JSON' };
    }
    if (!issuers.has(issuer)) return { type: 'rejected', reason: `token issuer ${JSON.stringify(issuer)} is invalid` };
    const tokenAudiences = claims.audiences.length === 0 ? implicitAudiences : claims.audiences;
    const targetAudiences = requested === undefined || requested.length === 0 ? implicitAudiences : [...requested];
    const audiences = targetAudiences.filter((audience) => tokenAudiences.includes(audience));
    if (audiences.length === 0 && implicitAudiences.length !== 0) {
      return { type: 'rejected', reason: `token audiences ${quotedList(tokenAudiences)} is invalid for the target audiences ${quotedList(targetAudiences)}` };
    }
    return { type: 'verified', claims, audiences };
  };
}

/** go-jose's Claims.ValidateWithLeeway over exp/nbf/iat, with kube's messages; undefined when valid at `now`. */
export function boundTokenTimeProblem(claims: BoundTokenClaims, now: Date): string | undefined {
  const at = now.getTime() / 1000;
  if (claims.notBefore !== undefined && at + leewaySeconds < claims.notBefore) return 'service account token is not valid yet';
  if (claims.expiresAt !== undefined && at - leewaySeconds > claims.expiresAt) return 'service account token has expired';
  if (claims.issuedAt !== undefined && at + leewaySeconds < claims.issuedAt) return 'service account token is issued in the future';
  return undefined;
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** apiserverserviceaccount.SplitUsername: [namespace, name], or undefined when not a valid service account username. */
export function splitServiceAccountUsername(username: string): [string, string] | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace = '', name = ''] = parts;
  if (namespace.length > 63 || !dns1123Label.test(namespace)) return undefined;
  if (name.length > 253 || !dns1123Subdomain.test(name)) return undefined;
  return [namespace, name];
}

/** The legacy validator's claim checks (before any lookup); undefined when they hold. */
export function legacyTokenClaimProblem(claims: LegacyTokenClaims): string | undefined {
  if (claims.subject === '') return 'sub claim is missing';
  if (claims.namespace === '') return 'namespace claim is missing';
  if (claims.secretName === '') return 'secretName claim is missing';
  if (claims.serviceAccountName === '') return 'serviceAccountName claim is missing';
  if (claims.serviceAccountUid === '') return 'serviceAccountUID claim is missing';
  const split = splitServiceAccountUsername(claims.subject);
  if (split === undefined || split[0] !== claims.namespace || split[1] !== claims.serviceAccountName) return 'sub claim is invalid';
  return undefined;
}
