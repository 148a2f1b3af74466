// Owns: one stored object's record — the object, its deletion-lifecycle machine (persisted
// snapshot), and a short log of lifecycle transitions — and the pure functions that apply a
// create, update or delete to it, including precondition checks (uid, resourceVersion).
// Must not: touch the index, the history or sessions (apply.ts composes those), read a clock
// (times are the proposer's `at`), or mutate a record: every change returns a new record
// whose object is deep-frozen, so readers can hold stored objects without copying.
import { assert } from '../raft/stdx/index.ts';
import { foregroundFinalizer, orphanFinalizer } from './commands.ts';
import type { Preconditions, PropagationPolicy } from './commands.ts';
import { crdCleanupFinalizer, isCustomResourceDefinition, terminatingStatus } from './crd-deletion.ts';
import { deepFreeze, jsonEqual } from './json.ts';
import { storedJson } from './json-intern.ts';
import { advanceDeletion, initialDeletion } from './machines/deletion.ts';
import type { DeletionContext, DeletionEvent, DeletionStateName, PersistedDeletion } from './machines/deletion.ts';
import { advanceToken, initialToken } from './machines/token.ts';
import type { PersistedToken, TokenContext, TokenEvent, TokenStateName } from './machines/token.ts';
import { expirationKey, isBootstrapTokenSecret, tokenIdKey, tokenSecretData } from './machines/token-secret.ts';
import type { KubeObject, ObjectKey, ObjectMeta } from './object.ts';

/**
 * Lifecycle transitions kept per record, newest last. 32 covers an object's whole
 * deletion story (create, delete, each finalizer change) with room to spare, which is what
 * the lifecycle inspector shows; a bound is needed because an object whose finalizers churn
 * would otherwise grow its record (and every snapshot) without limit. Overflow: the oldest
 * entries are dropped.
 */
export const transitionsMax = 32;

export interface LifecycleTransition {
  /** 'CREATE' for the initial state, else the machine event type. */
  readonly event: 'CREATE' | DeletionEvent['type'];
  readonly from: DeletionStateName | null;
  readonly to: DeletionStateName;
  /** Raft index of the entry that caused it. */
  readonly revision: number;
  /** Proposer time of that entry's command (RFC 3339). */
  readonly at: string;
  /** Who caused it (the command's `by`: a user or a controller), when known. */
  readonly by?: string;
}

/** What caused a change: the proposer's time and, when known, who asked. */
export interface ChangeCause {
  readonly at: string;
  readonly by?: string | undefined;
}

function transitionOf(event: LifecycleTransition['event'], from: DeletionStateName | null, to: DeletionStateName, revision: number, cause: ChangeCause): LifecycleTransition {
  const at = storedJson.string(cause.at);
  return cause.by === undefined || cause.by === '' ? { event, from, to, revision, at } : { event, from, to, revision, at, by: storedJson.string(cause.by) };
}

/**
 * `lifecycle`, or the shared initial state when it is equal to it (records read back from a
 * snapshot), so restored records share it as created ones do.
 */
export function sharedLifecycle(lifecycle: PersistedDeletion): PersistedDeletion {
  const live = initialDeletion({ finalizers: [] }); // one shared frozen snapshot (deletion.ts)
  return lifecycle === live || !jsonEqual(lifecycle, live) ? lifecycle : live;
}

/** A transition of a bootstrap token secret's token machine (actors/machines/token.ts). */
export interface TokenTransition {
  /** 'CREATE' for the initial state, else the machine event type. */
  readonly event: 'CREATE' | TokenEvent['type'];
  readonly from: TokenStateName | null;
  readonly to: TokenStateName;
  readonly revision: number;
  readonly at: string;
  readonly by?: string;
}

/** The token machine of a bootstrap token secret and its bounded transition log (newest last). */
export interface TokenRecord {
  readonly machine: PersistedToken;
  readonly transitions: readonly TokenTransition[];
}

/** The token lifecycle as the inspector and the authenticator see it. */
export interface TokenLifecycle {
  readonly state: TokenStateName;
  readonly context: TokenContext;
  readonly transitions: readonly TokenTransition[];
}

