// Raft over NATS, multi-process: three `kstore store` processes on a real 3-node nats-server
// cluster (free ports), driven by deploy/store-client.ts. Concurrent writes reach the same
// applied index on every member; kill -9 of the leader elects a new one while writes continue
// through the client (the failover time is printed); the killed member restarts and catches
// up; a paused (SIGSTOP) follower does not stop writes and catches up when resumed; killing
// one nats-server does not stop writes; a leader stopped with SIGTERM hands leadership over;
// after a full restart every acknowledged write is there.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CommandResult } from '../../actors/index.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import { connectNats } from '../../raft/index.ts';
import type { MemberStatus } from '../../raft/index.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace, revisionOf, runConcurrently } from './fixtures.ts';
import { StoreMemberProcess } from './store-process.ts';

const ids = ['s1', 's2', 's3'] as const;
const cluster = 'mp';
/** 50 ms ticks: elections after 0.5–1 s, heartbeats every 50 ms. */
const tickMs = 50;

let nats: NatsCluster;
let dir: TempDir;
let processes: StoreMemberProcess[] = [];
let connection: NatsConnection;
let client: StoreClient;

function processOf(id: string): StoreMemberProcess {
  const found = processes.find((member) => member.id === id);
  if (found === undefined) throw new Error(`no member ${id}`);
  return found;
}

async function statuses(expected: number): Promise<MemberStatus[]> {
  return waitFor(async () => {
    const answered = await client.clusterStatus(300);
    return answered.length === expected ? answered : undefined;
  }, { timeoutMs: 15_000, description: `status from ${expected} members` });
}

async function leader(expectedMembers: number): Promise<MemberStatus> {
  return waitFor(async () => {
    const answered = await client.clusterStatus(300);
    const leaders = answered.filter((status) => status.role === 'leader');
    return answered.length === expectedMembers && leaders.length === 1 ? leaders[0] : undefined;
  }, { timeoutMs: 20_000, description: 'one leader among the members' });
}

/** Every running member reports the same applied index (at least `atLeast`). */
async function converged(atLeast: number): Promise<number> {
  const running = processes.filter((member) => member.running).length;
  return waitFor(async () => {
    const answered = await client.clusterStatus(300);
    if (answered.length !== running) return undefined;
    const applied = answered.map((status) => status.appliedIndex);
    return applied.every((index) => index === applied[0]) && (applied[0] ?? 0) >= atLeast ? applied[0] : undefined;
  }, { timeoutMs: 30_000, description: `every member to apply the same index >= ${atLeast}` });
}

beforeEach(() => {
  onTestFailed(() => {
    for (const member of processes) process.stderr.write(`--- ${member.id} output ---\n${member.output().slice(-4000)}\n`);
  });
});

beforeAll(async () => {
  nats = await NatsCluster.start(3);
  dir = await makeTempDir('kstore-raft-mp-');
  processes = ids.map((id) => new StoreMemberProcess({
    id, peers: ids, natsUrls: nats.urls, dataDir: path.join(dir.path, id), cluster, tickMs,
  }));
  await Promise.all(processes.map((member) => member.start()));
  connection = await connectNats(nats.urls, 'raft-nats-process-test');
  client = new StoreClient({ connection, cluster, group: 'main', attemptTimeoutMs: 1_000, deadlineMs: 30_000 });
});

afterAll(async () => {
  client?.close();
  await connection?.close().catch(() => undefined);
  for (const member of processes) member.signal('SIGCONT');
  await Promise.all(processes.map((member) => member.kill()));
  await nats?.stopAll();
  await dir?.remove();
});

