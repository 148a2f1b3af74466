// Owns: the namespaces kube-apiserver's system namespace controller keeps present (default,
// kube-system, kube-public, kube-node-lease) and creating the missing ones by proposing commands,
// for `kstore server` at start and for the HA store leader's duties.
import { randomUUID } from 'node:crypto';
import type { Command, CommandResult, KubeObject, ObjectKey } from '../actors/index.ts';
import { formatTime } from '../api/index.ts';

export const systemNamespaceNames = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

/** Creates each system namespace `get` does not find; a concurrent creator's win is fine. */
export async function ensureSystemNamespaces(get: (key: ObjectKey) => KubeObject | undefined, propose: (command: Command) => Promise<CommandResult>): Promise<void> {
  for (const name of systemNamespaceNames) {
    const key = { group: '', resource: 'namespaces', namespace: '', name };
    if (get(key) !== undefined) continue;
    const now = formatTime(new Date());
    const object = {
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name, uid: randomUUID(), creationTimestamp: now, labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' },
    };
    const result = await propose({ type: 'create', key, object, at: now, by: 'system:apiserver' });
    if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create namespace ${name}: ${result.type}`);
  }
}
