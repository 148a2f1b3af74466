import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { advanceDeletion, deletionMachine, initialDeletion } from '../../../actors/machines/deletion.ts';
import type { DeletionEvent, PersistedDeletion } from '../../../actors/machines/deletion.ts';

const del: DeletionEvent = { type: 'DELETE', at: '2026-01-01T00:00:00Z' };
const later: DeletionEvent = { type: 'DELETE', at: '2026-01-01T00:01:00Z' };
const finalizers = (...names: string[]): DeletionEvent => ({ type: 'FINALIZERS_CHANGED', finalizers: names });

function run(start: readonly string[], ...events: DeletionEvent[]): PersistedDeletion {
  return events.reduce(advanceDeletion, initialDeletion({ finalizers: start }));
}

describe('deletion machine transition table', () => {
  it('starts live with the input finalizers and no deletionTimestamp', () => {
    const s = initialDeletion({ finalizers: ['a'] });
    expect(s.value).toBe('live');
    expect(s.context).toEqual({ finalizers: ['a'], deletionTimestamp: null });
  });

  it('a create without finalizers shares one snapshot, identical to the machine\'s own', () => {
    const first = initialDeletion({ finalizers: [] });
    expect(initialDeletion({ finalizers: [] })).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.context)).toBe(true);
    const [machine] = initialTransition(deletionMachine, { finalizers: [] });
    expect(JSON.stringify(first)).toBe(JSON.stringify(deletionMachine.getPersistedSnapshot(machine)));
    expect(run([], finalizers('x')).context.finalizers).toEqual(['x']);
    expect(first.context.finalizers).toEqual([]);
  });

  it('live + DELETE with finalizers → finalizing, deletionTimestamp = event.at', () => {
    const s = run(['a'], del);
    expect(s.value).toBe('finalizing');
    expect(s.context).toEqual({ finalizers: ['a'], deletionTimestamp: del.type === 'DELETE' ? del.at : '' });
  });

  it('live + DELETE without finalizers → removed (final)', () => {
    const s = run([], del);
    expect(s.value).toBe('removed');
    expect(s.status).toBe('done');
  });

  it('live + FINALIZERS_CHANGED → live with the new finalizers', () => {
    const s = run(['a'], finalizers('b', 'c'));
    expect(s.value).toBe('live');
    expect(s.context.finalizers).toEqual(['b', 'c']);
    expect(run(['a'], finalizers()).value).toBe('live');
  });

  it('finalizing + FINALIZERS_CHANGED with some left → finalizing', () => {
    const s = run(['a', 'b'], del, finalizers('b'));
    expect(s.value).toBe('finalizing');
    expect(s.context.finalizers).toEqual(['b']);
  });

  it('finalizing + FINALIZERS_CHANGED to none → removed', () => {
    const s = run(['a'], del, finalizers());
    expect(s.value).toBe('removed');
    expect(s.context).toEqual({ finalizers: [], deletionTimestamp: '2026-01-01T00:00:00Z' });
  });

  it('finalizing + DELETE changes nothing: the first deletionTimestamp stays', () => {
    const before = run(['a'], del);
    expect(run(['a'], del, later)).toEqual(before);
  });

  it('removed ignores every event', () => {
    const removed = run([], del);
    expect(advanceDeletion(removed, later)).toEqual(removed);
    expect(advanceDeletion(removed, finalizers('x'))).toEqual(removed);
  });
});

describe('deletion machine persistence', () => {
  it('persisted snapshots are plain, frozen JSON that round-trips through resolveState', () => {
    const s = run(['a', 'b'], del);
    expect(Object.isFrozen(s) && Object.isFrozen(s.context)).toBe(true);
    const json = JSON.stringify(s);
    expect(JSON.parse(json)).toEqual(s);
    const restored = deletionMachine.resolveState(JSON.parse(json) as { value: 'finalizing'; context: PersistedDeletion['context'] });
    expect(restored.value).toBe('finalizing');
    expect(JSON.stringify(advanceDeletion(JSON.parse(json) as PersistedDeletion, finalizers()))).toBe(JSON.stringify(run(['a', 'b'], del, finalizers())));
  });

  it('matches the public pure transition() path byte for byte', () => {
    let [snap] = initialTransition(deletionMachine, { finalizers: ['a'] });
    [snap] = transition(deletionMachine, snap, del);
    [snap] = transition(deletionMachine, snap, finalizers());
    expect(JSON.stringify(deletionMachine.getPersistedSnapshot(snap))).toBe(JSON.stringify(run(['a'], del, finalizers())));
  });

  it('returns no actions to execute', () => {
    const [, actions] = transition(deletionMachine, deletionMachine.resolveState({ value: 'live', context: { finalizers: ['a'], deletionTimestamp: null } }), del);
    expect(actions.filter((a) => !a.type.startsWith('xstate.'))).toEqual([]);
  });
});
