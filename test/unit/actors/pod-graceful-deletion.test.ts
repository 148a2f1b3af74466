// Owns: unit tests of graceful deletion (kube-apiserver's BeforeDelete for pods) in the deletion
// machine (actors/machines/deletion.ts) and through apply: a positive grace period makes a live
// object terminating with deletionTimestamp = at + grace; later deletes may only shorten it
// (measured from the first delete) or end it with 0; finalizers hold a grace-0 delete in
// finalizing; the command check bounds the period. The grace periods a pod gets (unbound,
// Succeeded: 0) are the API tier's (test/unit/api/pod-deletion.test.ts); apply stays generic.
import { describe, expect, it } from 'vitest';
import { applyCommand, createStoreState, keyString } from '../../../actors/index.ts';
import type { Command, KubeObject, ObjectKey } from '../../../actors/index.ts';
import { envelopeProblem } from '../../../actors/command-check.ts';
import { advanceDeletion, deletionMachine, initialDeletion } from '../../../actors/machines/deletion.ts';
import type { DeletionEvent, PersistedDeletion } from '../../../actors/machines/deletion.ts';
import { addSecondsRfc3339 } from '../../../actors/time.ts';
import { at, copy, create, envelope, nsKey, t0 } from './fixtures.ts';

const remove = (when: string, gracePeriodSeconds?: number): DeletionEvent =>
  gracePeriodSeconds === undefined ? { type: 'DELETE', at: when } : { type: 'DELETE', at: when, gracePeriodSeconds };
const finalizers = (...names: string[]): DeletionEvent => ({ type: 'FINALIZERS_CHANGED', finalizers: names });

function run(start: readonly string[], ...events: DeletionEvent[]): PersistedDeletion {
  return events.reduce(advanceDeletion, initialDeletion({ finalizers: start }));
}

describe('deletion machine: graceful deletion', () => {
  it('live + DELETE with grace > 0 → terminating, deletionTimestamp = at + grace', () => {
    const s = run([], remove(t0, 30));
    expect(s.value).toBe('terminating');
    expect(s.context).toEqual({ finalizers: [], deletionTimestamp: '2026-01-01T00:00:30Z', gracePeriodSeconds: 30 });
  });

  it('live + DELETE with grace 0 or none → removed or finalizing, as before', () => {
    expect(run([], remove(t0, 0)).value).toBe('removed');
    expect(run([], remove(t0)).value).toBe('removed');
    const held = run(['a'], remove(t0, 0));
    expect(held.value).toBe('finalizing');
    expect(held.context).toEqual({ finalizers: ['a'], deletionTimestamp: t0 });
  });

  it('a shorter period moves the deadline back from the first delete\'s time (BeforeDelete)', () => {
    const s = run([], remove(t0, 30), remove(at(10), 5));
    expect(s.value).toBe('terminating');
    expect(s.context).toEqual({ finalizers: [], deletionTimestamp: '2026-01-01T00:00:05Z', gracePeriodSeconds: 5 });
  });

  it('a longer, equal or absent period changes nothing: a grace period is never lengthened', () => {
    const first = run([], remove(t0, 30));
    expect(advanceDeletion(first, remove(at(5), 60))).toEqual(first);
    expect(advanceDeletion(first, remove(at(5), 30))).toEqual(first);
    expect(advanceDeletion(first, remove(at(5)))).toEqual(first);
  });

  it('terminating + DELETE with grace 0 → removed; the deadline becomes the first delete\'s time', () => {
    const s = run([], remove(t0, 30), remove(at(3), 0));
    expect(s.value).toBe('removed');
    expect(s.context).toEqual({ finalizers: [], deletionTimestamp: t0, gracePeriodSeconds: 0 });
  });

  it('finalizers: terminating keeps them; grace 0 then finalizes until they are gone', () => {
    const terminating = run(['a'], remove(t0, 30));
    expect(terminating.value).toBe('terminating');
    // Removing the finalizers of a terminating object does not remove it (ShouldDeleteDuringUpdate needs grace 0).
    expect(advanceDeletion(terminating, finalizers()).value).toBe('terminating');
    const finalizing = advanceDeletion(terminating, remove(at(1), 0));
    expect(finalizing.value).toBe('finalizing');
    expect(finalizing.context).toEqual({ finalizers: ['a'], deletionTimestamp: t0, gracePeriodSeconds: 0 });
    expect(advanceDeletion(finalizing, finalizers()).value).toBe('removed');
    expect(run(['a'], remove(t0, 30), finalizers(), remove(at(1), 0)).value).toBe('removed');
  });

  it('UNSAFE_DELETE removes a terminating object', () => {
    expect(advanceDeletion(run(['a'], remove(t0, 30)), { type: 'UNSAFE_DELETE', at: at(1) }).value).toBe('removed');
  });

  it('restores snapshots persisted before graceful deletion existed (no gracePeriodSeconds in context)', () => {
    const old: PersistedDeletion = { status: 'active', value: 'finalizing', context: { finalizers: ['a'], deletionTimestamp: t0 }, historyValue: {}, children: {} };
    expect(advanceDeletion(old, finalizers()).value).toBe('removed');
    const live: PersistedDeletion = { status: 'active', value: 'live', context: { finalizers: [], deletionTimestamp: null }, historyValue: {}, children: {} };
    expect(advanceDeletion(live, remove(t0, 30)).value).toBe('terminating');
    expect(deletionMachine.resolveState({ value: 'terminating', context: { finalizers: [], deletionTimestamp: at(30), gracePeriodSeconds: 30 } }).value).toBe('terminating');
  });
});

