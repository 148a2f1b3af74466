// Owns: PATCH of a subresource that replaces one part of the object (pods/status,
// nodes/status, services/status): the patch is applied to the stored object, then only that
// part of the result is kept (endpoints/subresource.ts mergeSubresource), so a status patch
// cannot change spec or metadata, as kube's status strategies ensure. Validated like an update
// and proposed with the read resourceVersion as precondition; a concurrent write re-reads and
// re-applies, unless the patch itself named a resourceVersion (as the main resource's patch).
// metadata.managedFields: the field manager's Update with `subresource: status`; a server-side
// apply to the subresource is api/fieldmanager/apply-handler.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { notFound } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { fieldValidationLevel, isDryRun, respond, sendWarnings } from './context.ts';
import { writeRequestOf, writeUpdate } from './write-path.ts';
import { readable } from './corrupt.ts';
import { applyPatch, parsePatch, patchFunction, rejectForce } from './patch.ts';
import { handleApply, isApplyPatch } from '../fieldmanager/apply-handler.ts';
import { trackUpdate, updateIdentity } from '../fieldmanager/request.ts';
import { prepareUpdate } from './prepare.ts';
import { expectObject } from './results.ts';
import { checkSubresource, mergeSubresource } from './subresource.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';

const attemptsMax = 5;

export async function handleSubresourcePatch(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const name = target.name!;
  const subresource = checkSubresource(target, 'patch');
  const options = request.requestInfo.options;
  if (isApplyPatch(request.headers['content-type'])) return handleApply(request, reply, target, context, subresource);
  const apply = patchFunction(request.headers['content-type'], target.kind.schema, target.kind.strategicMerge !== false);
  rejectForce(options);
  const write = writeRequestOf(request, target, context, isDryRun(options, 'PatchOptions'), subresource);
  const identity = updateIdentity(request, target, 'PatchOptions', context.now(), subresource);
  const qualified = { group: target.kind.group, resource: target.kind.resource };
  const key = objectKey(target, name);
  await context.store.readIndex();
  let patch: JsonValue | undefined;
  for (let attempt = 1; ; attempt++) {
    const current = readable(target, context.store.get(key));
    if (!current) throw notFound(qualified, name);
    patch ??= parsePatch(request);
    const patched = applyPatch(current, patch, apply, target, name);
    const requestedVersion = (patched.metadata as KubeObject['metadata'] | undefined)?.resourceVersion;
    const patchNamedVersion = requestedVersion !== undefined && requestedVersion !== current.metadata.resourceVersion;
    const object = mergeSubresource(subresource, current, patched);
    const warnings = prepareUpdate(object, current, target, { level: fieldValidationLevel(options), duplicates: [], source: 'patch' }, subresource);
    trackUpdate(current, object, target, identity);
    sendWarnings(reply, warnings);
    const stored = await writeUpdate(write, current, object, { resourceVersion: object.metadata.resourceVersion ?? '' });
    if (stored.type === 'conflict' && !patchNamedVersion && attempt < attemptsMax) continue;
    return respond(request, reply, 200, expectObject(stored, target, name).object);
  }
}
