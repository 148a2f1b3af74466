// Owns: unit tests of deploy/object-replica.ts with a scripted source (no NATS).
import { describe, expect, it } from 'vitest';
import type { ChangeEvent, KubeObject, ObjectKey } from '../../../actors/index.ts';
import type { StreamBatch } from '../../../deploy/event-stream/index.ts';
import { ObjectReplica } from '../../../deploy/object-replica.ts';
import type { ReplicaSource } from '../../../deploy/object-replica.ts';
import type { StoredObject } from '../../../deploy/state-service.ts';
import { waitFor } from '../../support/wait-for.ts';

const key = (name: string): ObjectKey => ({ group: '', resource: 'configmaps', namespace: 'default', name });
const object = (name: string, revision: number): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', resourceVersion: String(revision) } }) as KubeObject;
const event = (type: ChangeEvent['type'], name: string, revision: number): ChangeEvent => ({ type, key: key(name), object: object(name, revision), revision });

class Scripted implements ReplicaSource {
  state: { objects: StoredObject[]; appliedIndex: number } = { objects: [], appliedIndex: 0 };
  fetches = 0;
  onBatch: ((batch: StreamBatch) => void) | undefined;
  onGap: ((reason: string) => void) | undefined;
  followedAfter: number[] = [];
  fetchState(): Promise<{ objects: StoredObject[]; appliedIndex: number }> {
    this.fetches += 1;
    return Promise.resolve(this.state);
  }
  follow(after: number, onBatch: (batch: StreamBatch) => void, onGap: (reason: string) => void): { stop(): Promise<void> } {
    this.followedAfter.push(after);
    this.onBatch = onBatch;
    this.onGap = onGap;
    return { stop: () => Promise.resolve() };
  }
}

describe('ObjectReplica', () => {
  it('syncs, applies batches in order, notifies listeners in revision order', async () => {
    const source = new Scripted();
    source.state = { objects: [{ key: key('a'), object: object('a', 3) }], appliedIndex: 5 };
    const replica = new ObjectReplica(source);
    await replica.start();
    expect(replica.synced()).toBe(true);
    expect(replica.currentRevision()).toBe(5);
    expect(source.followedAfter).toEqual([5]);
    const seen: number[] = [];
    replica.subscribe((events) => seen.push(...events.map((e) => e.revision)));
    const reached = replica.waitForRevision(9);
    source.onBatch!({ from: 5, through: 7, events: [event('ADDED', 'b', 6), event('MODIFIED', 'a', 7)] });
    source.onBatch!({ from: 7, through: 9, events: [event('DELETED', 'b', 8)] });
    await reached;
    expect(seen).toEqual([6, 7, 8]);
    expect(replica.get(key('b'))).toBeUndefined();
    expect(replica.get(key('a'))?.metadata.resourceVersion).toBe('7');
    expect(replica.list({ group: '', resource: 'configmaps', namespace: 'default' })).toMatchObject({ revision: 9, items: [{ metadata: { name: 'a' } }] });
    await replica.stop();
  });

  it('re-syncs on a gap and tells resync listeners', async () => {
    const source = new Scripted();
    const replica = new ObjectReplica(source);
    await replica.start();
    const resyncs: string[] = [];
    // Told once the new state is in place (the watch cache restarts its window at that revision).
    replica.onResync((reason) => resyncs.push(`${reason} at ${replica.currentRevision()}, c ${replica.get(key('c')) === undefined ? 'missing' : 'present'}`));
    source.state = { objects: [{ key: key('c'), object: object('c', 20) }], appliedIndex: 20 };
    source.onGap!('stream recreated');
    await waitFor(() => replica.currentRevision() === 20 && replica.synced(), { timeoutMs: 2_000, description: 'resync' });
    expect(resyncs).toEqual(['stream recreated at 20, c present']);
    expect(source.followedAfter).toEqual([0, 20]);
    expect(replica.get(key('c'))).toBeDefined();
    // a non-contiguous batch is a gap too
    source.onBatch!({ from: 25, through: 26, events: [] });
    await waitFor(() => source.followedAfter.length === 3, { timeoutMs: 2_000, description: 'second resync' });
    await replica.stop();
  });

  it('keeps each object\'s lifecycle: from the state sync, replaced by events that carry one, kept by events that do not', async () => {
    const source = new Scripted();
    const live = { state: 'live' as const, context: { finalizers: ['x/y'], deletionTimestamp: null }, transitions: [{ event: 'CREATE' as const, from: null, to: 'live' as const, revision: 3, at: '2026-01-01T00:00:00Z', by: 'alice' }] };
    source.state = { objects: [{ key: key('a'), object: object('a', 3), lifecycle: live }], appliedIndex: 5 };
    const replica = new ObjectReplica(source);
    await replica.start();
    expect(replica.lifecycleOf(key('a'))).toEqual(live);
    // A plain update carries no lifecycle: the known one stays.
    source.onBatch!({ from: 5, through: 6, events: [event('MODIFIED', 'a', 6)] });
    expect(replica.lifecycleOf(key('a'))).toEqual(live);
    const finalizing = { ...live, state: 'finalizing' as const, context: { finalizers: ['x/y'], deletionTimestamp: '2026-01-01T00:00:01Z' }, transitions: [...live.transitions, { event: 'DELETE' as const, from: 'live' as const, to: 'finalizing' as const, revision: 7, at: '2026-01-01T00:00:01Z', by: 'bob' }] };
    source.onBatch!({ from: 6, through: 7, events: [{ ...event('MODIFIED', 'a', 7), lifecycle: finalizing }] });
    expect(replica.lifecycleOf(key('a'))).toEqual(finalizing);
    source.onBatch!({ from: 7, through: 8, events: [event('DELETED', 'a', 8)] });
    expect(replica.lifecycleOf(key('a'))).toBeUndefined();
    await replica.stop();
  });
});
