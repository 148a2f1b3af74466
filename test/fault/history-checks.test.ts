// Proves: the fault tests' own checks (history-checks.ts) and the register model they feed to the
// linearizability checker catch what they claim to, on hand-built histories: a read served
// under the wrong resourceVersion, revisions that contradict real time, and a stale read
// through the same KvOperation shape the fault tests record (including a pending write).
// Pure and fast: no processes.
import { describe, expect, it } from 'vitest';
import { checkKvLinearizability } from '../sim/checkers/linearizability.ts';
import type { KvOperation } from '../sim/checkers/linearizability.ts';
import { checkReadRevisions, checkWriteOrder } from './history-checks.ts';

function put(id: number, key: string, value: string, call: number, returned: number | undefined): KvOperation {
  return { id, clientId: `c${id}`, input: { kind: 'put', key, value }, output: undefined, call, return: returned };
}

function get(id: number, key: string, value: string, call: number, returned: number): KvOperation {
  return { id, clientId: `c${id}`, input: { kind: 'get', key }, output: value, call, return: returned };
}

describe('fault test history checks', () => {
  it('accepts reads that report the revision their value was written at, and the initial revision for ""', () => {
    const writes = [{ key: 'r0', value: 'a', revision: 10 }];
    const initial = new Map([['r0', 4]]);
    expect(checkReadRevisions([{ key: 'r0', value: 'a', resourceVersion: '10' }, { key: 'r0', value: '', resourceVersion: '4' }], writes, initial)).toEqual([]);
  });

  it('reports a read whose value comes with another revision (a read that changed the object, or a mixed-up version)', () => {
    const writes = [{ key: 'r0', value: 'a', revision: 10 }];
    const problems = checkReadRevisions([{ key: 'r0', value: 'a', resourceVersion: '11' }], writes, new Map([['r0', 4]]));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('written at revision 10');
  });

  it('skips reads of values whose write is pending (no known revision)', () => {
    expect(checkReadRevisions([{ key: 'r0', value: 'p', resourceVersion: '99' }], [], new Map())).toEqual([]);
  });

  it('reports acknowledged writes whose revisions contradict real time, and duplicate revisions', () => {
    const history = [put(1, 'r0', 'a', 0, 10), put(2, 'r0', 'b', 20, 30)];
    expect(checkWriteOrder(history, [{ key: 'r0', value: 'a', revision: 5 }, { key: 'r0', value: 'b', revision: 6 }])).toEqual([]);
    const inverted = checkWriteOrder(history, [{ key: 'r0', value: 'a', revision: 6 }, { key: 'r0', value: 'b', revision: 5 }]);
    expect(inverted).toHaveLength(1);
    expect(inverted[0]).toContain('invoked after write');
    expect(checkWriteOrder(history, [{ key: 'r0', value: 'a', revision: 5 }, { key: 'r0', value: 'b', revision: 5 }])[0]).toContain('two writes');
  });

  it('the register model rejects a stale read and accepts a pending write seen late', () => {
    const stale = [put(1, 'r0', 'a', 0, 10), put(2, 'r0', 'b', 20, 30), get(3, 'r0', 'a', 40, 50)];
    expect(checkKvLinearizability(stale).outcome).toBe('not-linearizable');
    const pendingSeenLate = [put(1, 'r0', 'a', 0, 10), put(2, 'r0', 'p', 15, undefined), get(3, 'r0', 'a', 20, 25), get(4, 'r0', 'p', 40, 50)];
    expect(checkKvLinearizability(pendingSeenLate).outcome).toBe('linearizable');
    const pendingThenLost = [...pendingSeenLate, get(5, 'r0', 'a', 60, 70)];
    expect(checkKvLinearizability(pendingThenLost).outcome).toBe('not-linearizable');
  });
});
