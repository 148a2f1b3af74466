// Owns: what kube's custom resource decoder does to a body before anything checks it
// (apiextensions' unstructuredSchemaCoercer): pruning fields the structural schema does not
// know (schema/pruning), dropping nulls of non-nullable fields without a default
// (PruneNonNullableNullsWithoutDefaults), and coercing embedded resources' metadata
// (schema/objectmeta Coerce) — with the unknown field paths kube reports for fieldValidation
// Strict/Warn, in kube's form and order (pruned paths sorted, then embedded metadata's).
import type { StatusCause } from '../../status.ts';
import { goStringCompare } from './field-errors.ts';
import { compileNode, isFields } from './node.ts';
import type { Node } from './node.ts';
import { coerceEmbeddedResources } from './objectmeta.ts';
import type { JsonSchemaProps } from './types.ts';

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

/** Where the walk is: the path so far (kube's UnknownFieldPathOptions form) and the paths found. */
interface Walk {
  readonly unknown: string[];
}

function keyPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

function prune(value: unknown, node: Node | undefined, embedded: boolean, path: string, walk: Walk): void {
  if (node !== undefined && node.preserveUnknownFields) {
    skipPrune(value, node, embedded, path, walk);
    return;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) prune(value[index], node?.items, false, `${path}[${index}]`, walk);
    return;
  }
  if (!isFields(value)) return;
  if (node === undefined) {
    for (const key of Object.keys(value)) {
      walk.unknown.push(keyPath(path, key));
      delete value[key];
    }
    return;
  }
  const properties = node.properties;
  const additional = node.additionalProperties;
  const isEmbedded = embedded || node.embeddedResource;
  for (const key of Object.keys(value)) {
    if (isEmbedded && metaFields.has(key)) continue;
    const property = properties?.get(key);
    if (property !== undefined) prune(value[key], property, false, keyPath(path, key), walk);
    else if (additional !== undefined) prune(value[key], additional.schema, false, keyPath(path, key), walk);
    else {
      if (!metaFields.has(key) || path !== '') walk.unknown.push(keyPath(path, key));
      delete value[key];
    }
  }
}

function skipPrune(value: unknown, node: Node | undefined, embedded: boolean, path: string, walk: Walk): void {
  if (node === undefined) return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) skipPrune(value[index], node.items, false, `${path}[${index}]`, walk);
    return;
  }
  if (!isFields(value)) return;
  const properties = node.properties;
  const additional = node.additionalProperties;
  const isEmbedded = embedded || node.embeddedResource;
  for (const key of Object.keys(value)) {
    if (isEmbedded && metaFields.has(key)) continue;
    const property = properties?.get(key);
    if (property !== undefined) prune(value[key], property, false, keyPath(path, key), walk);
    else if (additional !== undefined) prune(value[key], additional.schema, false, keyPath(path, key), walk);
  }
}

/** The node a field of an object is checked against: its property, else additionalProperties' schema. */
function fieldNode(node: Node | undefined, key: string): Node | undefined {
  if (node === undefined) return undefined;
  return node.properties?.get(key) ?? node.additionalProperties?.schema;
}

/** PruneNonNullableNullsWithoutDefaults: a null whose schema is neither nullable nor defaulted is dropped (in objects, not lists). */
export function dropNonNullableNulls(schema: JsonSchemaProps, value: unknown): void {
  dropNulls(value, compileNode(schema));
}

function dropNulls(value: unknown, node: Node | undefined): void {
  if (Array.isArray(value)) {
    const items = node?.items;
    for (const item of value) dropNulls(item, items);
    return;
  }
  if (!isFields(value)) return;
  for (const key of Object.keys(value)) {
    const child = fieldNode(node, key);
    const item = value[key];
    if (item === null && child !== undefined && !child.nullable && !child.hasDefault) delete value[key];
    else dropNulls(item, child);
  }
}

/** kube's pruning alone (pruning.Prune) of `value` against a compiled node, in place: the unknown paths, sorted. */
export function pruneNode(node: Node | undefined, value: unknown, isResourceRoot: boolean): string[] {
  const walk: Walk = { unknown: [] };
  prune(value, node, isResourceRoot, '', walk);
  return walk.unknown.sort(goStringCompare);
}

export interface DecodeOptions {
  /** The value is a whole custom resource: its apiVersion, kind and metadata are kept (they are the caller's). */
  readonly isResourceRoot: boolean;
}

export interface DecodeResult {
  /** kube's unknown field paths (`spec.foo`, `spec.items[0].bar`, `spec.template.metadata.baz`): pruned ones sorted, then embedded metadata's. */
  readonly unknownFields: string[];
  /** An embedded resource kube cannot decode (apiVersion or kind not a string, metadata not an ObjectMeta): the request fails with it. */
  readonly decodeError: StatusCause | undefined;
}

/**
 * The schema-driven part of kube's decoding of a custom resource, in place: prune unknown
 * fields (unless x-kubernetes-preserve-unknown-fields; embedded resources keep apiVersion, kind
 * and metadata, and so does the root), drop non-nullable nulls without defaults, coerce
 * embedded resources' metadata. Defaults are applied afterwards (applyDefaults).
 */
export function decodeCustomResource(schema: JsonSchemaProps, value: unknown, options: DecodeOptions): DecodeResult {
  const node = compileNode(schema);
  const pruned = pruneNode(node, value, options.isResourceRoot);
  dropNulls(value, node);
  const coercion = coerceEmbeddedResources(node, value);
  return { unknownFields: [...pruned, ...coercion.unknown], decodeError: coercion.error };
}

/**
 * Prunes `value` in place as kube's decoder does (see decodeCustomResource) and returns the
 * unknown field paths kube reports (`unknown field "spec.foo"` under Strict, a warning under
 * Warn): sorted as kube sorts them, then the embedded resources' unknown metadata fields.
 */
export function pruneUnknownFields(schema: JsonSchemaProps, value: unknown, options: DecodeOptions): string[] {
  return decodeCustomResource(schema, value, options).unknownFields;
}
