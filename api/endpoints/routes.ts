// Owns: routing resource requests to verb handlers. The request's RequestInfo (computed once
// when it arrived, api/request-info.ts) names the target and the verb; this module only
// dispatches on them, so the handler that runs is the one authorization decided on. Before any
// handler runs: a path naming nothing is the bare 404, query options that do not decode are a
// 400, and a response media type the client cannot accept is a 406 — nothing is read or
// written for a request that will be refused.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { negotiate } from '../negotiation.ts';
import type { Verb } from '../registry/kind.ts';
import { methodNotAllowed, pathNotFound } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { sendWarnings } from './context.ts';
import { handleCreate } from './create.ts';
import { handleDelete } from './delete.ts';
import { handleGet } from './get.ts';
import { handleList } from './list.ts';
import { handlePatch } from './patch.ts';
import { handleUpdate } from './update.ts';
import { handleWatch } from './watch.ts';
import { handleLifecycle, lifecycleSubresource } from './lifecycle.ts';
import { prepareStoredObjects, servedContext } from './served-view.ts';
import { handleBinding, handleEviction, handleLog, handleStream } from './pod-subresources.ts';
import { handleSubresourcePatch } from './subresource-patch.ts';
import { handleScale } from './scale.ts';
import { handleComponentStatuses, isComponentStatuses } from './component-status.ts';
import { handleEphemeralContainers } from './ephemeral-containers.ts';
import { handleResize } from './pod-resize.ts';
import { handleProxy, proxyMethods } from './proxy.ts';
import { proxySubresource } from './target.ts';
import { handleTokenRequest } from '../auth/token-request.ts';

const writeVerbs: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

const itemVerbs: ReadonlySet<string> = new Set(['get', 'update', 'patch', 'delete']);

const notAllowed = 'the server does not allow this method on the requested resource';

async function dispatch(request: FastifyRequest, reply: FastifyReply, shared: EndpointContext): Promise<FastifyReply> {
  const info = request.requestInfo;
  const target = info.target;
  if (target === undefined) throw pathNotFound();
  // Only the kind's verbs have routes (kube installs a handler per verb): an item path of a kind
  // without item verbs (bindings) names nothing; another method on a served path is a 405.
  // A proxy subresource passes any method, query and body on (endpoints/proxy.ts).
  if (target.subresource === proxySubresource && target.name !== undefined) return handleProxy(request, reply, target, shared);
  if (target.subresource === undefined && !target.kind.verbs.includes(info.verb as Verb)) {
    if (target.name !== undefined && !target.kind.verbs.some((verb) => itemVerbs.has(verb))) throw pathNotFound();
    throw methodNotAllowed(notAllowed);
  }
  // A served subresource answers only its own verbs (kube installs a route per verb: 405 for the
  // others); one the kind does not serve is a 404 from its handler (checkSubresource).
  if (target.subresource !== undefined && target.name !== undefined) {
    const served = target.kind.subresources?.find((candidate) => candidate.name === target.subresource);
    if (served !== undefined && !served.verbs.includes(info.verb as Verb)) throw methodNotAllowed(notAllowed);
  }
  if (info.options.problem !== undefined) throw info.options.problem;
  // A write's response representation is decided before it runs (a 406 stores nothing).
  if (writeVerbs.has(info.verb)) negotiate(request.headers.accept, false);
  // A kind served over another kind's storage (events.k8s.io events) reads and writes converted.
  const context = servedContext(target, shared);
  // A deprecated version of a custom resource warns on every request (kube's CRD handler).
  if (target.kind.deprecationWarning !== undefined) sendWarnings(reply, [target.kind.deprecationWarning]);
  // A conversion with I/O (a CRD's conversion webhook) converts the stored objects ahead, so the
  // handlers' synchronous reads find them (reads after a read point are covered by the view too).
  await prepareStoredObjects(shared.store, target.kind.storage);
  // componentstatuses are computed per request, never stored.
  if (isComponentStatuses(target)) return handleComponentStatuses(request, reply, target, context);
  // Every kind has the lifecycle subresource (the lifecycle inspector).
  if (target.subresource === lifecycleSubresource && target.name !== undefined) return handleLifecycle(request, reply, target, context);
  // Subresources with handlers of their own: pods/eviction, pods/log, and PATCH of a part (status).
  if (target.subresource !== undefined && target.name !== undefined) {
    const podSubresource = target.kind.group === '' && target.kind.resource === 'pods';
    if (podSubresource && target.subresource === 'eviction' && request.method === 'POST') return handleEviction(request, reply, target, context);
    if (podSubresource && target.subresource === 'binding' && request.method === 'POST') return handleBinding(request, reply, target, context);
    if (target.kind.group === '' && target.kind.resource === 'serviceaccounts' && target.subresource === 'token' && request.method === 'POST') return handleTokenRequest(request, reply, target, context);
    if (podSubresource && target.subresource === 'log' && (request.method === 'GET' || request.method === 'HEAD')) return handleLog(request, reply, target, context);
    if (podSubresource && ['exec', 'attach', 'portforward'].includes(target.subresource) && (request.method === 'GET' || request.method === 'POST')) {
      return handleStream(request, reply, target, context);
    }
    if (target.subresource === 'scale') return handleScale(request, reply, target, context);
    if (podSubresource && (request.method === 'PUT' || request.method === 'PATCH')) {
      if (target.subresource === 'ephemeralcontainers') return handleEphemeralContainers(request, reply, target, context);
      if (target.subresource === 'resize') return handleResize(request, reply, target, context);
    }
    if (request.method === 'PATCH') return handleSubresourcePatch(request, reply, target, context);
  }
  if (target.kind.group === '' && target.kind.resource === 'bindings' && request.method === 'POST') return handleBinding(request, reply, target, context);
  switch (request.method) {
    case 'GET':
    case 'HEAD':
      if (info.verb === 'watch') return handleWatch(request, reply, target, context);
      return target.name === undefined ? handleList(request, reply, target, context) : handleGet(request, reply, target, context);
    case 'POST':
      return handleCreate(request, reply, target, context);
    case 'PUT':
      return handleUpdate(request, reply, target, context);
    case 'PATCH':
      if (target.name === undefined) throw methodNotAllowed(notAllowed);
      return handlePatch(request, reply, target, context);
    case 'DELETE':
      return handleDelete(request, reply, target, context);
    default:
      throw methodNotAllowed(notAllowed);
  }
}

export function registerResourceRoutes(app: FastifyInstance, context: EndpointContext): void {
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
  for (const prefix of ['/api/*', '/apis/*']) {
    app.route({ method: [...methods], url: prefix, handler: (request, reply) => dispatch(request, reply, context) });
  }
  // The core proxy subresources take a body of any media type (and OPTIONS), as kube's
  // connecters pass it on unread: their paths have a parser of their own, and the same dispatch.
  void app.register(async (proxied) => {
    proxied.removeAllContentTypeParsers();
    proxied.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    const routes = ['/api/v1/namespaces/:namespace/:resource/:name/proxy', '/api/v1/nodes/:name/proxy'];
    for (const url of routes.flatMap((route) => [route, `${route}/*`])) {
      proxied.route({ method: proxyMethods.filter((method) => method !== 'HEAD'), url, handler: (request, reply) => dispatch(request, reply, context) });
    }
  });
}
