// Owns: authentication of every request (who is calling), as a fastify plugin that runs first
// in onRequest. It decorates the request with `requestInfo` (api/request-info.ts) and `user`.
// The flow is kube-apiserver's: the authenticators form a union (the first that authenticates
// wins; a rejection only counts when none does); when none authenticates, a rejection is a 401
// and never anonymous (kube's FailOnError union), and a request nobody recognised is
// system:anonymous when anonymous auth allows it on the request's path (anonymous.ts), else a
// 401. After a successful authentication the Authorization header and the authenticating
// proxy's headers (the standard X-Remote-* ones always, and the configured ones) are removed
// from the request, so nothing downstream (a proxied request) sees them. Also owns the TLS
// client-certificate authenticator: `certificateAuthenticatorFor(clientCaPem)` verifies the
// presented chain against the --client-ca-file bundle itself (node's TLS server is given every
// trusted CA, so `socket.authorized` cannot say which one verified a certificate);
// `certificateAuthenticator` trusts whatever node verified. The chain members live elsewhere:
// tokens (bearerTokenAuthenticator over token-file.ts, bootstrap-token-authn.ts, ...), the
// authenticating proxy (request-header.ts). This module does not authorize anything.
import { X509Certificate } from 'node:crypto';
import type { TLSSocket, PeerCertificate, DetailedPeerCertificate } from 'node:tls';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { anonymousUserFor, anonymousUserName, unauthenticatedGroup } from './anonymous.ts';
import type { AnonymousAuthConfig } from './anonymous.ts';
import { resolveRequestInfo } from '../request-info.ts';
import type { KindLookup } from '../registry/kind-registry.ts';
import type { QueryParameters, RequestInfo } from '../request-info.ts';
import { unauthorized } from '../status.ts';

/** The authenticated identity (k8s.io/apiserver user.Info). */
export interface UserInfo {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** Every authenticated user is a member of this group (spec: Authentication). */
export const authenticatedGroup = 'system:authenticated';

/**
 * kube's AuthenticatedGroupAdder: adds system:authenticated to an authenticated user unless it
 * is system:anonymous or already in system:authenticated or system:unauthenticated.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === anonymousUserName) return user;
  if (user.groups.some((group) => group === authenticatedGroup || group === unauthenticatedGroup)) return user;
  return { ...user, groups: [...user.groups, authenticatedGroup] };
}

/**
 * What one authenticator concluded: `noCredentials` lets the next one try; `rejected` means
 * credentials of this kind were presented and are invalid, which is a 401 unless a later
 * authenticator succeeds (kube's union authenticator aggregates errors the same way).
 */
export type AuthenticationResult =
  | { readonly type: 'authenticated'; readonly user: UserInfo }
  | { readonly type: 'noCredentials' }
  | { readonly type: 'rejected'; readonly reason: string };

export type Authenticator = (request: FastifyRequest) => Promise<AuthenticationResult> | AuthenticationResult;

/**
 * One bearer-token authenticator (kube's authenticator.Token): the token file, service account
 * tokens, bootstrap tokens, the token webhook. `noCredentials` means "not a token of mine" (the
 * next one tries); `rejected` means it is mine and invalid. `audiences` are the audiences the
 * token was accepted for, when the authenticator checks them (kube's Response.Audiences).
 */
export type TokenAuthenticationResult =
  | { readonly type: 'authenticated'; readonly user: UserInfo; readonly audiences?: readonly string[] }
  | { readonly type: 'noCredentials' }
  | { readonly type: 'rejected'; readonly reason: string };

/**
 * `audiences`: the audiences the caller wants the token checked for (kube's request audiences:
 * a TokenReview's spec.audiences); absent or empty: the API audiences (--api-audiences). An
 * authenticator that checks audiences answers an authentication with the `audiences` it
 * accepted the token for; one that does not check them answers without `audiences`.
 */
export type TokenAuthenticator = (token: string, audiences?: readonly string[]) => Promise<TokenAuthenticationResult> | TokenAuthenticationResult;

/**
 * The bearer token of an Authorization header, as k8s.io/apiserver's bearertoken authenticator
 * reads it ("Bearer" in any case, then one space-free token); undefined when there is none.
 */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1]!;
  return token === '' ? undefined : token;
}

