// Owns: the bootstrap token authenticator (--enable-bootstrap-token-auth; kube's
// plugin/pkg/auth/authenticator/token/bootstrap). `Authorization: Bearer <id>.<secret>` is
// looked up as the Secret kube-system/bootstrap-token-<id> in the replicated state and, when it
// is a live token secret whose token-secret matches (constant-time), whose token-id matches,
// which is not expired (neither by its token machine, which the leader's expireTokens commands
// advance, nor by its expiration against this server's clock, as kube checks at request time)
// and which allows usage-bootstrap-authentication, the request is user system:bootstrap:<id>
// in system:bootstrappers, the valid auth-extra-groups and system:authenticated.
// Anything else presented as a bearer token is `rejected`: the chain answers 401, never
// anonymous. Reasons name the token id at most; the secret never reaches a log line.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import {
  bootstrapTokenNamespace, bootstrapTokenPattern, bootstrapTokenSecretPrefix, bootstrapUserPrefix, expirationKey, expirationReached,
  hasBootstrapTokenType, tokenGroups, tokenIdKey, tokenSecretData, tokenSecretKey, usageAuthenticationKey,
} from '../actors/index.ts';
import type { KubeObject, Lifecycle, ObjectKey } from '../actors/index.ts';
import { authenticatedGroup } from './authn.ts';
import type { AuthenticationResult, Authenticator } from './authn.ts';

/** What the authenticator reads: the API tier's view of the replicated state (StoreClient). */
export interface TokenSecretReader {
  get(key: ObjectKey): KubeObject | undefined;
  lifecycleOf(key: ObjectKey): Lifecycle | undefined;
}

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

/** Constant-time equality of two strings of any lengths (compares their SHA-256 digests). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}

function rejected(reason: string): AuthenticationResult {
  return { type: 'rejected', reason };
}

/** Authenticates a bootstrap token against the state `reader` holds, at the time `now` gives. */
export function authenticateBootstrapToken(token: string, reader: TokenSecretReader, now: () => Date): AuthenticationResult {
  const match = bootstrapTokenPattern.exec(token);
  if (match === null) return rejected('invalid bearer token: not a bootstrap token ([a-z0-9]{6}.[a-z0-9]{16})');
  const [, id = '', secret = ''] = match;
  const key: ObjectKey = { group: '', resource: 'secrets', namespace: bootstrapTokenNamespace, name: `${bootstrapTokenSecretPrefix}${id}` };
  const object = reader.get(key);
  const where = `bootstrap secret ${bootstrapTokenNamespace}/${key.name}`;
  if (object === undefined) return rejected(`no ${where} to match the bootstrap bearer token`);
  if (object.metadata.deletionTimestamp !== undefined) return rejected(`${where} is deleted and awaiting removal`);
  if (!hasBootstrapTokenType(object) || object['data'] === undefined) return rejected(`${where} has an invalid type`);
  const data = tokenSecretData(object);
  const stored = data[tokenSecretKey];
  // A secret without its token secret or token id is never usable, whatever was presented.
  if (stored === undefined || stored === '' || !constantTimeEqual(stored, secret)) return rejected(`${where} has a different ${tokenSecretKey}`);
  if (data[tokenIdKey] !== id) return rejected(`${where} has a different ${tokenIdKey}`);
  const machine = reader.lifecycleOf(key)?.token?.state;
  if (machine !== undefined && machine !== 'valid') return rejected(`${where} is ${machine}`);
  if (expirationReached(data[expirationKey], now().getTime())) return rejected(`${where} has expired`);
  if (data[usageAuthenticationKey] !== 'true') return rejected(`${where} is not marked ${usageAuthenticationKey}=true`);
  const { groups, invalid } = tokenGroups(data);
  if (invalid.length > 0) return rejected(`${where} has invalid auth-extra-groups`);
  return { type: 'authenticated', user: { name: `${bootstrapUserPrefix}${id}`, uid: '', groups: [...groups, authenticatedGroup], extra: {} } };
}

/** The chain member: no bearer token → noCredentials; a bearer token → authenticated or rejected. */
export function bootstrapTokenAuthenticator(reader: TokenSecretReader, now: () => Date = () => new Date()): Authenticator {
  return (request) => {
    const token = bearerToken(request);
    if (token === undefined) return { type: 'noCredentials' };
    return authenticateBootstrapToken(token, reader, now);
  };
}
