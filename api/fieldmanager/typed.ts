// Owns: the schema-driven walks of structured-merge-diff (typed/tofieldset.go, compare.go,
// merge.go, remove.go) over kstore's JSON schemas (api/registry/schemas*.ts): which value is a
// struct (declared fields), a map (map keys), an atomic leaf, and which lists are associative
// (`+listType=map` with its keys, or kube's patchMergeKey), sets (`+listType=set`) or atomic.
// Lists the schemas leave unmarked are atomic, as in kube, except those of ObjectMeta and the
// few kube types whose strategic merge keys the schemas do not carry (table below).
import type { JsonValue } from '../../actors/index.ts';
import type { JsonSchema } from '../registry/schemas.ts';
import { FieldSet, fieldElement, indexElement, keyElement, pathString, valueElement } from './field-set.ts';
import type { Path, PathElement } from './field-set.ts';

type JsonObject = { [key: string]: JsonValue };

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Lists kube merges by key (patchMergeKey, patchStrategy=merge) that kstore's schemas do not
 * mark: ObjectMeta's ownerReferences, a ServiceAccount's secrets and imagePullSecrets, a
 * Namespace's status conditions — the strategic merge keys of api/patch/merge-patch.ts.
 */
const unmarkedMergeKeys: Readonly<Record<string, string>> = {
  ownerReferences: 'uid', secrets: 'name', imagePullSecrets: 'name', conditions: 'type',
};
/** Unmarked lists kube treats as sets (ObjectMeta.finalizers is +listType=set). */
const unmarkedSets = new Set(['finalizers']);
/** Defaults of list map keys (kube's OpenAPI defaults a container port's protocol to TCP). */
const keyDefaults: Readonly<Record<string, JsonValue>> = { protocol: 'TCP' };

export type TypeNode =
  | { readonly type: 'struct'; readonly fields: Readonly<Record<string, JsonSchema>>; readonly extra?: JsonSchema }
  | { readonly type: 'map'; readonly values: JsonSchema | undefined }
  | { readonly type: 'list'; readonly relation: 'map' | 'set'; readonly keys: readonly string[]; readonly items: JsonSchema | undefined }
  | { readonly type: 'leaf' };

/** structured-merge-diff's deduced type: what a preserve-unknown-fields node does not declare (maps by key, lists atomic). */
const deducedSchema: JsonSchema = { 'x-kubernetes-preserve-unknown-fields': true };

const leafNode: TypeNode = { type: 'leaf' };

/**
 * typeOf's answers for schemas whose type does not depend on the field's name (all but the
 * arrays: an unmarked list's relation may come from its name). Schemas are not changed after
 * they are built, so one answer per schema object holds for the life of the process.
 */
const typeBySchema = new WeakMap<JsonSchema, TypeNode>();

/** What the schema says a value at a field called `field` is. */
export function typeOf(schema: JsonSchema | undefined, field?: string): TypeNode {
  if (!schema) return leafNode;
  if (field !== undefined && schema.type === 'array') return typeOfSchema(schema, field);
  let node = typeBySchema.get(schema);
  if (node === undefined) {
    node = typeOfSchema(schema, undefined);
    typeBySchema.set(schema, node);
  }
  return node;
}

