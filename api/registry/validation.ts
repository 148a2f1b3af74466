// Owns: validation of request objects. Type structure against the kind's JSON schema (ajv):
// a wrong type is a decode error (400, as kube-apiserver's JSON decoder reports it), unknown
// fields are dropped and reported per the fieldValidation level (Strict → 400, Warn → Warning
// headers, Ignore → silent), in document order; a known field set to null is absent, as Go
// decodes it. Field rules shared by every kind (names, labels, finalizers)
// produce 422 causes in kube-apiserver's wording.
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { KubeObject } from '../../actors/index.ts';
import { badRequest, invalid } from '../status.ts';
import type { StatusCause } from '../status.ts';
import type { NameRule, ResourceKind } from './kinds.ts';
import type { JsonSchema } from './schemas.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** How a write's fields are checked: the level, and the duplicate keys found in its raw body. */
export interface FieldChecks {
  readonly level: FieldValidation;
  readonly duplicates: readonly string[];
  /** 'patch' when the object is a patch's result: kube reports its strict errors as 422 on the field `patch`. */
  readonly source?: 'body' | 'patch';
}

/** JSON with object keys sorted, as Go marshals an unstructured object. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((key) => `${JSON.stringify(key)}:${sortedJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const rfc3339Pattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat('byte', { type: 'string', validate: (value: string) => base64Pattern.test(value) });
ajv.addFormat('date-time-or-empty', { type: 'string', validate: (value: string) => value === '' || rfc3339Pattern.test(value) });
// Go's integer widths: a number outside an int32 field's range fails to decode, as in kube.
ajv.addFormat('int32', { type: 'number', validate: (value: number) => value >= -(2 ** 31) && value < 2 ** 31 });
ajv.addFormat('int64', { type: 'number', validate: (value: number) => value >= -(2 ** 63) && value < 2 ** 63 });
ajv.addFormat('double', { type: 'number', validate: () => true });

const validators = new Map<string, ValidateFunction>();

function validatorFor(kind: ResourceKind): ValidateFunction {
  const cacheKey = `${kind.group}/${kind.version}/${kind.kind}`;
  let validator = validators.get(cacheKey);
  if (!validator) {
    validator = ajv.compile(kind.schema);
    validators.set(cacheKey, validator);
  }
  return validator;
}

function pathSegments(instancePath: string): string[] {
  return instancePath.split('/').slice(1).map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** kube's field path form: `spec.containers[0].image` (list positions in brackets). */
function displayPath(segments: readonly string[]): string {
  return segments.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');
}

function fieldPath(instancePath: string): string {
  return displayPath(pathSegments(instancePath));
}

function unknownFieldSegments(error: ErrorObject): string[] {
  return [...pathSegments(error.instancePath), String((error.params as { additionalProperty?: unknown }).additionalProperty)];
}

function removeField(object: unknown, path: string[]): void {
  let current: unknown = object;
  for (const part of path.slice(0, -1)) {
    if (current === null || typeof current !== 'object') return;
    current = (current as Record<string, unknown>)[part];
  }
  if (current !== null && typeof current === 'object') delete (current as Record<string, unknown>)[path.at(-1)!];
}

function describeTypeError(error: ErrorObject): string {
  const path = fieldPath(error.instancePath);
  if (error.keyword === 'format' && (error.params as { format?: string }).format === 'byte') {
    return `${path}: illegal base64 data`;
  }
  return `${path === '' ? 'object' : path}: ${error.message ?? 'is invalid'}`;
}

/**
 * Why a stored object cannot be decoded as its kind (a type error, as a decoder would meet it),
 * or undefined when it can. Unknown fields are tolerated, as a decoder drops them. A stored object
 * that fails is corrupt (the spec's corrupt-object path): written by something that bypassed
 * this API's validation, or by a version whose schema differs.
 */
export function decodeProblem(kind: ResourceKind, object: KubeObject): string | undefined {
  const validate = validatorFor(kind);
  if (validate(object)) return undefined;
  const typeErrors = (validate.errors ?? []).filter((error) => error.keyword !== 'additionalProperties');
  return typeErrors.length === 0 ? undefined : typeErrors.map(describeTypeError).join('; ');
}

/**
 * The given field paths in the order a decoder meets them in the document (kube's strict
 * decoding lists unknown fields so), not grouped per object as ajv reports them.
 */
function inDocumentOrder(document: unknown, paths: readonly string[]): string[] {
  if (paths.length < 2) return [...paths];
  const position = new Map<string, number>();
  const visit = (value: unknown, segments: string[]): void => {
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      const childSegments = [...segments, key];
      position.set(displayPath(childSegments), position.size);
      visit(child, childSegments);
    }
  };
  visit(document, []);
  return [...paths].sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
}

function admitsNull(schema: JsonSchema): boolean {
  return Array.isArray(schema.type) && (schema.type as string[]).includes('null');
}

/**
 * Drops the known fields whose value is JSON null where the schema admits no null: Go's decoder
 * leaves such a field at its zero value (absent), so kube accepts `affinity: null` or
 * `securityContext: {seLinuxOptions: null}` (YAML's empty value) even under Strict. Nullable
 * fields (metav1.Time: `lastProbeTime: null`) keep their null; map entries and unknown fields
 * are left to the schema check.
 */
