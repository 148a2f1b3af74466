// Log compaction and InstallSnapshot (Raft thesis §5.1, §5.4.3) on the deterministic
// CoreNetwork: chunked transfer, resumption after a lost chunk, and catching up after it.
import { describe, expect, it } from 'vitest';
import type { InstallSnapshot } from '../../../raft/core/index.ts';
import { CoreNetwork } from './core-network.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);

/** Proposes `count` entries and waits until `members` (default: all reachable) know they committed. */
/** `rounds` ticks of `member`, each followed by delivering every message in flight. */
function heartbeatRounds(network: CoreNetwork, member: string, rounds: number): void {
  for (let round = 0; round < rounds; round += 1) {
    network.tick(member);
    network.pump();
  }
}

/** Heals the network, cuts off a, elects b, lets it replicate, and writes after1 and after2 through it. */
function leadByBAfterHealing(network: CoreNetwork): void {
  network.heal();
  network.isolate('a');
  expect(network.electAmong(['b', 'c'])).toBe('b');
  heartbeatRounds(network, 'b', 6);
  proposeMany(network, 'b', 'after', 2);
}

/** c holds b's state, up to the writes leadByBAfterHealing made. */
function expectCaughtUpWithB(network: CoreNetwork): void {
  expect(network.member('c').state).toEqual(network.member('b').state);
  expect(network.member('c').state.at(-1)).toBe('after1');
}

function proposeMany(network: CoreNetwork, leader: string, prefix: string, count: number, members?: readonly string[]): void {
  for (let position = 0; position < count; position += 1) network.node(leader).propose(encode(`${prefix}${position}`));
  network.tickUntilCommitKnown(leader, members);
}

describe('raft core - snapshots and InstallSnapshot (R=3)', () => {
  it('compaction forgets applied entries and keeps the snapshot\'s term at the offset', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    proposeMany(network, 'a', 'v', 30);
    const snapshot = network.compact('a', 5);
    expect(snapshot.meta).toEqual({ index: 31, term: 1, configuration: { voters: ['a', 'b', 'c'], learners: [] } });
    expect(network.node('a').status().offsetIndex).toBe(26);
    expect(() => network.node('a').entryAt(26)).toThrow(/no entry/);
    expect(network.node('a').entryAt(27).index).toBe(27);
  });

  it('a follower behind the compacted log catches up by a chunked snapshot, then by entries', () => {
    const network = new CoreNetwork(['a', 'b', 'c'], {}, 10, { snapshotChunkBytes: 64 });
    network.electByTicks('a');
    proposeMany(network, 'a', 'early', 5);
    network.isolate('c');
    proposeMany(network, 'a', 'missed', 40);
    network.compact('a');
    network.compact('b');
    const chunks: InstallSnapshot[] = [];
    network.intercept = (message) => {
      if (message.type === 'installSnapshot') chunks.push(message);
      return message;
    };
    network.heal();
    heartbeatRounds(network, 'a', 4);
    proposeMany(network, 'a', 'after', 3);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.map((chunk) => chunk.offset)).toEqual([...chunks.map((chunk) => chunk.offset)].sort((x, y) => x - y));
    expect(chunks.at(-1)!.done).toBe(true);
    expect(network.member('c').snapshot?.meta.index).toBe(46);
    expect(network.member('c').state).toEqual(network.member('a').state);
    expect(network.member('c').state.at(-1)).toBe('after2');
    expect(network.node('c').status()).toMatchObject({ commitIndex: 49, appliedIndex: 49, offsetIndex: 46 });
  });

  it('a lost chunk is resent at the next heartbeat and the transfer resumes at the follower\'s offset', () => {
    const network = new CoreNetwork(['a', 'b', 'c'], {}, 10, { snapshotChunkBytes: 32 });
    network.electByTicks('a');
    network.isolate('c');
    proposeMany(network, 'a', 'x', 20);
    network.compact('a');
    let dropped = 0;
    const offsets: number[] = [];
    network.intercept = (message) => {
      if (message.type !== 'installSnapshot') return message;
      offsets.push(message.offset);
      if (message.offset === 64 && dropped === 0) {
        dropped += 1;
        return undefined;
      }
      return message;
    };
    network.heal();
    heartbeatRounds(network, 'a', 10);
    expect(dropped).toBe(1);
    expect(offsets.filter((offset) => offset === 64)).toHaveLength(2); // resent, not restarted
    expect(offsets.filter((offset) => offset === 0)).toHaveLength(1);
    expect(network.member('c').state).toEqual(network.member('a').state);
  });

  it('a follower whose log holds the snapshot\'s last entry keeps its log and only commits', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    proposeMany(network, 'a', 'y', 3);
    const snapshot = network.compact('a');
    network.node('b').step({
      type: 'installSnapshot', from: 'a', to: 'b', term: 1, snapshot: snapshot.meta, offset: 0, data: snapshot.data, done: true,
    });
    const ready = network.node('b').ready();
    expect(ready.snapshot).toBeUndefined();
    expect(ready.messages).toMatchObject([{ type: 'snapshotResponse', installed: true, snapshotIndex: 4 }]);
    network.node('b').advance();
  });
});

