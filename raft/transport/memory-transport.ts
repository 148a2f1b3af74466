// Owns: an in-process hub connecting several RaftNodes (tests, and the single-process `server`
// role). Delivers asynchronously, in send order, copying entry bytes so no member shares a
// buffer with another (as a real wire would). Must not be used across processes.
import type { Entry, Message, NodeId } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import type { MessageHandler, Transport } from './transport.ts';

/**
 * Messages queued in the hub and not yet delivered. Raft tolerates loss, so overflow drops the
 * new message; 10 000 is far above what a test cluster has in flight between two turns.
 */
export const hubQueueMessagesMax = 10_000;

export class MemoryHub {
  readonly #handlers = new Map<NodeId, MessageHandler>();
  readonly #queue: Message[] = [];
  readonly #cutLinks = new Set<string>();
  #flushScheduled = false;
  droppedMessages = 0;

  /** The transport endpoint of member `id`. */
  connect(id: NodeId): Transport {
    return {
      send: (messages) => this.#send(id, messages),
      onMessage: (handler) => {
        assert(!this.#handlers.has(id), `member ${id} already has a handler on this hub`);
        this.#handlers.set(id, handler);
        return () => {
          if (this.#handlers.get(id) === handler) this.#handlers.delete(id);
        };
      },
    };
  }

  /** Drops every message between `id` and any other member until heal(). */
  isolate(id: NodeId, others: readonly NodeId[]): void {
    for (const other of others) {
      if (other === id) continue;
      this.#cutLinks.add(linkKey(id, other));
      this.#cutLinks.add(linkKey(other, id));
    }
  }

  heal(): void {
    this.#cutLinks.clear();
  }

  #send(from: NodeId, messages: readonly Message[]): void {
    for (const message of messages) {
      assert(message.from === from, `member ${from} sent a message as ${message.from}`);
      if (this.#cutLinks.has(linkKey(message.from, message.to)) || this.#queue.length >= hubQueueMessagesMax) {
        this.droppedMessages += 1;
        continue;
      }
      this.#queue.push(copyMessage(message));
    }
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#queue.length === 0) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      const batch = this.#queue.splice(0, this.#queue.length);
      for (const message of batch) this.#handlers.get(message.to)?.(message);
    });
  }
}

function linkKey(from: NodeId, to: NodeId): string {
  return `${from}\u0000${to}`;
}

function copyMessage(message: Message): Message {
  if (message.type !== 'appendEntries') return { ...message };
  return { ...message, entries: message.entries.map((entry): Entry => ({ ...entry, data: new Uint8Array(entry.data) })) };
}
