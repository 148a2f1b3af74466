// Owns: checking a value against a schema node as kube-openapi's validate.SchemaValidator does
// for a custom resource (kube 1.33, kube-openapi pkg/validation/validate), and turning its
// results into causes as apiextensions' kubeOpenAPIResultToFieldErrors does. The port keeps the
// validator's order (type, allOf/anyOf/oneOf/not, string, format, number, array, enum, object),
// its match counting (anyOf/oneOf report the errors of the branch that matched most), its
// de-duplication of equal messages, and its quirks: kube-openapi paths join map keys with dots
// (`spec.labels.foo`), composite (anyOf/oneOf/allOf/not) errors carry the base path, and a
// root-level error without a base path is on the field "<nil>".
import type { StatusCause } from '../../status.ts';
import { goFloat } from '../../go-format.ts';
import {
  fieldOf, goInt64, goJson, goQuote, invalidCause, isGoInt, notSupportedCause, requiredCause, tooLongCause, tooManyCause, typeInvalidCause,
} from './field-errors.ts';
import { formatValidator, supportedFormat } from './formats.ts';
import type { Node } from './node.ts';
import { compileGoRegexp } from './regex.ts';

/**
 * Which conversion of the schema is validated: a custom resource's (formats apiextensions does
 * not support are stripped; x-kubernetes-int-or-string is the type [integer, string]) or a
 * default's (the structural schema's ToKubeOpenAPI: formats kept, int-or-string untyped).
 */
export type SchemaFlavor = 'resource' | 'default';

type Code =
  | 'invalidType' | 'required' | 'tooLong' | 'tooShort' | 'pattern' | 'enum' | 'multipleOf' | 'max' | 'min' | 'unique'
  | 'maxItems' | 'minItems' | 'tooFewProperties' | 'tooManyProperties' | 'unallowedProperty' | 'multipleOfPositive' | 'composite';

interface OpenApiError {
  readonly code: Code;
  /** The kube-openapi path ("" at the root); empty for composite errors. */
  readonly name: string;
  readonly message: string;
  readonly value?: unknown;
  readonly valid?: number;
  readonly values?: readonly unknown[];
}

interface Result {
  errors: OpenApiError[];
  count: number;
}

function newResult(count = 0): Result {
  return { errors: [], count };
}

function errorResult(error: OpenApiError): Result {
  return { errors: [error], count: 0 };
}

function addError(result: Result, error: OpenApiError): void {
  for (const reported of result.errors) if (reported.message === error.message) return;
  result.errors.push(error);
}

function merge(result: Result, other: Result | undefined): void {
  if (other === undefined) return;
  for (const error of other.errors) addError(result, error);
  result.count += other.count;
}

const inBody = 'in body';

function invalidType(name: string, typeName: string, value: string): OpenApiError {
  return { code: 'invalidType', name, value, message: `${name} ${inBody} must be of type ${typeName}: ${goQuote(value)}` };
}

type Kind = 'nil' | 'string' | 'bool' | 'int' | 'float' | 'slice' | 'map';

function kindOf(data: unknown): Kind {
  if (data === null || data === undefined) return 'nil';
  switch (typeof data) {
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'number': return isGoInt(data) ? 'int' : 'float';
    default: return Array.isArray(data) ? 'slice' : 'map';
  }
}

/** The JSON type and Go format kube-openapi infers from a decoded value. */
function schemaInfo(kind: Kind): [string, string] {
  switch (kind) {
    case 'bool': return ['boolean', ''];
    case 'string': return ['string', ''];
    case 'int': return ['integer', 'int64'];
    case 'float': return ['number', 'float64'];
    case 'slice': return ['array', ''];
    default: return ['object', ''];
  }
}

function typesOf(node: Node, flavor: SchemaFlavor): readonly string[] {
  if (flavor === 'resource' && node.intOrString) return intOrStringTypes;
  return node.type === '' ? noTypes : [node.type];
}

const intOrStringTypes: readonly string[] = ['integer', 'string'];
const noTypes: readonly string[] = [];

function formatOf(node: Node, flavor: SchemaFlavor): string {
  return flavor === 'resource' ? supportedFormat(node.format) : node.format;
}

const maxJsonFloat = 2 ** 53 - 1;

/** swag.IsFloat64AJSONInteger: whole, or within a relative 1e-9 of a whole number (positive values, as on amd64). */
function isJsonInteger(value: number): boolean {
  if (!Number.isFinite(value) || value < -maxJsonFloat || value > maxJsonFloat) return false;
  if (Number.isInteger(value)) return true;
  if (value < 0) return false;
  const whole = Math.trunc(value);
  if (whole === 0) return false;
  return (value - whole) / (value + whole) < 1e-9;
}

