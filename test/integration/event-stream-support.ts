// Helpers of the event-stream integration tests: in-process store members, a follower that
// records what EventStreamReader delivers, and a raw read of the whole stream.
import path from 'node:path';
import { expect } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import type { StreamInfo } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ChangeEvent, Command } from '../../actors/index.ts';
import { decodeBatch, EventStreamReader } from '../../deploy/event-stream/index.ts';
import type { StreamBatch } from '../../deploy/event-stream/index.ts';
import { openNatsStore } from '../../deploy/roles/store.ts';
import type { NatsStore, StoreFlags } from '../../deploy/roles/store.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import { connectNats } from '../../raft/index.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

export const memberIds = ['a', 'b', 'c'] as const;
export const tickIntervalMs = 20;

export class Members {
  readonly stores = new Map<string, NatsStore>();

  constructor(private readonly urls: () => string[], private readonly dataDir: string, private readonly extra: Partial<StoreFlags> = {}) {}

  flagsOf(id: string): StoreFlags {
    return { id, peers: [...memberIds], natsServers: this.urls(), dataDir: path.join(this.dataDir, id), cluster: 'it', group: 'ev', tickIntervalMs, ...this.extra };
  }

  async open(id: string): Promise<NatsStore> {
    const log = process.env.KSTORE_TEST_LOG === undefined ? undefined
      : (message: string, fields?: Record<string, unknown>): void => {
        process.stderr.write(`${new Date().toISOString()} ${id}: ${message} ${JSON.stringify(fields ?? {})}\n`);
      };
    const store = await openNatsStore(this.flagsOf(id), log);
    this.stores.set(id, store);
    return store;
  }

  member(id: string): NatsStore {
    const store = this.stores.get(id);
    if (store === undefined) throw new Error(`member ${id} is not open`);
    return store;
  }

  async close(id: string): Promise<void> {
    const store = this.member(id);
    this.stores.delete(id);
    await store.close();
  }

  async closeAll(): Promise<void> {
    const stores = [...this.stores.values()];
    this.stores.clear();
    await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
  }

  async leader(): Promise<NatsStore> {
    const id = await waitFor(() => {
      const leaders = [...this.stores.values()].map((store) => store.node.status()).filter((status) => status.role === 'leader');
      return leaders.length === 1 ? leaders[0]?.id : undefined;
    }, { timeoutMs: 15_000, description: 'exactly one leader' });
    return this.member(id);
  }

  describe(): string {
    return [...this.stores.entries()].map(([id, store]) => `${id}: ${JSON.stringify({ status: store.node.status(), events: store.events.stats() })}`).join('\n');
  }
}

/** Records what a follow() delivers and checks contiguity as it goes. */
export class Recorder {
  readonly batches: StreamBatch[] = [];
  readonly events: ChangeEvent[] = [];
  readonly problems: string[] = [];
  gap: string | undefined = undefined;
  through: number;

  constructor(readonly after: number) {
    this.through = after;
  }

  readonly onBatch = (batch: StreamBatch): void => {
    if (batch.from !== this.through) this.problems.push(`batch from ${batch.from} after through ${this.through}`);
    for (const event of batch.events) {
      if (event.revision <= batch.from || event.revision > batch.through) this.problems.push(`event ${event.revision} outside (${batch.from}, ${batch.through}]`);
    }
    this.batches.push(batch);
    this.events.push(...batch.events);
    this.through = batch.through;
  };

  readonly onGap = (reason: string): void => {
    this.gap = reason;
  };
}

export function eventId(event: ChangeEvent): string {
  return `${event.revision}:${event.type}:${event.key.resource}/${event.key.namespace}/${event.key.name}`;
}

/** The changes after `after` as the member's MVCC history has them (the truth the stream derives from). */
export function historyAfter(store: NatsStore, after: number): string[] {
  const since = store.state.eventsSince(after);
  if (since.type !== 'events') throw new Error(`history of ${store.node.status().id} is compacted past ${after}`);
  return since.events.map(eventId);
}

/**
 * Every stored message of the stream, by sequence, decoded (a few hundred in these tests). A
 * JetStream API request can time out while a nats-server cluster settles after a fault (a new
 * stream or meta leader, a restarted server catching up): the whole read is retried until one
 * completes, within `timeoutMs`.
 */
export async function readRawStream(connection: NatsConnection, stream: string, timeoutMs = 30_000): Promise<{ seq: number; batch: StreamBatch }[]> {
  return waitFor(async () => {
    const jsm = await jetstreamManager(connection);
    const { state } = await jsm.streams.info(stream);
    const messages: { seq: number; batch: StreamBatch }[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const message = await jsm.streams.getMessage(stream, { seq });
      if (message !== null) messages.push({ seq, batch: decodeBatch(message.data) });
    }
    return messages;
  }, { timeoutMs, description: `a complete read of stream ${stream}` });
}

/** The stream's info, retried like readRawStream while the cluster settles. */
export async function streamInfo(connection: NatsConnection, stream: string, timeoutMs = 30_000): Promise<StreamInfo> {
  return waitFor(async () => (await jetstreamManager(connection)).streams.info(stream), { timeoutMs, description: `the info of stream ${stream}` });
}

/**
 * The stream holds each change exactly once, in order: every message starts where the one before
 * ended (a keepalive repeats it), ranges never overlap. Returns every event id in stream order.
 */
export function expectContiguous(messages: readonly { seq: number; batch: StreamBatch }[], first = 0): string[] {
  let through = first;
  const ids: string[] = [];
  for (const { seq, batch } of messages) {
    expect(batch.from, `message ${seq} starts where the previous ended`).toBe(through);
    through = batch.through;
    ids.push(...batch.events.map(eventId));
  }
  expect(new Set(ids).size).toBe(ids.length);
  return ids;
}

export async function openReader(connection: NatsConnection): Promise<EventStreamReader> {
  return EventStreamReader.open({ connection, cluster: 'it', group: 'ev' });
}

/**
 * `command` stamped with the current time. The MVCC history's 5-minute window is measured in
 * proposer time, and the leader's duties stamp the system namespaces with the real clock: a
 * fixture's fixed 2026-01-01 stamp after them would be far outside the window.
 */
export function stampedNow<C extends Command>(command: C): C {
  return { ...command, at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/** A store group for a test file: nats-servers, the three members on a temp dir, a client. */
export interface StoreGroup {
  readonly nats: NatsCluster;
  readonly dir: TempDir;
  readonly members: Members;
  readonly connection: NatsConnection;
  readonly client: StoreClient;
  close(): Promise<void>;
}

/** Starts `natsServers` nats-servers and members a, b, c of group it/ev, and connects a client. */
export async function openStoreGroup(options: { readonly natsServers: 1 | 3; readonly tempPrefix: string; readonly clientName: string; readonly deadlineMs: number }): Promise<StoreGroup> {
  const nats = await NatsCluster.start(options.natsServers);
  const dir = await makeTempDir(options.tempPrefix);
  const members = new Members(() => nats.urls, dir.path);
  await Promise.all(memberIds.map((id) => members.open(id)));
  const connection = await connectNats(nats.urls, options.clientName);
  const client = new StoreClient({ connection, cluster: 'it', group: 'ev', attemptTimeoutMs: 1_000, deadlineMs: options.deadlineMs });
  return {
    nats, dir, members, connection, client,
    async close(): Promise<void> {
      client.close();
      await connection.close().catch(() => undefined);
      await members.closeAll();
      await nats.stopAll();
      await dir.remove();
    },
  };
}