/** kube's errInvalidToken: a bearer token that no token authenticator accepted. */
export const invalidBearerToken = 'invalid bearer token';

/** What the union of token authenticators concluded before any default error is given. */
export type TokenUnionResult =
  | { readonly type: 'authenticated'; readonly user: UserInfo; readonly audiences?: readonly string[] }
  | { readonly type: 'unauthenticated'; readonly reasons: readonly string[] };

/**
 * Runs the token authenticators in order over one token, each asked for `audiences` (kube's
 * union token authenticator): the first `authenticated` wins; otherwise every rejection's reason,
 * in order (none: no authenticator recognised the token).
 */
export async function tokenUnion(token: string, authenticators: readonly TokenAuthenticator[], audiences?: readonly string[]): Promise<TokenUnionResult> {
  const reasons: string[] = [];
  for (const authenticator of authenticators) {
    const result = await authenticator(token, audiences);
    if (result.type === 'authenticated') return result;
    if (result.type === 'rejected') reasons.push(result.reason);
  }
  return { type: 'unauthenticated', reasons };
}

/**
 * Runs the token authenticators in order over one token (kube's union token authenticator),
 * each asked for `audiences` (absent: the API audiences): the first `authenticated` wins;
 * otherwise `rejected` with the rejections' reasons, or with "invalid bearer token" when none
 * recognised it. Never `noCredentials`: a presented token is never anonymous.
 */
export async function authenticateToken(
  token: string, authenticators: readonly TokenAuthenticator[], audiences?: readonly string[],
): Promise<TokenAuthenticationResult> {
  const result = await tokenUnion(token, authenticators, audiences);
  if (result.type === 'authenticated') return result;
  const { reasons } = result;
  return { type: 'rejected', reason: reasons.length === 0 ? invalidBearerToken : `${invalidBearerToken}: ${reasons.join(', ')}` };
}

/**
 * kube's Audiences.Intersect as `kept.Intersect(from)`: the members of `from`, in its order
 * (repeats kept), that `kept` has.
 */
export function intersectAudiences(kept: readonly string[], from: readonly string[]): string[] {
  return from.filter((audience) => kept.includes(audience));
}

/**
 * kube's WrapAudienceAgnosticToken around a token authenticator whose answers say nothing about
 * audiences (the token file, bootstrap tokens): when audiences are asked for, the token is
 * accepted for those of them that are API audiences, and is not the authenticator's
 * (`noCredentials`) when none is. An answer that names audiences comes from an authenticator
 * that checked them itself and is passed on as it is; so is everything when no audiences are
 * asked for (existing callers: the API audiences, which the authenticator serves).
 */
export function audienceAgnosticTokenAuthenticator(apiAudiences: readonly string[], delegate: TokenAuthenticator): TokenAuthenticator {
  return async (token, audiences) => {
    const result = await delegate(token, audiences);
    if (audiences === undefined || audiences.length === 0 || result.type !== 'authenticated' || result.audiences !== undefined) return result;
    const accepted = intersectAudiences(apiAudiences, audiences);
    return accepted.length === 0 ? { type: 'noCredentials' } : { ...result, audiences: accepted };
  };
}

/**
 * The chain member for `Authorization: Bearer <token>` (kube's bearertoken authenticator over
 * the union of token authenticators): no bearer token → noCredentials; a token → authenticated
 * or rejected (then 401, never anonymous).
 */
