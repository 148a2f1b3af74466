// Events an earlier kstore stored apart under the events.k8s.io keys are carried over to the one
// events collection (core/v1 form under the core keys), once, without overwriting an event of the
// same name already there; the old records are removed.
import { describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import type { KubeObject } from '../../../actors/index.ts';
import { legacyEventsCollection, migrateLegacyEvents } from '../../../deploy/legacy-events.ts';
import { ImmediateBackend } from '../api/harness.ts';

const at = '2026-01-01T00:00:00Z';

function legacyEvent(name: string): KubeObject {
  return {
    apiVersion: 'events.k8s.io/v1', kind: 'Event',
    metadata: { name, namespace: 't', uid: `uid-${name}`, creationTimestamp: at },
    eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'example.com/c', reportingInstance: 'i-1', action: 'Pull', reason: 'Pulled',
    type: 'Normal', note: `image pulled for ${name}`, regarding: { kind: 'Pod', namespace: 't', name: 'web' },
  } as KubeObject;
}

describe('carrying legacy events.k8s.io events over', () => {
  it('moves each to the core key in core form, keeps an existing core event, removes the old records, and is idempotent', async () => {
    const backend = new ImmediateBackend();
    const client = new StoreClient(backend);
    await client.propose({ type: 'create', key: { group: '', resource: 'namespaces', namespace: '', name: 't' }, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 't', uid: 'ns' } } as KubeObject, at });
    for (const name of ['pulled', 'taken']) {
      expect((await client.propose({ type: 'create', key: { ...legacyEventsCollection, namespace: 't', name }, object: legacyEvent(name), at })).type).toBe('stored');
    }
    const existing = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'taken', namespace: 't', uid: 'core-taken', creationTimestamp: at }, message: 'already here', involvedObject: { kind: 'Pod', name: 'web' } } as KubeObject;
    expect((await client.propose({ type: 'create', key: { group: '', resource: 'events', namespace: 't', name: 'taken' }, object: existing, at })).type).toBe('stored');

    expect(await migrateLegacyEvents(backend.state, (command) => client.propose(command))).toBe(2);
    const moved = client.get({ group: '', resource: 'events', namespace: 't', name: 'pulled' });
    expect(moved).toMatchObject({ apiVersion: 'v1', kind: 'Event', message: 'image pulled for pulled', reportingComponent: 'example.com/c', involvedObject: { kind: 'Pod', name: 'web' }, metadata: { uid: 'uid-pulled' } });
    expect(client.get({ group: '', resource: 'events', namespace: 't', name: 'taken' })?.['message']).toBe('already here');
    expect(backend.state.list(legacyEventsCollection).items).toEqual([]);
    expect(await migrateLegacyEvents(backend.state, (command) => client.propose(command))).toBe(0);
  });
});
