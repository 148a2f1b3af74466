// The KV linearizability checker on hand-written histories: known-good and known-bad ones,
// pending operations, both orders of overlapping operations, and the search bound.
import { describe, expect, it } from 'vitest';
import { checkKvLinearizability } from '../../sim/checkers/linearizability.ts';
import type { KvInput, KvOperation } from '../../sim/checkers/linearizability.ts';

let nextId = 1;
/** An operation over [call, ret]; ret undefined = pending. */
function op(clientId: string, input: KvInput, call: number, ret: number | undefined, output?: string): KvOperation {
  const id = nextId;
  nextId += 1;
  return { id, clientId, input, output, call, return: ret };
}
const put = (key: string, value: string): KvInput => ({ kind: 'put', key, value });
const append = (key: string, value: string): KvInput => ({ kind: 'append', key, value });
const get = (key: string): KvInput => ({ kind: 'get', key });
const outcome = (history: KvOperation[]): string => checkKvLinearizability(history).outcome;

describe('linearizability checker - sequential histories', () => {
  it('accepts an empty history and reads of the initial empty value', () => {
    expect(outcome([])).toBe('linearizable');
    expect(outcome([op('c1', get('x'), 1, 2, '')])).toBe('linearizable');
  });

  it('accepts put, append and get in real-time order', () => {
    expect(outcome([
      op('c1', put('x', 'a'), 1, 2), op('c1', append('x', 'b'), 3, 4), op('c2', get('x'), 5, 6, 'ab'),
    ])).toBe('linearizable');
  });

  it('rejects a stale read: a get after a completed put returns the old value', () => {
    expect(outcome([op('c1', put('x', 'a'), 1, 2), op('c2', get('x'), 3, 4, '')])).toBe('not-linearizable');
  });

  it('rejects a lost write: an acknowledged append missing from a later read', () => {
    expect(outcome([
      op('c1', append('x', 'a'), 1, 2), op('c2', append('x', 'b'), 3, 4), op('c3', get('x'), 5, 6, 'b'),
    ])).toBe('not-linearizable');
  });

  it('rejects a value nobody wrote and a duplicated append', () => {
    expect(outcome([op('c1', put('x', 'a'), 1, 2), op('c2', get('x'), 3, 4, 'z')])).toBe('not-linearizable');
    expect(outcome([op('c1', append('x', 'a'), 1, 2), op('c2', get('x'), 3, 4, 'aa')])).toBe('not-linearizable');
  });

  it('rejects reads that go back in time (a later read sees less than an earlier one)', () => {
    expect(outcome([
      op('c1', put('x', 'a'), 1, 10), op('c2', get('x'), 2, 3, 'a'), op('c3', get('x'), 4, 5, ''),
    ])).toBe('not-linearizable');
  });
});

describe('linearizability checker - concurrency', () => {
  it('accepts overlapping appends in either order', () => {
    const both = (seen: string): KvOperation[] => [
      op('c1', append('x', 'a'), 1, 5), op('c2', append('x', 'b'), 2, 6), op('c3', get('x'), 7, 8, seen),
    ];
    expect(outcome(both('ab'))).toBe('linearizable');
    expect(outcome(both('ba'))).toBe('linearizable');
    expect(outcome(both('a'))).toBe('not-linearizable');
  });

  it('accepts a read concurrent with a put seeing either value', () => {
    expect(outcome([op('c1', put('x', 'a'), 1, 5), op('c2', get('x'), 2, 3, '')])).toBe('linearizable');
    expect(outcome([op('c1', put('x', 'a'), 1, 5), op('c2', get('x'), 2, 3, 'a')])).toBe('linearizable');
  });

  it('treats operations touching at the same instant as concurrent', () => {
    expect(outcome([op('c1', put('x', 'a'), 1, 3), op('c2', get('x'), 3, 4, '')])).toBe('linearizable');
  });

  it('checks keys independently (P-compositionality) and names the failing key', () => {
    const result = checkKvLinearizability([
      op('c1', put('x', 'a'), 1, 2), op('c2', get('x'), 3, 4, 'a'),
      op('c1', put('y', 'b'), 5, 6), op('c2', get('y'), 7, 8, ''),
    ]);
    expect(result.outcome).toBe('not-linearizable');
    expect(result.keys.map((key) => [key.key, key.outcome])).toEqual([['x', 'linearizable'], ['y', 'not-linearizable']]);
  });
});

describe('linearizability checker - pending operations', () => {
  it('accepts a pending write that took effect', () => {
    expect(outcome([op('c1', put('x', 'a'), 1, undefined), op('c2', get('x'), 5, 6, 'a')])).toBe('linearizable');
  });

  it('accepts a pending write that never took effect', () => {
    expect(outcome([op('c1', put('x', 'a'), 1, undefined), op('c2', get('x'), 5, 6, '')])).toBe('linearizable');
  });

  it('rejects a pending write seen before it was invoked', () => {
    expect(outcome([op('c2', get('x'), 1, 2, 'a'), op('c1', put('x', 'a'), 3, undefined)])).toBe('not-linearizable');
  });

  it('rejects a pending write that took effect, then vanished', () => {
    expect(outcome([
      op('c1', append('x', 'a'), 1, undefined), op('c2', get('x'), 2, 3, 'a'), op('c3', get('x'), 4, 5, ''),
    ])).toBe('not-linearizable');
  });

  it('keeps a many-pending-writes history tractable', () => {
    const history: KvOperation[] = [];
    for (let client = 0; client < 40; client += 1) history.push(op(`c${client}`, append('x', `v${client};`), client, undefined));
    history.push(op('r', get('x'), 100, 101, 'v3;v1;'));
    const result = checkKvLinearizability(history);
    expect(result.outcome).toBe('linearizable');
    expect(result.keys[0]!.operations).toBe(3);
  });
});

describe('linearizability checker - bounded search', () => {
  it('answers unknown instead of searching past its step bound', () => {
    // n concurrent appends then an impossible read: the search must try all n! orders.
    const history = (appends: number): KvOperation[] => [
      ...Array.from({ length: appends }, (_, client) => op(`c${client}`, append('x', `${client};`), 1, 100)),
      op('r', get('x'), 101, 102, 'impossible'),
    ];
    expect(checkKvLinearizability(history(12), { stepsPerKeyMax: 1_000 }).outcome).toBe('unknown');
    expect(checkKvLinearizability(history(6)).outcome).toBe('not-linearizable');
  });
});
