// The change-event stream on a 3-node nats-server cluster: the publisher picks an R3 stream by
// itself (--events-replicas auto), and when the nats-server holding the stream's JetStream
// leadership is killed under a write load, publishing continues on the other two with no gap
// or duplicate. Also: a member that wrongly believes it leads publishes alongside the real
// leader, and Nats-Expected-Last-Sequence keeps the stream contiguous. The stream is kept in
// memory (--events-storage auto): when all three nats-servers restart it is empty again, the
// publisher republishes from the history, and a follow across the restart re-syncs.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { EventPublisher, eventStreamName } from '../../deploy/event-stream/index.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace, runConcurrently } from './fixtures.ts';
import { expectContiguous, historyAfter, memberIds, Members, openReader, readRawStream, Recorder, stampedNow, openStoreGroup, streamInfo } from './event-stream-support.ts';
import type { StoreGroup } from './event-stream-support.ts';

const stream = eventStreamName('it', 'ev');

let nats: NatsCluster;
let members: Members;
let connection: NatsConnection;
let client: StoreClient;

let group: StoreGroup | undefined;

beforeAll(async () => {
  group = await openStoreGroup({ natsServers: 3, tempPrefix: 'kstore-event-stream-r3-', clientName: 'event-stream-r3-test', deadlineMs: 30_000 });
  ({ nats, members, connection, client } = group);
});

afterAll(async () => {
  await group?.close();
});

beforeEach(() => {
  onTestFailed(() => {
    process.stderr.write(`members at failure:\n${members.describe()}\n`);
  });
});

async function waitPublished(timeoutMs = 30_000): Promise<number> {
  const reader = await openReader(connection);
  // lastThrough() rejects while JetStream elects leaders after a kill: waitFor retries.
  return waitFor(async () => {
    const leader = await members.leader();
    const applied = leader.state.appliedIndex();
    const through = await reader.lastThrough();
    return through >= applied && through > 0 ? through : undefined;
  }, { timeoutMs, description: 'the stream to reach the leader\'s applied index', diagnostics: () => members.describe() });
}

async function writeConfigMaps(prefix: string, count: number, concurrency: number): Promise<void> {
  await runConcurrently(count, concurrency, async (position) => {
    const result = await client.propose(stampedNow(createConfigMap(`${prefix}-${position}`, 200)));
    if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`write ${prefix}-${position}: ${JSON.stringify(result)}`);
  });
}

function revisionsUpTo(ids: readonly string[], through: number): string[] {
  return ids.filter((id) => Number(id.split(':')[0]) <= through);
}