export function bearerTokenAuthenticator(authenticators: readonly TokenAuthenticator[]): Authenticator {
  return async (request) => {
    const token = bearerToken(request);
    if (token === undefined || authenticators.length === 0) return { type: 'noCredentials' };
    const result = await authenticateToken(token, authenticators);
    return result.type === 'authenticated' ? { type: 'authenticated', user: result.user } : result;
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authn plugin's onRequest hook, before any other hook or handler runs. */
    user: UserInfo;
    /** Set by the authn plugin's onRequest hook. */
    requestInfo: RequestInfo;
  }
}

/** The header names an authenticating proxy uses (request-header.ts); they are removed after authentication. */
export interface ProxyHeaderNames {
  readonly usernameHeaders: readonly string[];
  readonly uidHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

/** The standard front-proxy headers kube's authentication filter always removes. */
export const standardProxyHeaderNames: ProxyHeaderNames = {
  usernameHeaders: ['X-Remote-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'],
};

export interface AuthnOptions {
  /** Tried in order; defaults to the client-certificate authenticator alone. */
  readonly authenticators?: readonly Authenticator[];
  /** The kinds request URLs are resolved against (default: the built-in kinds alone). */
  readonly kinds?: KindLookup;
  /** Anonymous requests (anonymous.ts); absent: disabled, an unrecognised request is a 401. */
  readonly anonymous?: AnonymousAuthConfig;
  /** The configured request-header names (--requestheader-*), removed like the standard ones. */
  readonly proxyHeaders?: ProxyHeaderNames;
}

/**
 * Removes the proxy headers `names` from `headers` (kube's ClearAuthenticationHeaders): the
 * named headers, and every header starting with an extra-header prefix, case-insensitively.
 */
export function clearProxyHeaders(headers: Record<string, unknown>, names: ProxyHeaderNames): void {
  const lowered = loweredProxyHeaderNames(names);
  for (const name of lowered.names) delete headers[name];
  if (lowered.prefixes.length === 0) return;
  for (const key in headers) {
    if (!Object.hasOwn(headers, key)) continue;
    const lower = key.toLowerCase();
    for (const prefix of lowered.prefixes) {
      if (lower.startsWith(prefix)) {
        delete headers[key];
        break;
      }
    }
  }
}

/** A ProxyHeaderNames' names and prefixes in lower case, computed once (they run on every request). */
const loweredProxyHeaders = new WeakMap<ProxyHeaderNames, { readonly names: readonly string[]; readonly prefixes: readonly string[] }>();

function loweredProxyHeaderNames(names: ProxyHeaderNames): { readonly names: readonly string[]; readonly prefixes: readonly string[] } {
  let lowered = loweredProxyHeaders.get(names);
  if (lowered === undefined) {
    lowered = {
      names: [...names.usernameHeaders, ...names.uidHeaders, ...names.groupHeaders].map((name) => name.toLowerCase()),
      prefixes: names.extraHeaderPrefixes.map((prefix) => prefix.toLowerCase()),
    };
    loweredProxyHeaders.set(names, lowered);
  }
  return lowered;
}

/** The extended key usage a client certificate must allow when it lists any (RFC 5280 4.2.1.12). */
const clientAuthUsageOid = '1.3.6.1.5.5.7.3.2';
const anyExtendedKeyUsageOid = '2.5.29.37.0';

function attributeValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function tlsSocketOf(request: FastifyRequest): TLSSocket | undefined {
  const socket = request.raw.socket as Partial<TLSSocket> | null;
  if (socket === null || typeof socket.getPeerCertificate !== 'function') return undefined;
  return socket as TLSSocket;
}

function allowsClientAuth(certificate: PeerCertificate): boolean {
  const usages = certificate.ext_key_usage;
  if (usages === undefined || usages.length === 0) return true;
  return usages.includes(clientAuthUsageOid) || usages.includes(anyExtendedKeyUsageOid);
}

function usagesAllowClientAuth(usages: readonly string[] | undefined): boolean {
  if (usages === undefined || usages.length === 0) return true;
  return usages.includes(clientAuthUsageOid) || usages.includes(anyExtendedKeyUsageOid);
}

/** The user a verified client certificate names: CN is the user, each O a group. */
export function userFromCertificate(certificate: PeerCertificate): UserInfo | undefined {
  const subject = certificate.subject as PeerCertificate['subject'] | undefined;
  const name = attributeValues(subject?.CN)[0] ?? '';
  if (name === '') return undefined;
  const organizations = attributeValues(subject?.O);
  return { name, uid: '', groups: [...organizations, authenticatedGroup], extra: {} };
}

/**
 * Authenticates the TLS client certificate. The TLS server must be started with
 * `requestCert: true, rejectUnauthorized: false, ca: [clientCa]`, so that node verifies the
 * chain but still lets requests without (or with bad) certificates through to other
 * authenticators and to a proper 401 Status.
 */
export const certificateAuthenticator: Authenticator = (request) => {
  const socket = tlsSocketOf(request);
  if (socket === undefined) return { type: 'noCredentials' };
  const known = certificateResults.get(socket);
  if (known !== undefined) return known;
  const result = authenticateCertificate(socket);
  certificateResults.set(socket, result);
  return result;
};

/**
 * A TLS connection's client certificate and its verification cannot change while it lives
 * (kstore's TLS server does not renegotiate), so the outcome is computed once per connection:
 * getPeerCertificate() builds a fresh object every call, measured at ~5% of an API replica's
 * CPU under a create load with keep-alive clients (bench:api --cpu-prof).
 */
const certificateResults = new WeakMap<TLSSocket, AuthenticationResult>();

function authenticateCertificate(socket: TLSSocket): AuthenticationResult {
  const certificate = socket.getPeerCertificate();
  if (certificate === null || Object.keys(certificate).length === 0) return { type: 'noCredentials' };
  if (!socket.authorized) {
    return { type: 'rejected', reason: `x509: ${String(socket.authorizationError ?? 'certificate not trusted')}` };
  }
  if (!allowsClientAuth(certificate)) {
    return { type: 'rejected', reason: 'x509: certificate specifies an incompatible key usage' };
  }
  const user = userFromCertificate(certificate);
  return user === undefined ? { type: 'noCredentials' } : { type: 'authenticated', user };
}

/** The certificates of a PEM bundle (a CA file); throws when a block is not a certificate. */
export function parseCertificateBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

/** What verifying a connection's client certificate against one CA bundle gave. */
export type ClientCertificateVerification =
  | { readonly type: 'none' }
  | { readonly type: 'verified'; readonly leaf: PeerCertificate }
  | { readonly type: 'rejected'; readonly reason: string };

/** How deep a presented chain may be (leaf, intermediates, root). */
const maxChainLength = 10;

function validAt(certificate: X509Certificate, now: number): boolean {
  return Date.parse(certificate.validFrom) <= now && now <= Date.parse(certificate.validTo);
}

function issuedBy(certificate: X509Certificate, issuer: X509Certificate): boolean {
  return certificate.checkIssued(issuer) && certificate.verify(issuer.publicKey);
}

/** The DER of the presented certificates after the leaf (node's detailed peer certificate chain). */
function presentedChain(leaf: DetailedPeerCertificate): Buffer[] {
  const chain: Buffer[] = [];
  const seen = new Set<string>([leaf.fingerprint256]);
  let next = leaf.issuerCertificate as DetailedPeerCertificate | undefined;
  while (next !== undefined && next.raw !== undefined && !seen.has(next.fingerprint256)) {
    seen.add(next.fingerprint256);
    chain.push(next.raw);
    next = next.issuerCertificate as DetailedPeerCertificate | undefined;
  }
  return chain;
}

/**
 * Verifies a leaf certificate against `roots`, through the presented intermediates, at time
 * `now` (as Go's x509 Verify with the client-auth key usage): every certificate of the chain
 * is within its validity, intermediates are CAs, each certificate is signed by the next, and
 * none restricts its extended key usage to something other than client auth. Returns the
 * failure reason, or undefined when a chain to a root exists.
 */
export function verifyCertificateChain(
  leafDer: Buffer, intermediatesDer: readonly Buffer[], roots: readonly X509Certificate[], now: number,
): string | undefined {
  const leaf = new X509Certificate(leafDer);
  if (!validAt(leaf, now)) return 'x509: certificate has expired or is not yet valid';
  if (!usagesAllowClientAuth(leaf.keyUsage)) return 'x509: certificate specifies an incompatible key usage';
  const candidates = intermediatesDer.map((der) => new X509Certificate(der));
  const used = new Set<string>([leaf.fingerprint256]);
  let current = leaf;
  for (let depth = 1; depth < maxChainLength; depth += 1) {
    const root = roots.find((candidate) => issuedBy(current, candidate));
    if (root !== undefined) {
      if (!validAt(root, now)) return 'x509: certificate has expired or is not yet valid';
      if (!usagesAllowClientAuth(root.keyUsage)) return 'x509: certificate specifies an incompatible key usage';
      return undefined;
    }
    const issuer = candidates.find((candidate) => !used.has(candidate.fingerprint256) && candidate.ca && issuedBy(current, candidate));
    if (issuer === undefined) return 'x509: certificate signed by unknown authority';
    if (!validAt(issuer, now)) return 'x509: certificate has expired or is not yet valid';
    if (!usagesAllowClientAuth(issuer.keyUsage)) return 'x509: certificate specifies an incompatible key usage';
    used.add(issuer.fingerprint256);
    current = issuer;
  }
  return 'x509: too many intermediates for path length constraint';
}

/** Go prints a certificate's serial number in decimal (kube's certificateIdentifier). */
function serialInDecimal(serial: string): string {
  try {
    return BigInt(`0x${serial}`).toString(10);
  } catch {
    return serial;
  }
}

/**
 * A verifier of connections' client certificates against the CA bundle `caPem`, its outcome
 * cached per connection (the certificate and the bundle do not change while it lives). An
 * empty bundle verifies nothing (`none`, as kube's authenticators with no CA content).
 */
export function clientCertificateVerifier(caPem: string, now: () => number = Date.now): (request: FastifyRequest) => ClientCertificateVerification {
  const roots = parseCertificateBundle(caPem);
  const results = new WeakMap<TLSSocket, ClientCertificateVerification>();
  return (request) => {
    const socket = tlsSocketOf(request);
    if (socket === undefined || roots.length === 0) return { type: 'none' };
    const known = results.get(socket);
    if (known !== undefined) return known;
    const leaf = socket.getPeerCertificate(true);
    let result: ClientCertificateVerification;
    if (leaf === null || leaf.raw === undefined) result = { type: 'none' };
    else {
      const failure = verifyCertificateChain(leaf.raw, presentedChain(leaf), roots, now());
      result = failure === undefined
        ? { type: 'verified', leaf }
        : { type: 'rejected', reason: `verifying certificate SN=${serialInDecimal(leaf.serialNumber)} failed: ${failure}` };
    }
    results.set(socket, result);
    return result;
  };
}

/**
 * The client-certificate authenticator for --client-ca-file (kube's x509 authenticator with
 * CommonNameUserConversion): a certificate that chains to `clientCaPem` is the user of its CN
 * in the groups of its O values; one that does not is rejected (another authenticator, e.g.
 * the authenticating proxy's, may still succeed); no certificate or an empty CN: noCredentials.
 */
export function certificateAuthenticatorFor(clientCaPem: string, now: () => number = Date.now): Authenticator {
  const verify = clientCertificateVerifier(clientCaPem, now);
  // Per verification, i.e. per connection (the verifier caches it per socket), as
  // certificateAuthenticator does: not a new user object for every request.
  const results = new WeakMap<ClientCertificateVerification, AuthenticationResult>();
  return (request) => {
    const verification = verify(request);
    if (verification.type === 'none') return { type: 'noCredentials' };
    if (verification.type === 'rejected') return verification;
    let result = results.get(verification);
    if (result === undefined) {
      const user = userFromCertificate(verification.leaf);
      result = user === undefined ? { type: 'noCredentials' } : { type: 'authenticated', user };
      results.set(verification, result);
    }
    return result;
  };
}

/**
 * Runs the chain as kube's union authenticator: the first `authenticated` wins; otherwise
 * `rejected` with every rejection's reason when there was any, else `noCredentials`.
 */
export async function authenticateRequest(
  request: FastifyRequest, authenticators: readonly Authenticator[],
): Promise<AuthenticationResult> {
  let reasons: string[] | undefined;
  for (const authenticator of authenticators) {
    // Most authenticators answer synchronously (a cached certificate): no extra microtask for them.
    const answer = authenticator(request);
    const result = answer instanceof Promise ? await answer : answer;
    if (result.type === 'authenticated') return result;
    if (result.type === 'rejected') (reasons ??= []).push(result.reason);
  }
  return reasons === undefined ? { type: 'noCredentials' } : { type: 'rejected', reason: reasons.join(', ') };
}

/** Runs the chain; the first `authenticated` wins, otherwise undefined (caller answers 401). */
export async function authenticate(
  request: FastifyRequest, authenticators: readonly Authenticator[],
): Promise<UserInfo | undefined> {
  const result = await authenticateRequest(request, authenticators);
  if (result.type === 'rejected') request.log.debug({ reason: result.reason }, 'authentication rejected');
  return result.type === 'authenticated' ? result.user : undefined;
}

/**
 * The whole decision for one request: the union's user; else, when nothing was rejected, the
 * anonymous user if `anonymous` allows it on the request's path; else undefined (401).
 */
export async function authenticateWithAnonymous(
  request: FastifyRequest, authenticators: readonly Authenticator[], anonymous: AnonymousAuthConfig | undefined,
): Promise<UserInfo | undefined> {
  const result = await authenticateRequest(request, authenticators);
  if (result.type === 'authenticated') return result.user;
  if (result.type === 'rejected') {
    request.log.debug({ reason: result.reason }, 'authentication rejected');
    return undefined;
  }
  return anonymousUserFor(anonymous, request);
}

/** Removes the credentials kube's authentication filter removes once a request is authenticated. */
function removeCredentials(request: FastifyRequest, proxyHeaders: ProxyHeaderNames | undefined): void {
  const headers = request.raw.headers as Record<string, unknown>;
  delete headers['authorization'];
  clearProxyHeaders(headers, standardProxyHeaderNames);
  if (proxyHeaders !== undefined) clearProxyHeaders(headers, proxyHeaders);
}

async function sendUnauthorized(reply: FastifyReply): Promise<FastifyReply> {
  const error = unauthorized();
  return reply.code(error.code).type('application/json').send(error.status);
}

async function authnPluginBody(app: FastifyInstance, options: AuthnOptions): Promise<void> {
  const authenticators = options.authenticators ?? [certificateAuthenticator];
  // fastify 5 forbids object defaults (they would be shared by every request), so the
  // decorations start as null and the hook below sets them before anything else reads them.
  app.decorateRequest('user', null as unknown as UserInfo);
  app.decorateRequest('requestInfo', null as unknown as RequestInfo);
  app.addHook('onRequest', async (request, reply) => {
    request.requestInfo = resolveRequestInfo(request.method, request.url.split('?', 1)[0] ?? '/', request.query as QueryParameters, options.kinds);
    const rejection = request.requestInfo.rejection;
    if (rejection?.beforeAuthentication === true) return reply.code(rejection.error.code).type('application/json').send(rejection.error.status);
    const user = await authenticateWithAnonymous(request, authenticators, options.anonymous);
    if (user === undefined) return sendUnauthorized(reply);
    removeCredentials(request, options.proxyHeaders);
    request.user = user;
    return undefined;
  });
}

/** Register before every other plugin: its onRequest hook must run first. */
export const authnPlugin = fastifyPlugin(authnPluginBody, { name: 'kstore-authn', fastify: '5.x' });
