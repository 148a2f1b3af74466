// Log compaction and InstallSnapshot (Raft thesis §5.1, §5.4.3) on the deterministic
// CoreNetwork: chunked transfer, resumption after a lost chunk, and catching up after it.
import { describe, expect, it } from 'vitest';
import type { InstallSnapshot } from '../../../raft/core/index.ts';
import { CoreNetwork } from './core-network.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);

function proposeMany(network: CoreNetwork, leader: string, prefix: string, count: number): void {
  for (let position = 0; position < count; position += 1) network.node(leader).propose(encode(`${prefix}${position}`));
  network.pump();
  network.tick(leader);
  network.pump();
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
    for (let round = 0; round < 4; round += 1) {
      network.tick('a');
      network.pump();
    }
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
    for (let round = 0; round < 10; round += 1) {
      network.tick('a');
      network.pump();
    }
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

describe('raft core - a sole member compacts applied entries without a snapshot', () => {
  it('forgets applied, durable entries while it replicates to no one; not once the configuration names a learner', () => {
    const network = new CoreNetwork(['a']);
    network.electByTicks('a');
    proposeMany(network, 'a', 'v', 20);
    const node = network.node('a');
    const applied = node.status().appliedIndex;
    expect(applied).toBeGreaterThanOrEqual(20);
    node.compactSoleMember();
    expect(node.status().offsetIndex).toBe(applied);
    expect(() => node.entryAt(applied)).toThrow(/no entry/);
    // The term at the offset stays known: the next entries append and commit after it.
    proposeMany(network, 'a', 'w', 5);
    expect(node.status().appliedIndex).toBe(applied + 5);
    expect(node.status().commitIndex).toBe(applied + 5);

    // A configuration naming a learner (in effect once appended, committed or not): the learner
    // will need entries, so nothing more is compacted without a snapshot.
    const offset = node.status().offsetIndex;
    proposeMany(network, 'a', 'x', 3);
    const change = node.proposeMembershipChange({ type: 'addLearner', id: 'b' });
    expect(change.accepted).toBe(true);
    node.compactSoleMember();
    expect(node.status().offsetIndex).toBe(offset);
  });
});
