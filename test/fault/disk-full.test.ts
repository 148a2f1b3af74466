// Full disks under a Raft store: three `kstore store` processes, each with its data dir on its
// own small tmpfs, while writes go on.
//  - The leader's disk fills: the leader must fail-stop — exit with storeFailedExitCode, never
//    answering as leader again — the other two elect a leader and take writes; once space is
//    freed the member restarts from its data dir and catches up.
//  - A follower's disk fills: the follower fail-stops the same way, the leader keeps its
//    leadership (same member, same term) and writes go on; once space is freed it restarts and
//    catches up.
//  - Every disk fills: writes go on until at most one member is left (a write or two may still
//    fit in the partly written last page of a log file); every member that exited did so with
//    storeFailedExitCode, no member answers as leader, and a write fails by its deadline instead
//    of hanging; once space is freed the exited members restart, elect a leader and take writes.
// In each case: no member ever claimed a role while failed or after it failed, no term had two
// leaders, and at the end there is exactly one leader, no member reports a failure, every
// acknowledged write is readable, and the change-event stream
// the members published to JetStream is complete and in order (test/fault/event-stream-check.ts).
// Mounting needs root (CI runs as root here); elsewhere the tests are skipped.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storeFailedExitCode } from '../../deploy/roles/store.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import type { MemberStatus } from '../../raft/index.ts';
import { waitFor } from '../support/wait-for.ts';
import { configMapKey, createNamespaceCommand, createRegisterCommand, readCommand } from './configmap-register.ts';
import { checkEventStream } from './event-stream-check.ts';
import type { AcknowledgedWrite } from './event-stream-check.ts';
import { canMountSmallDisks, fillDisk, SmallDisks } from './small-disk.ts';
import { StoreCluster } from './store-cluster.ts';
import type { StoreProcess } from './store-cluster.ts';

const diskBytes = 48 * 1024 * 1024;
const fillerName = 'filler';
/** A write gives up after this (the failure cases must not hang on a store that cannot commit). */
const writeDeadlineMs = 4_000;
/** A member whose disk filled exits within this once it has to write (a few writes, a 5 s stop grace at worst). */
const failStopTimeoutMs = 30_000;
const statusGatherMs = 300;
/** Pause between two status polls of the background watch (answers are gathered for statusGatherMs). */
const statusPollMs = 50;

const mountable = await canMountSmallDisks();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** Starts a store cluster whose members' data dirs are small tmpfs disks; afterEach removes it all. */
async function startOnSmallDisks(name: string): Promise<StoreCluster> {
  const disks = await SmallDisks.create(`kstore-${name}-disks-`);
  const dataRoots = new Set<string>();
  cleanups.push(async () => {
    await disks.cleanup();
    // The cluster's own cleanup could not remove the mount points; remove its temp dir now.
    for (const root of dataRoots) await rm(root, { recursive: true, force: true }).catch(() => undefined);
  });
  const cluster = await StoreCluster.start({
    cluster: name, natsUrls: 'all',
    prepareDataDir: async (dataDir) => {
      dataRoots.add(path.dirname(dataDir));
      await disks.mountAt(dataDir, diskBytes);
    },
    // No reserve: these tests are about the disk actually filling (the space alarm would stop writes first).
    storeArgs: ['--storage-reserve-bytes', '0'],
  });
  // Runs before the unmounting above (cleanups run in reverse).
  cleanups.push(() => cluster.close());
  return cluster;
}

/** Creates registers k0, k1, … one at a time, each bounded by writeDeadlineMs; keeps the acknowledged ones. */
class RegisterWriter {
  readonly acknowledged: AcknowledgedWrite[] = [];
  readonly acknowledgedNames: string[] = [];
  readonly #client: StoreClient;
  #next = 0;

  constructor(client: StoreClient) {
    this.#client = client;
  }

  /** One write; true if the store acknowledged it. */
  async write(): Promise<boolean> {
    const name = `k${this.#next++}`;
    const result = await this.#client.propose(createRegisterCommand(name)).catch(() => undefined);
    if (result?.type !== 'stored') return false;
    this.acknowledged.push({ key: configMapKey(name), revision: result.revision });
    this.acknowledgedNames.push(name);
    return true;
  }
}

/** A writer whose every call ends within writeDeadlineMs, over its own NATS connection. */
async function boundedWriter(stores: StoreCluster): Promise<RegisterWriter> {
  const connection = await stores.connect(`kstore-fault-writer-${stores.options.cluster}`);
  const client = new StoreClient({ connection, cluster: stores.options.cluster, group: 'main', attemptTimeoutMs: 1_000, deadlineMs: writeDeadlineMs });
  cleanups.push(async () => {
    client.close();
    await connection.close();
  });
  return new RegisterWriter(client);
}

/**
 * Polls the members' statuses in the background (until stop(), before any member is restarted)
 * and records every answer that breaks the fail-stop contract: a member reporting a failure yet
 * a role or a leader, a member answering with a role after it reported a failure, or two
 * different leaders in one term.
 */
