// Owns: validation of request objects. Type structure against the kind's JSON schema (ajv):
// a wrong type is a decode error (400, as kube-apiserver's JSON decoder reports it), unknown
// fields are dropped and reported per the fieldValidation level (Strict → 400, Warn → Warning
// headers, Ignore → silent), in document order; a known field set to null is absent, as Go
// decodes it. Numbers a Go field cannot hold (2^64 or 1.5 in an int64, 1e400 in a float64) are
// decode errors in kube's words ("json: cannot unmarshal number … into Go struct field …"),
// found from the schema: from the value after any write, and from the literal text of a JSON
// body (api/decode.ts). Values whose Go types decode themselves are decoded as kube decodes
// them: a resource.Quantity ("0.5" → "500m", "1024Mi" → "1Gi") and a metav1.Time or MicroTime
// (in UTC, to the second or microsecond) are stored in their canonical form, and one that does
// not parse fails the decode with apimachinery's or Go's message.
// Field rules shared by every kind (names, labels, owner references, finalizers) produce 422
// causes in kube-apiserver's wording.
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { GoTimeParseError, canonicalGoTimestamp } from '../go-time.ts';
import type { TimestampKind } from '../go-time.ts';
import { QuantityError, formatQuantity, quantityFromJson } from '../quantity.ts';
import { labelNameLengthMax } from '../request-limits.ts';
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