const ns = nsKey('work');
const podKey: ObjectKey = { group: '', resource: 'pods', namespace: 'work', name: 'p' };

function pod(extra: { finalizers?: string[]; generation?: number } = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'p', namespace: 'work', uid: 'uid-p', creationTimestamp: t0, ...(extra.finalizers ? { finalizers: extra.finalizers } : {}), ...(extra.generation ? { generation: extra.generation } : {}) },
    spec: { nodeName: 'n1', terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'busybox' }] },
  };
}

function harness(object = pod()) {
  const state = createStoreState();
  let index = 0;
  const apply = (command: Command) => applyCommand(state, ++index, envelope(copy(command)));
  apply(create(ns));
  apply(create(podKey, object));
  const stored = () => state.objects.get(keyString(podKey));
  const del = (when: string, gracePeriodSeconds?: number): Command =>
    gracePeriodSeconds === undefined ? { type: 'delete', key: podKey, at: when } : { type: 'delete', key: podKey, at: when, gracePeriodSeconds };
  return { apply, stored, del };
}

describe('apply: graceful deletion of a pod', () => {
  it('a graceful delete keeps the pod, sets deletionTimestamp/deletionGracePeriodSeconds and bumps generation once', () => {
    const h = harness(pod({ generation: 1 }));
    const { result, events } = h.apply(h.del(t0, 30));
    expect(result).toMatchObject({ type: 'finalizing', revision: 3 });
    expect(events.map((event) => event.type)).toEqual(['MODIFIED']);
    expect(events[0]?.lifecycle?.state).toBe('terminating');
    const metadata = h.stored()?.object.metadata;
    expect(metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30, resourceVersion: '3', generation: 2 });
    expect(h.stored()?.transitions.map((transition) => [transition.event, transition.from, transition.to])).toEqual([['CREATE', null, 'live'], ['DELETE', 'live', 'terminating']]);
    // Shortening: a new resourceVersion, no second generation bump.
    h.apply(h.del(at(10), 10));
    expect(h.stored()?.object.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:10Z', deletionGracePeriodSeconds: 10, resourceVersion: '4', generation: 2 });
  });

  it('never lengthens: a longer or absent period is a no-op (no event, no new resourceVersion)', () => {
    const h = harness();
    h.apply(h.del(t0, 30));
    for (const command of [h.del(at(1), 60), h.del(at(1), 30), h.del(at(1))]) {
      const { result, events } = h.apply(command);
      expect(result).toMatchObject({ type: 'finalizing', object: { metadata: { resourceVersion: '3', deletionGracePeriodSeconds: 30 } } });
      expect(events).toEqual([]);
    }
  });

  it('grace 0 removes a terminating pod; the DELETED object carries the first delete\'s time and grace 0', () => {
    const h = harness();
    h.apply(h.del(t0, 30));
    const { result, events } = h.apply(h.del(at(2), 0));
    expect(result.type).toBe('removed');
    expect(events.map((event) => event.type)).toEqual(['DELETED']);
    expect(events[0]?.object.metadata).toMatchObject({ deletionTimestamp: t0, deletionGracePeriodSeconds: 0, resourceVersion: '4' });
    expect(h.stored()).toBeUndefined();
  });

  it('grace 0 of a live pod removes it at once (the unbound / finished / --force case)', () => {
    const h = harness();
    expect(h.apply(h.del(t0, 0)).result.type).toBe('removed');
    expect(h.stored()).toBeUndefined();
  });

  it('finalizers + grace: terminating, then finalizing on grace 0, removed when the finalizers go', () => {
    const h = harness(pod({ finalizers: ['example.com/hold'] }));
    h.apply(h.del(t0, 30));
    expect(h.stored()?.lifecycle.value).toBe('terminating');
    const forced = h.apply(h.del(at(1), 0));
    expect(forced.result.type).toBe('finalizing');
    expect(h.stored()?.object.metadata).toMatchObject({ deletionTimestamp: t0, deletionGracePeriodSeconds: 0, finalizers: ['example.com/hold'] });
    const released = copy(h.stored()!.object);
    released.metadata.finalizers = [];
    expect(h.apply({ type: 'update', key: podKey, object: released, at: at(2) }).result.type).toBe('removed');
  });

  it('removing the finalizers of a terminating pod keeps it terminating; adding one is refused', () => {
    const h = harness(pod({ finalizers: ['example.com/hold'] }));
    h.apply(h.del(t0, 30));
    const added = copy(h.stored()!.object);
    added.metadata.finalizers = ['example.com/hold', 'example.com/other'];
    expect(h.apply({ type: 'update', key: podKey, object: added, at: at(1) }).result.type).toBe('invalid');
    const released = copy(h.stored()!.object);
    released.metadata.finalizers = [];
    expect(h.apply({ type: 'update', key: podKey, object: released, at: at(1) }).result.type).toBe('stored');
    expect(h.stored()?.lifecycle.value).toBe('terminating');
    expect(h.stored()?.object.metadata.deletionGracePeriodSeconds).toBe(30);
  });

  it('an update cannot move deletionTimestamp or deletionGracePeriodSeconds', () => {
    const h = harness();
    h.apply(h.del(t0, 30));
    const changed = copy(h.stored()!.object);
    changed.metadata.deletionTimestamp = at(999);
    changed.metadata.deletionGracePeriodSeconds = 1;
    changed.metadata.labels = { a: 'b' };
    h.apply({ type: 'update', key: podKey, object: changed, at: at(1) });
    expect(h.stored()?.object.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30, labels: { a: 'b' } });
  });

  it('is deterministic: two replicas applying the same entries store identical records', () => {
    const replicas = [harness(pod({ finalizers: ['f'] })), harness(pod({ finalizers: ['f'] }))];
    for (const h of replicas) {
      h.apply(h.del(t0, 30));
      h.apply(h.del(at(4), 7));
    }
    expect(JSON.stringify(replicas[0]!.stored())).toBe(JSON.stringify(replicas[1]!.stored()));
  });
});

