// StoreClient's attempt timeouts and at-most-once retries, over a stand-in NATS connection that
// answers each proposal batch from a script.
import { describe, expect, it } from 'vitest';
import { StoreClient, StoreRejectedError } from '../../../deploy/store-client.ts';
import { StorageAlarmError } from '../../../deploy/storage-quota.ts';
import type { CommandEnvelope } from '../../../actors/index.ts';
import { batchConnection } from './batch-connection.ts';

type Answer = 'timeout' | object;

/** Answers each batch (of one proposal) with the next scripted answer; 'timeout' leaves it unanswered. */
function scriptedClient(answers: Answer[], options: { attemptTimeoutMs?: number; deadlineMs?: number } = {}): {
  client: StoreClient; attempts: { subject: string; timeoutMs: number }[]; sent: CommandEnvelope[];
} {
  const held = batchConnection();
  const attempts: { subject: string; timeoutMs: number }[] = [];
  const sent: CommandEnvelope[] = [];
  const client = new StoreClient({
    connection: held.connection, cluster: 'c', group: 'g', ...options,
    onProposalAttempt: (subject, timeoutMs) => {
      attempts.push({ subject, timeoutMs });
      // Answered after the publish that follows this call, in a later turn.
      setImmediate(() => {
        const batch = held.batches[attempts.length - 1];
        if (batch === undefined) throw new Error('the attempt was not published');
        sent.push(...batch.items);
        const answer = answers.shift();
        if (answer !== undefined && answer !== 'timeout') batch.answer([answer]);
      });
    },
  });
  return { client, attempts, sent };
}

const ok = { type: 'ok', index: 7, leaderId: 'a', result: { type: 'noop', revision: 7 } };

describe('store client attempts', () => {
  it('starts with a short attempt, doubles it after each timeout up to attemptTimeoutMs, and resets after an answer', async () => {
    const { client, attempts, sent } = scriptedClient(['timeout', 'timeout', 'timeout', { type: 'notLeader' }, 'timeout', ok]);
    expect(await client.propose({ type: 'noop' })).toEqual(ok.result);
    expect(attempts.map((attempt) => attempt.timeoutMs)).toEqual([500, 1000, 2000, 2000, 500, 1000]);
    // every attempt carries the same session and sequence: a retry applies at most once
    const sessions = sent.map((envelope) => envelope.session);
    expect(sessions).toHaveLength(6);
    expect(new Set(sessions.map((session) => JSON.stringify(session))).size).toBe(1);
    expect(sessions[0]?.sequence).toBe(1);
  });

  it('never starts above attemptTimeoutMs', async () => {
    const { client, attempts } = scriptedClient(['timeout', ok], { attemptTimeoutMs: 300, deadlineMs: 5_000 });
    await client.propose({ type: 'noop' });
    expect(attempts.map((attempt) => attempt.timeoutMs)).toEqual([300, 300]);
    const { connection } = batchConnection();
    expect(() => new StoreClient({ connection, cluster: 'c', group: 'g', attemptTimeoutMs: 300, firstAttemptTimeoutMs: 400 })).toThrow(TypeError);
  });

  it('ends the call at once on a refusal for good: a leader\'s space alarm or a proposal too large, never retried', async () => {
    const alarmed = scriptedClient([{ type: 'refused', message: 'the data dir of store member a holds too much' }, ok]);
    const refusal = await alarmed.client.propose({ type: 'noop' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StorageAlarmError);
    expect((refusal as Error).message).toBe('the data dir of store member a holds too much');
    expect(alarmed.attempts).toHaveLength(1);
    const tooLarge = scriptedClient([{ type: 'dropped', reason: 'tooLarge' }, ok]);
    await expect(tooLarge.client.propose({ type: 'noop' })).rejects.toThrow(StoreRejectedError);
    expect(tooLarge.attempts).toHaveLength(1);
  });
});
