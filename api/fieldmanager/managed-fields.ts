// Owns: metadata.managedFields, as kube-apiserver's field manager keeps it
// (k8s.io/apimachinery/pkg/util/managedfields/internal with sigs.k8s.io/structured-merge-diff's
// Updater): decoding and encoding the entries, the field sets an Update gives its manager and
// takes from the others, server-side Apply (merge, prune, conflicts, force), the stripped
// metadata paths, the subresource's reset fields, sorting, and capping the Update entries at 10
// (the oldest merged into `ancient-changes`). Pure functions of (live object, new object or
// applied configuration, manager, time): the API tier calls them before it proposes a write.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { JsonSchema } from '../registry/schemas.ts';
import { ApiError } from '../status.ts';
import { FieldSet, FieldSetError, canonicalJson, fieldElement, pathString } from './field-set.ts';
import type { Path } from './field-set.ts';
import { compare, isObject, merge, removePaths, toFieldSet, withNamedFieldsAsMembers, withoutNulls, zeroObject } from './typed.ts';

export type Operation = 'Apply' | 'Update';

/** One manager's entry: kube keys appliers by (manager, subresource), updaters also by apiVersion. */
export interface ManagedEntry {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  readonly subresource: string;
  time: string | undefined;
  fields: FieldSet;
}

/** kube's capManagersManager default and bucket name. */
export const maxUpdateManagers = 10;
export const ancientChangesManager = 'ancient-changes';

/** StripMetaManager: never owned by anyone (exact paths; their children are not stripped). */
const strippedPaths = FieldSet.of(
  ['f:apiVersion'], ['f:kind'], ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']
    .map((name) => [fieldElement('metadata'), fieldElement(name)]),
);

/** The identity of an entry (BuildManagerIdentifier: no time, no fields; appliers without apiVersion). */
export function managerIdentity(entry: Pick<ManagedEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  // The JSON of {manager, operation, apiVersion (updaters), subresource (when set)}, written directly.
  const version = entry.operation === 'Apply' ? '' : `,"apiVersion":${JSON.stringify(entry.apiVersion)}`;
  const subresource = entry.subresource ? `,"subresource":${JSON.stringify(entry.subresource)}` : '';
  return `{"manager":${JSON.stringify(entry.manager)},"operation":${JSON.stringify(entry.operation)}${version}${subresource}}`;
}

export class ManagedFieldsError extends Error {}

