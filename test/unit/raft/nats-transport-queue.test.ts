// raft/transport/nats-transport: the per-peer outgoing queue stays within its message and byte
// bounds and, on overflow, drops the oldest message that is not a vote (votes and TimeoutNow
// decide liveness and are tiny); appends larger than max_payload are split into consecutive
// valid appends; subjects are built from single NATS tokens only.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../raft/core/index.ts';
import { decodeBatch, InvalidNameError, joinFrames, peerQueueBytesMax, peerQueueMessagesMax, raftSubject } from '../../../raft/transport/index.ts';
import { framesWithin, PeerQueue } from '../../../raft/transport/nats-transport.ts';

const heartbeat = (round: number): Message => ({ type: 'appendEntries', from: 'a', to: 'b', term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [], commit: 0, round });
const vote = (term: number): Message => ({ type: 'requestVote', from: 'a', to: 'b', term, lastLogIndex: 0, lastLogTerm: 0 });
const bigAppend = (round: number, bytes: number): Message => ({
  type: 'appendEntries', from: 'a', to: 'b', term: 1, prevLogIndex: 0, prevLogTerm: 0, commit: 0, round,
  entries: [{ index: 1, term: 1, data: new Uint8Array(bytes) }],
});

describe('nats transport - peer queue overflow (drop oldest non-vote)', () => {
  it('keeps at most peerQueueMessagesMax messages, dropping the oldest appends first', () => {
    const queue = new PeerQueue('kstore.raft.c.g.b');
    let dropped = queue.push(vote(1));
    for (let round = 0; round < peerQueueMessagesMax + 10; round++) dropped += queue.push(heartbeat(round));
    expect(queue.messages).toHaveLength(peerQueueMessagesMax);
    expect(dropped).toBe(11);
    expect(queue.messages[0]).toEqual(vote(1));
    const rounds = queue.messages.slice(1).map((message) => (message.type === 'appendEntries' ? message.round : -1));
    expect(rounds[0]).toBe(11);
    expect(rounds.at(-1)).toBe(peerQueueMessagesMax + 9);
  });

  it('drops the oldest vote only when nothing but votes is queued', () => {
    const queue = new PeerQueue('kstore.raft.c.g.b');
    for (let term = 1; term <= peerQueueMessagesMax + 1; term++) queue.push(vote(term));
    expect(queue.messages).toHaveLength(peerQueueMessagesMax);
    expect(queue.messages[0]).toEqual(vote(2));
  });

  it('bounds the queued entry bytes, keeping the newest message', () => {
    const queue = new PeerQueue('kstore.raft.c.g.b');
    const chunk = 4 * 1024 * 1024;
    let dropped = 0;
    for (let round = 0; round < 40; round++) dropped += queue.push(bigAppend(round, chunk));
    expect(queue.bytes).toBeLessThanOrEqual(peerQueueBytesMax);
    expect(dropped).toBeGreaterThan(0);
    expect(queue.messages.at(-1)).toMatchObject({ round: 39 });
    expect(queue.take()).toHaveLength(40 - dropped);
    expect(queue.messages).toHaveLength(0);
    expect(queue.bytes).toBe(0);
  });
});

describe('nats transport - subjects', () => {
  it('is kstore.raft.<cluster>.<group>.<member>', () => {
    expect(raftSubject('prod', 'main', 'store-1')).toBe('kstore.raft.prod.main.store-1');
  });

  it.each([['a.b'], ['*'], ['>'], [''], ['with space']])('rejects %j as a name', (name) => {
    expect(() => raftSubject(name, 'main', 'm')).toThrow(InvalidNameError);
    expect(() => raftSubject('c', 'main', name)).toThrow(InvalidNameError);
  });
});

describe('nats transport - appends larger than max_payload', () => {
  const entries = Array.from({ length: 10 }, (_, position) => ({ index: 11 + position, term: 2, data: new Uint8Array(1000).fill(position) }));
  const append: Message = { type: 'appendEntries', from: 'a', to: 'b', term: 3, prevLogIndex: 10, prevLogTerm: 1, entries, commit: 15, round: 7 };

  it('sends one frame when it fits', () => {
    const fitted = framesWithin(append, 64 * 1024);
    expect(fitted).toMatchObject({ splits: 0, oversized: false });
    expect(decodeBatch(joinFrames(fitted.frames))).toEqual([append]);
  });

  it('splits into consecutive valid appends, each within the payload', () => {
    const payloadMax = 2_600;
    const fitted = framesWithin(append, payloadMax);
    expect(fitted.oversized).toBe(false);
    expect(fitted.splits).toBeGreaterThan(0);
    for (const frame of fitted.frames) expect(1 + frame.byteLength).toBeLessThanOrEqual(payloadMax);
    const parts = decodeBatch(joinFrames(fitted.frames));
    expect(parts).toHaveLength(fitted.splits + 1);
    let previous = { index: 10, term: 1 };
    const carried = [];
    for (const part of parts) {
      if (part.type !== 'appendEntries') throw new Error('every part is an append');
      expect({ index: part.prevLogIndex, term: part.prevLogTerm }).toEqual(previous);
      expect(part).toMatchObject({ from: 'a', to: 'b', term: 3, commit: 15, round: 7 });
      carried.push(...part.entries);
      const last = part.entries.at(-1);
      if (last === undefined) throw new Error('every part carries entries');
      previous = { index: last.index, term: last.term };
    }
    expect(carried).toEqual(entries);
  });

  it('reports a single entry larger than the payload as oversized', () => {
    expect(framesWithin(append, 900)).toMatchObject({ oversized: true });
    expect(framesWithin({ type: 'timeoutNow', from: 'a', to: 'b', term: 1 }, 4)).toMatchObject({ oversized: true, frames: [] });
  });
});
