// Owns: the wire format of the change-event stream the store leader publishes to JetStream and
// the API tier's watch caches consume: stream and subject names, and the JSON body of one
// message (a StreamBatch) with its validation.
//
// Contract (readers code against it):
//   - one stream per Raft group, `KSTORE_EVENTS_<cluster>_<group>`, one subject
//     `kstore.events.<cluster>.<group>`;
//   - a message is `{ "from": F, "through": T, "events": [...] }` (optionally `"reset": true`):
//     its events are every change with revision in (F, T], ascending; T is the publishing
//     leader's applied Raft index, so a message with no events is a progress mark;
//   - messages are contiguous: each message's `from` is the previous message's `through`;
//   - `reset: true` (always with no events) says the changes in (F, T] are no longer known
//     (the publisher's MVCC history did not reach back that far, or one revision's events did
//     not fit a message): a reader that needs them re-syncs from a full list at T or later.
// Must not: do I/O.
import type { ChangeEvent } from '../../actors/index.ts';

export interface StreamBatch {
  /** Revision the batch starts after (exclusive). */
  readonly from: number;
  /** Revision the batch reaches (inclusive): the publisher's applied index. */
  readonly through: number;
  /** Every change with revision in (from, through], ascending. */
  readonly events: readonly ChangeEvent[];
  /** Changes in (from, through] are lost: re-sync from a full list. Absent means false. */
  readonly reset?: boolean;
}

export function eventStreamName(cluster: string, group: string): string {
  return `KSTORE_EVENTS_${cluster}_${group}`;
}

export function eventSubject(cluster: string, group: string): string {
  return `kstore.events.${cluster}.${group}`;
}

export class StreamBatchFormatError extends Error {
  constructor(message: string) {
    super(`invalid event stream message: ${message}`);
    this.name = 'StreamBatchFormatError';
  }
}

const textDecoder = new TextDecoder();


/** Builds a message body from events already serialised one by one (the publisher sizes them). */
export function encodeSerialised(from: number, through: number, eventTexts: readonly string[], reset = false): Uint8Array {
  // Written into one buffer of the exact size: no joined copy of the texts, no flattened one to
  // encode (the leader's publisher runs this for every message, ~13 KB at 64 clients).
  const head = `{"from":${from},"through":${through},"events":[`;
  const tail = reset ? '],"reset":true}' : ']}';
  let bytes = head.length + tail.length + Math.max(0, eventTexts.length - 1);
  for (const text of eventTexts) bytes += Buffer.byteLength(text, 'utf8');
  const body = Buffer.allocUnsafe(bytes);
  let at = body.write(head, 0, 'latin1');
  for (let index = 0; index < eventTexts.length; index++) {
    if (index > 0) body[at++] = 0x2c; // ','
    at += body.write(eventTexts[index]!, at, 'utf8');
  }
  at += body.write(tail, at, 'latin1');
  if (at !== bytes) throw new Error(`event stream message: wrote ${at} of ${bytes} bytes`);
  return body;
}

export function encodeBatch(batch: StreamBatch): Uint8Array {
  checkBatch(batch);
  return encodeSerialised(batch.from, batch.through, batch.events.map((event) => JSON.stringify(event)), batch.reset === true);
}

function isRevision(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const changeTypes: ReadonlySet<unknown> = new Set(['ADDED', 'MODIFIED', 'DELETED']);

function checkEvent(value: unknown, at: number): asserts value is ChangeEvent {
  if (!isRecord(value)) throw new StreamBatchFormatError(`events[${at}] is not an object`);
  if (!changeTypes.has(value['type'])) throw new StreamBatchFormatError(`events[${at}].type is ${JSON.stringify(value['type'])}, not ADDED, MODIFIED or DELETED`);
  if (!isRevision(value['revision']) || value['revision'] === 0) throw new StreamBatchFormatError(`events[${at}].revision is not a positive integer`);
  const key = value['key'];
  if (!isRecord(key) || typeof key['group'] !== 'string' || typeof key['resource'] !== 'string' || typeof key['namespace'] !== 'string' || typeof key['name'] !== 'string') {
    throw new StreamBatchFormatError(`events[${at}].key is not an object key {group, resource, namespace, name}`);
  }
  const object = value['object'];
  if (!isRecord(object) || !isRecord(object['metadata'])) throw new StreamBatchFormatError(`events[${at}].object is not an object with metadata`);
  if (value['previous'] !== undefined && !isRecord(value['previous'])) throw new StreamBatchFormatError(`events[${at}].previous is not an object`);
}

/** Throws StreamBatchFormatError unless `value` is a well-formed batch (shape, bounds, order). */
export function checkBatch(value: unknown): asserts value is StreamBatch {
  if (!isRecord(value)) throw new StreamBatchFormatError('not a JSON object');
  const { from, through, events, reset } = value;
  if (!isRevision(from)) throw new StreamBatchFormatError(`"from" is ${JSON.stringify(from)}, not a non-negative integer`);
  if (!isRevision(through)) throw new StreamBatchFormatError(`"through" is ${JSON.stringify(through)}, not a non-negative integer`);
  if (through < from) throw new StreamBatchFormatError(`"through" ${through} is before "from" ${from}`);
  if (!Array.isArray(events)) throw new StreamBatchFormatError('"events" is not an array');
  if (reset !== undefined && typeof reset !== 'boolean') throw new StreamBatchFormatError('"reset" is not a boolean');
  if (reset === true && events.length > 0) throw new StreamBatchFormatError('a reset message carries no events');
  let previous = from;
  for (const [at, event] of (events as unknown[]).entries()) {
    checkEvent(event, at);
    if (event.revision <= from || event.revision > through) throw new StreamBatchFormatError(`events[${at}].revision ${event.revision} is outside (${from}, ${through}]`);
    if (event.revision < previous) throw new StreamBatchFormatError(`events[${at}].revision ${event.revision} goes backwards`);
    previous = event.revision;
  }
}

/** Parses and validates one message body; throws StreamBatchFormatError with the reason. */
export function decodeBatch(data: Uint8Array): StreamBatch {
  let parsed: unknown;
  try {
    parsed = JSON.parse(textDecoder.decode(data));
  } catch (error) {
    throw new StreamBatchFormatError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  checkBatch(parsed);
  return parsed;
}
