// Raft over NATS, in process: three store members (RaftNode + NatsTransport + ProposalService +
// ClusterState, wired by deploy/roles/store.ts) on a real 3-node nats-server cluster, driven
// through deploy/store-client.ts. Checks agreement (every member applies the same sequence),
// at-most-once retries, leader loss and catch-up, and the loss of one nats-server.
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { commandVersion, encodeCommand } from '../../actors/index.ts';
import type { CommandResult } from '../../actors/index.ts';
import { openNatsStore } from '../../deploy/roles/store.ts';
import type { NatsStore, StoreFlags } from '../../deploy/roles/store.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import { connectNats, encodeProposalBatch } from '../../raft/index.ts';
import type { ProposeBatchReply, ProposeReply } from '../../raft/index.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace, revisionOf, runConcurrently } from './fixtures.ts';

const memberIds = ['a', 'b', 'c'] as const;
/** Short ticks keep elections (10–20 ticks) near 200–400 ms. */
const tickIntervalMs = 20;

let nats: NatsCluster;
let dir: TempDir;
const members = new Map<string, NatsStore>();
let clientConnection: NatsConnection;
let client: StoreClient;

function flagsOf(id: string): StoreFlags {
  return {
    id, peers: [...memberIds], natsServers: nats.urls, dataDir: path.join(dir.path, id),
    cluster: 'it', group: 'main', tickIntervalMs,
  };
}

async function openMember(id: string): Promise<NatsStore> {
  const log = process.env.KSTORE_TEST_LOG === undefined ? undefined
    : (message: string, fields?: Record<string, unknown>): void => {
      process.stderr.write(`${new Date().toISOString()} ${id}: ${message} ${JSON.stringify(fields ?? {})}\n`);
    };
  const store = await openNatsStore(flagsOf(id), log);
  members.set(id, store);
  return store;
}

function member(id: string): NatsStore {
  const store = members.get(id);
  if (store === undefined) throw new Error(`member ${id} is not open`);
  return store;
}

async function leaderId(): Promise<string> {
  return waitFor(() => {
    const leaders = [...members.values()].map((store) => store.node.status()).filter((status) => status.role === 'leader');
    return leaders.length === 1 ? leaders[0]?.id : undefined;
  }, { timeoutMs: 15_000, description: 'exactly one leader' });
}

/** Waits until every open member applied the same index, then checks their states are identical. */
async function expectConverged(): Promise<number> {
  const stores = [...members.values()];
  const applied = await waitFor(() => {
    const indexes = stores.map((store) => store.state.appliedIndex());
    return indexes.every((index) => index === indexes[0]) && indexes[0] !== 0 ? indexes[0] : undefined;
  }, { timeoutMs: 20_000, description: 'every member to apply the same index', diagnostics: describeMembers });
  const snapshots = stores.map((store) => new TextDecoder().decode(store.state.snapshot()));
  for (const snapshot of snapshots) expect(snapshot).toBe(snapshots[0]);
  return applied;
}

function describeMembers(): string {
  return [...members.entries()].map(([id, store]) => `${id}: ${JSON.stringify({
    status: store.node.status(), transport: store.transport.stats(), inFlight: store.service.inFlight,
    forwarded: store.service.forwarded, server: store.connection.getServer(),
  })}`).join('\n');
}

beforeEach(() => {
  onTestFailed(() => {
    process.stderr.write(`members at failure:\n${describeMembers()}\nclient leader ${client.leaderId ?? '?'}, retries ${client.retries}\n`);
  });
});

beforeAll(async () => {
  nats = await NatsCluster.start(3);
  dir = await makeTempDir('kstore-raft-nats-');
  await Promise.all(memberIds.map((id) => openMember(id)));
  clientConnection = await connectNats(nats.urls, 'raft-nats-test-client');
  client = new StoreClient({ connection: clientConnection, cluster: 'it', group: 'main', attemptTimeoutMs: 1_000, deadlineMs: 20_000 });
});

afterAll(async () => {
  client?.close();
  await clientConnection?.close().catch(() => undefined);
  await Promise.all([...members.values()].map((store) => store.close().catch(() => undefined)));
  await nats?.stopAll();
  await dir?.remove();
});