/** Compiled per schema object (a kind's schema never changes; a changed CRD is a new kind). */
const validators = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(kind: ResourceKind): ValidateFunction {
  let validator = validators.get(kind.schema);
  if (!validator) {
    validator = ajv.compile(kind.schema);
    validators.set(kind.schema, validator);
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
  // An object without a Go type (a custom resource) always decodes; its schema is checked on writes only.
  if (kind.decode !== undefined) return undefined;
  const validate = validatorFor(kind);
  if (validate(object)) return undefined;
  const typeErrors = (validate.errors ?? []).filter((error) => error.keyword !== 'additionalProperties');
  return typeErrors.length === 0 ? undefined : typeErrors.map(describeTypeError).join('; ');
}

/**
 * The given fields in the order a decoder meets them in the document (kube's strict decoding
 * lists unknown fields so), not grouped per object as ajv reports them: each field's position
 * is the list of its steps' positions among their siblings, compared in order. Looks only at
 * the fields' own paths, never the whole document.
 */
function inDocumentOrder(document: unknown, fields: ReadonlyMap<string, readonly string[]>): string[] {
  if (fields.size < 2) return [...fields.keys()];
  const positionOf = (segments: readonly string[]): number[] => {
    const position: number[] = [];
    let node: unknown = document;
    for (const segment of segments) {
      if (node === null || typeof node !== 'object') break;
      position.push(Array.isArray(node) ? Number(segment) : Object.keys(node).indexOf(segment));
      node = (node as Record<string, unknown>)[segment];
    }
    return position;
  };
  const positions = new Map([...fields].map(([path, segments]) => [path, positionOf(segments)] as const));
  const compare = (a: readonly number[], b: readonly number[]): number => {
    for (let step = 0; step < Math.min(a.length, b.length); step++) if (a[step] !== b[step]) return a[step]! - b[step]!;
    return a.length - b.length;
  };
  return [...fields.keys()].sort((a, b) => compare(positions.get(a)!, positions.get(b)!));
}

/** The Go type a number-typed schema node decodes into, if it is one kube checks the range of. */
type NumberType = 'int32' | 'int64' | 'float64';

function numberTypeOf(schema: JsonSchema): NumberType | undefined {
  const type = schema.type;
  if (type === 'integer') return schema.format === 'int32' ? 'int32' : 'int64';
  // intstr.IntOrString decodes a number into its int32 IntVal.
  if (Array.isArray(type) && type.includes('integer' as never) && type.includes('string' as never)) return 'int32';
  if (type === 'number') return 'float64';
  return undefined;
}

const intRanges: Readonly<Record<'int32' | 'int64', readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** Whether Go's strconv (ParseInt for ints, ParseFloat for floats) takes the literal for the type. */
function literalFits(literal: string, type: NumberType): boolean {
  if (type === 'float64') return Number.isFinite(Number(literal));
  if (!/^-?(0|[1-9]\d*)$/.test(literal)) return false;
  const value = BigInt(literal);
  const [low, high] = intRanges[type];
  return value >= low && value <= high;
}

/** A decoded number as Go's encoding/json writes a float64 (what kube re-decodes after a patch). */
function numberText(value: number): string {
  return Number.isFinite(value) ? String(value) : value > 0 ? '+Inf' : '-Inf';
}

function valueFits(value: number, type: NumberType): boolean {
  if (type === 'float64') return Number.isFinite(value);
  if (!Number.isInteger(value)) return false;
  const [low, high] = intRanges[type];
  return value >= Number(low) && value < Number(high) + 1;
}

/** Go's name of the struct a schema node is: its OpenAPI definition, the kind, or KindSpec/KindStatus. */
function structName(node: JsonSchema, field: string | undefined, kind: ResourceKind, atRoot: boolean): string {
  if (atRoot) return kind.kind;
  if (node.definition) return node.definition.slice(node.definition.lastIndexOf('.') + 1);
  if (field === 'spec' || field === 'status') return `${kind.kind}${field === 'spec' ? 'Spec' : 'Status'}`;
  return field === undefined ? kind.kind : `${field[0]!.toUpperCase()}${field.slice(1)}`;
}

/** Where a decode is in the kind's schema: the node, the Go struct it is in and Go's field path (struct fields only). */
interface Position {
  readonly node: JsonSchema;
  readonly struct: string;
  readonly fields: readonly string[];
}

/** One step down: a declared or extra field of a struct, a map value or a list item; undefined where the schema has nothing (an unknown field, a free-form value). */
function step(position: Position, segment: string | number, kind: ResourceKind, atRoot: boolean, field: string | undefined): Position | undefined {
  const { node } = position;
  if (node.type === 'array' || (node.items !== undefined && typeof segment === 'number')) {
    return node.items && typeof segment === 'number' ? { ...position, node: node.items } : undefined;
  }
  if (typeof segment !== 'string') return undefined;
  const declared = node.properties?.[segment];
  if (declared) return { node: declared, struct: structName(node, field, kind, atRoot), fields: [...position.fields, segment] };
  if (typeof node.additionalProperties === 'object') return { ...position, node: node.additionalProperties };
  return undefined;
}

function unmarshalProblem(literal: string, position: Position, type: NumberType): string {
  return `json: cannot unmarshal number ${literal} into Go struct field ${position.struct}.${position.fields.join('.')} of type ${type}`;
}

/**
 * What kube's typed decode says of a number literal at `path` in a body of `kind`
 * ("json: cannot unmarshal number 1e400 into Go struct field ObjectMeta.metadata.generation of
 * type int64"), or undefined when the field takes it or the schema does not type the place
 * (unknown fields are skipped by Go's decoder too). Go's ParseInt refuses any fraction or
 * exponent in an integer field, even 1.0 or 1e3, which JSON.parse would have made whole.
 */
export function numberLiteralProblem(kind: ResourceKind, path: readonly (string | number)[], literal: string): string | undefined {
  let position: Position | undefined = { node: kind.schema, struct: kind.kind, fields: [] };
  let field: string | undefined;
  for (const [depth, segment] of path.entries()) {
    position = step(position, segment, kind, depth === 0, field);
    if (position === undefined) return undefined;
    if (typeof segment === 'string') field = segment;
  }
  const type = numberTypeOf(position.node);
  if (type === undefined || literalFits(literal, type)) return undefined;
  return unmarshalProblem(literal, position, type);
}

/** The Go types of built-in kinds that decode their own JSON, by their OpenAPI definition. */
const selfDecodingTypes: Readonly<Record<string, 'Quantity' | TimestampKind>> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'Quantity',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'MicroTime',
};

