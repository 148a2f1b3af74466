// Owns: applying one committed command to the store state — the rules of create, update and
// delete (existence, namespaces, preconditions, finalizers, no-op writes), the change events
// they emit, the history append, and session dedupe (Raft thesis §6.3).
// Must not: read a clock, random numbers or I/O (the outcome depends only on the state
// and the entry, so every replica reaches the same state), throw on a bad command (a failure is a result),
// or notify anyone (cluster-state.ts does). It mutates `state` in place; nothing else does.
import { assert, unreachable } from '../raft/stdx/index.ts';
import type { Command, CommandEnvelope, CreateCommand, DeleteCommand, ExpireTokensCommand, UpdateCommand } from './commands.ts';
import type { ChangeEvent, ChangeType } from './events.ts';
import { deepFreeze } from './json.ts';
import { History, historyEventsMaxDefault } from './mvcc/history.ts';
import { ObjectIndex } from './mvcc/object-index.ts';
import { keyString } from './object.ts';
import type { KubeObject, ObjectKey } from './object.ts';
import { bootstrapTokenNamespace, bootstrapTokenSecretPrefix } from './machines/token-secret.ts';
import { checkPreconditions, createRecord, deleteRecord, unsafeDeleteRecord, expireTokenRecord, lifecycleOfRecord, lifecycleState, updateRecord } from './resource-actor.ts';
import type { RecordChange, ResourceRecord } from './resource-actor.ts';
import type { CommandResult } from './results.ts';
import { SessionTable, sessionsMaxDefault } from './sessions.ts';
import { allocateService, isServiceKey } from './service-allocation.ts';
import { rfc3339ToMillis } from './time.ts';

/** Limits every replica must share (they decide what is evicted, so they are replicated behaviour). */
export interface StoreLimits {
  readonly historyEventsMax: number;
  readonly sessionsMax: number;
}

export const defaultStoreLimits: StoreLimits = { historyEventsMax: historyEventsMaxDefault, sessionsMax: sessionsMaxDefault };

export interface StoreState {
  readonly objects: ObjectIndex<ResourceRecord>;
  readonly history: History;
  readonly sessions: SessionTable;
}

export interface ApplyOutcome {
  readonly result: CommandResult;
  /** The changes this entry made, in order (empty if it changed nothing). */
  readonly events: readonly ChangeEvent[];
}

export function createStoreState(limits: StoreLimits = defaultStoreLimits): StoreState {
  return { objects: new ObjectIndex(), history: new History(limits.historyEventsMax), sessions: new SessionTable(limits.sessionsMax) };
}

/**
 * Applies the command in `envelope`, committed at `entryIndex`, to `state`. Takes ownership
 * of the command's object (it is frozen and stored). The envelope must be well-formed
 * (command-check.ts); the rules below reject everything else as results.
 */
export function applyCommand(state: StoreState, entryIndex: number, envelope: CommandEnvelope): ApplyOutcome {
  assert(Number.isSafeInteger(entryIndex) && entryIndex > 0, `entry index must be a positive integer, got ${entryIndex}`);
  const session = envelope.session;
  if (session !== undefined) {
    const check = state.sessions.check(session.id, session.sequence);
    if (check.type === 'duplicate') return { result: check.result, events: [] };
  }
  const outcome = applyFresh(state, entryIndex, envelope.command);
  if (session !== undefined) state.sessions.record(session.id, session.sequence, outcome.result);
  return outcome;
}

function applyFresh(state: StoreState, index: number, command: Command): ApplyOutcome {
  if (command.type === 'noop') return { result: { type: 'noop', revision: index }, events: [] };
  const atMillis = rfc3339ToMillis(command.at);
  assert(atMillis !== undefined, 'a checked command has an RFC 3339 time');
  const outcome = command.type === 'expireTokens' ? applyExpireTokens(state, index, command) : applyWrite(state, index, command);
  assert(outcome.events.every((e) => e.revision === index), 'events carry their entry index');
  if (outcome.events.length > 0) state.history.append(outcome.events, atMillis);
  return outcome;
}

function applyWrite(state: StoreState, index: number, command: CreateCommand | UpdateCommand | DeleteCommand): ApplyOutcome {
  switch (command.type) {
    case 'create':
      return applyCreate(state, index, command);
    case 'update':
      return applyUpdate(state, index, command);
    case 'delete':
      return applyDelete(state, index, command);
    default:
      return unreachable(command);
  }
}

function applyCreate(state: StoreState, index: number, command: CreateCommand): ApplyOutcome {
  const key = keyString(command.key);
  if (state.objects.has(key)) return noChange({ type: 'alreadyExists' });
  const namespace = namespaceProblem(state, command.key, 'create');
  if (namespace !== null) return noChange(namespace);
  let object = command.object;
  if (isServiceKey(command.key)) {
    const allocation = allocateService(state.objects, command.key, object);
    if (!allocation.ok) return noChange({ type: 'invalid', message: allocation.message });
    object = allocation.object;
  }
  const record = createRecord(command.key, object, index, { at: command.at, by: command.by });
  state.objects.set(key, record);
  return changed({ type: 'stored', object: record.object, revision: index }, 'ADDED', record, undefined, index);
}