function typeOfSchema(schema: JsonSchema, field: string | undefined): TypeNode {
  const type = schema.type;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && type !== 'array' && schema['x-kubernetes-map-type'] !== 'atomic') {
    if (schema.properties !== undefined) return { type: 'struct', fields: schema.properties, extra: typeof schema.additionalProperties === 'object' ? schema.additionalProperties : deducedSchema };
    if (typeof schema.additionalProperties !== 'object') return { type: 'map', values: deducedSchema };
  }
  if (type === 'object' || (type === undefined && (schema.properties !== undefined || typeof schema.additionalProperties === 'object'))) {
    if (schema['x-kubernetes-map-type'] === 'atomic') return { type: 'leaf' };
    if (schema.properties) {
      const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      return { type: 'struct', fields: schema.properties, ...(extra ? { extra } : {}) };
    }
    if (typeof schema.additionalProperties === 'object') return { type: 'map', values: schema.additionalProperties };
    return { type: 'leaf' };
  }
  if (type === 'array') {
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'atomic') return { type: 'leaf' };
    if (listType === 'set') return { type: 'list', relation: 'set', keys: [], items: schema.items };
    if (listType === 'map') return { type: 'list', relation: 'map', keys: schema['x-kubernetes-list-map-keys'] ?? [], items: schema.items };
    const strategy = schema['x-kubernetes-patch-strategy'];
    if (strategy !== undefined && strategy.split(',').includes('merge')) {
      const key = schema['x-kubernetes-patch-merge-key'];
      return key ? { type: 'list', relation: 'map', keys: [key], items: schema.items } : { type: 'list', relation: 'set', keys: [], items: schema.items };
    }
    if (field !== undefined && unmarkedMergeKeys[field] !== undefined) return { type: 'list', relation: 'map', keys: [unmarkedMergeKeys[field]], items: schema.items };
    if (field !== undefined && unmarkedSets.has(field)) return { type: 'list', relation: 'set', keys: [], items: schema.items };
    return { type: 'leaf' };
  }
  return { type: 'leaf' };
}

function fieldSchema(node: TypeNode, name: string): JsonSchema | undefined {
  if (node.type === 'struct') return node.fields[name] ?? node.extra;
  if (node.type === 'map') return node.values;
  return undefined;
}

function isDeclared(node: TypeNode, name: string): boolean {
  return node.type === 'struct' && Object.hasOwn(node.fields, name);
}

/** The path element of a list item: its key fields, its value, or (no key field present) its position. */
export function itemElement(node: Extract<TypeNode, { type: 'list' }>, item: JsonValue, index: number): PathElement {
  if (node.relation === 'set') return valueElement(item);
  if (!isObject(item)) return indexElement(index);
  const key: JsonObject = {};
  for (const name of node.keys) {
    const value = item[name] ?? keyDefaults[name];
    if (value !== undefined) key[name] = value;
  }
  return Object.keys(key).length === 0 ? indexElement(index) : keyElement(key);
}

function emptyValue(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
}

/** typed.ToFieldSet: the fields a (partial) object sets. */
export function toFieldSet(value: JsonValue, schema: JsonSchema | undefined): FieldSet {
  const set = new FieldSet();
  walkFieldSet(value, typeOf(schema), [], set);
  return set;
}

function walkFieldSet(value: JsonValue, node: TypeNode, path: PathElement[], set: FieldSet): void {
  if (node.type === 'leaf' || value === null || typeof value !== 'object') {
    set.insert(path);
    return;
  }
  if (node.type === 'list') {
    if (!Array.isArray(value)) return void set.insert(path);
    const seen = new Set<PathElement>();
    value.forEach((item, index) => {
      const element = itemElement(node, item, index);
      if (seen.has(element)) return;
      seen.add(element);
      walkFieldSet(item, typeOf(node.items), [...path, element], set);
      set.insert([...path, element]);
    });
    return;
  }
  if (!isObject(value)) return void set.insert(path);
  for (const [name, child] of Object.entries(value)) {
    const childSchema = fieldSchema(node, name);
    const childPath = [...path, fieldElement(name)];
    walkFieldSet(child, typeOf(childSchema, name), childPath, set);
    if (child === null || (isObject(child) && Object.keys(child).length === 0) || !isDeclared(node, name)) set.insert(childPath);
  }
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** typed.Compare: the fields `rhs` adds, changes and removes relative to `lhs`. */
export function compare(lhs: JsonValue | undefined, rhs: JsonValue | undefined, schema: JsonSchema | undefined): Comparison {
  const result = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, typeOf(schema), [], result, true);
  return result;
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: JsonValue | undefined): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
}

function isScalar(value: JsonValue | undefined): boolean {
  return value !== undefined && (value === null || typeof value !== 'object');
}

function compareLeaf(lhs: JsonValue | undefined, rhs: JsonValue | undefined, path: Path, result: Comparison): void {
  if (lhs === undefined) result.added.insert(path);
  else if (rhs === undefined) result.removed.insert(path);
  else if (!sameJson(lhs, rhs)) result.modified.insert(path);
}

