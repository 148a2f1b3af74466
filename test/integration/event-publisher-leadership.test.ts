// EventPublisher given onLeadershipChange (as kstore store wires it to RaftNode.onRoleChange)
// over a real nats-server: it runs no leadership poll, so what it must still do is driven by
// the role listener and its own keepalive timer alone — it starts publishing when told this
// member leads (what was applied meanwhile goes out), keeps the stream alive with keepalives
// while nothing is applied (readers and a next leader rely on the stream's tail), and stands
// down when told it no longer leads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { ClusterState } from '../../actors/index.ts';
import { EventPublisher } from '../../deploy/event-stream/index.ts';
import { connectNats } from '../../raft/index.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { roleSwitch } from '../support/role-switch.ts';
import { applier } from '../support/state-applier.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace } from './fixtures.ts';

let nats: NatsCluster;
let connection: NatsConnection;

beforeAll(async () => {
  nats = await NatsCluster.start(1);
  connection = await connectNats(nats.urls, 'event-publisher-leadership-test');
});

afterAll(async () => {
  await connection?.close().catch(() => undefined);
  await nats?.stopAll();
});

describe('EventPublisher following a role listener', () => {
  it('publishes once told it leads, keeps the stream alive while idle, and stands down when told it no longer leads', async () => {
    const state = new ClusterState();
    const apply = applier(state);
    const member = roleSwitch(false);
    // maxAge 1.5 s: a keepalive every 500 ms while nothing is applied.
    const publisher = EventPublisher.start({ connection, state, isLeader: member.isLeader, onLeadershipChange: member.onLeadershipChange, cluster: 'lead', group: 'follow', maxAgeMs: 1_500 });
    try {
      apply(createNamespace());
      apply(createConfigMap('before-leading'));
      // Not leading: entries applied wake it, it looks and goes back to sleep; nothing is published.
      const callsWhileFollowing = member.isLeaderCalls();
      expect(callsWhileFollowing).toBeGreaterThan(0);
      expect(publisher.stats().active).toBe(false);
      expect(publisher.stats().messages).toBe(0);

      member.set(true);
      await waitFor(() => (publisher.stats().tail?.through ?? 0) >= state.appliedIndex(), { timeoutMs: 10_000, description: 'what was applied published' });
      expect(publisher.stats().active).toBe(true);

      // Idle: only the keepalive timer wakes it; keepalives (empty messages at the tail) go out.
      const marksBefore = publisher.stats().progressMarks;
      await waitFor(() => publisher.stats().progressMarks >= marksBefore + 2, { timeoutMs: 10_000, description: 'keepalives while idle' });
      expect(publisher.stats().tail?.through).toBe(state.appliedIndex());

      apply(createConfigMap('while-leading'));
      await waitFor(() => (publisher.stats().tail?.through ?? 0) >= state.appliedIndex(), { timeoutMs: 10_000, description: 'the new change published' });

      member.set(false);
      await waitFor(() => !publisher.stats().active, { timeoutMs: 10_000, description: 'stood down' });
      const messages = publisher.stats().messages;
      apply(createConfigMap('after-leading'));
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(publisher.stats().messages).toBe(messages);
    } finally {
      await publisher.stop();
    }
    expect(member.listeners()).toBe(0);
  });
});
