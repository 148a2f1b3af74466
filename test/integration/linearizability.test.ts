// Linearizability of writes and ReadIndex reads over NATS, under a leader crash and restart:
// three in-process store members on a 3-node nats-server cluster, concurrent clients writing
// (update) and reading (ReadIndex, then read from any member once it applied that index — how
// the API tier serves "Most Recent" reads) a handful of ConfigMaps as registers. The recorded
// history is checked with the Porcupine-style checker of the simulator
// (test/sim/checkers/linearizability.ts). A write that met its deadline is pending: it may or
// may not have been applied.
//
// The run's phases follow conditions, not wall-clock slots: the leader is stopped once operations
// were acknowledged, reopened once a new leader was elected and operations were acknowledged
// without it, and the run ends once the reopened member caught up (follows the leader, applied
// what was committed when it reopened) and operations were acknowledged after that. Each is a
// waitFor with a deadline whose failure says what was not reached.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Command, KubeObject } from '../../actors/index.ts';
import { openNatsStore } from '../../deploy/roles/store.ts';
import type { NatsStore } from '../../deploy/roles/store.ts';
import { isStoreDeadline, StoreClient } from '../../deploy/store-client.ts';
import { connectNats } from '../../raft/index.ts';
import type { RaftStatus } from '../../raft/index.ts';
import { checkKvLinearizability } from '../sim/checkers/linearizability.ts';
import type { KvOperation } from '../sim/checkers/linearizability.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { configMapKey, createNamespace, namespace, t0 } from './fixtures.ts';

const memberIds = ['a', 'b', 'c'];
const keys = ['r0', 'r1', 'r2', 'r3'];
const workers = 8;
/** Operations acknowledged in each phase: before the crash, while the old leader is down, after it caught up. */
const phaseOperations = 400;
/** Each phase's deadline (a phase takes well under a second on a quiet machine). */
const phaseTimeoutMs = 30_000;
/** The history must hold more than this many acknowledged puts and as many gets. */
const minimumAcknowledged = 50;

let nats: NatsCluster;
let dir: TempDir;
const members = new Map<string, NatsStore>();
let connection: NatsConnection;
let client: StoreClient;

function register(name: string, value: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, uid: `uid-${name}`, creationTimestamp: t0 }, data: { value } };
}

async function openMember(id: string): Promise<void> {
  members.set(id, await openNatsStore({
    id, peers: memberIds, natsServers: nats.urls, dataDir: path.join(dir.path, id), cluster: 'lin', group: 'main', tickIntervalMs: 20,
  }));
}

beforeAll(async () => {
  nats = await NatsCluster.start(3);
  dir = await makeTempDir('kstore-lin-');
  for (const id of memberIds) await openMember(id);
  connection = await connectNats(nats.urls, 'linearizability-test');
  client = new StoreClient({ connection, cluster: 'lin', group: 'main', attemptTimeoutMs: 500, deadlineMs: 8_000 });
});

afterAll(async () => {
  client?.close();
  await connection?.close().catch(() => undefined);
  await Promise.all([...members.values()].map((store) => store.close().catch(() => undefined)));
  await nats?.stopAll();
  await dir?.remove();
});

/** A linearizable read of `key`: ReadIndex at the leader, then any open member once it applied it. */
async function read(key: string, pick: number): Promise<string | undefined> {
  const index = await client.readIndex();
  const open = [...members.values()];
  const store = open[pick % open.length];
  if (store === undefined) return undefined;
  try {
    await waitFor(() => store.state.appliedIndex() >= index, { timeoutMs: 5_000, intervalMs: 2, description: `a member to apply ${index}` });
  } catch {
    return undefined;
  }
  const object = store.state.get(configMapKey(key));
  const data = object?.data as Record<string, string> | undefined;
  return data?.value ?? '';
}

