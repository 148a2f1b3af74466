// Owns: the webhook token authenticator (--authentication-token-webhook-config-file; kube's
// plugin/pkg/authenticator/token/webhook wrapped in pkg/authentication/token/cache as
// kube-apiserver wraps it). A bearer token is sent as a TokenReview (authentication.k8s.io/v1beta1
// by default, v1 with --authentication-token-webhook-version=v1) with spec.token and, when
// audiences are wanted, spec.audiences: those the caller asks for (a TokenReview's), else the API
// audiences (--api-audiences); none when both are empty. The answer:
// - a webhook call that fails (after kube's retries) is `rejected` with the call's error;
// - with wanted audiences, status.audiences (or the API audiences when the webhook names none)
//   must intersect them, else the token is not the webhook's (`noCredentials`); the token is
//   accepted for that intersection, in the order the webhook (or the API audiences) gives;
// - status.authenticated false is `rejected` with status.error when there is one, else
//   `noCredentials` (kube's `nil, false, nil`: the union then says "invalid bearer token");
// - otherwise the user is status.user, with system:authenticated added as kube's group adder does.
// Answers without an error are cached for --authentication-token-webhook-cache-ttl (default 2m),
// authenticated and unauthenticated alike (failed calls and status.error are not), under an HMAC of the token and wanted audiences with a per-process random
// key; concurrent lookups of one token share one call; a lookup gives up after 30 s in all.
// No reason ever contains the token.
import { createHmac, randomBytes } from 'node:crypto';
import { authenticatedGroup, intersectAudiences } from './authn.ts';
import type { TokenAuthenticationResult, TokenAuthenticator, UserInfo } from './authn.ts';
import { ExpiringCache } from './decision-cache.ts';
import { decodeReview, defaultRetryBackoff, reviewField, reviewObject, withWebhookRetry } from './webhook-kubeconfig.ts';
import type { RetryBackoff, Sleep, WebhookClient } from './webhook-kubeconfig.ts';

/** --authentication-token-webhook-cache-ttl's default. */
export const defaultTokenWebhookCacheTtlMs = 2 * 60_000;
/** --authentication-token-webhook-version's default. */
export const defaultTokenWebhookVersion = 'v1beta1';
/** kube's sharedLookupTimeout: one lookup (all attempts) gives up after this long. */
const sharedLookupTimeoutMs = 30_000;

const anonymousUser = 'system:anonymous';
const unauthenticatedGroup = 'system:unauthenticated';
const authenticationGroup = 'authentication.k8s.io';

export type TokenReviewVersion = 'v1' | 'v1beta1';

export interface TokenWebhookOptions {
  /** The webhook (webhookClientFromKubeconfig of the flag's file). */
  readonly client: WebhookClient;
  /** --authentication-token-webhook-version: v1 or v1beta1 (default). */
  readonly version?: string;
  /** --api-audiences; when non-empty the review is audience-limited. */
  readonly apiAudiences?: readonly string[];
  /** --authentication-token-webhook-cache-ttl in ms (default 2m); 0 caches nothing. */
  readonly cacheTtlMs?: number;
  readonly retryBackoff?: RetryBackoff;
  /** For tests: the backoff's sleep. */
  readonly sleep?: Sleep;
  /** Milliseconds since the epoch, for the cache; defaults to Date.now. */
  readonly now?: () => number;
  /** Give up on one lookup after this long (kube's 30 s). */
  readonly lookupTimeoutMs?: number;
}

/** kube's check of --authentication-token-webhook-version. */
export function tokenReviewVersion(version: string): TokenReviewVersion {
  if (version === 'v1' || version === 'v1beta1') return version;
  throw new Error(`unsupported authentication webhook version "${version}", supported versions are "v1", "v1beta1"`);
}

type Json = Record<string, unknown>;

/** The TokenReview the webhook receives, as kube's client serialises it. */
export function tokenReviewRequest(version: TokenReviewVersion, token: string, audiences: readonly string[]): Json {
  return {
    kind: 'TokenReview', apiVersion: `${authenticationGroup}/${version}`, metadata: { creationTimestamp: null },
    spec: { token, ...(audiences.length > 0 ? { audiences: [...audiences] } : {}) },
    status: { user: {} },
  };
}

interface ReviewStatus {
  readonly authenticated: boolean;
  readonly user: UserInfo;
  readonly audiences: string[];
  readonly error: string;
}

