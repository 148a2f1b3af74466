// deploy/store-client.ts and raft/node/proposal-service.ts against one real nats-server:
// a proposal whose reply is late is retried with the same session and sequence and applied
// once; a call with nobody to answer ends in a typed StoreDeadlineError; a garbage payload on
// a member's Raft subject is counted, never delivered; a 3-member group that loses NATS
// altogether keeps its state and takes writes again once NATS is back; and on a server with a
// small max_payload, appends too large for one NATS message are split and replication goes on.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { ClusterState } from '../../actors/index.ts';
import type { CommandResult } from '../../actors/index.ts';
import { openNatsStore } from '../../deploy/roles/store.ts';
import type { NatsStore } from '../../deploy/roles/store.ts';
import { StoreClient, StoreDeadlineError } from '../../deploy/store-client.ts';
import { connectNats, ProposalService, RaftNode, raftSubject } from '../../raft/index.ts';
import type { ProposalOutcome } from '../../raft/index.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { configMapKey, createConfigMap, createNamespace, revisionOf, runConcurrently } from './fixtures.ts';

let nats: NatsCluster;
let dir: TempDir;
let connection: NatsConnection;

beforeAll(async () => {
  nats = await NatsCluster.start(1);
  dir = await makeTempDir('kstore-store-client-');
  connection = await connectNats(nats.urls, 'store-client-test');
});

afterAll(async () => {
  await connection?.close().catch(() => undefined);
  await nats?.stopAll();
  await dir?.remove();
});

describe('store client - sessions, retries and deadlines (1 nats-server)', () => {
  it('retries a proposal whose reply came too late with the same session and sequence; it applies once', async () => {
    const state = new ClusterState();
    const node = await RaftNode.open<CommandResult>({ id: 'solo', peers: ['solo'], dataDir: path.join(dir.path, 'solo'), stateMachine: state });
    const proposed: Uint8Array[] = [];
    let delayNext = false;
    // Stands in for a leader whose reply is lost or slow: the first attempt of the chosen
    // proposal commits, but its answer arrives after the client's attempt timeout.
    const slowTarget = {
      propose: async (data: Uint8Array): Promise<ProposalOutcome<CommandResult>> => {
        proposed.push(data);
        const outcome = await node.propose(data);
        if (delayNext) {
          delayNext = false;
          await new Promise((resolve) => setTimeout(resolve, 600));
        }
        return outcome;
      },
      readIndex: () => node.readIndex(),
      status: () => node.status(),
    };
    const service = ProposalService.start({ connection, cluster: 'sc', group: 'main', member: 'solo', node: slowTarget });
    const client = new StoreClient({ connection, cluster: 'sc', group: 'main', attemptTimeoutMs: 300, deadlineMs: 10_000 });
    try {
      expect((await client.propose(createNamespace())).type).toBe('stored');
      delayNext = true;
      const before = proposed.length;
      const result = await client.propose(createConfigMap('once'));
      const attempts = proposed.slice(before);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      // Every attempt carried the same bytes: same session id, same sequence.
      for (const attempt of attempts) expect(Buffer.from(attempt).equals(Buffer.from(attempts[0] ?? new Uint8Array()))).toBe(true);
      const envelope = JSON.parse(new TextDecoder().decode(attempts[0])) as { session?: { id: string; sequence: number } };
      expect(envelope.session?.sequence).toBeGreaterThanOrEqual(1);
      expect(client.retries).toBeGreaterThanOrEqual(1);
      // Applied once: the object's revision is the first attempt's entry, later ones were duplicates.
      const stored = state.get(configMapKey('once'));
      expect(stored?.metadata.resourceVersion).toBe(String(revisionOf(result)));
      expect(state.appliedIndex()).toBeGreaterThan(revisionOf(result));
      // Concurrent proposals use distinct sessions and all apply.
      const many = await runConcurrently(50, 25, (position) => client.propose(createConfigMap(`many-${position}`)));
      expect(new Set(many.map(revisionOf)).size).toBe(50);
      expect(await client.readIndex()).toBeGreaterThanOrEqual(Math.max(...many.map(revisionOf)));
      const [status] = await client.clusterStatus(200);
      expect(status).toMatchObject({ id: 'solo', role: 'leader', cluster: 'sc', group: 'main' });
    } finally {
      client.close();
      await service.stop();
      await node.close();
    }
  });

  it('ends a call nobody answers with a typed StoreDeadlineError', async () => {
    const client = new StoreClient({ connection, cluster: 'nobody', group: 'main', attemptTimeoutMs: 100, deadlineMs: 600 });
    const started = Date.now();
    const error = await client.propose(createNamespace()).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreDeadlineError);
    expect((error as StoreDeadlineError).attempts).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(client.readIndex()).rejects.toBeInstanceOf(StoreDeadlineError);
  });
});

