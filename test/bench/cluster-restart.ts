// Owns: bench:scale's restart step for `kstore cluster up`: stops one member with a signal,
// starts it again the way a user does (`kstore cluster up` on the partly running cluster, which
// starts only the dead members), and times how long the member takes to be of use again:
// - a store member: until its applied index reaches the commit index the cluster had when it was
//   stopped (it replayed its snapshot and WAL and fetched what it missed from the leader);
// - an API replica: until its /readyz answers 200 (it loaded its copy of every object).
// Times are from the restarted process's own start (its start time in /proc, 10 ms resolution),
// which leaves out the `kstore cluster up` command's own start-up; that command's whole time is
// reported beside them. When the leader is the one stopped, also the time from the kill to the
// first create acknowledged through an API replica (a new leader elected and serving).
// Linux only (/proc); the cluster's processes are found from its cluster.json.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { storeSubjects } from '../../raft/node/index.ts';
import type { MemberStatus } from '../../raft/node/index.ts';
import { httpsRequest } from '../support/kube-client.ts';
import type { KubeconfigCredentials } from '../support/kube-client.ts';
import { waitFor } from '../support/wait-for.ts';
import type { BenchClient } from './https-client.ts';
import { runKstore } from './kstore-commands.ts';
import { now } from './load.ts';
import { childrenOf, processAgeMs, processCpuMs, processRunning, waitForQuietMachine } from './proc-cpu.ts';

/** The parts of the cluster.json `kstore cluster up` writes that this step reads. */
interface ClusterFile {
  readonly cluster: string;
  readonly group: string;
  readonly natsUrls: readonly string[];
  /** `pid`: the store's `kstore supervise` (which starts the store process as its child). */
  readonly stores: readonly { readonly id: string; readonly pid?: number }[];
  readonly apis: readonly { readonly name: string; readonly url: string; readonly pid?: number }[];
}

export type RestartCase = 'follower after SIGTERM' | 'follower after SIGKILL' | 'leader after SIGKILL' | 'API replica after SIGKILL';

export interface MemberRestart {
  readonly member: string;
  readonly quietBeforeStop: boolean;
  /** From the signal until the process (and a store's supervisor) is gone. */
  readonly stopMs: number;
  /** The whole `kstore cluster up` that started it again (its own start-up included). */
  readonly upCommandMs: number;
  /** From the restarted process's start: a store caught up, an API replica's /readyz 200. */
  readonly readyMs: number;
  /** A store: the applied index it had to reach. */
  readonly targetIndex?: number;
  /** The leader's case: from the kill to the first create acknowledged through an API replica. */
  readonly writableAfterMs?: number;
  /** The restarted process's CPU (all threads) by the time it was ready, and its RSS then. */
  readonly cpuMs: number;
  readonly rssMiB: number;
}

const stopDeadlineMs = 30_000;
const readyDeadlineMs = 180_000;
const pollIntervalMs = 25;
const statusTimeoutMs = 1_000;

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

async function readClusterFile(dataDir: string): Promise<ClusterFile> {
  return JSON.parse(await readFile(path.join(dataDir, 'cluster.json'), 'utf8')) as ClusterFile;
}

async function rssMiB(pid: number): Promise<number> {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
  return match === null ? Number.NaN : round(Number(match[1]) / 1024);
}

/** Every store member's status (undefined for one that does not answer), over one connection. */
async function statuses(connection: NatsConnection, file: ClusterFile): Promise<Map<string, MemberStatus | undefined>> {
  const subjects = storeSubjects(file.cluster, file.group);
  const answers = await Promise.all(file.stores.map(async (store) => {
    try {
      const reply = await connection.request(subjects.statusOf(store.id), '', { timeout: statusTimeoutMs });
      return JSON.parse(reply.string()) as MemberStatus;
    } catch {
      return undefined;
    }
  }));
  return new Map(file.stores.map((store, index) => [store.id, answers[index]]));
}

