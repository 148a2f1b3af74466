// Owns: the service account token authenticator (kube's bound and legacy service account
// authenticators: pkg/serviceaccount jwt.go's JWTTokenAuthenticator with claims.go's validator and
// legacy.go's legacyValidator). service-account-token.ts decides whether a token is ours and what
// it says; this module checks what it says against the replicated state:
// - a bound token (any --service-account-issuer): valid in time (60 s leeway); its service
//   account exists with the token's uid and was not deleted more than the leeway ago; a bound
//   secret or pod likewise (missing or deleted: "service account token has been invalidated");
//   a node bound alone likewise; a node named beside a pod is taken as it is. These checks are
//   made whatever --service-account-lookup says, as kube's bound validator always looks up.
// - a legacy secret token (iss kubernetes/serviceaccount): its claims complete and its subject
//   consistent; with --service-account-lookup (default true) its Secret exists, is not being
//   deleted, is not labelled kubernetes.io/legacy-token-invalid-since, holds exactly this token
//   (timing-safe), and its service account exists, is not being deleted and has the claimed uid.
// The user is system:serviceaccount:<ns>:<name> with the account's uid, in system:serviceaccounts,
// system:serviceaccounts:<ns> and system:authenticated, with kube's extra: pod-name/pod-uid (both
// known), node-name (and node-uid when known), credential-id JTI=<jti> (a bound token with a jti).
// A token not ours is noCredentials; reasons never carry the token.
import type { KubeObject, ObjectKey } from '../../actors/index.ts';
import { authenticatedGroup } from './authn.ts';
import type { TokenAuthenticationResult, TokenAuthenticator, UserInfo } from './authn.ts';
import { constantTimeEqual } from './bootstrap-token-authn.ts';
import type { ServiceAccountPublicKey } from './service-account-keys.ts';
import {
  allServiceAccountsGroup, boundTokenTimeProblem, leewaySeconds, legacyTokenClaimProblem, serviceAccountGroupPrefix, serviceAccountTokenVerifier,
  serviceAccountUsername,
} from './service-account-token.ts';
import type { BoundTokenClaims, LegacyTokenClaims, ObjectRef } from './service-account-token.ts';

/** What the authenticator reads: the API tier's view of the replicated state (StoreClient). */
export interface ServiceAccountObjectReader {
  get(key: ObjectKey): KubeObject | undefined;
}

export interface ServiceAccountAuthenticatorOptions {
  /** --service-account-key-file's keys. */
  readonly publicKeys: readonly ServiceAccountPublicKey[];
  /** --service-account-issuer (all accepted; none: only legacy tokens are recognised). */
  readonly issuers: readonly string[];
  /** --api-audiences (kube's default: the issuers). */
  readonly apiAudiences: readonly string[];
  readonly reader: ServiceAccountObjectReader;
  /** --service-account-lookup for legacy tokens (default true). */
  readonly lookup?: boolean;
  readonly now?: () => Date;
}

/** kube's user.Info extra keys of a service account user. */
export const podNameExtraKey = 'authentication.kubernetes.io/pod-name';
export const podUidExtraKey = 'authentication.kubernetes.io/pod-uid';
export const nodeNameExtraKey = 'authentication.kubernetes.io/node-name';
export const nodeUidExtraKey = 'authentication.kubernetes.io/node-uid';
export const credentialIdExtraKey = 'authentication.kubernetes.io/credential-id';
/** The label the legacy token cleaner puts on a secret whose token it invalidated. */
export const invalidSinceLabelKey = 'kubernetes.io/legacy-token-invalid-since';

/** ServiceAccountInfo: who a valid token identifies. */
interface ServiceAccountInfo {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly podName?: string;
  readonly podUid?: string;
  readonly nodeName?: string;
  readonly nodeUid?: string;
  readonly credentialId?: string;
}

type Checked = { readonly info: ServiceAccountInfo } | { readonly reason: string };

/** ServiceAccountInfo.UserInfo, with system:authenticated added as the authenticator chain does. */
export function serviceAccountUser(info: ServiceAccountInfo): UserInfo {
  const extra: Record<string, readonly string[]> = {};
  if (info.podName && info.podUid) {
    extra[podNameExtraKey] = [info.podName];
    extra[podUidExtraKey] = [info.podUid];
  }
  if (info.credentialId) extra[credentialIdExtraKey] = [info.credentialId];
  if (info.nodeName) {
    extra[nodeNameExtraKey] = [info.nodeName];
    if (info.nodeUid) extra[nodeUidExtraKey] = [info.nodeUid];
  }
  return {
    name: serviceAccountUsername(info.namespace, info.name), uid: info.uid,
    groups: [allServiceAccountsGroup, `${serviceAccountGroupPrefix}${info.namespace}`, authenticatedGroup], extra,
  };
}

function coreKey(resource: string, namespace: string, name: string): ObjectKey {
  return { group: '', resource, namespace, name };
}

/** Deleted before `cutoffMs` (a deletionTimestamp at or after it still counts as live). */
function deletedBefore(object: KubeObject, cutoffMs: number): boolean {
  const stamp = object.metadata.deletionTimestamp;
  if (stamp === undefined || stamp === null) return false;
  const at = Date.parse(stamp);
  return Number.isNaN(at) || at < cutoffMs;
}

const invalidated = 'service account token has been invalidated';

