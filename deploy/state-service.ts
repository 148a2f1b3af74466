// Owns: the store side of an API replica's initial sync. Every store member answers
// `kstore.store.${cluster}.${group}.objects` (queue group, so one member answers each request)
// with a consistent copy of its whole state at its applied index A: ClusterState.allObjects()
// is taken synchronously (objects are immutable), then streamed to the request's reply subject
// as chunk messages (each under ~512 KiB; NATS' default max payload is 1 MiB) and one end
// message carrying A and the object count. fetchStoreObjects() is the requester side (an inbox
// subscription, since the reply is several messages). The replica then follows the event
// stream after A.
import { createInbox } from '@nats-io/transport-node';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { ClusterState, KubeObject, Lifecycle, ObjectKey } from '../actors/index.ts';

const queueGroup = 'kstore-state-service';
const chunkLimitBytes = 512 * 1024;
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

export function startStateService(options: {
  readonly connection: NatsConnection;
  readonly state: ClusterState;
  readonly cluster: string;
  readonly group: string;
  readonly log?: (line: string) => void;
}): StateService {
  const { connection, state } = options;
  const subscription: Subscription = connection.subscribe(objectsSubject(options.cluster, options.group), {
    queue: queueGroup,
    callback: (error, message: Msg) => {
      if (error !== null || message.reply === undefined) return;
      try {
        const appliedIndex = state.appliedIndex();
        const objects = state.allObjects();
        let chunk: string[] = [];
        let size = 0;
        const flush = (): void => {
          if (chunk.length === 0) return;
          connection.publish(message.reply!, encoder.encode(`{"type":"chunk","objects":[${chunk.join(',')}]}`));
          chunk = [];
          size = 0;
        };
        for (const entry of objects) {
          const text = JSON.stringify(entry);
          if (size + text.length > chunkLimitBytes) flush();
          chunk.push(text);
          size += text.length + 1;
        }
        flush();
        const end: StateMessage = { type: 'end', appliedIndex, count: objects.length };
        connection.publish(message.reply, encoder.encode(JSON.stringify(end)));
      } catch (failure) {
        options.log?.(`state service: reply failed: ${failure instanceof Error ? failure.message : String(failure)}`);
      }
    },
  });
  return {
    async stop(): Promise<void> {
      subscription.unsubscribe();
      await connection.flush().catch(() => {});
    },
  };
}

/** Asks one store member for its whole state; resolves with the objects and the applied index they reflect. */
export async function fetchStoreObjects(
  connection: NatsConnection, cluster: string, group: string, timeoutMs = 10_000,
): Promise<{ readonly objects: readonly StoredObject[]; readonly appliedIndex: number }> {
  const inbox = createInbox();
  const objects: StoredObject[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { subscription.unsubscribe(); reject(new Error(`no state from the store within ${timeoutMs} ms`)); }, timeoutMs);
    const subscription = connection.subscribe(inbox, {
      callback: (error, message) => {
        if (error !== null) { clearTimeout(timer); subscription.unsubscribe(); reject(error); return; }
        const parsed = JSON.parse(decoder.decode(message.data)) as StateMessage;
        if (parsed.type === 'chunk') { objects.push(...parsed.objects); return; }
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