/** DecodeManagedFields: throws ManagedFieldsError for an entry kube would refuse. */
export function decodeManagedFields(entries: readonly JsonValue[] | undefined): Map<string, ManagedEntry> {
  const result = new Map<string, ManagedEntry>();
  (entries ?? []).forEach((raw, index) => {
    if (!isObject(raw)) throw new ManagedFieldsError(`managed fields entry ${index} is not an object`);
    const operation = raw['operation'];
    if (operation !== 'Apply' && operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    const apiVersion = raw['apiVersion'];
    if (typeof apiVersion !== 'string' || apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
    const fieldsType = raw['fieldsType'];
    if (fieldsType === undefined || fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${index}`);
    if (fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${index}`);
    let fields: FieldSet;
    try {
      fields = FieldSet.fromFieldsV1(raw['fieldsV1']);
    } catch (error) {
      if (error instanceof FieldSetError) throw new ManagedFieldsError(`error decoding versioned set: ${error.message}`);
      throw error;
    }
    const entry: ManagedEntry = {
      manager: typeof raw['manager'] === 'string' ? raw['manager'] : '', operation, apiVersion,
      subresource: typeof raw['subresource'] === 'string' ? raw['subresource'] : '',
      time: typeof raw['time'] === 'string' && raw['time'] !== '' ? raw['time'] : undefined, fields,
    };
    result.set(managerIdentity(entry), entry);
  });
  return result;
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const parsed = Date.parse(time);
  return Number.isNaN(parsed) ? 0 : Math.floor(parsed / 1000);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** sortEncodedManagedFields: operation, time (seconds), manager, apiVersion, subresource. */
function compareEntries(p: ManagedEntry, q: ManagedEntry): number {
  return compareStrings(p.operation, q.operation) || seconds(p.time) - seconds(q.time) || compareStrings(p.manager, q.manager)
    || compareStrings(p.apiVersion, q.apiVersion) || compareStrings(p.subresource, q.subresource);
}

/** EncodeObjectManagedFields: the wire entries, sorted; empty sets are dropped. */
export function encodeManagedFields(managed: Map<string, ManagedEntry>): JsonValue[] {
  return [...managed.values()].filter((entry) => !entry.fields.empty()).sort(compareEntries).map((entry) => ({
    manager: entry.manager, operation: entry.operation, apiVersion: entry.apiVersion,
    ...(entry.time !== undefined ? { time: entry.time } : {}),
    fieldsType: 'FieldsV1', fieldsV1: entry.fields.toFieldsV1(),
    ...(entry.subresource ? { subresource: entry.subresource } : {}),
  }));
}

/** capManagersManager: more than 10 Update entries → the oldest merged, per apiVersion, into `ancient-changes`. */
function capUpdateManagers(managed: Map<string, ManagedEntry>): void {
  if (managed.size <= maxUpdateManagers) return;
  const updaters = [...managed.entries()].filter(([, entry]) => entry.operation === 'Update');
  if (updaters.length <= maxUpdateManagers) return;
  updaters.sort(([idA, a], [idB, b]) => seconds(a.time) - seconds(b.time) || compareStrings(idA, idB));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > maxUpdateManagers; i++) {
    const [id, entry] = updaters[i]!;
    const bucket = managerIdentity({ manager: ancientChangesManager, operation: 'Update', apiVersion: entry.apiVersion, subresource: '' });
    const first = firstOfVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(entry.apiVersion, id);
      continue;
    }
    if (!managed.has(bucket)) {
      const firstEntry = managed.get(first)!;
      managed.delete(first);
      managed.set(bucket, { ...firstEntry, manager: ancientChangesManager, operation: 'Update', subresource: '' });
    }
    const bucketEntry = managed.get(bucket)!;
    bucketEntry.fields = entry.fields.union(bucketEntry.fields);
    bucketEntry.time = entry.time;
    managed.delete(id);
    length--;
  }
}

/** What a write's field manager is told: who, at which version and subresource, when. */
export interface WriteIdentity {
  readonly manager: string;
  readonly apiVersion: string;
  /** '' for the main resource. */
  readonly subresource: string;
  /** RFC 3339, seconds. */
  readonly time: string;
}

/**
 * The fields a write may own: for a main-resource write everything but the status of a kind
 * with a status subresource (kube's resetFields), for a status write only the status.
 */
export interface OwnershipScope {
  readonly schema: JsonSchema;
  /** Whether the kind serves a status subresource (then a main-resource write does not own status). */
  readonly hasStatus: boolean;
}

function scoped(set: FieldSet, identity: WriteIdentity, scope: OwnershipScope): FieldSet {
  const status = [fieldElement('status')];
  if (identity.subresource === 'status') return set.onlySubtree(status);
  if (identity.subresource === '' && scope.hasStatus) return set.withoutSubtree(status);
  return set;
}

function comparable(object: KubeObject): JsonValue {
  // The walks only read: an object without the member is compared as it is.
  if (!Object.hasOwn(object.metadata, 'managedFields')) return object as unknown as JsonValue;
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata } as unknown as JsonValue;
}

function isResetRequest(entries: readonly JsonValue[] | undefined): boolean {
  return entries !== undefined && entries.length === 1 && isObject(entries[0]) && Object.keys(entries[0]).length === 0;
}

/**
 * The managed state an Update starts from (decodeLiveOrNew): a subresource write always the
 * live object's; `[{}]` in the request resets it; a valid, non-empty list the request sets
 * is taken as given; otherwise (absent, `[]`, invalid) the live object's.
 */
function startingState(live: KubeObject, next: KubeObject, subresource: string): Map<string, ManagedEntry> {
  if (subresource !== '') return liveManagedState(live);
  const requested = next.metadata.managedFields as JsonValue | undefined;
  if (!Array.isArray(requested) || requested.length === 0) return liveManagedState(live);
  if (isResetRequest(requested)) return new Map();
  try {
    const decoded = decodeManagedFields(requested);
    return decoded.size === 0 ? liveManagedState(live) : decoded;
  } catch {
    return liveManagedState(live);
  }
}