describe('raft over NATS - 3 kstore store processes on a 3-node nats-server cluster', () => {
  it('takes concurrent writes (c=16) and every member applies the same index', async () => {
    await leader(3);
    expect((await client.propose(createNamespace())).type).toBe('stored');
    const count = 300;
    const started = performance.now();
    const results = await runConcurrently(count, 16, (position) => client.propose(createConfigMap(`cm-${position}`, 700)));
    const seconds = (performance.now() - started) / 1000;
    const revisions = results.map(revisionOf);
    expect(new Set(revisions).size).toBe(count);
    await converged(Math.max(...revisions));
    console.log(`raft-nats 3 processes: ${count} proposals (700 B) at c=16 in ${seconds.toFixed(2)} s = ${(count / seconds).toFixed(0)} proposals/s`);
  });

  it('elects a new leader after kill -9 of the leader while writes continue; the killed member restarts and catches up', async () => {
    const oldLeader = await leader(3);
    let stop = false;
    let written = 0;
    const acknowledged: CommandResult[] = [];
    const writers = runConcurrently(4, 4, async (writer) => {
      for (let sequence = 0; !stop; sequence++) {
        acknowledged.push(await client.propose(createConfigMap(`failover-${writer}-${sequence}`)));
        written += 1;
      }
    });
    await waitFor(() => written >= 20, { timeoutMs: 10_000, description: 'writes before the kill' });
    const killedAt = performance.now();
    const beforeKill = written;
    await processOf(oldLeader.id).stop('SIGKILL');
    await waitFor(() => written > beforeKill + 4, { timeoutMs: 20_000, description: 'writes after the leader was killed' });
    const failoverMs = performance.now() - killedAt;
    const newLeader = await leader(2);
    expect(newLeader.id).not.toBe(oldLeader.id);
    expect(newLeader.term).toBeGreaterThan(oldLeader.term);

    await processOf(oldLeader.id).start();
    await waitFor(() => written > beforeKill + 40, { timeoutMs: 20_000, description: 'writes after the restart' });
    stop = true;
    await writers;
    expect(acknowledged.every((result) => result.type === 'stored')).toBe(true);
    expect(new Set(acknowledged.map(revisionOf)).size).toBe(acknowledged.length);
    await converged(Math.max(...acknowledged.map(revisionOf)));
    console.log(`raft-nats 3 processes (tick ${tickMs} ms): kill -9 of leader ${oldLeader.id} to writes flowing again: ${failoverMs.toFixed(0)} ms (new leader ${newLeader.id})`);
  });

  it('keeps taking writes while a follower is paused (SIGSTOP); it catches up after SIGCONT', async () => {
    const current = await leader(3);
    const follower = processes.find((member) => member.id !== current.id);
    if (follower === undefined) throw new Error('a follower exists');
    follower.signal('SIGSTOP');
    try {
      const during = await runConcurrently(60, 8, (position) => client.propose(createConfigMap(`paused-${position}`)));
      expect(during.every((result) => result.type === 'stored')).toBe(true);
    } finally {
      follower.signal('SIGCONT');
    }
    const after = await client.propose(createConfigMap('resumed'));
    await converged(revisionOf(after));
  });

  it('keeps taking writes when one nats-server is killed', async () => {
    await statuses(3);
    await nats.server(1).kill();
    const results = await runConcurrently(60, 8, (position) => client.propose(createConfigMap(`nats-killed-${position}`)));
    expect(results.every((result) => result.type === 'stored')).toBe(true);
    await nats.server(1).start();
    await nats.waitForRoutes();
    const last = await client.propose(createConfigMap('nats-restored'));
    await converged(revisionOf(last));
  });

  it('hands leadership to a peer when the leader is stopped with SIGTERM; writes continue', async () => {
    const current = await leader(3);
    const stopping = processOf(current.id);
    const stoppedAt = performance.now();
    await stopping.stop('SIGTERM');
    expect(stopping.output()).toMatch(/leadership handed off/);
    const result = await client.propose(createConfigMap('after-hand-off'));
    const resumedMs = performance.now() - stoppedAt;
    const next = await leader(2);
    expect(next.id).not.toBe(current.id);
    console.log(`raft-nats 3 processes: SIGTERM of leader ${current.id} (hand-off to ${next.id}) to the next write: ${resumedMs.toFixed(0)} ms`);
    await stopping.start();
    await converged(revisionOf(result));
  });

  it('has every acknowledged write after a full restart of all members', async () => {
    const written = await runConcurrently(50, 10, (position) => client.propose(createConfigMap(`durable-${position}`)));
    const last = Math.max(...written.map(revisionOf));
    await Promise.all(processes.map((member) => member.stop('SIGTERM')));
    await Promise.all(processes.map((member) => member.start()));
    await leader(3);
    await converged(last);
    // Creating an acknowledged object again must find it: it survived the restart.
    const again = await runConcurrently(50, 10, (position) => client.propose(createConfigMap(`durable-${position}`)));
    expect(again.map((result) => result.type)).toEqual(new Array(50).fill('alreadyExists'));
    expect((await client.propose(createConfigMap('cm-0'))).type).toBe('alreadyExists');
  });
});
