// Commands and checks shared by the Raft-over-NATS integration tests.
import type { Command, CommandResult, KubeObject, ObjectKey } from '../../actors/index.ts';

export const t0 = '2026-01-01T00:00:00Z';
export const namespace = 'it';

export function namespaceKey(name: string): ObjectKey {
  return { group: '', resource: 'namespaces', namespace: '', name };
}

export function configMapKey(name: string): ObjectKey {
  return { group: '', resource: 'configmaps', namespace, name };
}

export function createNamespace(name: string = namespace): Command {
  const key = namespaceKey(name);
  const object: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: `uid-ns-${name}`, creationTimestamp: t0 } };
  return { type: 'create', key, object, at: t0 };
}

/** A ConfigMap create of about `valueBytes` bytes of data. */
export function createConfigMap(name: string, valueBytes = 64): Command {
  const key = configMapKey(name);
  const object: KubeObject = {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name, namespace, uid: `uid-cm-${name}`, creationTimestamp: t0 },
    data: { value: 'x'.repeat(valueBytes) },
  };
  return { type: 'create', key, object, at: t0 };
}

export function revisionOf(result: CommandResult): number {
  if (result.type !== 'stored') throw new Error(`expected a stored result, got ${JSON.stringify(result)}`);
  return result.revision;
}

/** Runs `count` tasks with at most `concurrency` in flight; resolves with results in task order. */
export async function runConcurrently<T>(count: number, concurrency: number, task: (position: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let position = next++; position < count; position = next++) results[position] = await task(position);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