function typeValidate(node: Node, data: unknown, kind: Kind, path: string, flavor: SchemaFlavor): Result {
  const types = typesOf(node, flavor);
  const format = formatOf(node, flavor);
  if (kind === 'nil') {
    if (types.length > 0 && !types.includes('null') && !node.nullable) return errorResult(invalidType(path, types.join(','), 'null'));
    return newResult(1);
  }
  const [schemaType, dataFormat] = schemaInfo(kind);
  const isFloatInt = schemaType === 'number' && isJsonInteger(data as number) && types.includes('integer');
  const isIntFloat = schemaType === 'integer' && types.includes('number');
  if (kind !== 'string' && kind !== 'slice' && format !== '' && !(types.includes(schemaType) || dataFormat === format || isFloatInt || isIntFloat)) {
    return errorResult(invalidType(path, format, dataFormat));
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && (kind === 'string' || kind === 'slice')) return newResult(1);
  if (!(types.includes(schemaType) || isFloatInt || isIntFloat)) return errorResult(invalidType(path, types.join(','), schemaType));
  return newResult(1);
}

function stringValidate(node: Node, data: string, path: string): Result | undefined {
  if (node.maxLength !== undefined || node.minLength !== undefined) {
    const length = runeCount(data);
    if (node.maxLength !== undefined && length > node.maxLength) {
      return errorResult({ code: 'tooLong', name: path, value: data, valid: node.maxLength, message: `${path} ${inBody} should be at most ${node.maxLength} chars long` });
    }
    if (node.minLength !== undefined && length < node.minLength) {
      return errorResult({ code: 'tooShort', name: path, value: data, valid: node.minLength, message: `${path} ${inBody} should be at least ${node.minLength} chars long` });
    }
  }
  if (node.pattern !== '') {
    const compiled = compileGoRegexp(node.pattern);
    if (compiled.regexp === undefined) {
      return errorResult({ code: 'pattern', name: path, value: data, message: `${path} ${inBody} should match '${node.pattern}, but pattern is invalid: ${compiled.error}'` });
    }
    if (!compiled.regexp.test(data)) return errorResult({ code: 'pattern', name: path, value: data, message: `${path} ${inBody} should match '${node.pattern}'` });
  }
  return undefined;
}

function runeCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

function formatValidate(format: string, data: string, path: string): Result | undefined {
  const validator = formatValidator(format);
  if (validator === undefined || validator(data)) return undefined;
  return errorResult(invalidType(path, format, data));
}

/** %v of a bound as kube-openapi prints it: int64(bound) for an integer value, the float64 otherwise. */
function bound(value: number, isInt: boolean): string {
  return isInt ? goInt64(value).toString() : goFloat(value);
}

function numberValidate(node: Node, data: number, kind: Kind, path: string): Result {
  const result = newResult();
  const isInt = kind === 'int';
  if (node.multipleOf !== undefined) {
    const factor = node.multipleOf;
    if (isInt) {
      const intFactor = goInt64(factor);
      if (intFactor <= 0n) {
        addError(result, { code: 'multipleOfPositive', name: path, value: intFactor, message: `factor MultipleOf declared for ${path} must be positive: ${intFactor}` });
      } else if (BigInt(data) % intFactor !== 0n) {
        addError(result, { code: 'multipleOf', name: path, value: data, message: `${path} ${inBody} should be a multiple of ${intFactor}` });
      }
    } else if (factor <= 0) {
      addError(result, { code: 'multipleOfPositive', name: path, value: factor, message: `factor MultipleOf declared for ${path} must be positive: ${goFloat(factor)}` });
    } else {
      const multiple = factor < 1 ? (1 / factor) * data : data / factor;
      if (!isJsonInteger(multiple)) addError(result, { code: 'multipleOf', name: path, value: data, message: `${path} ${inBody} should be a multiple of ${goFloat(factor)}` });
    }
  }
  if (node.minimum !== undefined) {
    const minimum = isInt ? Number(goInt64(node.minimum)) : node.minimum;
    if (node.exclusiveMinimum ? data <= minimum : data < minimum) {
      const wording = node.exclusiveMinimum ? 'should be greater than' : 'should be greater than or equal to';
      addError(result, { code: 'min', name: path, value: data, message: `${path} ${inBody} ${wording} ${bound(node.minimum, isInt)}` });
    }
  }
  if (node.maximum !== undefined) {
    const maximum = isInt ? Number(goInt64(node.maximum)) : node.maximum;
    if (node.exclusiveMaximum ? data >= maximum : data > maximum) {
      const wording = node.exclusiveMaximum ? 'should be less than' : 'should be less than or equal to';
      addError(result, { code: 'max', name: path, value: data, message: `${path} ${inBody} ${wording} ${bound(node.maximum, isInt)}` });
    }
  }
  result.count++;
  return result;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => deepEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => key in right && deepEqual(left[key], right[key]));
}