class StatusWatch {
  readonly violations: string[] = [];
  readonly #leadersByTerm = new Map<number, string>();
  readonly #failed = new Set<string>();
  #answers = 0;
  #stopped = false;
  readonly #loop: Promise<void>;

  constructor(stores: StoreCluster) {
    cleanups.push(async () => {
      await this.stop();
    });
    this.#loop = (async () => {
      while (!this.#stopped) {
        const statuses = await stores.admin.clusterStatus(statusGatherMs).catch(() => []);
        for (const status of statuses) this.#observe(status);
        // Paced: with no member up, a status request fails at once.
        await new Promise((resolve) => setTimeout(resolve, statusPollMs));
      }
    })();
  }

  #observe(status: MemberStatus): void {
    this.#answers += 1;
    if (status.failure !== undefined && (status.role !== 'failed' || status.leaderId !== undefined)) {
      this.violations.push(`${status.id} reports failure "${status.failure}" with role ${status.role}, leader ${String(status.leaderId)}`);
    }
    if (status.failure !== undefined) this.#failed.add(status.id);
    else if (this.#failed.has(status.id)) this.violations.push(`${status.id} answers as ${status.role} (term ${status.term}) after it reported a failure`);
    if (status.role !== 'leader') return;
    const known = this.#leadersByTerm.get(status.term);
    if (known === undefined) this.#leadersByTerm.set(status.term, status.id);
    else if (known !== status.id) this.violations.push(`${known} and ${status.id} both lead term ${status.term}`);
  }

  /** Stops polling; returns how many answers were checked. */
  async stop(): Promise<number> {
    this.#stopped = true;
    await this.#loop;
    return this.#answers;
  }
}

/** Writes on until `done()` holds (a write between checks keeps the log growing). */
async function writeUntil(writer: RegisterWriter, done: () => boolean, description: string, stores: StoreCluster, timeoutMs = failStopTimeoutMs): Promise<void> {
  await waitFor(async () => {
    if (done()) return true;
    await writer.write();
    return done();
  }, { timeoutMs, intervalMs: 10, description, diagnostics: () => stores.diagnostics() });
}

function expectFailStopped(member: StoreProcess): void {
  expect(member.running, `${member.id} has exited`).toBe(false);
  expect(member.output()).toContain(`exited: code ${storeFailedExitCode}`);
  expect(member.output()).toContain('raft storage failed');
}

/** Exactly one leader among all answering members, and no member reports a failure. */
async function expectOneHealthyLeader(stores: StoreCluster): Promise<MemberStatus> {
  const leader = await stores.leader(stores.members.length);
  const statuses = await stores.admin.clusterStatus(statusGatherMs);
  expect(statuses.filter((status) => status.role === 'leader').map((status) => status.id)).toEqual([leader.id]);
  expect(statuses.filter((status) => status.failure !== undefined)).toEqual([]);
  return leader;
}

/** Every acknowledged register is there (a register read answers notFound only for a missing key). */
async function expectAcknowledgedReadable(stores: StoreCluster, writer: RegisterWriter): Promise<void> {
  for (const name of writer.acknowledgedNames) {
    const read = await stores.admin.propose(readCommand(name));
    expect(read.type, name).toBe('finalizing');
  }
}

/** The event stream is complete and in order, and holds every acknowledged write. */
async function expectCompleteEventStream(stores: StoreCluster, writer: RegisterWriter): Promise<void> {
  const target = Math.max(0, ...(await stores.admin.clusterStatus(statusGatherMs)).map((status) => status.commitIndex));
  const connection = await stores.connect(`kstore-fault-events-${stores.options.cluster}`);
  try {
    const report = await checkEventStream({ connection, cluster: stores.options.cluster }, target, writer.acknowledged);
    expect(report.problems).toEqual([]);
    expect(report.through).toBeGreaterThanOrEqual(target);
    expect(report.events).toBeGreaterThanOrEqual(writer.acknowledged.length);
  } finally {
    await connection.close();
  }
}

function filler(member: StoreProcess): string {
  return path.join(member.options.dataDir, fillerName);
}

