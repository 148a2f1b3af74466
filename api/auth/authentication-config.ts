// Owns: the --authentication-config file (kind AuthenticationConfiguration of
// apiserver.config.k8s.io; kube 1.33 serves it as v1alpha1 and v1beta1 only), read as
// kube-apiserver reads it: YAML or JSON, decoded strictly (an unknown or duplicate field is an
// error), then validated. kstore takes its `anonymous` part (enabled, conditions[].path) and
// refuses a non-empty `jwt` list: JWT (OIDC) authenticators are not supported by kstore.
// Also the combination with --anonymous-auth: both is an error, the file's part wins over the
// flag otherwise (and is not turned off by AlwaysAllow, which only resets the flag). Errors
// carry kube's wording: `failed to load authentication configuration from file "<f>": ...`,
// `invalid authentication configuration: <field errors>`, and the Forbidden error for
// --anonymous-auth (kube's pkg/kubeapiserver/options/authentication.go and
// staging/src/k8s.io/apiserver/pkg/apis/apiserver/validation/validation.go).
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { effectiveAnonymousAuth } from './anonymous.ts';
import type { AnonymousAuthConfig } from './anonymous.ts';

export const authenticationConfigGroup = 'apiserver.config.k8s.io';
export const authenticationConfigKind = 'AuthenticationConfiguration';
/** The versions kube-apiserver 1.33 decodes AuthenticationConfiguration from (v1 came in 1.34). */
export const authenticationConfigVersions: readonly string[] = ['v1alpha1', 'v1beta1'];

export interface AnonymousAuthCondition {
  readonly path: string;
}

/** The file's `anonymous` (kube's AnonymousAuthConfig). */
export interface AnonymousAuthSection {
  readonly enabled: boolean;
  readonly conditions: readonly AnonymousAuthCondition[];
}

/** What kstore keeps of an AuthenticationConfiguration. */
export interface AuthenticationConfiguration {
  readonly apiVersion: string;
  /** How many JWT authenticators the file lists (validation refuses any). */
  readonly jwtCount: number;
  /** Absent (or null) in the file: undefined; then --anonymous-auth decides. */
  readonly anonymous?: AnonymousAuthSection;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Go's json type names for the wording of a type mismatch. */
function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

function typeMismatch(value: unknown, goStruct: string, field: string, goType: string): Error {
  return new Error(`json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${goStruct}.${field} of type ${goType}`);
}

/** Reports the fields of `object` that are not `known`, in document order, as Go's strict decoder names them. */
function reportUnknown(key: string, known: readonly string[], path: string, unknown: string[]): void {
  if (!known.includes(key)) unknown.push(`unknown field "${path}${key}"`);
}

function decodeCondition(item: unknown, index: number, unknown: string[]): AnonymousAuthCondition {
  if (item === null) return { path: '' };
  if (!isObject(item)) throw typeMismatch(item, 'AnonymousAuthConfig', 'anonymous.conditions', 'v1beta1.AnonymousAuthCondition');
  for (const key of Object.keys(item)) reportUnknown(key, ['path'], `anonymous.conditions[${index}].`, unknown);
  const path = item['path'];
  if (path !== undefined && path !== null && typeof path !== 'string') throw typeMismatch(path, 'AnonymousAuthCondition', 'anonymous.conditions.path', 'string');
  return { path: typeof path === 'string' ? path : '' };
}

function decodeAnonymous(value: unknown, unknown: string[]): AnonymousAuthSection | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw typeMismatch(value, 'AuthenticationConfiguration', 'anonymous', 'v1beta1.AnonymousAuthConfig');
  let enabled = false;
  let conditions: AnonymousAuthCondition[] = [];
  for (const [key, field] of Object.entries(value)) {
    reportUnknown(key, ['enabled', 'conditions'], 'anonymous.', unknown);
    if (key === 'enabled') {
      if (field !== null && typeof field !== 'boolean') throw typeMismatch(field, 'AnonymousAuthConfig', 'anonymous.enabled', 'bool');
      enabled = field === true;
    } else if (key === 'conditions' && field !== null) {
      if (!Array.isArray(field)) throw typeMismatch(field, 'AnonymousAuthConfig', 'anonymous.conditions', '[]v1beta1.AnonymousAuthCondition');
      conditions = field.map((item: unknown, index) => decodeCondition(item, index, unknown));
    }
  }
  return { enabled, conditions };
}

/**
 * Decodes the content of an AuthenticationConfiguration file (YAML or JSON). Throws kube's
 * decoding errors (without the file name; loadAuthenticationConfiguration adds it).
 */
