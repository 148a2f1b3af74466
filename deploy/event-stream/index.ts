// Owns: the public surface of deploy/event-stream: the change-event stream over JetStream
// (format, the store-side publisher, the API-side reader). Other modules import only this.
export { eventStreamName, eventSubject, encodeBatch, decodeBatch, checkBatch, StreamBatchFormatError } from './format.ts';
export type { StreamBatch } from './format.ts';
export {
  EventPublisher, autoReplicas, parseDuration, parseEventsStorage, eventsMaxAgeMsDefault, eventsMemoryBytesMaxDefault, batchBytesMaxDefault, progressIntervalMsDefault,
  leadershipPollMs, publishTimeoutMs, duplicateWindowMs,
} from './publisher.ts';
export type { EventPublisherOptions, EventPublisherStats, EventsReplicas, EventsStorage, PublisherLog } from './publisher.ts';
export { EventStreamReader, streamWaitMs, recreationCheckMs } from './reader.ts';
export type { EventStreamReaderOptions, FollowHandle, ReaderLog } from './reader.ts';
