// ProposalService's forwarding decisions, over a stand-in NATS connection (the service only
// subscribes, publishes and responds; the real connection is covered by test/integration).
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { ProposalService } from '../../../raft/index.ts';
import type { RaftStatus } from '../../../raft/index.ts';
import type { ProposalTarget } from '../../../raft/node/index.ts';

interface Published { readonly subject: string; readonly reply: string | undefined }

function fakeConnection(): { connection: NatsConnection; deliver: (subject: string, data: Uint8Array) => Promise<unknown>; published: Published[] } {
  const handlers = new Map<string, (error: Error | null, message: Msg) => void>();
  const published: Published[] = [];
  const connection = {
    subscribe: (subject: string, options: { callback: (error: Error | null, message: Msg) => void }) => {
      handlers.set(subject, options.callback);
      return { drain: async () => {} };
    },
    publish: (subject: string, _data: Uint8Array, options?: { reply?: string }) => {
      published.push({ subject, reply: options?.reply });
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
});
