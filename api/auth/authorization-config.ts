// Owns: --authorization-config: reading an AuthorizationConfiguration file (YAML or JSON,
// apiserver.config.k8s.io v1, v1beta1 or v1alpha1) the way kube's strict decoder does (unknown
// fields, wrong JSON types, missing kind/apiVersion; kube's staging/src/k8s.io/apiserver/pkg/apis/
// apiserver/load/load.go), the versioned defaults (authorizedTTL 5m0s, unauthorizedTTL 30s),
// kube's ValidateAuthorizationConfiguration (staging/src/k8s.io/apiserver/pkg/apis/apiserver/
// validation/validation.go) with its field paths and messages, kube-apiserver's own checks
// (pkg/kubeapiserver/authorizer/config.go LoadAndValidateData: built-in authorizers named after
// their lowercased type, the types a reload must keep), the flag conflict of
// pkg/kubeapiserver/options/authorization.go, and building the authorizer chain from a valid
// configuration (pkg/kubeapiserver/authorizer/reload.go newForConfig) out of factories the caller
// supplies, each authorizer counted by apiserver_authorization_decisions_total.
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { StatusCause } from '../status.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authz.ts';
import { systemMastersAuthorizer } from './authz.ts';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from './rbac-authorizer.ts';
import { parseGoDurationNanos } from '../go-duration.ts';
import { goQuote } from '../go-format.ts';
import {
  GoText, childPath, duplicateCause, goJson, indexPath, invalidCause, notSupportedCause, requiredCause, tooManyCause,
} from '../crd/structural/field-errors.ts';
import { nameProblems } from '../registry/validation.ts';
import { compileMatchCondition, noMatchConditionMetrics, withMatchConditions } from './authorization-match-conditions.ts';
import type { CompiledMatchCondition, FailurePolicy, MatchConditionMetrics } from './authorization-match-conditions.ts';

export const authorizationConfigGroup = 'apiserver.config.k8s.io';
export const authorizationConfigVersions = ['v1', 'v1beta1', 'v1alpha1'] as const;
export const authorizationConfigKind = 'AuthorizationConfiguration';

/** kube-apiserver's authorizer types (modes.AuthorizationModeChoices); only Webhook may repeat. */
export const authorizerTypes = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizerType = (typeof authorizerTypes)[number];
const repeatableTypes: ReadonlySet<string> = new Set(['Webhook']);

/** The defaults kube's versioned types apply to a webhook (SetDefaults_WebhookConfiguration). */
export const defaultAuthorizedTTLNanos = 5n * 60n * 1_000_000_000n;
export const defaultUnauthorizedTTLNanos = 30n * 1_000_000_000n;
const maxTimeoutNanos = 30n * 1_000_000_000n;
const maxMatchConditions = 64;

// ---- the decoded file (kube's internal AuthorizationConfiguration) ----

export interface DecodedMatchCondition {
  readonly expression: string;
}

export interface DecodedWebhook {
  readonly authorizedTTL: bigint;
  readonly unauthorizedTTL: bigint;
  readonly timeout: bigint;
  readonly subjectAccessReviewVersion: string;
  readonly matchConditionSubjectAccessReviewVersion: string;
  readonly failurePolicy: string;
  readonly connectionInfo: { readonly type: string; readonly kubeConfigFile: string | undefined };
  readonly matchConditions: readonly DecodedMatchCondition[];
}

export interface DecodedAuthorizer {
  readonly type: string;
  readonly name: string;
  readonly webhook: DecodedWebhook | undefined;
}

export interface DecodedAuthorizationConfig {
  readonly apiVersion: string;
  readonly authorizers: readonly DecodedAuthorizer[];
}

// ---- the validated configuration ----

/** A valid Webhook authorizer, in the terms of api/auth/authorization-webhook.ts's options. */
export interface WebhookAuthorizerConfig {
  readonly name: string;
  readonly subjectAccessReviewVersion: 'v1' | 'v1beta1';
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  readonly timeoutMs: number;
  readonly failurePolicy: FailurePolicy;
  readonly connectionType: 'KubeConfigFile' | 'InClusterConfig';
  /** Absolute path of the kubeconfig file (connectionType KubeConfigFile). */
  readonly kubeConfigFile: string | undefined;
  readonly matchConditionSubjectAccessReviewVersion: 'v1' | undefined;
  readonly matchConditions: readonly CompiledMatchCondition[];
}

