// StoreClient's shared ReadIndex round trips and coalesced requests, over a stand-in NATS
// connection whose answers the test releases by hand.
import { TimeoutError } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { StoreClient } from '../../../deploy/store-client.ts';
import { waitFor } from '../../support/wait-for.ts';

interface HeldRequest {
  readonly subject: string;
  readonly sentInTurn: number;
  answer(reply: object): void;
}

/**
 * A connection that holds every request until the test answers it or its timeout passes (then
 * TimeoutError, as nats.js); counts event-loop turns.
 */
function heldConnection(): { connection: NatsConnection; requests: HeldRequest[]; turn: () => number } {
  const requests: HeldRequest[] = [];
  let turn = 0;
  const tick = (): void => { turn += 1; setImmediate(tick).unref(); };
  setImmediate(tick).unref();
  const connection = {
    request: (subject: string, _payload: Uint8Array, options: { timeout: number }) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new TimeoutError()), options.timeout);
      requests.push({
        subject, sentInTurn: turn,
        answer: (reply) => {
          clearTimeout(timer);
          resolve({ data: new TextEncoder().encode(JSON.stringify(reply)) });
        },
      });
    }),
  } as unknown as NatsConnection;
  return { connection, requests, turn: () => turn };
}

const readIndexOk = (index: number): object => ({ type: 'ok', index, leaderId: 'a' });

describe('store client batching', () => {
  it('concurrent ReadIndex calls share one round trip; a call made while it is in flight waits for a later one', async () => {
    const { connection, requests } = heldConnection();
    const client = new StoreClient({ connection, cluster: 'c', group: 'g' });
    const first = [client.readIndex(), client.readIndex(), client.readIndex()];
    await waitFor(() => requests.length === 1, { timeoutMs: 2_000, description: 'the first ReadIndex request' });
    // Sent: these calls began after it was sent, so its answer is no read point for them.
    const second = [client.readIndex(), client.readIndex()];
    await new Promise((resolve) => setImmediate(resolve));
    expect(requests).toHaveLength(1);
    requests[0]!.answer(readIndexOk(10));
    expect(await Promise.all(first)).toEqual([10, 10, 10]);
    await waitFor(() => requests.length === 2, { timeoutMs: 2_000, description: 'the second ReadIndex request' });
    requests[1]!.answer(readIndexOk(12));
    expect(await Promise.all(second)).toEqual([12, 12]);
    expect(requests.map((request) => request.subject)).toEqual(['kstore.store.c.g.read-index', 'kstore.store.c.g.read-index.a']);
  });

  it('a failed ReadIndex round trip fails only the calls that joined it', async () => {
    const { connection, requests } = heldConnection();
    const client = new StoreClient({ connection, cluster: 'c', group: 'g', attemptTimeoutMs: 200, firstAttemptTimeoutMs: 200, deadlineMs: 200 });
    const failing = client.readIndex();
    await waitFor(() => requests.length === 1, { timeoutMs: 2_000, description: 'the first ReadIndex request' });
    const later = client.readIndex();
    requests[0]!.answer({ type: 'failed', message: 'disk full' });
    // Retried (a 'failed' member is retried with back-off) until its 200 ms deadline.
    await expect(failing).rejects.toThrow(/read index/);
    const sentBefore = requests.length;
    await waitFor(() => requests.length > sentBefore, { timeoutMs: 2_000, description: 'the later ReadIndex request' });
    requests[sentBefore]!.answer(readIndexOk(5));
    expect(await later).toBe(5);
  });

  it('requests made in one turn of the event loop are sent together in the next', async () => {
    const { connection, requests } = heldConnection();
    const client = new StoreClient({ connection, cluster: 'c', group: 'g' });
    const proposals = [1, 2, 3, 4].map(() => client.propose({ type: 'noop' }));
    await waitFor(() => requests.length === 4, { timeoutMs: 2_000, description: 'four proposals sent' });
    expect(new Set(requests.map((request) => request.sentInTurn)).size).toBe(1);
    for (const request of requests) request.answer({ type: 'ok', index: 3, leaderId: 'a', result: { type: 'noop', revision: 3 } });
    expect(await Promise.all(proposals)).toHaveLength(4);
  });
});