/** The store process a supervisor runs (its child), once there is one. */
async function storeProcess(supervisorPid: number): Promise<number> {
  return waitFor(async () => (await childrenOf(supervisorPid))[0] ?? false, { timeoutMs: stopDeadlineMs, intervalMs: pollIntervalMs, description: `the store process under supervisor ${supervisorPid}` });
}

async function waitGone(pids: readonly number[]): Promise<void> {
  await waitFor(() => pids.every((pid) => !processRunning(pid)), { timeoutMs: stopDeadlineMs, intervalMs: 10, description: `pids ${pids.join(', ')} to exit` });
}

/** `kstore cluster up` on the cluster in `dataDir`, which starts the dead members again; its wall time. */
async function repair(dataDir: string, env: Readonly<Record<string, string>>): Promise<number> {
  const started = now();
  const up = await runKstore(['cluster', 'up', '--data-dir', dataDir], env);
  if (up.code !== 0) throw new Error(`kstore cluster up (repair) failed (exit ${String(up.code)}):\n${up.output.slice(-4000)}`);
  return now() - started;
}

/** Creates ConfigMaps through `client` until one is acknowledged; the time since `since`. */
async function firstAcknowledgedCreate(client: BenchClient, since: number): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const name = `restart-probe-${String(Date.now())}-${String(attempt)}`;
    const response = await client.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }).catch(() => undefined);
    if (response?.status === 201) return now() - since;
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
    if (now() - since > readyDeadlineMs) throw new Error(`no create acknowledged ${readyDeadlineMs} ms after the leader's kill; last HTTP ${String(response?.status)}`);
  }
}

async function restartStore(dataDir: string, env: Readonly<Record<string, string>>, which: 'follower' | 'leader', signal: 'SIGTERM' | 'SIGKILL', probe: BenchClient): Promise<MemberRestart> {
  const file = await readClusterFile(dataDir);
  const connection = await connect({ servers: [...file.natsUrls], timeout: 5_000 });
  try {
    const before = await statuses(connection, file);
    const leaderId = [...before.values()].find((status) => status?.role === 'leader')?.id;
    if (leaderId === undefined) throw new Error(`no leader among ${[...before.keys()].join(', ')}`);
    const store = file.stores.find((entry) => (which === 'leader' ? entry.id === leaderId : entry.id !== leaderId && before.get(entry.id) !== undefined));
    if (store?.pid === undefined) throw new Error(`no ${which} store with a pid in cluster.json`);
    const supervisorPid = store.pid;
    const quiet = await waitForQuietMachine();
    const targetBefore = Math.max(...[...before.values()].map((status) => status?.commitIndex ?? 0));
    const storePid = await storeProcess(supervisorPid);
    const stopped = now();
    // SIGTERM goes to the supervisor, which passes it on (a user's `kill`); SIGKILL to the store
    // process itself (a crash), after which its supervisor exits without restarting it.
    process.kill(signal === 'SIGTERM' ? supervisorPid : storePid, signal);
    const writable = which === 'leader' ? firstAcknowledgedCreate(probe, stopped) : undefined;
    await waitGone([storePid, supervisorPid]);
    const stopMs = now() - stopped;
    const writableAfterMs = await writable;
    // What it must reach: the commit index when it stopped, or after the probe's create.
    const targetIndex = Math.max(targetBefore, ...[...(await statuses(connection, file)).values()].map((status) => (status?.role === 'leader' ? status.commitIndex : 0)));
    const upCommandMs = await repair(dataDir, env);
    const restartedSupervisor = (await readClusterFile(dataDir)).stores.find((entry) => entry.id === store.id)?.pid;
    if (restartedSupervisor === undefined) throw new Error(`cluster.json has no pid for store ${store.id} after the repair`);
    const restartedPid = await storeProcess(restartedSupervisor);
    const readyMs = await waitFor(async () => {
      const status = (await statuses(connection, file)).get(store.id);
      if (status === undefined || status.appliedIndex < targetIndex) return false;
      return processAgeMs(restartedPid);
    }, { timeoutMs: readyDeadlineMs, intervalMs: pollIntervalMs, description: `store ${store.id} to apply index ${targetIndex}` });
    const cpu = await processCpuMs(restartedPid);
    return {
      member: store.id, quietBeforeStop: quiet.quiet, stopMs: round(stopMs), upCommandMs: round(upCommandMs), readyMs: round(readyMs), targetIndex,
      ...(writableAfterMs === undefined ? {} : { writableAfterMs: round(writableAfterMs) }),
      cpuMs: round(cpu.user + cpu.system), rssMiB: await rssMiB(restartedPid),
    };
  } finally {
    await connection.close();
  }
}

