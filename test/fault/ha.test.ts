// Proves: the HA kstore (3 `kstore store` members over a 3-node nats-server cluster with
// JetStream, 2 `kstore api` replicas) keeps every acknowledged write and delivers every change
// to every watcher exactly once and in order, under the faults an operator meets: the Raft
// leader killed with SIGKILL and restarted, an API replica killed, the nats-server they all use killed, and
// the whole cluster stopped and started again.
//
// Each scenario runs its own namespace: 4 writers create ConfigMaps through the replicas (round
// robin) while 50 watchers (spread over both replicas) watch the namespace from the list's
// resourceVersion and resume from the last resourceVersion they saw whenever their stream
// breaks. After the fault heals and the writers stop, the namespace's final list is the truth:
// every acknowledged create is in it with the resourceVersion it was acknowledged with, and
// every watcher saw exactly one ADDED per item, in resourceVersion order, and nothing else.
// No phase is a wall-clock slot: the fault comes once creates are acknowledged and every watcher
// is streaming, and the writers stop once creates sent after the heal (and, for the Raft leader,
// after the restarted member caught up) were acknowledged; each is a waitFor with a deadline
// whose failure names what was not reached.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { httpsRequest, jsonBody } from '../support/kube-client.ts';
import { waitFor } from '../support/wait-for.ts';
import { HaCluster, ResumingWatcher, Writers } from './ha-cluster.ts';
import type { SeenEvent } from './ha-cluster.ts';

const watcherCount = 50;
const writerCount = 4;
/**
 * Creates acknowledged before the fault, and again among those sent after it healed (about 2 s
 * each on a quiet machine).
 */
const writesPerPhase = 60;
const catchUpTimeoutMs = 60_000;

let cluster: HaCluster | undefined;

function running(): HaCluster {
  if (cluster === undefined) throw new Error('cluster not started');
  return cluster;
}

beforeAll(async () => {
  cluster = await HaCluster.start({ cluster: `ha${process.pid}`, apis: 2 });
}, 180_000);

afterAll(async () => {
  await cluster?.close();
});

interface ListedItem {
  readonly name: string;
  readonly resourceVersion: string;
}

async function request(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  const ha = running();
  return waitFor(async () => {
    for (const endpoint of ha.endpoints()) {
      try {
        const response = await httpsRequest(endpoint, ha.credentials, { method, path, timeoutMs: 10_000, ...(body === undefined ? {} : { body }) });
        if (response.status < 500) return response;
      } catch {
        // the next endpoint
      }
    }
    return undefined;
  }, { timeoutMs: catchUpTimeoutMs, intervalMs: 200, description: `${method} ${path} answered by a replica`, diagnostics: () => ha.diagnostics() });
}

async function listNamespace(namespace: string): Promise<{ items: ListedItem[]; resourceVersion: string }> {
  const response = await request('GET', `/api/v1/namespaces/${namespace}/configmaps`);
  expect(response.status).toBe(200);
  const body = jsonBody<{ metadata: { resourceVersion: string }; items: { metadata: { name: string; resourceVersion: string } }[] }>({ ...response, headers: {}, peerCertificate: undefined });
  return { items: body.items.map((item) => ({ name: item.metadata.name, resourceVersion: item.metadata.resourceVersion })), resourceVersion: body.metadata.resourceVersion };
}

