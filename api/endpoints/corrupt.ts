// Owns: the spec's corrupt-object path. A stored object that cannot be decoded as its kind
// (registry/validation.ts decodeProblem) is corrupt: reading it (get, list, the read before an
// update, patch or normal delete) answers 500 InternalError as kube-apiserver's storage
// "corrupt object" error does. It can be removed only by a DELETE with
// ignoreStoreReadErrorWithClusterBreakingPotential=true, behind the alpha gate
// AllowUnsafeMalformedObjectDeletion (--feature-gates; off: the option is ignored, as kube does),
// with no other delete option set (422), by a user who may also `unsafe-delete-ignore-read-errors`
// the resource (403), and only if the object really is unreadable (422 otherwise). The removal
// is the deletion machine's UNSAFE_DELETE: finalizers and preconditions are skipped.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KubeObject } from '../../actors/index.ts';
import { attributesFor, authorize, forbiddenError } from '../auth/authz.ts';
import type { Authorizer } from '../auth/authz.ts';
import { decodeProblem } from '../registry/validation.ts';
import { internalError, invalid, notFound, successStatus } from '../status.ts';
import type { ApiError } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { causeOf, respond } from './context.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';

export const unsafeDeleteOption = 'ignoreStoreReadErrorWithClusterBreakingPotential';
export const unsafeDeleteVerb = 'unsafe-delete-ignore-read-errors';

/** Feature gates this server knows (kube's names); all alpha, off by default. */
export interface FeatureGates {
  readonly AllowUnsafeMalformedObjectDeletion: boolean;
}

export const featureGatesDefault: FeatureGates = { AllowUnsafeMalformedObjectDeletion: false };

/** Parses kube's `--feature-gates A=true,B=false`; an unknown gate or a non-boolean is an error. */
export function parseFeatureGates(value: string | undefined): FeatureGates {
  const gates: { -readonly [K in keyof FeatureGates]: boolean } = { ...featureGatesDefault };
  for (const entry of (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '')) {
    const [name = '', setting = ''] = entry.split('=');
    if (!(name in gates)) throw new Error(`unrecognized feature gate: ${name}`);
    if (setting !== 'true' && setting !== 'false') throw new Error(`invalid value of ${name}=${setting}, err: strconv.ParseBool: parsing ${JSON.stringify(setting)}: invalid syntax`);
    gates[name as keyof FeatureGates] = setting === 'true';
  }
  return gates;
}

/** kube's storage key of an object, as its corrupt-object error names it. */
function storageKey(target: Target, name: string, namespace: string): string {
  const { group, resource: plural } = objectKey(target, name);
  const resource = group === '' ? plural : `${group}/${plural}`;
  return namespace === '' ? `/registry/${resource}/${name}` : `/registry/${resource}/${namespace}/${name}`;
}

/** The 500 kube-apiserver answers for an object its storage cannot decode. */
export function corruptObjectError(target: Target, object: KubeObject, problem: string): ApiError {
  const name = object.metadata.name ?? '';
  const key = storageKey(target, name, object.metadata.namespace ?? '');
  return internalError(`StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${target.kind.kind} in version "${target.kind.version}" cannot be handled as a ${target.kind.kind}: ${problem}`);
}

/** Throws the corrupt-object 500 if `object` cannot be decoded as its kind; else returns it. */
export function readable<T extends KubeObject | undefined>(target: Target, object: T): T {
  if (object === undefined) return object;
  const problem = decodeProblem(target.kind, object);
  if (problem !== undefined) throw corruptObjectError(target, object, problem);
  return object;
}

/** The other delete options that must be unset with the unsafe option (spec: Delete options). */
const exclusiveOptions = ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'preconditions', 'propagationPolicy'] as const;

/**
 * Handles a DELETE whose options ask for the unsafe path (the gate is on). `options` is the
 * decoded body or query: every other option must be unset.
 */
export async function handleUnsafeDelete(
  request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext, authorizers: readonly Authorizer[], options: Readonly<Record<string, unknown>>,
): Promise<FastifyReply> {
  const name = target.name!;
  const set = exclusiveOptions.filter((option) => options[option] !== undefined && options[option] !== null && !(Array.isArray(options[option]) && (options[option] as unknown[]).length === 0));
  if (set.length > 0) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', set.map((option) => ({
      reason: 'FieldValueForbidden', field: option, message: `Forbidden: may not be set when ${unsafeDeleteOption} is true`,
    })));
  }
  const attributes = { ...attributesFor(request.user, request.requestInfo), verb: unsafeDeleteVerb };
  const decision = await authorize(authorizers, attributes);
  if (decision.decision !== 'allow') throw forbiddenError(attributes, `not permitted to do "${unsafeDeleteVerb}"${decision.reason === '' ? '' : `, reason: ${decision.reason}`}`);
  await context.store.readIndex();
  const key = objectKey(target, name);
  const current = context.store.get(key);
  if (current === undefined) throw notFound({ group: target.kind.group, resource: target.kind.resource }, name);
  if (decodeProblem(target.kind, current) === undefined) {
    throw invalid(target.kind.group, target.kind.resource, name, [{
      reason: 'FieldValueInvalid', field: unsafeDeleteOption, message: 'Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
    }]);
  }
  const result = await context.store.propose({ type: 'delete', key, ...causeOf(request, context), ignoreStoreReadError: true });
  if (result.type === 'notFound') throw notFound({ group: target.kind.group, resource: target.kind.resource }, name);
  if (result.type !== 'removed') throw internalError(`unexpected result of an unsafe delete: ${result.type}`);
  // kube answers a Status: the object could not be read, so it cannot be returned.
  return respond(request, reply, 200, successStatus({ name, kind: target.kind.kind }));
}