async function restartApi(dataDir: string, env: Readonly<Record<string, string>>, credentials: KubeconfigCredentials): Promise<MemberRestart> {
  const api = (await readClusterFile(dataDir)).apis[0];
  if (api?.pid === undefined) throw new Error('cluster.json has no API replica with a pid');
  const quiet = await waitForQuietMachine();
  const stopped = now();
  process.kill(api.pid, 'SIGKILL');
  await waitGone([api.pid]);
  const stopMs = now() - stopped;
  const upCommandMs = await repair(dataDir, env);
  const restartedPid = (await readClusterFile(dataDir)).apis.find((entry) => entry.name === api.name)?.pid;
  if (restartedPid === undefined) throw new Error(`cluster.json has no pid for API replica ${api.name} after the repair`);
  const readyMs = await waitFor(async () => {
    const response = await httpsRequest(api.url, credentials, { path: '/readyz', timeoutMs: 5_000 }).catch(() => undefined);
    return response?.status === 200 ? processAgeMs(restartedPid) : false;
  }, { timeoutMs: readyDeadlineMs, intervalMs: pollIntervalMs, description: `API replica ${api.name}'s /readyz 200` });
  const cpu = await processCpuMs(restartedPid);
  return { member: api.name, quietBeforeStop: quiet.quiet, stopMs: round(stopMs), upCommandMs: round(upCommandMs), readyMs: round(readyMs), cpuMs: round(cpu.user + cpu.system), rssMiB: await rssMiB(restartedPid) };
}

/**
 * Restarts, one after another, a follower store (SIGTERM, then SIGKILL), the leader store
 * (SIGKILL) and the first API replica (SIGKILL) of the cluster in `dataDir`. `env` is what the
 * repairing `kstore cluster up` adds to the environment (the bench's inspector flag, so that the
 * restarted members can be measured like the first ones); `probe` is a client of an API replica
 * other than the first, for the writes after the leader's kill.
 */
export async function restartClusterMembers(
  dataDir: string, env: Readonly<Record<string, string>>, credentials: KubeconfigCredentials, probe: BenchClient, progress: (message: string) => void,
): Promise<Record<RestartCase, MemberRestart>> {
  const followerSigterm = await restartStore(dataDir, env, 'follower', 'SIGTERM', probe);
  progress(`follower after SIGTERM: ${JSON.stringify(followerSigterm)}`);
  const followerSigkill = await restartStore(dataDir, env, 'follower', 'SIGKILL', probe);
  progress(`follower after SIGKILL: ${JSON.stringify(followerSigkill)}`);
  const leaderSigkill = await restartStore(dataDir, env, 'leader', 'SIGKILL', probe);
  progress(`leader after SIGKILL: ${JSON.stringify(leaderSigkill)}`);
  const apiSigkill = await restartApi(dataDir, env, credentials);
  progress(`API replica after SIGKILL: ${JSON.stringify(apiSigkill)}`);
  return { 'follower after SIGTERM': followerSigterm, 'follower after SIGKILL': followerSigkill, 'leader after SIGKILL': leaderSigkill, 'API replica after SIGKILL': apiSigkill };
}
