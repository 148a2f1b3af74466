// Owns: unit tests of actors/machines/statechart.ts (statechart extraction and drawing) and of
// the deletion machine's statechart and plain-words wait descriptions.
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { deletionStatechart, deletionWaitingFor } from '../../../actors/machines/deletion.ts';
import { drawStatechart, statechartOf } from '../../../actors/machines/statechart.ts';

describe('statechart of a machine', () => {
  it('lists every state, the initial and final ones, and each transition with its guard in words', () => {
    expect(deletionStatechart).toEqual({
      id: 'deletion',
      initial: 'live',
      states: [
        {
          name: 'live', description: 'in use', final: false, transitions: [
            { event: 'DELETE', guard: 'gracefulDelete', when: 'grace period > 0', target: 'terminating' },
            { event: 'DELETE', guard: 'deleteLeavesFinalizers', when: 'finalizers remain', target: 'finalizing' },
            { event: 'DELETE', target: 'removed' },
            { event: 'UNSAFE_DELETE', target: 'removed' },
            { event: 'FINALIZERS_CHANGED' },
          ],
        },
        {
          name: 'terminating', description: 'deletionTimestamp set for the end of the grace period; removed by a delete with grace period 0', final: false, transitions: [
            { event: 'DELETE', guard: 'forceDeleteLeavesFinalizers', when: 'grace period 0, finalizers remain', target: 'finalizing' },
            { event: 'DELETE', guard: 'forceDelete', when: 'grace period 0', target: 'removed' },
            { event: 'DELETE', guard: 'shortensGracePeriod', when: 'shorter grace period' },
            { event: 'UNSAFE_DELETE', target: 'removed' },
            { event: 'FINALIZERS_CHANGED' },
          ],
        },
        {
          name: 'finalizing', description: 'deletionTimestamp set; removed once its finalizers are gone', final: false, transitions: [
            { event: 'FINALIZERS_CHANGED', guard: 'finalizersEmptied', when: 'no finalizers remain', target: 'removed' },
            { event: 'FINALIZERS_CHANGED' },
            { event: 'UNSAFE_DELETE', target: 'removed' },
          ],
        },
        { name: 'removed', description: 'gone from the store', final: true, transitions: [] },
      ],
    });
  });

  it('works for any flat machine, guards without descriptions by name', () => {
    const machine = setup({ guards: { open: () => true } }).createMachine({
      id: 'door', initial: 'closed',
      states: { closed: { on: { PUSH: { guard: 'open', target: 'opened' } } }, opened: { on: { PULL: 'closed' } } },
    });
    const chart = statechartOf(machine);
    expect(chart).toEqual({
      id: 'door', initial: 'closed',
      states: [
        { name: 'closed', final: false, transitions: [{ event: 'PUSH', guard: 'open', target: 'opened' }] },
        { name: 'opened', final: false, transitions: [{ event: 'PULL', target: 'closed' }] },
      ],
    });
    expect(drawStatechart(chart, 'opened')).toBe([
      'door',
      '  closed  (initial)',
      '      PUSH [open] → opened',
      '▶ opened',
      '      PULL → closed',
    ].join('\n'));
  });

  it('draws the deletion machine with the current state marked', () => {
    const drawn = drawStatechart(deletionStatechart, 'finalizing').split('\n');
    expect(drawn.filter((line) => line.startsWith('▶'))).toEqual([expect.stringMatching(/^▶ finalizing\s+deletionTimestamp set/)]);
    expect(drawn).toContain('      DELETE [finalizers remain] → finalizing');
    expect(drawn).toContain('      FINALIZERS_CHANGED [no finalizers remain] → removed');
    expect(drawn.some((line) => line.startsWith('  removed (final)'))).toBe(true);
  });
});

describe('what a deletion state waits for', () => {
  it('names the finalizers a finalizing object waits for', () => {
    expect(deletionWaitingFor({ value: 'finalizing', context: { finalizers: ['example.com/cleanup', 'b/c'], deletionTimestamp: '2026-01-01T00:00:00Z' } }))
      .toBe('finalizing: waiting for finalizers example.com/cleanup, b/c');
    expect(deletionWaitingFor({ value: 'live', context: { finalizers: [], deletionTimestamp: null } })).toBe('live: waiting for a delete');
    expect(deletionWaitingFor({ value: 'live', context: { finalizers: ['x/y'], deletionTimestamp: null } }))
      .toBe('live: waiting for a delete (then finalizing until finalizers x/y are removed)');
    expect(deletionWaitingFor({ value: 'removed', context: { finalizers: [], deletionTimestamp: '2026-01-01T00:00:00Z' } })).toBe('removed: nothing (final state)');
  });

  it('names the kubelet a terminating pod waits for, and the way out', () => {
    const terminating = { value: 'terminating' as const, context: { finalizers: [], deletionTimestamp: '2026-01-01T00:00:30Z', gracePeriodSeconds: 30 } };
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1' } };
    expect(deletionWaitingFor(terminating, pod))
      .toBe('terminating: waiting for the kubelet on node n1 to stop its containers, or a delete with grace period 0 (grace period 30s, due 2026-01-01T00:00:30Z)');
    expect(deletionWaitingFor({ ...terminating, context: { ...terminating.context, finalizers: ['x/y'] } }))
      .toBe('terminating: waiting for whoever runs it to finish, or a delete with grace period 0 (grace period 30s, due 2026-01-01T00:00:30Z); then finalizers x/y');
  });
});
