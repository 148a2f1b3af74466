// One-server membership changes (Raft thesis §4.1-4.3) on the deterministic CoreNetwork:
// learners, promotion after catching up, removal (also of the leader), and quorums that follow
// the configuration.
import { describe, expect, it } from 'vitest';
import type { MembershipChange, RawNode } from '../../../raft/core/index.ts';
import { CoreNetwork } from './core-network.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);

function change(network: CoreNetwork, leader: string, request: MembershipChange): void {
  const proposal = network.node(leader).proposeMembershipChange(request);
  if (!proposal.accepted) throw new Error(`${request.type} ${request.id} refused: ${proposal.detail}`);
  network.pump();
  network.tick(leader);
  network.pump();
}

function settle(network: CoreNetwork, leader: string, rounds = 3): void {
  for (let round = 0; round < rounds; round += 1) {
    network.tick(leader);
    network.pump();
  }
}

const voters = (node: RawNode): readonly string[] => node.configuration().voters;

describe('raft core - membership changes', () => {
  it('grows 1 → 3 through learners and promotion while proposals continue', () => {
    const network = new CoreNetwork(['a']);
    network.tick('a');
    network.node('a').propose(encode('solo'));
    network.flush();
    for (const id of ['b', 'c']) {
      network.addMember(id, ['a']);
      change(network, 'a', { type: 'addLearner', id });
      network.node('a').propose(encode(`while-${id}-learns`));
      settle(network, 'a');
      expect(network.node(id).configuration().learners).toContain(id);
      expect(network.node(id).status().role).toBe('follower');
      change(network, 'a', { type: 'promote', id });
      network.node('a').propose(encode(`after-${id}`));
      settle(network, 'a');
    }
    for (const id of ['a', 'b', 'c']) expect(voters(network.node(id))).toEqual(['a', 'b', 'c']);
    expect(network.member('c').state.filter((text) => text.length > 0 && !text.startsWith('{')))
      .toEqual(['solo', 'while-b-learns', 'after-b', 'while-c-learns', 'after-c']);
    // Three voters now: a alone is no quorum.
    const commit = network.node('a').status().commitIndex;
    network.isolate('a');
    network.node('a').propose(encode('alone'));
    network.pump();
    expect(network.node('a').status().commitIndex).toBe(commit);
    network.heal();
    settle(network, 'a');
    expect(network.node('a').status().commitIndex).toBeGreaterThan(commit);
  });

  it('a learner added after compaction receives the snapshot with the configuration, then the log', () => {
    const network = new CoreNetwork(['a'], {}, 10, { snapshotChunkBytes: 100 });
    network.tick('a');
    for (let position = 0; position < 30; position += 1) network.node('a').propose(encode(`early${position}`));
    network.flush();
    network.compact('a');
    network.addMember('b', ['a']);
    change(network, 'a', { type: 'addLearner', id: 'b' });
    network.node('a').propose(encode('late'));
    settle(network, 'a', 5);
    expect(network.member('b').snapshot?.meta.configuration).toEqual({ voters: ['a'], learners: [] });
    expect(network.node('b').configuration()).toEqual({ voters: ['a'], learners: ['b'] });
    expect(network.member('b').state).toEqual(network.member('a').state);
  });

  it('refuses a second change until the first committed, and a promotion of a lagging learner', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.addMember('d', ['a', 'b', 'c']);
    network.isolate('d');
    expect(network.node('a').proposeMembershipChange({ type: 'addLearner', id: 'd' }).accepted).toBe(true);
    expect(network.node('a').proposeMembershipChange({ type: 'addLearner', id: 'e' })).toMatchObject({ accepted: false, reason: 'changeInProgress' });
    settle(network, 'a');
    for (let position = 0; position < 2_000; position += 1) network.node('a').propose(encode(`p${position}`));
    settle(network, 'a', 10);
    expect(network.node('a').proposeMembershipChange({ type: 'promote', id: 'd' })).toMatchObject({ accepted: false, reason: 'notCaughtUp' });
    expect(network.node('a').proposeMembershipChange({ type: 'promote', id: 'x' })).toMatchObject({ accepted: false, reason: 'invalid' });
    expect(network.node('b').proposeMembershipChange({ type: 'remove', id: 'c' })).toMatchObject({ accepted: false, reason: 'notLeader', leaderId: 'a' });
    network.heal();
    settle(network, 'a', 20);
    expect(network.node('a').proposeMembershipChange({ type: 'promote', id: 'd' }).accepted).toBe(true);
  });

  it('quorum sizes follow the configuration: after removing c, a and b commit without it', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    change(network, 'a', { type: 'remove', id: 'c' });
    expect(voters(network.node('a'))).toEqual(['a', 'b']);
    network.isolate('c');
    network.node('a').propose(encode('two-voters'));
    settle(network, 'a');
    expect(network.member('b').state).toContain('two-voters');
    // With two voters, losing b loses the quorum: nothing commits.
    const commit = network.node('a').status().commitIndex;
    network.isolate('b');
    network.node('a').propose(encode('stuck'));
    network.pump();
    expect(network.node('a').status().commitIndex).toBe(commit);
  });

  it('a removed leader steps down after the removal commits, and the rest elect a leader', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    change(network, 'a', { type: 'remove', id: 'a' });
    settle(network, 'a');
    expect(network.node('a').status().role).toBe('follower');
    expect(voters(network.node('b'))).toEqual(['b', 'c']);
    const leader = network.electAmong(['b', 'c']);
    network.node(leader).propose(encode('without-a'));
    settle(network, leader);
    expect(network.member(leader === 'b' ? 'c' : 'b').state).toContain('without-a');
    // a is no voter anymore: however long it waits, it never campaigns.
    network.tick('a', 100);
    expect(network.node('a').status().role).toBe('follower');
  });

  it('a follower undoes an uncommitted configuration entry that a new leader overwrites', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    const b = network.node('b');
    const removeC = new TextEncoder().encode(JSON.stringify({ voters: ['a', 'b'], learners: [] }));
    const append = (from: string, term: number, entries: { index: number; term: number; data: Uint8Array; type?: 'configuration' }[]): void => {
      b.step({ type: 'appendEntries', from, to: 'b', term, prevLogIndex: entries[0]!.index - 1, prevLogTerm: entries[0]!.index === 1 ? 0 : 1, entries, commit: 1, round: 0 });
      b.ready();
      b.advance();
    };
    append('a', 1, [{ index: 1, term: 1, data: new Uint8Array(0) }]);
    append('a', 1, [{ index: 2, term: 1, data: removeC, type: 'configuration' }]);
    expect(voters(b)).toEqual(['a', 'b']); // in effect once appended, before commit
    append('c', 2, [{ index: 2, term: 2, data: new Uint8Array(0) }]);
    expect(voters(b)).toEqual(['a', 'b', 'c']); // truncated: back to the bootstrap configuration
  });
});

