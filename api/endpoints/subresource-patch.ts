// Owns: PATCH of a subresource that replaces one part of the object (pods/status,
// nodes/status, services/status): the patch is applied to the stored object, then only that
// part of the result is kept (endpoints/subresource.ts mergeSubresource), so a status patch
// cannot change spec or metadata, as kube's status strategies ensure. Validated like an update
// and proposed with the read resourceVersion as precondition; a concurrent write re-reads and
// re-applies, unless the patch itself named a resourceVersion (as the main resource's patch).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { applyJsonPatch, JsonPatchError } from '../patch/json-patch.ts';
import { applyMergePatch, strategicMerge } from '../patch/merge-patch.ts';
import { badRequest, conflict, invalid, notFound, unsupportedMediaType } from '../status.ts';
import type { EndpointContext, Query } from './context.ts';
import { causeOf, fieldValidationLevel, isDryRun, respond, sendWarnings } from './context.ts';
import { prepareUpdate } from './prepare.ts';
import { expectObject } from './results.ts';
import { checkSubresource, mergeSubresource } from './subresource.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';

const attemptsMax = 5;

function patchFunction(contentType: string | undefined): (current: JsonValue, patch: JsonValue) => JsonValue {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/json-patch+json') return applyJsonPatch;
  if (mediaType === 'application/merge-patch+json') return applyMergePatch;
  if (mediaType === 'application/strategic-merge-patch+json') return strategicMerge;
  throw unsupportedMediaType(mediaType);
}

export async function handleSubresourcePatch(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const name = target.name!;
  const subresource = checkSubresource(target, 'patch');
  const query = request.query as Query;
  const apply = patchFunction(request.headers['content-type']);
  let patch: JsonValue;
  try {
    patch = JSON.parse(typeof request.body === 'string' ? request.body : '') as JsonValue;
  } catch (error) {
    throw badRequest(`error decoding patch: ${(error as Error).message}`);
  }
  const qualified = { group: target.kind.group, resource: target.kind.resource };
  const key = objectKey(target, name);
  await context.store.readIndex();
  for (let attempt = 1; ; attempt++) {
    const current = context.store.get(key);
    if (!current) throw notFound(qualified, name);
    let result: JsonValue;
    try {
      result = apply(current as unknown as JsonValue, patch);
    } catch (error) {
      if (error instanceof JsonPatchError) throw invalid(target.kind.group, target.kind.kind, name, [{ reason: 'FieldValueInvalid', message: error.message }]);
      throw error;
    }
    if (result === null || typeof result !== 'object' || Array.isArray(result)) throw badRequest('the patch did not produce an object');
    const patched = result as unknown as KubeObject;
    const requestedVersion = (patched.metadata as KubeObject['metadata'] | undefined)?.resourceVersion;
    const patchNamedVersion = requestedVersion !== undefined && requestedVersion !== current.metadata.resourceVersion;
    const object = mergeSubresource(subresource, current, patched);
    const warnings = prepareUpdate(object, current, target, { level: fieldValidationLevel(query), duplicates: [] }, subresource);
    sendWarnings(reply, warnings);
    if (isDryRun(query, 'PatchOptions')) {
      if (patchNamedVersion) throw conflict(qualified, name, 'the object has been modified; please apply your changes to the latest version and try again');
      return respond(request, reply, 200, object);
    }
    const stored = await context.store.propose({
      type: 'update', key, object, ...causeOf(request, context),
      preconditions: { resourceVersion: object.metadata.resourceVersion ?? '' },
    });
    if (stored.type === 'conflict' && !patchNamedVersion && attempt < attemptsMax) continue;
    return respond(request, reply, 200, expectObject(stored, target, name).object);
  }
}
