// Owns: impersonation (kube-apiserver's WithImpersonation filter), a fastify plugin whose
// onRequest hook runs after authn's and before authz's. Headers Impersonate-User (a user, or
// `system:serviceaccount:<ns>:<name>`), Impersonate-Group (repeatable), Impersonate-Extra-<key>
// (repeatable; the key lower-cased and percent-decoded) and Impersonate-Uid: the authenticated
// caller must be allowed the verb `impersonate` on each (users, groups and serviceaccounts in the
// core group, userextras/<key> and uids in authentication.k8s.io, optionally limited by
// resourceNames), else 403 in kube's words; groups, extra or uid without a user is 400. The
// request then runs as the impersonated identity: a service account gets its fixed groups unless
// groups are given; system:authenticated is added (system:unauthenticated for
// system:anonymous) unless one of them was named.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { UserInfo } from './authn.ts';
import { authorize, forbiddenError } from './authz.ts';
import type { AuthorizationAttributes, Authorizer } from './authz.ts';
import { ApiError, badRequest } from '../status.ts';

interface ImpersonationRequest {
  readonly kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  readonly namespace: string;
  readonly name: string;
  /** UserExtra: the extra key. */
  readonly fieldPath: string;
}

const serviceAccountPrefix = 'system:serviceaccount:';
const extraPrefix = 'impersonate-extra-';

/** Every value of a header, repeated headers kept apart (headersDistinct; injected requests have only `headers`). */
function distinctHeaders(request: FastifyRequest): Record<string, string[]> {
  const distinct = (request.raw as { headersDistinct?: Record<string, string[]> }).headersDistinct;
  if (distinct !== undefined) return distinct;
  const headers: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value : [String(value)];
  }
  return headers;
}

function hasImpersonationHeader(request: FastifyRequest): boolean {
  for (const name in request.headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

function headerValues(request: FastifyRequest, name: string): string[] {
  return distinctHeaders(request)[name] ?? [];
}

/** `system:serviceaccount:<ns>:<name>` split, as serviceaccount.SplitUsername. */
function splitServiceAccount(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountPrefix)) return undefined;
  const parts = username.slice(serviceAccountPrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Go's %v of the ObjectReference list, for the 400 message. */
function describe(requests: readonly ImpersonationRequest[]): string {
  const apiVersion = (request: ImpersonationRequest) => (request.kind === 'UserExtra' || request.kind === 'UID' ? 'authentication.k8s.io/v1' : '');
  return `[${requests.map((request) => `{${request.kind} ${request.namespace} ${request.name}  ${apiVersion(request)}  ${request.fieldPath}}`).join(' ')}]`;
}

export function impersonationRequests(request: FastifyRequest): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  // Most requests impersonate nobody: then Node's per-request copy of the headers is not built.
  if (!hasImpersonationHeader(request)) return requests;
  const user = headerValues(request, 'impersonate-user')[0] ?? '';
  if (user !== '') {
    const account = splitServiceAccount(user);
    requests.push(account === undefined
      ? { kind: 'User', namespace: '', name: user, fieldPath: '' }
      : { kind: 'ServiceAccount', namespace: account.namespace, name: account.name, fieldPath: '' });
  }
  const groups = headerValues(request, 'impersonate-group');
  for (const group of groups) requests.push({ kind: 'Group', namespace: '', name: group, fieldPath: '' });
  let hasExtra = false;
  for (const header of Object.keys(distinctHeaders(request))) {
    if (!header.startsWith(extraPrefix)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(extraPrefix.length).toLowerCase());
    for (const value of headerValues(request, header)) requests.push({ kind: 'UserExtra', namespace: '', name: value, fieldPath: key });
  }
  const uid = headerValues(request, 'impersonate-uid')[0] ?? '';
  if (uid !== '') requests.push({ kind: 'UID', namespace: '', name: uid, fieldPath: '' });
  if ((groups.length > 0 || hasExtra || uid !== '') && user === '') throw badRequest(`requested ${describe(requests)} without impersonating a user`);
  return requests;
}

function attributesFor(caller: UserInfo, request: ImpersonationRequest): AuthorizationAttributes {
  const base = { user: caller, verb: 'impersonate', isResourceRequest: true, path: '', apiVersion: 'v1', namespace: '', subresource: '', name: request.name };
  switch (request.kind) {
    case 'User': return { ...base, apiGroup: '', resource: 'users' };
    case 'ServiceAccount': return { ...base, apiGroup: '', resource: 'serviceaccounts', namespace: request.namespace };
    case 'Group': return { ...base, apiGroup: '', resource: 'groups' };
    case 'UserExtra': return { ...base, apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: request.fieldPath };
    case 'UID': return { ...base, apiGroup: 'authentication.k8s.io', resource: 'uids' };
  }
}

/** The identity the request runs as, once every impersonation is authorized (else the 403). */
export async function impersonatedUser(caller: UserInfo, requests: readonly ImpersonationRequest[], authorizers: readonly Authorizer[]): Promise<UserInfo> {
  const groupsSpecified = requests.some((request) => request.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    const attributes = attributesFor(caller, request);
    const result = await authorize(authorizers, attributes);
    if (result.decision !== 'allow') throw forbiddenError(attributes, result.reason);
    if (request.kind === 'User') name = request.name;
    if (request.kind === 'ServiceAccount') {
      name = `${serviceAccountPrefix}${request.namespace}:${request.name}`;
      if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${request.namespace}`];
    }
    if (request.kind === 'Group') groups.push(request.name);
    if (request.kind === 'UserExtra') (extra[request.fieldPath] ??= []).push(request.name);
    if (request.kind === 'UID') uid = request.name;
  }
  if (name !== 'system:anonymous') {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) {
    groups.push('system:unauthenticated');
  }
  return { name, uid, groups, extra };
}

async function impersonationPluginBody(app: FastifyInstance, options: { readonly authorizers: readonly Authorizer[] }): Promise<void> {
  const authorizers = [...options.authorizers];
  app.addHook('onRequest', async (request, reply) => {
    try {
      const requests = impersonationRequests(request);
      if (requests.length === 0) return undefined;
      request.user = await impersonatedUser(request.user, requests, authorizers);
      return undefined;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return reply.code(error.code).type('application/json').send(error.status);
    }
  });
}

/** Register right after authnPlugin and before authzPlugin. */
export const impersonationPlugin = fastifyPlugin(impersonationPluginBody, {
  name: 'kstore-impersonation', fastify: '5.x', dependencies: ['kstore-authn'],
});