describe('raft core - membership changes after an election', () => {
  it('a new leader refuses a change until its no-op commits (the single-server change bug)', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.intercept = (message) => (message.type === 'appendResponse' ? undefined : message);
    network.electByTicks('a');
    expect(network.node('a').status().commitIndex).toBe(0);
    expect(network.node('a').proposeMembershipChange({ type: 'remove', id: 'c' })).toMatchObject({ accepted: false, reason: 'changeInProgress' });
    network.intercept = undefined;
    network.tick('a', 3);
    network.pump();
    expect(network.node('a').proposeMembershipChange({ type: 'remove', id: 'c' }).accepted).toBe(true);
  });
});

describe('raft core - the configuration survives compaction past its entry', () => {
  it('a member that forgot a configuration entry (and holds an older snapshot) keeps it in effect and snapshots it', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    for (let position = 0; position < 5; position += 1) network.node('a').propose(encode(`early${position}`));
    settle(network, 'a');
    const before = network.compact('b', 0); // b's snapshot names the old configuration
    expect(before.meta.configuration).toEqual({ voters: ['a', 'b', 'c'], learners: [] });
    network.addMember('d', ['a', 'b', 'c']);
    change(network, 'a', { type: 'addLearner', id: 'd' });
    for (let position = 0; position < 5; position += 1) network.node('a').propose(encode(`late${position}`));
    settle(network, 'a');
    const withLearner = { voters: ['a', 'b', 'c'], learners: ['d'] };
    for (const id of ['a', 'b', 'c']) {
      const node = network.node(id);
      node.compactApplied(0);
      expect(node.status().offsetIndex).toBe(node.status().appliedIndex); // past the configuration entry
      expect(node.configuration()).toEqual(withLearner);
      expect(node.snapshotMeta(node.status().appliedIndex).configuration).toEqual(withLearner);
    }
    // The next leader replicates to the learner its configuration names.
    network.isolate('a');
    const leader = network.electAmong(['b', 'c']);
    network.node(leader).propose(encode('under a new leader'));
    settle(network, leader, 5);
    expect(network.member('d').state).toEqual(network.member(leader).state);
    expect(network.node('d').configuration()).toEqual(withLearner);
  });
});
