// The simulator's safety checker and faulty storage on hand-built inputs: each property is
// shown to pass on a good run and to throw the right SafetyViolation on a bad one.
import { describe, expect, it } from 'vitest';
import type { Configuration, CoreStatus, Entry, Ready, Snapshot } from '../../../raft/core/index.ts';
import { SafetyChecker } from '../../sim/checkers/safety.ts';
import type { MemberView } from '../../sim/checkers/safety.ts';
import { FaultyStorage } from '../../sim/faulty-storage.ts';
import { encodeWrite, KvStateMachine } from '../../sim/kv.ts';

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
    elected(checker, 'a', 2, ['a', 'b']);
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
    elected(checker, 'a', 1, ['a', 'b']);
    elected(checker, 'b', 2, ['b', 'c']);
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

  it('a torn write keeps a prefix of records: entries in order, then the hard state (as the WAL writes them)', () => {
    const storage = new FaultyStorage();
    storage.write(ready([entry(1, 3, 'x'), entry(2, 3, 'y')], 3));
    expect(storage.unsyncedRecords).toBe(3);
    storage.crash(1);
    const restored = storage.restored();
    expect(restored.hardState.term).toBe(0);
    expect(restored.entries.map((kept) => kept.index)).toEqual([1]);
    const whole = new FaultyStorage();
    whole.write(ready([entry(1, 3, 'x'), entry(2, 3, 'y')], 3));
    whole.crash(3);
    expect(whole.restored().hardState.term).toBe(3);
    expect(whole.restored().entries.map((kept) => kept.index)).toEqual([1, 2]);
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

/** A member view with a log starting after `offset`, a configuration and a durable set. */
interface MemberSpec {
  readonly id: string;
  readonly role?: CoreStatus['role'];
  readonly term: number;
  readonly commit?: number;
  readonly log?: readonly Entry[];
  readonly offset?: number;
  readonly voters?: readonly string[];
  readonly learners?: readonly string[];
  /** Indices this member holds durably (default: its whole log). */
  readonly durable?: readonly number[];
}

function member(spec: MemberSpec): MemberView {
  const log = spec.log ?? [];
  const offset = spec.offset ?? 0;
  const lastIndex = offset + log.length;
  const status = {
    id: spec.id, role: spec.role ?? 'follower', term: spec.term, leaderId: spec.role === 'leader' ? spec.id : undefined,
    commitIndex: spec.commit ?? 0, appliedIndex: 0, stableIndex: lastIndex, lastIndex, offsetIndex: offset, leadTransferee: undefined,
  } satisfies CoreStatus;
  const configuration: Configuration = { voters: spec.voters ?? ['a', 'b', 'c'], learners: spec.learners ?? [] };
  const durable = spec.durable ?? log.map((held) => held.index);
  return {
    id: spec.id, status: () => status, configuration: () => configuration,
    entryAt: (index) => {
      const found = log[index - offset - 1];
      if (found === undefined) throw new Error(`no entry ${index} at ${spec.id}`);
      return found;
    },
    durablyHolds: (index, term) => durable.includes(index) && log[index - offset - 1]?.term === term,
  };
}

const noop = (index: number, term: number): Entry => ({ index, term, data: new Uint8Array(0) });
const configurationEntry = (index: number, term: number, voters: string[]): Entry =>
  ({ index, term, data: bytes(JSON.stringify({ voters, learners: [] })), type: 'configuration' });

/** A checker that saw `leader` elected in `term` by the voters `electors` (durable votes). */
function elected(checker: SafetyChecker, leader: string, term: number, electors: readonly string[]): void {
  for (const voter of electors) checker.onDurableHardState(voter, { term, vote: leader, commit: 0 });
}

describe('safety checker - elections with changing configurations', () => {
  it('a leader needs durable votes of a majority of the voters of its own configuration', () => {
    const good = new SafetyChecker();
    elected(good, 'a', 2, ['a', 'b']);
    expect(() => good.afterStep([member({ id: 'a', role: 'leader', term: 2 })])).not.toThrow();

    const lonely = new SafetyChecker();
    elected(lonely, 'a', 2, ['a']);
    expect(() => lonely.afterStep([member({ id: 'a', role: 'leader', term: 2 })])).toThrow(/election-safety: a leads term 2 with durable votes of only a/);

    // b and c voted, a majority of the bootstrap voters, but a's configuration is a,d,e.
    const moved = new SafetyChecker();
    elected(moved, 'a', 3, ['b', 'c']);
    expect(() => moved.afterStep([member({ id: 'a', role: 'leader', term: 3, voters: ['a', 'd', 'e'] })])).toThrow(/election-safety/);
  });

  it('a leader outside its configuration, or a voter voting twice in a term, is caught', () => {
    const removed = new SafetyChecker();
    elected(removed, 'a', 2, ['b', 'c']);
    expect(() => removed.afterStep([member({ id: 'a', role: 'leader', term: 2, voters: ['b', 'c'] })])).toThrow(/not a voter/);

    const twice = new SafetyChecker();
    twice.onDurableHardState('b', { term: 4, vote: 'a', commit: 0 });
    twice.onDurableHardState('b', { term: 4, vote: 'a', commit: 3 });
    expect(() => twice.onDurableHardState('b', { term: 4, vote: 'c', commit: 3 })).toThrow(/election-safety: b voted for a and for c in term 4/);
  });
});

describe('safety checker - commit quorum', () => {
  const log = [noop(1, 1), entry(2, 1, 'x')];

  it('a commit that a majority of the configuration holds durably passes; one held by a minority is caught', () => {
    const checker = new SafetyChecker();
    elected(checker, 'a', 1, ['a', 'b']);
    checker.afterStep([member({ id: 'a', role: 'leader', term: 1, log, commit: 1 }), member({ id: 'b', term: 1, log })]);
    // b wrote entry 2 but has not synced it: only a holds it durably.
    const leader = member({ id: 'a', role: 'leader', term: 1, log, commit: 2 });
    expect(() => checker.afterStep([leader, member({ id: 'b', term: 1, log, durable: [1] }), member({ id: 'c', term: 1, log: [] })]))
      .toThrow(/commit-quorum: leader a of term 1 committed 2\/1, but only a of voters a,b,c/);

    const synced = new SafetyChecker();
    elected(synced, 'a', 1, ['a', 'b']);
    synced.afterStep([member({ id: 'a', role: 'leader', term: 1, log, commit: 1 })]);
    expect(() => synced.afterStep([leader, member({ id: 'b', term: 1, log }), member({ id: 'c', term: 1, log: [] })])).not.toThrow();
  });

  it('counts the voters of the leader configuration, not the bootstrap voters', () => {
    const checker = new SafetyChecker();
    const voters = ['a', 'd', 'e'];
    elected(checker, 'a', 1, ['a', 'd']);
    checker.afterStep([member({ id: 'a', role: 'leader', term: 1, log, commit: 1, voters })]);
    // b and c (former voters) hold entry 2; d and e (the voters now) do not.
    const all = [member({ id: 'a', role: 'leader', term: 1, log, commit: 2, voters }), member({ id: 'b', term: 1, log }), member({ id: 'c', term: 1, log }),
      member({ id: 'd', term: 1, log, durable: [1] }), member({ id: 'e', term: 1, log: [] })];
    expect(() => checker.afterStep(all)).toThrow(/commit-quorum/);
  });
});

describe('safety checker - one membership change at a time', () => {
  const base = [noop(1, 1), configurationEntry(2, 1, ['a', 'b', 'c', 'd'])];

  it('a change of one voter after the previous one committed passes', () => {
    const checker = new SafetyChecker();
    elected(checker, 'a', 1, ['a', 'b']);
    checker.afterStep([member({ id: 'a', role: 'leader', term: 1, log: base.slice(0, 1), commit: 1 })]);
    expect(() => checker.afterStep([member({ id: 'a', role: 'leader', term: 1, log: base, commit: 1, voters: ['a', 'b', 'c', 'd'] })])).not.toThrow();
    const next = [...base, configurationEntry(3, 1, ['a', 'b', 'c'])];
    const leader = member({ id: 'a', role: 'leader', term: 1, log: next, commit: 2, voters: ['a', 'b', 'c'] });
    expect(() => checker.afterStep([leader, member({ id: 'b', term: 1, log: next })])).not.toThrow();
  });

  it('two voters changed at once, or a change before the previous one committed, is caught', () => {
    const atOnce = new SafetyChecker();
    elected(atOnce, 'a', 1, ['a', 'b']);
    atOnce.afterStep([member({ id: 'a', role: 'leader', term: 1, log: base.slice(0, 1), commit: 1 })]);
    const two = [noop(1, 1), configurationEntry(2, 1, ['a', 'b', 'd', 'e'])];
    expect(() => atOnce.afterStep([member({ id: 'a', role: 'leader', term: 1, log: two, commit: 1, voters: ['a', 'b', 'd', 'e'] })])).toThrow(/membership: .* at once/);

    const early = new SafetyChecker();
    elected(early, 'a', 1, ['a', 'b']);
    early.afterStep([member({ id: 'a', role: 'leader', term: 1, log: base.slice(0, 1), commit: 1 })]);
    early.afterStep([member({ id: 'a', role: 'leader', term: 1, log: base, commit: 1, voters: ['a', 'b', 'c', 'd'] })]);
    const next = [...base, configurationEntry(3, 1, ['a', 'b', 'c', 'd', 'e'])];
    expect(() => early.afterStep([member({ id: 'a', role: 'leader', term: 1, log: next, commit: 1, voters: ['a', 'b', 'c', 'd', 'e'] })]))
      .toThrow(/membership: .* before 2 .* committed/);
  });

  it('the first change of a term waits for the no-op only, not for proposals that followed it', () => {
    const log = [entry(1, 1, 'x'), noop(2, 2), entry(3, 2, 'p')];
    const changed = [...log, configurationEntry(4, 2, ['a', 'b', 'c', 'd'])];
    const voters = ['a', 'b', 'c', 'd'];
    const after = (commit: number): (() => void) => () => {
      const checker = new SafetyChecker();
      elected(checker, 'a', 2, ['a', 'b']);
      checker.afterStep([member({ id: 'a', role: 'leader', term: 2, log, commit: 1 })]);
      checker.afterStep([member({ id: 'a', role: 'leader', term: 2, log: changed, commit, voters }), member({ id: 'b', term: 2, log: changed })]);
    };
    expect(after(2)).not.toThrow();
    expect(after(1)).toThrow(/membership: .* before 2 /);
  });

  it('a new leader must commit its no-op before its first change', () => {
    const checker = new SafetyChecker();
    elected(checker, 'a', 1, ['a', 'b']);
    checker.afterStep([member({ id: 'a', role: 'leader', term: 1, log: base.slice(0, 1), commit: 0 })]);
    expect(() => checker.afterStep([member({ id: 'a', role: 'leader', term: 1, log: base, commit: 0, voters: ['a', 'b', 'c', 'd'] })])).toThrow(/membership/);
  });
});

describe('safety checker - snapshots and compacted logs', () => {
  const writes = [entry(1, 1, ''), { index: 2, term: 1, data: encodeWrite({ clientId: 'c1', sequence: 1, kind: 'put', key: 'k', value: 'v' }) },
    { index: 3, term: 2, data: encodeWrite({ clientId: 'c1', sequence: 2, kind: 'append', key: 'k', value: 'w' }) }];

  function appliedThrough(index: number): { checker: SafetyChecker; kv: KvStateMachine } {
    const checker = new SafetyChecker();
    const kv = new KvStateMachine();
    for (const applied of writes.slice(0, index)) {
      checker.onApplied('a', applied);
      kv.apply(applied.index, applied.data);
    }
    return { checker, kv };
  }

  it('a snapshot of the applied state passes; other data, another term or an unapplied index is caught', () => {
    const { checker, kv } = appliedThrough(3);
    const meta = { index: 3, term: 2, configuration: { voters: ['a', 'b', 'c'], learners: [] } };
    expect(() => checker.onSnapshot('a', { meta, data: kv.snapshot() }, 'taken')).not.toThrow();
    expect(checker.snapshotsChecked).toBe(1);
    const other = new KvStateMachine();
    other.apply(1, writes[0]!.data);
    other.apply(2, writes[1]!.data);
    other.apply(3, encodeWrite({ clientId: 'c1', sequence: 2, kind: 'put', key: 'k', value: 'w' }));
    expect(() => checker.onSnapshot('b', { meta, data: other.snapshot() }, 'installed')).toThrow(/state-machine-safety: b installed a snapshot at 3 holding/);
    expect(() => checker.onSnapshot('b', { meta: { ...meta, term: 3 }, data: kv.snapshot() }, 'installed')).toThrow(/3\/2 was applied/);
    expect(() => checker.onSnapshot('b', { meta: { ...meta, index: 4 }, data: kv.snapshot() }, 'installed')).toThrow(/which no member applied/);
  });

  it('an older snapshot is checked against the state at its own index; an install moves the applied index', () => {
    const { checker, kv } = appliedThrough(3);
    const atTwo = new KvStateMachine();
    atTwo.apply(1, writes[0]!.data);
    atTwo.apply(2, writes[1]!.data);
    const configuration = { voters: ['a', 'b', 'c'], learners: [] };
    checker.onSnapshot('a', { meta: { index: 3, term: 2, configuration }, data: kv.snapshot() }, 'taken');
    expect(() => checker.onSnapshot('b', { meta: { index: 2, term: 1, configuration }, data: atTwo.snapshot() }, 'installed')).not.toThrow();
    expect(() => checker.onSnapshot('c', { meta: { index: 2, term: 1, configuration }, data: kv.snapshot() }, 'installed')).toThrow(/state-machine-safety/);
    // b continues after its snapshot: 3 is next, 1 is out of order.
    expect(() => checker.onApplied('b', writes[2]!)).not.toThrow();
    checker.onRestart('c', undefined);
    expect(() => checker.onApplied('c', writes[2]!)).toThrow(/c applied 3, expected 1/);
  });

  it('leader completeness skips entries under a leader snapshot but not above it', () => {
    const checker = new SafetyChecker();
    const log = [noop(1, 1), entry(2, 1, 'x'), entry(3, 1, 'y')];
    elected(checker, 'a', 1, ['a', 'b']);
    checker.afterStep([member({ id: 'a', role: 'leader', term: 1, log, commit: 3 }), member({ id: 'b', term: 1, log })]);
    elected(checker, 'b', 2, ['b', 'c']);
    const compacted = [entry(3, 1, 'y'), noop(4, 2)];
    expect(() => checker.afterStep([member({ id: 'b', role: 'leader', term: 2, log: compacted, offset: 2, commit: 3 })])).not.toThrow();
    elected(checker, 'c', 3, ['c', 'a']);
    const lacking = [noop(3, 3)];
    expect(() => checker.afterStep([member({ id: 'c', role: 'leader', term: 3, log: lacking, offset: 2, commit: 2 })]))
      .toThrow(/leader-completeness: leader c of term 3 lacks committed entry 3\/1/);
  });
});

describe('faulty storage - snapshots', () => {
  const snapshot = (index: number, term: number, text: string): Snapshot =>
    ({ meta: { index, term, configuration: { voters: ['a'], learners: [] } }, data: bytes(text) });

  it('a snapshot of a held entry keeps the log after it; one the log does not hold replaces it', () => {
    const storage = new FaultyStorage();
    storage.write(ready([entry(1, 1, 'a'), entry(2, 1, 'b'), entry(3, 1, 'c')], 1));
    storage.writeSnapshot(snapshot(2, 1, 's2'));
    storage.sync();
    expect(storage.restored().snapshot?.meta.index).toBe(2);
    expect(storage.restored().entries.map((kept) => kept.index)).toEqual([3]);
    expect(storage.durablyHolds(1, 1)).toBe(true);
    expect(storage.durablyHolds(2, 1)).toBe(true);
    expect(storage.durablyHolds(2, 2)).toBe(false);
    storage.write({ ...ready([], 2), snapshot: snapshot(5, 2, 's5') } as Ready);
    storage.sync();
    expect(storage.restored().entries).toEqual([]);
    expect(storage.writtenLastIndex()).toBe(5);
    expect(storage.writtenTermAt(5)).toBe(2);
  });

  it('a crash loses an unsynced snapshot (the log stays), or a torn write keeps it and not the entries after it', () => {
    const storage = new FaultyStorage();
    storage.write(ready([entry(1, 1, 'a'), entry(2, 1, 'b')], 1));
    storage.sync();
    storage.writeSnapshot(snapshot(2, 1, 's2'));
    expect(storage.writtenEntryAt(1)).toBeUndefined();
    storage.crash(0);
    expect(storage.restored().snapshot).toBeUndefined();
    expect(storage.restored().entries.map((kept) => kept.index)).toEqual([1, 2]);

    const torn = new FaultyStorage();
    torn.write(ready([entry(1, 1, 'a'), entry(2, 1, 'b')], 1));
    torn.sync();
    torn.write({ ...ready([entry(4, 2, 'd')], 2), snapshot: snapshot(3, 2, 's3') } as Ready);
    expect(torn.unsyncedRecords).toBe(3);
    torn.crash(1); // the snapshot reached the disk; entry 4 and the hard state did not
    expect(torn.restored().snapshot?.meta.index).toBe(3);
    expect(torn.restored().entries).toEqual([]);
    expect(torn.durableLastIndex()).toBe(3);
  });
});
