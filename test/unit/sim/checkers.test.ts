// The simulator's safety checker and faulty storage on hand-built inputs: each property is
// shown to pass on a good run and to throw the right SafetyViolation on a bad one.
import { describe, expect, it } from 'vitest';
import type { CoreStatus, Entry, Ready } from '../../../raft/core/index.ts';
import { SafetyChecker } from '../../sim/checkers/safety.ts';
import type { MemberView } from '../../sim/checkers/safety.ts';
import { FaultyStorage } from '../../sim/faulty-storage.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const entry = (index: number, term: number, text: string): Entry => ({ index, term, data: bytes(text) });

function view(id: string, log: Entry[], role: CoreStatus['role'], term: number, commitIndex: number): MemberView {
  const status: CoreStatus = {
    id, role, term, leaderId: role === 'leader' ? id : undefined, commitIndex, appliedIndex: 0, stableIndex: log.length, lastIndex: log.length, offsetIndex: 0,
  } as CoreStatus;
  return {
    id, status: () => status, entryAt: (index) => log[index - 1]!,
    configuration: () => ({ voters: ['a', 'b', 'c'], learners: [] }), durablyHolds: (index, held) => log[index - 1]?.term === held,
  };
}

function ready(entries: Entry[], term: number): Ready {
  return { hardState: { term, vote: undefined, commit: 0 }, entries, mustSync: true, messages: [], committedEntries: [], readStates: [] } as unknown as Ready;
}

describe('safety checker', () => {
  it('election safety: two leaders of one term are caught, even at different steps', () => {
    const checker = new SafetyChecker();
    checker.afterStep([view('a', [], 'leader', 2, 0), view('b', [], 'follower', 2, 0)]);
    expect(() => checker.afterStep([view('a', [], 'follower', 2, 0), view('b', [], 'leader', 2, 0)])).toThrow(/election-safety/);
  });

  it('log matching: same index and term with different data, or a different predecessor, is caught', () => {
    const checker = new SafetyChecker();
    const termAt = (log: Entry[]) => (index: number) => log[index - 1]?.term;
    const a = [entry(1, 1, 'x'), entry(2, 2, 'y')];
    checker.onWritten('a', a, termAt(a));
    expect(() => checker.onWritten('b', [entry(1, 1, 'z')], termAt([entry(1, 1, 'z')]))).toThrow(/log-matching/);
    const c = [entry(1, 1, 'x'), entry(2, 1, 'q'), entry(3, 2, 'w')];
    const d = [entry(1, 1, 'x'), entry(2, 2, 'y'), entry(3, 2, 'w')];
    checker.onWritten('c', c, termAt(c));
    expect(() => checker.onWritten('d', d.slice(2), termAt(d))).toThrow(/log-matching/);
  });

  it('leader completeness: a new leader lacking a committed entry is caught', () => {
    const checker = new SafetyChecker();
    const full = [entry(1, 1, 'x'), entry(2, 1, 'y')];
    checker.afterStep([view('a', full, 'leader', 1, 2)]);
    expect(() => checker.afterStep([view('a', full, 'follower', 2, 2), view('b', [entry(1, 1, 'x')], 'leader', 2, 1)])).toThrow(/leader-completeness/);
  });

  it('state machine safety: different entries applied at one index, or out of order, are caught', () => {
    const checker = new SafetyChecker();
    checker.onApplied('a', entry(1, 1, 'x'));
    expect(() => checker.onApplied('b', entry(1, 1, 'y'))).toThrow(/state-machine-safety/);
    expect(() => checker.onApplied('a', entry(3, 1, 'z'))).toThrow(/state-machine-safety/);
    checker.onRestart('a', undefined);
    expect(() => checker.onApplied('a', entry(1, 1, 'x'))).not.toThrow();
  });
});

describe('faulty storage', () => {
  it('keeps writes volatile until sync, and a crash drops what was not synced', () => {
    const storage = new FaultyStorage();
    storage.write(ready([entry(1, 1, 'x')], 1));
    storage.sync();
    storage.write(ready([entry(2, 1, 'y'), entry(3, 1, 'z')], 1));
    expect(storage.writtenLastIndex()).toBe(3);
    expect(storage.durableLastIndex()).toBe(1);
    storage.crash(0);
    expect(storage.restored().entries.map((kept) => kept.index)).toEqual([1]);
  });

  it('a torn write keeps a prefix of records: hard state first, then entries in order', () => {
    const storage = new FaultyStorage();
    storage.write(ready([entry(1, 3, 'x'), entry(2, 3, 'y')], 3));
    expect(storage.unsyncedRecords).toBe(3);
    storage.crash(2);
    const restored = storage.restored();
    expect(restored.hardState.term).toBe(3);
    expect(restored.entries.map((kept) => kept.index)).toEqual([1]);
  });

  it('an overwrite replaces the stored suffix from its first index', () => {
    const storage = new FaultyStorage();
    storage.write(ready([entry(1, 1, 'a'), entry(2, 1, 'b'), entry(3, 1, 'c')], 1));
    storage.sync();
    storage.write(ready([entry(2, 2, 'B')], 2));
    storage.sync();
    expect(storage.restored().entries.map((kept) => `${kept.index}/${kept.term}`)).toEqual(['1/1', '2/2']);
  });
});
