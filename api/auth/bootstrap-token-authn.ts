// Owns: the bootstrap token authenticator (--enable-bootstrap-token-auth; kube's
// plugin/pkg/auth/authenticator/token/bootstrap). `Authorization: Bearer <id>.<secret>` is
// looked up as the Secret kube-system/bootstrap-token-<id> in the replicated state and, when it
// is a live token secret whose token-secret matches (constant-time), whose token-id matches,
// which is not expired (neither by its token machine, which the leader's expireTokens commands
// advance, nor by its expiration against this server's clock, as kube checks at request time)
// and which allows usage-bootstrap-authentication, the request is user system:bootstrap:<id>
// in system:bootstrappers, the valid auth-extra-groups and system:authenticated.
// A token of the bootstrap shape that fails any check is `rejected`; a token of another shape
// is left to the other token authenticators (authn.ts bearerTokenAuthenticator answers 401 when
// none accepts it, never anonymous). Reasons name the token id at most; the secret never
// reaches a log line.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  bootstrapTokenNamespace, bootstrapTokenPattern, bootstrapTokenSecretPrefix, bootstrapUserPrefix, expirationKey, expirationReached,
  hasBootstrapTokenType, tokenGroups, tokenIdKey, tokenSecretData, tokenSecretKey, usageAuthenticationKey,
} from '../../actors/index.ts';
import type { KubeObject, Lifecycle, ObjectKey } from '../../actors/index.ts';
import { authenticatedGroup } from './authn.ts';
import type { TokenAuthenticationResult, TokenAuthenticator } from './authn.ts';

/** What the authenticator reads: the API tier's view of the replicated state (StoreClient). */
export interface TokenSecretReader {
  get(key: ObjectKey): KubeObject | undefined;
  lifecycleOf(key: ObjectKey): Lifecycle | undefined;
}

/** Constant-time equality of two strings of any lengths (compares their SHA-256 digests). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}

function rejected(reason: string): TokenAuthenticationResult {
  return { type: 'rejected', reason };
}

/** Authenticates a bootstrap token against the state `reader` holds, at the time `now` gives. */
export function authenticateBootstrapToken(token: string, reader: TokenSecretReader, now: () => Date): TokenAuthenticationResult {
  const match = bootstrapTokenPattern.exec(token);
  // Not shaped like a bootstrap token: another token authenticator's (kube's tokenRegexp check).
  if (match === null) return { type: 'noCredentials' };
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

/** The token authenticator: not a bootstrap token's shape → noCredentials; else authenticated or rejected. */
export function bootstrapTokenAuthenticator(reader: TokenSecretReader, now: () => Date = () => new Date()): TokenAuthenticator {
  return (token) => authenticateBootstrapToken(token, reader, now);
}
