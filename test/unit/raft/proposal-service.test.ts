// ProposalService's forwarding decisions, over a stand-in NATS connection (the service only
// subscribes, publishes and responds; the real connection is covered by test/integration).
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { NotLeaderError, ProposalDroppedError, ProposalService } from '../../../raft/index.ts';
import type { RaftStatus } from '../../../raft/index.ts';
import { encodeProposalBatch, proposalBatchBytesMax, proposalBatchItemsMax, serviceRequestsInFlightMax } from '../../../raft/node/index.ts';
import type { ProposalOutcome, ProposalTarget } from '../../../raft/node/index.ts';

interface Published { readonly subject: string; readonly reply: string | undefined; readonly data?: Uint8Array }

function fakeConnection(): { connection: NatsConnection; deliver: (subject: string, data: Uint8Array) => Promise<unknown>; published: Published[] } {
  const handlers = new Map<string, (error: Error | null, message: Msg) => void>();
  const published: Published[] = [];
  const connection = {
    subscribe: (subject: string, options: { callback: (error: Error | null, message: Msg) => void }) => {
      handlers.set(subject, options.callback);
      return { drain: async () => {} };
    },
    publish: (subject: string, data: Uint8Array, options?: { reply?: string }) => {
      published.push({ subject, reply: options?.reply, ...(subject.includes('propose-batch') ? { data } : {}) });
    },
    isClosed: () => false,
  } as unknown as NatsConnection;
  const deliver = (subject: string, data: Uint8Array): Promise<unknown> => new Promise((resolve) => {
    const handler = handlers.get(subject);
    if (handler === undefined) throw new Error(`no subscription on ${subject}`);
    const message = {
      subject, data, reply: '_INBOX.client',
      respond: (bytes: Uint8Array) => {
        resolve(JSON.parse(new TextDecoder().decode(bytes)));
        return true;
      },
    } as unknown as Msg;
    handler(null, message);
    // a forwarded request is answered by someone else: resolve with a marker
    setTimeout(() => resolve('no reply from this member'), 20);
  });
  return { connection, deliver, published };
}

function follower(leaderContactMs: number | undefined): ProposalTarget<string> {
  const status: RaftStatus = {
    id: 'b', role: 'follower', term: 3, leaderId: 'a', commitIndex: 10, appliedIndex: 10, lastIndex: 10, failure: undefined, leaderContactMs,
  };
  return {
    propose: () => Promise.reject(new Error('a follower does not propose')),
    readIndex: () => Promise.reject(new Error('a follower does not read')),
    status: () => status,
  };
}

describe('proposal service forwarding', () => {
  it('a follower forwards a queue-group proposal to a leader it heard from lately', async () => {
    const { connection, deliver, published } = fakeConnection();
    const service = ProposalService.start({ connection, cluster: 'c', group: 'g', member: 'b', node: follower(100) });
    expect(await deliver(service.subjects.propose, new Uint8Array([1]))).toBe('no reply from this member');
    expect(published).toEqual([{ subject: service.subjects.proposeTo('a'), reply: '_INBOX.client' }]);
    expect(service.forwarded).toBe(1);
  });

  it('a follower that has not heard from its leader within leaderContactMaxMs answers notLeader instead of forwarding', async () => {
    const { connection, deliver, published } = fakeConnection();
    const service = ProposalService.start({ connection, cluster: 'c', group: 'g', member: 'b', node: follower(800), leaderContactMaxMs: 500 });
    expect(await deliver(service.subjects.propose, new Uint8Array([1]))).toEqual({ type: 'notLeader' });
    expect(await deliver(service.subjects.readIndex, new Uint8Array(0))).toEqual({ type: 'notLeader' });
    expect(published).toEqual([]);
    expect(service.forwarded).toBe(0);
    expect(service.staleLeaderAnswers).toBe(2);
  });

  it('a follower forwards a queue-group batch to the leader as received; a stale leader gets notLeader for the whole batch', async () => {
    const { connection, deliver, published } = fakeConnection();
    const service = ProposalService.start({ connection, cluster: 'c', group: 'g', member: 'b', node: follower(100) });
    const batch = encodeProposalBatch([new Uint8Array([1]), new Uint8Array([2, 3])]);
    expect(await deliver(service.subjects.proposeBatch, batch)).toBe('no reply from this member');
    expect(published).toEqual([{ subject: service.subjects.proposeBatchTo('a'), reply: '_INBOX.client', data: batch }]);
    // on its own subject a follower never forwards
    const own = await deliver(service.subjects.proposeBatchTo('b'), batch) as { items: { type: string }[] };
    expect(own.items.map((item) => item.type)).toEqual(['failed', 'failed']);
    expect(published).toHaveLength(1);
    const stale = fakeConnection();
    const staleService = ProposalService.start({ connection: stale.connection, cluster: 'c', group: 'g', member: 'b', node: follower(800), leaderContactMaxMs: 500 });
    expect(await stale.deliver(staleService.subjects.proposeBatch, batch)).toEqual({ version: 1, all: { type: 'notLeader' } });
  });
});

