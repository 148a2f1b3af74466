// Owns: authentication.k8s.io/v1 TokenReview, create only and never stored, as kube-apiserver
// serves it (kube's pkg/registry/authentication/tokenreview/storage.go): who is this bearer token?
// — what webhook token authenticators and aggregated API servers ask. The review's spec.token
// goes through the server's token authenticators as the bearer token of a request with nothing
// else (so only its first space-separated word counts, as kube's bearertoken reads it), asked
// for spec.audiences, or the API audiences when it names none. Authenticators that check no
// audiences (the token file, bootstrap tokens) are wrapped as kube wraps them
// (authn.ts audienceAgnosticTokenAuthenticator). The answer (201) is the review with status:
// authenticated (omitted when false), user {username, uid, groups, extra}, audiences (those the
// token was accepted for), error (the authenticators' errors, as Go aggregates them; "invalid
// bearer token" when none recognised the token). An empty spec.token is a 400; an authenticated
// answer for none of the asked audiences is kube's 500. metadata.namespace is dropped, as kube
// drops it on a cluster-scoped create. Who may ask is the authz hook's business (create
// tokenreviews: the bootstrap policy's system:auth-delegator). The token is never logged, and
// error texts come from authenticators that redact it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { audienceAgnosticTokenAuthenticator, invalidBearerToken, tokenUnion } from './authn.ts';
import type { TokenAuthenticator, TokenUnionResult } from './authn.ts';
import { authenticationGroup } from './self-subject-review.ts';
import { respond } from '../endpoints/context.ts';
import { ApiError, badRequest, internalError } from '../status.ts';
import { readTypedBody } from './review-body.ts';

export interface TokenReviewOptions {
  /** The server's token authenticators, in the order its bearer-token union runs them. */
  readonly authenticators: readonly TokenAuthenticator[];
  /** --api-audiences: what a review naming no spec.audiences asks for. */
  readonly apiAudiences: readonly string[];
}

const kind = 'TokenReview';
const apiVersion = `${authenticationGroup}/v1`;

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Go's json name of a decoded value's type, in "cannot unmarshal X into ...". */
function jsonKindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (isFields(value)) return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** A decoding failure, worded as kube's JSON decoder words one. */
function undecodable(value: unknown, field: string, goType: string): never {
  throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonKindOf(value)} into Go struct field ${field} of type ${goType}`);
}

interface ParsedReview {
  readonly metadata: Fields;
  readonly token: string;
  readonly audiences: readonly string[];
}

/** The metadata fields kube's create handler wipes (WipeObjectMetaSystemFields) and the namespace it clears. */
const wipedMetadata = new Set(['creationTimestamp', 'uid', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'namespace']);

function readTokenReview(request: FastifyRequest): ParsedReview {
  const body = readTypedBody(request, apiVersion, kind);
  const metadata = body['metadata'] ?? {};
  if (!isFields(metadata)) undecodable(metadata, `${kind}.metadata`, 'v1.ObjectMeta');
  const spec = body['spec'] ?? {};
  if (!isFields(spec)) undecodable(spec, `${kind}.spec`, 'v1.TokenReviewSpec');
  const token = spec['token'] ?? '';
  if (typeof token !== 'string') undecodable(token, 'TokenReviewSpec.spec.token', 'string');
  const audiences = spec['audiences'] ?? [];
  if (!Array.isArray(audiences)) undecodable(audiences, 'TokenReviewSpec.spec.audiences', '[]string');
  for (const audience of audiences) if (typeof audience !== 'string') undecodable(audience, 'TokenReviewSpec.spec.audiences', 'string');
  const kept = Object.fromEntries(Object.entries(metadata).filter(([name]) => !wipedMetadata.has(name)));
  return { metadata: kept, token, audiences: audiences as string[] };
}

/**
 * The token kube's bearertoken authenticator reads from "Authorization: Bearer <token>": the
 * header trimmed, then its second space-separated word; empty when the token starts with a space.
 */
function bearerWord(token: string): string {
  return `Bearer ${token}`.trim().split(' ')[1] ?? '';
}

/** utilerrors.NewAggregate(...).Error(): one distinct message alone, several bracketed. */
function aggregate(reasons: readonly string[]): string {
  const distinct = [...new Set(reasons)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}

/** The review's status from the union's outcome (TokenReviewStatus, its JSON field order and omitempty). */
function statusOf(result: TokenUnionResult | undefined): Fields {
  if (result === undefined) return { user: {} };
  if (result.type === 'unauthenticated') {
    return { user: {}, error: result.reasons.length === 0 ? invalidBearerToken : aggregate(result.reasons) };
  }
  const { user, audiences = [] } = result;
  return {
    authenticated: true,
    user: {
      ...(user.name === '' ? {} : { username: user.name }), ...(user.uid === '' ? {} : { uid: user.uid }),
      ...(user.groups.length === 0 ? {} : { groups: [...user.groups] }),
      ...(Object.keys(user.extra).length === 0 ? {} : { extra: Object.fromEntries(Object.entries(user.extra).map(([key, values]) => [key, [...values]])) }),
    },
    ...(audiences.length === 0 ? {} : { audiences: [...audiences] }),
  };
}

async function review(request: FastifyRequest, reply: FastifyReply, authenticators: readonly TokenAuthenticator[], apiAudiences: readonly string[]): Promise<FastifyReply> {
  const parsed = readTokenReview(request);
  if (parsed.token === '') throw badRequest('token is required for TokenReview in authentication');
  const asked = parsed.audiences.length > 0 ? parsed.audiences : apiAudiences;
  const audiences = asked.length > 0 ? asked : undefined;
  const token = bearerWord(parsed.token);
  // A token that starts with a space is no bearer token at all: nothing recognises it, nothing errs.
  const result = token === '' ? undefined : await tokenUnion(token, authenticators, audiences);
  if (audiences !== undefined && result?.type === 'authenticated' && !(result.audiences ?? []).some((audience) => audiences.includes(audience))) {
    request.log.error({ wanted: audiences, accepted: result.audiences ?? [] }, 'token review: the authenticator accepted none of the wanted audiences');
    throw internalError('error validating audiences');
  }
  const spec = { token: parsed.token, ...(parsed.audiences.length === 0 ? {} : { audiences: [...parsed.audiences] }) };
  return respond(request, reply, 201, { kind, apiVersion, metadata: { ...parsed.metadata, creationTimestamp: null }, spec, status: statusOf(result) });
}

async function tokenReviewPluginBody(app: FastifyInstance, options: TokenReviewOptions): Promise<void> {
  const authenticators = options.authenticators.map((authenticator) => audienceAgnosticTokenAuthenticator(options.apiAudiences, authenticator));
  app.post(`/apis/${authenticationGroup}/v1/tokenreviews`, async (request, reply) => {
    try {
      return await review(request, reply, authenticators, options.apiAudiences);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return reply.code(error.code).type('application/json').send(error.status);
    }
  });
}

export const tokenReviewPlugin = fastifyPlugin(tokenReviewPluginBody, {
  name: 'kstore-token-review', fastify: '5.x', dependencies: ['kstore-authn'],
});
