// Owns: the store side of an API replica's initial sync. Every store member answers
// `kstore.store.${cluster}.${group}.objects` (queue group, so one member answers each request)
// with a consistent copy of its whole state at its applied index A: ClusterState.allObjects()
// is taken synchronously (objects are immutable), then streamed to the request's reply subject
// as chunk messages (each under ~512 KiB; NATS' default max payload is 1 MiB) and one end
// message carrying A and the object count. fetchStoreObjects() is the requester side (an inbox
// subscription, since the reply is several messages). The replica then follows the event
// stream after A.
// A requester that asks for parts (its request's body, {"parts":true}) gets the objects in the
// snapshot's parts form (actors/snapshot-parts.ts): every sub-part that several objects share in
// the member's memory (a label set, a managedFields entry, its fieldsV1 tree, the live lifecycle
// context) is sent once, in the chunk of the first object that refers to it, and referred to after
// that. The requester resolves the references to one frozen object each, so it holds the sharing
// the member had without looking anything up by content, and has less text to parse. A request
// with an empty body (a replica that predates parts) gets every object in full, as JSON.
// The member goes on with its own work while it answers: it notes the shared parts and serialises
// the chunks a slice per turn of its event loop and, every few chunks, waits until the nats-server
// has what it sent. Answering 100,000 objects in one turn kept a member's loop busy for seconds
// (no Raft heartbeats: a leader that answered lost its leadership) and held all ~120 MB of JSON in
// its outbound buffer.
import { createInbox } from '@nats-io/transport-node';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { SnapshotPartsReader, SnapshotPartsWriter, storedJson } from '../actors/index.ts';
import type { ClusterState, KubeObject, Lifecycle, ObjectKey } from '../actors/index.ts';

const queueGroup = 'kstore-state-service';
const chunkLimitBytes = 512 * 1024;
/** Chunks published before the member waits for the nats-server to have them (~2 MiB buffered). */
const chunksPerFlush = 4;
/** How long the member notes shared parts in one turn of its loop before it lets other work run. */
const scanSliceMs = 10;
/**
 * While the shared parts are noted (seconds for millions of objects), an empty chunk this often,
 * so that the requester, which gives up after a silence (10 s by default), hears the answer coming.
 */
const scanKeepaliveMs = 1_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function objectsSubject(cluster: string, group: string): string {
  return `kstore.store.${cluster}.${group}.objects`;
}

export interface StoredObject {
  readonly key: ObjectKey;
  readonly object: KubeObject;
  /** Absent from members that predate it; the replica then knows no lifecycle until one changes. */
  readonly lifecycle?: Lifecycle;
}

/** A request's body. Empty (members and replicas that predate it): objects in full. */
interface StateRequest {
  readonly parts?: boolean;
}

type StateMessage =
  /** `parts`, in answers to a request for parts: the parts first referred to in this chunk's objects. */
  | { readonly type: 'chunk'; readonly objects: readonly StoredObject[]; readonly parts?: readonly unknown[] }
  | { readonly type: 'end'; readonly appliedIndex: number; readonly count: number };

function asksForParts(body: Uint8Array): boolean {
  if (body.length === 0) return false;
  try {
    return (JSON.parse(decoder.decode(body)) as StateRequest | null)?.parts === true;
  } catch {
    return false;
  }
}