/**
 * An object's lifecycle as the inspector shows it: the deletion machine's state and context, and
 * the bounded log of transitions; for a bootstrap token secret also its token machine. Carried by
 * every change event that moved a machine, so API replicas hold it too.
 */
export interface ObjectLifecycle {
  readonly state: DeletionStateName;
  readonly context: DeletionContext;
  readonly transitions: readonly LifecycleTransition[];
  readonly token?: TokenLifecycle;
}

export function lifecycleOfRecord(record: ResourceRecord): ObjectLifecycle {
  const lifecycle = { state: record.lifecycle.value, context: record.lifecycle.context, transitions: record.transitions };
  if (record.token === undefined) return lifecycle;
  return { ...lifecycle, token: { state: record.token.machine.value, context: record.token.machine.context, transitions: record.token.transitions } };
}

export interface ResourceRecord {
  readonly key: ObjectKey;
  /** Deep-frozen; metadata.resourceVersion = String(index of the entry that last changed it). */
  readonly object: KubeObject;
  readonly lifecycle: PersistedDeletion;
  readonly transitions: readonly LifecycleTransition[];
  /** Present for bootstrap token secrets (kube-system, bootstrap-token-*, of the token type) only. */
  readonly token?: TokenRecord;
}

/** Outcome of a write to a record. `changed: false` means nothing was written (no event). */
export type RecordChange =
  | { readonly type: 'stored'; readonly record: ResourceRecord; readonly changed: boolean }
  | { readonly type: 'finalizing'; readonly record: ResourceRecord; readonly changed: boolean }
  /** `record` is the final state (object with resourceVersion = the removing entry). */
  | { readonly type: 'removed'; readonly record: ResourceRecord }
  | { readonly type: 'invalid'; readonly message: string };

export const conflictMessage = 'the object has been modified; please apply your changes to the latest version and try again';

/** The conflict message if `preconditions` do not hold for `object`, else null. */
export function checkPreconditions(object: KubeObject, preconditions: Preconditions | undefined): string | null {
  if (preconditions === undefined) return null;
  const { uid, resourceVersion } = preconditions;
  if (uid !== undefined && uid !== object.metadata.uid) {
    return `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${object.metadata.uid ?? ''}`;
  }
  if (resourceVersion !== undefined && resourceVersion !== object.metadata.resourceVersion) return conflictMessage;
  return null;
}

export function lifecycleState(record: ResourceRecord): DeletionStateName {
  return record.lifecycle.value;
}

/** `key` with its group, resource and namespace strings shared with every other key's. */
export function sharedKeyParts(key: ObjectKey): ObjectKey {
  return { group: storedJson.string(key.group), resource: storedJson.string(key.resource), namespace: storedJson.string(key.namespace), name: key.name };
}

/** A new record for a created object. Takes ownership of `object` (it is frozen in place). */
export function createRecord(key: ObjectKey, object: KubeObject, revision: number, cause: ChangeCause): ResourceRecord {
  const metadata: ObjectMeta = { ...object.metadata, name: key.name, resourceVersion: String(revision) };
  setNamespace(metadata, key.namespace);
  delete metadata.deletionTimestamp; // server-owned: only a delete sets it
  delete metadata.deletionGracePeriodSeconds;
  const stored = storedJson.compactFrozen({ ...object, metadata });
  const lifecycle = initialDeletion({ finalizers: finalizersOf(stored) });
  const record: ResourceRecord = { key: sharedKeyParts(key), object: stored, lifecycle, transitions: [transitionOf('CREATE', null, 'live', revision, cause)] };
  if (!isBootstrapTokenSecret(key, stored)) return deepFreeze(record);
  const data = tokenSecretData(stored);
  const machine = initialToken({ tokenId: data[tokenIdKey] ?? '', expiration: data[expirationKey] ?? null });
  return deepFreeze({ ...record, token: { machine, transitions: [tokenTransitionOf('CREATE', null, 'valid', revision, cause)] } });
}

function tokenTransitionOf(event: TokenTransition['event'], from: TokenStateName | null, to: TokenStateName, revision: number, cause: ChangeCause): TokenTransition {
  return { event, from, to, revision, at: cause.at, ...(cause.by === undefined || cause.by === '' ? {} : { by: cause.by }) };
}