/** The live object's managed state; none when its entries do not decode. */
function liveManagedState(live: KubeObject): Map<string, ManagedEntry> {
  const entries = live.metadata.managedFields;
  if (entries === undefined) return new Map();
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

/**
 * An Update (create, PUT, JSON/merge/strategic patch, a status write): sets
 * `next.metadata.managedFields` from `live` (the stored object, or the kind's zero object for
 * a create). The manager's entry for this apiVersion and subresource gains what the write
 * added or changed (except the `notOwned` subtrees); every other entry loses what the write
 * changed or removed.
 */
export function updateManagedFields(live: KubeObject, next: KubeObject, identity: WriteIdentity, scope: OwnershipScope, notOwned: readonly Path[] = []): void {
  const managed = startingState(live, next, identity.subresource);
  const comparison = compare(comparable(live), comparable(next), scope.schema);
  // The comparison's sets are this call's own: `added` can be taken as is when nothing was modified.
  const addedOrModified = comparison.modified.empty() ? comparison.added : comparison.added.union(comparison.modified);
  const changed = notOwned.reduce((set, path) => set.withoutSubtree(path), scoped(addedOrModified, identity, scope));
  const removed = scoped(comparison.removed, identity, scope);
  const self = managerIdentity({ manager: identity.manager, operation: 'Update', apiVersion: identity.apiVersion, subresource: identity.subresource });
  for (const [id, entry] of managed) {
    if (id === self) continue;
    entry.fields = entry.fields.difference(changed).difference(removed);
  }
  const gained = changed.difference(strippedPaths);
  const previous = managed.get(self);
  if (!gained.empty()) {
    // Without a previous entry the fields are `gained` itself (it holds no stripped path).
    const fields = previous === undefined ? gained : previous.fields.difference(removed).union(gained).difference(strippedPaths);
    managed.set(self, {
      manager: identity.manager, operation: 'Update', apiVersion: identity.apiVersion, subresource: identity.subresource,
      time: identity.time, fields,
    });
  } else if (previous) {
    previous.fields = previous.fields.difference(removed);
  }
  for (const [id, entry] of managed) if (entry.fields.empty()) managed.delete(id);
  capUpdateManagers(managed);
  setManagedFields(next, managed);
}

function setManagedFields(object: KubeObject, managed: Map<string, ManagedEntry>): void {
  const encoded = encodeManagedFields(managed);
  if (encoded.length === 0) delete object.metadata.managedFields;
  else object.metadata.managedFields = encoded;
}

export interface FieldConflict {
  /** The identity of the manager that owns the field (see managerIdentity). */
  readonly manager: ManagedEntry;
  readonly path: Path;
}

/** printManager: `"m"` for an applier, `"m" using v1` for an updater, `with subresource "status"`. */
export function describeManager(entry: ManagedEntry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === 'Update') text += ` using ${entry.apiVersion}`;
  return text;
}