/** The items of a compared list by path element (several when their keys repeat). */
function itemsByElement(node: Extract<TypeNode, { type: 'list' }>, items: JsonValue[]): Map<PathElement, JsonValue[]> {
  const map = new Map<PathElement, JsonValue[]>();
  items.forEach((item, position) => {
    const element = itemElement(node, item, position);
    const same = map.get(element);
    if (same === undefined) map.set(element, [item]);
    else same.push(item);
  });
  return map;
}

/** The items of both sides under one path element: one each is a walk, several a whole comparison. */
function compareItems(l: JsonValue[], r: JsonValue[], itemNode: TypeNode, element: PathElement, path: PathElement[], result: Comparison): void {
  path.push(element);
  if (l.length <= 1 && r.length <= 1) walkCompare(l[0], r[0], itemNode, path, result);
  else if (l.length >= 2 && r.length >= 2) {
    if (!sameJson(l, r)) result.modified.insert(path);
  } else if (l.length >= 2) {
    if (r.length > 0) walkCompare(undefined, r[0], itemNode, path, result);
    result.removed.insert(path);
  } else {
    if (l.length > 0) walkCompare(l[0], undefined, itemNode, path, result);
    result.added.insert(path);
  }
  path.pop();
}

const noMembers: JsonObject = Object.freeze({}) as JsonObject;

/** `path` is the walk's own stack: extended before a child's walk and restored after it. */
function walkCompare(lhs: JsonValue | undefined, rhs: JsonValue | undefined, node: TypeNode, path: PathElement[], result: Comparison, root = false): void {
  const bothEmpty = (lhs === undefined || lhs === null || emptyValue(lhs)) && (rhs === undefined || rhs === null || emptyValue(rhs));
  // A list where the schema expects an object (under a deduced type) is compared whole.
  const misplacedList = node.type !== 'list' && (Array.isArray(lhs) || Array.isArray(rhs));
  if (node.type === 'leaf' || bothEmpty || misplacedList || isScalar(lhs) && isScalar(rhs) || (isScalar(lhs) && rhs === undefined) || (lhs === undefined && isScalar(rhs))) {
    compareLeaf(lhs, rhs, path, result);
    return;
  }
  if (node.type === 'list') {
    const leftItems = itemsByElement(node, Array.isArray(lhs) ? lhs : []);
    const rightItems = itemsByElement(node, Array.isArray(rhs) ? rhs : []);
    const itemNode = typeOf(node.items);
    for (const [element, l] of leftItems) compareItems(l, rightItems.get(element) ?? [], itemNode, element, path, result);
    for (const [element, r] of rightItems) if (!leftItems.has(element)) compareItems([], r, itemNode, element, path, result);
  } else {
    // Absent sides read as {} (a missing member reads as what `{}` has under that name).
    const left = isObject(lhs) ? lhs : noMembers;
    const right = isObject(rhs) ? rhs : noMembers;
    for (const name in left) {
      if (!Object.hasOwn(left, name)) continue;
      path.push(fieldElement(name));
      walkCompare(left[name], right[name], typeOf(fieldSchema(node, name), name), path, result);
      path.pop();
    }
    for (const name in right) {
      if (!Object.hasOwn(right, name) || Object.hasOwn(left, name)) continue;
      path.push(fieldElement(name));
      walkCompare(left[name], right[name], typeOf(fieldSchema(node, name), name), path, result);
      path.pop();
    }
  }
  if (!root) {
    if (lhs === undefined) result.added.insert(path);
    else if (rhs === undefined) result.removed.insert(path);
  }
}

/**
 * typed.Merge: `rhs` (an applied configuration) over `lhs` (the live object): struct and map
 * fields merge recursively, associative and set lists merge item by item in
 * structured-merge-diff's order, leaves and atomic values are replaced. A null in `rhs`
 * removes the field (a typed object cannot hold it).
 */
export function merge(lhs: JsonValue | undefined, rhs: JsonValue | undefined, schema: JsonSchema | undefined): JsonValue | undefined {
  return mergeNode(lhs, rhs, typeOf(schema));
}

