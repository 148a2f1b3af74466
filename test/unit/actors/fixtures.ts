// Builders shared by the actors/ unit tests.
import { commandVersion, encodeCommand } from '../../../actors/index.ts';
import type { Command, CommandEnvelope, KubeObject, ObjectKey, Preconditions } from '../../../actors/index.ts';

export const t0 = '2026-01-01T00:00:00Z';

/** RFC 3339 time `seconds` after t0. */
export function at(seconds: number): string {
  const base = Date.UTC(2026, 0, 1) + seconds * 1000;
  return new Date(base).toISOString();
}

export function nsKey(name: string): ObjectKey {
  return { group: '', resource: 'namespaces', namespace: '', name };
}

export function cmKey(namespace: string, name: string): ObjectKey {
  return { group: '', resource: 'configmaps', namespace, name };
}

export function objectFor(key: ObjectKey, extra: { data?: Record<string, string>; finalizers?: string[]; uid?: string } = {}): KubeObject {
  const kind = key.resource === 'namespaces' ? 'Namespace' : 'ConfigMap';
  const metadata: KubeObject['metadata'] = { name: key.name, uid: extra.uid ?? `uid-${key.namespace}-${key.name}`, creationTimestamp: t0 };
  if (key.namespace !== '') metadata.namespace = key.namespace;
  if (extra.finalizers !== undefined) metadata.finalizers = extra.finalizers;
  const object: KubeObject = { apiVersion: 'v1', kind, metadata };
  if (extra.data !== undefined) object.data = extra.data;
  return object;
}

export function envelope(command: Command, session?: { id: string; sequence: number }): CommandEnvelope {
  return session === undefined ? { version: commandVersion, command } : { version: commandVersion, command, session };
}

export const create = (key: ObjectKey, object: KubeObject = objectFor(key), when = t0): Command =>
  ({ type: 'create', key, object, at: when });
export const update = (key: ObjectKey, object: KubeObject, preconditions?: Preconditions, when = t0): Command =>
  preconditions === undefined ? { type: 'update', key, object, at: when } : { type: 'update', key, object, preconditions, at: when };
export const remove = (key: ObjectKey, preconditions?: Preconditions, when = t0): Command =>
  preconditions === undefined ? { type: 'delete', key, at: when } : { type: 'delete', key, preconditions, at: when };

/** A committed entry carrying `command`. */
export function entry(index: number, command: Command, session?: { id: string; sequence: number }) {
  return { index, term: 1, data: encodeCommand(envelope(command, session)) };
}

/** A mutable deep copy of a (frozen) stored object, for building updates. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}
