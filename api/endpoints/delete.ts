// Owns: the delete and deletecollection verbs. Delete options come from the body
// (DeleteOptions) or the query; preconditions are checked inside apply. An object without
// finalizers is removed at once (a Success Status answers, or for pods the deleted pod, as
// kube's ReturnDeletedObject); with finalizers it starts finalizing and the object, now carrying
// deletionTimestamp, is returned. Pods delete gracefully (actors/deletion-grace.ts decides the
// grace period from the pod as read; the command carries it): a bound, running pod stays,
// terminating, until a delete with grace period 0. Each delete goes through the write path
// (endpoints/write-path.ts): a missing object or a failed precondition is answered before
// proposing. Query options come decoded from the request's RequestInfo (request-options.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KubeObject, Preconditions, PropagationPolicy } from '../../actors/index.ts';
import { decodeBody } from '../negotiation.ts';
import { parseFieldSelector, parseLabelSelector, bothMatch } from '../selectors.ts';
import { badRequest, invalid, successStatus } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { formatTime, isDryRun, listOf, requestBody, respond } from './context.ts';
import { firstQueryValue } from '../request-options.ts';
import type { QueryParameters } from '../request-options.ts';
import { writeDelete, writeRequestOf } from './write-path.ts';
import { expectObject } from './results.ts';
import { collectionKey, objectKey } from './target.ts';
import type { Target } from './target.ts';
import { handleUnsafeDelete, readable, unsafeDeleteOption } from './corrupt.ts';
import { deletionGracePeriod, returnsDeletedObject } from '../../actors/index.ts';
import { checkSubresource } from './subresource.ts';

interface DeleteOptions {
  readonly preconditions?: Preconditions;
  readonly propagationPolicy?: PropagationPolicy;
  readonly gracePeriodSeconds?: number;
  /** orphanDependents was explicitly false: kube-apiserver answers 202 when deletion is not immediate. */
  readonly cascadeRequested?: boolean;
}

const propagationPolicies = ['Orphan', 'Background', 'Foreground'];

function readDeleteOptions(request: FastifyRequest): DeleteOptions {
  const query = request.requestInfo.options;
  const raw = requestBody(request);
  const body = raw.length === 0 || (typeof raw === 'string' && raw.trim() === '') ? {} : decodeBody(request.headers['content-type'], raw);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body of a delete request must be a DeleteOptions object');
  const options = body as Record<string, unknown>;
  const preconditions = options['preconditions'];
  if (preconditions !== undefined && (preconditions === null || typeof preconditions !== 'object')) throw badRequest('DeleteOptions.preconditions must be an object');
  const policy = (options['propagationPolicy'] as string | undefined) ?? query.propagationPolicy;
  if (policy !== undefined && !propagationPolicies.includes(policy)) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"` }]);
  }
  const orphanRaw = options['orphanDependents'] ?? query.orphanDependents;
  const orphanDependents = orphanRaw === undefined ? undefined : orphanRaw === true;
  if (orphanDependents !== undefined && policy !== undefined) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [{ reason: 'FieldValueInvalid', field: 'propagationPolicy', message: 'Invalid value: "' + policy + '": orphanDependents and deletionPropagation cannot be both set' }]);
  }
  const effectivePolicy = (policy ?? (orphanDependents === undefined ? undefined : orphanDependents ? 'Orphan' : 'Background')) as PropagationPolicy | undefined;
  const grace = options['gracePeriodSeconds'] ?? query.gracePeriodSeconds;
  if (grace !== undefined && !Number.isInteger(Number(grace))) throw badRequest(`gracePeriodSeconds must be an integer, got ${JSON.stringify(grace)}`);
  return {
    ...(preconditions ? { preconditions: preconditions as Preconditions } : {}),
    ...(effectivePolicy ? { propagationPolicy: effectivePolicy } : {}),
    ...(orphanDependents === false ? { cascadeRequested: true } : {}),
    ...(grace !== undefined ? { gracePeriodSeconds: Number(grace) } : {}),
  };
}

/**
 * The decoded DeleteOptions (body, else query) as given, for the corrupt-object path's checks;
 * `unsafe` when ignoreStoreReadErrorWithClusterBreakingPotential is true and the gate is on
 * (with the gate off kube-apiserver drops the option, so the normal path runs).
 */
