// Owns: the patch verb (PATCH of an item) for JSON patch, merge patch and strategic merge
// patch. The patch is applied to the current object and the result goes through the same
// validation as an update, proposed with the current resourceVersion as precondition; a
// conflict with a concurrent writer re-reads and re-applies (kube's GuaranteedUpdate), unless
// the patch itself named a resourceVersion. metadata.managedFields is the field manager's Update
// from the current object; server-side apply (application/apply-patch+yaml) is
// api/fieldmanager/apply-handler.ts. The write goes through endpoints/write-path.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { decodePatch } from '../decode.ts';
import { applyJsonPatch, JsonPatchError } from '../patch/json-patch.ts';
import { applyMergePatch, strategicMerge } from '../patch/merge-patch.ts';
import type { JsonSchema } from '../registry/schemas.ts';
import { badRequest, invalid, notFound, unsupportedMediaType, unsupportedMediaTypeOf } from '../status.ts';
import type { RequestOptions } from '../request-options.ts';
import type { EndpointContext } from './context.ts';
import { fieldValidationLevel, isDryRun, respond, sendWarnings } from './context.ts';
import { prepareUpdate } from './prepare.ts';
import { expectObject } from './results.ts';
import { writeRequestOf, writeUpdate } from './write-path.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';
import { readable } from './corrupt.ts';
import { handleApply, isApplyPatch } from '../fieldmanager/apply-handler.ts';
import { invalidOptions, trackUpdate, updateIdentity } from '../fieldmanager/request.ts';

/** Re-reads after a concurrent write; kube's GuaranteedUpdate retries without bound, we stop at 5. */
const patchAttemptsMax = 5;

export const patchMediaTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'] as const;

/** The patch applier for a PATCH's Content-Type (415 for any other). */
/** The patch function of a content type; strategic merge merges lists as `schema` (the patched object's) says. */
export function patchFunction(contentType: string | undefined, schema: JsonSchema | undefined, strategicMergeServed = true): (current: JsonValue, patch: JsonValue) => JsonValue {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/json-patch+json') return applyJsonPatch;
  if (mediaType === 'application/merge-patch+json') return applyMergePatch;
  if (mediaType === 'application/strategic-merge-patch+json' && strategicMergeServed) return (current, patch) => strategicMerge(current, patch, schema);
  // A kind without a Go type (a custom resource) has no patch strategies: kube's 415 lists what it takes.
  if (!strategicMergeServed) throw unsupportedMediaTypeOf(patchMediaTypes.filter((type) => type !== 'application/strategic-merge-patch+json'));
  throw unsupportedMediaType(mediaType);
}

/** ValidatePatchOptions for a non-apply patch: `force` is only for apply (422). */
export function rejectForce(options: RequestOptions): void {
  if (options.force !== undefined) invalidOptions('PatchOptions', [{ reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' }]);
}

/**
 * The PATCH body, decoded once with kube's checks for its patch type (api/decode.ts: syntax,
 * nesting, numbers, a JSON patch's shape and operation count, strategic merge directives).
 * Called after the object is found, as kube decodes the patch only then (404 first).
 */
export function parsePatch(request: FastifyRequest): JsonValue {
  const raw = typeof request.body === 'string' ? request.body : Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  return decodePatch(request.headers['content-type'] ?? '', raw, { fieldValidation: fieldValidationLevel(request.requestInfo.options) });
}

/** `patch` applied to `current`: 422 for a failing JSON patch operation, 400 unless the result is an object. */
export function applyPatch(current: KubeObject, patch: JsonValue, apply: (current: JsonValue, patch: JsonValue) => JsonValue, target: Target, name: string): KubeObject {
  let result: JsonValue;
  try {
    result = apply(current as unknown as JsonValue, patch);
  } catch (error) {
    if (error instanceof JsonPatchError) throw invalid(target.kind.group, target.kind.kind, name, [{ reason: 'FieldValueInvalid', message: error.message }]);
    throw error;
  }
  if (result === null || typeof result !== 'object' || Array.isArray(result)) throw badRequest('the patch did not produce an object');
  return result as unknown as KubeObject;
}

function patched(current: KubeObject, patch: JsonValue, apply: (current: JsonValue, patch: JsonValue) => JsonValue, target: Target, name: string): KubeObject {
  const object = applyPatch(current, patch, apply, target, name);
  if (object.metadata === null || typeof object.metadata !== 'object') throw badRequest('the patch removed metadata');
  return object;
}

export async function handlePatch(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const name = target.name!;
  const options = request.requestInfo.options;
  const qualified = { group: target.kind.group, resource: target.kind.resource };
  if (target.subresource !== undefined) throw notFound({ ...qualified, resource: `${target.kind.resource}/${target.subresource}` }, name);
  if (isApplyPatch(request.headers['content-type'])) return handleApply(request, reply, target, context);
  const apply = patchFunction(request.headers['content-type'], target.kind.schema, target.kind.strategicMerge !== false);
  rejectForce(options);
  const identity = updateIdentity(request, target, 'PatchOptions', context.now());
  const write = writeRequestOf(request, target, context, isDryRun(options, 'PatchOptions'));
  const key = objectKey(target, name);
  await context.store.readIndex();
  let patch: JsonValue | undefined;
  for (let attempt = 1; ; attempt++) {
    const current = readable(target, context.store.get(key));
    if (!current) throw notFound(qualified, name);
    patch ??= parsePatch(request);
    const object = patched(current, patch, apply, target, name);
    if (object.metadata.name !== name) throw badRequest(`the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    const requestedVersion = object.metadata.resourceVersion;
    const patchNamedVersion = requestedVersion !== current.metadata.resourceVersion;
    const warnings = prepareUpdate(object, current, target, { level: fieldValidationLevel(options), duplicates: [], source: 'patch' });
    trackUpdate(current, object, target, identity);
    sendWarnings(reply, warnings);
    const result = await writeUpdate(write, current, object, requestedVersion ? { resourceVersion: requestedVersion } : {});
    if (result.type === 'conflict' && !patchNamedVersion && attempt < patchAttemptsMax) continue;
    return respond(request, reply, 200, expectObject(result, target, name).object);
  }
}