/** NewConflictError: 409 Conflict, reason Conflict, a FieldManagerConflict cause per field. */
export function conflictError(conflicts: readonly FieldConflict[]): ApiError {
  const causes = conflicts.map((conflict) => ({
    reason: 'FieldManagerConflict', message: `conflict with ${describeManager(conflict.manager)}`, field: pathString(conflict.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${describeManager(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const conflict of conflicts) {
      const key = managerIdentity(conflict.manager);
      byManager.set(key, [...(byManager.get(key) ?? []), pathString(conflict.path)]);
    }
    const lines: string[] = [];
    for (const key of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${describeManager(conflicts.find((conflict) => managerIdentity(conflict.manager) === key)!.manager)}:`);
      for (const path of byManager.get(key)!) lines.push(`- ${path}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Conflict', details: { causes }, code: 409 });
}

export interface Applied {
  /** The merged object, with its managedFields set. */
  readonly object: KubeObject;
}

/**
 * Server-side apply (structured-merge-diff's Updater.Apply with kube's wrappers): the live
 * object (the zero object when absent) merged with `config`; the fields this applier applied
 * before and no longer applies are removed unless another manager owns them; a changed field
 * another manager owns is a conflict (409) unless `force`, which takes it over. The applier's
 * entry becomes exactly the configuration's field set. For the manager `kubectl`, as kube:
 * conflicts on fields its client-side last-applied annotation set are taken over, and an
 * existing last-applied annotation is rewritten to the applied configuration.
 */
export function applyConfiguration(live: KubeObject, config: KubeObject, identity: WriteIdentity, scope: OwnershipScope, force: boolean): Applied {
  live = withBeforeFirstApply(live, identity, scope);
  let result = applyOnce(live, config, identity, scope, force);
  if ('conflicts' in result && identity.manager === 'kubectl') {
    // lastAppliedManager: kubectl's first server-side apply of an object it applied client-side
    // may take the fields its last-applied configuration set (and the live object still has).
    const allowed = lastAppliedFields(live, scope);
    const remaining = allowed === undefined ? result.conflicts : result.conflicts.filter((conflict) => !allowed.has(conflict.path));
    result = remaining.length === 0 ? applyOnce(live, config, identity, scope, true) : { conflicts: remaining };
  }
  if ('conflicts' in result) throw conflictError(result.conflicts);
  // lastAppliedUpdater: kubectl's server-side apply keeps an existing last-applied annotation in step.
  if (identity.manager === 'kubectl' && lastAppliedOf(live) !== undefined) setLastApplied(result.object, config);
  return result;
}

/** skipNonAppliedManager's manager for the fields of an object nobody manages yet. */
export const beforeFirstApplyManager = 'before-first-apply';

/**
 * skipNonAppliedManager: an object without managedFields (written before the field manager
 * ran, or reset) first gets an Update entry `before-first-apply` for everything it holds, so
 * an apply that changes those fields conflicts instead of silently taking them.
 */
function withBeforeFirstApply(live: KubeObject, identity: WriteIdentity, scope: OwnershipScope): KubeObject {
  const entries = live.metadata.managedFields;
  if (Array.isArray(entries) && entries.length > 0) return live;
  const owned = structuredClone(live);
  delete owned.metadata.managedFields;
  updateManagedFields(zeroObject(scope.schema, live.apiVersion, live.kind) as unknown as KubeObject, owned, { ...identity, manager: beforeFirstApplyManager }, scope);
  return owned;
}

export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
/** kube's total annotation size limit: a last-applied value that would pass it is left out. */
const annotationsSizeMax = 256 * 1024;

function lastAppliedOf(object: KubeObject): string | undefined {
  const value = object.metadata.annotations?.[lastAppliedAnnotation];
  return value === undefined || value === '' ? undefined : value;
}

/** allowedConflictsFromLastApplied: the last-applied configuration's fields whose values the live object still has. */
function lastAppliedFields(live: KubeObject, scope: OwnershipScope): FieldSet | undefined {
  const raw = lastAppliedOf(live);
  if (raw === undefined) return undefined;
  let lastApplied: JsonValue;
  try {
    lastApplied = JSON.parse(raw) as JsonValue;
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied)) return undefined;
  const comparison = compare(lastApplied, comparable(live), scope.schema);
  return toFieldSet(lastApplied, scope.schema).difference(comparison.modified).difference(comparison.added).difference(comparison.removed);
}

/** buildLastApplied + SetLastApplied: the configuration as Go encodes it (sorted keys, newline), without the annotation itself. */
function setLastApplied(object: KubeObject, config: KubeObject): void {
  const copy = structuredClone(config);
  if (copy.metadata.annotations !== undefined) {
    copy.metadata.annotations = Object.fromEntries(Object.entries(copy.metadata.annotations).filter(([key]) => key !== lastAppliedAnnotation));
  }
  const value = `${canonicalJson(copy as unknown as JsonValue)}\n`;
  const merged: Record<string, string> = { ...(object.metadata.annotations ?? {}), [lastAppliedAnnotation]: value };
  const size = Object.entries(merged).reduce((total, [key, text]) => total + key.length + text.length, 0);
  object.metadata.annotations = size > annotationsSizeMax
    ? Object.fromEntries(Object.entries(merged).filter(([key]) => key !== lastAppliedAnnotation))
    : merged;
}

function applyOnce(live: KubeObject, config: KubeObject, identity: WriteIdentity, scope: OwnershipScope, force: boolean): Applied | { readonly conflicts: FieldConflict[] } {
  const managed = (() => {
    try {
      return decodeManagedFields(live.metadata.managedFields);
    } catch {
      return new Map<string, ManagedEntry>();
    }
  })();
  const liveValue = comparable(live);
  const configValue = comparable(config);
  const self = managerIdentity({ manager: identity.manager, operation: 'Apply', apiVersion: identity.apiVersion, subresource: identity.subresource });
  const lastSet = managed.get(self)?.fields;
  const applied = scoped(toFieldSet(configValue, scope.schema), identity, scope).difference(strippedPaths);
  let merged = withoutNulls(merge(liveValue, configValue, scope.schema) ?? {});
  // prune: what this applier applied last time and no longer does, unless someone owns it (or something under it).
  if (lastSet && !lastSet.empty()) {
    let owned = applied;
    for (const [id, entry] of managed) if (id !== self) owned = owned.union(entry.fields);
    const ownedMembers = withNamedFieldsAsMembers(owned, scope.schema);
    const candidates = withNamedFieldsAsMembers(lastSet, scope.schema).difference(ownedMembers).difference(strippedPaths);
    const removable = new FieldSet();
    for (const path of candidates.paths()) {
      if (ownedMembers.hasDescendants(path)) continue;
      if (path.some((_, depth) => depth < path.length - 1 && removable.has(path.slice(0, depth + 1)))) continue;
      removable.insert(path);
    }
    merged = removePaths(merged, removable, scope.schema);
  }
  const comparison = compare(liveValue, merged, scope.schema);
  const changed = scoped(comparison.added.union(comparison.modified), identity, scope);
  const removed = scoped(comparison.removed, identity, scope);
  const conflicts: FieldConflict[] = [];
  for (const [id, entry] of managed) {
    if (id === self) continue;
    for (const path of entry.fields.intersection(changed).paths()) conflicts.push({ manager: entry, path });
  }
  if (conflicts.length > 0 && !force) {
    conflicts.sort((a, b) => compareStrings(managerIdentity(a.manager), managerIdentity(b.manager)));
    return { conflicts };
  }
  for (const [id, entry] of managed) {
    if (id === self) continue;
    entry.fields = entry.fields.difference(changed).difference(removed);
  }
  const previous = managed.get(self);
  const objectChanged = !comparison.added.empty() || !comparison.modified.empty() || !comparison.removed.empty();
  managed.set(self, {
    manager: identity.manager, operation: 'Apply', apiVersion: identity.apiVersion, subresource: identity.subresource,
    time: objectChanged || previous === undefined || !previous.fields.equals(applied) ? identity.time : previous.time,
    fields: applied,
  });
  for (const [id, entry] of managed) if (entry.fields.empty()) managed.delete(id);
  capUpdateManagers(managed);
  const object = merged as unknown as KubeObject;
  if (!isObject(object.metadata as unknown as JsonValue)) object.metadata = {};
  setManagedFields(object, managed);
  return { object };
}

const fieldManagerMaxLength = 128;

/** ValidateFieldManager: at most 128 bytes, all printable; the causes of kube's 422 (positions in bytes, as Go's range). */
export function fieldManagerProblems(fieldManager: string): { reason: string; message: string; field: string }[] {
  const problems: { reason: string; message: string; field: string }[] = [];
  if (Buffer.byteLength(fieldManager) > fieldManagerMaxLength) {
    problems.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${fieldManagerMaxLength} bytes`, field: 'fieldManager' });
  }
  let position = 0;
  for (const character of fieldManager) {
    if (!isPrintable(character)) {
      const code = character.codePointAt(0)!;
      problems.push({
        reason: 'FieldValueInvalid', field: 'fieldManager',
        message: `Invalid value: ${JSON.stringify(fieldManager)}: invalid character U+${code.toString(16).toUpperCase().padStart(4, '0')} (at position ${position})`,
      });
    }
    position += Buffer.byteLength(character);
  }
  return problems;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrintable(character: string): boolean {
  return character === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(character);
}

/** prefixFromUserAgent: the User-Agent up to its first `/`, printable characters only, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0]!;
  let result = '';
  let bytes = 0;
  for (const character of prefix) {
    if (!isPrintable(character)) continue;
    const size = Buffer.byteLength(character);
    if (bytes + size > fieldManagerMaxLength) break;
    result += character;
    bytes += size;
  }
  return result;
}
