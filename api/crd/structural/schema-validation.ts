// Owns: what a CustomResourceDefinition's `spec.versions[i].schema.openAPIV3Schema` is refused
// for on create (kube 1.33, apiextensions-apiserver validateCustomResourceDefinitionValidation):
// the status subresource's root restrictions, `nullable` at the root, the structural-schema
// rules (schema.ValidateStructural: types, items, metadata at the root, value validations in
// allOf/anyOf/oneOf/not, completeness; sorted as kube sorts them), defaults (valid, pruned,
// valid metadata inside resource meta), the OpenAPI keyword rules
// (ValidateCustomResourceDefinitionOpenAPISchema: unsupported keywords, list and map types,
// list-map keys, x-kubernetes-validations' static checks), and NewStructural's conversion
// errors — with kube's field paths (`….properties[spec].type`) and messages. CEL compilation and
// cost of x-kubernetes-validations rules are not part of it.
import type { StatusCause } from '../../status.ts';
import {
  childPath, fieldOf, forbiddenCause, GoText, goBadValue, goJson, goStrings, indexPath, invalidCause, notSupportedCause, requiredCause,
} from './field-errors.ts';
import { compileNode, isFields } from './node.ts';
import type { Fields, Node } from './node.ts';
import { coerceEmbeddedResources, embeddedResourcesCauses } from './objectmeta.ts';
import { openApiCauses } from './openapi-validation.ts';
import { pruneNode } from './prune.ts';
import { compileGoRegexp } from './regex.ts';

export interface SchemaCheckOptions {
  /** The version serves the status subresource: only some keywords are allowed at the root. */
  readonly statusSubresource?: boolean;
}

// ---- reading raw JSONSchemaProps ---------------------------------------------------------------

function text(raw: Fields, key: string): string {
  const value = raw[key];
  return typeof value === 'string' ? value : '';
}

function list(raw: Fields, key: string): unknown[] {
  const value = raw[key];
  return Array.isArray(value) ? value : [];
}

function schemas(raw: Fields, key: string): Fields[] {
  return list(raw, key).map((item) => (isFields(item) ? item : {}));
}

function fields(raw: Fields, key: string): Fields | undefined {
  const value = raw[key];
  return isFields(value) ? value : undefined;
}

function hasDefault(raw: Fields): boolean {
  return raw['default'] !== undefined && raw['default'] !== null;
}

function stringsOf(raw: Fields, key: string): string[] {
  return list(raw, key).filter((item): item is string => typeof item === 'string');
}

/** A pointer field of the Go struct is set (the key is present with a value). */
function present(raw: Fields, key: string): boolean {
  return raw[key] !== undefined && raw[key] !== null;
}

/** The structural Properties map: only a non-empty properties object counts. */
function structuralProperties(raw: Fields): [string, Fields][] {
  const properties = fields(raw, 'properties');
  return properties === undefined ? [] : Object.entries(properties).map(([name, value]) => [name, isFields(value) ? value : {}]);
}

/** A declared property's schema (an empty schema for a malformed one). */
function propertyNamed(raw: Fields, name: string): Fields | undefined {
  const property = fields(raw, 'properties')?.[name];
  return property === undefined ? undefined : isFields(property) ? property : {};
}

function propertiesPath(path: string, name: string): string {
  return indexPath(childPath(path, 'properties'), name);
}

// ---- NewStructural's conversion errors -----------------------------------------------------------

