// The change-event stream end to end on one real nats-server (JetStream, R1 stream): three
// in-process store members publish while they lead (deploy/event-stream/publisher.ts) and
// EventStreamReader follows. Proves: every change exactly once, in order, in contiguous
// messages, also across a leader's loss under load, a deletion of the stream's tail, and a
// nats-server restart without its store; readers from a revision; onGap when the stream does not
// reach back. Also the store leader's duties (system namespaces, controllers after a failover).
import { rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Command } from '../../actors/index.ts';
import { eventStreamName } from '../../deploy/event-stream/index.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace, namespace, namespaceKey, runConcurrently, t0 } from './fixtures.ts';
import { expectContiguous, historyAfter, memberIds, Members, openReader, readRawStream, Recorder, stampedNow, openStoreGroup } from './event-stream-support.ts';
import type { StoreGroup } from './event-stream-support.ts';

const stream = eventStreamName('it', 'ev');

let nats: NatsCluster;
let members: Members;
let connection: NatsConnection;
let client: StoreClient;

let group: StoreGroup | undefined;

beforeAll(async () => {
  group = await openStoreGroup({ natsServers: 1, tempPrefix: 'kstore-event-stream-', clientName: 'event-stream-test', deadlineMs: 20_000 });
  ({ nats, members, connection, client } = group);
});

afterAll(async () => {
  await group?.close();
});

beforeEach(() => {
  onTestFailed(() => {
    process.stderr.write(`members at failure:\n${members.describe()}\n${nats.servers.map((server) => server.output()).join('\n').slice(-4000)}\n`);
  });
});

/** Waits until the stream's tail reached the leader's applied index (everything published). */
async function waitPublished(): Promise<number> {
  const reader = await openReader(connection);
  return waitFor(async () => {
    const leader = await members.leader();
    const applied = leader.state.appliedIndex();
    const through = await reader.lastThrough();
    return through >= applied && through > 0 ? through : undefined;
  }, { timeoutMs: 20_000, description: 'the stream to reach the leader\'s applied index', diagnostics: () => members.describe() });
}

async function writeConfigMaps(prefix: string, count: number, concurrency: number): Promise<void> {
  await runConcurrently(count, concurrency, async (position) => {
    const result = await client.propose(stampedNow(createConfigMap(`${prefix}-${position}`, 200)));
    if (result.type !== 'stored') throw new Error(`write ${prefix}-${position}: ${JSON.stringify(result)}`);
  });
}

