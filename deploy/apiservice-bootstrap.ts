// Owns: kube-apiserver's autoregistration of the APIServices of the group/versions it serves
// itself (the served kinds' group/versions, servedGroups(), and the reviews'), done once at start like kube's "sync on start" registrations: each served
// group/version with a priority in kube's table gets an APIService `<version>.<group>` (`v1.`
// for core) with no service, labelled kube-aggregator.kubernetes.io/automanaged=onstart; one
// present with another spec gets the wanted spec; one so labelled whose group/version is no
// longer served is deleted. An APIService without the label is the user's and left alone.
// API servers racing each other: creates answer alreadyExists, updates and deletes carry a
// precondition and a conflict is left to the other server.
import { randomUUID } from 'node:crypto';
import { autoRegisterManagedLabel, formatTime, localApiServices, reviewResources, servedGroups } from '../api/index.ts';
import type { StoreClient } from '../api/index.ts';
import type { JsonValue, KubeObject } from '../actors/index.ts';

const group = 'apiregistration.k8s.io';
const identity = 'system:apiserver';
const onStart = 'onstart';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, canonical(record[key])]));
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(canonical(left)) === JSON.stringify(canonical(right));
}

/** Every group/version the server serves: the stored kinds' and the create-only reviews' (authentication.k8s.io, authorization.k8s.io). */
export function servedGroupVersions(): { group: string; versions: string[] }[] {
  const groups = new Map<string, string[]>();
  const add = (name: string, version: string): void => {
    const versions = groups.get(name) ?? [];
    if (!versions.includes(version)) versions.push(version);
    groups.set(name, versions);
  };
  for (const { group: name, versions } of servedGroups()) for (const version of versions) add(name, version);
  for (const review of reviewResources) add(review.group, review.version);
  return [...groups].map(([name, versions]) => ({ group: name, versions }));
}

function keyOf(name: string) {
  return { group, resource: 'apiservices', namespace: '', name };
}

/** One pass: create the missing local APIServices, correct their specs, delete the stale automanaged ones. */
export async function ensureLocalApiServices(client: StoreClient): Promise<void> {
  await client.readIndex();
  const wanted = localApiServices(servedGroupVersions());
  for (const service of wanted) {
    const key = keyOf(service.name);
    const current = client.get(key);
    const at = formatTime(new Date());
    if (current === undefined) {
      const object = {
        apiVersion: `${group}/v1`, kind: 'APIService',
        metadata: { name: service.name, uid: randomUUID(), creationTimestamp: at, labels: { [autoRegisterManagedLabel]: onStart } },
        spec: service.spec,
        status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: at, reason: 'Local', message: 'Local APIServices are always available' }] },
      } as unknown as KubeObject;
      const result = await client.propose({ type: 'create', key, object, at, by: identity });
      if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create apiservice ${service.name}: ${result.type}`);
      continue;
    }
    if (current.metadata.labels?.[autoRegisterManagedLabel] === undefined || current.metadata.deletionTimestamp !== undefined) continue;
    if (sameJson(current['spec'], service.spec)) continue;
    const object = { ...structuredClone(current), spec: service.spec as JsonValue } as KubeObject;
    const result = await client.propose({ type: 'update', key, object, at, by: identity, preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' } });
    if (result.type !== 'stored' && result.type !== 'conflict' && result.type !== 'notFound') throw new Error(`could not update apiservice ${service.name}: ${result.type}`);
  }
  const wantedNames = new Set(wanted.map((service) => service.name));
  for (const current of client.list({ group, resource: 'apiservices', namespace: '' }).items) {
    const name = current.metadata.name ?? '';
    if (wantedNames.has(name) || current.metadata.labels?.[autoRegisterManagedLabel] !== onStart || current.metadata.deletionTimestamp !== undefined) continue;
    const at = formatTime(new Date());
    const result = await client.propose({ type: 'delete', key: keyOf(name), at, by: identity, preconditions: { uid: current.metadata.uid ?? '' } });
    if (!['removed', 'finalizing', 'notFound', 'conflict'].includes(result.type)) throw new Error(`could not delete apiservice ${name}: ${result.type}`);
  }
}
