// The change-event stream with real `kstore store` processes (default flags: --events-replicas
// auto, --events-max-age 5m) on one nats-server: kill -9 of the Raft leader under a write load;
// the new leader publishes what the old one committed but did not publish. Every acknowledged
// write is in the stream once, at its revision, and a reader that followed across the kill saw
// contiguous batches with no gap.
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { eventStreamName, EventStreamReader } from '../../deploy/event-stream/index.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import { connectNats } from '../../raft/index.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace, revisionOf } from './fixtures.ts';
import { expectContiguous, readRawStream, Recorder, stampedNow } from './event-stream-support.ts';
import { StoreMemberProcess } from './store-process.ts';

const ids = ['p1', 'p2', 'p3'];
const cluster = 'esp';
const stream = eventStreamName(cluster, 'main');

let nats: NatsCluster;
let dir: TempDir;
let processes: StoreMemberProcess[];
let connection: NatsConnection;
let client: StoreClient;

beforeEach(() => {
  onTestFailed(() => {
    for (const member of processes) process.stderr.write(`--- ${member.id} output ---\n${member.output().slice(-4000)}\n`);
  });
});

beforeAll(async () => {
  nats = await NatsCluster.start(1);
  dir = await makeTempDir('kstore-event-stream-mp-');
  processes = ids.map((id) => new StoreMemberProcess({ id, peers: ids, natsUrls: nats.urls, dataDir: path.join(dir.path, id), cluster, tickMs: 50 }));
  await Promise.all(processes.map((member) => member.start()));
  connection = await connectNats(nats.urls, 'event-stream-process-test');
  client = new StoreClient({ connection, cluster, group: 'main', attemptTimeoutMs: 1_000, deadlineMs: 30_000 });
});

afterAll(async () => {
  client?.close();
  await connection?.close().catch(() => undefined);
  await Promise.all((processes ?? []).map((member) => member.kill()));
  await nats?.stopAll();
  await dir?.remove();
});

describe('change-event stream with kstore store processes', () => {
  it('kill -9 of the leader under load: every acknowledged write is in the stream once, contiguous, with no gap for a follower', async () => {
    expect((await client.propose(stampedNow(createNamespace()))).type).toBe('stored');
    const reader = await EventStreamReader.open({ connection, cluster, group: 'main' });
    const recorder = new Recorder(0);
    const handle = reader.follow(0, recorder.onBatch, recorder.onGap);
    try {
      const acknowledged = new Map<string, number>();
      let stop = false;
      const writers = Array.from({ length: 8 }, async (_, writer) => {
        for (let sequence = 0; !stop; sequence++) {
          const name = `w${writer}-${sequence}`;
          try {
            acknowledged.set(name, revisionOf(await client.propose(stampedNow(createConfigMap(name, 200)))));
          } catch {
            // A call that met its deadline: its fate is unknown; only acknowledged ones are checked.
          }
        }
      });
      await waitFor(() => acknowledged.size >= 100, { timeoutMs: 20_000, description: 'writes before the kill' });
      const statuses = await waitFor(async () => {
        const answered = await client.clusterStatus();
        return answered.filter((status) => status.role === 'leader').length === 1 ? answered : undefined;
      }, { timeoutMs: 15_000, description: 'one leader' });
      const leaderId = statuses.find((status) => status.role === 'leader')!.id;
      const victim = processes.find((member) => member.id === leaderId)!;
      await victim.kill();
      const killedAt = acknowledged.size;
      await waitFor(() => acknowledged.size >= killedAt + 200, { timeoutMs: 30_000, description: 'writes after the kill' });
      stop = true;
      await Promise.all(writers);
      const highest = Math.max(...acknowledged.values());
      await waitFor(async () => (await reader.lastThrough()) >= highest, { timeoutMs: 20_000, description: `the stream to reach ${highest}` });
      await waitFor(() => recorder.through >= highest, { timeoutMs: 20_000, description: `the follower to reach ${highest}` });
      expect(recorder.gap).toBeUndefined();
      expect(recorder.problems).toEqual([]);
      const raw = await readRawStream(connection, stream);
      const streamIds = expectContiguous(raw);
      const added = new Map(raw.flatMap(({ batch }) => batch.events.filter((event) => event.type === 'ADDED' && event.key.resource === 'configmaps')
        .map((event) => [event.key.name, event.revision] as const)));
      for (const [name, revision] of acknowledged) expect(added.get(name), name).toBe(revision);
      expect(recorder.events.map((event) => event.revision)).toEqual(raw.flatMap(({ batch }) => batch.events.map((event) => event.revision)).filter((revision) => revision <= recorder.through));
      console.log(`event stream, processes: leader ${leaderId} killed after ${killedAt} writes; ${acknowledged.size} acknowledged writes, `
        + `${streamIds.length} events in ${raw.length} messages, none missing or repeated`);
      await victim.start();
    } finally {
      await handle.stop();
    }
  });
});