/** Runs load with watchers around `fault`, then checks durability and watch completeness. */
async function scenario(namespace: string, fault: () => Promise<void>): Promise<{ readonly reconnects: number }> {
  const startedAt = performance.now();
  const ha = running();
  onTestFailed(() => {
    process.stderr.write(`${ha.diagnostics()}\n`);
  });
  const created = await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  expect(created.status).toBe(201);
  const start = await listNamespace(namespace);
  const watchers = Array.from({ length: watcherCount }, (_, position) =>
    new ResumingWatcher(() => ha.endpoints(), ha.credentials, namespace, start.resourceVersion, position));
  const writers = new Writers(() => ha.endpoints(), ha.credentials, namespace, writerCount);
  let healedAt = Number.POSITIVE_INFINITY;
  try {
    // The fault meets load in flight and watchers that are streaming, not still connecting.
    const silent = (): number => watchers.filter((watcher) => watcher.events.length === 0).length;
    await waitFor(() => writers.acknowledged().length >= writesPerPhase && silent() === 0, {
      timeoutMs: catchUpTimeoutMs, intervalMs: 50, description: `${writesPerPhase} creates acknowledged and an event seen by every watcher before the fault`,
      diagnostics: () => `${writers.acknowledged().length} creates acknowledged, ${silent()} watchers without an event\n${ha.diagnostics()}`,
    });
    await fault();
    healedAt = performance.now();
    await waitFor(() => writers.acknowledgedSince(healedAt) >= writesPerPhase, {
      timeoutMs: catchUpTimeoutMs, intervalMs: 50, description: `${writesPerPhase} creates sent after the fault healed to be acknowledged`,
      diagnostics: () => `${writers.acknowledgedSince(healedAt)} acknowledged\n${ha.diagnostics()}`,
    });
  } finally {
    await writers.stop();
  }
  const final = await listNamespace(namespace);
  const expected: SeenEvent[] = [...final.items]
    .sort((left, right) => Number(left.resourceVersion) - Number(right.resourceVersion))
    .map((item) => ({ type: 'ADDED', name: item.name, resourceVersion: item.resourceVersion }));
  const lastExpected = expected.at(-1)?.resourceVersion ?? start.resourceVersion;
  try {
    await waitFor(() => watchers.every((watcher) => watcher.events.length >= expected.length || watcher.errors.length > 0), {
      timeoutMs: catchUpTimeoutMs, intervalMs: 100, description: `every watcher to see ${expected.length} events up to ${lastExpected}`,
      diagnostics: () => watchers.map((watcher, position) => `watcher ${position}: ${watcher.events.length} events, last ${watcher.lastResourceVersion}, errors ${watcher.errors.join('; ')}`).join('\n'),
    });
  } finally {
    await Promise.all(watchers.map((watcher) => watcher.stop()));
  }
  // Durability: every acknowledged create is present with its acknowledged resourceVersion.
  const listed = new Map(final.items.map((item) => [item.name, item.resourceVersion]));
  const acknowledged = writers.acknowledged();
  expect(acknowledged.length).toBeGreaterThan(20);
  expect(acknowledged.filter((record) => record.sentAt >= healedAt).length).toBeGreaterThanOrEqual(writesPerPhase);
  const lost = acknowledged.filter((record) => listed.get(record.name) !== record.resourceVersion);
  expect(lost, 'acknowledged writes missing or changed').toEqual([]);
  // Watch completeness: exactly the namespace's history, once each, in order, for every watcher.
  for (const [position, watcher] of watchers.entries()) {
    expect(watcher.errors, `watcher ${position} errors`).toEqual([]);
    expect(watcher.events, `watcher ${position} events (reconnects ${watcher.reconnects})`).toEqual(expected);
  }
  const reconnects = watchers.reduce((sum, watcher) => sum + watcher.reconnects, 0);
  const failed = writers.records.length - acknowledged.length;
  const answers = acknowledged.map((record) => record.answeredAt).sort((left, right) => left - right);
  let longestGapMs = 0;
  for (let position = 1; position < answers.length; position++) longestGapMs = Math.max(longestGapMs, answers[position]! - answers[position - 1]!);
  console.log(`[ha] ${namespace}: ${acknowledged.length} creates acknowledged (${acknowledged.filter((record) => record.sentAt >= healedAt).length} sent after healing), ${failed} answered 5xx or failed, longest gap between acknowledgements ${longestGapMs.toFixed(0)} ms; `
    + `${watchers.length} watchers received ${expected.length} events each (${reconnects} reconnects); ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  return { reconnects };
}

describe('HA kstore under faults (3 nats-servers, 3 stores, 2 API replicas)', () => {
  it('kill -9 of the Raft leader and its restart lose no acknowledged write and no watch event', async () => {
    const ha = running();
    await scenario('fault-leader', async () => {
      const leader = await ha.stores.leader();
      const member = ha.stores.member(leader.id);
      await member.stop('SIGKILL');
      await ha.stores.leader(2);
      await member.start();
      // Healed means the restarted member follows the leader and applied what was committed meanwhile.
      await ha.stores.caughtUp(leader.id);
    });
  });

  it('kill -9 of an API replica: its watchers resume on the other without a gap', async () => {
    const ha = running();
    const { reconnects } = await scenario('fault-api', async () => {
      await ha.apis[0]!.stop('SIGKILL');
    });
    // Half the watchers were on the killed replica: each resumed on the other at least once.
    expect(reconnects).toBeGreaterThanOrEqual(watcherCount / 2);
    await ha.apis[0]!.start();
  });

  it('kill of the nats-server every process uses (one of three): they all move to the next and the cluster keeps serving', async () => {
    const ha = running();
    // Every store member and API replica lists the same URLs and uses the first it can reach.
    await scenario('fault-nats', async () => {
      await ha.stores.nats.server(0).stop('SIGKILL');
    });
    await ha.stores.nats.server(0).start();
    await ha.stores.nats.waitForRoutes();
  });

  it('a stop and start of the whole cluster keeps all data and resourceVersions', async () => {
    const ha = running();
    const namespace = 'fault-restart';
    await scenario(namespace, async () => {});
    const before = await listNamespace(namespace);
    await Promise.all(ha.apis.map((api) => api.stop('SIGTERM')));
    await Promise.all(ha.stores.members.map((member) => member.stop('SIGTERM')));
    for (const server of ha.stores.nats.servers) await server.stop('SIGTERM');
    for (const server of ha.stores.nats.servers) await server.start();
    await ha.stores.nats.waitForRoutes();
    await Promise.all(ha.stores.members.map((member) => member.start()));
    await ha.stores.leader();
    await Promise.all(ha.apis.map((api) => api.start()));
    const after = await listNamespace(namespace);
    expect(after.items).toEqual(before.items);
  });
});
