// Owns: the list verb (GET of a collection): resourceVersion semantics, label and field
// selectors, chunking with limit/continue from one snapshot (the collection resourceVersion
// stays constant across chunks), remainingItemCount, and the Table form.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KubeObject } from '../../actors/index.ts';
import { keyString } from '../../actors/index.ts';
import { negotiate } from '../negotiation.ts';
import { partialObjectMetadataList } from '../partial-metadata.ts';
import { bothMatch, parseFieldSelector, parseLabelSelector } from '../selectors.ts';
import { toTable } from '../table.ts';
import type { EndpointContext, Query } from './context.ts';
import { listOf, respond } from './context.ts';
import type { RequestOptions } from '../request-options.ts';
import { includeObjectOf } from './get.ts';
import { encodeContinue, expiredVersion, listSemantic, settleRead } from './read-consistency.ts';
import { collectionKey, objectKey } from './target.ts';
import type { Target } from './target.ts';
import { readable } from './corrupt.ts';

interface Chunk {
  readonly items: readonly KubeObject[];
  readonly revision: number;
  readonly continueToken: string | undefined;
  readonly remainingItemCount: number | undefined;
}

/** ListOptions.limit: 0 or negative means no limit, as kube's storage reads it. */
function limitOf(options: RequestOptions): number | undefined {
  return options.limit > 0 ? options.limit : undefined;
}

function itemKey(target: Target, item: KubeObject): string {
  return keyString(objectKey({ ...target, namespace: item.metadata.namespace ?? '' }, item.metadata.name ?? ''));
}

export async function readChunk(target: Target, options: RequestOptions, context: EndpointContext): Promise<Chunk> {
  const semantic = listSemantic(options);
  const limit = limitOf(options);
  const selector = bothMatch(parseLabelSelector(options.labelSelector), parseFieldSelector(options.fieldSelector, target.kind.fieldSelectors));
  const current = await settleRead(semantic, context);
  const revision = semantic.type === 'exact' || semantic.type === 'continuation' ? semantic.revision : current;
  const snapshot = context.cache.listAt(collectionKey(target), revision);
  if (snapshot === 'expired') expiredVersion(semantic, context.cache.oldestResumableRevision());
  const startAfter = semantic.type === 'continuation' ? semantic.startAfter : '';
  // The snapshot is in key order: a page starts with a binary search, not a pass over the set.
  const start = startAfter === '' ? 0 : firstAfter(snapshot, (item) => itemKey(target, item), startAfter);
  if (limit === undefined) {
    const candidates = start === 0 ? snapshot : snapshot.slice(start);
    return { items: selector.empty ? candidates : candidates.filter((item) => selector.matches(item)), revision, continueToken: undefined, remainingItemCount: undefined };
  }
  // Up to limit + 1 matching items: one more than the page tells whether another page follows.
  const page: KubeObject[] = [];
  let position = start;
  for (; position < snapshot.length && page.length <= limit; position++) {
    const item = snapshot[position]!;
    if (selector.empty || selector.matches(item)) page.push(item);
  }
  if (page.length <= limit) return { items: page, revision, continueToken: undefined, remainingItemCount: undefined };
  const items = page.slice(0, limit);
  const continueToken = encodeContinue({ revision, startAfter: itemKey(target, items.at(-1)!) });
  return { items, revision, continueToken, remainingItemCount: selector.empty ? snapshot.length - start - limit : undefined };
}

/** The first position in `sorted` (ascending by keyOf) whose key is > `after`. */
function firstAfter(sorted: readonly KubeObject[], keyOf: (item: KubeObject) => string, after: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keyOf(sorted[middle]!) <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

export async function handleList(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const query = request.query as Query;
  const format = negotiate(request.headers.accept, true);
  const chunk = await readChunk(target, request.requestInfo.options, context);
  // One corrupt item fails the list, as kube-apiserver's storage does.
  for (const item of chunk.items) readable(target, item);
  const metadata = {
    resourceVersion: String(chunk.revision),
    ...(chunk.continueToken ? { continue: chunk.continueToken } : {}),
    ...(chunk.remainingItemCount !== undefined ? { remainingItemCount: chunk.remainingItemCount } : {}),
  };
  if (format.type === 'table') {
    return respond(request, reply, 200, toTable(target.kind, chunk.items, { includeObject: includeObjectOf(query), listMeta: metadata }), { type: 'json' });
  }
  if (format.type === 'metadata') return respond(request, reply, 200, partialObjectMetadataList(format, target.kind, chunk.items, metadata), format);
  return respond(request, reply, 200, listOf(target.kind, chunk.items, metadata), format);
}
