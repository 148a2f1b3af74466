// Owns: the `lifecycle` subresource of every object — the lifecycle inspector's API. GET
// answers an ObjectLifecycle (kstore.k8s.io/v1alpha1): for each machine that governs the object
// (today the deletion machine) its statechart, current state, what it waits for in plain words,
// its context, and the history of transitions (event, from, to, revision, time, user). The data
// is part of the replicated state (records' transition logs, carried by change events to API
// replicas), so every replica answers the same. `?watch=1` streams ADDED (the current view),
// MODIFIED on every transition, and DELETED when the object is removed. Reads are Most Recent
// (a ReadIndex round trip) unless resourceVersion=0.
import { once } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { deletionStatechart, deletionWaitingFor, keyString, tokenStatechart, tokenWaitingFor } from '../../actors/index.ts';
import type { ChangeEvent, KubeObject, Lifecycle } from '../../actors/index.ts';
import { lifecycleApiVersion } from '../console/view-types.ts';
import type { LifecycleHistoryEntry, ObjectLifecycleView } from '../console/view-types.ts';
import { methodNotAllowed, notFound } from '../status.ts';
import type { EndpointContext, Query } from './context.ts';
import { queryBoolean, queryString, respond } from './context.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';

export const lifecycleSubresource = 'lifecycle';
export type { LifecycleHistoryEntry, MachineView, ObjectLifecycleView } from '../console/view-types.ts';

/**
 * A lifecycle for an object whose record predates lifecycle tracking in events (a replica that
 * synced from an older member): the state follows from metadata, with no history.
 */
function lifecycleFromMetadata(object: KubeObject): Lifecycle {
  const finalizers = [...(object.metadata.finalizers ?? [])];
  const deletionTimestamp = object.metadata.deletionTimestamp ?? null;
  const grace = object.metadata.deletionGracePeriodSeconds;
  if (deletionTimestamp !== null && typeof grace === 'number' && grace > 0) {
    return { state: 'terminating', context: { finalizers, deletionTimestamp, gracePeriodSeconds: grace }, transitions: [] };
  }
  return { state: deletionTimestamp === null ? 'live' : 'finalizing', context: { finalizers, deletionTimestamp }, transitions: [] };
}

export function lifecycleView(target: Target, object: KubeObject, lifecycle: Lifecycle | undefined): ObjectLifecycleView {
  const known = lifecycle ?? lifecycleFromMetadata(object);
  const { namespace, uid, resourceVersion } = object.metadata;
  return {
    kind: 'ObjectLifecycle', apiVersion: lifecycleApiVersion,
    metadata: {
      name: object.metadata.name ?? '',
      ...(namespace === undefined || namespace === '' ? {} : { namespace }),
      ...(uid === undefined ? {} : { uid }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    object: { apiVersion: target.kind.group === '' ? target.kind.version : `${target.kind.group}/${target.kind.version}`, kind: target.kind.kind, resource: target.kind.resource },
    machines: [
      {
        name: 'deletion',
        statechart: deletionStatechart,
        state: known.state,
        waitingFor: deletionWaitingFor({ value: known.state, context: known.context }, object),
        context: known.context as unknown as Readonly<Record<string, unknown>>,
        history: known.transitions.map(historyEntry),
      },
      // A bootstrap token secret is also governed by its token machine.
      ...(known.token === undefined ? [] : [{
        name: 'token',
        statechart: tokenStatechart,
        state: known.token.state,
        waitingFor: tokenWaitingFor({ value: known.token.state, context: known.token.context }),
        context: known.token.context as unknown as Readonly<Record<string, unknown>>,
        history: known.token.transitions.map(historyEntry),
      }]),
    ],
  };
}

function historyEntry(transition: { readonly event: string; readonly from: string | null; readonly to: string; readonly revision: number; readonly at: string; readonly by?: string }): LifecycleHistoryEntry {
  return {
    event: transition.event, from: transition.from, to: transition.to, revision: String(transition.revision), time: transition.at,
    ...(transition.by === undefined ? {} : { user: transition.by }),
  };
}

function frame(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: unknown): string {
  return `${JSON.stringify({ type, object })}\n`;
}

/** A watch ends after this many seconds unless timeoutSeconds says otherwise (kube's minimum request timeout). */
const lifecycleWatchSecondsDefault = 1800;

async function watchLifecycle(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext, start: ObjectLifecycleView): Promise<FastifyReply> {
  const query = request.query as Query;
  const key = objectKey(target, target.name!);
  const wanted = keyString(key);
  const revision = context.store.currentRevision();
  const watcher = context.cache.watch(revision, { scope: wanted, matches: (event: ChangeEvent) => keyString(event.key) === wanted });
  if (watcher === 'expired') throw notFound({ group: target.kind.group, resource: `${target.kind.resource}/${lifecycleSubresource}` }, target.name!);
  const timeoutRaw = queryString(query, 'timeoutSeconds');
  const timeoutSeconds = timeoutRaw !== undefined && /^\d+$/.test(timeoutRaw) && timeoutRaw !== '0' ? Number(timeoutRaw) : lifecycleWatchSecondsDefault;
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  raw.write(frame('ADDED', start));
  const timer = setTimeout(() => watcher.terminate(undefined), timeoutSeconds * 1000);
  const stop = (): void => watcher.terminate(undefined);
  raw.once('close', stop);
  request.raw.socket.once('close', stop);
  try {
    for await (const item of watcher) {
      if (raw.destroyed) break;
      if (item.type === 'BOOKMARK') continue;
      const event = item;
      if (event.type === 'DELETED') {
        const removed = event.lifecycle ?? { ...lifecycleFromMetadata(event.object), state: 'removed' as const };
        raw.write(frame('DELETED', lifecycleView(target, event.object, removed)));
        break;
      }
      // Only transitions are news: a plain update moves no machine.
      if (event.lifecycle === undefined) continue;
      if (!raw.write(frame('MODIFIED', lifecycleView(target, event.object, event.lifecycle)))) await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
    }
  } finally {
    clearTimeout(timer);
    watcher.terminate(undefined);
    if (!raw.destroyed) raw.end();
  }
  return reply;
}

/** GET (and watch) of `<object>/lifecycle`. */
export async function handleLifecycle(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const name = target.name!;
  const query = request.query as Query;
  if (queryString(query, 'resourceVersion') !== '0') await context.store.readIndex();
  const key = objectKey(target, name);
  const object = context.store.get(key);
  if (object === undefined) throw notFound({ group: target.kind.group, resource: target.kind.resource }, name);
  const view = lifecycleView(target, object, context.store.lifecycleOf(key));
  if (queryBoolean(query, 'watch')) return watchLifecycle(request, reply, target, context, view);
  return respond(request, reply, 200, view);
}