function applyUpdate(state: StoreState, index: number, command: UpdateCommand): ApplyOutcome {
  const key = keyString(command.key);
  const record = state.objects.get(key);
  if (record === undefined) return noChange({ type: 'notFound' });
  const conflict = checkPreconditions(record.object, command.preconditions);
  if (conflict !== null) return noChange({ type: 'conflict', message: conflict });
  const namespace = namespaceProblem(state, command.key, 'update');
  if (namespace !== null) return noChange(namespace);
  let object = command.object;
  if (isServiceKey(command.key)) {
    const allocation = allocateService(state.objects, command.key, object, record.object);
    if (!allocation.ok) return noChange({ type: 'invalid', message: allocation.message });
    object = allocation.object;
  }
  return writeChange(state, index, record, updateRecord(record, object, index, { at: command.at, by: command.by }));
}

function applyDelete(state: StoreState, index: number, command: DeleteCommand): ApplyOutcome {
  const key = keyString(command.key);
  const record = state.objects.get(key);
  if (record === undefined) return noChange({ type: 'notFound' });
  // The corrupt-object path: no preconditions, no finalizers (the API tier could not read them).
  if (command.ignoreStoreReadError === true) return writeChange(state, index, record, unsafeDeleteRecord(record, index, { at: command.at, by: command.by }));
  const conflict = checkPreconditions(record.object, command.preconditions);
  if (conflict !== null) return noChange({ type: 'conflict', message: conflict });
  return writeChange(state, index, record, deleteRecord(record, index, { at: command.at, by: command.by }, command.propagationPolicy, command.gracePeriodSeconds));
}

/**
 * Expires every valid bootstrap token secret whose expiration is at or before the command's
 * time, in key order (the range is ordered, so every replica emits the same events).
 */
function applyExpireTokens(state: StoreState, index: number, command: ExpireTokensCommand): ApplyOutcome {
  const prefix = keyString({ group: '', resource: 'secrets', namespace: bootstrapTokenNamespace, name: bootstrapTokenSecretPrefix });
  const events: ChangeEvent[] = [];
  for (const record of state.objects.range(prefix)) {
    const expired = expireTokenRecord(record, index, { at: command.at, by: command.by });
    if (expired === null) continue;
    state.objects.set(keyString(record.key), expired);
    events.push(...changed({ type: 'noop', revision: index }, 'MODIFIED', expired, record.object, index).events);
  }
  return { result: { type: 'noop', revision: index }, events };
}

/** Stores (or removes) what a record change produced and builds its result and event. */
function writeChange(state: StoreState, index: number, before: ResourceRecord, change: RecordChange): ApplyOutcome {
  const key = keyString(before.key);
  switch (change.type) {
    case 'invalid':
      return noChange({ type: 'invalid', message: change.message });
    case 'stored':
    case 'finalizing': {
      const result = { type: change.type, object: change.record.object, revision: index };
      if (!change.changed) return noChange(result);
      assert(lifecycleState(change.record) !== 'removed', 'a stored record is not removed');
      state.objects.set(key, change.record);
      return changed(result, 'MODIFIED', change.record, before.object, index);
    }
    case 'removed': {
      assert(lifecycleState(change.record) === 'removed', 'a removed record has finished its lifecycle');
      assert(state.objects.delete(key), 'a removed object was stored');
      return changed({ type: 'removed', object: change.record.object, revision: index }, 'DELETED', change.record, before.object, index);
    }
    default:
      return unreachable(change);
  }
}

/**
 * namespaceNotFound when a namespaced object's namespace does not exist (create, update);
 * namespaceTerminating when it is being deleted (create only, as Kubernetes' NamespaceLifecycle).
 * Deletes are never blocked: leftovers of a removed namespace must stay deletable.
 */
function namespaceProblem(state: StoreState, key: ObjectKey, operation: 'create' | 'update'): CommandResult | null {
  if (key.namespace === '') return null;
  const namespace = state.objects.get(keyString({ group: '', resource: 'namespaces', namespace: '', name: key.namespace }));
  if (namespace === undefined) return { type: 'namespaceNotFound', namespace: key.namespace };
  if (operation === 'create' && namespace.object.metadata.deletionTimestamp !== undefined) {
    return { type: 'namespaceTerminating', namespace: key.namespace };
  }
  return null;
}

function noChange(result: CommandResult): ApplyOutcome {
  return { result, events: [] };
}

function changed(result: CommandResult, type: ChangeType, record: ResourceRecord, previous: KubeObject | undefined, revision: number): ApplyOutcome {
  assert(record.object.metadata.resourceVersion === String(revision), 'a changed object carries the entry index as resourceVersion');
  const moved = record.transitions.at(-1)?.revision === revision || record.token?.transitions.at(-1)?.revision === revision;
  assert(!(type === 'ADDED' || type === 'DELETED') || moved, 'a create or a removal is a lifecycle transition');
  const lifecycle = moved ? { lifecycle: lifecycleOfRecord(record) } : {};
  const event: ChangeEvent = previous === undefined
    ? { type, key: record.key, object: record.object, revision, ...lifecycle }
    : { type, key: record.key, object: record.object, previous, revision, ...lifecycle };
  return { result, events: [deepFreeze(event)] };
}
