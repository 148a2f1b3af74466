// Owns: authentication of every request (who is calling), as a fastify plugin that runs first
// in onRequest. It decorates the request with `requestInfo` (api/request-info.ts) and `user`.
// Authenticators form a chain like kube-apiserver's union authenticator: the first one that
// recognises credentials decides; one that finds bad credentials fails the request with 401.
// The chain holds the TLS client-certificate authenticator and, with
// --enable-bootstrap-token-auth, the bootstrap token authenticator (bootstrap-token-authn.ts);
// other bearer tokens and anonymous access plug in here later. This module does not authorize
// anything.
import type { TLSSocket, PeerCertificate } from 'node:tls';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
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

export type TokenAuthenticator = (token: string) => Promise<TokenAuthenticationResult> | TokenAuthenticationResult;

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

/**
 * Runs the token authenticators in order over one token (kube's union token authenticator):
 * the first `authenticated` wins; otherwise `rejected` with the rejections' reasons, or with
 * "invalid bearer token" when none recognised it. Never `noCredentials`: a presented token is
 * never anonymous.
 */
export async function authenticateToken(token: string, authenticators: readonly TokenAuthenticator[]): Promise<TokenAuthenticationResult> {
  const reasons: string[] = [];
  for (const authenticator of authenticators) {
    const result = await authenticator(token);
    if (result.type === 'authenticated') return result;
    if (result.type === 'rejected') reasons.push(result.reason);
  }
  return { type: 'rejected', reason: reasons.length === 0 ? invalidBearerToken : `${invalidBearerToken}: ${reasons.join(', ')}` };
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

export interface AuthnOptions {
  /** Tried in order; defaults to the client-certificate authenticator alone. */
  readonly authenticators?: readonly Authenticator[];
  /** The kinds request URLs are resolved against (default: the built-in kinds alone). */
  readonly kinds?: KindLookup;
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

/** Runs the chain; the first `authenticated` wins, otherwise undefined (caller answers 401). */
export async function authenticate(
  request: FastifyRequest, authenticators: readonly Authenticator[],
): Promise<UserInfo | undefined> {
  for (const authenticator of authenticators) {
    const result = await authenticator(request);
    if (result.type === 'authenticated') return result.user;
    if (result.type === 'rejected') request.log.debug({ reason: result.reason }, 'authentication rejected');
  }
  return undefined;
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
    const user = await authenticate(request, authenticators);
    if (user === undefined) return sendUnauthorized(reply);
    request.user = user;
    return undefined;
  });
}

/** Register before every other plugin: its onRequest hook must run first. */
export const authnPlugin = fastifyPlugin(authnPluginBody, { name: 'kstore-authn', fastify: '5.x' });
