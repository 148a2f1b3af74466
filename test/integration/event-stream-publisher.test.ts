// EventPublisher on its own over a real nats-server (no Raft: a ClusterState fed entries
// directly, so the publisher is the bottleneck): live publishing rate under a fast apply loop
// with messages split under 512 KiB at revision boundaries, and the reset message when the
// MVCC history no longer reaches back to the stream's tail. The stream's storage: memory when the
// server accepts it (bounded in bytes), file when it refuses memory, and an existing stream
// keeps what it has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ClusterState } from '../../actors/index.ts';
import { batchBytesMaxDefault, EventPublisher, EventStreamReader, eventStreamName, eventsMemoryBytesMaxDefault } from '../../deploy/event-stream/index.ts';
import type { EventsStorage } from '../../deploy/event-stream/index.ts';
import { connectNats } from '../../raft/index.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { applier } from '../support/state-applier.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace } from './fixtures.ts';
import { expectContiguous, Recorder } from './event-stream-support.ts';

let nats: NatsCluster;
let connection: NatsConnection;

beforeAll(async () => {
  nats = await NatsCluster.start(1);
  connection = await connectNats(nats.urls, 'event-publisher-test');
});

afterAll(async () => {
  await connection?.close().catch(() => undefined);
  await nats?.stopAll();
});

async function rawMessages(stream: string): Promise<{ seq: number; bytes: number; batch: ReturnType<typeof JSON.parse> }[]> {
  const jsm = await jetstreamManager(connection);
  const { state } = await jsm.streams.info(stream);
  const out = [];
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq });
    if (message !== null) out.push({ seq, bytes: message.data.byteLength, batch: JSON.parse(new TextDecoder().decode(message.data)) as unknown });
  }
  return out;
}

