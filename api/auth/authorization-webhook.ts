// Owns: the webhook authorizer (--authorization-mode=Webhook with --authorization-webhook-*, or a
// Webhook authorizer of an AuthorizationConfiguration; kube's plugin/pkg/authorizer/webhook). A
// request is sent as a SubjectAccessReview (authorization.k8s.io/v1, or v1beta1 whose spec names
// the groups `group`) with the user, uid, groups and extra and either resourceAttributes
// {namespace, verb, group, version, resource, subresource, name} or nonResourceAttributes
// {path, verb}. The answer's status decides: allowed → allow, denied → deny, neither → no
// opinion, with status.reason passed through (status.evaluationError is not read, as in kube);
// allowed and denied together are a deny with an error. Answers are cached under the whole spec
// for authorizedTTL (allowed; default 5m) or unauthorizedTTL (otherwise; default 30s), a TTL of 0
// caching nothing, unless the request's own attributes are 10000 bytes or more; at most 8192
// entries. A failed call (after kube's retries: 5xx, 429, 504, connection reset) is the failure
// policy's decision (NoOpinion, as the legacy flags imply, or Deny) with an empty reason and the
// call's error in `error`: kube answers such a request 500 "Internal error occurred: <error>"
// unless a later authorizer allows it.
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, Decision } from './authz.ts';
import { ExpiringCache } from './decision-cache.ts';
import { decodeReview, defaultRetryBackoff, reviewField, reviewObject, withWebhookRetry } from './webhook-kubeconfig.ts';
import type { RetryBackoff, Sleep, WebhookClient } from './webhook-kubeconfig.ts';

/** --authorization-webhook-cache-authorized-ttl's default. */
export const defaultAuthorizedTtlMs = 5 * 60_000;
/** --authorization-webhook-cache-unauthorized-ttl's default. */
export const defaultUnauthorizedTtlMs = 30_000;
/** --authorization-webhook-version's default. */
export const defaultSubjectAccessReviewVersion = 'v1beta1';
/** kube's maxControlledAttrCacheSize: requests with larger attributes are never cached. */
const maxControlledAttributesSize = 10_000;
/** kube's LRUExpireCache size for webhook answers. */
const maxCachedAnswers = 8192;
const authorizationGroup = 'authorization.k8s.io';
const bothAllowedAndDenied = 'webhook subject access review returned both allow and deny response';

export type SubjectAccessReviewVersion = 'v1' | 'v1beta1';
export type WebhookFailurePolicy = 'NoOpinion' | 'Deny';

export interface WebhookAuthorizerOptions {
  /** The authorizer's name (an AuthorizationConfiguration's `name`; "webhook" for the flags). */
  readonly name: string;
  /** The webhook: webhookClientFromKubeconfig of the kubeconfig file. */
  readonly client: WebhookClient;
  /** subjectAccessReviewVersion / --authorization-webhook-version: v1 or v1beta1 (default). */
  readonly version?: string;
  /** How long an allowed answer is reused (default 5m); 0 caches none. */
  readonly authorizedTtlMs?: number;
  /** How long any other answer is reused (default 30s); 0 caches none. */
  readonly unauthorizedTtlMs?: number;
  /** Absolute timeout of each webhook call; the client's (kube's 30 s) when absent or 0. */
  readonly timeoutMs?: number;
  /** The decision when the webhook cannot be asked (default NoOpinion, as the legacy flags). */
  readonly failurePolicy?: WebhookFailurePolicy;
  readonly retryBackoff?: RetryBackoff;
  /** For tests: the backoff's sleep. */
  readonly sleep?: Sleep;
  /** Milliseconds since the epoch, for the cache; defaults to Date.now. */
  readonly now?: () => number;
}

/**
 * An authorizer result that may carry an error, as kube's Authorize returns one beside its
 * decision: the chain answers 500 "Internal error occurred: <error>" when the final decision is
 * not allow and an authorizer reported one.
 */
export interface WebhookAuthorizationResult extends AuthorizationResult {
  readonly error?: string;
}

/** kube's check of the review version. */
export function subjectAccessReviewVersion(version: string): SubjectAccessReviewVersion {
  if (version === 'v1' || version === 'v1beta1') return version;
  throw new Error(`unsupported webhook authorizer version "${version}", supported versions are "v1", "v1beta1"`);
}

type Json = Record<string, unknown>;

function omitEmpty(fields: Record<string, string>): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ''));
}

/**
 * The authorization.k8s.io/v1 SubjectAccessReviewSpec of a request, with Go's field order and
 * omitempty (map keys sorted, as Go writes them): the cache key, and what matchConditions see.
 */