function unsafeDeleteRequest(request: FastifyRequest, context: EndpointContext): Readonly<Record<string, unknown>> | undefined {
  if (!context.featureGates.AllowUnsafeMalformedObjectDeletion) return undefined;
  // The corrupt-object path keeps the options as given (strings included) for its own checks.
  const query = request.query as QueryParameters;
  const queryString = firstQueryValue;
  const raw = requestBody(request);
  const body = raw.length === 0 || (typeof raw === 'string' && raw.trim() === '') ? {} : decodeBody(request.headers['content-type'], raw);
  const options = (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const flag = options[unsafeDeleteOption] ?? queryString(query, unsafeDeleteOption);
  if (flag !== true && flag !== 'true') return undefined;
  return {
    ...options,
    ...(options['dryRun'] === undefined && queryString(query, 'dryRun') !== undefined ? { dryRun: queryString(query, 'dryRun') } : {}),
    ...(options['gracePeriodSeconds'] === undefined && queryString(query, 'gracePeriodSeconds') !== undefined ? { gracePeriodSeconds: queryString(query, 'gracePeriodSeconds') } : {}),
    ...(options['propagationPolicy'] === undefined && queryString(query, 'propagationPolicy') !== undefined ? { propagationPolicy: queryString(query, 'propagationPolicy') } : {}),
    ...(options['orphanDependents'] === undefined && queryString(query, 'orphanDependents') !== undefined ? { orphanDependents: queryString(query, 'orphanDependents') } : {}),
  };
}

export async function handleDelete(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  if (target.name === undefined) return handleDeleteCollection(request, reply, target, context);
  // No subresource is deleted: a DELETE of <name>/<subresource> never deletes the object.
  if (target.subresource !== undefined) checkSubresource(target, 'delete');
  const name = target.name;
  const unsafe = unsafeDeleteRequest(request, context);
  if (unsafe !== undefined) return handleUnsafeDelete(request, reply, target, context, context.authorizers, unsafe);
  const options = readDeleteOptions(request);
  const key = objectKey(target, name);
  // A normal delete reads the object first (as kube's does): a corrupt one is a 500.
  await context.store.readIndex();
  const current = context.store.get(key);
  readable(target, current);
  if (isDryRun(request.requestInfo.options, 'DeleteOptions')) {
    const result = current ? { type: 'stored' as const, object: dryRunDeleted(target, current, options.gracePeriodSeconds, context), revision: 0 } : { type: 'notFound' as const };
    return respond(request, reply, 200, expectObject(result, target, name).object);
  }
  // Decided from the object as read; if a concurrent write changes it before apply, apply still
  // only ever shortens a running grace period.
  const grace = current === undefined ? undefined : deletionGracePeriod(target.kind, current, options.gracePeriodSeconds);
  const write = writeRequestOf(request, target, context, false);
  const result = await writeDelete(write, name, current, {
    ...(options.preconditions ? { preconditions: options.preconditions } : {}),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
  });
  const outcome = expectObject(result, target, name);
  if (outcome.type === 'removed' && returnsDeletedObject(target.kind)) return respond(request, reply, 200, outcome.object);
  if (outcome.type === 'removed') {
    return respond(request, reply, 200, successStatus({
      name, group: target.kind.group, kind: target.kind.resource, uid: outcome.object.metadata.uid ?? '',
    }));
  }
  return respond(request, reply, options.cascadeRequested ? 202 : 200, outcome.object);
}

/**
 * What a dry-run delete answers: the object as it is, or for a pod that would start a graceful
 * deletion, with the deletionTimestamp and deletionGracePeriodSeconds it would get (kube's
 * dry-run runs BeforeDelete's update without storing it).
 */
function dryRunDeleted(target: Target, current: KubeObject, requested: number | undefined, context: EndpointContext): KubeObject {
  const grace = deletionGracePeriod(target.kind, current, requested);
  if (grace === undefined || grace === 0 || current.metadata.deletionTimestamp !== undefined) return current;
  const deletionTimestamp = formatTime(new Date(context.now().getTime() + grace * 1000));
  return { ...current, metadata: { ...current.metadata, deletionTimestamp, deletionGracePeriodSeconds: grace } };
}

/** Deletes every object of the collection that matches the selectors; returns them as a list. */
async function handleDeleteCollection(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const query = request.requestInfo.options;
  if (unsafeDeleteRequest(request, context) !== undefined) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [{ reason: 'FieldValueInvalid', field: unsafeDeleteOption, message: 'Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option' }]);
  }
  const options = readDeleteOptions(request);
  const selector = bothMatch(parseLabelSelector(query.labelSelector), parseFieldSelector(query.fieldSelector, target.kind.fieldSelectors));
  const dryRun = isDryRun(query, 'DeleteOptions');
  await context.store.readIndex();
  const { items } = context.store.list(collectionKey(target));
  const deleted: KubeObject[] = [];
  for (const item of items.filter((object) => selector.matches(object))) {
    if (dryRun) {
      deleted.push(item);
      continue;
    }
    const itemTarget = { ...target, namespace: item.metadata.namespace ?? '' };
    // Each item gets its own grace period, as kube's DeleteCollection deletes each with a copy of the options.
    const grace = deletionGracePeriod(target.kind, item, options.gracePeriodSeconds);
    const result = await writeDelete(writeRequestOf(request, itemTarget, context, false), item.metadata.name ?? '', item, {
      ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
    });
    if (result.type === 'removed' || result.type === 'finalizing') deleted.push(result.object);
  }
  return respond(request, reply, 200, listOf(target.kind, deleted, { resourceVersion: String(context.store.currentRevision()) }));
}
