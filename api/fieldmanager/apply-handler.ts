// Owns: PATCH with `application/apply-patch+yaml` (server-side apply) of an item or of its
// status subresource, as kube-apiserver's applyPatcher: PatchOptions validation (fieldManager
// required, `force`), the body (YAML or JSON, an object of the URL's apiVersion and kind,
// without metadata.managedFields; unknown fields refused at every fieldValidation level, as
// kube's typed conversion refuses them), the apply itself
// (./managed-fields.ts applyConfiguration), then the write path of a patch — validation,
// defaults, resourceVersion/uid preconditions from the body, dry run, re-apply after a
// concurrent write — or of a create (201) when the object is absent; both through the one write
// path (endpoints/write-path.ts), so admission and RBAC's escalation check see the applied object.
// `application/apply-patch+cbor` is not served (415, as with CBOR off on kube).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeApplyConfiguration } from '../decode.ts';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { apiVersionOf } from '../registry/kinds.ts';
import { validateStructure } from '../registry/validation.ts';
import type { FieldChecks } from '../registry/validation.ts';
import { ApiError, badRequest, conflict, notFound } from '../status.ts';
import type { StatusCause } from '../status.ts';
import type { RequestOptions } from '../request-options.ts';
import type { EndpointContext } from '../endpoints/context.ts';
import { fieldValidationLevel, formatTime, isDryRun, respond, sendWarnings } from '../endpoints/context.ts';
import { createObject } from '../endpoints/create.ts';
import { writeRequestOf, writeUpdate } from '../endpoints/write-path.ts';
import { readable } from '../endpoints/corrupt.ts';
import { prepareUpdate } from '../endpoints/prepare.ts';
import { expectObject } from '../endpoints/results.ts';
import { mergeSubresource } from '../endpoints/subresource.ts';
import { objectKey } from '../endpoints/target.ts';
import type { Target } from '../endpoints/target.ts';
import { applyConfiguration, fieldManagerProblems } from './managed-fields.ts';
import type { WriteIdentity } from './managed-fields.ts';
import { invalidOptions, ownershipScope, zeroOf } from './request.ts';
import { configurationProblems, isObject } from './typed.ts';

export const applyPatchMediaType = 'application/apply-patch+yaml';

/** Re-reads after a concurrent write, as a patch does. */
const applyAttemptsMax = 5;

export function isApplyPatch(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === applyPatchMediaType;
}

