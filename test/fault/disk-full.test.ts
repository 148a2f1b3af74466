// A full disk under a Raft leader: three `kstore store` processes, each with its data dir on its
// own small tmpfs. The leader's disk is filled while writes go on. The leader must fail-stop —
// exit with storeFailedExitCode, never answering as leader again — the other two elect a leader
// and take writes; once space is freed the member restarts from its data dir and catches up,
// exactly one leader is left, and no acknowledged write is lost.
// Mounting needs root (CI runs as root here); elsewhere the test is skipped and says why.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { storeFailedExitCode } from '../../deploy/roles/store.ts';
import { waitFor } from '../support/wait-for.ts';
import { createNamespaceCommand, createRegisterCommand, readCommand } from './configmap-register.ts';
import { StoreCluster } from './store-cluster.ts';

const run = promisify(execFile);
const diskBytes = 48 * 1024 * 1024;
const mounts: string[] = [];

async function mountSmallDisk(dataDir: string): Promise<void> {
  await run('mount', ['-t', 'tmpfs', '-o', `size=${diskBytes}`, 'tmpfs', dataDir]);
  mounts.push(dataDir);
}

async function canMount(): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  const probe = await mkdtemp(path.join(os.tmpdir(), 'kstore-mount-probe-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
    await run('umount', [probe]);
    return true;
  } catch {
    return false;
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}

/** Writes zeros into `file` until the disk holding it is full. */
async function fillDisk(file: string): Promise<void> {
  const free = await statfs(path.dirname(file));
  const bytes = Number(free.bavail) * Number(free.bsize);
  await writeFile(file, Buffer.alloc(bytes)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOSPC') throw error;
  });
}

const mountable = await canMount();
let cluster: StoreCluster | undefined;

afterAll(async () => {
  await cluster?.close();
  for (const mount of mounts) await run('umount', ['-l', mount]).catch(() => undefined);
  // The cluster's own cleanup could not remove the mount points; remove their temp dirs now.
  for (const parent of new Set(mounts.map((mount) => path.dirname(mount)))) await rm(parent, { recursive: true, force: true }).catch(() => undefined);
});

describe('a Raft member whose disk fills up', () => {
  it.skipIf(!mountable)('fails stop with its exit code, the others go on, and after space is freed it restarts from disk and catches up; no acknowledged write is lost', async () => {
    cluster = await StoreCluster.start({ cluster: 'diskfull', natsUrls: 'all', prepareDataDir: mountSmallDisk });
    const stores = cluster;
    const leader = await stores.leader();
    expect((await stores.admin.propose(createNamespaceCommand())).type).toBe('stored');
    const acknowledged: string[] = [];
    let next = 0;
    const write = async (): Promise<void> => {
      const key = `k${next++}`;
      const result = await stores.admin.propose(createRegisterCommand(key)).catch(() => undefined);
      if (result?.type === 'stored') acknowledged.push(key);
    };
    for (let count = 0; count < 50; count++) await write();
    expect(acknowledged).toHaveLength(50);

    // Fill the leader's disk; its next append fails, and it must stop rather than linger.
    const failing = stores.member(leader.id);
    await fillDisk(path.join(failing.options.dataDir, 'filler'));
    await waitFor(async () => {
      if (!failing.running) return true;
      await write();
      return false;
    }, { timeoutMs: 60_000, description: `leader ${leader.id} to exit after its disk filled`, diagnostics: () => stores.diagnostics() });
    expect(failing.output()).toContain(`exited: code ${storeFailedExitCode}`);
    expect(failing.output()).toContain('raft storage failed');

    // The other two elect a leader and take writes; nobody else claims the failed member's role.
    const successor = await stores.leader(2);
    expect(successor.id).not.toBe(leader.id);
    const before = acknowledged.length;
    await waitFor(async () => {
      await write();
      return acknowledged.length >= before + 30;
    }, { timeoutMs: 60_000, description: '30 writes acknowledged under the new leader', diagnostics: () => stores.diagnostics() });

    // Space comes back: the member restarts from its data dir, catches up, and one leader is left.
    await rm(path.join(failing.options.dataDir, 'filler'));
    await failing.start();
    await stores.caughtUp(leader.id);
    const final = await stores.leader(3);
    const statuses = await stores.admin.clusterStatus(300);
    expect(statuses.filter((status) => status.role === 'leader').map((status) => status.id)).toEqual([final.id]);
    expect(statuses.every((status) => status.failure === undefined)).toBe(true);

    // Every acknowledged write is there (a register read answers notFound only for a missing key).
    for (const key of acknowledged) {
      const read = await stores.admin.propose(readCommand(key));
      expect(read.type, key).not.toBe('notFound');
    }
  }, 240_000);
});