/** Go's name of a decoded JSON value's kind in an UnmarshalTypeError ("number", "bool", ...). */
function jsonKindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * What the self-decoding type at `position` makes of `value`: its canonical text, or the error
 * its UnmarshalJSON returns. resource.Quantity: ParseQuantity, written back by String() ("0.5" →
 * "500m"). metav1.Time and MicroTime: a JSON string parsed by time.Parse (RFC3339, RFC3339Micro),
 * written back in UTC (to the second, to the microsecond); any other JSON value fails Go's decode
 * into a string, which kube reports with the field's place. An empty timestamp is left as it is.
 */
function decodeSelf(type: 'Quantity' | TimestampKind, value: unknown, position: Position): { readonly text: string } | { readonly problem: string } {
  try {
    if (type === 'Quantity') return { text: formatQuantity(quantityFromJson(value)) };
    if (typeof value !== 'string') return { problem: `json: cannot unmarshal ${jsonKindOf(value)} into Go struct field ${position.struct}.${position.fields.join('.')} of type string` };
    return { text: value === '' ? value : canonicalGoTimestamp(value, type) };
  } catch (error) {
    if (error instanceof QuantityError || error instanceof GoTimeParseError) return { problem: error.message };
    throw error;
  }
}

/**
 * kube's typed decode of `object`, in one walk along the schema in document order (unknown
 * fields and free-form values are not walked). Values whose Go type decodes its own JSON
 * (resource.Quantity, metav1.Time, metav1.MicroTime): the first that fails is the decode's
 * error at once (the unmarshaler returns it); when none fails, each is replaced by its canonical
 * text, as kube stores and returns the decoded value. Numbers a field's Go type cannot hold (a
 * fraction or a value beyond int64 in an int64 field, ±Infinity in a float64 field) are errors
 * Go saves and reports at the end, so the first of them is the error only when no unmarshaler
 * failed; int32 fields are left to the schema check ("must be integer" / "must match format").
 * Nothing is replaced when there is an error (a patch's error shows what the patch produced).
 */
