// Public surface of raft/transport: how Raft members exchange messages.
export { nullTransport } from './transport.ts';
export type { MessageHandler, Transport } from './transport.ts';
export { MemoryHub, hubQueueMessagesMax } from './memory-transport.ts';