/** The first error structuralschema.NewStructural returns for the schema, if any. */
function newStructuralError(raw: Fields): string | undefined {
  if (text(raw, 'id') !== '') return "OpenAPIV3Schema 'id' is not supported";
  if (text(raw, '$schema') !== '') return "OpenAPIV3Schema 'schema' is not supported";
  if (text(raw, '$ref') !== '') return "OpenAPIV3Schema '$ref' is not supported";
  if (Object.keys(fields(raw, 'patternProperties') ?? {}).length > 0) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (Object.keys(fields(raw, 'dependencies') ?? {}).length > 0) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (present(raw, 'additionalItems')) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (Object.keys(fields(raw, 'definitions') ?? {}).length > 0) return "OpenAPIV3Schema 'definitions' is not supported";
  const not = fields(raw, 'not');
  if (not !== undefined) {
    const error = newStructuralError(not);
    if (error !== undefined) return error;
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const branch of schemas(raw, key)) {
      const error = newStructuralError(branch);
      if (error !== undefined) return error;
    }
  }
  if (raw['x-kubernetes-preserve-unknown-fields'] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  const items = raw['items'];
  if (Array.isArray(items) && items.length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  if (isFields(items)) {
    const error = newStructuralError(items);
    if (error !== undefined) return error;
  }
  for (const [, property] of structuralProperties(raw)) {
    const error = newStructuralError(property);
    if (error !== undefined) return error;
  }
  const additional = fields(raw, 'additionalProperties');
  return additional === undefined ? undefined : newStructuralError(additional);
}

// ---- schema.ValidateStructural ---------------------------------------------------------------

type Level = 'root' | 'item' | 'field';

/** The anyOf of x-kubernetes-int-or-string kube lets carry types: exactly [{type: integer}, {type: string}]. */
function isIntOrStringAnyOf(anyOf: readonly unknown[]): boolean {
  if (anyOf.length !== 2) return false;
  return (['integer', 'string'] as const).every((type, index) => {
    const branch = anyOf[index];
    if (!isFields(branch) || branch['type'] !== type) return false;
    return Object.keys(branch).every((key) => key === 'type' || key === 'example' || key === 'externalDocs' || !isSetInNested(branch, key));
  });
}

/** Whether a keyword is set in the Go NestedValueValidation kube builds (nil and zero values are not). */
function isSetInNested(raw: Fields, key: string): boolean {
  const value = raw[key];
  if (value === undefined || value === null) return false;
  switch (key) {
    case 'enum': case 'allOf': case 'anyOf': case 'oneOf': return Array.isArray(value) && value.length > 0;
    case 'additionalProperties': return value !== false;
    case 'x-kubernetes-list-map-keys': case 'x-kubernetes-validations': return Array.isArray(value) && value.length > 0;
    default:
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string') return value !== '' || key === 'x-kubernetes-list-type' || key === 'x-kubernetes-map-type';
      return true;
  }
}

function structuralInvariants(raw: Fields, level: Level, path: string, causes: StatusCause[]): void {
  const type = text(raw, 'type');
  const items = fields(raw, 'items');
  if (type === 'array' && items === undefined) causes.push(requiredCause(childPath(path, 'items'), 'must be specified'));
  if (items !== undefined) structuralInvariants(items, 'item', childPath(path, 'items'), causes);
  const properties = structuralProperties(raw);
  for (const [name, property] of properties) structuralInvariants(property, 'field', propertiesPath(path, name), causes);
  const additionalRaw = raw['additionalProperties'];
  const hasAdditional = typeof additionalRaw === 'boolean' || isFields(additionalRaw);
  if (hasAdditional) {
    if (level === 'root') causes.push(forbiddenCause(childPath(path, 'additionalProperties'), 'must not be used at the root'));
    if (isFields(additionalRaw)) structuralInvariants(additionalRaw, 'field', childPath(path, 'additionalProperties'), causes);
  }
  const preserve = raw['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = raw['x-kubernetes-embedded-resource'] === true;
  const intOrString = raw['x-kubernetes-int-or-string'] === true;
  if (intOrString && preserve) causes.push(invalidCause(childPath(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) causes.push(invalidCause(childPath(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  const anyOf = list(raw, 'anyOf');
  const allOf = list(raw, 'allOf');
  const skipAnyOf = isIntOrStringAnyOf(anyOf);
  const skipFirstAllOfAnyOf = allOf.length >= 1 && isFields(allOf[0]) && isIntOrStringAnyOf(list(allOf[0], 'anyOf'));
  valueValidation(raw, skipAnyOf, skipFirstAllOfAnyOf, path, causes);
  const checkMetadata = level === 'root' || embedded;
  if (embedded && type !== 'object') {
    if (type === '') causes.push(requiredCause(childPath(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else causes.push(invalidCause(childPath(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const detail = level === 'root' ? 'must not be empty at the root' : level === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    causes.push(requiredCause(childPath(path, 'type'), detail));
  }
  if (embedded && hasAdditional) causes.push(forbiddenCause(childPath(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (level === 'root' && type !== '' && type !== 'object') causes.push(invalidCause(childPath(path, 'type'), type, 'must be object at the root'));
  for (const name of ['kind', 'apiVersion']) {
    const property = propertyNamed(raw, name);
    if (property !== undefined && checkMetadata && text(property, 'type') !== 'string') {
      causes.push(invalidCause(childPath(propertiesPath(path, name), 'type'), text(property, 'type'), 'must be string'));
    }
  }
  const metadata = propertyNamed(raw, 'metadata');
  if (metadata !== undefined) metadataInvariants(metadata, checkMetadata, level, propertiesPath(path, 'metadata'), causes);
  if (embedded && !preserve && properties.length === 0) {
    causes.push(requiredCause(childPath(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** What may be set on `metadata` at the root besides type, default and name/generateName properties: nothing. */
const metadataIgnored = new Set(['type', 'default', 'example', 'externalDocs', 'properties']);

function metadataInvariants(raw: Fields, checkMetadata: boolean, level: Level, path: string, causes: StatusCause[]): void {
  if (checkMetadata && text(raw, 'type') !== 'object') causes.push(invalidCause(childPath(path, 'type'), text(raw, 'type'), 'must be object'));
  if (level !== 'root') return;
  const names = structuralProperties(raw).map(([name]) => name);
  const onlyNames = (names.length === 2 && names.includes('name') && names.includes('generateName'))
    || (names.length === 1 && (names[0] === 'name' || names[0] === 'generateName'));
  const otherSet = Object.keys(raw).some((key) => !metadataIgnored.has(key) && isSetInMetadata(raw, key));
  if ((names.length > 0 && !onlyNames) || otherSet) {
    causes.push(forbiddenCause(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

/** Whether a keyword makes the root metadata's Structural differ from the empty one (slices set even when empty). */
function isSetInMetadata(raw: Fields, key: string): boolean {
  const value = raw[key];
  if (value === undefined || value === null) return false;
  if (key === 'required' || key === 'x-kubernetes-list-map-keys' || key === 'x-kubernetes-validations') return Array.isArray(value);
  if (key === 'enum' || key === 'allOf' || key === 'anyOf' || key === 'oneOf') return Array.isArray(value) && value.length > 0;
  if (key === 'additionalProperties' || key === 'items' || key === 'not') return true;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value !== '' || key === 'x-kubernetes-list-type' || key === 'x-kubernetes-map-type';
  return true;
}

function valueValidation(raw: Fields, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string, causes: StatusCause[]): void {
  if (!skipAnyOf) schemas(raw, 'anyOf').forEach((branch, index) => nestedValueValidation(branch, false, indexPath(childPath(path, 'anyOf'), index), causes));
  schemas(raw, 'allOf').forEach((branch, index) => nestedValueValidation(branch, skipFirstAllOfAnyOf && index === 0, indexPath(childPath(path, 'allOf'), index), causes));
  schemas(raw, 'oneOf').forEach((branch, index) => nestedValueValidation(branch, false, indexPath(childPath(path, 'oneOf'), index), causes));
  const not = fields(raw, 'not');
  if (not !== undefined) nestedValueValidation(not, false, childPath(path, 'not'), causes);
  const pattern = text(raw, 'pattern');
  if (pattern !== '') {
    const compiled = compileGoRegexp(pattern);
    if (compiled.error !== undefined) causes.push(invalidCause(childPath(path, 'pattern'), pattern, `must be a valid regular expression, but isn't: ${compiled.error}`));
  }
}

function nestedValueValidation(raw: Fields, skipAnyOf: boolean, path: string, causes: StatusCause[]): void {
  valueValidation(raw, skipAnyOf, false, path, causes);
  const items = fields(raw, 'items');
  if (items !== undefined) nestedValueValidation(items, false, childPath(path, 'items'), causes);
  const properties = fields(raw, 'properties');
  for (const [name, property] of Object.entries(properties ?? {})) nestedValueValidation(isFields(property) ? property : {}, false, propertiesPath(path, name), causes);
  if (text(raw, 'type') !== '') causes.push(forbiddenCause(childPath(path, 'type'), 'must be empty to be structural'));
  if (isSetInNested(raw, 'additionalProperties')) causes.push(forbiddenCause(childPath(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (hasDefault(raw)) causes.push(forbiddenCause(childPath(path, 'default'), 'must be undefined to be structural'));
  if (text(raw, 'title') !== '') causes.push(forbiddenCause(childPath(path, 'title'), 'must be empty to be structural'));
  if (text(raw, 'description') !== '') causes.push(forbiddenCause(childPath(path, 'description'), 'must be empty to be structural'));
  if (raw['nullable'] === true) causes.push(forbiddenCause(childPath(path, 'nullable'), 'must be false to be structural'));
  if (raw['x-kubernetes-preserve-unknown-fields'] === true) causes.push(forbiddenCause(childPath(path, 'x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  if (raw['x-kubernetes-embedded-resource'] === true) causes.push(forbiddenCause(childPath(path, 'x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (raw['x-kubernetes-int-or-string'] === true) causes.push(forbiddenCause(childPath(path, 'x-kubernetes-int-or-string'), 'must be false to be structural'));
  if (isSetInNested(raw, 'x-kubernetes-list-map-keys')) causes.push(forbiddenCause(childPath(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (typeof raw['x-kubernetes-list-type'] === 'string') causes.push(forbiddenCause(childPath(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (typeof raw['x-kubernetes-map-type'] === 'string') causes.push(forbiddenCause(childPath(path, 'x-kubernetes-map-type'), 'must be undefined to be structural'));
  if (isSetInNested(raw, 'x-kubernetes-validations')) causes.push(forbiddenCause(childPath(path, 'x-kubernetes-validations'), 'must be empty to be structural'));
  if (properties !== undefined && 'metadata' in properties) causes.push(forbiddenCause(propertiesPath(path, 'metadata'), 'must not be specified in a nested context'));
}

/** validateStructuralCompleteness: every property and items a value validation names must be specified by the structural schema. */
function completeness(raw: Fields, structural: Fields | undefined, structuralPath: string, validationPath: string, causes: StatusCause[]): void {
  const not = fields(raw, 'not');
  if (not !== undefined) nestedCompleteness(not, structural, structuralPath, childPath(validationPath, 'not'), causes);
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    schemas(raw, key).forEach((branch, index) => nestedCompleteness(branch, structural, structuralPath, indexPath(childPath(validationPath, key), index), causes));
  }
}

function nestedCompleteness(raw: Fields, structural: Fields | undefined, structuralPath: string, validationPath: string, causes: StatusCause[]): void {
  if (structural === undefined) {
    causes.push(requiredCause(structuralPath, `because it is defined in ${validationPath}`));
    return;
  }
  completeness(raw, structural, structuralPath, validationPath, causes);
  const items = fields(raw, 'items');
  if (items !== undefined) nestedCompleteness(items, fields(structural, 'items'), childPath(structuralPath, 'items'), childPath(validationPath, 'items'), causes);
  const declared = new Map(structuralProperties(structural));
  for (const [name, property] of Object.entries(fields(raw, 'properties') ?? {})) {
    const structuralProperty = declared.get(name);
    if (structuralProperty === undefined) {
      causes.push(requiredCause(propertiesPath(structuralPath, name), `because it is defined in ${propertiesPath(validationPath, name)}`));
    } else {
      nestedCompleteness(isFields(property) ? property : {}, structuralProperty, propertiesPath(structuralPath, name), propertiesPath(validationPath, name), causes);
    }
  }
}

/** field.Error's Error(): what kube sorts ValidateStructural's errors by. */
function errorText(cause: StatusCause): string {
  return `${cause.field ?? ''}: ${cause.message ?? ''}`;
}

function validateStructural(raw: Fields, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  structuralInvariants(raw, 'root', path, causes);
  completeness(raw, raw, path, path, causes);
  return causes
    .map((cause) => [errorText(cause), cause] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, cause]) => cause);
}

// ---- defaults (structuraldefaulting.ValidateDefaults) -------------------------------------------

type Step = string | number;

/** The surrounding object of a default inside resource meta: the steps from the embedded resource, wrapped, with TypeMeta filled in. */
function surroundingObject(steps: readonly Step[], value: unknown): Fields | undefined {
  let wrapped: unknown = value;
  for (let index = steps.length - 1; index >= 0; index--) {
    const step = steps[index]!;
    wrapped = typeof step === 'number' ? [wrapped] : { [step]: wrapped };
  }
  if (!isFields(wrapped)) return undefined;
  if (!('kind' in wrapped)) wrapped['kind'] = 'Validation';
  if (!('apiVersion' in wrapped)) wrapped['apiVersion'] = 'validation/v1';
  return wrapped;
}

function fieldErrorText(cause: StatusCause): string {
  return `${cause.field ?? '<nil>'}: ${cause.message ?? ''}`;
}

/** utilerrors' aggregate message: one error as is, several (distinct) in brackets. */
function aggregateText(causes: readonly StatusCause[]): string {
  const messages = [...new Set(causes.map(fieldErrorText))];
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

function copy(value: unknown): unknown {
  return value === null || typeof value !== 'object' ? value : structuredClone(value);
}

interface DefaultsWalk {
  readonly causes: StatusCause[];
  /** An internal error (kube: "failed to validate default value inside metadata"). */
  error?: string;
}

/** The steps from the surrounding embedded resource: a linked list, shared by siblings. */
interface Steps {
  readonly step: Step;
  readonly parent: Steps | undefined;
}

function stepList(steps: Steps | undefined): Step[] {
  const out: Step[] = [];
  for (let current = steps; current !== undefined; current = current.parent) out.push(current.step);
  return out.reverse();
}

function validateDefaults(raw: Fields, path: string, root: Fields, steps: Steps | undefined, insideMeta: boolean, isRootCall: boolean, walk: DefaultsWalk): void {
  let rootNode: Fields = root;
  let surroundingSteps = steps;
  let inside = insideMeta;
  const embedded = raw['x-kubernetes-embedded-resource'] === true || isRootCall;
  if (embedded) {
    inside = false;
    surroundingSteps = undefined;
    rootNode = raw;
  }
  if (hasDefault(raw)) {
    const node = compileNode(raw);
    const value = raw['default'];
    const defaultPath = childPath(path, 'default');
    if (inside) {
      const object = surroundingObject(stepList(surroundingSteps), copy(value));
      if (object === undefined) {
        walk.error ??= 'failed to validate default value inside metadata: object root default value must be of object type';
        return;
      }
      const embeddedRoot = compileNode(rootNode);
      const coerced = coerceEmbeddedResources(embeddedRoot, object, '', true);
      if (coerced.error !== undefined) {
        walk.causes.push(invalidCause(defaultPath, value, `must result in valid metadata: ${fieldErrorText(coerced.error)}`));
      } else {
        const metaCauses = embeddedResourcesCauses(embeddedRoot, object, '', true);
        if (metaCauses.length > 0) walk.causes.push(invalidCause(defaultPath, value, `must result in valid metadata: ${aggregateText(metaCauses)}`));
        else walk.causes.push(...openApiCauses(node, value, defaultPath, 'default'));
      }
    } else {
      const pruned = copy(value);
      pruneNode(node, pruned, embedded);
      if (goJson(pruned) !== goJson(value)) walk.causes.push(invalidCause(defaultPath, value, 'must not have unknown fields'));
      const coerced = coerceEmbeddedResources(node, copy(value), defaultPath, embedded);
      if (coerced.error !== undefined) walk.causes.push(coerced.error);
      else {
        const metaCauses = embeddedResourcesCauses(node, value, defaultPath, embedded);
        if (metaCauses.length > 0) walk.causes.push(...metaCauses);
        else walk.causes.push(...openApiCauses(node, value, defaultPath, 'default'));
      }
    }
  }
  const items = fields(raw, 'items');
  if (items !== undefined) validateDefaults(items, childPath(path, 'items'), rootNode, { step: 0, parent: surroundingSteps }, inside, false, walk);
  const properties = fields(raw, 'properties');
  if (properties === undefined) return;
  for (const name in properties) {
    const property = properties[name];
    const subInside = inside || (embedded && (name === 'metadata' || name === 'apiVersion' || name === 'kind'));
    validateDefaults(isFields(property) ? property : {}, propertiesPath(path, name), rootNode, { step: name, parent: surroundingSteps }, subInside, false, walk);
  }
}

// ---- ValidateCustomResourceDefinitionOpenAPISchema ---------------------------------------------

interface SchemaContext {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
}

const openapiTypes = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const validationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const newlines = /[\n\r]+/;

function forbidDefaults(context: SchemaContext, reason: string): SchemaContext {
  return { ...context, allowDefaults: false, disallowDefaultsReason: reason };
}

/** %#v of the internal JSONSchemaPropsOrArray kube prints for an `items` list. */
function goItems(items: readonly unknown[]): GoText {
  return new GoText(`apiextensions.JSONSchemaPropsOrArray{Schema:(*apiextensions.JSONSchemaProps)(nil), JSONSchemas:[]apiextensions.JSONSchemaProps{${items.map(() => 'apiextensions.JSONSchemaProps{…}').join(', ')}}}`);
}

function standardCauses(raw: Fields, path: string, context: SchemaContext, causes: StatusCause[]): void {
  const type = text(raw, 'type');
  if (type !== '' && !openapiTypes.includes(type)) causes.push(notSupportedCause(childPath(path, 'type'), type, openapiTypes));
  if (hasDefault(raw) && !context.allowDefaults) {
    causes.push(forbiddenCause(childPath(path, 'default'), `must not be set${context.disallowDefaultsReason === '' ? '' : ` ${context.disallowDefaultsReason}`}`));
  }
  if (text(raw, 'id') !== '') causes.push(forbiddenCause(childPath(path, 'id'), 'id is not supported'));
  if (present(raw, 'additionalItems')) causes.push(forbiddenCause(childPath(path, 'additionalItems'), 'additionalItems is not supported'));
  if (Object.keys(fields(raw, 'patternProperties') ?? {}).length > 0) causes.push(forbiddenCause(childPath(path, 'patternProperties'), 'patternProperties is not supported'));
  if (Object.keys(fields(raw, 'definitions') ?? {}).length > 0) causes.push(forbiddenCause(childPath(path, 'definitions'), 'definitions is not supported'));
  if (present(raw, 'dependencies')) causes.push(forbiddenCause(childPath(path, 'dependencies'), 'dependencies is not supported'));
  if (typeof raw['$ref'] === 'string') causes.push(forbiddenCause(childPath(path, '$ref'), '$ref is not supported'));
  if (type === 'null') causes.push(forbiddenCause(childPath(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  const items = raw['items'];
  if (Array.isArray(items) && items.length > 0) causes.push(forbiddenCause(childPath(path, 'items'), 'items must be a schema object and not an array'));
  if (context.insideResourceMeta && raw['x-kubernetes-embedded-resource'] === true) {
    causes.push(forbiddenCause(childPath(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
}

/** Splits a validation rule's fieldPath as kube's ValidFieldPath scanner does ('.', '[', ']' and quoted strings). */
function fieldPathTokens(fieldPath: string): string[] {
  const tokens: string[] = [];
  let index = 0;
  while (index < fieldPath.length) {
    if (fieldPath[index] === "'") {
      let end = index + 1;
      while (end < fieldPath.length && !(fieldPath[end] === "'" && fieldPath[end - 1] !== '\\')) end++;
      tokens.push(fieldPath.slice(index, end + 1));
      index = end + 1;
      continue;
    }
    if ('.[]'.includes(fieldPath[index]!)) {
      tokens.push(fieldPath[index]!);
      index++;
      continue;
    }
    let end = index;
    while (end < fieldPath.length && !'.[]'.includes(fieldPath[end]!)) end++;
    tokens.push(fieldPath.slice(index, end));
    index = end;
  }
  return tokens;
}

function unescapeSingleQuoted(text: string): string | undefined {
  let failed = false;
  const escapes: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };
  const result = text.replace(/\\./g, (match) => {
    const replacement = escapes[match[1]!];
    if (replacement === undefined) failed = true;
    return replacement ?? '';
  });
  return failed ? undefined : result;
}

/** cel.ValidFieldPath: the path names existing properties (or map keys) of the schema. */
function validFieldPath(fieldPath: string, raw: Fields): boolean {
  if (newStructuralError(raw) !== undefined) return true;
  let node: Node | undefined = compileNode(raw);
  const tokens = fieldPathTokens(fieldPath);
  let index = 0;
  const step = (name: string): boolean => {
    if (node === undefined) return false;
    const properties: ReadonlyMap<string, Node> | undefined = node.properties !== undefined && node.properties.size > 0 ? node.properties : undefined;
    if (properties !== undefined) {
      node = properties.get(name);
      return node !== undefined;
    }
    if (node.additionalProperties !== undefined) {
      node = node.additionalProperties.schema;
      return true;
    }
    return false;
  };
  while (index < tokens.length) {
    const token = tokens[index++]!;
    if (token === '[') {
      const quoted = tokens[index++];
      if (quoted === undefined || quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return false;
      const name = unescapeSingleQuoted(quoted.slice(1, -1));
      if (name === undefined || !step(name)) return false;
      if (tokens[index++] !== ']') return false;
    } else if (token === '.') {
      const name = tokens[index++];
      if (name === undefined || !step(name)) return false;
    } else return false;
  }
  return true;
}

function validationRuleCauses(raw: Fields, path: string, causes: StatusCause[]): void {
  list(raw, 'x-kubernetes-validations').forEach((entry, index) => {
    const rule = isFields(entry) ? entry : {};
    const rulePath = indexPath(childPath(path, 'x-kubernetes-validations'), index);
    const ruleText = text(rule, 'rule');
    const message = text(rule, 'message');
    const messageExpression = text(rule, 'messageExpression');
    const trimmedRule = ruleText.trim();
    const trimmedMessage = message.trim();
    if (trimmedRule === '') causes.push(requiredCause(childPath(rulePath, 'rule'), 'rule is not specified'));
    else if (message !== '' && trimmedMessage === '') causes.push(invalidCause(childPath(rulePath, 'message'), message, 'message must be non-empty if specified'));
    else if (newlines.test(trimmedMessage)) causes.push(invalidCause(childPath(rulePath, 'message'), message, 'message must not contain line breaks'));
    else if (newlines.test(trimmedRule) && trimmedMessage === '') causes.push(requiredCause(childPath(rulePath, 'message'), 'message must be specified if rule contains line breaks'));
    if (messageExpression !== '' && messageExpression.trim() === '') {
      causes.push(requiredCause(childPath(rulePath, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (typeof rule['reason'] === 'string' && !validationReasons.includes(rule['reason'])) {
      causes.push(notSupportedCause(childPath(rulePath, 'reason'), rule['reason'], validationReasons));
    }
    const fieldPath = text(rule, 'fieldPath');
    if (fieldPath !== '' && fieldPath.trim() === '') causes.push(invalidCause(childPath(rulePath, 'fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (newlines.test(fieldPath)) causes.push(invalidCause(childPath(rulePath, 'fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath !== '' && !validFieldPath(fieldPath, raw)) causes.push(invalidCause(childPath(rulePath, 'fieldPath'), fieldPath, 'fieldPath must be a valid path'));
  });
}

function listAndMapTypeCauses(raw: Fields, path: string, causes: StatusCause[]): void {
  const type = text(raw, 'type');
  const mapType = typeof raw['x-kubernetes-map-type'] === 'string' ? raw['x-kubernetes-map-type'] : undefined;
  const listType = typeof raw['x-kubernetes-list-type'] === 'string' ? raw['x-kubernetes-list-type'] : undefined;
  const itemsRaw = raw['items'];
  const items = isFields(itemsRaw) ? itemsRaw : undefined;
  if (mapType !== undefined && type !== 'object') {
    if (type === '') causes.push(requiredCause(childPath(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else causes.push(invalidCause(childPath(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    causes.push(notSupportedCause(childPath(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && type !== 'array') {
    if (type === '') causes.push(requiredCause(childPath(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else causes.push(invalidCause(childPath(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items !== undefined) {
    const itemsListType = typeof items['x-kubernetes-list-type'] === 'string' ? items['x-kubernetes-list-type'] : undefined;
    const itemsPath = childPath(path, 'items');
    if (text(items, 'type') === 'array') {
      if (itemsListType !== undefined && itemsListType !== 'atomic') {
        causes.push(invalidCause(childPath(itemsPath, 'x-kubernetes-list-type'), itemsListType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
      }
    } else if (text(items, 'type') === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // kube reports the items' list type here (nil: "null").
      causes.push(invalidCause(childPath(itemsPath, 'x-kubernetes-map-type'), itemsListType ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    causes.push(notSupportedCause(childPath(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  const keys = stringsOf(raw, 'x-kubernetes-list-map-keys');
  if (keys.length > 0) {
    if (listType === undefined) causes.push(requiredCause(childPath(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') causes.push(invalidCause(childPath(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (keys.length === 0) causes.push(requiredCause(childPath(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (itemsRaw === undefined || itemsRaw === null) causes.push(requiredCause(childPath(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(itemsRaw)) causes.push(invalidCause(childPath(path, 'items'), goItems(itemsRaw), 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items !== undefined && text(items, 'type') !== 'object') {
      causes.push(invalidCause(childPath(childPath(path, 'items'), 'type'), text(items, 'type'), "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items !== undefined && text(items, 'type') === 'object') {
      const itemProperties = fields(items, 'properties') ?? {};
      const seen = new Set<string>();
      for (const key of keys) {
        const property = itemProperties[key];
        if (property !== undefined) {
          const keyType = isFields(property) ? text(property, 'type') : '';
          if (keyType === 'array' || keyType === 'object') {
            causes.push(invalidCause(childPath(propertiesPath(childPath(path, 'items'), key), 'type'), text(items, 'type'), "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          causes.push(invalidCause(childPath(path, 'x-kubernetes-list-map-keys'), new GoText(goStrings(keys)), 'entries must all be names of item properties'));
        }
        if (seen.has(key)) causes.push(invalidCause(childPath(path, 'x-kubernetes-list-map-keys'), new GoText(goStrings(keys)), 'must not contain duplicate entries'));
        seen.add(key);
      }
    }
  }
  // validateMapListKeysMapSet
  if (items !== undefined && (listType === 'set' || listType === 'map')) {
    const itemsPath = childPath(path, 'items');
    if (items['nullable'] === true) causes.push(forbiddenCause(childPath(itemsPath, 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === 'map') {
      const required = new Set(stringsOf(items, 'required'));
      const itemProperties = fields(items, 'properties') ?? {};
      for (const key of keys) {
        const property = itemProperties[key];
        if (property === undefined) continue;
        const propertyRaw = isFields(property) ? property : {};
        if (!required.has(key) && !present(propertyRaw, 'default')) {
          causes.push(requiredCause(childPath(propertiesPath(itemsPath, key), 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
        if (propertyRaw['nullable'] === true) {
          causes.push(forbiddenCause(childPath(propertiesPath(itemsPath, key), 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
        }
      }
    }
  }
}

function openApiSchemaCauses(raw: Fields, path: string, context: SchemaContext, isRoot: boolean, causes: StatusCause[]): void {
  standardCauses(raw, path, context, causes);
  if (raw['uniqueItems'] === true) causes.push(forbiddenCause(childPath(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const additional = raw['additionalProperties'];
  const properties = Object.entries(fields(raw, 'properties') ?? {});
  if (typeof additional === 'boolean' || isFields(additional)) {
    if (properties.length > 0 && (additional === false || isFields(additional))) {
      causes.push(forbiddenCause(childPath(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (isFields(additional)) {
      const sub = context.insideResourceMeta ? forbidDefaults(context, 'inside additionalProperties applying to object metadata') : context;
      openApiSchemaCauses(additional, childPath(path, 'additionalProperties'), sub, false, causes);
    }
  }
  const embedded = raw['x-kubernetes-embedded-resource'] === true;
  for (const [name, property] of properties) {
    let sub = context;
    if ((isRoot || embedded) && (name === 'metadata' || name === 'kind' || name === 'apiVersion')) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = forbidDefaults(sub, `in top-level ${name}`);
    }
    openApiSchemaCauses(isFields(property) ? property : {}, propertiesPath(path, name), sub, false, causes);
  }
  const not = fields(raw, 'not');
  if (not !== undefined) openApiSchemaCauses(not, childPath(path, 'not'), context, false, causes);
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    schemas(raw, key).forEach((branch, index) => openApiSchemaCauses(branch, indexPath(childPath(path, key), index), context, false, causes));
  }
  for (const [name, definition] of Object.entries(fields(raw, 'definitions') ?? {})) {
    openApiSchemaCauses(isFields(definition) ? definition : {}, indexPath(childPath(path, 'definitions'), name), context, false, causes);
  }
  const items = raw['items'];
  if (isFields(items)) openApiSchemaCauses(items, childPath(path, 'items'), context, false, causes);
  else if (Array.isArray(items)) items.forEach((item, index) => openApiSchemaCauses(isFields(item) ? item : {}, indexPath(childPath(path, 'items'), index), context, false, causes));
  for (const [name, dependency] of Object.entries(fields(raw, 'dependencies') ?? {})) {
    if (isFields(dependency)) openApiSchemaCauses(dependency, indexPath(childPath(path, 'dependencies'), name), context, false, causes);
  }
  if (raw['x-kubernetes-preserve-unknown-fields'] === false) {
    causes.push(invalidCause(childPath(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  listAndMapTypeCauses(raw, path, causes);
  validationRuleCauses(raw, path, causes);
}

// ---- the status subresource's root ---------------------------------------------------------------

/** The internal JSONSchemaProps fields in Go's order, with the JSON keyword each comes from. */
const goFieldOrder: readonly (readonly [string, string])[] = [
  ['ID', 'id'], ['Schema', '$schema'], ['Ref', '$ref'], ['Description', 'description'], ['Type', 'type'], ['Nullable', 'nullable'],
  ['Format', 'format'], ['Title', 'title'], ['Default', 'default'], ['Maximum', 'maximum'], ['ExclusiveMaximum', 'exclusiveMaximum'],
  ['Minimum', 'minimum'], ['ExclusiveMinimum', 'exclusiveMinimum'], ['MaxLength', 'maxLength'], ['MinLength', 'minLength'],
  ['Pattern', 'pattern'], ['MaxItems', 'maxItems'], ['MinItems', 'minItems'], ['UniqueItems', 'uniqueItems'], ['MultipleOf', 'multipleOf'],
  ['Enum', 'enum'], ['MaxProperties', 'maxProperties'], ['MinProperties', 'minProperties'], ['Required', 'required'], ['Items', 'items'],
  ['AllOf', 'allOf'], ['OneOf', 'oneOf'], ['AnyOf', 'anyOf'], ['Not', 'not'], ['Properties', 'properties'],
  ['AdditionalProperties', 'additionalProperties'], ['PatternProperties', 'patternProperties'], ['Dependencies', 'dependencies'],
  ['AdditionalItems', 'additionalItems'], ['Definitions', 'definitions'], ['ExternalDocs', 'externalDocs'], ['Example', 'example'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'], ['XEmbeddedResource', 'x-kubernetes-embedded-resource'],
  ['XIntOrString', 'x-kubernetes-int-or-string'], ['XListMapKeys', 'x-kubernetes-list-map-keys'], ['XListType', 'x-kubernetes-list-type'],
  ['XMapType', 'x-kubernetes-map-type'], ['XValidations', 'x-kubernetes-validations'],
];

const allowedAtStatusRoot = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength',
  'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example',
  'XPreserveUnknownFields', 'XValidations'];

function isNonZero(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isFields(value)) return true;
  return true;
}

/** An approximation of %#v of the internal JSONSchemaProps (Go prints pointers as addresses, which no one can match). */
function goSchemaProps(raw: Fields): GoText {
  const parts = goFieldOrder.filter(([, key]) => isNonZero(raw[key])).map(([name, key]) => {
    const value = raw[key];
    return `${name}:${typeof value === 'string' || typeof value === 'boolean' ? goBadValue(value) : typeof value === 'number' ? `(*float64)(0xc000000000)` : '…'}`;
  });
  return new GoText(`apiextensions.JSONSchemaProps{${parts.join(', ')}}`);
}

function statusRootCauses(raw: Fields, path: string): StatusCause[] {
  for (const [name, key] of goFieldOrder) {
    if (!isNonZero(raw[key])) continue;
    if (name === 'Type') {
      if (raw[key] !== 'object') return [invalidCause(childPath(path, 'type'), raw[key], 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      continue;
    }
    if (!allowedAtStatusRoot.includes(name)) {
      return [invalidCause(path, goSchemaProps(raw), `only [${allowedAtStatusRoot.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`)];
    }
  }
  return [];
}

// ---- the entry point -------------------------------------------------------------------------

/**
 * Why kube refuses a CRD version's `openAPIV3Schema` on create (field paths under `fieldPath`,
 * e.g. `spec.versions[0].schema.openAPIV3Schema`), in kube's order: the status subresource's
 * root rule, `nullable` at the root, the structural rules (or, when those pass, the defaults'),
 * the OpenAPI keyword rules, and — only when nothing else is wrong — NewStructural's error.
 * The x-kubernetes-validations rules' CEL compilation and cost are not checked here.
 */
export function structuralSchemaCauses(schema: unknown, fieldPath: string, options: SchemaCheckOptions = {}): StatusCause[] {
  // No schema: nothing to check here (kube's "schemas are required" is a rule of the CRD spec).
  if (schema === undefined || schema === null) return [];
  const raw = isFields(schema) ? schema : {};
  const path = fieldPath;
  const causes: StatusCause[] = [];
  if (options.statusSubresource === true) causes.push(...statusRootCauses(raw, path));
  if (raw['nullable'] === true) causes.push(forbiddenCause(childPath(path, 'nullable'), 'nullable cannot be true at the root'));
  const initError = newStructuralError(raw);
  if (initError === undefined) {
    const structural = validateStructural(raw, path);
    if (structural.length > 0) causes.push(...structural);
    else {
      const walk: DefaultsWalk = { causes: [] };
      validateDefaults(raw, path, raw, undefined, false, true, walk);
      if (walk.error !== undefined) causes.push(invalidCause(fieldOf(path), '', walk.error));
      else causes.push(...walk.causes);
    }
  }
  openApiSchemaCauses(raw, path, { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false }, true, causes);
  if (causes.length === 0 && initError !== undefined) causes.push(invalidCause(fieldOf(path), '', initError));
  return causes;
}

/** Whether the schema is structural and valid for a CRD (no causes). */
export function isValidStructuralSchema(schema: unknown): boolean {
  return structuralSchemaCauses(schema, 'openAPIV3Schema').length === 0;
}
