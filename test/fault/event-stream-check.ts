// Owns: the fault tests' after-the-run check of the change-event stream that the store members'
// EventPublisher writes to JetStream (deploy/event-stream/format.ts): waiting until the
// publisher has caught up with what the cluster applied, reading the whole stream from its
// first message with an ordered consumer, and listing every way it breaks the stream's
// contract:
//   - the stream starts at sequence 1 with `from` 0 and no sequence is missing: nothing may
//     have expired or been deleted (the members run with the default 5-minute max age, longer
//     than a fault test), so the stream must still hold everything;
//   - every message starts where the one before ended (`from` = previous `through`);
//   - no reset message (every change of the run must be there, not a "re-list" marker);
//   - event revisions never go back, and no event (revision, type, key) appears twice — a
//     duplicate would mean two publishers each appended the same change;
//   - every acknowledged write appears as an event of its key at the revision it was
//     acknowledged with;
//   - replaying the stream's events up to a member's applied index gives exactly that member's
//     objects (same keys, same resourceVersions): no change is missing from the stream.
// The checks return problems as text instead of asserting, so a test can print them all.
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ChangeEvent, ObjectKey } from '../../actors/index.ts';
import { decodeBatch, EventStreamReader, eventStreamName } from '../../deploy/event-stream/index.ts';
import type { StreamBatch } from '../../deploy/event-stream/index.ts';
import { fetchStoreObjects } from '../../deploy/state-service.ts';
import type { StoredObject } from '../../deploy/state-service.ts';
import { waitFor } from '../support/wait-for.ts';

/** One stored message of the stream. */
export interface StoredBatch {
  readonly sequence: number;
  readonly batch: StreamBatch;
}

/** A write the store acknowledged: it must be in the stream as an event of `key` at `revision`. */
export interface AcknowledgedWrite {
  readonly key: ObjectKey;
  readonly revision: number;
}

export interface EventStreamLocation {
  readonly connection: NatsConnection;
  readonly cluster: string;
  /** The Raft group; the fault harness runs `main`. */
  readonly group?: string;
}

const defaultGroup = 'main';
/** A JetStream request (stream info, consumer creation) is answered within this. */
const requestTimeoutMs = 5_000;

function keyText(key: ObjectKey): string {
  return `${key.group}/${key.resource}/${key.namespace}/${key.name}`;
}

function eventText(event: ChangeEvent): string {
  return `${event.revision} ${event.type} ${keyText(event.key)}`;
}

/** Waits until the stream's last message reaches `revision` (the publisher caught up with it). */
export async function waitForStreamThrough(location: EventStreamLocation, revision: number, timeoutMs: number): Promise<number> {
  const reader = await EventStreamReader.open({ connection: location.connection, cluster: location.cluster, group: location.group ?? defaultGroup });
  let last = 0;
  return waitFor(async () => {
    last = await reader.lastThrough();
    return last >= revision ? last : undefined;
  }, { timeoutMs, intervalMs: 50, description: `the event stream of ${location.cluster} to reach revision ${revision}`, diagnostics: () => `stream through ${last}` });
}

/** Every message the stream holds now, in sequence order, decoded and format-checked. */
export async function readWholeStream(location: EventStreamLocation, timeoutMs = 30_000): Promise<StoredBatch[]> {
  const stream = eventStreamName(location.cluster, location.group ?? defaultGroup);
  // JetStream API requests can time out while the nats-servers settle after a fault: retried.
  const { state } = await waitFor(async () => (await jetstreamManager(location.connection, { timeout: requestTimeoutMs })).streams.info(stream),
    { timeoutMs, description: `the info of stream ${stream}` });
  const stored: StoredBatch[] = [];
  if (state.messages === 0) return stored;
  const consumer = await waitFor(() => jetstream(location.connection, { timeout: requestTimeoutMs }).consumers.get(stream, { deliver_policy: DeliverPolicy.All }),
    { timeoutMs, description: `an ordered consumer of stream ${stream}` });
  const messages = await consumer.consume({ max_messages: 256 });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void messages.close();
  }, timeoutMs);
  try {
    for await (const message of messages) {
      stored.push({ sequence: message.seq, batch: decodeBatch(message.data) });
      if (message.seq >= state.last_seq) break;
    }
  } finally {
    clearTimeout(timer);
    await messages.close().catch(() => undefined);
  }
  if (timedOut) throw new Error(`reading stream ${stream}: ${stored.length} messages within ${timeoutMs} ms, last sequence ${stored.at(-1)?.sequence ?? 0} of ${state.last_seq}`);
  return stored;
}

