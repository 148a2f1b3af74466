// Owns: the update verb (PUT to an item or to a subresource that replaces one part of it). The
// body's metadata.resourceVersion, when set, is the precondition (checked before proposing and
// again inside apply, so the check and the write are one atomic step). A PUT of an absent object
// creates it only for kinds whose strategy allows create on update (Services, Endpoints,
// Events, Leases, the RBAC kinds); for the others it is 404 NotFound, as kube-apiserver's
// GuaranteedUpdate answers. metadata.managedFields is the field manager's Update from the
// stored object (api/fieldmanager). The write goes through endpoints/write-path.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkPreconditions } from '../../actors/index.ts';
import type { Preconditions } from '../../actors/index.ts';
import { badRequest, conflict, methodNotAllowed, notFound } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { fieldChecks, isDryRun, readObject, respond, sendWarnings } from './context.ts';
import { createObject } from './create.ts';
import { prepareUpdate } from './prepare.ts';
import { checkSubresource, mergeSubresource } from './subresource.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';
import { readable } from './corrupt.ts';
import { trackUpdate, updateIdentity } from '../fieldmanager/request.ts';
import { storedUpdate, writeRequestOf } from './write-path.ts';

export async function handleUpdate(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const name = target.name;
  if (name === undefined) throw methodNotAllowed('the server does not allow this method on the requested resource');
  const subresource = target.subresource === undefined ? undefined : checkSubresource(target, 'update');
  const options = request.requestInfo.options;
  const identity = updateIdentity(request, target, 'UpdateOptions', context.now(), subresource);
  let object = readObject(request, target);
  if (object.metadata.name !== name) {
    throw badRequest(`the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  }
  const write = writeRequestOf(request, target, context, isDryRun(options, 'UpdateOptions'), subresource);
  const qualified = { group: target.kind.group, resource: target.kind.resource };
  await context.store.readIndex();
  const old = readable(target, context.store.get(objectKey(target, name)));
  if (!old) {
    if (subresource !== undefined || !target.kind.strategy.allowCreateOnUpdate) throw notFound(qualified, name);
    const created = await createObject(write, object, fieldChecks(request, options), identity);
    sendWarnings(reply, created.warnings);
    return respond(request, reply, 201, created.object);
  }
  if (subresource !== undefined) object = mergeSubresource(subresource, old, object);
  const requestedVersion = object.metadata.resourceVersion;
  const requestedUid = object.metadata.uid;
  // The body's uid is a precondition, checked before the update is computed (kube's GuaranteedUpdate).
  const uidConflict = requestedUid ? checkPreconditions(old, { uid: requestedUid }) : null;
  if (uidConflict !== null) throw conflict(qualified, name, uidConflict);
  const warnings = prepareUpdate(object, old, target, fieldChecks(request, options), subresource);
  trackUpdate(old, object, target, identity);
  const preconditions: Preconditions = {
    ...(requestedVersion ? { resourceVersion: requestedVersion } : {}),
    ...(requestedUid ? { uid: requestedUid } : {}),
  };
  sendWarnings(reply, warnings);
  return respond(request, reply, 200, await storedUpdate(write, old, object, preconditions));
}
