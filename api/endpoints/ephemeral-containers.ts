// Owns: the pods/ephemeralcontainers subresource (what `kubectl debug` patches) and the write
// path shared by the pod subresources that change one part of the pod's spec
// (pods/ephemeralcontainers here, pods/resize in pod-resize.ts). GET answers the Pod (the
// generic get handler); PUT and PATCH take the Pod the request forms, keep from it only the part
// the subresource owns (kube's dropNonEphemeralContainerUpdates: spec.ephemeralContainers; the
// rest of spec, status and the metadata ResetObjectMetaForStatus keeps come from the stored pod),
// validate it with the subresource's own rules instead of the pod update rules, and store it.
// Ephemeral containers may be added; an existing one may be neither changed nor removed
// (ValidatePodEphemeralContainersUpdate), and each is validated as an ephemeral container
// (validateEphemeralContainers: no ports, probes, lifecycle, resources, resize or restart
// policy, no subPath mounts, a name unique among all the pod's containers, a
// targetContainerName naming one of its containers).
// Server-side apply to these subresources is not taken (415): kstore's apply handler only
// merges the status and finalize parts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject, Preconditions } from '../../actors/index.ts';
import { checkPreconditions } from '../../actors/index.ts';
import type { Strategy } from '../registry/kind.ts';
import type { ResourceKind } from '../registry/kinds.ts';
import { podSpecCauses } from '../registry/strategy-workloads.ts';
import type { StatusCause } from '../status.ts';
import { badRequest, conflict, methodNotAllowed, notFound, unsupportedMediaType } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { fieldChecks, fieldValidationLevel, isDryRun, readObject, respond, sendWarnings } from './context.ts';
import { readable } from './corrupt.ts';
import { isApplyPatch } from '../fieldmanager/apply-handler.ts';
import { trackUpdate, updateIdentity } from '../fieldmanager/request.ts';
import { applyPatch, parsePatch, patchFunction, rejectForce } from './patch.ts';
import { prepareUpdate } from './prepare.ts';
import { expectObject } from './results.ts';
import { checkSubresource } from './subresource.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';
import { writeRequestOf, writeUpdate } from './write-path.ts';

export type Fields = Record<string, JsonValue>;

export function fields(value: JsonValue | undefined): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

export function records(value: JsonValue | undefined): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object' && !Array.isArray(item)) : [];
}

export function specOf(object: KubeObject): Fields {
  return fields(object['spec'] as JsonValue | undefined);
}

/** JSON with object keys sorted: two values are semantically equal when these are. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The annotation a kubelet puts on the mirror of a static pod. */
export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

export function isMirrorPod(pod: KubeObject): boolean {
  return pod.metadata.annotations?.[mirrorPodAnnotation] !== undefined;
}

export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

/**
 * What a pod-spec-part subresource does with a write: which part of the requested pod it keeps
 * (`merge`: the stored pod with that part from the request) and the rules the result meets.
 */
export interface PodPartRules {
  merge(stored: KubeObject, requested: KubeObject): KubeObject;
  validate(object: KubeObject): StatusCause[];
  validateUpdate(object: KubeObject, old: KubeObject): StatusCause[];
}

/** The stored pod with the metadata a write of a part may set (metav1.ResetObjectMetaForStatus keeps the rest). */
export function storedWithRequestedMeta(stored: KubeObject, requested: KubeObject): KubeObject {
  const merged = structuredClone(stored) as KubeObject;
  merged.metadata.resourceVersion = requested.metadata.resourceVersion ?? stored.metadata.resourceVersion ?? '';
  if (requested.metadata.uid !== undefined) merged.metadata.uid = requested.metadata.uid;
  return merged;
}

/** The pods kind with the part's rules in place of the pod update rules, for prepareUpdate. */
function partKind(kind: ResourceKind, rules: PodPartRules): ResourceKind {
  const strategy: Strategy = { allowCreateOnUpdate: false, validate: (object) => rules.validate(object), validateUpdate: (object, old) => rules.validateUpdate(object, old) };
  return { ...kind, strategy };
}

const attemptsMax = 5;