describe('change-event stream on one nats-server (R1)', () => {
  it('the leader creates the system namespaces; writes reach the stream once each, in order, in contiguous messages', async () => {
    await members.leader();
    await waitFor(() => ['default', 'kube-system', 'kube-public', 'kube-node-lease'].every((name) => memberIds.every((id) => members.member(id).state.get(namespaceKey(name)) !== undefined)),
      { timeoutMs: 15_000, description: 'the system namespaces on every member' });
    expect((await client.propose(stampedNow(createNamespace()))).type).toBe('stored');
    const count = 600;
    const started = performance.now();
    await writeConfigMaps('load', count, 16);
    const through = await waitPublished();
    const seconds = (performance.now() - started) / 1000;
    const leader = await members.leader();
    const raw = await readRawStream(connection, stream);
    const ids = expectContiguous(raw);
    expect(ids).toEqual(historyAfter(leader, 0).filter((id) => Number(id.split(':')[0]) <= through));
    expect(ids.filter((id) => id.includes('configmaps/'))).toHaveLength(count);
    const jsm = await jetstreamManager(connection);
    const info = await jsm.streams.info(stream);
    expect(info.config.num_replicas).toBe(1);
    expect(info.config.max_age).toBe(5 * 60 * 1e9);
    const stats = leader.events.stats();
    console.log(`event stream: ${count} writes (c=16) published in ${raw.length} messages within ${seconds.toFixed(2)} s `
      + `(${(ids.length / seconds).toFixed(0)} events/s end to end; leader stats ${JSON.stringify(stats)})`);
  });

  it('a reader from revision R gets exactly the changes after R, and then live ones', async () => {
    const leader = await members.leader();
    const all = historyAfter(leader, 0);
    const middle = Number(all[Math.floor(all.length / 2)]!.split(':')[0]);
    const reader = await openReader(connection);
    const recorder = new Recorder(middle);
    const handle = reader.follow(middle, recorder.onBatch, recorder.onGap);
    try {
      await writeConfigMaps('live', 50, 4);
      const through = await waitPublished();
      await waitFor(() => recorder.through >= through, { timeoutMs: 15_000, description: `the reader to reach ${through}` });
      expect(recorder.gap).toBeUndefined();
      expect(recorder.problems).toEqual([]);
      expect(recorder.batches[0]?.from).toBe(middle);
      const expected = historyAfter(leader, middle).filter((id) => Number(id.split(':')[0]) <= recorder.through);
      expect(recorder.events.map((event) => `${event.revision}:${event.type}:${event.key.resource}/${event.key.namespace}/${event.key.name}`)).toEqual(expected);
    } finally {
      await handle.stop();
    }
  });

  it('the leader is closed mid-load: the new leader continues with no gap or duplicate', async () => {
    const reader = await openReader(connection);
    const recorder = new Recorder(0);
    const handle = reader.follow(0, recorder.onBatch, recorder.onGap);
    try {
      const oldLeader = await members.leader();
      const oldId = oldLeader.node.status().id;
      const load = writeConfigMaps('failover', 400, 8);
      await waitFor(() => oldLeader.state.list({ group: '', resource: 'configmaps', namespace }).items.length > 700, { timeoutMs: 20_000, description: 'load under way' });
      await members.close(oldId);
      await load;
      const newLeader = await members.leader();
      expect(newLeader.node.status().id).not.toBe(oldId);
      const through = await waitPublished();
      await waitFor(() => recorder.through >= through, { timeoutMs: 15_000, description: `the reader to reach ${through}` });
      expect(recorder.gap).toBeUndefined();
      expect(recorder.problems).toEqual([]);
      const ids = expectContiguous(await readRawStream(connection, stream));
      expect(ids).toEqual(historyAfter(newLeader, 0).filter((id) => Number(id.split(':')[0]) <= through));
      expect(recorder.events.map((event) => event.revision)).toEqual(ids.map((id) => Number(id.split(':')[0])));
      await members.open(oldId);
    } finally {
      await handle.stop();
    }
  });

  it('leadership moves three times under load: the stream stays contiguous with every change once', async () => {
    const load = writeConfigMaps('churn', 400, 8);
    for (let round = 0; round < 3; round++) {
      const leader = await members.leader();
      const start = leader.state.appliedIndex();
      await waitFor(() => leader.state.appliedIndex() > start + 50, { timeoutMs: 20_000, description: 'load under way' });
      const leaderId = leader.node.status().id;
      const target = memberIds.find((id) => id !== leaderId && members.stores.has(id) && members.member(id).state.appliedIndex() >= start)!;
      await leader.node.transferLeadership(target).catch(() => undefined);
    }
    await load;
    const through = await waitPublished();
    const ids = expectContiguous(await readRawStream(connection, stream));
    expect(ids).toEqual(historyAfter(await members.leader(), 0).filter((id) => Number(id.split(':')[0]) <= through));
    expect(ids.filter((id) => id.includes('configmaps/it/churn-'))).toHaveLength(400);
  });

  it('a deleted tail is republished from the history by the next leader', async () => {
    const jsm = await jetstreamManager(connection);
    await waitPublished();
    const before = await readRawStream(connection, stream);
    const lastTwo = before.slice(-2);
    for (const { seq } of lastTwo) await jsm.streams.deleteMessage(stream, seq);
    const leader = await members.leader();
    const leaderId = leader.node.status().id;
    const target = memberIds.find((id) => id !== leaderId && members.stores.has(id))!;
    await waitFor(() => members.member(target).state.appliedIndex() >= leader.state.appliedIndex(), { timeoutMs: 10_000, description: 'target caught up' });
    await leader.node.transferLeadership(target);
    await writeConfigMaps('after-delete', 20, 2);
    const through = await waitPublished();
    const after = await readRawStream(connection, stream);
    const ids = expectContiguous(after);
    expect(ids).toEqual(historyAfter(await members.leader(), 0).filter((id) => Number(id.split(':')[0]) <= through));
  });

  it('a reader from before the stream\'s first message gets onGap', async () => {
    const jsm = await jetstreamManager(connection);
    const raw = await readRawStream(connection, stream);
    const keepFrom = raw[Math.floor(raw.length / 2)]!;
    await jsm.streams.purge(stream, { seq: keepFrom.seq });
    const reader = await openReader(connection);
    const recorder = new Recorder(0);
    const handle = reader.follow(0, recorder.onBatch, recorder.onGap);
    try {
      await waitFor(() => recorder.gap, { timeoutMs: 10_000, description: 'onGap' });
      expect(recorder.gap).toMatch(/no longer reaches back to revision 0/);
      expect(recorder.batches).toEqual([]);
    } finally {
      await handle.stop();
    }
    // From the first message's own start it works.
    const fine = new Recorder(keepFrom.batch.from);
    const second = reader.follow(keepFrom.batch.from, fine.onBatch, fine.onGap);
    try {
      const through = await reader.lastThrough();
      await waitFor(() => fine.through >= through, { timeoutMs: 10_000, description: 'the reader to reach the tail' });
      expect(fine.gap).toBeUndefined();
      expect(fine.problems).toEqual([]);
    } finally {
      await second.stop();
    }
  });

  it('nats-server killed (SIGKILL) under load and restarted on its store: the stream ends complete and contiguous', async () => {
    const server = nats.server(0);
    const load = writeConfigMaps('kill9', 300, 8);
    const leader = await members.leader();
    const start = leader.state.appliedIndex();
    await waitFor(() => leader.state.appliedIndex() > start + 100, { timeoutMs: 20_000, description: 'load under way' });
    await server.kill();
    await server.start();
    await load;
    const through = await waitPublished();
    const ids = expectContiguous(await readRawStream(connection, stream), (await readRawStream(connection, stream))[0]?.batch.from ?? 0);
    const truth = historyAfter(await members.leader(), 0).filter((id) => Number(id.split(':')[0]) <= through);
    expect(truth.slice(truth.length - ids.length)).toEqual(ids);
    expect(ids.filter((id) => id.includes('configmaps/it/kill9-'))).toHaveLength(300);
  });

  it('nats-server restarted without its store: the leader recreates the stream and republishes from the history', async () => {
    const reader = await openReader(connection);
    const recorder = new Recorder(await reader.lastThrough());
    const handle = reader.follow(recorder.after, recorder.onBatch, recorder.onGap);
    // The follow is under way (its consumer delivered) before the server goes.
    await writeConfigMaps('before-restart', 1, 1);
    await waitFor(() => recorder.events.length > 0, { timeoutMs: 10_000, description: 'the follow to deliver' });
    const server = nats.server(0);
    const before = (await members.leader()).state.appliedIndex();
    await server.stop();
    const storeDir = path.join(path.dirname(server.configFile), 'jetstream');
    await rm(storeDir, { recursive: true, force: true });
    await mkdir(storeDir, { recursive: true });
    await server.start();
    const restarted = performance.now();
    await writeConfigMaps('after-restart', 20, 2);
    const through = await waitPublished();
    const seconds = (performance.now() - restarted) / 1000;
    // A follow across the loss learns that it must re-sync.
    await waitFor(() => recorder.gap, { timeoutMs: 15_000, description: 'onGap for the follow across the restart' });
    expect(recorder.problems).toEqual([]);
    await handle.stop();
    const raw = await readRawStream(connection, stream);
    const ids = expectContiguous(raw);
    const leader = await members.leader();
    expect(ids).toEqual(historyAfter(leader, 0).filter((id) => Number(id.split(':')[0]) <= through));
    expect(ids.filter((id) => id.includes('configmaps/it/after-restart-'))).toHaveLength(20);
    console.log(`event stream: recreated and republished ${ids.length} events (history through ${before} plus 20 writes) in ${raw.length} messages, `
      + `${seconds.toFixed(2)} s after the restart; reader gap: ${recorder.gap ?? 'none'}`);
  });

  it('after a leader change the new leader runs the controllers: a namespace delete completes', async () => {
    const oldLeader = await members.leader();
    const target = memberIds.find((id) => id !== oldLeader.node.status().id && members.stores.has(id))!;
    await waitFor(() => members.member(target).state.appliedIndex() >= oldLeader.state.appliedIndex(), { timeoutMs: 10_000, description: 'target caught up' });
    await oldLeader.node.transferLeadership(target);
    const newLeader = await members.leader();
    expect(newLeader.node.status().id).toBe(target);
    await waitFor(() => newLeader.duties?.running, { timeoutMs: 5_000, description: 'duties on the new leader' });
    await waitFor(() => !oldLeader.duties?.running, { timeoutMs: 5_000, description: 'duties stopped on the old leader' });
    const name = 'doomed';
    expect((await client.propose(stampedNow(createNamespace(name)))).type).toBe('stored');
    const content: Command = stampedNow({
      type: 'create', key: { group: '', resource: 'configmaps', namespace: name, name: 'inside' }, at: t0,
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inside', namespace: name, uid: 'uid-inside', creationTimestamp: t0 } },
    });
    expect((await client.propose(content)).type).toBe('stored');
    // Namespaces get the "kubernetes" spec finalizer from the API tier; this one is set here.
    const current = newLeader.state.get(namespaceKey(name))!;
    const withFinalizer = { ...structuredClone(current), spec: { finalizers: ['kubernetes'] } };
    expect((await client.propose(stampedNow({ type: 'update', key: namespaceKey(name), object: withFinalizer, at: t0 }))).type).toBe('stored');
    expect((await client.propose(stampedNow({ type: 'delete', key: namespaceKey(name), at: t0 }))).type).toBe('finalizing');
    await waitFor(() => newLeader.state.get(namespaceKey(name)) === undefined && newLeader.state.objectsInNamespace(name).length === 0,
      { timeoutMs: 15_000, description: 'the namespace and its content deleted by the new leader\'s controller' });
  });
});
