// Owns: the view kube-apiserver validates a CustomResourceDefinition in: its internal
// apiextensions type as apiextensions.k8s.io/v1 converts into it (the per-version schema,
// subresources, printer columns and selectable fields moved to the spec when every version has
// the same, spec.version = the first version's name, the webhook conversion flattened), and Go's
// semantic equality of values (apimachinery's equality.Semantic: a JSON field absent, null, or at
// its Go zero value compares equal; an empty list or map equals none; a set pointer is kept even
// when empty), read from the generated description of the v1 types. Pure.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { messageDescriptions } from '../registry/generated/index.ts';
import type { FieldDescription, MessageName } from '../registry/kind-description.ts';
import { jsonFieldsOf } from '../registry/schema-from-description.ts';
import type { InternalVersion } from './definition-go.ts';

export type Fields = Record<string, JsonValue>;

const v1 = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
export const crdMessages = {
  spec: `${v1}.CustomResourceDefinitionSpec`,
  validation: `${v1}.CustomResourceValidation`,
  subresources: `${v1}.CustomResourceSubresources`,
  column: `${v1}.CustomResourceColumnDefinition`,
  selectableField: `${v1}.SelectableField`,
  schema: `${v1}.JSONSchemaProps`,
} as const satisfies Record<string, MessageName>;

