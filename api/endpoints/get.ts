// Owns: the get verb (GET of an item) with its resourceVersion semantics, in JSON, YAML,
// protobuf, the Table form or as PartialObjectMetadata.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiate } from '../negotiation.ts';
import { notFound } from '../status.ts';
import { checkSubresource } from './subresource.ts';
import { toTable } from '../table.ts';
import { partialObjectMetadata } from '../partial-metadata.ts';
import type { EndpointContext, Query } from './context.ts';
import { queryString, respond } from './context.ts';
import { readable } from './corrupt.ts';
import { getSemantic, settleRead } from './read-consistency.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';

export async function handleGet(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const name = target.name!;
  const query = request.query as Query;
  if (target.subresource !== undefined) checkSubresource(target, 'get');
  const format = negotiate(request.headers.accept, true);
  await settleRead(getSemantic(request.requestInfo.options), context);
  const object = readable(target, context.store.get(objectKey(target, name)));
  if (!object) throw notFound({ group: target.kind.group, resource: target.kind.resource }, name);
  if (format.type === 'table') {
    const table = toTable(target.kind, [object], { includeObject: includeObjectOf(query), listMeta: { resourceVersion: object.metadata.resourceVersion ?? '' } });
    return respond(request, reply, 200, table, { type: 'json' });
  }
  if (format.type === 'metadata') return respond(request, reply, 200, partialObjectMetadata(format, target.kind, object), format);
  return respond(request, reply, 200, object, format);
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function includeObjectOf(query: Query): IncludeObject {
  const value = queryString(query, 'includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}
