// StoreClient's shared ReadIndex round trips and proposal batches, over a stand-in NATS
// connection whose answers the test releases by hand.
import { describe, expect, it } from 'vitest';
import { StoreClient } from '../../../deploy/store-client.ts';
import type { CommandResult } from '../../../actors/index.ts';
import { proposalBatchItemsMax } from '../../../raft/index.ts';
import { waitFor } from '../../support/wait-for.ts';
import { batchConnection, okReply } from './batch-connection.ts';

function heldConnection(): ReturnType<typeof batchConnection> {
  return batchConnection();
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

  it('proposals made in one turn travel in one message to the leader; each gets its own result', async () => {
    const { connection, batches } = heldConnection();
    const client = new StoreClient({ connection, cluster: 'c', group: 'g' });
    const proposals = Array.from({ length: 40 }, () => client.propose({ type: 'noop' }));
    await waitFor(() => batches.length === 1, { timeoutMs: 2_000, description: 'one batch sent' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(1);
    const [batch] = batches;
    expect(batch!.subject).toBe('kstore.store.c.g.propose-batch');
    expect(batch!.items).toHaveLength(40);
    // every item its own session, sequence 1
    expect(new Set(batch!.items.map((item) => item.session?.id)).size).toBe(40);
    expect(batch!.items.every((item) => item.session?.sequence === 1)).toBe(true);
    batch!.answer(batch!.items.map((_item, position) => okReply(100 + position)));
    const results = await Promise.all(proposals);
    expect(results.map((result: CommandResult) => (result as { revision: number }).revision)).toEqual(Array.from({ length: 40 }, (_item, position) => 100 + position));
    // the leader is known now: the next batch goes to its own subject
    const next = client.propose({ type: 'noop' });
    await waitFor(() => batches.length === 2, { timeoutMs: 2_000, description: 'second batch' });
    expect(batches[1]!.subject).toBe('kstore.store.c.g.propose-batch.a');
    expect(batches[1]!.items[0]!.session).toEqual({ id: batch!.items[39]!.session?.id, sequence: 2 });
    batches[1]!.answer([okReply(200)]);
    await next;
    expect(client.proposalBatches).toEqual({ batches: 2, items: 41 });
  });

  it('retries only the items that need it, each with its own session and sequence, following a leader hint', async () => {
    const { connection, batches } = heldConnection();
    const client = new StoreClient({ connection, cluster: 'c', group: 'g' });
    const proposals = [0, 1, 2].map(() => client.propose({ type: 'noop' }));
    await waitFor(() => batches.length === 1, { timeoutMs: 2_000, description: 'first batch' });
    const first = batches[0]!;
    first.answer([okReply(5, 'b'), { type: 'notLeader', leaderId: 'b' }, { type: 'overloaded' }]);
    expect(await proposals[0]).toEqual({ type: 'noop', revision: 5 });
    // the notLeader item follows the hint at once; the overloaded one after a back-off
    await waitFor(() => batches.length === 3, { timeoutMs: 2_000, description: 'the two retries' });
    expect(batches.slice(1).map((batch) => batch.subject)).toEqual(['kstore.store.c.g.propose-batch.b', 'kstore.store.c.g.propose-batch.b']);
    expect(batches.slice(1).map((batch) => batch.items.map((item) => item.session))).toEqual([[first.items[1]!.session], [first.items[2]!.session]]);
    batches[1]!.answer([okReply(6, 'b')]);
    batches[2]!.answer([okReply(7, 'b')]);
    expect(await Promise.all(proposals.slice(1))).toEqual([{ type: 'noop', revision: 6 }, { type: 'noop', revision: 7 }]);
  });

  it('a batch answered notLeader as a whole is sent again, whole, to the hinted leader', async () => {
    const { connection, batches } = heldConnection();
    const client = new StoreClient({ connection, cluster: 'c', group: 'g' });
    const proposals = [0, 1, 2, 3].map(() => client.propose({ type: 'noop' }));
    await waitFor(() => batches.length === 1, { timeoutMs: 2_000, description: 'first batch' });
    batches[0]!.answerAll({ type: 'notLeader', leaderId: 'c' });
    await waitFor(() => batches.length === 2, { timeoutMs: 2_000, description: 'the retried batch' });
    expect(batches[1]!.subject).toBe('kstore.store.c.g.propose-batch.c');
    expect(batches[1]!.items.map((item) => item.session)).toEqual(batches[0]!.items.map((item) => item.session));
    batches[1]!.answer([1, 2, 3, 4].map((index) => okReply(index, 'c')));
    expect(await Promise.all(proposals)).toHaveLength(4);
    expect(client.leaderId).toBe('c');
  });

  it('a lost reply: every item times out and is retried with the same session and sequence; a late reply is ignored', async () => {
    const { connection, batches } = heldConnection();
    const client = new StoreClient({ connection, cluster: 'c', group: 'g', attemptTimeoutMs: 100, firstAttemptTimeoutMs: 100, deadlineMs: 5_000 });
    const proposals = [0, 1].map(() => client.propose({ type: 'noop' }));
    await waitFor(() => batches.length === 2, { timeoutMs: 2_000, description: 'the batch and its retry after a timeout' });
    expect(batches[1]!.items.map((item) => item.session)).toEqual(batches[0]!.items.map((item) => item.session));
    // the first batch's reply arrives late: the retry's answer is the one that counts
    batches[0]!.answer([okReply(1), okReply(2)]);
    batches[1]!.answer([okReply(1), okReply(2)]);
    expect(await Promise.all(proposals)).toEqual([{ type: 'noop', revision: 1 }, { type: 'noop', revision: 2 }]);
    expect(client.retries).toBe(2);
  });

  it('no responders fails every item of the batch, which retries after a back-off', async () => {
    const { connection, batches } = heldConnection();
    const client = new StoreClient({ connection, cluster: 'c', group: 'g' });
    const proposals = [0, 1].map(() => client.propose({ type: 'noop' }));
    await waitFor(() => batches.length === 1, { timeoutMs: 2_000, description: 'first batch' });
    batches[0]!.noResponders();
    await waitFor(() => batches.length === 2, { timeoutMs: 2_000, description: 'the retry' });
    expect(batches[1]!.items).toHaveLength(2);
    batches[1]!.answer([okReply(1), okReply(2)]);
    expect(await Promise.all(proposals)).toHaveLength(2);
  });

  it('splits a turn\'s proposals at the byte bound (NATS max_payload) and the item bound', async () => {
    const { connection, batches } = batchConnection({ maxPayload: 64 * 1024 });
    const client = new StoreClient({ connection, cluster: 'c', group: 'g' });
    const big = { type: 'noop', padding: 'x'.repeat(25_000) } as unknown as Parameters<StoreClient['propose']>[0];
    const proposals = Array.from({ length: 5 }, () => client.propose(big));
    await waitFor(() => batches.length === 3, { timeoutMs: 2_000, description: 'three batches' });
    expect(batches.map((batch) => batch.items.length)).toEqual([2, 2, 1]);
    expect(batches.every((batch) => batch.bytes <= 63 * 1024)).toBe(true);
    for (const batch of batches) batch.answer(batch.items.map((_item, position) => okReply(position + 1)));
    await Promise.all(proposals);

    const many = batchConnection();
    const manyClient = new StoreClient({ connection: many.connection, cluster: 'c', group: 'g' });
    // More callers than sessions: the rest wait for a session, then go in a later batch.
    const all = Array.from({ length: proposalBatchItemsMax + 10 }, () => manyClient.propose({ type: 'noop' }));
    await waitFor(() => many.batches.length === 1, { timeoutMs: 2_000, description: 'the first batch' });
    expect(many.batches[0]!.items).toHaveLength(proposalBatchItemsMax);
    many.batches[0]!.answer(many.batches[0]!.items.map((_item, position) => okReply(position + 1)));
    await waitFor(() => many.batches.length === 2, { timeoutMs: 2_000, description: 'the second batch' });
    expect(many.batches[1]!.items).toHaveLength(10);
    many.batches[1]!.answer(many.batches[1]!.items.map((_item, position) => okReply(position + 1000)));
    expect(await Promise.all(all)).toHaveLength(proposalBatchItemsMax + 10);
  });
});
