// Owns: the contract between the Raft driver and a message transport. Must not interpret
// messages beyond their `to` field. NATS arrives in a later issue as nats-transport.ts.
import type { Message } from '../core/index.ts';

export type MessageHandler = (message: Message) => void;

export interface Transport {
  /**
   * Sends each message to the member named in its `to` field. Best effort: a transport may drop,
   * delay or (rarely) reorder messages, which Raft tolerates; it must never block the caller and
   * must never deliver a message synchronously inside send() (the driver is not reentrant).
   */
  send(messages: readonly Message[]): void;
  /** Registers the handler for messages addressed to this member; returns its unsubscribe. */
  onMessage(handler: MessageHandler): () => void;
}

/** The transport of a single-member group: there is nobody to talk to. */
export const nullTransport: Transport = {
  send(messages: readonly Message[]): void {
    if (messages.length > 0) throw new Error('a single-member group has no peers to message');
  },
  onMessage(): () => void {
    return () => {};
  },
};
