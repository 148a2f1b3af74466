// Owns: the create verb (POST to a collection) and the create half of a PUT to an absent
// object or of a server-side apply: decode → validate → server-set fields → generateName →
// metadata.managedFields (an Update from the kind's zero object, before admission as in kube) →
// the write path (endpoints/write-path.ts: admission, RBAC escalation, the existence check,
// propose), retrying a generated name that collides (kube-apiserver's
// maxNameGenerationCreateAttempts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KubeObject } from '../../actors/index.ts';
import { alreadyExists, badRequest, methodNotAllowed } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { fieldChecks, isDryRun, readObject, respond, sendWarnings } from './context.ts';
import type { FieldChecks } from '../registry/validation.ts';
import { prepareCreate } from './prepare.ts';
import { expectObject } from './results.ts';
import type { Target } from './target.ts';
import { writeCreate, writeRequestOf } from './write-path.ts';
import type { WriteRequest } from './write-path.ts';
import { notOwnedOnCreate, trackCreate, updateIdentity } from '../fieldmanager/request.ts';
import type { WriteIdentity } from '../fieldmanager/managed-fields.ts';

/**
 * 8 attempts give a 1-in-a-million collision budget per prefix at 5 random characters
 * (27^5 ≈ 14M names), the reasoning of kube-apiserver's maxNameGenerationCreateAttempts.
 */
export const generatedNameAttemptsMax = 8;
const generatedNamePrefixMax = 253 - 5;

export async function handleCreate(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  if (target.name !== undefined) throw methodNotAllowed('the server does not allow this method on the requested resource');
  const options = request.requestInfo.options;
  const identity = updateIdentity(request, target, 'CreateOptions', context.now());
  const object = readObject(request, target);
  const write = writeRequestOf(request, target, context, isDryRun(options, 'CreateOptions'));
  const created = await createObject(write, object, fieldChecks(request, options), identity);
  sendWarnings(reply, created.warnings);
  return respond(request, reply, 201, created.object);
}

export interface Created {
  readonly object: KubeObject;
  readonly warnings: readonly string[];
}

/**
 * Shared by POST, by PUT of an absent object and by a server-side apply that creates.
 * `object` is handed over: it becomes the created object (or its copies, for a generated name).
 * `identity` is the Update's field manager; undefined when the object's managedFields are
 * already decided (an apply).
 */
export async function createObject(write: WriteRequest, object: KubeObject, checks: FieldChecks, identity: WriteIdentity | undefined): Promise<Created> {
  const { target, context } = write;
  const generateName = object.metadata.generateName;
  const generated = (object.metadata.name === undefined || object.metadata.name === '') && typeof generateName === 'string' && generateName !== '';
  if (generated && generateName.length > generatedNamePrefixMax) throw badRequest(`metadata.generateName is too long: ${generateName.length} characters`);
  // Read from the body as sent, before prepareCreate changes it.
  const notOwned = identity === undefined ? [] : notOwnedOnCreate(target, object);
  for (let attempt = 1; ; attempt++) {
    // The caller hands the body over: only a generated name, which may be retried, needs a fresh copy per attempt.
    const candidate = generated ? structuredClone(object) : object;
    if (generated) candidate.metadata.name = `${generateName}${context.randomSuffix()}`;
    const warnings = prepareCreate(candidate, target, checks, context, write.user);
    if (identity !== undefined) trackCreate(candidate, target, identity, notOwned);
    const name = candidate.metadata.name ?? '';
    const result = await writeCreate(write, candidate);
    if (result.type === 'alreadyExists' && generated && attempt < generatedNameAttemptsMax) continue;
    if (result.type === 'alreadyExists' && generated) {
      throw alreadyExists({ group: target.kind.group, resource: target.kind.resource }, name);
    }
    return { object: expectObject(result, target, name).object, warnings };
  }
}