/** PUT or PATCH of a pod-spec-part subresource (pods/ephemeralcontainers, pods/resize). */
export async function handlePodPartWrite(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext, rules: PodPartRules): Promise<FastifyReply> {
  const method = request.method;
  if (method !== 'PUT' && method !== 'PATCH') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const subresource = checkSubresource(target, method === 'PUT' ? 'update' : 'patch');
  const name = target.name!;
  const options = request.requestInfo.options;
  const optionsKind = method === 'PUT' ? 'UpdateOptions' : 'PatchOptions';
  const qualified = { group: target.kind.group, resource: target.kind.resource };
  const validationTarget: Target = { ...target, kind: partKind(target.kind, rules) };
  let apply: ((current: JsonValue, patch: JsonValue) => JsonValue) | undefined;
  let requested: KubeObject | undefined;
  if (method === 'PATCH') {
    if (isApplyPatch(request.headers['content-type'])) throw unsupportedMediaType('application/apply-patch+yaml');
    apply = patchFunction(request.headers['content-type'], target.kind.schema);
    rejectForce(options);
  } else {
    requested = readObject(request, target);
    if (requested.metadata.name !== name) throw badRequest(`the name of the object (${requested.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  }
  const write = writeRequestOf(request, target, context, isDryRun(options, optionsKind), subresource);
  const identity = updateIdentity(request, target, optionsKind, context.now(), subresource);
  const checks = method === 'PUT' ? fieldChecks(request, options) : { level: fieldValidationLevel(options), duplicates: [], source: 'patch' as const };
  await context.store.readIndex();
  let patch: JsonValue | undefined;
  for (let attempt = 1; ; attempt++) {
    const current = readable(target, context.store.get(objectKey(target, name)));
    if (!current) throw notFound(qualified, name);
    let formed: KubeObject;
    if (apply !== undefined) {
      patch ??= parsePatch(request);
      formed = applyPatch(current, patch, apply, target, name);
      if (formed.metadata === null || typeof formed.metadata !== 'object') throw badRequest('the patch removed metadata');
      if (formed.metadata.name !== name) throw badRequest(`the name of the object (${formed.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    } else {
      formed = requested!;
    }
    const object = rules.merge(current, formed);
    // A PUT's resourceVersion and uid are its preconditions; a PATCH applies to what it read unless it named one.
    const requestedVersion = formed.metadata.resourceVersion;
    const namedVersion = apply === undefined ? requestedVersion !== undefined && requestedVersion !== '' : requestedVersion !== undefined && requestedVersion !== current.metadata.resourceVersion;
    const requestedUid = formed.metadata.uid;
    const uidConflict = requestedUid ? checkPreconditions(current, { uid: requestedUid }) : null;
    if (uidConflict !== null) throw conflict(qualified, name, uidConflict);
    const warnings = prepareUpdate(object, current, validationTarget, checks, subresource);
    trackUpdate(current, object, target, identity);
    sendWarnings(reply, warnings);
    const preconditions: Preconditions = namedVersion ? { resourceVersion: requestedVersion! } : { resourceVersion: current.metadata.resourceVersion ?? '' };
    const result = await writeUpdate(write, current, object, preconditions);
    if (result.type === 'conflict' && !namedVersion && attempt < attemptsMax) continue;
    return respond(request, reply, 200, expectObject(result, target, name).object);
  }
}

// --- pods/ephemeralcontainers ------------------------------------------------------------------

/** SetDefaults of an ephemeral container (as a container's: pull policy, termination message). */
function defaultEphemeralContainer(container: Fields): Fields {
  const result: Fields = { ...container };
  if (result['terminationMessagePath'] === undefined || result['terminationMessagePath'] === '') result['terminationMessagePath'] = '/dev/termination-log';
  if (result['terminationMessagePolicy'] === undefined || result['terminationMessagePolicy'] === '') result['terminationMessagePolicy'] = 'File';
  const image = result['image'];
  if ((result['imagePullPolicy'] === undefined || result['imagePullPolicy'] === '') && typeof image === 'string') {
    const lastPart = (image.split('@')[0] ?? '').split('/').at(-1) ?? '';
    const tag = lastPart.includes(':') ? lastPart.slice(lastPart.lastIndexOf(':') + 1) : '';
    result['imagePullPolicy'] = !image.includes('@') && (tag === '' || tag === 'latest') ? 'Always' : 'IfNotPresent';
  }
  if (result['resources'] === undefined) result['resources'] = {};
  return result;
}

/** dropNonEphemeralContainerUpdates: the stored pod with spec.ephemeralContainers from the request. */
function mergeEphemeralContainers(stored: KubeObject, requested: KubeObject): KubeObject {
  const merged = storedWithRequestedMeta(stored, requested);
  const requestedContainers = specOf(requested)['ephemeralContainers'];
  const spec: Fields = { ...specOf(stored) };
  if (Array.isArray(requestedContainers) && requestedContainers.length > 0) spec['ephemeralContainers'] = records(requestedContainers).map(defaultEphemeralContainer);
  else delete spec['ephemeralContainers'];
  merged['spec'] = spec;
  return merged;
}

const pullPolicies = ['Always', 'IfNotPresent', 'Never'];
const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123LabelMessage = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** The container fields an ephemeral container may not set (kube's allowedEphemeralContainerFields, the false ones). */
const disallowedEphemeralFields = ['ports', 'resources', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'resizePolicy', 'restartPolicy'];

function isZero(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || value === '' || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value).every(isZero);
  return false;
}

/** validateEphemeralContainers: each ephemeral container of the spec, at spec.ephemeralContainers[i]. */
export function ephemeralContainerCauses(spec: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  const others = new Set([...records(spec['containers']), ...records(spec['initContainers'])].map((container) => String(container['name'] ?? '')));
  const all = new Set(others);
  records(spec['ephemeralContainers']).forEach((container, position) => {
    const at = `spec.ephemeralContainers[${position}]`;
    const name = container['name'];
    if (typeof name !== 'string' || name === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.name` });
    else if (!dns1123Label.test(name) || name.length > 63) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(name)}: ${dns1123LabelMessage}`, field: `${at}.name` });
    const image = container['image'];
    if (typeof image !== 'string' || image === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.image` });
    else if (image.trim() !== image) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(image)}: must not have leading or trailing whitespace`, field: `${at}.image` });
    const policy = container['imagePullPolicy'];
    if (typeof policy === 'string' && !pullPolicies.includes(policy)) {
      causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${pullPolicies.map((item) => JSON.stringify(item)).join(', ')}`, field: `${at}.imagePullPolicy` });
    }
    // A name unique across every kind of container of the pod.
    if (typeof name === 'string' && name !== '') {
      if (all.has(name)) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(name)}`, field: `${at}.name` });
      else all.add(name);
    }
    // The target must be one of the pod's (non-ephemeral) containers.
    const targetName = container['targetContainerName'];
    if (typeof targetName === 'string' && targetName !== '' && !others.has(targetName)) {
      causes.push({ reason: 'FieldValueNotFound', message: `Not found: ${JSON.stringify(targetName)}`, field: `${at}.targetContainerName` });
    }
    for (const field of disallowedEphemeralFields) {
      if (!isZero(container[field])) causes.push(forbidden(`${at}.${field}`, 'cannot be set for an Ephemeral Container'));
    }
    records(container['volumeMounts']).forEach((mount, index) => {
      for (const field of ['subPath', 'subPathExpr']) {
        if (typeof mount[field] === 'string' && mount[field] !== '') causes.push(forbidden(`${at}.volumeMounts[${index}].${field}`, 'cannot be set for an Ephemeral Container'));
      }
    });
  });
  return causes;
}

