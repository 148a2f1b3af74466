// Owns: how the fault tests' key-value workload maps onto Kubernetes objects in the store.
//
// A register is a ConfigMap in namespace `fault`; the key is its name, the value its
// data.value. The store has no "get" on NATS (StoreClient offers propose and readIndex; the
// state lives inside the member processes), so both operations go through the Raft log:
//
//  - write(key, value): an update of the ConfigMap with data.value = value (unconditional).
//  - read(key): a DELETE of the ConfigMap, which is kept in the `finalizing` state for the whole
//    run by a finalizer nobody removes. The first delete (in setup) set deletionTimestamp; every
//    later delete "changes nothing, whatever its policy" (actors/resource-actor.ts deleteRecord)
//    and answers `finalizing` with the object as stored at that point of the log.
//
// Why this read is linearizable: the read is an entry in the log. Its result is computed by
// apply at the entry's position, i.e. from exactly the writes before it in the log; the entry
// is appended after the client sent it and the answer comes back only after it committed and
// applied. So the read takes effect at one instant between invocation and response: its apply.
// A retried read (same client session and sequence) is answered with the result stored for
// its first application, which also lies in that interval. ReadIndex is not usable from a
// separate process here: it returns an index, but no member serves the object at that index.
//
// That the read-delete changes nothing is checked, not assumed: every read reports the object's
// resourceVersion, which must equal the revision the write of that value was acknowledged with
// (see checkReadRevisions in history-checks.ts).
//
// Ledger objects (acknowledged-write durability): write-once ConfigMaps created during the run.
// After a full restart each acknowledged one is verified, without changing it, by an update
// that sends the very object it created, with a resourceVersion precondition equal to the
// acknowledged revision: a present, unchanged object answers `stored` (apply sees an equal
// object and writes nothing) with that resourceVersion; a missing one `notFound`; a different
// one `conflict`.
import type { Command, CommandResult, KubeObject, ObjectKey } from '../../actors/index.ts';

export const namespace = 'fault';
/** Keeps registers in the finalizing state; nothing in the store removes it. */
export const registerFinalizer = 'kstore.test/register';
/** Proposer time carried by every command (apply uses no clock; the value does not matter). */
export const at = '2026-01-01T00:00:00Z';

export function configMapKey(name: string): ObjectKey {
  return { group: '', resource: 'configmaps', namespace, name };
}

export function createNamespaceCommand(): Command {
  const object: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, uid: `uid-ns-${namespace}`, creationTimestamp: at } };
  return { type: 'create', key: { group: '', resource: 'namespaces', namespace: '', name: namespace }, object, at };
}

function registerObject(key: string, value: string): KubeObject {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: key, namespace, uid: `uid-register-${key}`, creationTimestamp: at, finalizers: [registerFinalizer] },
    data: { value },
  };
}

export function createRegisterCommand(key: string): Command {
  return { type: 'create', key: configMapKey(key), object: registerObject(key, ''), at };
}

export function writeCommand(key: string, value: string): Command {
  return { type: 'update', key: configMapKey(key), object: registerObject(key, value), at };
}

export function readCommand(key: string): Command {
  return { type: 'delete', key: configMapKey(key), at };
}

export interface RegisterState {
  readonly value: string;
  readonly resourceVersion: string;
}

function dataValue(object: KubeObject): string | undefined {
  const data = object['data'];
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const value = data['value'];
  return typeof value === 'string' ? value : undefined;
}

/** The register a read-delete observed; throws on anything but a finalizing object. */
export function readResult(key: string, result: CommandResult): RegisterState {
  if (result.type !== 'finalizing') throw new Error(`read of register ${key}: expected a finalizing object, got ${JSON.stringify(result)}`);
  const value = dataValue(result.object);
  const resourceVersion = result.object.metadata.resourceVersion;
  if (value === undefined || resourceVersion === undefined) throw new Error(`read of register ${key}: no data.value or resourceVersion in ${JSON.stringify(result.object)}`);
  return { value, resourceVersion };
}

/** The revision an acknowledged write got; throws unless it was stored. */
export function writeRevision(key: string, result: CommandResult): number {
  if (result.type !== 'stored') throw new Error(`write of register ${key}: expected stored, got ${JSON.stringify(result)}`);
  return result.revision;
}

function ledgerObject(name: string, value: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, uid: `uid-ledger-${name}`, creationTimestamp: at }, data: { value } };
}

export function createLedgerCommand(name: string, value: string): Command {
  return { type: 'create', key: configMapKey(name), object: ledgerObject(name, value), at };
}

/** The non-destructive presence check of a ledger object (see the header). */
export function verifyLedgerCommand(name: string, value: string, revision: number): Command {
  return { type: 'update', key: configMapKey(name), object: ledgerObject(name, value), preconditions: { resourceVersion: String(revision) }, at };
}

/** Why a ledger verification failed, or undefined if the object is there with its revision and value. */
export function ledgerProblem(name: string, value: string, revision: number, result: CommandResult): string | undefined {
  if (result.type !== 'stored') return `${name} (acknowledged at revision ${revision}): ${result.type}`;
  const found = result.object.metadata.resourceVersion;
  if (found !== String(revision)) return `${name}: resourceVersion ${String(found)}, acknowledged ${revision}`;
  if (dataValue(result.object) !== value) return `${name}: data changed`;
  return undefined;
}
