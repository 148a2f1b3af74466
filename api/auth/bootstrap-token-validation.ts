// Owns: validation of bootstrap token secrets (spec: Bootstrap token secret): a Secret of type
// bootstrap.kubernetes.io/token in kube-system must be named bootstrap-token-<token-id> and carry
// a token-id ([a-z0-9]{6}) and token-secret ([a-z0-9]{16}); an expiration, when set, is RFC 3339;
// every usage-bootstrap-* value is "true"; each auth-extra-groups entry matches
// cluster-bootstrap's BootstrapGroupPattern. Problems are 422 causes in apimachinery's field
// error wording, with cluster-bootstrap's own messages where it has one (the group check).
// kube-apiserver itself stores malformed token secrets and ignores them at authentication; the
// spec asks for them to be refused, so a client learns at once.
// Must not: echo the token secret in any message (its cause omits the value, as
// field.Invalid with an omitted value does).
import {
  bootstrapGroupPattern, bootstrapGroupPatternText, bootstrapTokenNamespace, bootstrapTokenSecretPrefix, expirationKey, expirationMillis,
  extraGroupsKey, hasBootstrapTokenType, tokenIdKey, tokenIdPattern, tokenSecretData, tokenSecretKey, tokenSecretPattern, usagePrefix,
} from '../../actors/index.ts';
import type { KubeObject } from '../../actors/index.ts';
import { invalidValue, requiredValue } from '../registry/validation.ts';
import type { StatusCause } from '../status.ts';

const tokenIdMessage = "a bootstrap token ID must consist of 6 lowercase alphanumeric characters (regex used for validation is '[a-z0-9]{6}')";
const tokenSecretMessage = "a bootstrap token secret must consist of 16 lowercase alphanumeric characters (regex used for validation is '[a-z0-9]{16}')";

function field(key: string): string {
  return `data[${key}]`;
}

/** Whether the token rules apply: the token type, in kube-system (where the authenticator looks). */
export function isValidatedTokenSecret(object: KubeObject): boolean {
  return hasBootstrapTokenType(object) && object.metadata.namespace === bootstrapTokenNamespace;
}

/** The 422 causes of a bootstrap token secret (empty when valid or not a token secret). */
export function bootstrapTokenCauses(object: KubeObject): StatusCause[] {
  if (!isValidatedTokenSecret(object)) return [];
  const data = tokenSecretData(object);
  const causes: StatusCause[] = [];
  const id = data[tokenIdKey];
  if (id === undefined || id === '') causes.push(requiredValue(field(tokenIdKey), 'a bootstrap token secret needs its token ID'));
  else if (!tokenIdPattern.test(id)) causes.push(invalidValue(field(tokenIdKey), id, tokenIdMessage));
  const name = object.metadata.name ?? '';
  const expectedName = id !== undefined && tokenIdPattern.test(id) ? `${bootstrapTokenSecretPrefix}${id}` : undefined;
  if (expectedName !== undefined && name !== expectedName) {
    causes.push(invalidValue('metadata.name', name, `a bootstrap token secret must be named ${bootstrapTokenSecretPrefix}<token-id>, here ${JSON.stringify(expectedName)}`));
  } else if (expectedName === undefined && !name.startsWith(bootstrapTokenSecretPrefix)) {
    causes.push(invalidValue('metadata.name', name, `a bootstrap token secret must be named ${bootstrapTokenSecretPrefix}<token-id>`));
  }
  const secret = data[tokenSecretKey];
  if (secret === undefined || secret === '') causes.push(requiredValue(field(tokenSecretKey), 'a bootstrap token secret needs its token secret'));
  else if (!tokenSecretPattern.test(secret)) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${tokenSecretMessage}`, field: field(tokenSecretKey) });
  const expiration = data[expirationKey];
  if (expiration !== undefined && expirationMillis(expiration) === undefined) {
    causes.push(invalidValue(field(expirationKey), expiration, 'must be a date-time in RFC 3339 format (e.g. "2006-01-02T15:04:05Z")'));
  }
  for (const [key, value] of Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (key.startsWith(usagePrefix) && value !== 'true') causes.push(invalidValue(field(key), value, 'a bootstrap token usage must be "true" (or left out)'));
  }
  const groups = data[extraGroupsKey];
  if (groups !== undefined) {
    for (const raw of groups.split(',')) {
      const group = raw.trim();
      if (!bootstrapGroupPattern.test(group)) {
        causes.push(invalidValue(field(extraGroupsKey), group, `bootstrap group ${JSON.stringify(group)} is invalid (must match ${bootstrapGroupPatternText})`));
      }
    }
  }
  return causes;
}