export type AuthorizerConfig =
  | { readonly type: 'Webhook'; readonly name: string; readonly webhook: WebhookAuthorizerConfig }
  | { readonly type: Exclude<AuthorizerType, 'Webhook'>; readonly name: string };

export interface AuthorizationConfig {
  readonly authorizers: readonly AuthorizerConfig[];
  /** The decoded form, for telling whether a reload changed anything (kube's DeepEqual). */
  readonly canonical: string;
}

/** A field error as kube prints it (`<path>: <body>`), with its reason. */
export interface AuthorizationConfigFieldError {
  readonly field: string;
  readonly reason: string;
  readonly message: string;
}

/** The file could not be read, decoded or validated; the message is kube's. */
export class AuthorizationConfigError extends Error {
  constructor(message: string, readonly fieldErrors: readonly AuthorizationConfigFieldError[] = []) {
    super(message);
    this.name = 'AuthorizationConfigError';
  }
}

/** Go's time.Duration.String of nanoseconds ("5m0s", "1.5s", "300ms", "0s"). */
export function formatGoDurationNanos(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const value = nanos < 0n ? -nanos : nanos;
  const fraction = (whole: bigint, unit: bigint): string => {
    const integer = whole / unit;
    const rest = (whole % unit).toString().padStart(unit.toString().length - 1, '0').replace(/0+$/, '');
    return rest === '' ? integer.toString() : `${integer}.${rest}`;
  };
  if (value < 1_000n) return `${sign}${value}ns`;
  if (value < 1_000_000n) return `${sign}${fraction(value, 1_000n)}µs`;
  if (value < 1_000_000_000n) return `${sign}${fraction(value, 1_000_000n)}ms`;
  const hours = value / 3_600_000_000_000n;
  const minutes = (value / 60_000_000_000n) % 60n;
  const seconds = fraction(value % 60_000_000_000n, 1_000_000_000n);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

// ---- decoding (kube's strict UniversalDecoder) ----

/** kube's scheme name in "not registered" errors (the call site of runtime.NewScheme in load.go). */
const schemeName = 'k8s.io/apiserver/pkg/apis/apiserver/load/load.go:32';

/** Other kinds registered in the apiserver.config.k8s.io versions (decoded, then refused by LoadFromData). */
const otherKinds: Readonly<Record<string, readonly string[]>> = {
  v1: ['AdmissionConfiguration', 'EncryptionConfiguration'],
  v1beta1: ['AuthenticationConfiguration', 'TracingConfiguration'],
  v1alpha1: ['AuthenticationConfiguration', 'TracingConfiguration'],
};

type FieldKind = 'string' | 'duration' | { readonly struct: StructSpec; readonly pointer?: boolean } | { readonly list: StructSpec };

interface StructSpec {
  readonly goName: string;
  readonly fields: Readonly<Record<string, FieldKind | 'pointerString'>>;
}

const matchConditionSpec: StructSpec = { goName: 'WebhookMatchCondition', fields: { expression: 'string' } };
const connectionInfoSpec: StructSpec = { goName: 'WebhookConnectionInfo', fields: { type: 'string', kubeConfigFile: 'pointerString' } };
const webhookSpec: StructSpec = {
  goName: 'WebhookConfiguration',
  fields: {
    authorizedTTL: 'duration', unauthorizedTTL: 'duration', timeout: 'duration', subjectAccessReviewVersion: 'string',
    matchConditionSubjectAccessReviewVersion: 'string', failurePolicy: 'string', connectionInfo: { struct: connectionInfoSpec },
    matchConditions: { list: matchConditionSpec },
  },
};
const authorizerSpec: StructSpec = { goName: 'AuthorizerConfiguration', fields: { type: 'string', name: 'string', webhook: { struct: webhookSpec, pointer: true } } };
const rootSpec: StructSpec = { goName: 'AuthorizationConfiguration', fields: { apiVersion: 'string', kind: 'string', authorizers: { list: authorizerSpec } } };

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'number' || typeof value === 'bigint') return 'number';
  return typeof value;
}