function dropNulls(value: unknown, schema: JsonSchema | undefined): void {
  if (schema === undefined || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (schema.items !== undefined) for (const item of value) dropNulls(item, schema.items);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(record)) {
    const property = schema.properties?.[key];
    if (child === null && property !== undefined && !admitsNull(property)) delete record[key];
    else dropNulls(child, property ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined));
  }
}

/**
 * Checks types and handles unknown fields in place (they are removed). Returns the warnings to
 * send (Warn level). Throws 400 for a type error or, under Strict, for unknown fields.
 */
export function validateStructure(kind: ResourceKind, object: KubeObject, checks: FieldChecks): string[] {
  dropNulls(object, kind.schema);
  const validate = validatorFor(kind);
  const valid = validate(object);
  const errors = valid ? [] : validate.errors ?? [];
  const typeErrors = errors.filter((error) => error.keyword !== 'additionalProperties');
  if (typeErrors.length > 0) {
    const details = typeErrors.map(describeTypeError).join('; ');
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${details}`);
  }
  const unknownFields = new Map(errors.filter((error) => error.keyword === 'additionalProperties').map((error) => {
    const segments = unknownFieldSegments(error);
    return [displayPath(segments), segments] as const;
  }));
  const unknown = inDocumentOrder(object, [...unknownFields.keys()]);
  const problems = [
    ...checks.duplicates.map((path) => `duplicate field "${path}"`),
    ...unknown.map((path) => `unknown field "${path}"`),
  ];
  if (problems.length > 0 && checks.level === 'Strict') {
    const strictError = `strict decoding error: ${problems.join(', ')}`;
    // kube: a create or update body is "cannot be handled" (400, transformDecodeError); a patch's
    // result is Invalid on the field "patch" carrying the patched object (patch.go applyPatch).
    if (checks.source === 'patch') {
      throw invalid('', '', '', [{ reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${JSON.stringify(sortedJson(object))}: ${strictError}` }]);
    }
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${strictError}`);
  }
  for (const segments of unknownFields.values()) removeField(object, segments);
  return checks.level === 'Warn' ? problems : [];
}

const dns1123LabelMessage = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1123SubdomainMessage = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function invalidValue(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field };
}

export function requiredValue(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueRequired', message: `Required value: ${detail}`, field };
}

/** Name rules of apimachinery's validation package; returns problems, empty when valid. */
export function nameProblems(name: string, rule: NameRule): string[] {
  if (rule === 'dns1123Label') {
    const problems = name.length > 63 ? ['must be no more than 63 characters'] : [];
    return dns1123Label.test(name) ? problems : [...problems, dns1123LabelMessage];
  }
  if (rule === 'dns1123Subdomain') {
    const problems = name.length > 253 ? ['must be no more than 253 characters'] : [];
    return dns1123Subdomain.test(name) ? problems : [...problems, dns1123SubdomainMessage];
  }
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((character) => name.includes(character)).map((character) => `may not contain '${character}'`);
}

const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  const name = parts.at(-1)!;
  const problems: string[] = [];
  if (parts.length === 2 && (parts[0] === '' || !dns1123Subdomain.test(parts[0]!))) problems.push('prefix part ' + dns1123SubdomainMessage);
  if (name.length === 0 || name.length > 63) problems.push('name part must be non-empty and no more than 63 characters');
  else if (!qualifiedNamePart.test(name)) problems.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  return problems;
}

/** Metadata rules shared by every kind (ValidateObjectMeta). */
export function metadataCauses(object: KubeObject, rule: NameRule): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = object.metadata.name ?? '';
  if (name === '') causes.push(requiredValue('metadata.name', 'name or generateName is required'));
  for (const problem of name === '' ? [] : nameProblems(name, rule)) causes.push(invalidValue('metadata.name', name, problem));
  for (const [key, value] of Object.entries(object.metadata.labels ?? {})) {
    for (const problem of qualifiedNameProblems(key)) causes.push(invalidValue('metadata.labels', key, problem));
    if (!labelValue.test(value) || value.length > 63) {
      causes.push(invalidValue('metadata.labels', value, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
    }
  }
  for (const key of Object.keys(object.metadata.annotations ?? {})) {
    for (const problem of qualifiedNameProblems(key.toLowerCase())) causes.push(invalidValue('metadata.annotations', key, problem));
  }
  const annotationBytes = Object.entries(object.metadata.annotations ?? {}).reduce((sum, [key, value]) => sum + key.length + value.length, 0);
  if (annotationBytes > annotationsBytesMax) causes.push({ reason: 'FieldValueTooLong', message: `Too long: must have at most ${annotationsBytesMax} bytes`, field: 'metadata.annotations' });
  (object.metadata.finalizers ?? []).forEach((finalizer, position) => {
    for (const problem of qualifiedNameProblems(finalizer)) causes.push(invalidValue(`metadata.finalizers[${position}]`, finalizer, problem));
  });
  return causes;
}

/** kube-apiserver's TotalAnnotationSizeLimitB: 256 KiB of keys and values per object. */
export const annotationsBytesMax = 256 * 1024;
