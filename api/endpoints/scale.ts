// Owns: the `scale` subresource of every kind that has one (its ResourceKind.scale says where the
// replica counts and selector are): the object's replica count seen and changed as an
// autoscaling/v1 Scale. GET answers spec.replicas, status.replicas and the selector as a label
// selector string; PUT and PATCH (JSON, merge, strategic) of the Scale change only the desired
// replicas, through the kind's own update rules (a replica change bumps the generation).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { decodeBody, negotiate } from '../negotiation.ts';
import { badRequest, invalid, methodNotAllowed, notFound } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { fieldValidationLevel, isDryRun, requestBody, respond, sendWarnings } from './context.ts';
import { readable } from './corrupt.ts';
import { applyPatch, parsePatch, patchFunction, rejectForce } from './patch.ts';
import { prepareUpdate } from './prepare.ts';
import { getSemantic, settleRead } from './read-consistency.ts';
import { checkSubresource } from './subresource.ts';
import { objectKey } from './target.ts';
import type { Target } from './target.ts';
import { storedUpdate, writeRequestOf } from './write-path.ts';
import { trackUpdate, updateIdentity } from '../fieldmanager/request.ts';
import type { ScaleDescription } from '../registry/kind.ts';
import { schemaOf } from '../registry/kind.ts';

type Fields = Record<string, JsonValue>;

function fields(value: JsonValue | undefined): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

const scaleApiVersion = 'autoscaling/v1';

/** autoscaling/v1 Scale's schema (strategic merge of a Scale reads it). */
const scaleSchema = schemaOf('k8s.io.api.autoscaling.v1.Scale');

function valueAt(object: KubeObject, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const part of path) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A copy of the object with the value at path (an object path) set, creating the objects on the way. */
function withValueAt(object: KubeObject, path: readonly string[], value: JsonValue): KubeObject {
  const result = structuredClone(object);
  let current = result as unknown as Fields;
  path.forEach((part, position) => {
    if (position === path.length - 1) { current[part] = value; return; }
    const next = fields(current[part]);
    current[part] = next;
    current = next;
  });
  return result;
}

/** The Scale view of a scalable object. */
export function scaleOf(object: KubeObject, description: ScaleDescription): KubeObject {
  const replicas = valueAt(object, description.specReplicasPath);
  const current = valueAt(object, description.statusReplicasPath);
  const metadata = object.metadata;
  return {
    apiVersion: scaleApiVersion, kind: 'Scale',
    metadata: {
      name: metadata.name ?? '', namespace: metadata.namespace ?? '', uid: metadata.uid ?? '',
      resourceVersion: metadata.resourceVersion ?? '', creationTimestamp: metadata.creationTimestamp ?? '',
    },
    spec: { replicas: typeof replicas === 'number' ? replicas : 0 },
    status: { replicas: typeof current === 'number' ? current : 0, selector: description.selector(object) },
  } as KubeObject;
}

function scaleInvalid(name: string, replicas: unknown): never {
  throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, field: 'spec.replicas' }]);
}

/** The requested Scale's replicas, checked (ValidateScale: a non-negative integer). */
function requestedReplicas(scale: Fields, name: string): number {
  const replicas = fields(scale['spec'])['replicas'] ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) throw badRequest(`Scale in version "v1" cannot be handled as a Scale: spec.replicas: must be an integer`);
  if (replicas < 0) scaleInvalid(name, replicas);
  return replicas;
}

export async function handleScale(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const name = target.name!;
  const qualified = { group: target.kind.group, resource: target.kind.resource };
  const description = target.kind.scale;
  if (description === undefined) throw notFound({ group: target.kind.group, resource: `${target.kind.resource}/scale` }, name);
  const key = objectKey(target, name);
  const method = request.method;
  if (method === 'GET' || method === 'HEAD') {
    checkSubresource(target, 'get');
    const format = negotiate(request.headers.accept, false);
    await settleRead(getSemantic(request.requestInfo.options), context);
    const object = readable(target, context.store.get(key));
    if (!object) throw notFound(qualified, name);
    return respond(request, reply, 200, scaleOf(object, description), format);
  }
  if (method !== 'PUT' && method !== 'PATCH') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const verb = method === 'PUT' ? 'update' : 'patch';
  checkSubresource(target, verb);
  const options = request.requestInfo.options;
  const optionsKind = method === 'PUT' ? 'UpdateOptions' : 'PatchOptions';
  if (method === 'PATCH') rejectForce(options);
  const write = writeRequestOf(request, target, context, isDryRun(options, optionsKind), 'scale');
  const identity = updateIdentity(request, target, optionsKind, context.now(), 'scale');
  await context.store.readIndex();
  const current = readable(target, context.store.get(key));
  if (!current) throw notFound(qualified, name);
  let scale: Fields;
  if (method === 'PUT') {
    const decoded = decodeBody(request.headers['content-type'], requestBody(request));
    scale = fields(decoded as JsonValue);
    if ((scale['kind'] ?? 'Scale') !== 'Scale' || (scale['apiVersion'] ?? scaleApiVersion) !== scaleApiVersion) {
      throw badRequest(`the body of the request must be an ${scaleApiVersion} Scale`);
    }
  } else {
    const patched = applyPatch(scaleOf(current, description), parsePatch(request), patchFunction(request.headers['content-type'], scaleSchema), target, name);
    scale = patched as unknown as Fields;
  }
  const replicas = requestedReplicas(scale, name);
  const scaleMetadata = fields(scale['metadata']);
  const requestedVersion = typeof scaleMetadata['resourceVersion'] === 'string' && scaleMetadata['resourceVersion'] !== '' ? scaleMetadata['resourceVersion'] : undefined;
  const object = withValueAt(current, description.specReplicasPath, replicas);
  const warnings = prepareUpdate(object, current, target, { level: fieldValidationLevel(options), duplicates: [], source: 'patch' });
  trackUpdate(current, object, target, identity);
  sendWarnings(reply, warnings);
  // A PUT's resourceVersion is its precondition; a PATCH applies to what it read.
  const stored = await storedUpdate(write, current, object, { resourceVersion: (method === 'PUT' ? requestedVersion : undefined) ?? current.metadata.resourceVersion ?? '' });
  return respond(request, reply, 200, scaleOf(stored, description));
}