/** A bound secret or pod (or a node bound alone): present, same uid, not deleted before the cutoff. */
function boundObjectProblem(object: KubeObject | undefined, ref: ObjectRef, kind: 'secret' | 'pod' | 'node', cutoffMs: number): string | undefined {
  if (object === undefined) return invalidated;
  const uid = object.metadata.uid ?? '';
  if (uid !== ref.uid) return `${kind} UID (${uid}) does not match service account ${kind} ref claim (${ref.uid})`;
  if (deletedBefore(object, cutoffMs)) return invalidated;
  return undefined;
}

/** kube's claims.go validator. */
function checkBound(claims: BoundTokenClaims, reader: ServiceAccountObjectReader, now: Date): Checked {
  const timing = boundTokenTimeProblem(claims, now);
  if (timing !== undefined) return { reason: timing };
  const cutoffMs = now.getTime() - leewaySeconds * 1000;
  const { namespace, serviceAccount: saRef } = claims;
  const account = reader.get(coreKey('serviceaccounts', namespace, saRef.name));
  if (account === undefined) return { reason: `serviceaccounts ${JSON.stringify(saRef.name)} not found` };
  const accountUid = account.metadata.uid ?? '';
  if (accountUid !== saRef.uid) return { reason: `service account UID (${accountUid}) does not match claim (${saRef.uid})` };
  if (deletedBefore(account, cutoffMs)) return { reason: `service account ${namespace}/${saRef.name} has been deleted` };
  if (claims.secret !== undefined) {
    const problem = boundObjectProblem(reader.get(coreKey('secrets', namespace, claims.secret.name)), claims.secret, 'secret', cutoffMs);
    if (problem !== undefined) return { reason: problem };
  }
  if (claims.pod !== undefined) {
    const problem = boundObjectProblem(reader.get(coreKey('pods', namespace, claims.pod.name)), claims.pod, 'pod', cutoffMs);
    if (problem !== undefined) return { reason: problem };
  }
  if (claims.node !== undefined && claims.pod === undefined) {
    const problem = boundObjectProblem(reader.get(coreKey('nodes', '', claims.node.name)), claims.node, 'node', cutoffMs);
    if (problem !== undefined) return { reason: problem };
  }
  return {
    info: {
      namespace, name: saRef.name, uid: saRef.uid,
      ...(claims.pod === undefined ? {} : { podName: claims.pod.name, podUid: claims.pod.uid }),
      ...(claims.node === undefined ? {} : { nodeName: claims.node.name, nodeUid: claims.node.uid }),
      ...(claims.jti === '' ? {} : { credentialId: `JTI=${claims.jti}` }),
    },
  };
}

/** The token a service account token Secret holds (its data.token, base64-decoded bytes). */
function storedToken(secret: KubeObject): string | undefined {
  const data = secret['data'];
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const encoded = (data as Record<string, unknown>)['token'];
  return typeof encoded === 'string' ? Buffer.from(encoded, 'base64').toString('latin1') : undefined;
}

/** kube's legacy.go validator. */
function checkLegacy(claims: LegacyTokenClaims, token: string, reader: ServiceAccountObjectReader, lookup: boolean): Checked {
  const problem = legacyTokenClaimProblem(claims);
  if (problem !== undefined) return { reason: problem };
  const { namespace, secretName, serviceAccountName: name, serviceAccountUid: uid } = claims;
  if (lookup) {
    const secret = reader.get(coreKey('secrets', namespace, secretName));
    if (secret === undefined || secret.metadata.deletionTimestamp !== undefined) return { reason: 'Token has been invalidated' };
    if (!constantTimeEqual(storedToken(secret) ?? '', token)) return { reason: "Token does not match server's copy" };
    const account = reader.get(coreKey('serviceaccounts', namespace, name));
    if (account === undefined) return { reason: `serviceaccounts ${JSON.stringify(name)} not found` };
    if (account.metadata.deletionTimestamp !== undefined) return { reason: `ServiceAccount ${namespace}/${name} has been deleted` };
    const accountUid = account.metadata.uid ?? '';
    if (accountUid !== uid) return { reason: `ServiceAccount UID (${accountUid}) does not match claim (${uid})` };
    const invalidSince = secret.metadata.labels?.[invalidSinceLabelKey];
    if (invalidSince !== undefined && invalidSince !== '') {
      return {
        reason: `the token in secret ${namespace}/${secretName} for service account ${namespace}/${name} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${invalidSinceLabelKey}' label from the secret to temporarily allow use of this token`,
      };
    }
  }
  return { info: { namespace, name, uid } };
}

/**
 * The token authenticator: not a service account token of ours → noCredentials; else authenticated
 * (with the audiences, of those asked for or else the API audiences, the token was accepted for)
 * or rejected.
 */
export function serviceAccountTokenAuthenticator(options: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const verify = serviceAccountTokenVerifier(options);
  const now = options.now ?? (() => new Date());
  const lookup = options.lookup ?? true;
  return async (token, audiences): Promise<TokenAuthenticationResult> => {
    const verification = await verify(token, audiences);
    if (verification.type === 'foreign') return { type: 'noCredentials' };
    if (verification.type === 'rejected') return verification;
    const { claims } = verification;
    const checked = claims.kind === 'bound' ? checkBound(claims, options.reader, now()) : checkLegacy(claims, token, options.reader, lookup);
    if ('reason' in checked) return { type: 'rejected', reason: checked.reason };
    return { type: 'authenticated', user: serviceAccountUser(checked.info), audiences: verification.audiences };
  };
}
