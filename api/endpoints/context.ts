// Owns: what every verb handler shares: the injected dependencies (store client, watch cache,
// clock and randomness for server-generated fields), reading a request's object, writing a
// response in the negotiated representation, and query parameter parsing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KubeObject } from '../../actors/index.ts';
import { decodeBody, encode, negotiate, protobufEncodable } from '../negotiation.ts';
import type { ResponseFormat } from '../negotiation.ts';
import { apiVersionOf } from '../registry/kinds.ts';
import type { ResourceKind } from '../registry/kinds.ts';
import type { FieldChecks, FieldValidation } from '../registry/validation.ts';
import { duplicateFields } from '../duplicate-fields.ts';
import type { ApiMetrics } from '../metrics.ts';
import type { StoreClient } from '../store-client.ts';
import type { WatchCacheReader } from '../watchcache/watch-cache.ts';
import { badRequest, invalid } from '../status.ts';
import { parseBoolParameter } from '../request-options.ts';
import type { RequestOptions } from '../request-options.ts';
import type { Target } from './target.ts';
import type { Authorizer } from '../auth/authz.ts';
import type { FeatureGates } from './corrupt.ts';
import type { AdmissionChain } from '../admission/chain.ts';
import type { RbacEscalationGuard } from '../auth/rbac-escalation.ts';
import type { ServiceAccountTokenIssuer } from '../auth/service-account-token.ts';

export interface EndpointContext {
  readonly store: StoreClient;
  /** The watch cache, or (for a kind served over another's storage) a converting view of it. */
  readonly cache: WatchCacheReader;
  /** Wall clock for server-set timestamps (creationTimestamp, deletionTimestamp). */
  readonly now: () => Date;
  /** A new random uid (RFC 4122 v4). */
  readonly newUid: () => string;
  /** A random suffix for generateName. */
  readonly randomSuffix: () => string;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK. */
  readonly bookmarkIntervalMs: number;
  readonly metrics: ApiMetrics;
  /** Alpha features switched on with --feature-gates. */
  readonly featureGates: FeatureGates;
  /** The authorizer chain, for checks beyond the request's own verb (unsafe delete). */
  readonly authorizers: readonly Authorizer[];
  /** The admission plugins every write runs (endpoints/write-path.ts). */
  readonly admission: AdmissionChain;
  /** RBAC's storage-level escalation check on role and binding writes. */
  readonly rbacGuard: RbacEscalationGuard;
  /** The TokenRequest API's signer (--service-account-signing-key-file); absent: serviceaccounts/token is not served (404). */
  readonly serviceAccountTokens?: ServiceAccountTokenIssuer;
}

export type Query = Readonly<Record<string, string | string[] | undefined>>;

export function queryString(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A boolean query parameter as kube reads one (request-options.ts): absent, "0" or "false" are false. */
export function queryBoolean(query: Query, name: string): boolean {
  return parseBoolParameter(queryString(query, name)) ?? false;
}

/**
 * What a command proposed for this request records as its cause: the proposer's time and the
 * authenticated user (shown in the object's lifecycle transitions).
 */
export function causeOf(request: FastifyRequest, context: { readonly now: () => Date }): { readonly at: string; readonly by?: string } {
  const name = (request.user as { readonly name?: string } | undefined)?.name;
  return { at: formatTime(context.now()), ...(name === undefined || name === '' ? {} : { by: name }) };
}

/** The last second formatTime formatted, and its text: a burst of writes shares one second. */
let formattedSecond = Number.NaN;
let formattedText = '';

/** RFC 3339 in whole seconds, as metav1.Time serialises. */
export function formatTime(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second === formattedSecond) return formattedText;
  const text = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  formattedSecond = second;
  formattedText = text;
  return text;
}

