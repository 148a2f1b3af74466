// Fast backtracking (Raft thesis §5.3): a follower with a long divergent suffix converges in a
// number of round trips bounded by the terms involved, not by the entries.
import { describe, expect, it } from 'vitest';
import type { Entry, Message } from '../../../raft/core/index.ts';
import { CoreNetwork, entry } from './core-network.ts';

function run(from: number, to: number, term: number, label: string): Entry[] {
  return Array.from({ length: to - from + 1 }, (_, offset) => entry(from + offset, term, `${label}${from + offset}`));
}

describe('raft core - fast backtracking (R=3)', () => {
  it('a follower with a long divergent suffix converges in O(terms) round trips', () => {
    const leaderLog = [...run(1, 10, 1, 'c'), ...run(11, 20, 3, 'x'), ...run(21, 30, 5, 'y')];
    const divergent = [...run(1, 10, 1, 'c'), ...run(11, 400, 2, 'old'), ...run(401, 800, 4, 'older'), ...run(801, 900, 5, 'z')];
    const network = new CoreNetwork(['a', 'b', 'c'], {
      a: { hardState: { term: 5, vote: undefined, commit: 10 }, entries: leaderLog },
      b: { hardState: { term: 5, vote: undefined, commit: 10 }, entries: divergent },
      c: { hardState: { term: 5, vote: undefined, commit: 10 }, entries: leaderLog },
    });
    const rejections: Message[] = [];
    network.intercept = (message) => {
      if (message.type === 'appendResponse' && !message.success && message.from === 'b') rejections.push(message);
      return message;
    };
    network.electByTicks('a');
    for (let round = 0; round < 5; round += 1) {
      network.tick('a');
      network.pump();
    }
    const stored = network.member('b').stored.map((e) => [e.index, e.term]);
    expect(stored).toEqual(network.member('a').stored.map((e) => [e.index, e.term]));
    // Three divergent terms (2, 4, 5) on b: at most one rejection per term. The first carries
    // the hint (b's entry 30 is of term 2, whose run starts at 11) and already suffices, where
    // one-entry-at-a-time backtracking would take 20 round trips.
    expect(rejections.length).toBeLessThanOrEqual(3);
    expect(rejections[0]).toMatchObject({ rejectedIndex: 30, conflictTerm: 2, conflictIndex: 11, hintIndex: 900 });
    expect(network.member('b').applied.map((e) => e.index).at(-1)).toBe(31);
  });

  it('the leader skips past a term it also holds to its own last entry of that term', () => {
    // b holds term 3 up to 40; the leader holds term 3 only up to 20, then term 5.
    const leaderLog = [...run(1, 20, 3, 'x'), ...run(21, 30, 5, 'y')];
    const follower = [...run(1, 40, 3, 'x')];
    const network = new CoreNetwork(['a', 'b', 'c'], {
      a: { hardState: { term: 5, vote: undefined, commit: 0 }, entries: leaderLog },
      b: { hardState: { term: 5, vote: undefined, commit: 0 }, entries: follower },
      c: { hardState: { term: 5, vote: undefined, commit: 0 }, entries: leaderLog },
    });
    const probes: number[] = [];
    network.intercept = (message) => {
      if (message.type === 'appendEntries' && message.to === 'b' && message.entries.length > 0) probes.push(message.prevLogIndex);
      return message;
    };
    network.electByTicks('a');
    network.tick('a');
    network.pump();
    expect(probes.slice(0, 2)).toEqual([30, 20]); // one rejection, then straight to index 20
    expect(network.member('b').stored.map((e) => e.term)).toEqual(network.member('a').stored.map((e) => e.term));
  });
});

describe('raft core - lost appends in the replicate pipeline (R=3)', () => {
  it('an append lost with no later proposal is resent within three heartbeats', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.electByTicks('a');
    let dropped = 0;
    network.intercept = (message) => {
      if (message.type === 'appendEntries' && message.to === 'b' && message.entries.length > 0 && dropped === 0) {
        dropped += 1;
        return undefined;
      }
      return message;
    };
    network.node('a').propose(new TextEncoder().encode('lost once'));
    network.pump();
    expect(network.member('b').stored).toHaveLength(1);
    for (let round = 0; round < 3; round += 1) {
      network.tick('a');
      network.pump();
    }
    expect(dropped).toBe(1);
    expect(network.member('b').stored.map((e) => e.index)).toEqual([1, 2]);
  });
});