function mergeNode(lhs: JsonValue | undefined, rhs: JsonValue | undefined, node: TypeNode): JsonValue | undefined {
  if (rhs === undefined) return lhs === undefined ? undefined : structuredClone(lhs);
  if (rhs === null) return undefined;
  if (node.type === 'leaf' || typeof rhs !== 'object') return structuredClone(rhs);
  if (node.type === 'list') {
    if (!Array.isArray(rhs)) return structuredClone(rhs);
    return mergeList(Array.isArray(lhs) ? lhs : [], rhs, node);
  }
  if (!isObject(rhs)) return structuredClone(rhs);
  const result: JsonObject = isObject(lhs) ? structuredClone(lhs) : {};
  for (const [name, value] of Object.entries(rhs)) {
    const merged = mergeNode(result[name], value, typeOf(fieldSchema(node, name), name));
    if (merged === undefined) delete result[name];
    else result[name] = merged;
  }
  return result;
}

/** structured-merge-diff's mergingWalker.visitListItems: live items keep their places, applied items follow their order. */
function mergeList(lhs: JsonValue[], rhs: JsonValue[], node: Extract<TypeNode, { type: 'list' }>): JsonValue[] {
  const itemNode = typeOf(node.items);
  const index = (items: JsonValue[]): { elements: PathElement[]; values: Map<PathElement, JsonValue> } => {
    const elements: PathElement[] = [];
    const values = new Map<PathElement, JsonValue>();
    items.forEach((item, position) => {
      const element = itemElement(node, item, position);
      if (values.has(element)) return;
      values.set(element, item);
      elements.push(element);
    });
    return { elements, values };
  };
  const left = index(lhs);
  const right = index(rhs);
  const shared = right.elements.filter((element) => left.values.has(element));
  let nextShared = shared.shift();
  const mergedRight = new Set<PathElement>();
  const out: JsonValue[] = [];
  const push = (value: JsonValue | undefined): void => {
    if (value !== undefined) out.push(value);
  };
  let l = 0;
  let r = 0;
  while (l < left.elements.length || r < right.elements.length) {
    if (l < left.elements.length && r < right.elements.length) {
      const element = left.elements[l]!;
      if (element === right.elements[r]) {
        mergedRight.add(element);
        push(mergeNode(left.values.get(element), right.values.get(element), itemNode));
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      if (right.values.has(element) && nextShared !== undefined && nextShared !== element) {
        l++;
        continue;
      }
    }
    if (l < left.elements.length) {
      const element = left.elements[l]!;
      if (!right.values.has(element)) {
        push(structuredClone(left.values.get(element)!));
        l++;
        continue;
      } else if (mergedRight.has(element)) {
        l++;
      }
    }
    if (r < right.elements.length) {
      const element = right.elements[r]!;
      mergedRight.add(element);
      push(mergeNode(left.values.get(element), right.values.get(element), itemNode));
      r++;
      if (nextShared === element) nextShared = shared.shift();
    }
  }
  return out;
}

/** typed.RemoveItems: `value` without the members of `set` (a removed path takes what is under it). */
export function removePaths(value: JsonValue, set: FieldSet, schema: JsonSchema | undefined): JsonValue {
  const result = structuredClone(value);
  for (const path of set.paths()) removePath(result, path, typeOf(schema));
  return result;
}

function removePath(value: JsonValue, path: Path, node: TypeNode): void {
  const [element, ...rest] = path;
  if (element === undefined) return;
  if (node.type === 'list' && Array.isArray(value)) {
    const position = value.findIndex((item, index) => itemElement(node, item, index) === element);
    if (position < 0) return;
    if (rest.length === 0) value.splice(position, 1);
    else removePath(value[position]!, rest, typeOf(node.items));
    return;
  }
  if ((node.type === 'struct' || node.type === 'map') && isObject(value) && element.startsWith('f:')) {
    const name = element.slice(2);
    if (!(name in value)) return;
    if (rest.length === 0) delete value[name];
    else removePath(value[name]!, rest, typeOf(fieldSchema(node, name), name));
  }
}

/**
 * fieldpath.Set.EnsureNamedFieldsAreMembers: every struct field on a path of `set` becomes a
 * member itself (so pruning a config's last field of a struct takes the struct along).
 */
export function withNamedFieldsAsMembers(set: FieldSet, schema: JsonSchema | undefined): FieldSet {
  const result = set.clone();
  const root = typeOf(schema);
  for (const path of set.paths()) {
    // Every proper prefix of a member path that ends in a declared struct field.
    let node = root;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const element = path[depth]!;
      if (node.type === 'struct' && element.startsWith('f:') && isDeclared(node, element.slice(2))) result.insert(path.slice(0, depth + 1));
      node = childType(node, element);
    }
  }
  return result;
}

