// Elections with PreVote, leader stickiness and check-quorum (Raft thesis §9.6, §6.2) on the
// deterministic CoreNetwork.
import { describe, expect, it } from 'vitest';
import { CoreNetwork } from './core-network.ts';

const electionTicks = 10;

describe('raft core - PreVote and leader stickiness (R=3)', () => {
  it('a follower isolated for many election timeouts rejoins without disrupting the leader', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    const term = network.node('a').status().term;
    network.isolate('c');
    for (let round = 0; round < 20 * electionTicks; round += 1) {
      network.tick('c'); // c keeps pre-campaigning, never raising its term
      if (round % 2 === 0) network.tick('a');
      network.pump();
    }
    expect(network.node('c').status().term).toBe(term);
    expect(network.node('c').status().role).toBe('candidate'); // a pre-candidate
    network.heal();
    network.tick('c'); // its pre-vote requests reach a and b, who still hear from their leader
    network.pump();
    network.tick('a');
    network.pump();
    for (const id of ['a', 'b', 'c']) {
      expect(network.node(id).status().term).toBe(term);
      expect(network.node(id).status().leaderId).toBe('a');
    }
    expect(network.leaders()).toEqual(['a']);
  });

  it('without PreVote the same rejoin deposes the leader (the contrast)', () => {
    const network = new CoreNetwork(['a', 'b', 'c'], {}, electionTicks, { preVote: false });
    network.electByTicks('a');
    const term = network.node('a').status().term;
    network.isolate('c');
    network.tick('c', 4 * electionTicks);
    network.pump();
    expect(network.node('c').status().term).toBeGreaterThan(term);
    network.heal();
    // a's next heartbeat to c (within two ticks: c acknowledged the no-op since a's last tick).
    for (let ticks = 0; ticks < 2 && network.node('a').status().term === term; ticks += 1) {
      network.tick('a');
      network.pump();
    }
    expect(network.node('a').status().term).toBeGreaterThan(term); // the stale-term reply deposed it
  });

  it('a member that heard from its leader ignores a higher-term vote request (stickiness)', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    const term = network.node('b').status().term;
    network.node('b').step({ type: 'requestVote', from: 'c', to: 'b', term: term + 1, lastLogIndex: 99, lastLogTerm: term });
    expect(network.node('b').status().term).toBe(term);
    const ignored = network.node('b').ready();
    expect(ignored.messages).toEqual([]);
    network.node('b').advance();
    // A transfer campaign (the leader asked for it) bypasses stickiness.
    network.node('b').step({
      type: 'requestVote', from: 'c', to: 'b', term: term + 1, lastLogIndex: 99, lastLogTerm: term, transfer: true,
    });
    expect(network.node('b').status().term).toBe(term + 1);
    const answered = network.node('b').ready();
    expect(answered.messages).toMatchObject([{ type: 'voteResponse', to: 'c', granted: true, term: term + 1 }]);
    network.node('b').advance();
  });

  it('a pre-vote is granted without changing the voter\'s term or vote', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.node('b').step({ type: 'requestVote', from: 'c', to: 'b', term: 1, lastLogIndex: 0, lastLogTerm: 0, preVote: true });
    const ready = network.node('b').ready();
    expect(ready.messages).toMatchObject([{ type: 'voteResponse', granted: true, preVote: true, term: 1 }]);
    expect(ready.hardState).toBeUndefined();
    network.node('b').advance();
    expect(network.node('b').status().term).toBe(0);
  });
});

describe('raft core - check quorum (R=3)', () => {
  it('a leader that loses its quorum steps down within an election timeout, keeping its term', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    const term = network.node('a').status().term;
    network.isolate('a');
    network.tick('a', electionTicks - 1);
    network.pump();
    expect(network.node('a').status().role).toBe('leader');
    network.tick('a', electionTicks + 1);
    network.pump();
    expect(network.node('a').status()).toMatchObject({ role: 'follower', term, leaderId: undefined });
    expect(network.node('a').propose(new Uint8Array([1]))).toEqual({ accepted: false, leaderId: undefined });
  });

  it('a leader that hears from one follower keeps leading', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.isolate('c');
    for (let tick = 0; tick < 5 * electionTicks; tick += 1) {
      network.tick('a');
      network.pump();
    }
    expect(network.leaders()).toEqual(['a']);
  });
});

