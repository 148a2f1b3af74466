// Owns: RFC 7386 JSON merge patch and kube's strategic merge patch for the served kinds.
// Strategic merge differs from a merge patch only on lists and on `$`-directives: lists with
// a merge key (ownerReferences by uid, containers by name, conditions by type, …) merge element-wise,
// lists with the merge strategy (finalizers) are unions, `$patch: delete|replace`,
// `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are honoured. Hand-written:
// no maintained npm library implements kube's strategic merge.
import type { JsonValue } from '../../actors/index.ts';

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function applyMergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key] ?? null, value);
  }
  return result;
}

/**
 * List fields (by field name) whose elements merge by a key — the patchMergeKey of kube's v1
 * types for the served kinds — and those that are unions. `ports` is keyed by containerPort in
 * a container and by port in a Service spec, told apart by the elements.
 */
const mergeKeys: Readonly<Record<string, string>> = {
  ownerReferences: 'uid', secrets: 'name', imagePullSecrets: 'name',
  containers: 'name', initContainers: 'name', ephemeralContainers: 'name', volumes: 'name', env: 'name',
  volumeMounts: 'mountPath', volumeDevices: 'devicePath', hostAliases: 'ip', schedulingGates: 'name', resourceClaims: 'name',
  topologySpreadConstraints: 'topologyKey', conditions: 'type', podIPs: 'ip', hostIPs: 'ip', addresses: 'type',
};
const unionLists = new Set(['finalizers']);

function mergeKeyOf(field: string, original: readonly JsonValue[], patch: readonly JsonValue[]): string | undefined {
  if (field !== 'ports') return mergeKeys[field];
  const elements = [...patch, ...original].filter(isObject);
  if (elements.some((element) => element['containerPort'] !== undefined)) return 'containerPort';
  return elements.some((element) => element['port'] !== undefined) ? 'port' : undefined;
}

function mergeKeyedList(original: JsonValue[], patch: JsonValue[], key: string): JsonValue[] {
  const result = structuredClone(original);
  for (const element of patch) {
    if (!isObject(element)) continue;
    const position = result.findIndex((existing) => isObject(existing) && existing[key] === element[key]);
    if (element['$patch'] === 'delete') {
      if (position >= 0) result.splice(position, 1);
      continue;
    }
    if (position >= 0) result[position] = strategicMerge(result[position]!, element);
    else result.push(structuredClone(element));
  }
  return result;
}

function mergeList(field: string, original: JsonValue | undefined, patch: JsonValue[]): JsonValue[] {
  const base = Array.isArray(original) ? original : [];
  const key = mergeKeyOf(field, base, patch);
  if (key) return mergeKeyedList(base, patch, key);
  if (unionLists.has(field)) return [...base, ...patch.filter((element) => !base.includes(element))];
  return structuredClone(patch);
}

export function strategicMerge(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return structuredClone(patch);
  if (patch['$patch'] === 'replace') {
    const { $patch: _directive, ...rest } = patch;
    return structuredClone(rest);
  }
  if (patch['$patch'] === 'delete') return {};
  const result: JsonObject = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$setElementOrder/') || key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) result[field] = current.filter((element) => !value.includes(element));
      continue;
    }
    if (value === null) delete result[key];
    else if (Array.isArray(value)) result[key] = mergeList(key, result[key], value);
    else result[key] = strategicMerge(result[key] ?? null, value);
  }
  return result;
}