/** A short account of what changed in an ephemeral container, field by field (kube prints a diff). */
function changes(old: Fields, next: Fields): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    if (canonical(old[key]) === canonical(next[key])) continue;
    if (old[key] !== undefined) lines.push(`- ${key}: ${canonical(old[key])}`);
    if (next[key] !== undefined) lines.push(`+ ${key}: ${canonical(next[key])}`);
  }
  return lines.join('\n');
}

/** ValidatePodEphemeralContainersUpdate: existing ephemeral containers stay as they are. */
function ephemeralContainersUpdateCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  if (isMirrorPod(old)) return [forbidden('', 'static pods do not support ephemeral containers')];
  const field = 'spec.ephemeralContainers';
  const byName = new Map(records(specOf(object)['ephemeralContainers']).map((container) => [String(container['name'] ?? ''), container]));
  const causes: StatusCause[] = [];
  for (const previous of records(specOf(old)['ephemeralContainers'])) {
    const name = String(previous['name'] ?? '');
    const next = byName.get(name);
    if (next === undefined) causes.push(forbidden(field, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (canonical(previous) !== canonical(next)) causes.push(forbidden(field, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${changes(previous, next)}`));
  }
  return causes;
}

export const ephemeralContainersRules: PodPartRules = {
  merge: mergeEphemeralContainers,
  validate: (object) => [...podSpecCauses(specOf(object), 'spec'), ...ephemeralContainerCauses(specOf(object))],
  validateUpdate: ephemeralContainersUpdateCauses,
};

/** PUT or PATCH pods/<name>/ephemeralcontainers. */
export function handleEphemeralContainers(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  return handlePodPartWrite(request, reply, target, context, ephemeralContainersRules);
}
