// Owns: the x-kubernetes-list-type invariants of a custom resource (apiextensions'
// schema/listtype ValidateListSetsAndMaps): a `set` holds no value twice, a `map` list holds
// objects and no two with the same key fields — each repeat reported once, at its second
// occurrence, as `Duplicate value: …`; and helpers server-side apply needs to read list and map
// types at a path.
import type { StatusCause } from '../../status.ts';
import { childPath, duplicateCause, goJson, indexPath, invalidCause, isGoInt } from './field-errors.ts';
import { compileNode, isFields } from './node.ts';
import type { Node } from './node.ts';
import type { JsonSchemaProps } from './types.ts';

/** A Go map key for a decoded scalar (int64 and float64 keys differ, as interface{} keys do). */
function scalarKey(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'number') return `${isGoInt(value) ? 'i' : 'f'}${value}`;
  return `${typeof value}:${String(value)}`;
}

/** validateListSet: the positions of second occurrences. */
function repeatedPositions(values: readonly unknown[]): number[] {
  if (values.length <= 1) return [];
  const seen = new Map<string, number>();
  const positions: number[] = [];
  values.forEach((value, index) => {
    const key = value !== null && typeof value === 'object' ? `c${goJson(value)}` : `s${scalarKey(value)}`;
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) positions.push(index);
  });
  return positions;
}

/** A missing list-map key, distinct from any value. */
const unspecified = Symbol('unspecified');

function listMapCauses(node: Node, items: readonly unknown[], path: string): StatusCause[] {
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (item !== null && item !== undefined && !isFields(item)) return [invalidCause(indexPath(path, index), item, 'must be an object for an array of list-type map')];
  }
  if (items.length <= 1) return [];
  const keyFields = node.listMapKeys;
  if (keyFields.length === 1) {
    const keyField = keyFields[0]!;
    const keys = items.map((item) => (isFields(item) && keyField in item ? item[keyField] : unspecified));
    // An unspecified key is a value of its own (kube's unspecifiedKeyValue{}): a marker stands for it.
    const markers = keys.map((key) => (key === unspecified ? '\u0000unspecified' : key));
    return repeatedPositions(markers).map((index) => duplicateCause(indexPath(path, index), keys[index] === unspecified ? {} : { [keyField]: keys[index] }));
  }
  const keys = items.map((item) => {
    const key: Record<string, unknown> = {};
    if (isFields(item)) for (const field of keyFields) if (field in item) key[field] = item[field];
    return key;
  });
  return repeatedPositions(keys).map((index) => duplicateCause(indexPath(path, index), keys[index]));
}

function arrayCauses(node: Node, items: readonly unknown[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (node.listType === 'set') {
    for (const index of repeatedPositions(items)) causes.push(duplicateCause(indexPath(path, index), items[index]));
  } else if (node.listType === 'map') {
    causes.push(...listMapCauses(node, items, path));
  }
  const itemNode = node.items;
  if (itemNode !== undefined) items.forEach((item, index) => causes.push(...valueCauses(itemNode, item, indexPath(path, index))));
  return causes;
}

function valueCauses(node: Node, value: unknown, path: string): StatusCause[] {
  if (Array.isArray(value)) return arrayCauses(node, value, path);
  if (isFields(value)) return objectCauses(node, value, path);
  return [];
}

function objectCauses(node: Node, value: Readonly<Record<string, unknown>>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const additional = node.additionalProperties?.schema;
  if (additional !== undefined) for (const key of Object.keys(value)) causes.push(...valueCauses(additional, value[key], indexPath(path, key)));
  const properties = node.properties;
  if (properties !== undefined) {
    for (const key of Object.keys(value)) {
      const property = properties.get(key);
      if (property !== undefined) causes.push(...valueCauses(property, value[key], childPath(path, key)));
    }
  }
  return causes;
}

/** ValidateListSetsAndMaps of an object (`path` is its field path, "" at the root). */
export function listTypeCauses(node: Node, value: unknown, path: string): StatusCause[] {
  return isFields(value) ? objectCauses(node, value, path) : [];
}

/** The schema node at a path of field names and list indexes (numbers), or undefined where the schema says nothing. */
export function schemaAt(schema: JsonSchemaProps, path: readonly (string | number)[]): JsonSchemaProps | undefined {
  let node: Node | undefined = compileNode(schema);
  for (const step of path) {
    if (node === undefined) return undefined;
    if (typeof step === 'number') node = node.items;
    else node = node.properties?.get(step) ?? node.additionalProperties?.schema;
  }
  return node?.raw as JsonSchemaProps | undefined;
}

/** The x-kubernetes-list-type at a path ('atomic' when unset on a list), and its map keys. */
export function listTypeAt(schema: JsonSchemaProps, path: readonly (string | number)[]): { readonly listType: 'atomic' | 'set' | 'map'; readonly keys: readonly string[] } | undefined {
  const found = schemaAt(schema, path);
  if (found === undefined) return undefined;
  const node = compileNode(found);
  if (node.type !== 'array' && node.items === undefined) return undefined;
  const listType = node.listType === 'set' || node.listType === 'map' ? node.listType : 'atomic';
  return { listType, keys: listType === 'map' ? node.listMapKeys : [] };
}

/** The x-kubernetes-map-type at a path of an object ('granular' when unset), or undefined for a non-object. */
export function mapTypeAt(schema: JsonSchemaProps, path: readonly (string | number)[]): 'atomic' | 'granular' | undefined {
  const found = schemaAt(schema, path);
  if (found === undefined) return undefined;
  const node = compileNode(found);
  if (node.type !== 'object' && node.properties === undefined && node.additionalProperties === undefined) return undefined;
  return node.mapType === 'atomic' ? 'atomic' : 'granular';
}
