// Owns: a store client's proposal batches on the wire (the sending half of the format in
// raft/node/proposal-batch.ts): gathering the proposal attempts made in one turn of the event
// loop, one request message per destination subject (split at the batch bounds), one reply
// inbox subscription for every batch (multiplexed by a token in the reply subject), and each
// attempt's own timeout (one timer per batch and distinct timeout, not one per attempt).
//
// Gathering: attempts are flushed in setImmediate, i.e. after the event loop's poll phase has run
// every I/O callback that was ready. Each HTTP request is its own I/O callback, so a microtask
// flush would send the proposals of one callback (usually one) alone; setImmediate gathers every
// request that arrived in the same turn, at the cost of one loop turn of latency (microseconds
// when the loop is idle; under load the turn is what the batch is made of).
//
// Replies: nats.js's request() builds a request object, a timer and up to three Error objects
// (its async-trace RequestError, the TimeoutError of its timer, the RequestError its cancel()
// rejects an already settled promise with) per request. Here one subscription on
// `<inbox>.*` receives every batch's reply; an attempt's timeout is a plain timer and its
// outcome a plain object (BatchAnswer), never an Error.
//
// Must not: retry or interpret outcomes (the store client does, item by item, with each item's
// own session and sequence), or know what the proposals mean.
import { createInbox } from '@nats-io/transport-node';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { encodeProposalBatch, proposalBatchBytesMax, proposalBatchHeaderBytes, proposalBatchItemHeaderBytes, proposalBatchItemsMax, proposeBatchReplyItems } from '../raft/index.ts';
import type { ProposeBatchReply, ProposeReply } from '../raft/index.ts';

/** How one request went: its decoded reply, or why there is none. */
export type RequestAnswer<Reply> =
  | { readonly kind: 'reply'; readonly reply: Reply }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'noResponders' }
  | { readonly kind: 'error'; readonly message: string };

/** What became of one proposal attempt. */
export type BatchAnswer<Result> = RequestAnswer<ProposeReply<Result>>;

/** Bytes left under NATS's max_payload for the message's headers (none are sent today). */
const payloadHeadroomBytes = 1024;

interface PendingItem<Result> {
  readonly payload: Uint8Array;
  readonly timeoutMs: number;
  readonly resolve: (answer: BatchAnswer<Result>) => void;
  settled: boolean;
}

interface SentBatch<Result> {
  readonly items: PendingItem<Result>[];
  /** Items still waiting for this batch's reply. */
  open: number;
  /** One timer per distinct attempt timeout among the items (usually one for the whole batch). */
  readonly timers: ReturnType<typeof setTimeout>[];
}

export interface ProposalBatcherStats {
  /** Request messages published. */
  readonly batches: number;
  /** Proposal attempts they carried. */
  readonly items: number;
}

const textDecoder = new TextDecoder();

export class ProposalBatcher<Result> {
  readonly #connection: NatsConnection;
  readonly #onAttempt: ((subject: string, timeoutMs: number) => void) | undefined;
  /** Attempts made in this turn, by destination subject. */
  #gathering = new Map<string, PendingItem<Result>[]>();
  readonly #sent = new Map<string, SentBatch<Result>>();
  #inbox: string | undefined;
  #subscription: Subscription | undefined;
  #nextToken = 0;
  #closed = false;
  #batches = 0;
  #items = 0;

  /** `onAttempt` sees every attempt as it is sent (for tests and metrics). */
  constructor(connection: NatsConnection, onAttempt?: (subject: string, timeoutMs: number) => void) {
    this.#connection = connection;
    this.#onAttempt = onAttempt;
  }

