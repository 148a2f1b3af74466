// Public surface of raft/transport: how Raft members exchange messages.
export { nullTransport } from './transport.ts';
export type { MessageHandler, Transport } from './transport.ts';
export { MemoryHub, hubQueueMessagesMax } from './memory-transport.ts';
export { codecVersion, decodeBatch, encodeBatch, encodeMessageFrame, joinFrames } from './codec.ts';
export { CodecError, InvalidNameError, TransportErrorCodes, isCodecError, subjectTokenPattern } from './errors.ts';
export type { TransportErrorCode } from './errors.ts';
export {
  NatsTransport, connectNats, natsConnectionOptions, raftSubject, checkSubjectToken,
  peerQueueMessagesMax, peerQueueBytesMax, payloadBytesDefault, decodeErrorsLoggedMax,
} from './nats-transport.ts';
export type { NatsTransportOptions, NatsTransportStats, TransportLog } from './nats-transport.ts';