describe('change-event stream on a 3-node nats-server cluster (R3)', () => {
  it('creates an R3 stream and keeps publishing when the stream leader\'s nats-server is killed', async () => {
    expect((await client.propose(stampedNow(createNamespace()))).type).toBe('stored');
    await writeConfigMaps('before', 100, 8);
    await waitPublished();
    const info = await streamInfo(connection, stream);
    expect(info.config.num_replicas).toBe(3);
    expect(info.config.storage).toBe('memory');
    const streamLeader = info.cluster?.leader;
    expect(streamLeader).toBeDefined();
    const victim = nats.servers.find((server) => server.name === streamLeader)!;

    const reader = await openReader(connection);
    const recorder = new Recorder(0);
    const handle = reader.follow(0, recorder.onBatch, recorder.onGap);
    try {
      const load = writeConfigMaps('during', 300, 8);
      await waitFor(async () => (await reader.lastThrough()) > 150, { timeoutMs: 20_000, description: 'load under way' });
      const killedAt = performance.now();
      await victim.kill();
      await load;
      await writeConfigMaps('after', 50, 4);
      const through = await waitPublished(40_000);
      const recoveredSeconds = (performance.now() - killedAt) / 1000;
      await waitFor(() => recorder.through >= through, { timeoutMs: 20_000, description: `the reader to reach ${through}` });
      expect(recorder.gap).toBeUndefined();
      expect(recorder.problems).toEqual([]);
      const leader = await members.leader();
      const ids = expectContiguous(await readRawStream(connection, stream));
      expect(ids).toEqual(revisionsUpTo(historyAfter(leader, 0), through));
      expect(recorder.events.map((event) => event.revision)).toEqual(ids.map((id) => Number(id.split(':')[0])));
      const newInfo = await streamInfo(connection, stream);
      console.log(`event stream R3: stream leader ${streamLeader} killed; everything published ${recoveredSeconds.toFixed(1)} s later `
        + `(new stream leader ${newInfo.cluster?.leader ?? '?'}); leader stats ${JSON.stringify(leader.events.stats())}`);
      await victim.start();
    } finally {
      await handle.stop();
    }
  });

  it('a member that wrongly believes it leads publishes alongside the leader: still contiguous, once each', async () => {
    const leader = await members.leader();
    const follower = members.member(memberIds.find((id) => id !== leader.node.status().id)!);
    const rogue = EventPublisher.start({ connection: follower.connection, state: follower.state, isLeader: () => true, cluster: 'it', group: 'ev', progressIntervalMs: 1 });
    try {
      await writeConfigMaps('rogue', 300, 16);
      const through = await waitPublished();
      await waitFor(() => rogue.stats().messages + rogue.stats().conflicts > 0, { timeoutMs: 10_000, description: 'the rogue publisher to take part' });
      const ids = expectContiguous(await readRawStream(connection, stream));
      expect(ids).toEqual(revisionsUpTo(historyAfter(leader, 0), through));
      const stats = { leader: leader.events.stats(), rogue: rogue.stats() };
      console.log(`two publishers: ${JSON.stringify(stats)}`);
      // Both took part: the rogue's messages were accepted where it was first, refused otherwise.
      expect(stats.rogue.messages + stats.rogue.conflicts).toBeGreaterThan(0);
      expect(stats.leader.messages).toBeGreaterThan(0);
    } finally {
      await rogue.stop();
    }
  });

  it('every nats-server restarts: the memory stream starts again from the history, a follow across it re-syncs', async () => {
    await writeConfigMaps('before-all', 50, 4);
    await waitPublished();
    const reader = await openReader(connection);
    const recorder = new Recorder(await reader.lastThrough());
    const handle = reader.follow(recorder.after, recorder.onBatch, recorder.onGap);
    try {
      await writeConfigMaps('followed', 5, 1);
      await waitFor(() => recorder.events.length > 0, { timeoutMs: 10_000, description: 'the follow to deliver' });
      const lastSeqBefore = (await streamInfo(connection, stream)).state.last_seq;
      for (const server of nats.servers) await server.stop();
      await Promise.all(nats.servers.map((server) => server.start()));
      await writeConfigMaps('after-all', 20, 2);
      const through = await waitPublished(60_000);
      await waitFor(() => recorder.gap, { timeoutMs: 20_000, description: 'onGap for the follow across the restart' });
      expect(recorder.gap).toMatch(/lost its messages|recreated|no longer exists|reset/);
      expect(recorder.problems).toEqual([]);
      const info = await streamInfo(connection, stream);
      expect(info.state.first_seq).toBeLessThan(lastSeqBefore);
      const raw = await readRawStream(connection, stream);
      const ids = expectContiguous(raw, raw[0]?.batch.from ?? 0);
      const leader = await members.leader();
      const truth = revisionsUpTo(historyAfter(leader, 0), through);
      expect(truth.slice(truth.length - ids.length)).toEqual(ids);
      expect(ids.filter((id) => id.includes('/after-all-'))).toHaveLength(20);
      // A new follow from a revision the stream covers reads on without a gap.
      const fresh = new Recorder(raw[0]?.batch.through ?? 0);
      const second = reader.follow(fresh.after, fresh.onBatch, fresh.onGap);
      try {
        await waitFor(() => fresh.through >= through, { timeoutMs: 20_000, description: 'a new follow to reach the tail' });
        expect(fresh.gap).toBeUndefined();
        expect(fresh.problems).toEqual([]);
      } finally {
        await second.stop();
      }
      console.log(`every nats-server restarted: stream last_seq ${lastSeqBefore} before, ${info.state.last_seq} after; follow: ${recorder.gap ?? 'no gap'}`);
    } finally {
      await handle.stop();
    }
  });
});