describe('EventPublisher alone', () => {
  it('keeps up with a fast apply loop; messages stay near 512 KiB, split at revision boundaries', async () => {
    const state = new ClusterState();
    const apply = applier(state);
    apply(createNamespace());
    const publisher = EventPublisher.start({ connection, state, isLeader: () => true, cluster: 'pub', group: 'live' });
    const total = 20_000;
    const started = performance.now();
    try {
      for (let position = 0; position < total;) {
        for (let burst = 0; burst < 200 && position < total; burst++, position++) apply(createConfigMap(`cm-${position}`, 300));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const appliedMs = performance.now() - started;
      await waitFor(() => (publisher.stats().tail?.through ?? 0) >= state.appliedIndex(), { timeoutMs: 60_000, description: 'everything published' });
      const seconds = (performance.now() - started) / 1000;
      const stats = publisher.stats();
      const messages = await rawMessages(eventStreamName('pub', 'live'));
      expectContiguous(messages);
      expect(messages.reduce((sum, message) => sum + (message.batch as { events: unknown[] }).events.length, 0)).toBe(total + 1);
      expect(Math.max(...messages.map((message) => message.bytes))).toBeLessThanOrEqual(batchBytesMaxDefault + 1024);
      console.log(`publisher: ${total + 1} events applied in ${(appliedMs / 1000).toFixed(2)} s, all published after ${seconds.toFixed(2)} s = `
        + `${((total + 1) / seconds).toFixed(0)} events/s in ${stats.messages} messages (max ${Math.max(...messages.map((message) => message.bytes))} bytes)`);
      // Catch-up: a publisher that starts behind the whole history (a new leader, or a new stream).
      const catchUpStarted = performance.now();
      const catchUp = EventPublisher.start({ connection, state, isLeader: () => true, cluster: 'pub', group: 'catchup' });
      try {
        await waitFor(() => (catchUp.stats().tail?.through ?? 0) >= state.appliedIndex(), { timeoutMs: 60_000, description: 'the history republished' });
        const catchUpSeconds = (performance.now() - catchUpStarted) / 1000;
        console.log(`publisher catch-up: ${total + 1} events from the history in ${catchUpSeconds.toFixed(2)} s = ${((total + 1) / catchUpSeconds).toFixed(0)} events/s `
          + `in ${catchUp.stats().messages} messages`);
      } finally {
        await catchUp.stop();
      }
    } finally {
      await publisher.stop();
    }
  });

  it('publishes a reset when the history no longer reaches back; readers from before it get onGap, readers after it do not', async () => {
    const state = new ClusterState({ historyEventsMax: 100, sessionsMax: 100 });
    const apply = applier(state);
    apply(createNamespace());
    for (let position = 0; position < 500; position++) apply(createConfigMap(`cm-${position}`));
    const publisher = EventPublisher.start({ connection, state, isLeader: () => true, cluster: 'pub', group: 'reset' });
    try {
      await waitFor(() => (publisher.stats().tail?.through ?? 0) >= state.appliedIndex(), { timeoutMs: 10_000, description: 'the reset published' });
      apply(createConfigMap('after-reset'));
      await waitFor(() => (publisher.stats().tail?.through ?? 0) >= state.appliedIndex(), { timeoutMs: 10_000, description: 'the next change published' });
      expect(publisher.stats().resets).toBe(1);
      const messages = await rawMessages(eventStreamName('pub', 'reset'));
      expectContiguous(messages);
      expect(messages[0]?.batch).toEqual({ from: 0, through: 501, events: [], reset: true });
      const reader = await EventStreamReader.open({ connection, cluster: 'pub', group: 'reset' });
      const before = new Recorder(0);
      const first = reader.follow(0, before.onBatch, before.onGap);
      await waitFor(() => before.gap, { timeoutMs: 10_000, description: 'onGap for a reader from before the reset' });
      expect(before.gap).toMatch(/reset/);
      await first.stop();
      const after = new Recorder(501);
      const second = reader.follow(501, after.onBatch, after.onGap);
      await waitFor(() => after.through >= 502, { timeoutMs: 10_000, description: 'the reader after the reset' });
      expect(after.gap).toBeUndefined();
      expect(after.events.map((event) => event.key.name)).toEqual(['after-reset']);
      await second.stop();
    } finally {
      await publisher.stop();
    }
  });
});

describe('EventPublisher: the stream\'s storage', () => {
  let small: NatsCluster;
  let smallConnection: NatsConnection;

  beforeAll(async () => {
    small = await NatsCluster.start(1, { maxMemoryStore: '1MB' });
    smallConnection = await connectNats(small.urls, 'event-publisher-storage-test');
  });

  afterAll(async () => {
    await smallConnection?.close().catch(() => undefined);
    await small?.stopAll();
  });

  /** Runs a publisher over one applied change until it published it (or failed `errorsMax` times); returns its log and stats. */
  async function publishOnce(on: NatsConnection, group: string, storage: EventsStorage | undefined, errorsMax = 0) {
    const state = new ClusterState({ historyEventsMax: 100, sessionsMax: 100 });
    applier(state)(createNamespace());
    const log: string[] = [];
    const codes: number[] = [];
    const publisher = EventPublisher.start({
      connection: on, state, isLeader: () => true, cluster: 'pub', group, ...(storage === undefined ? {} : { storage }),
      log: (message, fields) => {
        log.push(message);
        if (typeof fields?.['code'] === 'number') codes.push(fields['code']);
      },
    });
    try {
      await waitFor(() => (publisher.stats().tail?.through ?? 0) >= state.appliedIndex() || (errorsMax > 0 && publisher.stats().errors >= errorsMax),
        { timeoutMs: 10_000, description: 'the change published (or the failures)' });
      return { log, codes, stats: publisher.stats() };
    } finally {
      await publisher.stop();
    }
  }

  async function configOf(on: NatsConnection, group: string) {
    return (await (await jetstreamManager(on)).streams.info(eventStreamName('pub', group))).config;
  }

  it('auto: memory, bounded in bytes, where the server accepts it', async () => {
    await publishOnce(connection, 'auto-memory', undefined);
    const config = await configOf(connection, 'auto-memory');
    expect(config.storage).toBe('memory');
    expect(config.max_bytes).toBe(eventsMemoryBytesMaxDefault);
  });

  it('auto: file where the server refuses a memory stream of that size', async () => {
    const { log, codes, stats } = await publishOnce(smallConnection, 'auto-file', 'auto');
    expect(stats.messages).toBeGreaterThan(0);
    expect(log.some((line) => /refused a memory stream/.test(line))).toBe(true);
    expect(codes.some((code) => [10005, 10023, 10028, 10047].includes(code))).toBe(true);
    const config = await configOf(smallConnection, 'auto-file');
    expect(config.storage).toBe('file');
    expect(config.max_bytes).toBe(-1);
  });

  it('memory, asked explicitly, does not fall back: nothing is published', async () => {
    const { stats } = await publishOnce(smallConnection, 'only-memory', 'memory', 2);
    expect(stats.messages).toBe(0);
    expect(stats.errors).toBeGreaterThanOrEqual(2);
    await expect(configOf(smallConnection, 'only-memory')).rejects.toThrow(/not found/);
  });

  it('an existing stream keeps its storage', async () => {
    await publishOnce(connection, 'kept', 'file');
    expect((await configOf(connection, 'kept')).storage).toBe('file');
    const { log, stats } = await publishOnce(connection, 'kept', 'memory');
    expect(stats.messages).toBeGreaterThan(0);
    expect(log.some((line) => /keeps its storage/.test(line))).toBe(true);
    expect((await configOf(connection, 'kept')).storage).toBe('file');
  });
});