describe('command check: grace periods', () => {
  const base = { type: 'delete', key: podKey, at: t0 };
  const problem = (command: Record<string, unknown>) => envelopeProblem({ version: 1, command });
  it('accepts whole seconds from 0 to a century, rejects the rest', () => {
    expect(problem({ ...base, gracePeriodSeconds: 0 })).toBeNull();
    expect(problem({ ...base, gracePeriodSeconds: 30 })).toBeNull();
    expect(problem({ ...base, gracePeriodSeconds: -1 })).toContain('gracePeriodSeconds');
    expect(problem({ ...base, gracePeriodSeconds: 1.5 })).toContain('gracePeriodSeconds');
    expect(problem({ ...base, gracePeriodSeconds: '30' })).toContain('gracePeriodSeconds');
    expect(problem({ ...base, gracePeriodSeconds: 1e12 })).toContain('gracePeriodSeconds');
    expect(problem({ ...base, at: '9999-12-31T23:59:59Z', gracePeriodSeconds: 30 })).toContain('year 10000');
  });

  it('adds seconds to RFC 3339 times across days, months and offsets', () => {
    expect(addSecondsRfc3339('2026-12-31T23:59:50Z', 30)).toBe('2027-01-01T00:00:20Z');
    expect(addSecondsRfc3339('2024-02-28T23:59:59+01:00', 1)).toBe('2024-02-28T23:00:00Z');
    expect(addSecondsRfc3339('2026-03-01T00:00:00Z', -1)).toBe('2026-02-28T23:59:59Z');
  });
});
