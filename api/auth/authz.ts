// Owns: authorization of every request (may this user do this), as a fastify plugin whose
// onRequest hook runs after authn's. Authorizers form a chain like kube-apiserver's union
// authorizer: each answers allow, deny or noOpinion; the first allow or deny is final; if all
// have no opinion the request is denied with kube's 403 Status wording
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go).
// The chain is built from --authorization-mode (rbac-authorizer.ts authorizersFor): the
// system:masters authorizer first, then RBAC (the default), AlwaysAllow or AlwaysDeny.
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { UserInfo } from './authn.ts';
import type { RequestInfo } from '../request-info.ts';
import { ApiError, forbidden } from '../status.ts';

/** The request attributes an authorizer decides on (k8s authorizer.Attributes). */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** A list's or watch's fieldSelector as sent (kube's AuthorizeWithSelectors; the Node authorizer reads it). */
  readonly fieldSelector?: string;
  /** A list's or watch's labelSelector as sent. */
  readonly labelSelector?: string;
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Why; shown to the client after the forbidden message when the request is denied. */
  readonly reason: string;
  /**
   * The authorizer could not decide (a webhook that failed): kube's authorizer error. A request
   * not allowed while any authorizer erred is answered 500, not 403 (kube's WithAuthorization).
   */
  readonly error?: string;
}

export interface Authorizer {
  readonly name: string;
  authorize(attributes: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult;
}

export interface AuthzOptions {
  /** Asked in order; an empty chain denies everything (the default is deny). */
  readonly authorizers: readonly Authorizer[];
}

/** Members of this group bypass every other authorizer (spec: Authorization rule 7). */
export const mastersGroup = 'system:masters';

export const systemMastersAuthorizer: Authorizer = {
  name: 'system:masters',
  authorize: (attributes) => (attributes.user.groups.includes(mastersGroup)
    ? { decision: 'allow', reason: '' }
    : { decision: 'noOpinion', reason: '' }),
};

export function attributesFor(user: UserInfo, requestInfo: RequestInfo): AuthorizationAttributes {
  return {
    user, verb: requestInfo.verb, isResourceRequest: requestInfo.isResourceRequest, path: requestInfo.path,
    apiGroup: requestInfo.apiGroup, apiVersion: requestInfo.apiVersion, namespace: requestInfo.namespace,
    resource: requestInfo.resource, subresource: requestInfo.subresource, name: requestInfo.name,
    ...(requestInfo.options.fieldSelector === undefined ? {} : { fieldSelector: requestInfo.options.fieldSelector }),
    ...(requestInfo.options.labelSelector === undefined ? {} : { labelSelector: requestInfo.options.labelSelector }),
  };
}

/** kube's utilerrors aggregate text: one error as it is, several as "[a, b]". */
function aggregateErrors(errors: readonly string[]): string | undefined {
  if (errors.length === 0) return undefined;
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

/**
 * Asks the chain. The first allow or deny wins (with that authorizer's error, if any); with no
 * decision the result is noOpinion and carries the non-empty reasons joined by newlines and
 * every authorizer's error, as kube's union authorizer does.
 */
export async function authorize(
  authorizers: readonly Authorizer[], attributes: AuthorizationAttributes,
): Promise<AuthorizationResult> {
  const reasons: string[] = [];
  const errors: string[] = [];
  for (const authorizer of authorizers) {
    const result = await authorizer.authorize(attributes);
    if (result.error !== undefined && result.error !== '') errors.push(result.error);
    if (result.decision !== 'noOpinion') return result;
    if (result.reason !== '') reasons.push(result.reason);
  }
  const error = aggregateErrors(errors);
  return { decision: 'noOpinion', reason: reasons.join('\n'), ...(error === undefined ? {} : { error }) };
}

/** kube's sanitizer: error text must not look like HTML. */
function sanitize(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * kube's responsewriters.InternalError: plain text `Internal Server Error: "<uri>": <error>`,
 * what a client gets when authorization could not be decided.
 */
export async function sendAuthorizationError(reply: FastifyReply, requestUri: string, error: string): Promise<FastifyReply> {
  return reply.code(500).header('x-content-type-options', 'nosniff').type('text/plain')
    .send(`Internal Server Error: ${JSON.stringify(sanitize(requestUri))}: ${error}`);
}

/** kube's forbiddenMessage: what the user may not do, without the resource prefix. */
export function forbiddenMessage(attributes: AuthorizationAttributes): string {
  const user = attributes.user.name;
  if (!attributes.isResourceRequest) return `User "${user}" cannot ${attributes.verb} path "${attributes.path}"`;
  const resource = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  const target = `resource "${resource}" in API group "${attributes.apiGroup}"`;
  return attributes.namespace === ''
    ? `User "${user}" cannot ${attributes.verb} ${target} at the cluster scope`
    : `User "${user}" cannot ${attributes.verb} ${target} in the namespace "${attributes.namespace}"`;
}

/**
 * The 403 for a denied request, like kube's responsewriters.Forbidden → NewForbidden: a resource
 * request reads `<resource>[.<group>] ["<name>"] is forbidden: <message>`, a non-resource one
 * `forbidden: <message>` with empty details.
 */
export function forbiddenError(attributes: AuthorizationAttributes, reason: string): ApiError {
  const message = reason === '' ? forbiddenMessage(attributes) : `${forbiddenMessage(attributes)}: ${reason}`;
  if (attributes.isResourceRequest && attributes.resource !== '') {
    return forbidden({ group: attributes.apiGroup, resource: attributes.resource }, attributes.name, message);
  }
  return new ApiError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `forbidden: ${message}`,
    reason: 'Forbidden', details: {}, code: 403,
  });
}

async function sendError(reply: FastifyReply, error: ApiError): Promise<FastifyReply> {
  return reply.code(error.code).type('application/json').send(error.status);
}

async function authzPluginBody(app: FastifyInstance, options: AuthzOptions): Promise<void> {
  const authorizers = [...options.authorizers];
  app.addHook('onRequest', async (request, reply) => {
    // A path that names nothing is answered alike for every authenticated user.
    const rejection = request.requestInfo.rejection;
    if (rejection !== undefined) return sendError(reply, rejection.error);
    const attributes = attributesFor(request.user, request.requestInfo);
    const result = await authorize(authorizers, attributes);
    if (result.decision === 'allow') return undefined;
    if (result.error !== undefined) return sendAuthorizationError(reply, request.url, result.error);
    return sendError(reply, forbiddenError(attributes, result.reason));
  });
}

/** Register right after authnPlugin: it reads `request.user` and `request.requestInfo`. */
export const authzPlugin = fastifyPlugin(authzPluginBody, {
  name: 'kstore-authz', fastify: '5.x', dependencies: ['kstore-authn'],
});