/** A leader whose proposals settle when the test says; a proposal's first byte picks its outcome. */
function leader(): { node: ProposalTarget<string>; proposed: Uint8Array[]; settleAll: () => void } {
  const proposed: Uint8Array[] = [];
  const pending: (() => void)[] = [];
  const status: RaftStatus = { id: 'a', role: 'leader', term: 3, leaderId: 'a', commitIndex: 10, appliedIndex: 10, lastIndex: 10, failure: undefined, leaderContactMs: 0 };
  const node: ProposalTarget<string> = {
    propose: (data) => new Promise<ProposalOutcome<string>>((resolve, reject) => {
      proposed.push(data);
      const index = 10 + proposed.length;
      pending.push(() => {
        switch (data[0]) {
          case 2: reject(new NotLeaderError('c')); break;
          case 3: reject(new ProposalDroppedError('leadershipLost')); break;
          case 4: reject(new ProposalDroppedError('overloaded')); break;
          case 5: reject(new Error('disk on fire')); break;
          default: resolve({ index, result: `applied ${index}` });
        }
      });
    }),
    readIndex: () => Promise.resolve(10),
    status: () => status,
  };
  return { node, proposed, settleAll: () => { for (const settle of pending.splice(0)) settle(); } };
}

describe('proposal service batches', () => {
  it('proposes every item of a batch in one turn and answers once, each item with its own outcome', async () => {
    const { connection, deliver } = fakeConnection();
    const { node, proposed, settleAll } = leader();
    const service = ProposalService.start({ connection, cluster: 'c', group: 'g', member: 'a', node, admit: (data) => (data[0] === 9 ? 'space alarm' : undefined) });
    const items = [1, 2, 3, 4, 5, 9, 1].map((first) => new Uint8Array([first, 0]));
    const replied = deliver(service.subjects.proposeBatch, encodeProposalBatch(items));
    expect(proposed).toHaveLength(6); // all but the refused one, before any settles
    expect(service.inFlight).toBe(7); // every item of the batch until its reply
    settleAll();
    expect(await replied).toEqual({
      version: 1,
      items: [
        { type: 'ok', index: 11, result: 'applied 11', leaderId: 'a' },
        { type: 'notLeader', leaderId: 'c' },
        { type: 'dropped', reason: 'leadershipLost' },
        { type: 'overloaded' },
        { type: 'failed', message: 'disk on fire' },
        { type: 'refused', message: 'space alarm' },
        { type: 'ok', index: 16, result: 'applied 16', leaderId: 'a' },
      ],
    });
    expect(service.inFlight).toBe(0);
    // each item's bytes copied out of the message, exactly
    expect(proposed.map((data) => [...data])).toEqual([[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [1, 0]]);
  });

  it('answers a malformed or oversized batch failed for every item, proposing nothing', async () => {
    const { connection, deliver } = fakeConnection();
    const { node, proposed } = leader();
    const service = ProposalService.start({ connection, cluster: 'c', group: 'g', member: 'a', node });
    const good = encodeProposalBatch([new Uint8Array([1]), new Uint8Array([1, 2])]);
    const wrongVersion = good.slice();
    wrongVersion[0] = 2;
    const tooMany = encodeProposalBatch(Array.from({ length: proposalBatchItemsMax + 1 }, () => new Uint8Array([1])));
    const tooLarge = encodeProposalBatch([new Uint8Array(proposalBatchBytesMax / 2), new Uint8Array(proposalBatchBytesMax / 2)]);
    const trailing = new Uint8Array([...good, 7]);
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array([1, 0]), /no header/],
      [wrongVersion, /version 2/],
      [encodeProposalBatch([]), /0 items/],
      [tooMany, /257 items/],
      [tooLarge, /exceeds/],
      [good.subarray(0, good.length - 1), /truncated/],
      [trailing, /after its last item/],
    ];
    for (const [message, problem] of cases) {
      const reply = await deliver(service.subjects.proposeBatch, message) as { version: number; all: { type: string; message: string } };
      expect(reply.version).toBe(1);
      expect(reply.all.type).toBe('failed');
      expect(reply.all.message).toMatch(problem);
    }
    expect(proposed).toEqual([]);
    // a batch of one is bounded by the leader's entry limit, not the batch bound
    void deliver(service.subjects.proposeBatch, encodeProposalBatch([new Uint8Array(proposalBatchBytesMax + 1)]));
    expect(proposed).toHaveLength(1);
  });

  it('counts every item against serviceRequestsInFlightMax: items beyond the room are overloaded', async () => {
    const { connection, deliver } = fakeConnection();
    const { node, settleAll } = leader();
    const service = ProposalService.start({ connection, cluster: 'c', group: 'g', member: 'a', node });
    const batchOf = (count: number): Uint8Array => encodeProposalBatch(Array.from({ length: count }, () => new Uint8Array([1])));
    const filling: Promise<unknown>[] = [];
    for (let sent = 0; sent < serviceRequestsInFlightMax - 100; sent += 100) filling.push(deliver(service.subjects.proposeBatch, batchOf(Math.min(100, serviceRequestsInFlightMax - 100 - sent))));
    expect(service.inFlight).toBe(serviceRequestsInFlightMax - 100);
    const partial = deliver(service.subjects.proposeBatch, batchOf(150));
    expect(service.inFlight).toBe(serviceRequestsInFlightMax);
    expect(await deliver(service.subjects.proposeBatch, batchOf(3))).toEqual({ version: 1, all: { type: 'overloaded' } });
    expect(await deliver(service.subjects.propose, new Uint8Array([1]))).toEqual({ type: 'overloaded' });
    settleAll();
    const reply = await partial as { items: { type: string }[] };
    expect(reply.items.map((item) => item.type)).toEqual([...Array<string>(100).fill('ok'), ...Array<string>(50).fill('overloaded')]);
    await Promise.all(filling);
    expect(service.inFlight).toBe(0);
  });
});