describe('raft over NATS - a 3-member group that loses NATS altogether', () => {
  const ids = ['x', 'y', 'z'];
  const members: NatsStore[] = [];

  afterAll(async () => {
    await Promise.all(members.map((store) => store.close().catch(() => undefined)));
  });

  it('counts a garbage payload on a member subject, keeps its state while NATS is down, and takes writes again when it returns', async () => {
    for (const id of ids) {
      members.push(await openNatsStore({ id, peers: ids, natsServers: nats.urls, dataDir: path.join(dir.path, `outage-${id}`), cluster: 'outage', group: 'main', tickIntervalMs: 20 }));
    }
    const client = new StoreClient({ connection, cluster: 'outage', group: 'main', attemptTimeoutMs: 500, deadlineMs: 30_000 });
    try {
      expect((await client.propose(createNamespace())).type).toBe('stored');
      const first = await runConcurrently(30, 6, (position) => client.propose(createConfigMap(`before-${position}`)));
      const beforeOutage = Math.max(...first.map(revisionOf));

      const victim = members[0];
      if (victim === undefined) throw new Error('member x open');
      connection.publish(raftSubject('outage', 'main', 'x'), new TextEncoder().encode('not a raft batch'));
      await waitFor(() => victim.transport.stats().decodeErrors === 1, { timeoutMs: 5_000, description: 'the garbage payload to be counted' });

      await nats.server(0).kill();
      await waitFor(() => members.every((store) => !store.transport.stats().connected), { timeoutMs: 10_000, description: 'every member to notice NATS is gone' });
      for (const store of members) expect(store.state.appliedIndex()).toBeGreaterThanOrEqual(beforeOutage);
      await nats.server(0).start();
      await waitFor(() => members.every((store) => store.transport.stats().connected), { timeoutMs: 15_000, description: 'every member to reconnect' });

      const after = await runConcurrently(30, 6, (position) => client.propose(createConfigMap(`after-${position}`)));
      const last = Math.max(...after.map(revisionOf));
      expect(last).toBeGreaterThan(beforeOutage);
      await waitFor(() => members.every((store) => store.state.appliedIndex() >= last), { timeoutMs: 15_000, description: 'every member to apply the writes after the outage' });
      for (const store of members) expect(store.state.get(configMapKey('before-0'))).toBeDefined();
    } finally {
      client.close();
    }
  });
});

describe('raft over NATS - appends larger than the server\'s max_payload (32 KiB)', () => {
  it('splits them into valid appends: every member applies every write, nothing dropped', async () => {
    const small = await NatsCluster.start(1, { maxPayloadBytes: 32 * 1024 });
    const ids = ['p', 'q', 'r'];
    const members: NatsStore[] = [];
    const smallConnection = await connectNats(small.urls, 'small-payload-test');
    const client = new StoreClient({ connection: smallConnection, cluster: 'small', group: 'main', attemptTimeoutMs: 2_000, deadlineMs: 30_000 });
    try {
      for (const id of ids) {
        members.push(await openNatsStore({ id, peers: ids, natsServers: small.urls, dataDir: path.join(dir.path, `small-${id}`), cluster: 'small', group: 'main', tickIntervalMs: 20 }));
      }
      expect((await client.propose(createNamespace())).type).toBe('stored');
      // 6 KiB objects, 32 at once: one Ready's append to a follower carries far more than 32 KiB.
      const results = await runConcurrently(160, 32, (position) => client.propose(createConfigMap(`big-${position}`, 6 * 1024)));
      const last = Math.max(...results.map(revisionOf));
      await waitFor(() => members.every((store) => store.state.appliedIndex() >= last), { timeoutMs: 20_000, description: 'every member to apply every write' });
      const stats = members.map((store) => store.transport.stats());
      expect(stats.reduce((sum, stat) => sum + stat.splitAppends, 0)).toBeGreaterThan(0);
      expect(stats.every((stat) => stat.droppedOversized === 0)).toBe(true);
    } finally {
      client.close();
      await smallConnection.close().catch(() => undefined);
      await Promise.all(members.map((store) => store.close().catch(() => undefined)));
      await small.stopAll();
    }
  });
});