describe('a Raft member whose disk fills up', () => {
  it.skipIf(!mountable)('the leader fails stop with its exit code, the others go on, and after space is freed it restarts from disk and catches up; no acknowledged write is lost', async () => {
    const stores = await startOnSmallDisks('diskfull_leader');
    const leader = await stores.leader();
    expect((await stores.admin.propose(createNamespaceCommand())).type).toBe('stored');
    const writer = await boundedWriter(stores);
    for (let count = 0; count < 50; count++) await writer.write();
    expect(writer.acknowledged).toHaveLength(50);

    // Fill the leader's disk; its next append fails, and it must stop rather than linger.
    const watch = new StatusWatch(stores);
    const failing = stores.member(leader.id);
    await fillDisk(filler(failing));
    await writeUntil(writer, () => !failing.running, `leader ${leader.id} to exit after its disk filled`, stores);
    expectFailStopped(failing);

    // The other two elect a leader and take writes; nobody else claims the failed member's role.
    const successor = await stores.leader(2);
    expect(successor.id).not.toBe(leader.id);
    const before = writer.acknowledged.length;
    await writeUntil(writer, () => writer.acknowledged.length >= before + 30, '30 writes acknowledged under the new leader', stores, 60_000);
    expect(await watch.stop()).toBeGreaterThan(0);
    expect(watch.violations).toEqual([]);

    // Space comes back: the member restarts from its data dir, catches up, and one leader is left.
    await rm(filler(failing));
    await failing.start();
    await stores.caughtUp(leader.id);
    await expectOneHealthyLeader(stores);
    await expectAcknowledgedReadable(stores, writer);
    await expectCompleteEventStream(stores, writer);
  }, 120_000);

  it.skipIf(!mountable)('a follower fails stop with its exit code while the leader keeps leading and taking writes; after space is freed it restarts and catches up', async () => {
    const stores = await startOnSmallDisks('diskfull_follower');
    const leader = await stores.leader();
    expect((await stores.admin.propose(createNamespaceCommand())).type).toBe('stored');
    const writer = await boundedWriter(stores);
    for (let count = 0; count < 50; count++) await writer.write();
    expect(writer.acknowledged).toHaveLength(50);

    // Fill one follower's disk; its next append of the leader's entries fails.
    const watch = new StatusWatch(stores);
    const failing = stores.members.find((member) => member.id !== leader.id) as StoreProcess;
    await fillDisk(filler(failing));
    const before = writer.acknowledged.length;
    await writeUntil(writer, () => !failing.running, `follower ${failing.id} to exit after its disk filled`, stores);
    expectFailStopped(failing);

    // The leader never lost its leadership: same member, same term, and writes go on.
    await writeUntil(writer, () => writer.acknowledged.length >= before + 30, '30 more writes acknowledged by the same leader', stores);
    const still = await stores.leader(2);
    expect({ id: still.id, term: still.term }).toEqual({ id: leader.id, term: leader.term });
    expect(await watch.stop()).toBeGreaterThan(0);
    expect(watch.violations).toEqual([]);

    // Space comes back: the follower restarts from its data dir and catches up.
    await rm(filler(failing));
    await failing.start();
    await stores.caughtUp(failing.id);
    // A member back from a restart cannot disrupt a leader it hears from (pre-vote, leader lease).
    const final = await expectOneHealthyLeader(stores);
    expect({ id: final.id, term: final.term }).toEqual({ id: leader.id, term: leader.term });
    await expectAcknowledgedReadable(stores, writer);
    await expectCompleteEventStream(stores, writer);
  }, 120_000);

  it.skipIf(!mountable)('once every disk is full writes are no longer acknowledged and the members that had to write fail stop; after space is freed they restart, elect a leader, take writes and lose no acknowledged one', async () => {
    const stores = await startOnSmallDisks('diskfull_all');
    await stores.leader();
    expect((await stores.admin.propose(createNamespaceCommand())).type).toBe('stored');
    const writer = await boundedWriter(stores);
    for (let count = 0; count < 30; count++) await writer.write();
    expect(writer.acknowledged).toHaveLength(30);

    // Fill every disk and write on. Every write must be appended by the leader and the
    // followers, and an election persists the candidate's term, so members fail one after the
    // other until at most one is left: a lone member writes nothing (its pre-votes go
    // unanswered), cannot lead, and may stay up.
    const watch = new StatusWatch(stores);
    for (const member of stores.members) await fillDisk(filler(member));
    const running = (): StoreProcess[] => stores.members.filter((member) => member.running);
    await writeUntil(writer, () => running().length <= 1, 'all members but at most one to exit after every disk filled', stores, 60_000);
    for (const member of stores.members.filter((candidate) => !candidate.running)) expectFailStopped(member);
    await waitFor(async () => (await stores.admin.clusterStatus(statusGatherMs).catch(() => [])).every((status) => status.role !== 'leader'), {
      timeoutMs: 10_000, description: 'no member to answer as leader with every disk full', diagnostics: () => stores.diagnostics(),
    });
    // Writes are no longer acknowledged, and a write ends by its deadline instead of hanging.
    const startedMs = performance.now();
    expect(await writer.write()).toBe(false);
    expect(performance.now() - startedMs).toBeLessThan(writeDeadlineMs + 2_000);
    expect(await watch.stop()).toBeGreaterThan(0);
    expect(watch.violations).toEqual([]);

    // Space comes back: the exited members restart from their data dirs and elect a leader.
    for (const member of stores.members) await rm(filler(member));
    await Promise.all(stores.members.filter((member) => !member.running).map((member) => member.start()));
    await expectOneHealthyLeader(stores);
    for (const member of stores.members) await stores.caughtUp(member.id);
    await expectAcknowledgedReadable(stores, writer);
    const before = writer.acknowledged.length;
    for (let count = 0; count < 10; count++) await writer.write();
    expect(writer.acknowledged.length).toBe(before + 10);
    await expectCompleteEventStream(stores, writer);
  }, 120_000);
});