describe('raft over NATS - linearizability under a leader crash (R=3, 3 nats-servers)', () => {
  it('records a history of concurrent writes and ReadIndex reads that is linearizable', async () => {
    expect((await client.propose(createNamespace())).type).toBe('stored');
    for (const key of keys) {
      const create: Command = { type: 'create', key: configMapKey(key), object: register(key, ''), at: t0 };
      expect((await client.propose(create)).type).toBe('stored');
    }
    const history: KvOperation[] = [];
    let nextId = 0;
    const started = performance.now();
    let stopped = false;
    let crashed: string | undefined;
    let acknowledgedAfterCatchUp = 0;
    const statuses = (): RaftStatus[] => [...members.values()].map((store) => store.node.status());
    const acknowledgedSince = (since: number): number => history.filter((operation) => operation.return !== undefined && operation.call >= since).length;
    const phase = (since: number, what: string): Promise<unknown> => waitFor(() => acknowledgedSince(since) >= phaseOperations, {
      timeoutMs: phaseTimeoutMs, intervalMs: 10, description: `${phaseOperations} operations acknowledged ${what}`,
      diagnostics: () => `${acknowledgedSince(since)} acknowledged; members ${JSON.stringify(statuses())}`,
    });
    const agreedLeader = (): Promise<RaftStatus> => waitFor(() => {
      const current = statuses();
      const leaders = current.filter((status) => status.role === 'leader');
      const leader = leaders[0];
      return leaders.length === 1 && leader !== undefined && current.every((status) => status.term === leader.term && status.leaderId === leader.id) ? leader : undefined;
    }, { timeoutMs: phaseTimeoutMs, intervalMs: 10, description: 'one leader agreed on by every open member', diagnostics: () => JSON.stringify(statuses()) });
    const faults = (async () => {
      try {
        await phase(performance.now(), 'before the crash');
        const old = await agreedLeader();
        crashed = old.id;
        await members.get(old.id)?.close();
        members.delete(old.id);
        const next = await agreedLeader();
        expect(next.id).not.toBe(old.id);
        await phase(performance.now(), `under leader ${next.id} while ${old.id} is closed`);
        const target = Math.max(...statuses().map((status) => status.commitIndex));
        await openMember(old.id);
        const reopened = members.get(old.id)!;
        await waitFor(() => {
          const status = reopened.node.status();
          return status.appliedIndex >= target && status.role !== 'candidate' && status.leaderId !== undefined;
        }, { timeoutMs: phaseTimeoutMs, intervalMs: 10, description: `reopened member ${old.id} to follow a leader and apply ${target}`, diagnostics: () => JSON.stringify(reopened.node.status()) });
        await agreedLeader();
        const caughtUpAt = performance.now();
        await phase(caughtUpAt, `after ${old.id} reopened and caught up`);
        acknowledgedAfterCatchUp = acknowledgedSince(caughtUpAt);
        const acknowledgedOf = (kind: 'put' | 'get'): number => history.filter((operation) => operation.input.kind === kind && operation.return !== undefined).length;
        await waitFor(() => acknowledgedOf('put') > minimumAcknowledged && acknowledgedOf('get') > minimumAcknowledged, {
          timeoutMs: phaseTimeoutMs, intervalMs: 10, description: `more than ${minimumAcknowledged} acknowledged puts and as many gets`,
          diagnostics: () => `${acknowledgedOf('put')} puts, ${acknowledgedOf('get')} gets`,
        });
      } finally {
        stopped = true;
      }
    })();
    const worker = async (workerId: number): Promise<void> => {
      for (let sequence = 0; !stopped; sequence++) {
        // Each register is written and then read back by the same worker (from any member), so
        // a stale read — a member serving before it applied the write — shows up as a violation.
        const key = keys[(workerId + Math.floor(sequence / 2)) % keys.length] ?? 'r0';
        const id = nextId++;
        const call = performance.now();
        if (sequence % 2 === 0) {
          const value = `w${workerId}-${sequence}`;
          try {
            const result = await client.propose({ type: 'update', key: configMapKey(key), object: register(key, value), at: t0 });
            expect(result.type).toBe('stored');
            history.push({ id, clientId: `w${workerId}`, input: { kind: 'put', key, value }, output: undefined, call, return: performance.now() });
          } catch (error) {
            if (!isStoreDeadline(error)) throw error;
            history.push({ id, clientId: `w${workerId}`, input: { kind: 'put', key, value }, output: undefined, call, return: undefined });
          }
        } else {
          const value = await read(key, workerId + sequence).catch((error: unknown) => {
            if (isStoreDeadline(error)) return undefined;
            throw error;
          });
          // A read that got no answer had no effect: it is left out of the history.
          if (value !== undefined) history.push({ id, clientId: `w${workerId}`, input: { kind: 'get', key }, output: value, call, return: performance.now() });
        }
      }
    };
    await Promise.all([faults, ...Array.from({ length: workers }, (_, workerId) => worker(workerId))]);
    expect(crashed).toBeDefined();
    expect(acknowledgedAfterCatchUp).toBeGreaterThanOrEqual(phaseOperations);
    const puts = history.filter((operation) => operation.input.kind === 'put' && operation.return !== undefined).length;
    const gets = history.filter((operation) => operation.input.kind === 'get').length;
    expect(puts).toBeGreaterThan(minimumAcknowledged);
    expect(gets).toBeGreaterThan(minimumAcknowledged);
    const result = checkKvLinearizability(history);
    console.log(`linearizability over NATS: ${history.length} operations (${puts} puts, ${gets} gets; ${acknowledgedAfterCatchUp} after the restarted member caught up) `
      + `with leader ${crashed ?? '?'} crashed and restarted, ${((performance.now() - started) / 1000).toFixed(1)} s: ${result.outcome}`);
    expect(result.outcome).toBe('linearizable');
  });
});
