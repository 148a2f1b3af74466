// EventStreamReader.followCaughtUp(), which lets an API replica's lag gauge skip its own stream
// requests: false while no follow runs, true once a follow's periodic stream check saw it had
// delivered the stream's last message, false again once the follow stopped. Over a real
// nats-server; a ClusterState fed entries directly and an EventPublisher that always leads
// write the stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { ClusterState } from '../../actors/index.ts';
import { EventPublisher, EventStreamReader } from '../../deploy/event-stream/index.ts';
import type { StreamBatch } from '../../deploy/event-stream/index.ts';
import { connectNats } from '../../raft/index.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { applier } from '../support/state-applier.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace } from './fixtures.ts';

let nats: NatsCluster;
let connection: NatsConnection;

beforeAll(async () => {
  nats = await NatsCluster.start(1);
  connection = await connectNats(nats.urls, 'event-stream-caught-up-test');
});

afterAll(async () => {
  await connection?.close().catch(() => undefined);
  await nats?.stopAll();
});

describe('EventStreamReader.followCaughtUp', () => {
  it('is true only while a follow had delivered the stream tail its latest check saw', async () => {
    const state = new ClusterState();
    const apply = applier(state);
    const publisher = EventPublisher.start({ connection, state, isLeader: () => true, cluster: 'caught', group: 'up' });
    const reader = await EventStreamReader.open({ connection, cluster: 'caught', group: 'up' });
    try {
      apply(createNamespace());
      apply(createConfigMap('one'));
      await waitFor(() => (publisher.stats().tail?.through ?? 0) >= state.appliedIndex(), { timeoutMs: 10_000, description: 'published' });
      expect(reader.followCaughtUp()).toBe(false);

      let through = 0;
      const follow = reader.follow(0, (batch: StreamBatch) => { through = batch.through; }, () => {});
      await waitFor(() => through >= state.appliedIndex(), { timeoutMs: 10_000, description: 'delivered' });
      await waitFor(() => reader.followCaughtUp(), { timeoutMs: 10_000, description: 'a check saw the follow at the tail' });

      await follow.stop();
      expect(reader.followCaughtUp()).toBe(false);
    } finally {
      await publisher.stop();
    }
  });
});