export function parseAuthenticationConfiguration(text: string): AuthenticationConfiguration {
  if (text.length === 0) throw new Error('empty config data');
  const document = parseDocument(text, { version: '1.1', uniqueKeys: true });
  const duplicate = document.errors.find((error) => error.code === 'DUPLICATE_KEY');
  if (duplicate !== undefined) throw new Error(`strict decoding error: yaml: ${duplicate.message.split('\n', 1)[0]}`);
  if (document.errors.length > 0) throw new Error(`error converting YAML to JSON: yaml: ${document.errors[0]!.message.split('\n', 1)[0]}`);
  const data: unknown = document.toJS();
  if (!isObject(data)) throw new Error(`couldn't get version/kind; json parse error: cannot decode ${jsonTypeName(data)} into an object`);
  const kind = typeof data['kind'] === 'string' ? data['kind'] : '';
  const apiVersion = typeof data['apiVersion'] === 'string' ? data['apiVersion'] : '';
  if (kind === '') throw new Error(`Object 'Kind' is missing in '${text}'`);
  if (apiVersion === '') throw new Error(`Object 'apiVersion' is missing in '${text}'`);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  if (group !== authenticationConfigGroup || !authenticationConfigVersions.includes(version ?? '') || kind !== authenticationConfigKind) {
    throw new Error(`no kind "${kind}" is registered for version "${apiVersion}"`);
  }
  const unknown: string[] = [];
  let anonymous: AnonymousAuthSection | undefined;
  for (const [key, field] of Object.entries(data)) {
    reportUnknown(key, ['apiVersion', 'kind', 'jwt', 'anonymous'], '', unknown);
    if (key === 'jwt' && field !== null && !Array.isArray(field)) throw typeMismatch(field, 'AuthenticationConfiguration', 'jwt', `[]${version}.JWTAuthenticator`);
    if (key === 'anonymous') anonymous = decodeAnonymous(field, unknown);
  }
  const jwt = data['jwt'];
  if (unknown.length > 0) throw new Error(`strict decoding error: ${unknown.join(', ')}`);
  return { apiVersion, jwtCount: Array.isArray(jwt) ? jwt.length : 0, ...(anonymous === undefined ? {} : { anonymous }) };
}

/** Reads and decodes the file, with kube's "failed to load authentication configuration" wrapper. */
export async function loadAuthenticationConfiguration(file: string): Promise<AuthenticationConfiguration> {
  try {
    return parseAuthenticationConfiguration(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? `open ${file}: no such file or directory` : (error as Error).message;
    throw new Error(`failed to load authentication configuration from file "${file}": ${reason}`);
  }
}

/** Go's %#v of the conditions, as kube's field.Invalid prints them. */
function goConditions(conditions: readonly AnonymousAuthCondition[]): string {
  return `[]apiserver.AnonymousAuthCondition{${conditions.map((condition) => `apiserver.AnonymousAuthCondition{Path:${JSON.stringify(condition.path)}}`).join(', ')}}`;
}

/**
 * kube's ValidateAuthenticationConfiguration for what kstore supports: the field errors, each
 * worded as kube's field.Error. A JWT authenticator is refused (kstore has none).
 */
export function validateAuthenticationConfiguration(config: AuthenticationConfiguration): string[] {
  const errors: string[] = [];
  if (config.jwtCount > 64) errors.push(`jwt: Too many: ${config.jwtCount}: must have at most 64 items`);
  else if (config.jwtCount > 0) errors.push('jwt: Forbidden: JWT authenticators are not supported by kstore');
  const anonymous = config.anonymous;
  if (anonymous !== undefined && !anonymous.enabled && anonymous.conditions.length > 0) {
    errors.push(`anonymous.conditions: Invalid value: ${goConditions(anonymous.conditions)}: enabled should be set to true when conditions are defined`);
  }
  return errors;
}

/** kube's utilerrors aggregate wording: one error as it is, several in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/** The Forbidden error of --anonymous-auth together with a file that configures `anonymous`. */
export const anonymousFlagWithConfigError =
  'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file';

export interface AnonymousResolutionInputs {
  /** The decoded --authentication-config, when given. */
  readonly config?: AuthenticationConfiguration;
  /** --anonymous-auth as given on the command line (undefined: not given). */
  readonly anonymousAuthFlag: boolean | undefined;
  /** --authorization-mode (AlwaysAllow turns the flag's anonymous auth off). */
  readonly authorizationModes: readonly string[];
}

/**
 * The anonymous configuration kube-apiserver ends with (its ToAuthenticationConfig after
 * ApplyAuthorization): the file's `anonymous` when present (an error when --anonymous-auth was
 * also given), else the flag's; then the file validated. Throws kube's errors; `warning` is
 * the AlwaysAllow notice to log.
 */
export function resolveAnonymousAuth(inputs: AnonymousResolutionInputs): { readonly anonymous: AnonymousAuthConfig; readonly warning?: string } {
  const fromFile = inputs.config?.anonymous;
  let result: { anonymous: AnonymousAuthConfig; warning?: string };
  if (fromFile !== undefined) {
    if (inputs.anonymousAuthFlag !== undefined) throw new Error(anonymousFlagWithConfigError);
    result = { anonymous: { enabled: fromFile.enabled, paths: fromFile.conditions.map((condition) => condition.path) } };
  } else {
    const { enabled, warning } = effectiveAnonymousAuth(inputs.anonymousAuthFlag, inputs.authorizationModes);
    result = { anonymous: { enabled }, ...(warning === undefined ? {} : { warning }) };
  }
  if (inputs.config !== undefined) {
    const errors = validateAuthenticationConfiguration(inputs.config);
    if (errors.length > 0) throw new Error(`invalid authentication configuration: ${aggregate(errors)}`);
  }
  return result;
}