/** ValidatePatchOptions for an apply patch: fieldManager is required, short and printable. */
function applyFieldManager(options: RequestOptions): string {
  const fieldManager = options.fieldManager ?? '';
  const causes: StatusCause[] = [];
  if (fieldManager === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' });
  causes.push(...fieldManagerProblems(fieldManager));
  if (causes.length > 0) invalidOptions('PatchOptions', causes);
  return fieldManager;
}

/**
 * What kube-apiserver answers for a configuration its typed converter refuses (an error that is
 * not a Status: 500, no reason): `failed to create typed patch object (ns/name; /v1,
 * Kind=ConfigMap): .bogus: field not declared in schema`, at every fieldValidation level.
 */
function typedPatchError(target: Target, config: KubeObject, problems: readonly string[]): ApiError {
  const gvk = `${target.kind.group}/${target.kind.version}, Kind=${target.kind.kind}`;
  const detail = problems.length === 1 ? problems[0]! : ['errors:', ...problems.map((problem) => `  ${problem}`)].join('\n');
  const message = `failed to create typed patch object (${config.metadata.namespace ?? ''}/${config.metadata.name ?? ''}; ${gvk}): ${detail}`;
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

/** The applied configuration: YAML (JSON is YAML), an object of the URL's kind and version. */
function readConfiguration(request: FastifyRequest, target: Target): KubeObject {
  const raw = typeof request.body === 'string' ? request.body : Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  const decoded = decodeApplyConfiguration(raw);
  if (decoded === null || decoded === undefined || typeof decoded !== 'object' || Array.isArray(decoded)) {
    throw badRequest(`error decoding patch: the applied configuration must be an object, got ${Array.isArray(decoded) ? 'an array' : JSON.stringify(decoded ?? null)}`);
  }
  const config = decoded as Record<string, unknown>;
  const expectedVersion = apiVersionOf(target.kind);
  const version = typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '';
  if (version !== expectedVersion) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${version}, expected: ${expectedVersion}`);
  }
  if (config['kind'] !== target.kind.kind) {
    throw badRequest(`the kind in the data (${typeof config['kind'] === 'string' ? config['kind'] : ''}) does not match the expected kind (${target.kind.kind}) for resource "${target.kind.resource}"`);
  }
  if (config['metadata'] === undefined || config['metadata'] === null) config['metadata'] = {};
  if (!isObject(config['metadata'] as JsonValue)) {
    throw badRequest(`${target.kind.kind} in version "${target.kind.version}" cannot be handled as a ${target.kind.kind}: metadata: must be object`);
  }
  const metadata = config['metadata'] as Record<string, unknown>;
  if (metadata['managedFields'] !== undefined && metadata['managedFields'] !== null) throw badRequest('metadata.managedFields must be nil');
  delete metadata['managedFields'];
  return config as unknown as KubeObject;
}

export async function handleApply(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext, subresource?: string): Promise<FastifyReply> {
  const name = target.name!;
  const options = request.requestInfo.options;
  const qualified = { group: target.kind.group, resource: target.kind.resource };
  const fieldManager = applyFieldManager(options);
  // PatchOptions.Force is a boolean query parameter, read as kube reads one (request-options.ts).
  const force = options.force ?? false;
  const write = writeRequestOf(request, target, context, isDryRun(options, 'PatchOptions'), subresource ?? '');
  const checks: FieldChecks = { level: fieldValidationLevel(options), duplicates: [] };
  const config = readConfiguration(request, target);
  // An apply is always strict about its configuration's fields (kube's typed conversion), then typed like any body (400).
  const problems = configurationProblems(config as unknown as JsonValue, target.kind.schema);
  if (problems.length > 0) throw typedPatchError(target, config, problems);
  const warnings = validateStructure(target.kind, config, checks);
  const configName = config.metadata.name ?? '';
  if (configName !== name) throw badRequest(`the name of the object (${configName}) does not match the name on the URL (${name})`);
  const requestedVersion = config.metadata.resourceVersion ?? '';
  const requestedUid = config.metadata.uid ?? '';
  const identity: WriteIdentity = { manager: fieldManager, apiVersion: apiVersionOf(target.kind), subresource: subresource ?? '', time: formatTime(context.now()) };
  const scope = ownershipScope(target);
  const key = objectKey(target, name);
  await context.store.readIndex();
  for (let attempt = 1; ; attempt++) {
    const current = readable(target, context.store.get(key));
    if (!current) {
      if (subresource !== undefined) throw notFound({ ...qualified, resource: `${target.kind.resource}/${subresource}` }, name);
      if (requestedUid !== '') throw conflict(qualified, name, `uid mismatch: the provided object specified uid ${requestedUid}, and no existing object was found`);
      // A resourceVersion in the configuration is wiped on create, as kube's create-via-apply does.
      const { object } = applyConfiguration(zeroOf(target), config, identity, scope, force);
      const created = await createObject(write, object, checks, undefined);
      sendWarnings(reply, [...warnings, ...created.warnings]);
      return respond(request, reply, 201, created.object);
    }
    const applied = applyConfiguration(current, config, identity, scope, force).object;
    let object = applied;
    if (subresource !== undefined) {
      object = mergeSubresource(subresource, current, applied);
      if (applied.metadata.managedFields === undefined) delete object.metadata.managedFields;
      else object.metadata.managedFields = applied.metadata.managedFields;
    }
    object.metadata.resourceVersion = requestedVersion !== '' ? requestedVersion : current.metadata.resourceVersion ?? '';
    const patchNamedVersion = requestedVersion !== '' && requestedVersion !== current.metadata.resourceVersion;
    prepareUpdate(object, current, target, { level: 'Ignore', duplicates: [] }, subresource);
    sendWarnings(reply, warnings);
    const stored = await writeUpdate(write, current, object, { resourceVersion: object.metadata.resourceVersion, ...(requestedUid !== '' ? { uid: requestedUid } : {}) });
    if (stored.type === 'conflict' && !patchNamedVersion && attempt < applyAttemptsMax) continue;
    return respond(request, reply, 200, expectObject(stored, target, name).object);
  }
}
