// Owns: RFC 7386 JSON merge patch and kube's strategic merge patch for the served kinds.
// Strategic merge differs from a merge patch only on lists and on `$`-directives: lists with
// a merge key (ownerReferences by uid, containers by name, conditions by type, …, as the kind's
// schema says) merge element-wise, lists of scalars with the merge strategy (finalizers) are
// unions, fields with the replace strategy are replaced whole, `$patch: delete|replace`,
// `$deleteFromPrimitiveList/<field>`, `$retainKeys` and `$setElementOrder/<field>` are honoured
// (element order aside), and a malformed directive is refused with strategicpatch's error and
// the code kube-apiserver answers it with (interpretStrategicMergePatchError): 400 for the
// "invalid patch format of …" errors; 500 without a reason for the others, which kube does not
// turn into a Status ("unknown patch type: bogus in map: map[$patch:bogus]", "expected a
// []interface {}, but received a string"). As in kube, directives are checked where the patch
// merges into something that exists (always at the top); a directive in a value that is new is
// not. Hand-written: no maintained npm library implements kube's strategic merge.
import type { JsonValue } from '../../actors/index.ts';
import { goFormat, goTypeName } from '../go-format.ts';
import { firstTooDeep } from '../json-depth.ts';
import { nestingDepthMax } from '../request-limits.ts';
import { ApiError, badRequest } from '../status.ts';
import type { JsonSchema } from '../registry/schemas.ts';

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The appliers recurse along the patch, so a patch deeper than any decoder here accepts is
 * refused before they start, with the decoder's 400 (api/decode.ts refuses it earlier still).
 */
function checkPatchDepth(patch: JsonValue, prefix: string): void {
  const tooDeep = firstTooDeep(patch, nestingDepthMax);
  if (tooDeep !== undefined) throw badRequest(`${prefix}invalid character '${tooDeep === 'array' ? '[' : '{'}' exceeded max depth`);
}

function mergePatchInto(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatchInto(result[key] ?? null, value);
  }
  return result;
}

/** Applies an RFC 7386 merge patch to `target` (neither is mutated). */
export function applyMergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  checkPatchDepth(patch, 'error decoding patch: ');
  return mergePatchInto(target, patch);
}

/**
 * A field's strategic merge metadata, read from the kind's schema (built from kube's generated
 * types: `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key`, as kubectl reads them
 * from OpenAPI): a list merges element-wise by its merge key, or as a union of scalars, only when
 * its strategy is `merge`; a map or list whose strategy is `replace` is replaced whole; anything
 * without metadata (or without a schema) merges as a map or is replaced as a list.
 */
interface PatchMeta {
  readonly strategies: readonly string[];
  readonly mergeKey: string | undefined;
}

function patchMetaOf(schema: JsonSchema | undefined): PatchMeta {
  const strategy = schema?.['x-kubernetes-patch-strategy'];
  return { strategies: strategy === undefined ? [] : strategy.split(','), mergeKey: schema?.['x-kubernetes-patch-merge-key'] };
}

