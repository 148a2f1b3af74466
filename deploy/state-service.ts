// Owns: the store side of an API replica's initial sync. Every store member answers
// `kstore.store.${cluster}.${group}.objects` (queue group, so one member answers each request)
// with a consistent copy of its whole state at its applied index A: ClusterState.allObjects()
// is taken synchronously (objects are immutable), then streamed to the request's reply subject
// as chunk messages (each under ~512 KiB; NATS' default max payload is 1 MiB) and one end
// message carrying A and the object count. fetchStoreObjects() is the requester side (an inbox
// subscription, since the reply is several messages). The replica then follows the event
// stream after A.
// The member goes on with its own work while it answers: it serialises one chunk per turn of
// its event loop and, every few chunks, waits until the nats-server has what it sent. Answering
// 100,000 objects in one turn kept a member's loop busy for seconds (no Raft heartbeats: a
// leader that answered lost its leadership) and held all ~120 MB of JSON in its outbound buffer.
import { createInbox } from '@nats-io/transport-node';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { storedJson } from '../actors/index.ts';
import type { ClusterState, KubeObject, Lifecycle, ObjectKey } from '../actors/index.ts';

const queueGroup = 'kstore-state-service';
const chunkLimitBytes = 512 * 1024;
/** Chunks published before the member waits for the nats-server to have them (~2 MiB buffered). */
const chunksPerFlush = 4;
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

type StateMessage =
  | { readonly type: 'chunk'; readonly objects: readonly StoredObject[] }
  | { readonly type: 'end'; readonly appliedIndex: number; readonly count: number };

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
  const answer = async (reply: string): Promise<void> => {
    const appliedIndex = state.appliedIndex();
    const objects = state.allObjects();
    let chunk: string[] = [];
    let size = 0;
    let sinceFlush = 0;
    const publish = (): void => connection.publish(reply, encoder.encode(`{"type":"chunk","objects":[${chunk.join(',')}]}`));
    const publishChunk = async (): Promise<void> => {
      publish();
      chunk = [];
      size = 0;
      sinceFlush += 1;
      if (sinceFlush >= chunksPerFlush) {
        sinceFlush = 0;
        await connection.flush();
      } else await nextTurn();
    };
    for (const entry of objects) {
      if (stopped) return;
      const text = JSON.stringify(entry);
      if (chunk.length > 0 && size + text.length > chunkLimitBytes) await publishChunk();
      chunk.push(text);
      size += text.length + 1;
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
      const answered = answer(message.reply).catch((failure: unknown) => {
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
 * state takes longer as a whole, and keeps coming). Each object (and lifecycle) is frozen and
 * shares its equal parts with what the process holds (storedJson) as its chunk arrives, not once
 * the whole state is in: the duplicate parts it drops are then garbage while still young, instead
 * of being promoted with the rest of 100,000 objects and found only by a full GC.
 */
export async function fetchStoreObjects(
  connection: NatsConnection, cluster: string, group: string, timeoutMs = 10_000,
): Promise<{ readonly objects: readonly StoredObject[]; readonly appliedIndex: number }> {
  const inbox = createInbox();
  const objects: StoredObject[] = [];
  return new Promise((resolve, reject) => {
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
        } catch (failure) {
          clearTimeout(timer);
          subscription.unsubscribe();
          reject(new Error(`state request failed: ${failure instanceof Error ? failure.message : String(failure)}`));
          return;
        }
        if (parsed.type === 'chunk') {
          for (const entry of parsed.objects) {
            storedJson.compactFrozen(entry.object);
            if (entry.lifecycle !== undefined) storedJson.compactFrozen(entry.lifecycle);
            objects.push(entry);
          }
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
      () => connection.publish(objectsSubject(cluster, group), new Uint8Array(), { reply: inbox }),
      (error: unknown) => { clearTimeout(timer); subscription.unsubscribe(); reject(error instanceof Error ? error : new Error(String(error))); },
    );
  });
}