/**
 * Whether a value matches an enum entry as kube-openapi compares them: equal, or equal after Go's
 * reflect conversion to the entry's type (a float64 truncates to an int64 entry, an int64 becomes
 * a float64 or the one-rune string of its code point).
 */
function enumMatches(data: unknown, kind: Kind, entry: unknown): boolean {
  const entryKind = kindOf(entry);
  if (entryKind === 'nil') return false;
  if (kind === entryKind) return deepEqual(data, entry);
  const number = data as number;
  switch (entryKind) {
    case 'int': return kind === 'float' && Number(goInt64(number)) === entry;
    case 'float': return kind === 'int' && number === entry;
    case 'string': {
      if (kind !== 'int') return false;
      const rune = number >= 0 && number <= 0x10ffff && !(number >= 0xd800 && number <= 0xdfff) ? String.fromCodePoint(number) : '\ufffd';
      return rune === entry;
    }
    default: return false;
  }
}

function commonValidate(node: Node, data: unknown, kind: Kind, path: string): Result | undefined {
  const values = node.enum;
  if (values === undefined || values.length === 0) return undefined;
  if (kind !== 'nil') for (const entry of values) if (enumMatches(data, kind, entry)) return undefined;
  return errorResult({ code: 'enum', name: path, value: data, values, message: `${path} ${inBody} should be one of ${goJson(values)}` });
}

function sliceValidate(node: Node, data: readonly unknown[], path: string, flavor: SchemaFlavor): Result {
  const result = newResult();
  const items = node.items;
  if (items !== undefined) {
    for (let index = 0; index < data.length; index++) merge(result, validateSchema(items, data[index], `${path}[${index}]`, flavor));
  }
  const size = data.length;
  if (node.minItems !== undefined && size < node.minItems) {
    addError(result, { code: 'minItems', name: path, value: size, valid: node.minItems, message: `${path} ${inBody} should have at least ${node.minItems} items` });
  }
  if (node.maxItems !== undefined && size > node.maxItems) {
    addError(result, { code: 'maxItems', name: path, value: size, valid: node.maxItems, message: `${path} ${inBody} should have at most ${node.maxItems} items` });
  }
  if (node.uniqueItems) {
    const seen = new Set<string>();
    for (const item of data) {
      const key = goJson(item);
      if (seen.has(key)) {
        addError(result, { code: 'unique', name: path, message: `${path} ${inBody} shouldn't contain duplicates` });
        break;
      }
      seen.add(key);
    }
  }
  result.count++;
  return result;
}

function objectValidate(node: Node, data: Record<string, unknown>, path: string, flavor: SchemaFlavor): Result {
  const result = newResult();
  const keys = Object.keys(data);
  const size = keys.length;
  if (node.minProperties !== undefined && size < node.minProperties) {
    addError(result, { code: 'tooFewProperties', name: path, value: size, valid: node.minProperties, message: `${path} ${inBody} should have at least ${node.minProperties} properties` });
  }
  if (node.maxProperties !== undefined && size > node.maxProperties) {
    addError(result, { code: 'tooManyProperties', name: path, value: size, valid: node.maxProperties, message: `${path} ${inBody} should have at most ${node.maxProperties} properties` });
  }
  const properties = node.properties;
  const additional = node.additionalProperties;
  if (additional !== undefined && !additional.allows) {
    for (const key of keys) {
      if (properties?.has(key) !== true) addError(result, { code: 'unallowedProperty', name: path, value: key, message: `${path}.${key} ${inBody} is a forbidden property` });
    }
  } else if (additional?.schema !== undefined) {
    for (const key of keys) {
      if (properties?.has(key) !== true) merge(result, validateSchema(additional.schema, data[key], `${path}.${key}`, flavor));
    }
  }
  if (properties !== undefined) {
    for (const key of keys) {
      const property = properties.get(key);
      if (property !== undefined) merge(result, validateSchema(property, data[key], path === '' ? key : `${path}.${key}`, flavor));
    }
  }
  for (const key of node.required) {
    if (!Object.prototype.hasOwnProperty.call(data, key)) addError(result, { code: 'required', name: `${path}.${key}`, message: `${path}.${key} ${inBody} is required` });
  }
  return result;
}

function composite(message: string): OpenApiError {
  return { code: 'composite', name: '', message };
}