export interface StateService {
  stop(): Promise<void>;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function startStateService(options: {
  readonly connection: NatsConnection;
  readonly state: ClusterState;
  readonly cluster: string;
  readonly group: string;
  readonly log?: (line: string) => void;
}): StateService {
  const { connection, state } = options;
  let stopped = false;
  const answering = new Set<Promise<void>>();

  /** Streams the state at this instant to `reply`, a chunk per turn (the objects are immutable). */
  const answer = async (reply: string, withParts: boolean): Promise<void> => {
    const appliedIndex = state.appliedIndex();
    const objects = state.allObjects();
    const parts = withParts ? new SnapshotPartsWriter() : undefined;
    if (parts !== undefined) {
      let heardAt = performance.now();
      let sliceStartedAt = heardAt;
      for (let at = 0; at < objects.length; at++) {
        parts.scan(objects[at] as object);
        // The clock is read every 64 objects (a few microseconds' work each).
        if ((at & 63) !== 63 || performance.now() - sliceStartedAt < scanSliceMs) continue;
        if (performance.now() - heardAt >= scanKeepaliveMs) {
          connection.publish(reply, encoder.encode('{"type":"chunk","parts":[],"objects":[]}'));
          heardAt = performance.now();
        }
        await nextTurn();
        if (stopped) return;
        sliceStartedAt = performance.now();
      }
    }
    let chunk: string[] = [];
    let chunkParts: string[] = [];
    let size = 0;
    let sinceFlush = 0;
    const publish = (): void => connection.publish(reply, encoder.encode(parts === undefined
      ? `{"type":"chunk","objects":[${chunk.join(',')}]}`
      : `{"type":"chunk","parts":[${chunkParts.join(',')}],"objects":[${chunk.join(',')}]}`));
    const publishChunk = async (): Promise<void> => {
      publish();
      chunk = [];
      chunkParts = [];
      size = 0;
      sinceFlush += 1;
      if (sinceFlush >= chunksPerFlush) {
        sinceFlush = 0;
        await connection.flush();
      } else await nextTurn();
    };
    for (const entry of objects) {
      if (stopped) return;
      const text = parts === undefined ? JSON.stringify(entry) : parts.write(entry);
      // The parts this object is the first to refer to travel in its chunk.
      const newParts = parts === undefined ? [] : parts.newPartTexts();
      let entrySize = text.length + 1;
      for (const part of newParts) entrySize += part.length + 1;
      if (chunk.length > 0 && size + entrySize > chunkLimitBytes) await publishChunk();
      chunk.push(text);
      for (const part of newParts) chunkParts.push(part);
      size += entrySize;
    }
    if (stopped) return;
    if (chunk.length > 0) publish();
    const end: StateMessage = { type: 'end', appliedIndex, count: objects.length };
    connection.publish(reply, encoder.encode(JSON.stringify(end)));
  };

  const subscription: Subscription = connection.subscribe(objectsSubject(options.cluster, options.group), {
    queue: queueGroup,
    callback: (error, message: Msg) => {
      if (error !== null || message.reply === undefined || stopped) return;
      const answered = answer(message.reply, asksForParts(message.data)).catch((failure: unknown) => {
        options.log?.(`state service: reply failed: ${failure instanceof Error ? failure.message : String(failure)}`);
      });
      answering.add(answered);
      void answered.finally(() => answering.delete(answered));
    },
  });
  return {
    async stop(): Promise<void> {
      stopped = true;
      subscription.unsubscribe();
      await Promise.all(answering);
      await connection.flush().catch(() => {});
    },
  };
}

/**
 * Asks one store member for its whole state; resolves with the objects and the applied index they
 * reflect. Rejects when no message of the answer came for `timeoutMs` (the answer of a large
 * state takes longer as a whole, and keeps coming). It asks for parts; each object (and lifecycle)
 * arrives frozen and shares its parts as the member's did (SnapshotPartsReader), or, from a member
 * that answers in full, is frozen and shares its equal parts with what the process holds
 * (storedJson). Either is done as its chunk arrives, not once the whole state is in: the text and
 * duplicates it drops are then garbage while still young, instead of being promoted with the rest
 * of 100,000 objects and found only by a full GC.
 */
export async function fetchStoreObjects(
  connection: NatsConnection, cluster: string, group: string, timeoutMs = 10_000,
): Promise<{ readonly objects: readonly StoredObject[]; readonly appliedIndex: number }> {
  const inbox = createInbox();
  const objects: StoredObject[] = [];
  const parts = new SnapshotPartsReader();
  const request: StateRequest = { parts: true };
  return new Promise((resolve, reject) => {
    const fail = (failure: unknown): void => {
      clearTimeout(timer);
      subscription.unsubscribe();
      reject(new Error(`state request failed: ${failure instanceof Error ? failure.message : String(failure)}`));
    };
    const silent = (): void => { subscription.unsubscribe(); reject(new Error(`no state from the store for ${timeoutMs} ms (${objects.length} objects received)`)); };
    const timer = setTimeout(silent, timeoutMs);
    const subscription = connection.subscribe(inbox, {
      callback: (error, message) => {
        if (error !== null) { clearTimeout(timer); subscription.unsubscribe(); reject(error); return; }
        // Nothing thrown from here: it would end the connection's reader (nats.js), not this call.
        let parsed: StateMessage;
        try {
          if (message.headers?.hasError === true) throw new Error(`status ${message.headers.code}${message.headers.code === 503 ? ' (no store member answers)' : ''}`);
          parsed = JSON.parse(decoder.decode(message.data)) as StateMessage;
          if (parsed.type === 'chunk') {
            if (parsed.parts === undefined) {
              for (const entry of parsed.objects) {
                storedJson.compactFrozen(entry.object);
                if (entry.lifecycle !== undefined) storedJson.compactFrozen(entry.lifecycle);
                objects.push(entry);
              }
            } else {
              parts.addParts(parsed.parts);
              for (const entry of parsed.objects) objects.push(parts.read(entry) as StoredObject);
            }
          }
        } catch (failure) {
          fail(failure);
          return;
        }
        if (parsed.type === 'chunk') {
          timer.refresh();
          return;
        }
        clearTimeout(timer);
        subscription.unsubscribe();
        if (parsed.count !== objects.length) reject(new Error(`state sync lost messages: ${objects.length} of ${parsed.count} objects`));
        else resolve({ objects, appliedIndex: parsed.appliedIndex });
      },
    });
    connection.flush().then(
      () => connection.publish(objectsSubject(cluster, group), encoder.encode(JSON.stringify(request)), { reply: inbox }),
      (error: unknown) => { clearTimeout(timer); subscription.unsubscribe(); reject(error instanceof Error ? error : new Error(String(error))); },
    );
  });
}