describe('raft core - member compaction (compactApplied) and snapshots on demand', () => {
  it('a sole member forgets applied, durable entries and keeps no tail; the term at the offset stays known', () => {
    const network = new CoreNetwork(['a']);
    network.electByTicks('a');
    proposeMany(network, 'a', 'v', 20);
    const node = network.node('a');
    const applied = node.status().appliedIndex;
    expect(applied).toBeGreaterThanOrEqual(20);
    node.compactApplied(); // the default tail (compactionRetainEntries) is for peers; it has none
    expect(node.status().offsetIndex).toBe(applied);
    expect(() => node.entryAt(applied)).toThrow(/no entry/);
    proposeMany(network, 'a', 'w', 5);
    expect(node.status().appliedIndex).toBe(applied + 5);
    expect(node.status().commitIndex).toBe(applied + 5);
  });

  it('a follower keeps the retained tail, a leader also what its peers lack, forgotten in batches', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.isolate('c');
    proposeMany(network, 'a', 'v', 40); // applied 41 on a and b; c holds 1
    // A batch is at least the retained count: 41 - 16 = 25 entries may go, >= 16.
    network.node('b').compactApplied(16);
    expect(network.node('b').status().offsetIndex).toBe(25);
    network.node('b').compactApplied(16); // nothing new: less than a batch
    expect(network.node('b').status().offsetIndex).toBe(25);
    // The leader keeps entries from c's match (1): nothing goes while c may still be fed.
    network.node('a').compactApplied(0);
    expect(network.node('a').status().offsetIndex).toBe(1);
    network.heal();
    network.tick('a');
    network.pump();
    expect(network.node('c').status().appliedIndex).toBe(41);
    network.node('a').compactApplied(0);
    expect(network.node('a').status().offsetIndex).toBe(41);
    expect(network.snapshotsOnDemand).toBe(0);
  });

  it('a leader whose log passed its snapshot sends a fresh one, not the stale one, to a follower far behind', () => {
    const network = new CoreNetwork(['a', 'b', 'c'], {}, 10, { snapshotChunkBytes: 64 });
    network.electByTicks('a');
    proposeMany(network, 'a', 'early', 5);
    const stale = network.compact('b', 0); // b's own snapshot, as a follower
    network.isolate('c');
    proposeMany(network, 'a', 'missed', 30);
    network.node('b').compactApplied(0); // a follower keeps the retained tail only: none here
    const offset = network.node('b').status().offsetIndex;
    expect(stale.meta.index).toBeLessThan(offset);
    const sent: number[] = [];
    network.intercept = (message) => {
      if (message.type === 'installSnapshot' && message.offset === 0) sent.push(message.snapshot.index);
      return message;
    };
    leadByBAfterHealing(network);
    // Never the snapshot the log does not continue from: one taken on demand at the offset or later.
    expect(network.snapshotsOnDemand).toBe(1);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((index) => index >= offset)).toBe(true);
    expect(network.member('c').snapshot!.meta.index).toBeGreaterThanOrEqual(offset);
    expectCaughtUpWithB(network);
    expect(network.node('b').snapshotWanted()).toBe(false);
  });

  it('a leader that compacted without any snapshot takes one on demand for a follower far behind', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.isolate('c');
    network.electByTicks('a');
    proposeMany(network, 'a', 'v', 30);
    // c never answered: its match (0) holds nothing back; b's does until it acknowledged all.
    network.node('a').compactApplied(0);
    expect(network.node('a').status().offsetIndex).toBe(31);
    network.heal();
    heartbeatRounds(network, 'a', 6);
    expect(network.snapshotsOnDemand).toBe(1);
    expect(network.member('c').state).toEqual(network.member('a').state);
  });

  it('a follower that compacted, then leads, brings a lagging member up by a snapshot it takes on demand', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    proposeMany(network, 'a', 'early', 3);
    network.isolate('c');
    proposeMany(network, 'a', 'missed', 30);
    // No snapshot anywhere: b (a follower) forgets what it applied.
    network.node('b').compactApplied(0);
    expect(network.node('b').status().offsetIndex).toBeGreaterThan(network.node('c').status().lastIndex);
    leadByBAfterHealing(network);
    expect(network.snapshotsOnDemand).toBe(1);
    expect(network.member('c').snapshot).toBeDefined();
    expectCaughtUpWithB(network);
  });

  it('member compaction waits while a snapshot is wanted, so the one the driver takes is usable', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.isolate('c');
    proposeMany(network, 'a', 'v', 10);
    network.node('b').compactApplied(0);
    network.takeWantedSnapshots = false;
    network.heal();
    network.isolate('a');
    expect(network.electAmong(['b', 'c'])).toBe('b');
    const b = network.node('b');
    expect(b.snapshotWanted()).toBe(true);
    const offset = b.status().offsetIndex;
    proposeMany(network, 'b', 'w', 5, ['b']); // c waits for the snapshot nobody takes yet
    b.compactApplied(0);
    expect(b.status().offsetIndex).toBe(offset);
    network.takeWantedSnapshots = true;
    heartbeatRounds(network, 'b', 4);
    expect(b.snapshotWanted()).toBe(false);
    expect(network.member('c').state).toEqual(network.member('b').state);
    b.compactApplied(0);
    expect(b.status().offsetIndex).toBe(b.status().appliedIndex);
  });
});
