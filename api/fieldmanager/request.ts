// Owns: what a write request tells the field manager — the manager (the fieldManager query
// parameter, validated as kube's ValidateFieldManager, else the User-Agent's prefix), the
// request's apiVersion and subresource, the write's time — and the per-kind ownership scope
// (schema, whether status is a subresource) and zero object the managedFields functions take.
import type { FastifyRequest } from 'fastify';
import type { KubeObject } from '../../actors/index.ts';
import { apiVersionOf } from '../registry/kinds.ts';
import { invalid } from '../status.ts';
import type { StatusCause } from '../status.ts';
import { formatTime } from '../endpoints/context.ts';
import type { Target } from '../endpoints/target.ts';
import { fieldManagerProblems, managerFromUserAgent, updateManagedFields } from './managed-fields.ts';
import type { OwnershipScope, WriteIdentity } from './managed-fields.ts';
import { zeroObject } from './typed.ts';
import { fieldElement } from './field-set.ts';
import type { Path } from './field-set.ts';

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/** 422 `<Kind>Options.meta.k8s.io "" is invalid: …` for these causes (kube's option validation). */
export function invalidOptions(optionsKind: OptionsKind, causes: readonly StatusCause[]): never {
  throw invalid('meta.k8s.io', optionsKind, '', causes);
}

/** The fieldManager query parameter ('' when absent); 422 when it is too long or unprintable. */
export function requestedFieldManager(fieldManager: string, optionsKind: OptionsKind): string {
  const problems = fieldManagerProblems(fieldManager);
  if (problems.length > 0) invalidOptions(optionsKind, problems);
  return fieldManager;
}

/** The identity of a non-apply write: the fieldManager parameter, else the User-Agent's prefix (managerOrUserAgent). */
export function updateIdentity(request: FastifyRequest, target: Target, optionsKind: OptionsKind, now: Date, subresource = ''): WriteIdentity {
  const fieldManager = requestedFieldManager(request.requestInfo.options.fieldManager ?? '', optionsKind);
  const manager = fieldManager !== '' ? fieldManager : managerFromUserAgent(request.headers['user-agent']);
  return { manager, apiVersion: apiVersionOf(target.kind), subresource, time: formatTime(now) };
}

export function ownershipScope(target: Target): OwnershipScope {
  return { schema: target.kind.schema, hasStatus: (target.kind.subresources ?? []).some((subresource) => subresource.name === 'status') };
}

/** The kind's zero object (what kube's `New()` gives): the live side of a create. */
export function zeroOf(target: Target): KubeObject {
  return zeroObject(target.kind.schema, apiVersionOf(target.kind), target.kind.kind) as unknown as KubeObject;
}

/**
 * Fields kstore's create path sets that kube-apiserver sets after its field manager ran — in
 * admission (ServiceAccount, Priority, DefaultTolerationSeconds), the REST storage (a Service's
 * cluster IPs and families) or PrepareForCreate (a Namespace's finalizer) — so a create owns them
 * only when its body set them.
 */
const setAfterFieldManager: Readonly<Record<string, readonly (readonly string[])[]>> = {
  '/Pod': [['spec', 'serviceAccountName'], ['spec', 'serviceAccount'], ['spec', 'priority'], ['spec', 'preemptionPolicy'], ['spec', 'tolerations']],
  '/Service': [['spec', 'clusterIP'], ['spec', 'clusterIPs'], ['spec', 'ipFamilies'], ['spec', 'ipFamilyPolicy']],
  '/Namespace': [['spec', 'finalizers']],
};

function valueAt(object: KubeObject, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const name of path) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[name];
  }
  return current;
}

/**
 * Sets `next.metadata.managedFields` for an Update from `live`; for a create (`live`
 * undefined) from the kind's zero object, `requested` being the body as the client sent it.
 */
export function trackUpdate(live: KubeObject | undefined, next: KubeObject, target: Target, identity: WriteIdentity, requested?: KubeObject): void {
  const notOwned = live === undefined && requested !== undefined ? notOwnedOnCreate(target, requested) : [];
  updateManagedFields(live ?? zeroOf(target), next, identity, ownershipScope(target), notOwned);
}

/** The fields a create does not own (setAfterFieldManager's that `requested`, the body as sent, leaves unset). */
export function notOwnedOnCreate(target: Target, requested: KubeObject): Path[] {
  const paths = setAfterFieldManager[`${target.kind.group}/${target.kind.kind}`];
  if (paths === undefined) return [];
  return paths.filter((path) => valueAt(requested, path) === undefined).map((path) => path.map(fieldElement));
}

/** trackUpdate of a create, with the fields it does not own taken from the body before it was prepared. */
export function trackCreate(next: KubeObject, target: Target, identity: WriteIdentity, notOwned: readonly Path[]): void {
  updateManagedFields(zeroOf(target), next, identity, ownershipScope(target), notOwned);
}
