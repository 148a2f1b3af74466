// The field manager's outputs for a fixed corpus over every served kind (managed-fields-corpus.ts)
// against the digests recorded before its walks were made cheaper: creates, updates, status
// writes and applies must stay byte-identical. Also: a create's managedFields (trackCreate, the
// create handler's path) equal the generic Update from the zero object.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../actors/index.ts';
import { notOwnedOnCreate, trackCreate, trackUpdate } from '../../../api/fieldmanager/request.ts';
import { apiVersionOf, servedKinds } from '../../../api/registry/kinds.ts';
import { corpusDigests } from './managed-fields-corpus.ts';
import { richPod } from './protobuf-kinds-fixtures.ts';

const recorded = JSON.parse(readFileSync(new URL('./fixtures/managed-fields-digests.json', import.meta.url), 'utf8')) as Record<string, string>;

describe('field manager outputs', () => {
  it('are the recorded ones for every served kind', () => {
    expect(corpusDigests()).toEqual(recorded);
  });

  it('of a create (trackCreate) equal the generic Update from the zero object, on varied bodies', () => {
    const identity = { manager: 'm', subresource: '', time: '2026-11-28T18:00:00Z' };
    const bodies = (apiVersion: string, kind: string): Record<string, unknown>[] => [
      { apiVersion, kind, metadata: { name: 'a' } },
      { apiVersion, kind, metadata: { name: 'b', labels: { x: '' }, finalizers: ['f'] }, data: { k: 'v' }, spec: { containers: [{ name: 'c', image: 'i' }], serviceAccountName: 'sa' } },
      { apiVersion, kind, metadata: { name: 'c', managedFields: [{}] }, spec: { ports: [{ port: 1 }], clusterIP: '10.0.0.1' }, status: { phase: 'Running' } },
      { ...structuredClone(richPod), apiVersion, kind },
    ];
    let compared = 0;
    for (const kind of servedKinds) {
      const target = { kind, namespace: kind.namespaced ? 'n' : '', name: undefined, subresource: undefined };
      for (const body of bodies(apiVersionOf(kind), kind.kind)) {
        const generic = structuredClone(body) as unknown as KubeObject;
        trackUpdate(undefined, generic, target, { ...identity, apiVersion: apiVersionOf(kind) }, structuredClone(body) as unknown as KubeObject);
        const created = structuredClone(body) as unknown as KubeObject;
        trackCreate(created, target, { ...identity, apiVersion: apiVersionOf(kind) }, notOwnedOnCreate(target, created));
        expect(JSON.stringify(created)).toBe(JSON.stringify(generic));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(0);
  });
});
