// Owns: checking that decoded entry bytes really are a command envelope, so that a malformed
// entry is rejected with an `invalid` result on every replica instead of crashing apply or
// corrupting state (a bad entry is an answer, never a crash).
// Must not: judge Kubernetes semantics (schemas, names: the API tier validated those before
// proposing) or throw on any input.
import { commandVersion, decodeCommand, gracePeriodSecondsMax } from './commands.ts';
import type { CommandEnvelope } from './commands.ts';
import { addSecondsRfc3339, rfc3339ToMillis } from './time.ts';

export type DecodeResult =
  | { readonly ok: true; readonly envelope: CommandEnvelope }
  | { readonly ok: false; readonly message: string };

/** Decodes and checks entry bytes; never throws. */
export function tryDecodeCommand(data: Uint8Array): DecodeResult {
  let value: unknown;
  try {
    value = decodeCommand(data);
  } catch (error) {
    return { ok: false, message: `entry is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const problem = envelopeProblem(value);
  return problem === null ? { ok: true, envelope: value as CommandEnvelope } : { ok: false, message: `malformed command: ${problem}` };
}

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is wrong with `value` as an envelope, or null if nothing. */
export function envelopeProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'envelope is not an object';
  if (value.version !== commandVersion) return `unsupported command version ${JSON.stringify(value.version)}`;
  if (value.session !== undefined) {
    const session = value.session;
    if (!isRecord(session) || typeof session.id !== 'string') return 'session.id must be a string';
    if (!Number.isSafeInteger(session.sequence) || (session.sequence as number) < 0) return 'session.sequence must be a non-negative integer';
  }
  return commandProblem(value.command);
}

function commandProblem(command: unknown): string | null {
  if (!isRecord(command)) return 'command is not an object';
  if (command.type === 'noop') return null;
  if (command.type === 'expireTokens') return timeProblem(command.at) ?? byProblem(command.by);
  if (command.type !== 'create' && command.type !== 'update' && command.type !== 'delete') {
    return `unknown command type ${JSON.stringify(command.type)}`;
  }
  return keyProblem(command.key) ?? timeProblem(command.at) ?? byProblem(command.by) ?? preconditionsProblem(command.preconditions) ??
    (command.type === 'delete'
      ? propagationProblem(command.propagationPolicy) ?? unsafeProblem(command.ignoreStoreReadError) ?? graceProblem(command.gracePeriodSeconds, command.at)
      : objectProblem(command.object));
}

/** A grace period is a whole number of seconds in [0, gracePeriodSecondsMax] whose deadline is writable. */
function graceProblem(grace: unknown, at: unknown): string | null {
  if (grace === undefined) return null;
  if (typeof grace !== 'number' || !Number.isSafeInteger(grace) || grace < 0 || grace > gracePeriodSecondsMax) {
    return `gracePeriodSeconds must be an integer from 0 to ${gracePeriodSecondsMax}`;
  }
  // A graceful deletion is due at `at + grace`; it must be an RFC 3339 time (years up to 9999).
  if (typeof at === 'string' && addSecondsRfc3339(at, grace) === undefined) return 'at + gracePeriodSeconds must be a time before the year 10000';
  return null;
}

function unsafeProblem(flag: unknown): string | null {
  return flag === undefined || typeof flag === 'boolean' ? null : 'ignoreStoreReadError must be a boolean';
}

function byProblem(by: unknown): string | null {
  return by === undefined || typeof by === 'string' ? null : 'by must be a string (a user name)';
}

function propagationProblem(policy: unknown): string | null {
  if (policy === undefined || policy === 'Orphan' || policy === 'Background' || policy === 'Foreground') return null;
  return `propagationPolicy must be Orphan, Background or Foreground, got ${JSON.stringify(policy)}`;
}

function keyProblem(key: unknown): string | null {
  if (!isRecord(key)) return 'key is not an object';
  for (const field of ['group', 'resource', 'namespace', 'name']) {
    if (typeof key[field] !== 'string') return `key.${field} must be a string`;
  }
  if (key.resource === '' || key.name === '') return 'key.resource and key.name must not be empty';
  return null;
}

function timeProblem(at: unknown): string | null {
  if (typeof at !== 'string' || rfc3339ToMillis(at) === undefined) return 'at must be an RFC 3339 date-time';
  return null;
}

function preconditionsProblem(preconditions: unknown): string | null {
  if (preconditions === undefined) return null;
  if (!isRecord(preconditions)) return 'preconditions is not an object';
  for (const field of ['uid', 'resourceVersion']) {
    if (preconditions[field] !== undefined && typeof preconditions[field] !== 'string') return `preconditions.${field} must be a string`;
  }
  return null;
}

function objectProblem(object: unknown): string | null {
  if (!isRecord(object)) return 'object is not an object';
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return 'object.apiVersion and object.kind must be strings';
  if (!isRecord(object.metadata)) return 'object.metadata is not an object';
  const finalizers = object.metadata.finalizers;
  if (finalizers !== undefined && !(Array.isArray(finalizers) && finalizers.every((f) => typeof f === 'string'))) {
    return 'object.metadata.finalizers must be a list of strings';
  }
  return null;
}
