// Owns: the ABAC authorization mode (--authorization-mode=ABAC with
// --authorization-policy-file), as kube's pkg/auth/authorizer/abac has it: the policy file is
// JSON lines, one Policy each; blank lines and lines starting with `#` (after trimming) are
// skipped. A line of abac.authorization.kubernetes.io/v1beta1 is taken as is, except that a user
// or group of "*" becomes the group system:authenticated (pkg/apis/abac/v1beta1 conversion); a
// line without apiVersion (or of .../v0) is the legacy unversioned form and is converted as
// pkg/apis/abac/v0 does (no user and no group → system:authenticated; "*" likewise; empty
// namespace or resource → "*"; every API group; both empty → every non-resource path too).
// A bad line fails the whole file with `error reading policy file <path>, line <n>: <line>: <why>`.
// The authorizer allows when any policy matches and otherwise has no opinion ("No policy
// matched."); it never denies.
import { readFile } from 'node:fs/promises';
import type { UserInfo } from './authn.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authz.ts';

/** One policy in kube's internal form (pkg/apis/abac Policy.Spec). */
export interface AbacPolicy {
  readonly user: string;
  readonly group: string;
  readonly readonly: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly namespace: string;
  readonly nonResourcePath: string;
}

export const abacGroup = 'abac.authorization.kubernetes.io';
const v1beta1 = `${abacGroup}/v1beta1`;
const v0 = `${abacGroup}/v0`;
const allAuthenticated = 'system:authenticated';
/** bufio.Scanner's default largest line (bufio.MaxScanTokenSize). */
const maxLineBytes = 64 * 1024;

export class AbacPolicyFileError extends Error {
  override readonly name = 'AbacPolicyFileError';
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Go's encoding/json type names, for its "cannot unmarshal" errors. */
function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function stringField(object: JsonObject, field: string, path: string): string {
  const value = object[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new Error(`json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${path}.${field} of type string`);
  return value;
}

function boolField(object: JsonObject, field: string, path: string): boolean {
  const value = object[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new Error(`json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${path}.${field} of type bool`);
  return value;
}

function fromV1beta1(object: JsonObject): AbacPolicy {
  const raw = object['spec'];
  if (raw !== undefined && raw !== null && !isObject(raw)) {
    throw new Error(`json: cannot unmarshal ${jsonTypeName(raw)} into Go struct field Policy.spec of type v1beta1.PolicySpec`);
  }
  const spec = isObject(raw) ? raw : {};
  const path = 'PolicySpec';
  const policy: AbacPolicy = {
    user: stringField(spec, 'user', path), group: stringField(spec, 'group', path), readonly: boolField(spec, 'readonly', path),
    apiGroup: stringField(spec, 'apiGroup', path), resource: stringField(spec, 'resource', path),
    namespace: stringField(spec, 'namespace', path), nonResourcePath: stringField(spec, 'nonResourcePath', path),
  };
  if (policy.user === '*' || policy.group === '*') return { ...policy, user: '', group: allAuthenticated };
  return policy;
}

function fromV0(object: JsonObject): AbacPolicy {
  const path = 'Policy';
  const user = stringField(object, 'user', path);
  const group = stringField(object, 'group', path);
  const namespace = stringField(object, 'namespace', path);
  const resource = stringField(object, 'resource', path);
  const wildcard = user === '*' || group === '*';
  return {
    user: wildcard ? '' : user,
    group: wildcard || (user === '' && group === '') ? allAuthenticated : group,
    readonly: boolField(object, 'readonly', path),
    apiGroup: '*',
    resource: resource === '' ? '*' : resource,
    namespace: namespace === '' ? '*' : namespace,
    nonResourcePath: namespace === '' && resource === '' ? '*' : '',
  };
}

/** Decodes one policy line; throws with the reason kube would give for it. */
function decodeLine(line: string): AbacPolicy {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw new Error((error as Error).message);
  }
  if (!isObject(parsed)) throw new Error(`json: cannot unmarshal ${jsonTypeName(parsed)} into Go value of type struct`);
  const apiVersion = stringField(parsed, 'apiVersion', 'TypeMeta');
  // A line without kind decodes into the Policy it is read as.
  const kind = stringField(parsed, 'kind', 'TypeMeta') || 'Policy';
  if (apiVersion === '') return fromV0(parsed);
  if (kind === 'Policy' && apiVersion === v1beta1) return fromV1beta1(parsed);
  if (kind === 'Policy' && apiVersion === v0) return fromV0(parsed);
  throw new Error(`no kind "${kind}" is registered for version "${apiVersion}"`);
}

/**
 * Parses the text of an --authorization-policy-file. `fileName` only names the file in errors.
 * Throws AbacPolicyFileError naming the first bad line (1-based, as kube counts them).
 */
export function parseAbacPolicyFile(text: string, fileName: string): AbacPolicy[] {
  const policies: AbacPolicy[] = [];
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines.at(-1) === '') lines.pop();
  for (const [index, rawLine] of lines.entries()) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (Buffer.byteLength(line) > maxLineBytes) {
      throw new AbacPolicyFileError(`error reading policy file ${fileName}: bufio.Scanner: token too long`);
    }
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      policies.push(decodeLine(line));
    } catch (error) {
      throw new AbacPolicyFileError(`error reading policy file ${fileName}, line ${index + 1}: ${line}: ${(error as Error).message}`);
    }
  }
  return policies;
}