describe('raft core - votes during a pre-campaign', () => {
  it('a pre-candidate grants a real vote of its own term and stays pre-candidate', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.tick('a', 25); // a pre-campaigns (its pre-vote requests go unanswered: nobody pumps)
    const a = network.node('a');
    expect(a.status()).toMatchObject({ role: 'candidate', term: 0 });
    a.step({ type: 'requestVote', from: 'b', to: 'a', term: 0, lastLogIndex: 0, lastLogTerm: 0 });
    const ready = a.ready();
    expect(ready.messages).toMatchObject([{ type: 'voteResponse', to: 'b', granted: true }]);
    expect(ready.hardState?.vote).toBe('b');
    a.advance();
    expect(a.status().role).toBe('candidate');
  });
});

describe('raft core - the election timer advanced at start-up', () => {
  /** Ticks until `id` campaigns (becomes a pre-candidate or better); the ticks it took. */
  function ticksToCampaign(network: CoreNetwork, id: string): number {
    for (let ticks = 1; ticks <= 3 * electionTicks; ticks += 1) {
      network.tick(id);
      if (network.node(id).status().role !== 'follower') return ticks;
    }
    throw new Error(`${id} did not campaign within ${3 * electionTicks} ticks`);
  }

  it('a member started with its peers campaigns within electionTicks ticks, not electionTicks to 2x', () => {
    const advanced: number[] = [];
    const plain: number[] = [];
    for (let seed = 1; seed <= 20; seed += 1) {
      const withAdvance = new CoreNetwork(['a', 'b', 'c']);
      withAdvance.restart('a', seed);
      withAdvance.node('a').advanceElectionTimerAtStart();
      advanced.push(ticksToCampaign(withAdvance, 'a'));
      const without = new CoreNetwork(['a', 'b', 'c']);
      without.restart('a', seed);
      plain.push(ticksToCampaign(without, 'a'));
    }
    for (const ticks of advanced) {
      expect(ticks).toBeGreaterThanOrEqual(1);
      expect(ticks).toBeLessThanOrEqual(electionTicks);
    }
    for (const ticks of plain) {
      expect(ticks).toBeGreaterThanOrEqual(electionTicks);
      expect(ticks).toBeLessThan(2 * electionTicks);
    }
    // Same seeds, same randomized timeouts: exactly electionTicks - 1 ticks sooner.
    expect(advanced.map((ticks) => ticks + electionTicks - 1)).toEqual(plain);
  });

  it('a cold start of the whole group elects a leader sooner', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    for (const id of ['a', 'b', 'c']) network.node(id).advanceElectionTimerAtStart();
    const leader = network.electAmong(['a', 'b', 'c'], electionTicks);
    expect(network.leaders()).toEqual([leader]);
  });

  it('a member restarted into a group with a leader does not disrupt it (PreVote refused)', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.tickUntilCommitKnown('a');
    const term = network.node('a').status().term;
    network.restart('c', 7);
    network.node('c').advanceElectionTimerAtStart();
    // c campaigns (PreVote) before a's next heartbeat reaches it: b and a refuse.
    network.tick('c', electionTicks);
    network.pump();
    network.tick('a');
    network.pump();
    for (const id of ['a', 'b', 'c']) expect(network.node(id).status().term).toBe(term);
    expect(network.leaders()).toEqual(['a']);
    expect(network.node('c').status().leaderId).toBe('a');
  });

  it('a leader is left alone', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    const term = network.node('a').status().term;
    network.node('a').advanceElectionTimerAtStart();
    for (let ticks = 0; ticks < 2 * electionTicks; ticks += 1) {
      network.tick('a');
      network.pump();
    }
    expect(network.leaders()).toEqual(['a']);
    expect(network.node('a').status().term).toBe(term);
  });
});
