// Owns: the create/update strategies of the core configuration kinds (ConfigMap, Secret,
// Namespace, ServiceAccount) and of Leases: defaults, the immutable flag, key and size rules.
// Each kind's entry (api/registry/kinds/) names its strategy; the Strategy type is in kind.ts.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import { invalidValue } from './validation.ts';
import { bootstrapTokenCauses } from '../auth/bootstrap-token-validation.ts';
import type { Strategy } from './kind.ts';

const configKeyPattern = /^[-._a-zA-Z0-9]+$/;
const configKeyMessage = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** kube-apiserver's MaxSecretSize and the ConfigMap limit: 1 MiB of data per object. */
export const dataBytesMax = 1024 * 1024;

function stringMap(value: unknown): Record<string, string> {
  return value !== null && typeof value === 'object' ? (value as Record<string, string>) : {};
}

function keyCauses(field: string, map: Record<string, string>): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of Object.keys(map)) {
    if (key.length > 253) causes.push(invalidValue(`${field}[${key}]`, key, 'must be no more than 253 characters'));
    if (!configKeyPattern.test(key) || key === '.' || key === '..') causes.push(invalidValue(`${field}[${key}]`, key, configKeyMessage));
  }
  return causes;
}

function sizeCauses(field: string, bytes: number): StatusCause[] {
  return bytes > dataBytesMax ? [{ reason: 'FieldValueTooLong', message: `Too long: must have at most ${dataBytesMax} bytes`, field }] : [];
}

function immutableCauses(object: KubeObject, old: KubeObject, fields: readonly string[]): StatusCause[] {
  if (old['immutable'] !== true) return [];
  const causes: StatusCause[] = [];
  for (const field of fields) {
    if (JSON.stringify(object[field] ?? {}) !== JSON.stringify(old[field] ?? {})) {
      causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field });
    }
  }
  if (object['immutable'] !== true) causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field: 'immutable' });
  return causes;
}

export const configMapStrategy: Strategy = {
  // kube: PUT of an absent ConfigMap is 404.
  allowCreateOnUpdate: false,
  validate(object) {
    const data = stringMap(object['data']);
    const binary = stringMap(object['binaryData']);
    const causes = [...keyCauses('data', data), ...keyCauses('binaryData', binary)];
    for (const key of Object.keys(binary)) {
      if (Object.hasOwn(data, key)) causes.push(invalidValue('data', key, 'duplicate of key present in binaryData'));
    }
    const bytes = Object.values(data).reduce((sum, value) => sum + value.length, 0)
      + Object.values(binary).reduce((sum, value) => sum + Math.floor((value.length * 3) / 4), 0);
    return [...causes, ...sizeCauses('', bytes)];
  },
  validateUpdate: (object, old) => immutableCauses(object, old, ['data', 'binaryData']),
};

/** stringData is write-only: merged into data (base64) and never stored, as in kube-apiserver. */
function mergeStringData(object: KubeObject): void {
  const stringData = stringMap(object['stringData']);
  if (Object.keys(stringData).length > 0) {
    const data: Record<string, JsonValue> = { ...stringMap(object['data']) };
    for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, 'utf8').toString('base64');
    object['data'] = data;
  }
  delete object['stringData'];
}

export const secretStrategy: Strategy = {
  // kube: PUT of an absent Secret is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    mergeStringData(object);
    if (object['type'] === undefined || object['type'] === '') object['type'] = 'Opaque';
  },
  prepareForUpdate(object, old) {
    mergeStringData(object);
    if (object['type'] === undefined || object['type'] === '') object['type'] = old['type'] ?? 'Opaque';
  },
  validate(object) {
    const data = stringMap(object['data']);
    const bytes = Object.values(data).reduce((sum, value) => sum + Math.floor((value.length * 3) / 4), 0);
    return [...keyCauses('data', data), ...sizeCauses('data', bytes), ...bootstrapTokenCauses(object)];
  },
  validateUpdate(object, old) {
    const causes = immutableCauses(object, old, ['data']);
    if (object['type'] !== old['type']) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(object['type'])}: field is immutable`, field: 'type' });
    return causes;
  },
};

export const namespaceStrategy: Strategy = {
  // kube: PUT of an absent Namespace is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    const spec = (object['spec'] ?? {}) as Record<string, JsonValue>;
    if (!Array.isArray(spec['finalizers'])) spec['finalizers'] = ['kubernetes'];
    object['spec'] = spec;
    object['status'] = { phase: 'Active' };
  },
  prepareForUpdate(object, old) {
    // Status is owned by the server (the status subresource); a PUT cannot change it.
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
    // spec.finalizers change only through the finalize subresource (kube's namespace strategy).
    const spec = (object['spec'] ?? {}) as Record<string, JsonValue>;
    const oldFinalizers = (old['spec'] as Record<string, JsonValue> | undefined)?.['finalizers'];
    if (oldFinalizers === undefined) delete spec['finalizers'];
    else spec['finalizers'] = oldFinalizers;
    object['spec'] = spec;
  },
};

/** ServiceAccounts have no rules beyond the generic ones; kube does not create one on PUT. */
export const serviceAccountStrategy: Strategy = { allowCreateOnUpdate: false };

/** Leases have no rules beyond the generic ones; kube creates an absent one on PUT (leader election relies on it). */
export const leaseStrategy: Strategy = { allowCreateOnUpdate: true };
