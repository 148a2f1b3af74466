// Owns: metav1.Status error bodies, built the way kube-apiserver's apimachinery errors package
// builds them (same reason, code and message wording), and the ApiError class every layer of
// api/ throws. One plugin (plugins/status-errors.ts) turns any thrown error into a response.

export type StatusReason =
  | 'BadRequest' | 'Unauthorized' | 'Forbidden' | 'NotFound' | 'AlreadyExists' | 'Conflict'
  | 'Gone' | 'Invalid' | 'ServerTimeout' | 'Timeout' | 'TooManyRequests' | 'MethodNotAllowed'
  | 'NotAcceptable' | 'RequestEntityTooLarge' | 'UnsupportedMediaType' | 'InternalError'
  | 'Expired' | 'ServiceUnavailable' | '';

export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

export interface Status {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: StatusReason;
  readonly details?: StatusDetails;
  readonly code: number;
}

/** An error that is answered with a Status body. */
export class ApiError extends Error {
  readonly status: Status;
  constructor(status: Status, options?: ErrorOptions) {
    super(status.message ?? status.reason ?? 'error', options);
    this.name = 'ApiError';
    this.status = status;
  }
  get code(): number {
    return this.status.code;
  }
}

/** What a status message calls a resource: "configmaps" or "leases.coordination.k8s.io". */
export interface QualifiedResource {
  readonly group: string;
  readonly resource: string;
}

export function qualifiedResourceString(qualified: QualifiedResource): string {
  return qualified.group === '' ? qualified.resource : `${qualified.resource}.${qualified.group}`;
}

/** StatusDetails for a resource, leaving out empty fields as Go's omitempty does. */
function resourceDetails(qualified: QualifiedResource, name: string): StatusDetails {
  return { ...(name ? { name } : {}), ...(qualified.group ? { group: qualified.group } : {}), kind: qualified.resource };
}

function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): ApiError {
  return new ApiError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason,
    ...(details ? { details } : {}), code,
  });
}

export function successStatus(details?: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', ...(details ? { details } : {}), code: 200 };
}

export function badRequest(message: string): ApiError {
  return failure(400, 'BadRequest', message);
}

export function unauthorized(message = 'Unauthorized'): ApiError {
  return failure(401, 'Unauthorized', message);
}

/** Matches k8s NewForbidden: `<resource> "<name>" is forbidden: <reason>`. */
export function forbidden(qualified: QualifiedResource, name: string, reason: string): ApiError {
  const resource = qualifiedResourceString(qualified);
  const message = name === '' ? `${resource} is forbidden: ${reason}` : `${resource} "${name}" is forbidden: ${reason}`;
  return failure(403, 'Forbidden', message, resourceDetails(qualified, name));
}

export function notFound(qualified: QualifiedResource, name: string): ApiError {
  return failure(404, 'NotFound', `${qualifiedResourceString(qualified)} "${name}" not found`,
    resourceDetails(qualified, name));
}

/** A path that names no served resource: kube-apiserver answers a bare 404 "the server could not find the requested resource". */
export function pathNotFound(): ApiError {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(qualified: QualifiedResource, name: string): ApiError {
  return failure(409, 'AlreadyExists', `${qualifiedResourceString(qualified)} "${name}" already exists`,
    resourceDetails(qualified, name));
}

export function conflict(qualified: QualifiedResource, name: string, reason: string): ApiError {
  return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResourceString(qualified)} "${name}": ${reason}`,
    resourceDetails(qualified, name));
}

/** 422 with one cause per field error; `kind` is the object's Kind, as in k8s NewInvalid. */
export function invalid(group: string, kind: string, name: string, causes: readonly StatusCause[]): ApiError {
  const summary = causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message ?? ''}` : cause.message ?? '')).join(', ');
  const aggregate = causes.length > 1 ? `[${summary}]` : summary;
  return failure(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${aggregate}`,
    { name, group, kind, causes });
}

export function methodNotAllowed(message: string): ApiError {
  return failure(405, 'MethodNotAllowed', message);
}

export function notAcceptable(message: string): ApiError {
  return failure(406, 'NotAcceptable', message);
}

export function gone(message: string, reason: 'Gone' | 'Expired' = 'Expired'): ApiError {
  return failure(410, reason, message);
}

export function requestEntityTooLarge(message: string): ApiError {
  return failure(413, 'RequestEntityTooLarge', message);
}

export function unsupportedMediaType(contentType: string): ApiError {
  return failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`
    + (contentType ? '' : ''));
}

/** kube's NewUnsupportedMediaTypeError: the media types the handler accepts, listed. */
export function unsupportedMediaTypeOf(accepted: readonly string[]): ApiError {
  return failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function internalError(message: string): ApiError {
  return failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/**
 * The store refuses writes while its space alarm is raised. kube-apiserver passes etcd's
 * `mvcc: database space exceeded` through as a non-Status error: 500 with no reason
 * (StatusReasonUnknown) and the error as the message; kstore answers the same way, with a
 * message saying which member, how much, and what clears it.
 */
export function databaseSpaceExceeded(message: string): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `database space exceeded: ${message}`, code: 500 });
}

export function serviceUnavailable(message: string, retryAfterSeconds: number): ApiError {
  return failure(503, 'ServiceUnavailable', message, { retryAfterSeconds });
}

/** k8s NewTimeoutError: 504, reason Timeout, message `Timeout: <message>`, Retry-After. */
export function serverTimeout(message: string, retryAfterSeconds: number): ApiError {
  return failure(504, 'Timeout', `Timeout: ${message}`, { retryAfterSeconds });
}

/**
 * k8s storage.NewTooLargeResourceVersionError: a Timeout whose cause (reason
 * `ResourceVersionTooLarge`) lets clients tell it from other timeouts (client-go's
 * IsTooLargeResourceVersion, used by the reflector to fall back from a watch-list).
 */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds: number): ApiError {
  return failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    retryAfterSeconds, causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
  });
}
