// StoreClient's attempt timeouts and at-most-once retries, over a stand-in NATS connection.
import { TimeoutError } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { decodeCommand } from '../../../actors/index.ts';
import { StoreClient, StoreRejectedError } from '../../../deploy/store-client.ts';
import { StorageAlarmError } from '../../../deploy/storage-quota.ts';

type Answer = 'timeout' | object;

function scriptedConnection(answers: Answer[]): { connection: NatsConnection; requests: { subject: string; timeout: number; payload: Uint8Array }[] } {
  const requests: { subject: string; timeout: number; payload: Uint8Array }[] = [];
  const connection = {
    request: (subject: string, payload: Uint8Array, options: { timeout: number }) => {
      requests.push({ subject, timeout: options.timeout, payload });
      const answer = answers.shift();
      if (answer === undefined || answer === 'timeout') return Promise.reject(new TimeoutError());
      return Promise.resolve({ data: new TextEncoder().encode(JSON.stringify(answer)) });
    },
  } as unknown as NatsConnection;
  return { connection, requests };
}

const ok = { type: 'ok', index: 7, leaderId: 'a', result: { type: 'noop', revision: 7 } };

describe('store client attempts', () => {
  it('starts with a short attempt, doubles it after each timeout up to attemptTimeoutMs, and resets after an answer', async () => {
    const { connection, requests } = scriptedConnection(['timeout', 'timeout', 'timeout', { type: 'notLeader' }, 'timeout', ok]);
    const client = new StoreClient({ connection, cluster: 'c', group: 'g' });
    expect(await client.propose({ type: 'noop' })).toEqual(ok.result);
    expect(requests.map((request) => request.timeout)).toEqual([500, 1000, 2000, 2000, 500, 1000]);
    // every attempt carries the same session and sequence: a retry applies at most once
    const sessions = requests.map((request) => decodeCommand(request.payload).session);
    expect(new Set(sessions.map((session) => JSON.stringify(session))).size).toBe(1);
    expect(sessions[0]?.sequence).toBe(1);
  });

  it('never starts above attemptTimeoutMs', async () => {
    const { connection, requests } = scriptedConnection(['timeout', ok]);
    const client = new StoreClient({ connection, cluster: 'c', group: 'g', attemptTimeoutMs: 300, deadlineMs: 5_000 });
    await client.propose({ type: 'noop' });
    expect(requests.map((request) => request.timeout)).toEqual([300, 300]);
    expect(() => new StoreClient({ connection, cluster: 'c', group: 'g', attemptTimeoutMs: 300, firstAttemptTimeoutMs: 400 })).toThrow(TypeError);
  });

  it('ends the call at once on a refusal for good: a leader\'s space alarm or a proposal too large, never retried', async () => {
    const alarmed = scriptedConnection([{ type: 'refused', message: 'the data dir of store member a holds too much' }, ok]);
    const refusal = await new StoreClient({ connection: alarmed.connection, cluster: 'c', group: 'g' }).propose({ type: 'noop' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StorageAlarmError);
    expect((refusal as Error).message).toBe('the data dir of store member a holds too much');
    expect(alarmed.requests).toHaveLength(1);
    const tooLarge = scriptedConnection([{ type: 'dropped', reason: 'tooLarge' }, ok]);
    await expect(new StoreClient({ connection: tooLarge.connection, cluster: 'c', group: 'g' }).propose({ type: 'noop' })).rejects.toThrow(StoreRejectedError);
    expect(tooLarge.requests).toHaveLength(1);
  });
});