/** The status of a TokenReview answer, typed as kube decodes it (a wrong type fails the call). */
function reviewStatus(answer: Json): ReviewStatus {
  const status = reviewObject(answer, 'status', 'v1.TokenReviewStatus', 'TokenReview', '');
  const user = reviewObject(status, 'user', 'v1.UserInfo', 'TokenReviewStatus', 'status.');
  const name = reviewField(user, 'username', 'string', 'UserInfo', 'status.user.');
  const groups = reviewField(user, 'groups', '[]string', 'UserInfo', 'status.user.');
  const extra: Record<string, readonly string[]> = {};
  const extraFields = reviewObject(user, 'extra', 'map[string]v1.ExtraValue', 'UserInfo', 'status.user.');
  for (const key of Object.keys(extraFields)) extra[key] = reviewField(extraFields, key, '[]string', 'UserInfo', 'status.user.extra.');
  // kube's AuthenticatedGroupAdder: not for system:anonymous, nor when either all-group is there.
  const hasAllGroup = groups.includes(authenticatedGroup) || groups.includes(unauthenticatedGroup);
  return {
    authenticated: reviewField(status, 'authenticated', 'bool', 'TokenReviewStatus', 'status.'),
    user: {
      name, uid: reviewField(user, 'uid', 'string', 'UserInfo', 'status.user.'),
      groups: name === anonymousUser || hasAllGroup ? groups : [...groups, authenticatedGroup], extra,
    },
    audiences: reviewField(status, 'audiences', '[]string', 'TokenReviewStatus', 'status.'),
    error: reviewField(status, 'error', 'string', 'TokenReviewStatus', 'status.'),
  };
}

/** Replaces every occurrence of the token (and of nothing else) in a reason. */
function redact(reason: string, token: string): string {
  return token === '' ? reason : reason.split(token).join('[redacted]');
}

class LookupTimeout extends Error {
  constructor() {
    super('context deadline exceeded');
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LookupTimeout()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

interface Lookup {
  readonly result: TokenAuthenticationResult;
  /** Whether it is cached: an answer without an error (kube's cache keeps no errors). */
  readonly cacheable: boolean;
}

/** The webhook token authenticator, cached as kube-apiserver caches it. */
export function tokenWebhookAuthenticator(options: TokenWebhookOptions): TokenAuthenticator {
  const version = tokenReviewVersion(options.version ?? defaultTokenWebhookVersion);
  const apiVersion = `${authenticationGroup}/${version}`;
  const apiAudiences = [...(options.apiAudiences ?? [])];
  const ttlMs = options.cacheTtlMs ?? defaultTokenWebhookCacheTtlMs;
  const backoff = options.retryBackoff ?? defaultRetryBackoff;
  const lookupTimeoutMs = options.lookupTimeoutMs ?? sharedLookupTimeoutMs;
  const cache = new ExpiringCache<TokenAuthenticationResult>({ ...(options.now === undefined ? {} : { now: options.now }) });
  const inFlight = new Map<string, Promise<Lookup>>();
  const hmacKey = randomBytes(32);

  function cacheKey(token: string, audiences: readonly string[]): string {
    const hmac = createHmac('sha256', hmacKey);
    const length = (value: number) => {
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32BE(value >>> 0);
      hmac.update(bytes);
    };
    const text = (value: string) => {
      const bytes = Buffer.from(value, 'utf8');
      length(bytes.length);
      hmac.update(bytes);
    };
    text(token);
    length(audiences.length);
    for (const audience of audiences) text(audience);
    return hmac.digest('base64');
  }

  async function review(token: string, audiences: readonly string[]): Promise<Lookup> {
    let status: ReviewStatus;
    try {
      const body = tokenReviewRequest(version, token, audiences);
      status = await withDeadline(
        withWebhookRetry(async () => reviewStatus(decodeReview(await options.client.post(body), apiVersion, 'TokenReview')), backoff, options.sleep),
        lookupTimeoutMs,
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { result: { type: 'rejected', reason: redact(reason, token) }, cacheable: false };
    }
    let granted: string[] | undefined;
    if (audiences.length > 0) {
      const offered = status.audiences.length > 0 ? status.audiences : apiAudiences;
      granted = intersectAudiences(audiences, offered);
      if (granted.length === 0) return { result: { type: 'noCredentials' }, cacheable: true };
    }
    if (!status.authenticated) {
      // kube's cache keeps an answer that is an error (status.error) no more than a failed call.
      return status.error === ''
        ? { result: { type: 'noCredentials' }, cacheable: true }
        : { result: { type: 'rejected', reason: redact(status.error, token) }, cacheable: false };
    }
    return { result: { type: 'authenticated', user: status.user, ...(granted === undefined ? {} : { audiences: granted }) }, cacheable: true };
  }

  return async (token, requested) => {
    const audiences = requested === undefined || requested.length === 0 ? apiAudiences : [...requested];
    const key = cacheKey(token, audiences);
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    let pending = inFlight.get(key);
    if (pending === undefined) {
      pending = review(token, audiences).then((lookup) => {
        if (lookup.cacheable) cache.set(key, lookup.result, ttlMs);
        return lookup;
      }).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return (await pending).result;
  };
}
