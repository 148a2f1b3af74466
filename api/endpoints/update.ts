// Owns: the update verb (PUT to an item). The body's metadata.resourceVersion, when set, is a
// precondition checked inside apply (so the check and the write are one atomic step); a PUT of
// an absent object creates it. metadata.managedFields is the field manager's Update from the
// stored object (api/fieldmanager).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Preconditions } from '../../actors/index.ts';
import { badRequest, conflict, methodNotAllowed, notFound } from '../status.ts';
import type { EndpointContext, Query } from './context.ts';
import { fieldChecks, causeOf, isDryRun, readObject, respond, sendWarnings } from './context.ts';
import { createObject } from './create.ts';
import { prepareUpdate } from './prepare.ts';
import { checkSubresource, mergeSubresource } from './subresource.ts';
import { expectObject } from './results.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';
import { readable } from './corrupt.ts';
import { trackUpdate, updateIdentity } from '../fieldmanager/request.ts';

export async function handleUpdate(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const name = target.name;
  if (name === undefined) throw methodNotAllowed('the server does not allow this method on the requested resource');
  const subresource = target.subresource === undefined ? undefined : checkSubresource(target, 'update');
  const query = request.query as Query;
  const identity = updateIdentity(request, target, 'UpdateOptions', context.now(), subresource);
  let object = readObject(request, target);
  if (object.metadata.name !== name) {
    throw badRequest(`the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  }
  const key = objectKey(target, name);
  await context.store.readIndex();
  const old = readable(target, context.store.get(key));
  if (subresource !== undefined) {
    if (!old) throw notFound({ group: target.kind.group, resource: target.kind.resource }, name);
    object = mergeSubresource(subresource, old, object);
  }
  if (!old) {
    const created = await createObject(object, target, query, fieldChecks(request, query), context, causeOf(request, context), identity);
    sendWarnings(reply, created.warnings);
    return respond(request, reply, 201, created.object);
  }
  const requestedVersion = object.metadata.resourceVersion;
  const requestedUid = object.metadata.uid;
  const warnings = prepareUpdate(object, old, target, fieldChecks(request, query), subresource);
  trackUpdate(old, object, target, identity);
  const preconditions: Preconditions = {
    ...(requestedVersion ? { resourceVersion: requestedVersion } : {}),
    ...(requestedUid ? { uid: requestedUid } : {}),
  };
  sendWarnings(reply, warnings);
  if (isDryRun(query, 'UpdateOptions')) {
    if (requestedVersion && requestedVersion !== old.metadata.resourceVersion) {
      throw conflict({ group: target.kind.group, resource: target.kind.resource }, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    return respond(request, reply, 200, object);
  }
  const result = await context.store.propose({ type: 'update', key, object, preconditions, ...causeOf(request, context) });
  return respond(request, reply, 200, expectObject(result, target, name).object);
}