export function typedDecodeProblem(kind: ResourceKind, object: unknown): string | undefined {
  const replacements: { readonly holder: Record<string | number, unknown>; readonly key: string | number; readonly text: string }[] = [];
  let savedNumberProblem: string | undefined;
  const visit = (holder: Record<string | number, unknown>, key: string | number, position: Position, field: string | undefined, atRoot: boolean): string | undefined => {
    const value = holder[key];
    if (value === null || value === undefined) return undefined;
    const type = position.node.definition === undefined ? undefined : selfDecodingTypes[position.node.definition];
    if (type !== undefined) {
      const decoded = decodeSelf(type, value, position);
      if ('problem' in decoded) return decoded.problem;
      if (decoded.text !== value) replacements.push({ holder, key, text: decoded.text });
      return undefined;
    }
    if (typeof value === 'number') {
      const numberType = numberTypeOf(position.node);
      if (savedNumberProblem === undefined && numberType !== undefined && numberType !== 'int32' && !valueFits(value, numberType)) {
        savedNumberProblem = unmarshalProblem(numberText(value), position, numberType);
      }
      return undefined;
    }
    if (typeof value !== 'object') return undefined;
    const container = value as Record<string | number, unknown>;
    const keys: (string | number)[] = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(container);
    for (const segment of keys) {
      const next = step(position, segment, kind, atRoot, field);
      if (next === undefined) continue;
      const problem = visit(container, segment, next, typeof segment === 'string' ? segment : field, false);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  const problem = visit({ root: object }, 'root', { node: kind.schema, struct: kind.kind, fields: [] }, undefined, true) ?? savedNumberProblem;
  if (problem !== undefined) return problem;
  for (const { holder, key, text } of replacements) holder[key] = text;
  return undefined;
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
  if (kind.decode !== undefined) return kind.decode(object, checks);
  dropNulls(object, kind.schema);
  const numberProblem = typedDecodeProblem(kind, object);
  if (numberProblem !== undefined) {
    // As kube: a body's typed decode error is 400; a patch's result is re-decoded, Invalid on "patch".
    if (checks.source === 'patch') {
      throw invalid('', '', '', [{ reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${JSON.stringify(sortedJson(object))}: ${numberProblem}` }]);
    }
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${numberProblem}`);
  }
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
  const unknown = inDocumentOrder(object, unknownFields);
  const warnings = unknownFieldProblems(kind, object, unknown, checks);
  for (const segments of unknownFields.values()) removeField(object, segments);
  return warnings;
}

/**
 * The duplicate and unknown fields of a decoded object, per the fieldValidation level: Strict
 * throws, Warn returns them as warnings, Ignore returns nothing. `object` is what the patch
 * produced when checks.source is 'patch' (kube reports it in the error).
 */
export function unknownFieldProblems(kind: Pick<ResourceKind, 'kind' | 'version'>, object: KubeObject, unknown: readonly string[], checks: FieldChecks): string[] {
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

const qualifiedNameRegexMessage = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** apimachinery's IsDNS1123Subdomain: the problems, empty when valid. */
function dns1123SubdomainProblems(value: string): string[] {
  const problems = value.length > 253 ? ['must be no more than 253 characters'] : [];
  return dns1123Subdomain.test(value) ? problems : [...problems, dns1123SubdomainMessage];
}

/**
 * apimachinery 1.33's IsQualifiedName exactly: the problems, each a message of its own (an
 * empty name part is both "must be non-empty" and the pattern's message; a long one "must be
 * no more than 63 characters"). Used where kube's words are checked (label selectors).
 */
export function isQualifiedName(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) return [`a qualified name ${qualifiedNameRegexMessage} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const name = parts.at(-1)!;
  const problems: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') problems.push('prefix part must be non-empty');
    else problems.push(...dns1123SubdomainProblems(prefix).map((problem) => `prefix part ${problem}`));
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > labelNameLengthMax) problems.push(`name part must be no more than ${labelNameLengthMax} characters`);
  if (!qualifiedNamePart.test(name)) problems.push(`name part ${qualifiedNameRegexMessage}`);
  return problems;
}

/**
 * The qualified-name problems the metadata and kind rules report (label and annotation keys,
 * finalizers, event fields). Differs from isQualifiedName (kube's exact wording) in joining the
 * empty and too-long cases into one message and checking a prefix by its pattern only; kept
 * so, as their callers' tests expect; switching them to isQualifiedName is a separate change.
 */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) return [`a qualified name ${qualifiedNameRegexMessage} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const name = parts.at(-1)!;
  const problems: string[] = [];
  if (parts.length === 2 && (parts[0] === '' || !dns1123Subdomain.test(parts[0]!))) problems.push('prefix part ' + dns1123SubdomainMessage);
  if (name.length === 0 || name.length > labelNameLengthMax) problems.push(`name part must be non-empty and no more than ${labelNameLengthMax} characters`);
  else if (!qualifiedNamePart.test(name)) problems.push(`name part ${qualifiedNameRegexMessage}`);
  return problems;
}

const labelValueMessage = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** apimachinery's IsValidLabelValue: the problems, empty when valid. */
export function labelValueProblems(value: string): string[] {
  const problems = value.length > labelNameLengthMax ? [`must be no more than ${labelNameLengthMax} characters`] : [];
  return labelValue.test(value) ? problems : [...problems, labelValueMessage];
}

/** schema.ParseGroupVersion: "" and "/" are empty, "v1" has no group, "g/v" both; more slashes do not parse (empty). */
function parseGroupVersion(apiVersion: string): { readonly group: string; readonly version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

/** Go's %#v of a metav1.OwnerReference (a set *bool prints as a pointer; Go prints its address). */
function goOwnerReference(reference: Readonly<Record<string, JsonValue>>): string {
  const text = (name: string): string => JSON.stringify(typeof reference[name] === 'string' ? reference[name] : '');
  const pointer = (name: string): string => (typeof reference[name] === 'boolean' ? '(*bool)(0xc000000000)' : '(*bool)(nil)');
  return `v1.OwnerReference{APIVersion:${text('apiVersion')}, Kind:${text('kind')}, Name:${text('name')}, UID:${text('uid')}, Controller:${pointer('controller')}, BlockOwnerDeletion:${pointer('blockOwnerDeletion')}}`;
}

/** kube's BannedOwners: core/v1 Events may not own objects. */
const bannedOwners = new Set(['/v1, Kind=Event']);

/** apimachinery's ValidateOwnerReferences, at `metadata.ownerReferences` (kube names no index). */
export function ownerReferenceCauses(references: readonly JsonValue[] | undefined): StatusCause[] {
  const field = 'metadata.ownerReferences';
  const causes: StatusCause[] = [];
  let firstController = '';
  for (const raw of references ?? []) {
    const reference = (raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Readonly<Record<string, JsonValue>>;
    const stringOf = (name: string): string => (typeof reference[name] === 'string' ? reference[name] as string : '');
    const apiVersion = stringOf('apiVersion');
    const kind = stringOf('kind');
    const { group, version } = parseGroupVersion(apiVersion);
    if (version === '') causes.push(invalidValue(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') causes.push(invalidValue(`${field}.kind`, kind, 'kind must not be empty'));
    if (stringOf('name') === '') causes.push(invalidValue(`${field}.name`, stringOf('name'), 'name must not be empty'));
    if (stringOf('uid') === '') causes.push(invalidValue(`${field}.uid`, stringOf('uid'), 'uid must not be empty'));
    const gvk = `${group}/${version}, Kind=${kind}`;
    if (bannedOwners.has(gvk)) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${goOwnerReference(reference)}: ${gvk} is disallowed from being an owner` });
    }
    if (reference['controller'] === true) {
      const controller = `${kind}/${stringOf('name')}`;
      if (firstController === '') firstController = controller;
      else {
        const all = `[]v1.OwnerReference{${(references ?? []).map((item) => goOwnerReference((item !== null && typeof item === 'object' && !Array.isArray(item) ? item : {}) as Readonly<Record<string, JsonValue>>)).join(', ')}}`;
        causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${all}: Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${controller}` });
      }
    }
  }
  return causes;
}

/** Metadata rules shared by every kind (ValidateObjectMeta, in its order). */
export function metadataCauses(object: KubeObject, rule: NameRule): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = object.metadata.name ?? '';
  if (name === '') causes.push(requiredValue('metadata.name', 'name or generateName is required'));
  for (const problem of name === '' ? [] : nameProblems(name, rule)) causes.push(invalidValue('metadata.name', name, problem));
  for (const [key, value] of Object.entries(object.metadata.labels ?? {})) {
    for (const problem of qualifiedNameProblems(key)) causes.push(invalidValue('metadata.labels', key, problem));
    if (!labelValue.test(value) || value.length > labelNameLengthMax) causes.push(invalidValue('metadata.labels', value, labelValueMessage));
  }
  for (const key of Object.keys(object.metadata.annotations ?? {})) {
    for (const problem of qualifiedNameProblems(key.toLowerCase())) causes.push(invalidValue('metadata.annotations', key, problem));
  }
  const annotationBytes = Object.entries(object.metadata.annotations ?? {}).reduce((sum, [key, value]) => sum + key.length + value.length, 0);
  if (annotationBytes > annotationsBytesMax) causes.push({ reason: 'FieldValueTooLong', message: `Too long: must have at most ${annotationsBytesMax} bytes`, field: 'metadata.annotations' });
  causes.push(...ownerReferenceCauses(object.metadata.ownerReferences));
  (object.metadata.finalizers ?? []).forEach((finalizer, position) => {
    for (const problem of qualifiedNameProblems(finalizer)) causes.push(invalidValue(`metadata.finalizers[${position}]`, finalizer, problem));
  });
  return causes;
}

/** kube-apiserver's TotalAnnotationSizeLimitB: 256 KiB of keys and values per object. */
export const annotationsBytesMax = 256 * 1024;