export function subjectAccessReviewSpec(attributes: AuthorizationAttributes): Json {
  const { user } = attributes;
  const spec: Json = {};
  if (attributes.isResourceRequest) {
    spec['resourceAttributes'] = omitEmpty({
      namespace: attributes.namespace, verb: attributes.verb, group: attributes.apiGroup, version: attributes.apiVersion,
      resource: attributes.resource, subresource: attributes.subresource, name: attributes.name,
    });
  } else {
    spec['nonResourceAttributes'] = omitEmpty({ path: attributes.path, verb: attributes.verb });
  }
  if (user.name !== '') spec['user'] = user.name;
  if (user.groups.length > 0) spec['groups'] = [...user.groups];
  const extraKeys = Object.keys(user.extra).sort();
  if (extraKeys.length > 0) spec['extra'] = Object.fromEntries(extraKeys.map((key) => [key, [...(user.extra[key] ?? [])]]));
  if (user.uid !== '') spec['uid'] = user.uid;
  return spec;
}

/** The SubjectAccessReview the webhook receives, in `version` (v1beta1 spells groups `group`). */
export function subjectAccessReviewRequest(version: SubjectAccessReviewVersion, spec: Json): Json {
  let body = spec;
  if (version === 'v1beta1') {
    body = Object.fromEntries(Object.entries(spec).map(([key, value]) => [key === 'groups' ? 'group' : key, value]));
  }
  return {
    kind: 'SubjectAccessReview', apiVersion: `${authorizationGroup}/${version}`, metadata: { creationTimestamp: null },
    spec: body, status: { allowed: false },
  };
}

interface ReviewStatus {
  readonly allowed: boolean;
  readonly denied: boolean;
  readonly reason: string;
}

function reviewStatus(answer: Json): ReviewStatus {
  const status = reviewObject(answer, 'status', 'v1.SubjectAccessReviewStatus', 'SubjectAccessReview', '');
  const field = (name: string) => reviewField(status, name, 'bool', 'SubjectAccessReviewStatus', 'status.');
  return { allowed: field('allowed'), denied: field('denied'), reason: reviewField(status, 'reason', 'string', 'SubjectAccessReviewStatus', 'status.') };
}

/** kube's shouldCache: the requester-controlled attributes are small enough to cache. */
function shouldCache(attributes: AuthorizationAttributes): boolean {
  const size = [
    attributes.namespace, attributes.verb, attributes.apiGroup, attributes.apiVersion, attributes.resource,
    attributes.subresource, attributes.name, attributes.path,
  ].reduce((total, value) => total + Buffer.byteLength(value, 'utf8'), 0);
  return size < maxControlledAttributesSize;
}

function resultOf(status: ReviewStatus): WebhookAuthorizationResult {
  if (status.allowed && status.denied) return { decision: 'deny', reason: status.reason, error: bothAllowedAndDenied };
  if (status.denied) return { decision: 'deny', reason: status.reason };
  if (status.allowed) return { decision: 'allow', reason: status.reason };
  return { decision: 'noOpinion', reason: status.reason };
}

/** The webhook authorizer; see the module header. */
export function webhookAuthorizer(options: WebhookAuthorizerOptions): Authorizer {
  const version = subjectAccessReviewVersion(options.version ?? defaultSubjectAccessReviewVersion);
  const apiVersion = `${authorizationGroup}/${version}`;
  const authorizedTtlMs = options.authorizedTtlMs ?? defaultAuthorizedTtlMs;
  const unauthorizedTtlMs = options.unauthorizedTtlMs ?? defaultUnauthorizedTtlMs;
  const decisionOnError: Decision = (options.failurePolicy ?? 'NoOpinion') === 'Deny' ? 'deny' : 'noOpinion';
  const backoff = options.retryBackoff ?? defaultRetryBackoff;
  const postOptions = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  const cache = new ExpiringCache<ReviewStatus>({ maxEntries: maxCachedAnswers, ...(options.now === undefined ? {} : { now: options.now }) });

  async function authorize(attributes: AuthorizationAttributes): Promise<WebhookAuthorizationResult> {
    const spec = subjectAccessReviewSpec(attributes);
    const key = JSON.stringify(spec);
    const cached = cache.get(key);
    if (cached !== undefined) return resultOf(cached);
    let status: ReviewStatus;
    try {
      const body = subjectAccessReviewRequest(version, spec);
      status = await withWebhookRetry(
        async () => reviewStatus(decodeReview(await options.client.post(body, postOptions), apiVersion, 'SubjectAccessReview')),
        backoff, options.sleep,
      );
    } catch (error) {
      return { decision: decisionOnError, reason: '', error: error instanceof Error ? error.message : String(error) };
    }
    if (shouldCache(attributes)) cache.set(key, status, status.allowed ? authorizedTtlMs : unauthorizedTtlMs);
    return resultOf(status);
  }

  return { name: options.name, authorize };
}
