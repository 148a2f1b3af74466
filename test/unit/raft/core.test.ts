// Raft core scenarios on the deterministic CoreNetwork (no I/O, no timers).
import { describe, expect, it } from 'vitest';
import { RawNode } from '../../../raft/core/index.ts';
import { createRng } from '../../../raft/stdx/index.ts';
import { CoreNetwork, entry, text } from './core-network.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('raft core - single member (R=1)', () => {
  it('elects itself on the first tick and commits its no-op', () => {
    const network = new CoreNetwork(['a']);
    network.tick('a');
    const status = network.node('a').status();
    expect(status.role).toBe('leader');
    expect(status.term).toBe(1);
    expect(status.commitIndex).toBe(1);
    expect(network.member('a').applied.map((applied) => applied.data.length)).toEqual([0]);
  });

  it('commits a proposal only after its own append is persisted', () => {
    const node = new RawNode({
      id: 'a', voters: ['a'], electionTicks: 10, heartbeatTicks: 1, rng: createRng(7),
      restored: { hardState: { term: 0, vote: undefined, commit: 0 }, entries: [] }, appliedIndex: 0,
    });
    node.campaign();
    const first = node.ready();
    expect(first.hardState).toEqual({ term: 1, vote: 'a', commit: 0 });
    expect(first.entries.map((e) => e.index)).toEqual([1]);
    expect(first.mustSync).toBe(true);
    expect(node.status().commitIndex).toBe(0); // not persisted yet: the leader's match is 0
    node.advance();
    expect(node.status().commitIndex).toBe(1);
    const proposed = node.proposeBatch([encode('x'), encode('y')]);
    expect(proposed).toEqual({ accepted: true, firstIndex: 2, term: 1 });
    const second = node.ready();
    expect(second.committedEntries.map((e) => e.index)).toEqual([1]);
    expect(second.entries.map((e) => text(e.data))).toEqual(['x', 'y']);
    node.advance();
    const third = node.ready();
    expect(third.committedEntries.map((e) => text(e.data))).toEqual(['x', 'y']);
    expect(third.mustSync).toBe(false); // commit-only hard state change
    node.advance();
    expect(node.hasReady()).toBe(false);
  });

  it('refuses to be stepped between ready() and advance()', () => {
    const network = new CoreNetwork(['a']);
    const node = network.node('a');
    node.campaign();
    node.ready();
    expect(() => node.tick()).toThrow(/between ready\(\) and advance\(\)/);
  });
});

