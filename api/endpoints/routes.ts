// Owns: routing resource requests to verb handlers. Every path under /api/ and /apis/ that is
// not discovery resolves to a Target (endpoints/target.ts), then the HTTP method and the
// watch parameter choose the verb, as kube-apiserver's RequestInfo does.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { methodNotAllowed } from '../status.ts';
import type { EndpointContext, Query } from './context.ts';
import { queryBoolean } from './context.ts';
import { handleCreate } from './create.ts';
import { handleDelete } from './delete.ts';
import { handleGet } from './get.ts';
import { handleList } from './list.ts';
import { handlePatch } from './patch.ts';
import { handleUpdate } from './update.ts';
import { handleWatch } from './watch.ts';
import { handleLifecycle, lifecycleSubresource } from './lifecycle.ts';
import { resolveTarget } from './target.ts';
import { servedContext } from './served-view.ts';
import { handleBinding, handleEviction, handleLog, handleStream } from './pod-subresources.ts';
import { handleSubresourcePatch } from './subresource-patch.ts';

const notAllowed = 'the server does not allow this method on the requested resource';

async function dispatch(request: FastifyRequest, reply: FastifyReply, shared: EndpointContext): Promise<FastifyReply> {
  const path = request.url.split('?')[0]!;
  const target = resolveTarget(path);
  // A kind served over another kind's storage (events.k8s.io events) reads and writes converted.
  const context = servedContext(target, shared);
  const query = request.query as Query;
  // Every kind has the lifecycle subresource (the lifecycle inspector).
  if (target.subresource === lifecycleSubresource && target.name !== undefined) return handleLifecycle(request, reply, target, context);
  // Subresources with handlers of their own: pods/eviction, pods/log, and PATCH of a part (status).
  if (target.subresource !== undefined && target.name !== undefined) {
    const podSubresource = target.kind.group === '' && target.kind.resource === 'pods';
    if (podSubresource && target.subresource === 'eviction' && request.method === 'POST') return handleEviction(request, reply, target, context);
    if (podSubresource && target.subresource === 'binding' && request.method === 'POST') return handleBinding(request, reply, target, context);
    if (podSubresource && target.subresource === 'log' && (request.method === 'GET' || request.method === 'HEAD')) return handleLog(request, reply, target, context);
    if (podSubresource && ['exec', 'attach', 'portforward'].includes(target.subresource) && (request.method === 'GET' || request.method === 'POST')) {
      return handleStream(request, reply, target, context);
    }
    if (request.method === 'PATCH') return handleSubresourcePatch(request, reply, target, context);
  }
  switch (request.method) {
    case 'GET':
    case 'HEAD':
      if (queryBoolean(query, 'watch')) return handleWatch(request, reply, target, context);
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
}
