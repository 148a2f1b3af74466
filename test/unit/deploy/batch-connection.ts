// A stand-in NATS connection for StoreClient unit tests: it decodes every proposal batch the
// client publishes and holds it until the test answers it (through the client's reply inbox
// subscription, as nats-server would deliver it), holds ReadIndex requests the same way, and
// counts event-loop turns.
import { TimeoutError } from '@nats-io/transport-node';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { decodeCommand } from '../../../actors/index.ts';
import type { CommandEnvelope } from '../../../actors/index.ts';
import { decodeProposalBatch } from '../../../raft/node/index.ts';

export interface HeldBatch {
  readonly subject: string;
  readonly items: readonly CommandEnvelope[];
  readonly bytes: number;
  readonly sentInTurn: number;
  /** One reply per item, in order. */
  answer(replies: readonly object[]): void;
  /** One reply for every item. */
  answerAll(reply: object): void;
  /** nats-server's no-responders status message. */
  noResponders(): void;
}

export interface HeldRequest {
  readonly subject: string;
  readonly sentInTurn: number;
  answer(reply: object): void;
}

export interface BatchConnection {
  readonly connection: NatsConnection;
  readonly batches: HeldBatch[];
  readonly requests: HeldRequest[];
  turn(): number;
}

const textEncoder = new TextEncoder();

export function batchConnection(options: { maxPayload?: number } = {}): BatchConnection {
  const batches: HeldBatch[] = [];
  const requests: HeldRequest[] = [];
  const inboxes = new Map<string, (error: Error | null, message: Msg) => void>();
  let turn = 0;
  const tick = (): void => { turn += 1; setImmediate(tick).unref(); };
  setImmediate(tick).unref();
  const deliver = (reply: string, data: Uint8Array, headers?: { code: number }): void => {
    const callback = inboxes.get(reply.slice(0, reply.lastIndexOf('.')));
    if (callback === undefined) throw new Error(`no inbox subscription for ${reply}`);
    callback(null, { subject: reply, data, headers } as unknown as Msg);
  };
  const connection = {
    info: options.maxPayload === undefined ? undefined : { max_payload: options.maxPayload },
    isClosed: () => false,
    subscribe: (subject: string, subscribeOptions: { callback: (error: Error | null, message: Msg) => void }) => {
      if (!subject.endsWith('.*')) throw new Error(`unexpected subscription on ${subject}`);
      inboxes.set(subject.slice(0, -2), subscribeOptions.callback);
      return { unsubscribe: () => inboxes.delete(subject.slice(0, -2)) };
    },
    publish: (subject: string, data: Uint8Array, publishOptions?: { reply?: string }) => {
      const reply = publishOptions?.reply;
      if (reply === undefined) throw new Error('a proposal batch without a reply subject');
      const decoded = decodeProposalBatch(data);
      if (!decoded.ok) throw new Error(decoded.problem);
      batches.push({
        subject, items: decoded.items.map((item) => decodeCommand(item)), bytes: data.byteLength, sentInTurn: turn,
        answer: (replies) => deliver(reply, textEncoder.encode(JSON.stringify({ version: 1, items: replies }))),
        answerAll: (answer) => deliver(reply, textEncoder.encode(JSON.stringify({ version: 1, all: answer }))),
        noResponders: () => deliver(reply, new Uint8Array(0), { code: 503 }),
      });
    },
    request: (subject: string, _payload: Uint8Array, requestOptions: { timeout: number }) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new TimeoutError()), requestOptions.timeout);
      requests.push({
        subject, sentInTurn: turn,
        answer: (reply) => {
          clearTimeout(timer);
          resolve({ data: textEncoder.encode(JSON.stringify(reply)) });
        },
      });
    }),
  } as unknown as NatsConnection;
  return { connection, batches, requests, turn: () => turn };
}

export const okReply = (index: number, leaderId = 'a'): object => ({ type: 'ok', index, leaderId, result: { type: 'noop', revision: index } });