/** Reads and parses the policy file at `path` (kube's abac.NewFromFile). */
export async function loadAbacPolicyFile(path: string): Promise<AbacPolicy[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new AbacPolicyFileError(`open ${path}: ${why}`);
  }
  return parseAbacPolicyFile(text, path);
}

function subjectMatches(policy: AbacPolicy, user: UserInfo): boolean {
  let matched = false;
  if (policy.user !== '') {
    if (policy.user === '*') matched = true;
    else if (policy.user === user.name) matched = true;
    else return false;
  }
  if (policy.group !== '') {
    if (policy.group === '*') matched = true;
    else if (user.groups.includes(policy.group)) matched = true;
    else return false;
  }
  return matched;
}

/** kube's AttributesRecord.IsReadOnly. */
function isReadOnly(verb: string): boolean {
  return verb === 'get' || verb === 'list' || verb === 'watch';
}

function resourceMatches(policy: AbacPolicy, attributes: AuthorizationAttributes): boolean {
  return attributes.isResourceRequest
    && (policy.namespace === '*' || policy.namespace === attributes.namespace)
    && (policy.resource === '*' || policy.resource === attributes.resource)
    && (policy.apiGroup === '*' || policy.apiGroup === attributes.apiGroup);
}

function nonResourceMatches(policy: AbacPolicy, attributes: AuthorizationAttributes): boolean {
  if (attributes.isResourceRequest) return false;
  const pattern = policy.nonResourcePath;
  if (pattern === '*' || pattern === attributes.path) return true;
  // A trailing * matches every path under the prefix (all trailing stars trimmed, as kube's TrimRight).
  return pattern.endsWith('*') && attributes.path.startsWith(pattern.replace(/\*+$/, ''));
}

/** Whether one policy allows the request (kube's abac matches). */
export function abacPolicyMatches(policy: AbacPolicy, attributes: AuthorizationAttributes): boolean {
  if (!subjectMatches(policy, attributes.user)) return false;
  if (!isReadOnly(attributes.verb) && policy.readonly) return false;
  return resourceMatches(policy, attributes) || nonResourceMatches(policy, attributes);
}

export const abacNoMatchReason = 'No policy matched.';

export function abacAuthorizer(policies: readonly AbacPolicy[]): Authorizer {
  const list = [...policies];
  return {
    name: 'ABAC',
    authorize: (attributes): AuthorizationResult => (list.some((policy) => abacPolicyMatches(policy, attributes))
      ? { decision: 'allow', reason: '' }
      : { decision: 'noOpinion', reason: abacNoMatchReason }),
  };
}