describe('raft core - three members (R=3)', () => {
  it('elects one leader and replicates proposals to every member', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    expect(network.leaders()).toEqual(['a']);
    expect(network.node('b').status().leaderId).toBe('a');
    for (const value of ['one', 'two', 'three']) network.node('a').propose(encode(value));
    network.tickUntilCommitKnown('a'); // the periodic heartbeat carries the final commit index
    for (const id of ['a', 'b', 'c']) {
      const applied = network.member(id).applied.map((e) => text(e.data));
      expect(applied).toEqual(['', 'one', 'two', 'three']);
      expect(network.node(id).status().commitIndex).toBe(4);
    }
  });

  it('a write costs one round: the commit reaches followers with the next append or heartbeat, which skips a follower just appended to', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.tick('a');
    network.pump(); // the no-op is committed everywhere
    const sent: string[] = [];
    network.intercept = (message) => {
      sent.push(`${message.from}>${message.to}:${message.type}${message.type === 'appendEntries' ? `[${message.entries.length}]` : ''}`);
      return message;
    };
    network.node('a').propose(encode('one'));
    network.pump();
    // One append to each follower and its acknowledgement; no commit-only heartbeat round.
    expect(sent.sort()).toEqual(['a>b:appendEntries[1]', 'a>c:appendEntries[1]', 'b>a:appendResponse', 'c>a:appendResponse']);
    expect(network.node('a').status().commitIndex).toBe(2);
    expect(network.member('a').applied.map((e) => text(e.data))).toEqual(['', 'one']);
    expect(network.node('b').status().commitIndex).toBe(1);
    // The next write's append carries the commit index of the previous one.
    network.node('a').propose(encode('two'));
    network.pump();
    expect(network.member('b').applied.map((e) => text(e.data))).toEqual(['', 'one']);
    // The first tick after that append skips both followers: the append reset their election
    // timers and carried the latest round.
    sent.length = 0;
    network.tick('a');
    network.pump();
    expect(sent).toEqual([]);
    // Idle: the next periodic heartbeat carries the last commit index.
    network.tick('a');
    network.pump();
    expect(sent.sort()).toEqual(['a>b:appendEntries[0]', 'a>c:appendEntries[0]', 'b>a:appendResponse', 'c>a:appendResponse']);
    for (const id of ['b', 'c']) expect(network.member(id).applied.map((e) => text(e.data))).toEqual(['', 'one', 'two']);
    // Still idle: a heartbeat every tick.
    sent.length = 0;
    network.tick('a');
    network.pump();
    expect(sent).toHaveLength(4);
  });

  it('a follower refuses proposals and names the leader', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    expect(network.node('b').propose(encode('x'))).toEqual({ accepted: false, leaderId: 'a' });
  });

  it('a leader does not commit a previous-term entry by counting replicas (§5.4.2)', () => {
    // a holds entry 2 of term 2 that no one else has; b and c only entry 1.
    const network = new CoreNetwork(['a', 'b', 'c'], {
      a: { hardState: { term: 2, vote: 'a', commit: 1 }, entries: [entry(1, 1), entry(2, 2, 'old')] },
      b: { hardState: { term: 2, vote: 'a', commit: 1 }, entries: [entry(1, 1)] },
      c: { hardState: { term: 2, vote: 'a', commit: 1 }, entries: [entry(1, 1)] },
    });
    // Let b receive only entries of earlier terms: it will hold entry 2 but not the term-3 no-op.
    network.intercept = (message) => {
      if (message.type !== 'appendEntries') return message;
      if (message.to === 'c') return undefined;
      return { ...message, entries: message.entries.filter((e) => e.term < 3) };
    };
    network.electByTicks('a');
    expect(network.node('a').status().term).toBe(3);
    network.tick('a', 3);
    network.pump();
    expect(network.member('b').stored.map((e) => e.index)).toEqual([1, 2]);
    // Entry 2 is on a majority (a, b) but is of term 2: the leader must not commit it.
    expect(network.node('a').status().commitIndex).toBe(1);
    network.intercept = undefined;
    network.tick('a');
    network.pump();
    // Once the term-3 no-op reaches a majority, it and entry 2 before it commit together.
    expect(network.node('a').status().commitIndex).toBe(3);
    expect(network.member('a').applied.map((e) => text(e.data))).toEqual(['', 'old', '']);
  });

  it('a follower overwrites a conflicting uncommitted suffix with the leader\'s entries', () => {
    const network = new CoreNetwork(['a', 'b', 'c'], {
      a: { hardState: { term: 3, vote: undefined, commit: 1 }, entries: [entry(1, 1), entry(2, 3, 'kept')] },
      b: { hardState: { term: 2, vote: undefined, commit: 1 }, entries: [entry(1, 1), entry(2, 2, 'gone'), entry(3, 2, 'gone')] },
      c: { hardState: { term: 3, vote: undefined, commit: 1 }, entries: [entry(1, 1), entry(2, 3, 'kept')] },
    });
    network.electByTicks('a');
    network.tick('a');
    network.pump();
    const expected = [[1, 1], [2, 3], [3, 4]];
    for (const id of ['a', 'b', 'c']) {
      expect(network.member(id).stored.map((e) => [e.index, e.term])).toEqual(expected);
    }
    expect(network.member('b').applied.map((e) => text(e.data))).not.toContain('gone');
  });

  it('a partitioned old leader steps down and its uncommitted entries are overwritten (partition 1-2)', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.isolate('a');
    network.node('a').propose(encode('lost-1'));
    network.node('a').propose(encode('lost-2'));
    network.pump();
    network.tick('a', 20); // check quorum: no follower heard from for a full election timeout
    expect(network.node('a').status().role).toBe('follower');
    const newLeader = network.electAmong(['b', 'c']);
    network.node(newLeader).propose(encode('won'));
    network.pump();
    network.heal();
    network.tick(newLeader);
    network.pump();
    network.tick(newLeader);
    network.pump();
    const leaderLog = network.member(newLeader).stored.map((e) => [e.index, e.term]);
    expect(network.member('a').stored.map((e) => [e.index, e.term])).toEqual(leaderLog);
    const appliedOnA = network.member('a').applied.map((e) => text(e.data));
    expect(appliedOnA).toEqual(['', '', 'won']);
    expect(network.node('a').status().leaderId).toBe(newLeader);
  });

  it('releases a ReadIndex only after a quorum confirms leadership (partition 1-2, then healed)', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.tick('a');
    network.pump();
    network.isolate('a');
    expect(network.node('a').readIndex(1)).toBe(true);
    network.pump();
    expect(network.member('a').readStates).toEqual([]);
    network.heal();
    network.tick('a'); // the next heartbeat round reaches the followers again
    network.pump();
    expect(network.member('a').readStates).toEqual([{ requestId: 1, index: 1 }]);
  });

  it('serves a single member\'s ReadIndex at once at its commit index (R=1)', () => {
    const network = new CoreNetwork(['a']);
    network.tick('a');
    network.node('a').propose(encode('x'));
    network.flush();
    expect(network.node('a').readIndex(9)).toBe(true);
    network.flush();
    expect(network.member('a').readStates).toEqual([{ requestId: 9, index: 2 }]);
  });
});