function goTypeOf(kind: FieldKind | 'pointerString', version: string): string {
  if (kind === 'string' || kind === 'duration') return 'string';
  if (kind === 'pointerString') return '*string';
  if ('list' in kind) return `[]${version}.${kind.list.goName}`;
  return `${kind.pointer === true ? '*' : ''}${version}.${kind.struct.goName}`;
}

interface DecodeState {
  readonly version: string;
  readonly unknown: string[];
  typeError: string | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Walks a struct like encoding/json: wrong types keep the first error, unknown fields are collected (strict). */
function checkStruct(value: Record<string, unknown>, spec: StructSpec, path: string, state: DecodeState): void {
  for (const [key, child] of Object.entries(value)) {
    const kind = spec.fields[key];
    const fieldPath = path === '' ? key : `${path}.${key}`;
    if (kind === undefined) {
      state.unknown.push(`unknown field ${goQuote(fieldPath)}`);
      continue;
    }
    if (child === null) continue;
    const mismatch = (): void => {
      state.typeError ??= `json: cannot unmarshal ${jsonKind(child)} into Go struct field ${spec.goName}.${fieldPath.replace(/\[\d+\]/g, '')} of type ${goTypeOf(kind, state.version)}`;
    };
    if (kind === 'string' || kind === 'pointerString') {
      if (typeof child !== 'string') mismatch();
    } else if (kind === 'duration') {
      if (typeof child !== 'string') state.typeError ??= `json: cannot unmarshal ${jsonKind(child)} into Go value of type string`;
      else {
        try {
          parseGoDurationNanos(child);
        } catch (error) {
          state.typeError ??= (error as Error).message;
        }
      }
    } else if ('list' in kind) {
      if (!Array.isArray(child)) mismatch();
      else child.forEach((item, index) => {
        if (item === null) return;
        if (!isRecord(item)) {
          state.typeError ??= `json: cannot unmarshal ${jsonKind(item)} into Go struct field ${spec.goName}.${fieldPath.replace(/\[\d+\]/g, '')} of type ${state.version}.${kind.list.goName}`;
          return;
        }
        checkStruct(item, kind.list, `${fieldPath}[${index}]`, state);
      });
    } else if (!isRecord(child)) mismatch();
    else checkStruct(child, kind.struct, fieldPath, state);
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function duration(value: unknown): bigint {
  return typeof value === 'string' ? parseGoDurationNanos(value) : 0n;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map((item) => (isRecord(item) ? item : {})) : [];
}

function decodeWebhook(value: Record<string, unknown>): DecodedWebhook {
  const connection = isRecord(value['connectionInfo']) ? value['connectionInfo'] : {};
  const kubeConfigFile = connection['kubeConfigFile'];
  const authorizedTTL = duration(value['authorizedTTL']);
  const unauthorizedTTL = duration(value['unauthorizedTTL']);
  return {
    authorizedTTL: authorizedTTL === 0n ? defaultAuthorizedTTLNanos : authorizedTTL,
    unauthorizedTTL: unauthorizedTTL === 0n ? defaultUnauthorizedTTLNanos : unauthorizedTTL,
    timeout: duration(value['timeout']),
    subjectAccessReviewVersion: text(value['subjectAccessReviewVersion']),
    matchConditionSubjectAccessReviewVersion: text(value['matchConditionSubjectAccessReviewVersion']),
    failurePolicy: text(value['failurePolicy']),
    connectionInfo: { type: text(connection['type']), kubeConfigFile: typeof kubeConfigFile === 'string' ? kubeConfigFile : undefined },
    matchConditions: records(value['matchConditions']).map((condition) => ({ expression: text(condition['expression']) })),
  };
}

/** The YAML parser's complaint in the words kube's YAML-to-JSON step uses. */
function yamlError(error: unknown): string {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  return `error converting YAML to JSON: yaml: ${message}`;
}

/**
 * Decodes an AuthorizationConfiguration file as kube's LoadFromData does, with the versioned
 * defaults applied; empty data is the default (no authorizers). Throws AuthorizationConfigError
 * with kube's "failed to load AuthorizationConfiguration from file: …" text.
 */
export function decodeAuthorizationConfig(data: string): DecodedAuthorizationConfig {
  const fail = (message: string): never => {
    throw new AuthorizationConfigError(`failed to load AuthorizationConfiguration from file: ${message}`);
  };
  if (data.length === 0) return { apiVersion: `${authorizationConfigGroup}/v1alpha1`, authorizers: [] };
  let document: unknown;
  // A repeated key is a strict decoding error of kube's YAML step (reported after any type error).
  let duplicate: string | undefined;
  try {
    document = parseYaml(data, { uniqueKeys: true, intAsBigInt: false });
  } catch (error) {
    const yamlFailure = error as { code?: string; linePos?: readonly { line: number; col: number }[] };
    if (yamlFailure.code !== 'DUPLICATE_KEY') return fail(yamlError(error));
    const position = yamlFailure.linePos?.[0];
    const key = position === undefined ? '' : (/^\s*("?)([^:"]*)\1\s*:/.exec(data.split('\n')[position.line - 1] ?? '')?.[2] ?? '');
    duplicate = `yaml: unmarshal errors:\n  line ${position?.line ?? 0}: key ${goQuote(key)} already set in map`;
    try {
      document = parseYaml(data, { uniqueKeys: false, intAsBigInt: false });
    } catch (retry) {
      return fail(yamlError(retry));
    }
  }
  if (!isRecord(document)) {
    return fail(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(document)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const apiVersion = document['apiVersion'];
  const kind = document['kind'];
  if ((apiVersion !== undefined && apiVersion !== null && typeof apiVersion !== 'string') || (kind !== undefined && kind !== null && typeof kind !== 'string')) {
    const field = typeof apiVersion !== 'string' && apiVersion !== undefined && apiVersion !== null ? 'apiVersion' : 'kind';
    return fail(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(document[field])} into Go struct field .${field} of type string`);
  }
  const groupVersion = text(apiVersion);
  const slashes = groupVersion.split('/').length - 1;
  if (slashes > 1) return fail(`unexpected GroupVersion string: ${groupVersion}`);
  const [group, version] = slashes === 1 ? groupVersion.split('/') as [string, string] : ['', groupVersion];
  if (text(kind) === '') return fail(`Object 'Kind' is missing in '${data}'`);
  if (version === '') return fail(`Object 'apiVersion' is missing in '${data}'`);
  const known = group === authorizationConfigGroup && (authorizationConfigVersions as readonly string[]).includes(version);
  if (known && otherKinds[version]!.includes(text(kind))) return fail(`expected AuthorizationConfiguration, got *apiserver.${text(kind)}`);
  if (!known || text(kind) !== authorizationConfigKind) {
    return fail(`no kind ${goQuote(text(kind))} is registered for version ${goQuote(groupVersion)} in scheme ${goQuote(schemeName)}`);
  }
  const state: DecodeState = { version, unknown: [], typeError: undefined };
  checkStruct(document, rootSpec, '', state);
  if (state.typeError !== undefined) return fail(state.typeError);
  const strict = duplicate === undefined ? state.unknown : [...state.unknown, duplicate];
  if (strict.length > 0) return fail(`strict decoding error: ${strict.join(', ')}`);
  return {
    apiVersion: groupVersion,
    authorizers: records(document['authorizers']).map((authorizer) => ({
      type: text(authorizer['type']),
      name: text(authorizer['name']),
      webhook: isRecord(authorizer['webhook']) ? decodeWebhook(authorizer['webhook']) : undefined,
    })),
  };
}

// ---- validation (kube's ValidateAuthorizationConfiguration) ----

function fieldError(cause: StatusCause): AuthorizationConfigFieldError {
  return { field: cause.field ?? '', reason: cause.reason ?? '', message: cause.message ?? '' };
}

/** kube's field.Error.Error(): `<field>: <body>`. */
export function formatFieldError(error: AuthorizationConfigFieldError): string {
  return `${error.field}: ${error.message}`;
}

/** kube's utilerrors aggregate text: one message alone, several (deduplicated) in brackets, comma separated. */
export function aggregateMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** Go's `os.Stat` error text for the codes a kubeconfig path can meet. */
function statProblem(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? undefined : 'must be a regular file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'ENOTDIR' ? 'not a directory' : (error as Error).message;
    return `error loading file: stat ${path}: ${reason}`;
  }
}

/** %#v of kube's internal WebhookConnectionInfo (a set kubeConfigFile is a pointer, printed without its address). */
function connectionInfoText(connection: DecodedWebhook['connectionInfo']): GoText {
  const pointer = connection.kubeConfigFile === undefined ? '(*string)(nil)' : '(*string)(<pointer>)';
  return new GoText(`apiserver.WebhookConnectionInfo{Type:${goQuote(connection.type)}, KubeConfigFile:${pointer}}`);
}

interface MatchConditionResults {
  readonly errors: AuthorizationConfigFieldError[];
  readonly compiled: CompiledMatchCondition[];
}

function validateMatchConditions(conditions: readonly DecodedMatchCondition[], path: string): MatchConditionResults {
  const errors: AuthorizationConfigFieldError[] = [];
  const compiled: CompiledMatchCondition[] = [];
  const listPath = childPath(path, 'matchConditions');
  if (conditions.length > maxMatchConditions) return { errors: [fieldError(tooManyCause(listPath, conditions.length, maxMatchConditions))], compiled };
  const seen = new Set<string>();
  conditions.forEach((condition, index) => {
    const field = childPath(indexPath(listPath, index), 'expression');
    if (condition.expression.trim() === '') {
      errors.push(fieldError(requiredCause(field)));
      return;
    }
    if (seen.has(condition.expression)) {
      errors.push(fieldError(duplicateCause(field, condition.expression)));
      return;
    }
    seen.add(condition.expression);
    const result = compileMatchCondition(condition.expression);
    if ('error' in result) {
      errors.push(result.error.type === 'Invalid'
        ? fieldError(invalidCause(field, condition.expression, result.error.detail))
        : { field, reason: 'InternalError', message: `Internal error: ${result.error.detail}` });
      return;
    }
    compiled.push(result.condition);
  });
  return { errors, compiled };
}

function validateWebhook(webhook: DecodedWebhook, path: string): MatchConditionResults {
  const errors: AuthorizationConfigFieldError[] = [];
  const add = (cause: StatusCause): void => {
    errors.push(fieldError(cause));
  };
  const timeoutPath = childPath(path, 'timeout');
  if (webhook.timeout === 0n) add(requiredCause(timeoutPath));
  else if (webhook.timeout > maxTimeoutNanos || webhook.timeout < 0n) add(invalidCause(timeoutPath, formatGoDurationNanos(webhook.timeout), 'must be > 0s and <= 30s'));
  for (const [name, value] of [['authorizedTTL', webhook.authorizedTTL], ['unauthorizedTTL', webhook.unauthorizedTTL]] as const) {
    if (value === 0n) add(requiredCause(childPath(path, name)));
    else if (value < 0n) add(invalidCause(childPath(path, name), formatGoDurationNanos(value), 'must be > 0s'));
  }
  const versionPath = childPath(path, 'subjectAccessReviewVersion');
  if (webhook.subjectAccessReviewVersion === '') add(requiredCause(versionPath));
  else if (!['v1', 'v1beta1'].includes(webhook.subjectAccessReviewVersion)) add(notSupportedCause(versionPath, webhook.subjectAccessReviewVersion, ['v1', 'v1beta1']));
  const matchVersionPath = childPath(path, 'matchConditionSubjectAccessReviewVersion');
  if (webhook.matchConditionSubjectAccessReviewVersion === '') {
    if (webhook.matchConditions.length > 0) add(requiredCause(matchVersionPath, 'required if match conditions are specified'));
  } else if (webhook.matchConditionSubjectAccessReviewVersion !== 'v1') {
    add(notSupportedCause(matchVersionPath, webhook.matchConditionSubjectAccessReviewVersion, ['v1']));
  }
  const policyPath = childPath(path, 'failurePolicy');
  if (webhook.failurePolicy === '') add(requiredCause(policyPath));
  else if (!['NoOpinion', 'Deny'].includes(webhook.failurePolicy)) add(notSupportedCause(policyPath, webhook.failurePolicy, ['NoOpinion', 'Deny']));
  const connection = webhook.connectionInfo;
  const filePath = childPath(childPath(path, 'connectionInfo'), 'kubeConfigFile');
  switch (connection.type) {
    case '':
      add(requiredCause(childPath(childPath(path, 'connectionInfo'), 'type')));
      break;
    case 'InClusterConfig':
      if (connection.kubeConfigFile !== undefined) add(invalidCause(filePath, connection.kubeConfigFile, 'can only be set when type=KubeConfigFile'));
      break;
    case 'KubeConfigFile': {
      const file = connection.kubeConfigFile;
      if (file === undefined || file === '') add(requiredCause(filePath));
      else if (!isAbsolute(file)) add(invalidCause(filePath, file, 'must be an absolute path'));
      else {
        const problem = statProblem(file);
        if (problem !== undefined) add(invalidCause(filePath, file, problem));
      }
      break;
    }
    default:
      add(notSupportedCause(childPath(childPath(path, 'connectionInfo'), 'type'), connectionInfoText(connection), ['InClusterConfig', 'KubeConfigFile']));
  }
  const matches = validateMatchConditions(webhook.matchConditions, path);
  return { errors: [...errors, ...matches.errors], compiled: matches.compiled };
}

interface ValidationResult {
  readonly errors: AuthorizationConfigFieldError[];
  readonly compiled: ReadonlyMap<number, CompiledMatchCondition[]>;
}

function validateDecoded(config: DecodedAuthorizationConfig): ValidationResult {
  const errors: AuthorizationConfigFieldError[] = [];
  const compiled = new Map<number, CompiledMatchCondition[]>();
  if (config.authorizers.length === 0) errors.push(fieldError(requiredCause('authorizers', 'at least one authorization mode must be defined')));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  const known = [...authorizerTypes].sort();
  config.authorizers.forEach((authorizer, index) => {
    const path = indexPath('authorizers', index);
    if (authorizer.type === '') {
      errors.push(fieldError(requiredCause(childPath(path, 'type'))));
      return;
    }
    if (!known.includes(authorizer.type as AuthorizerType)) {
      errors.push(fieldError(notSupportedCause(childPath(path, 'type'), authorizer.type, known)));
      return;
    }
    if (seenTypes.has(authorizer.type) && !repeatableTypes.has(authorizer.type)) {
      errors.push(fieldError(duplicateCause(childPath(path, 'type'), authorizer.type)));
      return;
    }
    seenTypes.add(authorizer.type);
    const namePath = childPath(path, 'name');
    if (authorizer.name === '') errors.push(fieldError(requiredCause(namePath)));
    else if (seenNames.has(authorizer.name)) errors.push(fieldError(duplicateCause(namePath, authorizer.name)));
    else {
      const problems = nameProblems(authorizer.name, 'dns1123Subdomain');
      if (problems.length > 0) errors.push(fieldError(invalidCause(namePath, authorizer.name, `authorizer name is invalid: ${problems.join(', ')}`)));
    }
    seenNames.add(authorizer.name);
    if (authorizer.type === 'Webhook') {
      if (authorizer.webhook === undefined) {
        errors.push(fieldError(requiredCause(childPath(path, 'webhook'), 'required when type=Webhook')));
        return;
      }
      const result = validateWebhook(authorizer.webhook, path);
      errors.push(...result.errors);
      compiled.set(index, result.compiled);
    } else if (authorizer.webhook !== undefined) {
      errors.push(fieldError(invalidCause(childPath(path, 'webhook'), 'non-null', 'may only be specified when type=Webhook')));
    }
  });
  return { errors, compiled };
}

/** kube's ValidateAuthorizationConfiguration (nil root path): the field errors, empty when valid. */
export function validateAuthorizationConfig(config: DecodedAuthorizationConfig): AuthorizationConfigFieldError[] {
  return validateDecoded(config).errors;
}

function canonicalOf(config: DecodedAuthorizationConfig): string {
  return goJson(config.authorizers.map((authorizer) => ({
    type: authorizer.type, name: authorizer.name,
    webhook: authorizer.webhook === undefined ? null : {
      ...authorizer.webhook,
      authorizedTTL: authorizer.webhook.authorizedTTL.toString(), unauthorizedTTL: authorizer.webhook.unauthorizedTTL.toString(),
      timeout: authorizer.webhook.timeout.toString(), connectionInfo: { ...authorizer.webhook.connectionInfo },
      matchConditions: authorizer.webhook.matchConditions.map((condition) => ({ ...condition })),
    },
  })));
}

function nanosToMs(nanos: bigint): number {
  return Number(nanos) / 1_000_000;
}

/**
 * kube-apiserver's LoadAndValidateData: decode, validate (all field errors together, kube's
 * aggregate text), then its own checks: each built-in authorizer named after its lowercased type,
 * and every type in `requireNonWebhookTypes` (the built-in types enabled at startup, on reload)
 * still present. Throws AuthorizationConfigError.
 */
export function loadAuthorizationConfig(data: string, requireNonWebhookTypes: ReadonlySet<string> = new Set()): AuthorizationConfig {
  const decoded = decodeAuthorizationConfig(data);
  const { errors, compiled } = validateDecoded(decoded);
  if (errors.length > 0) throw new AuthorizationConfigError(aggregateMessages(errors.map(formatFieldError)), errors);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const authorizer of decoded.authorizers) {
    if (authorizer.type === 'Webhook') continue;
    seen.add(authorizer.type);
    const expected = authorizer.type.toLowerCase();
    if (authorizer.name !== expected) problems.push(`expected name ${expected} for authorizer ${authorizer.type} instead of ${authorizer.name}`);
  }
  const missing = [...requireNonWebhookTypes].filter((type) => !seen.has(type)).sort();
  if (missing.length > 0) problems.push(`missing required types: [${missing.join(' ')}]`);
  if (problems.length > 0) throw new AuthorizationConfigError(aggregateMessages(problems));
  return {
    canonical: canonicalOf(decoded),
    authorizers: decoded.authorizers.map((authorizer, index): AuthorizerConfig => {
      if (authorizer.type !== 'Webhook') return { type: authorizer.type as Exclude<AuthorizerType, 'Webhook'>, name: authorizer.name };
      const webhook = authorizer.webhook!;
      return {
        type: 'Webhook',
        name: authorizer.name,
        webhook: {
          name: authorizer.name,
          subjectAccessReviewVersion: webhook.subjectAccessReviewVersion as 'v1' | 'v1beta1',
          authorizedTtlMs: nanosToMs(webhook.authorizedTTL),
          unauthorizedTtlMs: nanosToMs(webhook.unauthorizedTTL),
          timeoutMs: nanosToMs(webhook.timeout),
          failurePolicy: webhook.failurePolicy as FailurePolicy,
          connectionType: webhook.connectionInfo.type as 'KubeConfigFile' | 'InClusterConfig',
          kubeConfigFile: webhook.connectionInfo.kubeConfigFile,
          matchConditionSubjectAccessReviewVersion: webhook.matchConditionSubjectAccessReviewVersion === 'v1' ? 'v1' : undefined,
          matchConditions: compiled.get(index) ?? [],
        },
      };
    }),
  };
}

// ---- flags (kube's BuiltInAuthorizationOptions.Validate) ----

/** The flags kube-apiserver refuses beside --authorization-config (its AreLegacyFlagsSet). */
export const legacyAuthorizationFlags = [
  'authorization-mode', 'authorization-webhook-config-file', 'authorization-webhook-version',
  'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl',
] as const;

/**
 * kube-apiserver's startup check: --authorization-config with any of the legacy flags set
 * explicitly is an error (kube's message); undefined when the combination is allowed.
 * (--authorization-policy-file is not among them: an ABAC entry of the file reads it.)
 */
export function authorizationConfigFlagsError(authorizationConfigFile: string, explicitlySetFlags: ReadonlySet<string>): string | undefined {
  if (authorizationConfigFile === '') return undefined;
  if (!legacyAuthorizationFlags.some((flag) => explicitlySetFlags.has(flag))) return undefined;
  return '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined';
}

// ---- the chain (kube's newForConfig) ----

/** The built-in authorizers that persist across reloads, and how to build a webhook. */
export interface AuthorizerFactories {
  readonly node?: () => Authorizer;
  readonly rbac?: () => Authorizer;
  readonly abac?: () => Authorizer;
  readonly webhook: (config: WebhookAuthorizerConfig) => Authorizer;
}

/** kube's authorization metrics' decision hook (apiserver_authorization_decisions_total). */
export interface DecisionMetrics {
  recordDecision(authorizerType: string, authorizerName: string, decision: 'allowed' | 'denied'): void;
}

export interface ChainOptions {
  readonly decisionMetrics?: DecisionMetrics;
  readonly matchConditionMetrics?: MatchConditionMetrics;
}

/** kube's InstrumentedAuthorizer: terminal decisions counted by type, name and decision (no opinion is not). */
function instrumented(type: string, name: string, inner: Authorizer, metrics: DecisionMetrics | undefined): Authorizer {
  if (metrics === undefined) return inner;
  const record = (result: AuthorizationResult): AuthorizationResult => {
    if (result.decision === 'allow') metrics.recordDecision(type, name, 'allowed');
    else if (result.decision === 'deny') metrics.recordDecision(type, name, 'denied');
    return result;
  };
  return {
    name: inner.name,
    authorize(attributes: AuthorizationAttributes) {
      const result = inner.authorize(attributes);
      return result instanceof Promise ? result.then(record) : record(result);
    },
  };
}

function builtIn(type: 'Node' | 'RBAC' | 'ABAC', factory: (() => Authorizer) | undefined): Authorizer {
  if (factory === undefined) throw new Error(`authorizer type ${type} is not allowed if it was not enabled at initial server startup`);
  return factory();
}

/**
 * The chain for a valid configuration: system:masters first (kube's privileged-group
 * authorizer, not counted), then each configured authorizer in order, counted by the decisions
 * metric; a webhook gets its match conditions in front. Node, RBAC and ABAC come from their
 * factories (absent → kube's "not enabled at initial server startup" error); an InClusterConfig
 * webhook is refused (kube-apiserver cannot call itself through it). Throws on those errors.
 */
export function buildAuthorizerChain(config: AuthorizationConfig, factories: AuthorizerFactories, options: ChainOptions = {}): Authorizer[] {
  const chain: Authorizer[] = [systemMastersAuthorizer];
  for (const authorizer of config.authorizers) {
    let built: Authorizer;
    switch (authorizer.type) {
      case 'Node': built = builtIn('Node', factories.node); break;
      case 'RBAC': built = builtIn('RBAC', factories.rbac); break;
      case 'ABAC': built = builtIn('ABAC', factories.abac); break;
      case 'AlwaysAllow': built = alwaysAllowAuthorizer; break;
      case 'AlwaysDeny': built = alwaysDenyAuthorizer; break;
      case 'Webhook': {
        const webhook = authorizer.webhook;
        if (webhook.connectionType !== 'KubeConfigFile') {
          throw new Error(`authorizer ${goQuote(webhook.name)}: connectionInfo.type InClusterConfig is not supported by kube-apiserver`);
        }
        built = withMatchConditions(factories.webhook(webhook), webhook.matchConditions, webhook.failurePolicy, {
          authorizerType: 'Webhook', authorizerName: webhook.name, metrics: options.matchConditionMetrics ?? noMatchConditionMetrics,
        });
        break;
      }
    }
    chain.push(instrumented(authorizer.type, authorizer.name, built, options.decisionMetrics));
  }
  return chain;
}