export function isFields(value: JsonValue | undefined): value is Fields {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

export function fieldsOf(value: JsonValue | undefined): Fields {
  return isFields(value) ? value : {};
}

export function textOf(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

/** A list, or undefined for Go's nil (absent or null). */
export function listOf(value: JsonValue | undefined): JsonValue[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

export function objectField(object: KubeObject, name: string): Fields {
  return fieldsOf(object[name] as JsonValue | undefined);
}

const absent = Symbol('absent');
type Normalized = JsonValue | typeof absent;

function sortedObject(entries: [string, JsonValue][]): Fields {
  return Object.fromEntries(entries.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)));
}

/** Any JSON value with object keys sorted (apiextensions' JSON: Go holds it decoded). */
function plainValue(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(plainValue);
  if (isFields(value)) return sortedObject(Object.entries(value).map(([key, item]) => [key, plainValue(item)]));
  return value;
}

function isZeroScalar(value: JsonValue): boolean {
  return value === '' || value === 0 || value === false;
}

/** One element (a list item, a map value, or the value of a single field) of a field's type. */
function normalizeElement(field: FieldDescription, value: JsonValue): Normalized {
  const type = field.type;
  if (!type.includes('.')) return value;
  const message = messageDescriptions.get(type as MessageName);
  if (message === undefined) return plainValue(value);
  switch (message.jsonForm) {
    case undefined: return isFields(value) ? normalizeMessage(type as MessageName, value) : plainValue(value);
    case 'schemaOrArray': case 'schemaOrBool': case 'schemaOrStringArray':
      if (isFields(value)) return normalizeMessage(crdMessages.schema, value);
      if (Array.isArray(value)) return value.map((item) => (isFields(item) ? normalizeMessage(crdMessages.schema, item) : plainValue(item)));
      return value;
    default: return plainValue(value);
  }
}

function normalizeField(field: FieldDescription, value: JsonValue | undefined): Normalized {
  if (value === undefined || value === null) return absent;
  if (field.repeated) {
    if (!Array.isArray(value) || value.length === 0) return Array.isArray(value) ? absent : plainValue(value);
    return value.map((item) => {
      const normalized = normalizeElement(field, item);
      return normalized === absent ? null : normalized;
    });
  }
  if (field.mapKey !== undefined) {
    if (!isFields(value)) return plainValue(value);
    const entries = Object.entries(value);
    if (entries.length === 0) return absent;
    return sortedObject(entries.map(([key, item]) => {
      const normalized = normalizeElement(field, item);
      return [key, normalized === absent ? null : normalized];
    }));
  }
  if (!field.type.includes('.')) return !field.pointer && isZeroScalar(value) ? absent : value;
  const normalized = normalizeElement(field, value);
  // A struct held by value is its zero value when empty; a set pointer stays set.
  if (normalized === absent) return absent;
  if (!field.pointer && isFields(normalized) && Object.keys(normalized).length === 0) return absent;
  return normalized;
}

/** A message's JSON as Go holds it: fields it does not know dropped, zero values and empty lists absent. */
export function normalizeMessage(name: MessageName, value: Fields): Fields {
  const message = messageDescriptions.get(name);
  if (message === undefined) return sortedObject(Object.entries(value).map(([key, item]) => [key, plainValue(item)]));
  const entries: [string, JsonValue][] = [];
  for (const { json, field } of jsonFieldsOf(message)) {
    const normalized = normalizeField(field, value[json]);
    if (normalized !== absent) entries.push([json, normalized]);
  }
  return sortedObject(entries);
}

/** apimachinery's equality.Semantic.DeepEqual of two values of a v1 message (undefined is a nil pointer). */
export function semanticEqual(name: MessageName, left: JsonValue | undefined, right: JsonValue | undefined): boolean {
  const leftSet = left !== undefined && left !== null;
  const rightSet = right !== undefined && right !== null;
  if (!leftSet || !rightSet) return leftSet === rightSet;
  const normalize = (value: JsonValue): JsonValue => (isFields(value) ? normalizeMessage(name, value) : plainValue(value));
  return JSON.stringify(normalize(left)) === JSON.stringify(normalize(right));
}

/** Semantic equality of two lists of a message (nil and empty are equal). */
function semanticListEqual(name: MessageName, left: readonly JsonValue[] | undefined, right: readonly JsonValue[] | undefined): boolean {
  if ((left?.length ?? 0) === 0 || (right?.length ?? 0) === 0) return (left?.length ?? 0) === (right?.length ?? 0);
  return left!.length === right!.length && left!.every((item, index) => semanticEqual(name, item, right![index]));
}

/** The internal webhook conversion (v1's spec.conversion.webhook flattened). */
export interface InternalConversion {
  readonly strategy: string;
  /** WebhookClientConfig; undefined is nil. */
  readonly webhookClientConfig: Fields | undefined;
  readonly conversionReviewVersions: readonly JsonValue[] | undefined;
}

/** The internal CustomResourceDefinitionSpec kube validates. */
export interface InternalSpec {
  readonly group: string;
  /** versions[0].name ('' without versions). */
  readonly version: string;
  readonly names: Fields;
  readonly scope: string;
  readonly validation: Fields | undefined;
  readonly subresources: Fields | undefined;
  readonly versions: readonly InternalVersion[] | undefined;
  readonly additionalPrinterColumns: readonly JsonValue[] | undefined;
  readonly selectableFields: readonly JsonValue[] | undefined;
  readonly conversion: InternalConversion | undefined;
  /** v1's bool, as the internal *bool (always set). */
  readonly preserveUnknownFields: boolean;
}

function optionalFields(value: JsonValue | undefined): Fields | undefined {
  return isFields(value) ? value : undefined;
}

function versionOf(value: JsonValue): InternalVersion {
  const version = fieldsOf(value);
  return {
    name: textOf(version['name']),
    served: version['served'] === true,
    storage: version['storage'] === true,
    deprecated: version['deprecated'] === true,
    deprecationWarning: typeof version['deprecationWarning'] === 'string' ? version['deprecationWarning'] : undefined,
    schema: optionalFields(version['schema']),
    subresources: optionalFields(version['subresources']),
    additionalPrinterColumns: listOf(version['additionalPrinterColumns']),
    selectableFields: listOf(version['selectableFields']),
  };
}

/**
 * Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec: when
 * every version has semantically equal subresources (schema, columns, selectable fields), the
 * first version's value becomes the spec's and every version's is cleared.
 */
export function internalSpec(spec: Fields): InternalSpec {
  const listed = listOf(spec['versions']);
  let versions = listed?.map(versionOf);
  let validation: Fields | undefined;
  let subresources: Fields | undefined;
  let additionalPrinterColumns: readonly JsonValue[] | undefined;
  let selectableFields: readonly JsonValue[] | undefined;
  if (versions !== undefined && versions.length > 0) {
    const first = versions[0]!;
    const identical = {
      schema: versions.every((version) => semanticEqual(crdMessages.validation, version.schema, first.schema)),
      subresources: versions.every((version) => semanticEqual(crdMessages.subresources, version.subresources, first.subresources)),
      columns: versions.every((version) => semanticListEqual(crdMessages.column, version.additionalPrinterColumns, first.additionalPrinterColumns)),
      selectable: versions.every((version) => semanticListEqual(crdMessages.selectableField, version.selectableFields, first.selectableFields)),
    };
    if (identical.schema) validation = first.schema;
    if (identical.subresources) subresources = first.subresources;
    if (identical.columns) additionalPrinterColumns = first.additionalPrinterColumns;
    if (identical.selectable) selectableFields = first.selectableFields;
    versions = versions.map((version) => ({
      ...version,
      schema: identical.schema ? undefined : version.schema,
      subresources: identical.subresources ? undefined : version.subresources,
      additionalPrinterColumns: identical.columns ? undefined : version.additionalPrinterColumns,
      selectableFields: identical.selectable ? undefined : version.selectableFields,
    }));
  }
  const conversion = optionalFields(spec['conversion']);
  const webhook = optionalFields(conversion?.['webhook']);
  return {
    group: textOf(spec['group']),
    version: versions?.[0]?.name ?? '',
    names: fieldsOf(spec['names']),
    scope: textOf(spec['scope']),
    validation,
    subresources,
    versions,
    additionalPrinterColumns,
    selectableFields,
    conversion: conversion === undefined ? undefined : {
      strategy: textOf(conversion['strategy']),
      webhookClientConfig: optionalFields(webhook?.['clientConfig']),
      conversionReviewVersions: listOf(webhook?.['conversionReviewVersions']),
    },
    preserveUnknownFields: spec['preserveUnknownFields'] === true,
  };
}

/** The subresources that apply to one version: per-version ones when any version has its own, else the spec's. */
export function subresourcesForVersion(spec: InternalSpec, name: string): Fields | undefined {
  const versions = spec.versions ?? [];
  if (!versions.some((version) => version.subresources !== undefined)) return spec.subresources;
  return versions.find((version) => version.name === name)?.subresources;
}

/** Whether the status subresource is on in the spec or in any version. */
export function anyStatusEnabled(spec: InternalSpec): boolean {
  return isFields(spec.subresources?.['status']) || (spec.versions ?? []).some((version) => isFields(version.subresources?.['status']));
}

/** Every openAPIV3Schema of the spec: the spec's and each version's. */
export function schemasOf(spec: InternalSpec): JsonValue[] {
  const schemas: JsonValue[] = [];
  const top = spec.validation?.['openAPIV3Schema'];
  if (top !== undefined && top !== null) schemas.push(top);
  for (const version of spec.versions ?? []) {
    const schema = version.schema?.['openAPIV3Schema'];
    if (schema !== undefined && schema !== null) schemas.push(schema);
  }
  return schemas;
}

/** apiextensions' SchemaHas: whether the schema or any schema nested in it satisfies `predicate`. */
export function schemaHas(schema: JsonValue | undefined, predicate: (schema: Fields) => boolean): boolean {
  const pending: JsonValue[] = schema === undefined ? [] : [schema];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (!isFields(current)) continue;
    if (predicate(current)) return true;
    const items = current['items'];
    if (Array.isArray(items)) pending.push(...items);
    else if (items !== undefined) pending.push(items);
    for (const key of ['allOf', 'anyOf', 'oneOf']) pending.push(...(listOf(current[key]) ?? []));
    for (const key of ['not', 'additionalProperties', 'additionalItems']) {
      const nested = current[key];
      if (isFields(nested)) pending.push(nested);
    }
    for (const key of ['properties', 'patternProperties', 'definitions', 'dependencies']) pending.push(...Object.values(fieldsOf(current[key])));
  }
  return false;
}