function childType(node: TypeNode, element: PathElement): TypeNode {
  if (node.type === 'list') return typeOf(node.items);
  if (element.startsWith('f:')) return typeOf(fieldSchema(node, element.slice(2)), element.slice(2));
  return { type: 'leaf' };
}

/**
 * The Go zero value of a kind as the API server's `New()` makes it and the field manager
 * compares a create against: metadata, and each struct the schema marks required (a Pod's spec
 * and its nil containers list, an Event's involvedObject) — so a create owns `f:spec` without
 * `.`, as on kube.
 */
export function zeroObject(schema: JsonSchema, apiVersion: string, kind: string): JsonObject {
  const zero = zeroStruct(schema, 0);
  return { ...zero, apiVersion, kind, metadata: {} };
}

function zeroStruct(schema: JsonSchema, depth: number): JsonObject {
  const result: JsonObject = {};
  if (depth > 3 || !schema.properties) return result;
  const required = new Set([...(schema.requiredFields ?? []), ...(depth === 0 ? ['spec', 'status'] : [])]);
  for (const [name, field] of Object.entries(schema.properties)) {
    if (!required.has(name) || name === 'metadata') continue;
    const node = typeOf(field, name);
    if (node.type === 'struct') result[name] = zeroStruct(field, depth + 1);
    else if (node.type === 'list' || node.type === 'map' || field.type === 'array') result[name] = null;
  }
  return result;
}

/** Drops null fields a typed object could not hold (after merging a config into a zero object). */
export function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [name, child] of Object.entries(value)) if (child !== null) result[name] = withoutNulls(child);
  return result;
}

/**
 * What structured-merge-diff's ObjectToTyped refuses in an applied configuration: a field a
 * struct does not declare (`.spec.bogus: field not declared in schema`; the first such field of
 * each object, as its validator stops there), two items of an associative or set list with
 * the same key (`.spec.containers: duplicate entries for key [name="c"]`) and an item of a
 * keyed list without any of its keys.
 */
export function configurationProblems(value: JsonValue, schema: JsonSchema | undefined): string[] {
  const problems: string[] = [];
  walkProblems(value, typeOf(schema), '', problems);
  return problems;
}

function walkProblems(value: JsonValue, node: TypeNode, path: string, problems: string[]): void {
  if (value === null || typeof value !== 'object' || node.type === 'leaf') return;
  if (node.type === 'list') {
    if (!Array.isArray(value)) return;
    const seen = new Set<PathElement>();
    for (const [index, item] of value.entries()) {
      if (node.relation === 'map' && node.keys.length > 0 && itemElement(node, item, index).startsWith('i:')) {
        const keys = `[${node.keys.map((key) => JSON.stringify(key)).join(' ')}]`;
        problems.push(`${path}: element ${index}: associative list with keys has an element that omits all key fields ${keys} (and doesn't have default values for any key fields)`);
        return;
      }
    }
    value.forEach((item, index) => {
      const element = itemElement(node, item, index);
      const shown = pathString([element]);
      if (seen.has(element)) {
        problems.push(`${path}: duplicate entries for key ${shown}`);
        return;
      }
      seen.add(element);
      walkProblems(item, typeOf(node.items), `${path}${shown}`, problems);
    });
    return;
  }
  if (!isObject(value)) return;
  for (const [name, child] of Object.entries(value)) {
    if (node.type === 'struct' && !Object.hasOwn(node.fields, name) && node.extra === undefined) {
      problems.push(`${path}.${name}: field not declared in schema`);
      return;
    }
    walkProblems(child, typeOf(fieldSchema(node, name), name), `${path}.${name}`, problems);
  }
}