/**
 * Runs one token machine event; a transition is logged (bounded) when the state changed or the
 * event updates the context (EXPIRATION_CHANGED, DELETE). Records without a token machine pass.
 */
function advanceTokenOf(record: ResourceRecord, event: TokenEvent, revision: number, cause: ChangeCause): ResourceRecord {
  const token = record.token;
  if (token === undefined) return record;
  const machine = advanceToken(token.machine, event);
  if (machine.value === token.machine.value && jsonEqual(machine.context, token.machine.context)) return record;
  const transitions = [...token.transitions, tokenTransitionOf(event.type, token.machine.value, machine.value, revision, cause)].slice(-transitionsMax);
  return { ...record, token: { machine, transitions } };
}

/**
 * Applies an expireTokens command's time to one record: a valid token whose expiration is at or
 * before `cause.at` becomes expired (the object is unchanged but for its resourceVersion, so the
 * change is an event every watcher and API replica sees). Null when nothing changes.
 */
export function expireTokenRecord(record: ResourceRecord, revision: number, cause: ChangeCause): ResourceRecord | null {
  if (record.token === undefined || record.token.machine.value !== 'valid') return null;
  const next = advanceTokenOf(record, { type: 'EXPIRE', at: cause.at }, revision, cause);
  if (next === record) return null;
  assert(next.token?.machine.value === 'expired', 'a token that moved on EXPIRE expired');
  return deepFreeze({ ...next, object: deepFreeze(withResourceVersion(record.object, revision)) });
}

function expirationOf(object: KubeObject): string | null {
  return tokenSecretData(object)[expirationKey] ?? null;
}

