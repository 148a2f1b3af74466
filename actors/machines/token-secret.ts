// Owns: what a bootstrap token secret is (spec: Bootstrap token secret; k8s.io/cluster-bootstrap
// token/api): its type, namespace, name prefix, data keys and formats, and pure readers of its
// data (base64-decoded), shared by apply (the token machine), the API tier (validation and the
// bootstrap token authenticator) and the token controllers.
// Must not: read a clock (callers pass the time to compare with) or log anything: the values
// read here include the token secret, which never leaves this process in a log line.
import type { KubeObject, ObjectKey } from '../object.ts';
import { rfc3339ToMillis } from '../time.ts';

export const bootstrapTokenSecretType = 'bootstrap.kubernetes.io/token';
/** The namespace the authenticator and the controllers read token secrets from. */
export const bootstrapTokenNamespace = 'kube-system';
export const bootstrapTokenSecretPrefix = 'bootstrap-token-';
/** User name prefix and the group every bootstrap token user belongs to. */
export const bootstrapUserPrefix = 'system:bootstrap:';
export const bootstrappersGroup = 'system:bootstrappers';

export const tokenIdKey = 'token-id';
export const tokenSecretKey = 'token-secret';
export const expirationKey = 'expiration';
export const descriptionKey = 'description';
export const usageAuthenticationKey = 'usage-bootstrap-authentication';
export const usageSigningKey = 'usage-bootstrap-signing';
export const usagePrefix = 'usage-bootstrap-';
export const extraGroupsKey = 'auth-extra-groups';

/** The public namespace and ConfigMap the bootstrap signer signs. */
export const clusterInfoNamespace = 'kube-public';
export const clusterInfoName = 'cluster-info';
export const kubeconfigKey = 'kubeconfig';
export const jwsSignaturePrefix = 'jws-kubeconfig-';

export const tokenIdPattern = /^[a-z0-9]{6}$/;
export const tokenSecretPattern = /^[a-z0-9]{16}$/;
/** `<id>.<secret>` (cluster-bootstrap's BootstrapTokenPattern). */
export const bootstrapTokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
/** cluster-bootstrap's BootstrapGroupPattern. */
export const bootstrapGroupPattern = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
export const bootstrapGroupPatternText = '\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether the key names a secret the token machinery considers (kube-system, bootstrap-token-*). */
export function isBootstrapTokenKey(key: ObjectKey): boolean {
  return key.group === '' && key.resource === 'secrets' && key.namespace === bootstrapTokenNamespace && key.name.startsWith(bootstrapTokenSecretPrefix);
}

/** A core/v1 Secret of the bootstrap token type (anywhere; callers check the namespace). */
export function hasBootstrapTokenType(object: KubeObject): boolean {
  return object.apiVersion === 'v1' && object.kind === 'Secret' && object['type'] === bootstrapTokenSecretType;
}

/** A secret the token lifecycle governs: the type, in kube-system, named bootstrap-token-*. */
export function isBootstrapTokenSecret(key: ObjectKey, object: KubeObject): boolean {
  return isBootstrapTokenKey(key) && hasBootstrapTokenType(object);
}

/** The secret's data, base64-decoded as UTF-8 (kube's GetData); entries that are not strings are skipped. */
export function tokenSecretData(object: KubeObject): Record<string, string> {
  const data = object['data'];
  const decoded: Record<string, string> = {};
  if (!isRecord(data)) return decoded;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string') decoded[key] = Buffer.from(value, 'base64').toString('utf8');
  }
  return decoded;
}

/** The token id a secret name carries (`bootstrap-token-<id>`), or undefined (cluster-bootstrap's ParseName). */
export function tokenIdFromName(name: string): string | undefined {
  if (!name.startsWith(bootstrapTokenSecretPrefix)) return undefined;
  const id = name.slice(bootstrapTokenSecretPrefix.length);
  return tokenIdPattern.test(id) ? id : undefined;
}

/** Epoch milliseconds of an expiration (RFC 3339, any offset), undefined when it is not one. */
export function expirationMillis(expiration: string): number | undefined {
  return rfc3339ToMillis(expiration);
}

/**
 * Whether `expiration` (RFC 3339) is at or before `atMillis`. An unparseable expiration counts
 * as expired (cluster-bootstrap's HasExpired treats it so); an absent one never expires.
 */
export function expirationReached(expiration: string | null | undefined, atMillis: number): boolean {
  if (expiration === null || expiration === undefined) return false;
  const millis = rfc3339ToMillis(expiration);
  return millis === undefined || millis <= atMillis;
}

/** The groups a token authenticates with: system:bootstrappers then the valid extra groups, deduplicated (kube's GetGroups). */
export function tokenGroups(data: Readonly<Record<string, string>>): { readonly groups: readonly string[]; readonly invalid: readonly string[] } {
  const groups = [bootstrappersGroup];
  const invalid: string[] = [];
  const extra = data[extraGroupsKey];
  if (extra === undefined || extra === '') return { groups, invalid };
  for (const raw of extra.split(',')) {
    const group = raw.trim();
    if (!bootstrapGroupPattern.test(group)) invalid.push(group);
    else if (!groups.includes(group)) groups.push(group);
  }
  return { groups, invalid };
}