  get stats(): ProposalBatcherStats {
    return { batches: this.#batches, items: this.#items };
  }

  /** Sends `payload` (one proposal's entry bytes) to `subject` in this turn's batch. */
  send(subject: string, payload: Uint8Array, timeoutMs: number): Promise<BatchAnswer<Result>> {
    return new Promise((resolve) => {
      const item: PendingItem<Result> = { payload, timeoutMs, resolve, settled: false };
      const gathered = this.#gathering.get(subject);
      if (gathered !== undefined) {
        gathered.push(item);
        return;
      }
      if (this.#gathering.size === 0) setImmediate(() => this.#flush());
      this.#gathering.set(subject, [item]);
    });
  }

  /** Unsubscribes the reply inbox once no batch waits for a reply (at once if none does). */
  close(): void {
    this.#closed = true;
    this.#unsubscribeIfIdle();
  }

  #flush(): void {
    const gathering = this.#gathering;
    this.#gathering = new Map();
    const payloadMax = Math.max(0, (this.#connection.info?.max_payload ?? proposalBatchBytesMax) - payloadHeadroomBytes);
    const bytesMax = Math.min(proposalBatchBytesMax, payloadMax);
    for (const [subject, items] of gathering) {
      let start = 0;
      while (start < items.length) {
        // At least one item per batch; more while within the bounds.
        let bytes = proposalBatchHeaderBytes + framedBytes(items[start]!);
        let end = start + 1;
        while (end < items.length && end - start < proposalBatchItemsMax) {
          const next = bytes + framedBytes(items[end]!);
          if (next > bytesMax) break;
          bytes = next;
          end += 1;
        }
        this.#sendBatch(subject, items.slice(start, end));
        start = end;
      }
    }
  }

  #sendBatch(subject: string, items: PendingItem<Result>[]): void {
    const inbox = this.#replyInbox();
    if (inbox === undefined) {
      for (const item of items) settle(item, { kind: 'error', message: 'the NATS connection is closed' });
      return;
    }
    const token = (this.#nextToken++).toString(36);
    const batch: SentBatch<Result> = { items, open: items.length, timers: [] };
    // Items sent together with the same timeout expire together: one timer for them, not one each.
    const timeouts: number[] = [];
    for (const item of items) {
      this.#onAttempt?.(subject, item.timeoutMs);
      if (!timeouts.includes(item.timeoutMs)) timeouts.push(item.timeoutMs);
    }
    for (const timeoutMs of timeouts) batch.timers.push(setTimeout(() => this.#expire(token, batch, timeoutMs), timeoutMs));
    this.#sent.set(token, batch);
    this.#batches += 1;
    this.#items += items.length;
    try {
      this.#connection.publish(subject, encodeProposalBatch(items.map((item) => item.payload)), { reply: `${inbox}.${token}` });
    } catch (error) {
      this.#answerBatch(token, () => ({ kind: 'error', message: error instanceof Error ? error.message : String(error) }));
    }
  }

  /** The reply inbox prefix, subscribing on first use; undefined once the connection is closed. */
  #replyInbox(): string | undefined {
    if (this.#connection.isClosed()) return undefined;
    if (this.#inbox !== undefined) return this.#inbox;
    const inbox = createInbox();
    this.#subscription = this.#connection.subscribe(`${inbox}.*`, { callback: (error, message) => this.#onReply(error, message, inbox) });
    this.#inbox = inbox;
    return inbox;
  }

  #onReply(error: Error | null, message: Msg, inbox: string): void {
    if (error !== null) {
      // The subscription ended (connection closed, permissions): nothing more will arrive.
      for (const token of [...this.#sent.keys()]) this.#answerBatch(token, () => ({ kind: 'error', message: error.message }));
      this.#inbox = undefined;
      this.#subscription = undefined;
      return;
    }
    const token = message.subject.slice(inbox.length + 1);
    const batch = this.#sent.get(token);
    if (batch === undefined) return; // every item already timed out
    if (message.data.length === 0 && message.headers?.code === 503) {
      this.#answerBatch(token, () => ({ kind: 'noResponders' }));
      return;
    }
    let replies: readonly ProposeReply<Result>[] | string;
    try {
      replies = proposeBatchReplyItems(JSON.parse(textDecoder.decode(message.data)) as ProposeBatchReply<Result>, batch.items.length);
    } catch (parseError) {
      replies = `unreadable proposal batch reply: ${parseError instanceof Error ? parseError.message : String(parseError)}`;
    }
    const problem = replies;
    if (typeof problem === 'string') this.#answerBatch(token, () => ({ kind: 'error', message: problem }));
    else this.#answerBatch(token, (position) => ({ kind: 'reply', reply: problem[position]! }));
  }

  /** The items of the batch sent with `timeoutMs` that are still waiting time out. */
  #expire(token: string, batch: SentBatch<Result>, timeoutMs: number): void {
    for (const item of batch.items) {
      if (item.timeoutMs === timeoutMs && settle(item, { kind: 'timeout' })) this.#itemDone(token, batch);
    }
  }

  /** Settles every item of the batch still waiting, and forgets the batch. */
  #answerBatch(token: string, answer: (position: number) => BatchAnswer<Result>): void {
    const batch = this.#sent.get(token);
    if (batch === undefined) return;
    this.#sent.delete(token);
    for (const timer of batch.timers) clearTimeout(timer);
    batch.items.forEach((item, position) => settle(item, answer(position)));
    batch.open = 0;
    this.#unsubscribeIfIdle();
  }

  #itemDone(token: string, batch: SentBatch<Result>): void {
    batch.open -= 1;
    if (batch.open > 0) return;
    for (const timer of batch.timers) clearTimeout(timer);
    this.#sent.delete(token);
    this.#unsubscribeIfIdle();
  }

  #unsubscribeIfIdle(): void {
    if (!this.#closed || this.#sent.size > 0 || this.#gathering.size > 0 || this.#subscription === undefined) return;
    const subscription = this.#subscription;
    this.#subscription = undefined;
    this.#inbox = undefined;
    if (!this.#connection.isClosed()) subscription.unsubscribe();
  }
}

function framedBytes(item: { readonly payload: Uint8Array }): number {
  return proposalBatchItemHeaderBytes + item.payload.byteLength;
}

/** Resolves an item once; false if it was already settled. */
function settle<Result>(item: PendingItem<Result>, answer: BatchAnswer<Result>): boolean {
  if (item.settled) return false;
  item.settled = true;
  item.resolve(answer);
  return true;
}