/** The schema of a map's field: a declared property, or the map's value schema. */
function fieldSchema(schema: JsonSchema | undefined, field: string): JsonSchema | undefined {
  if (schema === undefined) return undefined;
  const declared = schema.properties?.[field];
  if (declared !== undefined) return declared;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/** An error kube-apiserver answers without a Status of its own: 500, no reason, the error's text. */
function nonStatusError(message: string): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const setElementOrderPrefix = '$setElementOrder';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';

/** mergepatch.ErrBadPatchType. */
function badPatchType(directive: JsonValue | undefined, map: JsonObject): ApiError {
  return nonStatusError(`unknown patch type: ${goFormat(directive ?? null, 's')} in map: ${goFormat(map)}`);
}

/** mergepatch.ErrBadArgType of a list that is not one. */
function notAList(actual: JsonValue | undefined): ApiError {
  return nonStatusError(`expected a []interface {}, but received a ${goTypeName(actual)}`);
}

/** mergepatch.ErrNoMergeKey. */
function noMergeKey(map: JsonObject, key: string): ApiError {
  return nonStatusError(`map: ${goFormat(map)} does not contain declared merge key: ${key}`);
}

/** strategicpatch's extractKey: the field a `<prefix>/<field>` directive names, or undefined for a malformed key. */
function directiveField(key: string, prefix: string): string | undefined {
  const slash = key.indexOf('/');
  return slash < 0 || key.slice(0, slash) !== prefix ? undefined : key.slice(slash + 1);
}

/**
 * The first directive problem strategicpatch's mergeMap finds in `patch` merged into an existing
 * map, in its order: `$patch` other than replace/delete (500); `$retainKeys` not a list, or not
 * naming a field the patch sets (400 "invalid patch format of retainKeys");
 * `$setElementOrder/<field>` not a list, or its field in the patch not a list (500), or a
 * `$setElementOrder…` key without `/` (400); a `$deleteFromPrimitiveList…` key without `/` (400).
 */
function mapDirectiveProblem(patch: JsonObject): ApiError | undefined {
  if (Object.hasOwn(patch, directiveMarker)) {
    const directive = patch[directiveMarker];
    return directive === 'replace' || directive === 'delete' ? undefined : badPatchType(directive, patch);
  }
  if (Object.hasOwn(patch, retainKeysDirective)) {
    const keys = patch[retainKeysDirective];
    if (!Array.isArray(keys)) return badRequest('invalid patch format of retainKeys');
    for (const [key, value] of Object.entries(patch)) {
      if (key === retainKeysDirective || value === null || key.startsWith(deleteFromPrimitiveListPrefix) || key.startsWith(setElementOrderPrefix)) continue;
      if (!keys.includes(key)) return badRequest('invalid patch format of retainKeys');
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    if (!Array.isArray(value)) return notAList(value);
    const field = directiveField(key, setElementOrderPrefix);
    if (field === undefined) return badRequest('invalid patch format of setElementOrder list');
    if (Object.hasOwn(patch, field) && !Array.isArray(patch[field])) return notAList(patch[field]);
  }
  for (const key of Object.keys(patch)) {
    if (key.startsWith(deleteFromPrimitiveListPrefix) && directiveField(key, deleteFromPrimitiveListPrefix) === undefined) {
      return badRequest('invalid patch format of primitive list');
    }
  }
  return undefined;
}

/**
 * What kube refuses in a strategic merge patch before looking at the object: its top level is
 * always merged into the object, so its directives are always checked (mapDirectiveProblem).
 * A patch that is not an object is the decoder's business (api/decode.ts).
 */
export function strategicPatchProblem(patch: JsonValue): ApiError | undefined {
  return isObject(patch) ? mapDirectiveProblem(patch) : undefined;
}

/** The directives of a merging list's items (mergeSliceWithSpecialElements); true when one asks to replace the list. */
function listDirectives(patch: readonly JsonValue[], key: string): boolean {
  let replace = false;
  for (const element of patch) {
    if (!isObject(element) || !Object.hasOwn(element, directiveMarker)) continue;
    const directive = element[directiveMarker];
    if (directive === 'delete') {
      if (!Object.hasOwn(element, key)) throw noMergeKey(element, key);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw nonStatusError('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, element);
    }
  }
  return replace;
}

function isDirectiveElement(element: JsonValue): boolean {
  return isObject(element) && Object.hasOwn(element, directiveMarker);
}

function mergeKeyedList(original: JsonValue[], patch: JsonValue[], key: string, merging: boolean, items: JsonSchema | undefined): JsonValue[] {
  if (merging && listDirectives(patch, key)) return structuredClone(patch.filter((element) => !isDirectiveElement(element)));
  let result = structuredClone(original);
  for (const element of patch) {
    if (!isObject(element)) continue;
    if (element[directiveMarker] === 'delete') {
      result = result.filter((existing) => !(isObject(existing) && existing[key] === element[key]));
      continue;
    }
    if (merging && !Object.hasOwn(element, key)) throw noMergeKey(element, key);
    const position = result.findIndex((existing) => isObject(existing) && existing[key] === element[key]);
    if (position >= 0) result[position] = mergeMap(result[position]!, element, isObject(result[position]), items);
    else result.push(structuredClone(element));
  }
  return result;
}

function mergeList(original: JsonValue | undefined, patch: JsonValue[], schema: JsonSchema | undefined): JsonValue[] {
  const base = Array.isArray(original) ? original : [];
  const meta = patchMetaOf(schema);
  if (!meta.strategies.includes('merge')) return structuredClone(patch);
  if (meta.mergeKey !== undefined) return mergeKeyedList(base, patch, meta.mergeKey, Array.isArray(original), schema?.items);
  // A list of scalars with the merge strategy (finalizers) is a union.
  return [...base, ...patch.filter((element) => !base.includes(element))];
}

/** Whether Go would see the two decoded values as the same type (int64 and float64 differ). */
function sameGoType(a: JsonValue, b: JsonValue): boolean {
  return goTypeName(a) === goTypeName(b);
}

/**
 * Merges `patch` into `target`. `merging` is whether `patch` meets an existing map (kube's
 * mergeMap): only then are its directives checked, as kube checks them.
 */
function mergeMap(target: JsonValue, patch: JsonValue, merging: boolean, schema: JsonSchema | undefined): JsonValue {
  if (!isObject(patch)) return structuredClone(patch);
  if (merging) {
    const problem = mapDirectiveProblem(patch);
    if (problem) throw problem;
  }
  if (patch[directiveMarker] === 'replace') {
    const { [directiveMarker]: _directive, ...rest } = patch;
    return structuredClone(rest);
  }
  if (patch[directiveMarker] === 'delete') return {};
  const result: JsonObject = isObject(target) ? structuredClone(target) : {};
  const retained = patch[retainKeysDirective];
  if (Array.isArray(retained)) for (const key of Object.keys(result)) if (!retained.includes(key)) delete result[key];
  if (merging) {
    for (const key of Object.keys(patch)) {
      const field = key.startsWith(setElementOrderPrefix) ? directiveField(key, setElementOrderPrefix) : undefined;
      if (field !== undefined && Object.hasOwn(result, field) && !Array.isArray(result[field])) throw notAList(result[field]);
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(setElementOrderPrefix) || key === directiveMarker || key === retainKeysDirective) continue;
    if (key.startsWith(deleteFromPrimitiveListPrefix)) {
      const field = directiveField(key, deleteFromPrimitiveListPrefix);
      if (field === undefined) continue;
      const current = result[field];
      // kube's mergeMap with a deletion list: a list loses the listed scalars; null deletes the
      // field; a value of the field's own type replaces it (a map merges); anything else is ignored.
      if (value === null) delete result[field];
      else if (Array.isArray(current) && Array.isArray(value)) result[field] = current.filter((element) => !value.includes(element));
      else if (current !== undefined && !Array.isArray(value) && sameGoType(current, value)) result[field] = mergeMap(current, value, isObject(current), fieldSchema(schema, field));
      continue;
    }
    const child = fieldSchema(schema, key);
    if (value === null) delete result[key];
    else if (Array.isArray(value)) result[key] = mergeList(result[key], value, child);
    else if (isObject(value) && patchMetaOf(child).strategies.includes('replace')) result[key] = structuredClone(value);
    else result[key] = mergeMap(result[key] ?? null, value, merging && isObject(result[key]) && isObject(value), child);
  }
  return result;
}

/**
 * Applies a strategic merge patch to `target` (neither is mutated), merging lists as the kind's
 * schema says; throws ApiError for a malformed directive.
 */
export function strategicMerge(target: JsonValue, patch: JsonValue, schema: JsonSchema | undefined): JsonValue {
  checkPatchDepth(patch, '');
  return mergeMap(target, patch, isObject(target), schema);
}