/** Reads the body as an object of the target's kind, filling apiVersion/kind when absent. */
export function readObject(request: FastifyRequest, target: Target): KubeObject {
  const decoded = decodeBody(request.headers['content-type'], requestBody(request), { kind: target.kind });
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) {
    throw badRequest(`the body of the request must be a ${target.kind.kind} object, got ${Array.isArray(decoded) ? 'an array' : JSON.stringify(decoded)}`);
  }
  const object = decoded as Record<string, unknown>;
  const expectedVersion = apiVersionOf(target.kind);
  if (object['apiVersion'] === undefined || object['apiVersion'] === '') object['apiVersion'] = expectedVersion;
  if (object['kind'] === undefined || object['kind'] === '') object['kind'] = target.kind.kind;
  if (object['apiVersion'] !== expectedVersion) {
    throw badRequest(`the API version in the data (${String(object['apiVersion'])}) does not match the expected API version (${expectedVersion})`);
  }
  if (object['kind'] !== target.kind.kind) {
    throw badRequest(`the kind in the data (${String(object['kind'])}) does not match the expected kind (${target.kind.kind}) for resource "${target.kind.resource}"`);
  }
  if (object['metadata'] === undefined || object['metadata'] === null) object['metadata'] = {};
  if (typeof object['metadata'] !== 'object' || Array.isArray(object['metadata'])) {
    throw badRequest(`${target.kind.kind} in version "${target.kind.version}" cannot be handled as a ${target.kind.kind}: metadata: must be object`);
  }
  return object as unknown as KubeObject;
}

/** The raw request body: a string for text media types, a Buffer for protobuf. */
export function requestBody(request: FastifyRequest): string | Buffer {
  const body = request.body;
  return typeof body === 'string' || Buffer.isBuffer(body) ? body : '';
}

/** The field checks of a write: the query's level and the duplicate keys of a JSON body. */
export function fieldChecks(request: FastifyRequest, options: RequestOptions): FieldChecks {
  const level = fieldValidationLevel(options);
  const body = request.body;
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const duplicates = level !== 'Ignore' && typeof body === 'string' && mediaType === 'application/json' ? duplicateFields(body) : [];
  return { level, duplicates };
}

export function fieldValidationLevel(options: RequestOptions): FieldValidation {
  const value = options.fieldValidation;
  if (value === undefined || value === '' || value === 'Warn') return 'Warn';
  if (value === 'Strict' || value === 'Ignore') return value;
  throw badRequest(`fieldValidation parameter unsupported: ${value}, valid values are: Ignore, Warn, Strict`);
}

/** dryRun: absent → false; "All" → true; anything else is invalid as in kube-apiserver. */
export function isDryRun(options: Pick<RequestOptions, 'dryRun'>, optionsKind: string): boolean {
  const values = options.dryRun;
  for (const value of values) {
    if (value !== 'All') {
      throw invalid('meta.k8s.io', optionsKind, '', [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: "All"`, field: 'dryRun' }]);
    }
  }
  return values.length > 0;
}

export function sendWarnings(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  const earlier = reply.getHeader('warning');
  const kept = earlier === undefined ? [] : Array.isArray(earlier) ? earlier.map(String) : [String(earlier)];
  reply.header('Warning', [...kept, ...warnings.map((warning) => `299 - ${JSON.stringify(warning)}`)]);
}

/**
 * Sends a body in the negotiated representation: the client's first acceptable media type,
 * passing over protobuf for bodies the protobuf codec does not know.
 */
export function respond(request: FastifyRequest, reply: FastifyReply, code: number, body: unknown, format?: ResponseFormat): FastifyReply {
  let chosen = format ?? negotiate(request.headers.accept, false);
  if (chosen.type === 'protobuf' && !protobufEncodable(body)) chosen = negotiate(request.headers.accept, false, false);
  const { contentType, payload } = encode(chosen, body);
  return reply.code(code).type(contentType).send(payload);
}

/**
 * Items of a list of a built-in kind are served without apiVersion/kind, as kube-apiserver does
 * (typed items drop their TypeMeta); a custom resource's items keep theirs, as kube's
 * unstructured lists do.
 */
export function listOf(kind: ResourceKind, items: readonly KubeObject[], metadata: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: `${kind.kind}List`, apiVersion: apiVersionOf(kind), metadata,
    items: kind.definedBy !== undefined ? [...items] : items.map((item) => {
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = item;
      return rest;
    }),
  };
}