function schemaPropsValidate(node: Node, data: unknown, path: string, flavor: SchemaFlavor): Result {
  const main = newResult();
  const anyOf = node.anyOf;
  if (anyOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    for (const branch of anyOf) {
      const result = validateSchema(branch, data, path, flavor);
      if (result.errors.length === 0) {
        best = undefined;
        firstSuccess = result;
        break;
      }
      if (best === undefined || result.count > best.count) best = result;
    }
    if (firstSuccess === undefined) addError(main, composite(`${goQuote(path)} must validate at least one schema (anyOf)`));
    if (best !== undefined) merge(main, best);
    else merge(main, firstSuccess);
  }
  const oneOf = node.oneOf;
  if (oneOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let validated = 0;
    for (const branch of oneOf) {
      const result = validateSchema(branch, data, path, flavor);
      if (result.errors.length === 0) {
        validated++;
        best = undefined;
        firstSuccess ??= result;
        continue;
      }
      if (validated === 0 && (best === undefined || result.count > best.count)) best = result;
    }
    if (validated !== 1) {
      const detail = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      addError(main, composite(`${goQuote(path)} must validate one and only one schema (oneOf). ${detail}`));
      if (best !== undefined) merge(main, best);
    } else merge(main, firstSuccess);
  }
  const allOf = node.allOf;
  if (allOf.length > 0) {
    let validated = 0;
    for (const branch of allOf) {
      const result = validateSchema(branch, data, path, flavor);
      if (result.errors.length === 0) validated++;
      merge(main, result);
    }
    if (validated !== allOf.length) addError(main, composite(`${goQuote(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`));
  }
  const not = node.not;
  if (not !== undefined && validateSchema(not, data, path, flavor).errors.length === 0) addError(main, composite(`${goQuote(path)} must not validate the schema (not)`));
  main.count++;
  return main;
}

/** kube-openapi's SchemaValidator.Validate of one value at `path`. */
export function validateSchema(node: Node, data: unknown, path: string, flavor: SchemaFlavor): Result {
  const result = newResult();
  const kind = kindOf(data);
  if (kind === 'nil') {
    merge(result, typeValidate(node, data, kind, path, flavor));
    merge(result, commonValidate(node, data, kind, path));
    return result;
  }
  const format = formatOf(node, flavor);
  if (typesOf(node, flavor).length > 0 || format !== '') {
    merge(result, typeValidate(node, data, kind, path, flavor));
    result.count++;
  }
  merge(result, schemaPropsValidate(node, data, path, flavor));
  result.count++;
  if (kind === 'string') {
    merge(result, stringValidate(node, data as string, path));
    result.count++;
    if (formatValidator(format) !== undefined) {
      merge(result, formatValidate(format, data as string, path));
      result.count++;
    }
  }
  if (kind === 'int' || kind === 'float') {
    merge(result, numberValidate(node, data as number, kind, path));
    result.count++;
  }
  if (kind === 'slice') {
    merge(result, sliceValidate(node, data as unknown[], path, flavor));
    result.count++;
  }
  merge(result, commonValidate(node, data, kind, path));
  result.count++;
  if (kind === 'map') {
    merge(result, objectValidate(node, data as Record<string, unknown>, path, flavor));
    result.count++;
  }
  result.count++;
  return result;
}

function errorPath(base: string | undefined, name: string): string {
  const trimmed = name.startsWith('.') ? name.slice(1) : name;
  if (name === '' || name === '.') return fieldOf(base);
  return base === undefined || base === '' ? trimmed : `${base}.${trimmed}`;
}

/** kubeOpenAPIResultToFieldErrors: one cause per kube-openapi error, in order. */
function toCauses(errors: readonly OpenApiError[], base: string | undefined): StatusCause[] {
  return errors.map((error) => {
    if (error.code === 'composite') return invalidCause(fieldOf(base), '', error.message);
    const field = errorPath(base, error.name);
    const value = error.value ?? '';
    switch (error.code) {
      case 'required': return requiredCause(field);
      case 'enum': return notSupportedCause(field, error.value, (error.values ?? []).map((entry) => (typeof entry === 'string' ? entry : goJson(entry))));
      case 'tooLong': return tooLongCause(field, error.valid ?? -1);
      case 'maxItems':
      case 'tooManyProperties': return tooManyCause(field, typeof error.value === 'number' ? error.value : -1, error.valid ?? -1);
      case 'invalidType': return typeInvalidCause(field, value, error.message);
      default: return invalidCause(field, typeof value === 'bigint' ? Number(value) : value, error.message);
    }
  });
}

/** The causes kube-openapi's validation gives for `value` against `node`, errors on `base` (kube's fldPath; undefined is nil). */
export function openApiCauses(node: Node, value: unknown, base: string | undefined, flavor: SchemaFlavor): StatusCause[] {
  const result = validateSchema(node, value, '', flavor);
  return result.errors.length === 0 ? [] : toCauses(result.errors, base);
}

