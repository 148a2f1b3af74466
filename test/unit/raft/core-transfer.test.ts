// Leadership transfer (Raft thesis §3.10) on the deterministic CoreNetwork.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../raft/core/index.ts';
import { CoreNetwork } from './core-network.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('raft core - leadership transfer (R=3)', () => {
  it('brings a lagging target up to date, sends TimeoutNow, and the target wins the next term', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    const term = network.node('a').status().term;
    let holdB = true;
    const sent: Message[] = [];
    network.intercept = (message) => {
      sent.push(message);
      return holdB && message.to === 'b' && message.type === 'appendEntries' ? undefined : message;
    };
    for (const value of ['x', 'y', 'z']) network.node('a').propose(encode(value));
    network.pump();
    expect(network.node('a').transferLeadership('b')).toEqual({ accepted: true });
    expect(network.node('a').status().leadTransferee).toBe('b');
    expect(network.node('a').propose(encode('refused'))).toEqual({ accepted: false, leaderId: 'b' });
    network.pump();
    expect(sent.some((message) => message.type === 'timeoutNow')).toBe(false); // b is behind
    holdB = false;
    for (let round = 0; round < 3; round += 1) { // a stalled pipeline is re-probed after two heartbeats
      network.tick('a');
      network.pump();
    }
    const timeoutNow = sent.filter((message) => message.type === 'timeoutNow');
    expect(timeoutNow).toMatchObject([{ from: 'a', to: 'b', term }]);
    // c heard from a moments ago, yet grants: the vote request carries `transfer`.
    expect(sent.some((message) => message.type === 'requestVote' && message.transfer === true && message.preVote === undefined)).toBe(true);
    expect(network.leaders()).toEqual(['b']);
    expect(network.node('b').status().term).toBe(term + 1);
    expect(network.node('a').status()).toMatchObject({ role: 'follower', leaderId: 'b' });
    expect(network.node('b').propose(encode('new leader')).accepted).toBe(true);
  });

  it('abandons a transfer to an unreachable target after an election timeout', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    network.isolate('b');
    network.node('a').propose(encode('b misses this'));
    network.pump();
    expect(network.node('a').transferLeadership('b').accepted).toBe(true);
    network.tick('a', 9);
    network.pump();
    expect(network.node('a').propose(encode('still refused')).accepted).toBe(false);
    network.tick('a', 1);
    network.pump();
    expect(network.node('a').status()).toMatchObject({ role: 'leader', leadTransferee: undefined });
    expect(network.node('a').propose(encode('accepted again')).accepted).toBe(true);
  });

  it('refuses a transfer to itself, to a non-voter, or from a follower', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    expect(network.node('a').transferLeadership('a')).toMatchObject({ accepted: false });
    expect(network.node('a').transferLeadership('z')).toMatchObject({ accepted: false, detail: 'z is not a voter' });
    expect(network.node('b').transferLeadership('c')).toMatchObject({ accepted: false, leaderId: 'a' });
  });
});