describe('raft over NATS - 3 members in process on a 3-node nats-server cluster', () => {
  it('elects one leader; every member answers status', async () => {
    const leader = await leaderId();
    const statuses = await waitFor(async () => {
      const answered = await client.clusterStatus();
      return answered.length === 3 ? answered : undefined;
    }, { timeoutMs: 10_000, description: 'status from 3 members' });
    expect(statuses.map((status) => status.id)).toEqual(['a', 'b', 'c']);
    expect(statuses.filter((status) => status.role === 'leader').map((status) => status.id)).toEqual([leader]);
    expect(statuses.every((status) => status.cluster === 'it' && status.group === 'main')).toBe(true);
  });

  it('applies concurrent proposals (c=16, 400 writes) in the same order on every member', async () => {
    expect((await client.propose(createNamespace())).type).toBe('stored');
    const count = 400;
    const started = performance.now();
    const results = await runConcurrently(count, 16, (position) => client.propose(createConfigMap(`cm-${position}`, 700)));
    const seconds = (performance.now() - started) / 1000;
    const revisions = results.map(revisionOf);
    expect(new Set(revisions).size).toBe(count);
    const readIndex = await client.readIndex();
    expect(readIndex).toBeGreaterThanOrEqual(Math.max(...revisions));
    const applied = await expectConverged();
    expect(applied).toBeGreaterThanOrEqual(Math.max(...revisions));
    for (const store of members.values()) expect(store.state.list({ group: '', resource: 'configmaps', namespace: 'it' }).items).toHaveLength(count);
    console.log(`raft-nats in process: ${count} proposals at c=16 in ${seconds.toFixed(2)} s = ${(count / seconds).toFixed(0)} proposals/s`);
  });

  it('answers a retried proposal (same session and sequence) with the first result, applying it once', async () => {
    const payload = encodeCommand({ version: commandVersion, command: createConfigMap('retried'), session: { id: 'retry-session', sequence: 1 } });
    const ask = async (): Promise<ProposeReply<CommandResult>> => {
      const reply = await clientConnection.request(client.subjects.propose, payload, { timeout: 5_000 });
      return JSON.parse(reply.string()) as ProposeReply<CommandResult>;
    };
    const first = await ask();
    const second = await ask();
    if (first.type !== 'ok' || second.type !== 'ok') throw new Error(`both attempts answered: ${JSON.stringify([first, second])}`);
    // The retry is a new log entry, but apply answers it from the session table: same result,
    // same revision (the first entry's index), nothing applied twice.
    expect(second.index).toBeGreaterThan(first.index);
    expect(second.result).toEqual(first.result);
    expect(revisionOf(second.result)).toBe(first.index);
    await expectConverged();
  });

  it('a batch whose reply was lost, retried: each item applies once and the retry is answered with the first results', async () => {
    const payload = (name: string, session: string): Uint8Array => encodeCommand({ version: commandVersion, command: createConfigMap(name), session: { id: session, sequence: 1 } });
    const first = payload('lost-reply-a', 'lost-reply-1');
    const second = payload('lost-reply-b', 'lost-reply-2');
    // The first batch goes through the queue group with a reply inbox nobody listens on: applied, answer lost.
    clientConnection.publish(client.subjects.proposeBatch, encodeProposalBatch([first, second]), { reply: '_INBOX.nobody-listens.1' });
    const names = (): string[] => member(memberIds[0]).state.list({ group: '', resource: 'configmaps', namespace: 'it' }).items.map((item) => item.metadata.name ?? '');
    await waitFor(() => names().includes('lost-reply-a') && names().includes('lost-reply-b'), { timeoutMs: 10_000, description: 'the first batch applied' });
    const third = payload('lost-reply-c', 'lost-reply-3');
    const message = await clientConnection.request(client.subjects.proposeBatch, encodeProposalBatch([first, third, second]), { timeout: 5_000 });
    const reply = JSON.parse(message.string()) as ProposeBatchReply<CommandResult>;
    if (!('items' in reply)) throw new Error(`one answer for the whole batch: ${JSON.stringify(reply)}`);
    const [retriedFirst, created, retriedSecond] = reply.items;
    if (retriedFirst?.type !== 'ok' || created?.type !== 'ok' || retriedSecond?.type !== 'ok') throw new Error(`every item answered ok: ${JSON.stringify(reply)}`);
    // Applied once: the retries carry the first entries' results (created, not alreadyExists).
    expect(retriedFirst.result.type).toBe('stored');
    expect(retriedSecond.result.type).toBe('stored');
    expect(revisionOf(retriedFirst.result)).toBeLessThan(revisionOf(created.result));
    expect(revisionOf(retriedSecond.result)).toBeLessThan(revisionOf(created.result));
    await expectConverged();
    expect(names().filter((name) => name.startsWith('lost-reply-')).sort()).toEqual(['lost-reply-a', 'lost-reply-b', 'lost-reply-c']);
  });

  it('elects a new leader when the leader stops; writes continue; the old leader catches up when it returns', async () => {
    const oldLeader = await leaderId();
    await member(oldLeader).close();
    members.delete(oldLeader);
    const during = await runConcurrently(40, 8, (position) => client.propose(createConfigMap(`after-leader-loss-${position}`)));
    expect(during.every((result) => result.type === 'stored')).toBe(true);
    const newLeader = await leaderId();
    expect(newLeader).not.toBe(oldLeader);
    await openMember(oldLeader);
    await client.propose(createConfigMap('after-rejoin'));
    await expectConverged();
    expect(member(oldLeader).state.get({ group: '', resource: 'configmaps', namespace: 'it', name: 'after-rejoin' })).toBeDefined();
  });

  it('keeps taking writes while the leader\'s nats-server is killed, and after it returns', async () => {
    const leader = member(await leaderId());
    const leaderServer = leader.connection.getServer();
    const position = nats.servers.findIndex((server) => server.url.endsWith(leaderServer));
    expect(position).toBeGreaterThanOrEqual(0);
    const victim = nats.server(position);
    await victim.kill();
    const during = await runConcurrently(60, 8, (position) => client.propose(createConfigMap(`nats-down-${position}`)));
    expect(during.every((result) => result.type === 'stored')).toBe(true);
    // Appends in flight through the killed server are lost; the leader re-probes a follower
    // whose pipeline stalled, so every member converges without further writes.
    await expectConverged();
    await waitFor(() => leader.transport.stats().connected && leader.connection.getServer() !== leaderServer,
      { timeoutMs: 10_000, description: 'the old leader to reconnect to another nats-server' });
    await victim.start();
    await nats.waitForRoutes();
    const after = await runConcurrently(20, 4, (position) => client.propose(createConfigMap(`nats-back-${position}`)));
    expect(after.every((result) => result.type === 'stored')).toBe(true);
    await expectConverged();
  });
});
