// Owns: the one write path. Every write — create, PUT (update and create-on-update), each patch
// type, server-side apply, the status and finalize subresources, delete and deletecollection,
// dry run or not — hands the object it computed here, and it goes, as through kube-apiserver's
// registry Store:
//   mutating admission → storage checks (RBAC escalation) → validating admission → the
//   object size limit (api/request-limits.ts) → refusals the state already decides →
//   propose (or, for dry run, answer without proposing).
// Decoding, the patch or apply, and the kind's strategy (defaults, validation) happen before, in
// the verb handlers (endpoints/prepare.ts is shared by all of them); nothing reaches the store
// any other way. Refusals the current state decides (a missing namespace, a name already taken,
// a stale resourceVersion, a missing object to delete) are answered before proposing, so they
// cost no Raft entry and move no resourceVersion; the state machine decides the same again at
// apply (actors/apply.ts), which settles races with concurrent writers.
import { checkPreconditions } from '../../actors/index.ts';
import type { CommandResult, KubeObject, Preconditions, PropagationPolicy } from '../../actors/index.ts';
import type { UserInfo } from '../auth/authn.ts';
import { checkObjectSize } from '../decode.ts';
import type { AdmissionAttributes } from '../admission/chain.ts';
import type { FastifyRequest } from 'fastify';
import type { EndpointContext } from './context.ts';
import { causeOf } from './context.ts';
import { expectObject } from './results.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';

export interface Cause {
  readonly at: string;
  readonly by?: string;
}

/** Who writes what, and how: what every write carries through the path. */
export interface WriteRequest {
  readonly target: Target;
  readonly context: EndpointContext;
  readonly user: UserInfo;
  readonly dryRun: boolean;
  readonly cause: Cause;
  /** '' for the main resource. */
  readonly subresource: string;
  /** The name in the request's URL ('' for a POST to a collection). */
  readonly requestName: string;
}

/** What a write of this request carries through the write path. */
export function writeRequestOf(request: FastifyRequest, target: Target, context: EndpointContext, dryRun: boolean, subresource = ''): WriteRequest {
  return { target, context, user: request.user, dryRun, cause: causeOf(request, context), subresource, requestName: request.requestInfo.name };
}

function attributesOf(write: WriteRequest, operation: AdmissionAttributes['operation'], name: string, object: KubeObject | undefined, oldObject: KubeObject | undefined): AdmissionAttributes {
  return {
    operation, kind: write.target.kind, namespace: write.target.namespace, name, requestName: write.requestName, subresource: write.subresource,
    object, oldObject, user: write.user, dryRun: write.dryRun,
  };
}

/** Admission and the storage-level checks of a write, in kube's order. */
async function admit(write: WriteRequest, attributes: AdmissionAttributes): Promise<void> {
  const { admission, rbacGuard } = write.context;
  await admission.admit(attributes);
  await rbacGuard.confirmNoEscalation(attributes);
  await admission.validate(attributes);
}

/**
 * A refusal the local state decides. The local state may lag the leader: a refusal is only
 * given after a linearizable read point confirms it; an acceptance is left to apply.
 */
async function confirmedRefusal(context: EndpointContext, decide: () => CommandResult | undefined): Promise<CommandResult | undefined> {
  if (decide() === undefined) return undefined;
  await context.store.readIndex();
  return decide();
}

/** The result of a write: what the store answered, or what a dry run would have stored. */
export type WriteOutcome = CommandResult;

/**
 * Creates `object` (server fields set, strategy applied). Returns the store's result as is
 * (`alreadyExists` included, so a generated name can be retried); a dry run answers `stored`
 * with the object as it would be stored, after the same admission and the same existence check.
 */
export async function writeCreate(write: WriteRequest, object: KubeObject): Promise<WriteOutcome> {
  const name = object.metadata.name ?? '';
  await admit(write, attributesOf(write, 'CREATE', name, object, undefined));
  checkObjectSize(object);
  const key = objectKey(write.target, name);
  const store = write.context.store;
  const refusal = await confirmedRefusal(write.context, () => (store.get(key) === undefined ? undefined : { type: 'alreadyExists' }));
  if (refusal !== undefined) return refusal;
  if (write.dryRun) {
    // A dry run is answered from a confirmed view: the object may exist only on the leader yet.
    await store.readIndex();
    if (store.get(key) !== undefined) return { type: 'alreadyExists' };
    return { type: 'stored', object, revision: 0 };
  }
  return store.propose({ type: 'create', key, object, ...write.cause });
}

/**
 * Replaces `current` with `object` (strategy applied; metadata.resourceVersion is the
 * precondition: the read version, or the one the client named). `current` was read after a
 * linearizable read point.
 */
export async function writeUpdate(write: WriteRequest, current: KubeObject, object: KubeObject, preconditions: Preconditions): Promise<WriteOutcome> {
  const name = object.metadata.name ?? current.metadata.name ?? '';
  await admit(write, attributesOf(write, 'UPDATE', name, object, current));
  checkObjectSize(object);
  const conflict = checkPreconditions(current, preconditions);
  if (conflict !== null) return { type: 'conflict', message: conflict };
  if (write.dryRun) return { type: 'stored', object, revision: 0 };
  return write.context.store.propose({ type: 'update', key: objectKey(write.target, name), object, preconditions, ...write.cause });
}

export interface DeleteRequest {
  readonly preconditions?: Preconditions;
  readonly propagationPolicy?: PropagationPolicy;
  readonly gracePeriodSeconds?: number;
}

/**
 * Deletes the object named `name`, read as `current` after a linearizable read point
 * (undefined: it does not exist, a 404 that costs no entry). Not for dry runs: a dry-run
 * delete answers from the object as read (endpoints/delete.ts).
 */
export async function writeDelete(write: WriteRequest, name: string, current: KubeObject | undefined, request: DeleteRequest): Promise<WriteOutcome> {
  if (current === undefined) return { type: 'notFound' };
  await admit(write, attributesOf(write, 'DELETE', name, undefined, current));
  const conflict = checkPreconditions(current, request.preconditions);
  if (conflict !== null) return { type: 'conflict', message: conflict };
  return write.context.store.propose({
    type: 'delete', key: objectKey(write.target, name), ...write.cause,
    ...(request.preconditions ? { preconditions: request.preconditions } : {}),
    ...(request.propagationPolicy ? { propagationPolicy: request.propagationPolicy } : {}),
    ...(request.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: request.gracePeriodSeconds }),
  });
}

/** Like writeUpdate, but throws the Status of a refusal and returns what is stored. */
export async function storedUpdate(write: WriteRequest, current: KubeObject, object: KubeObject, preconditions: Preconditions): Promise<KubeObject> {
  const name = object.metadata.name ?? '';
  return expectObject(await writeUpdate(write, current, object, preconditions), write.target, name).object;
}