/** Replaces the object of `record` with `object`, keeping server-owned metadata. */
export function updateRecord(record: ResourceRecord, object: KubeObject, revision: number, cause: ChangeCause): RecordChange {
  const candidate = withServerMetadata(object, record.object);
  const added = addedFinalizers(record, candidate);
  if (added.length > 0) {
    return { type: 'invalid', message: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` };
  }
  if (jsonEqual(candidate, record.object)) return { type: 'stored', record, changed: false };
  const stored = storedJson.compactFrozen(withResourceVersion(candidate, revision));
  const finalizers = finalizersOf(stored);
  let next = sameList(finalizers, record.lifecycle.context.finalizers)
    ? { ...record, object: stored }
    : advance({ ...record, object: stored }, { type: 'FINALIZERS_CHANGED', finalizers }, revision, cause);
  const expiration = expirationOf(stored);
  if (record.token !== undefined && expiration !== record.token.machine.context.expiration) {
    next = advanceTokenOf(next, { type: 'EXPIRATION_CHANGED', expiration }, revision, cause);
  }
  const state = lifecycleState(next);
  if (state === 'removed') next = advanceTokenOf(next, { type: 'DELETE', at: cause.at }, revision, cause);
  assert(state !== 'live' || stored.metadata.deletionTimestamp === undefined, 'a live object has no deletionTimestamp');
  return state === 'removed' ? { type: 'removed', record: deepFreeze(next) } : { type: 'stored', record: deepFreeze(next), changed: true };
}

/** The finalizer a propagation policy adds at the first delete, if any. */
function policyFinalizer(policy: PropagationPolicy | undefined): string | undefined {
  if (policy === 'Orphan') return orphanFinalizer;
  if (policy === 'Foreground') return foregroundFinalizer;
  return undefined;
}

/**
 * Deletes: removes at once without finalizers, else starts finalizing (first delete only; a
 * later delete changes nothing, whatever its policy). A positive `gracePeriodSeconds` (the API
 * tier's decision for pods) starts terminating instead: the object stays, with deletionTimestamp
 * at the end of the grace period, until a later delete shortens the period or ends it with 0.
 * Orphan and Foreground first add their finalizer (recorded as a FINALIZERS_CHANGED
 * transition), so the object waits for the garbage collector.
 */
export function deleteRecord(record: ResourceRecord, revision: number, cause: ChangeCause, policy?: PropagationPolicy, gracePeriodSeconds?: number): RecordChange {
  const at = cause.at;
  const state = lifecycleState(record);
  if (state === 'finalizing') return { type: 'finalizing', record, changed: false };
  if (state === 'terminating') return deleteTerminating(record, revision, cause, gracePeriodSeconds);
  assert(state === 'live', 'only live, terminating and finalizing objects are stored');
  const crd = isCustomResourceDefinition(record.object);
  const extras = [policyFinalizer(policy), crd ? crdCleanupFinalizer : undefined]
    .filter((finalizer): finalizer is string => finalizer !== undefined && !finalizersOf(record.object).includes(finalizer));
  if (extras.length > 0) {
    const finalizers = [...(record.object.metadata.finalizers ?? []), ...extras];
    const object = deepFreeze({ ...record.object, metadata: { ...record.object.metadata, finalizers } });
    record = advance({ ...record, object }, { type: 'FINALIZERS_CHANGED', finalizers: finalizersOf(object) }, revision, cause);
  }
  const next = advance(record, deleteEvent(at, gracePeriodSeconds), revision, cause);
  if (lifecycleState(next) === 'removed') {
    const removed = advanceTokenOf(next, { type: 'DELETE', at }, revision, cause);
    return { type: 'removed', record: deepFreeze({ ...removed, object: deepFreeze(withResourceVersion(record.object, revision)) }) };
  }
  assert(lifecycleState(next) === 'finalizing' || lifecycleState(next) === 'terminating', 'a delete leaves an object terminating, finalizing or removed');
  const metadata: ObjectMeta = { ...withDeletionMetadata(record.object, next.lifecycle), resourceVersion: String(revision) };
  if (typeof metadata.generation === 'number' && metadata.generation > 0) metadata.generation += 1; // as kube's BeforeDelete
  const object: KubeObject = isNamespace(record.object)
    ? { ...record.object, metadata, status: { ...statusOf(record.object), phase: 'Terminating' } }
    : crd ? { ...record.object, metadata, status: terminatingStatus(record.object, at) as KubeObject['status'] } : { ...record.object, metadata };
  return { type: 'finalizing', record: deepFreeze({ ...next, object: deepFreeze(object) }), changed: true };
}

function deleteEvent(at: string, gracePeriodSeconds: number | undefined): DeletionEvent {
  return gracePeriodSeconds === undefined ? { type: 'DELETE', at } : { type: 'DELETE', at, gracePeriodSeconds };
}

/** metadata.deletionTimestamp and deletionGracePeriodSeconds as the deletion machine's context has them. */
function withDeletionMetadata(object: KubeObject, lifecycle: PersistedDeletion): ObjectMeta {
  const deletionTimestamp = lifecycle.context.deletionTimestamp;
  assert(deletionTimestamp !== null, 'an object being deleted has a deletionTimestamp');
  return { ...object.metadata, deletionTimestamp, deletionGracePeriodSeconds: lifecycle.context.gracePeriodSeconds ?? 0 };
}

/**
 * A delete of a terminating object (kube's BeforeDelete for an object already being deleted): a
 * shorter grace period moves its deadline earlier, grace 0 ends it (removed, or finalizing when
 * finalizers remain), anything else changes nothing. No generation bump: only the first delete
 * bumps it.
 */
function deleteTerminating(record: ResourceRecord, revision: number, cause: ChangeCause, gracePeriodSeconds: number | undefined): RecordChange {
  const lifecycle = advanceDeletion(record.lifecycle, deleteEvent(cause.at, gracePeriodSeconds));
  if (lifecycle.value === 'terminating' && jsonEqual(lifecycle.context, record.lifecycle.context)) return { type: 'finalizing', record, changed: false };
  const next = advance(record, deleteEvent(cause.at, gracePeriodSeconds), revision, cause);
  assert(jsonEqual(next.lifecycle, lifecycle), 'the deletion machine is deterministic');
  const object = deepFreeze({ ...record.object, metadata: { ...withDeletionMetadata(record.object, next.lifecycle), resourceVersion: String(revision) } });
  if (lifecycleState(next) === 'removed') {
    const removed = advanceTokenOf(next, { type: 'DELETE', at: cause.at }, revision, cause);
    return { type: 'removed', record: deepFreeze({ ...removed, object }) };
  }
  return { type: 'finalizing', record: deepFreeze({ ...next, object }), changed: true };
}

/**
 * The corrupt-object path (spec: deletion lifecycle): removes the object whatever its
 * finalizers, as UNSAFE_DELETE. The API tier proposes it only for an object it cannot decode,
 * behind the AllowUnsafeMalformedObjectDeletion gate; apply skips preconditions for it.
 */
export function unsafeDeleteRecord(record: ResourceRecord, revision: number, cause: ChangeCause): RecordChange {
  assert(lifecycleState(record) !== 'removed', 'only live, terminating and finalizing objects are stored');
  const next = advance(record, { type: 'UNSAFE_DELETE', at: cause.at }, revision, cause);
  assert(lifecycleState(next) === 'removed', 'an unsafe delete always removes');
  const removed = advanceTokenOf(next, { type: 'DELETE', at: cause.at }, revision, cause);
  return { type: 'removed', record: deepFreeze({ ...removed, object: deepFreeze(withResourceVersion(record.object, revision)) }) };
}

/** Runs one machine event and logs the transition (bounded). */
function advance(record: ResourceRecord, event: DeletionEvent, revision: number, cause: ChangeCause): ResourceRecord {
  const from = lifecycleState(record);
  const lifecycle = advanceDeletion(record.lifecycle, event);
  const transitions = [...record.transitions, transitionOf(event.type, from, lifecycle.value, revision, cause)].slice(-transitionsMax);
  assert(transitions.length <= transitionsMax, 'transitions stay bounded');
  return { ...record, lifecycle, transitions };
}

/** Metadata an update cannot change: the stored values win. */
const serverOwnedFields: readonly string[] = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'namespace', 'name'];

/** `object` with uid, creationTimestamp, deletion fields, name and namespace of `stored`. */
function withServerMetadata(object: KubeObject, stored: KubeObject): KubeObject {
  const metadata: ObjectMeta = { ...object.metadata, resourceVersion: stored.metadata.resourceVersion };
  for (const field of serverOwnedFields) {
    const value = stored.metadata[field];
    if (value === undefined) delete metadata[field];
    else metadata[field] = value;
  }
  return { ...object, metadata };
}

function withResourceVersion(object: KubeObject, revision: number): KubeObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
}

function setNamespace(metadata: ObjectMeta, namespace: string): void {
  if (namespace === '') delete metadata.namespace;
  else metadata.namespace = namespace;
}

/** A core/v1 Namespace: its spec.finalizers also hold its deletion (kube's namespace finalizer). */
function isNamespace(object: KubeObject): boolean {
  return object.apiVersion === 'v1' && object.kind === 'Namespace';
}

function statusOf(object: KubeObject): Record<string, unknown> {
  const status = object['status'];
  return status !== null && typeof status === 'object' && !Array.isArray(status) ? status : {};
}

/**
 * The finalizers that hold an object's deletion: metadata.finalizers, and for a Namespace also
 * spec.finalizers (normally "kubernetes", removed by the namespace lifecycle controller once
 * the namespace is empty).
 */
function finalizersOf(object: KubeObject): string[] {
  const finalizers = object.metadata.finalizers;
  const own = Array.isArray(finalizers) ? [...finalizers] : [];
  if (!isNamespace(object)) return own;
  const spec = object['spec'];
  const specFinalizers = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec['finalizers'] : undefined;
  return Array.isArray(specFinalizers) ? [...own, ...specFinalizers.filter((item): item is string => typeof item === 'string')] : own;
}

/** Finalizers in `candidate` that the stored object lacks, if the object is being deleted (terminating or finalizing). */
function addedFinalizers(record: ResourceRecord, candidate: KubeObject): string[] {
  if (lifecycleState(record) === 'live') return [];
  const existing = new Set(record.lifecycle.context.finalizers);
  return [...new Set(finalizersOf(candidate).filter((f) => !existing.has(f)))].sort();
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