/** Every breach of the stream's contract in `stored` (read from its first message), as text. */
export function streamProblems(stored: readonly StoredBatch[], acknowledged: readonly AcknowledgedWrite[]): string[] {
  const problems: string[] = [];
  let sequence = 0;
  let through = 0;
  let lastRevision = 0;
  const seen = new Set<string>();
  const revisionsByKey = new Map<string, Set<number>>();
  for (const { sequence: at, batch } of stored) {
    if (at !== sequence + 1) problems.push(`message ${at} follows message ${sequence}: the stream lost messages in between`);
    sequence = at;
    if (batch.from !== through) problems.push(`message ${at} covers (${batch.from}, ${batch.through}], but the one before ended at ${through}`);
    if (batch.reset === true) problems.push(`message ${at} is a reset of (${batch.from}, ${batch.through}]: those changes are missing`);
    through = batch.through;
    for (const event of batch.events) {
      const text = eventText(event);
      if (event.revision < lastRevision) problems.push(`message ${at}: event ${text} after revision ${lastRevision}`);
      if (seen.has(text)) problems.push(`message ${at}: event ${text} appears twice`);
      seen.add(text);
      lastRevision = Math.max(lastRevision, event.revision);
      const key = keyText(event.key);
      const revisions = revisionsByKey.get(key) ?? new Set<number>();
      revisions.add(event.revision);
      revisionsByKey.set(key, revisions);
    }
  }
  for (const write of acknowledged) {
    const key = keyText(write.key);
    if (revisionsByKey.get(key)?.has(write.revision) !== true) {
      problems.push(`acknowledged write of ${key} at revision ${write.revision} has no event (events of that key: ${[...(revisionsByKey.get(key) ?? [])].join(', ') || 'none'})`);
    }
  }
  return problems;
}

/** A member's objects at its applied index (whichever member answers the state request). */
export interface MemberState {
  readonly objects: readonly StoredObject[];
  readonly appliedIndex: number;
}

/**
 * Replays the stream's events up to `state.appliedIndex` and compares the result with the
 * member's objects (key and resourceVersion).
 */
export function replayProblems(stored: readonly StoredBatch[], state: MemberState): string[] {
  const { objects, appliedIndex } = state;
  const last = stored.at(-1)?.batch.through ?? 0;
  if (last < appliedIndex) return [`the stream ends at revision ${last}, before the applied index ${appliedIndex} of the member whose state was read`];
  const replayed = new Map<string, string | undefined>();
  for (const { batch } of stored) {
    for (const event of batch.events) {
      if (event.revision > appliedIndex) continue;
      if (event.type === 'DELETED') replayed.delete(keyText(event.key));
      else replayed.set(keyText(event.key), event.object.metadata.resourceVersion);
    }
  }
  const problems: string[] = [];
  const present = new Set<string>();
  for (const { key, object } of objects) {
    const text = keyText(key);
    present.add(text);
    if (!replayed.has(text)) problems.push(`${text} (resourceVersion ${String(object.metadata.resourceVersion)}) is stored at index ${appliedIndex} but was never added in the stream`);
    else if (replayed.get(text) !== object.metadata.resourceVersion) {
      problems.push(`${text}: stored at resourceVersion ${String(object.metadata.resourceVersion)}, the stream's last event has ${String(replayed.get(text))}`);
    }
  }
  for (const text of replayed.keys()) {
    if (!present.has(text)) problems.push(`${text} is in the stream at index ${appliedIndex} but not stored`);
  }
  return problems;
}

export interface EventStreamReport {
  readonly problems: readonly string[];
  readonly messages: number;
  readonly events: number;
  /** `through` of the last message read. */
  readonly through: number;
}

/**
 * The whole check after a run: takes a member's state, waits until the stream reaches its
 * applied index and `revision` (e.g. the highest commit index the members report), reads the
 * stream from the start and returns every problem found.
 */
export async function checkEventStream(
  location: EventStreamLocation, revision: number, acknowledged: readonly AcknowledgedWrite[], timeoutMs = 30_000,
): Promise<EventStreamReport> {
  const state = await fetchStoreObjects(location.connection, location.cluster, location.group ?? defaultGroup);
  await waitForStreamThrough(location, Math.max(revision, state.appliedIndex), timeoutMs);
  const stored = await readWholeStream(location, timeoutMs);
  return {
    problems: [...streamProblems(stored, acknowledged), ...replayProblems(stored, state)],
    messages: stored.length,
    events: stored.reduce((count, { batch }) => count + batch.events.length, 0),
    through: stored.at(-1)?.batch.through ?? 0,
  };
}
