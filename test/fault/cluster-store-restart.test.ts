// Owns: the end-to-end test that `kstore cluster up` restarts a store member whose disk filled:
// a store tier (`cluster up --apis 0`: 3 nats-servers, 3 stores, each store's data dir on its own
// tmpfs) where a follower's disk is filled while writes go to the leader. The follower must exit
// 75 (its store log says so, and so does its supervisor), its `kstore supervise` must restart it
// (same supervisor pid, a new store pid) and, once the space is freed, the member must be back
// as a caught-up follower — all without running `cluster up` again. Mounting needs root (CI runs
// as root here); elsewhere the test is skipped. afterAll runs `cluster down`, SIGKILLs any pid
// left, and unmounts the disks.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { pidAlive } from '../../deploy/roles/cluster.ts';
import type { ClusterFile, ClusterStatus } from '../../deploy/roles/cluster.ts';
import { runKstoreCli } from '../support/kstore-cli.ts';
import { storeFailedExitCode } from '../../deploy/roles/store.ts';
import { StoreClient } from '../../deploy/store-client.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { createNamespaceCommand, createRegisterCommand } from './configmap-register.ts';
import { canMountSmallDisks, fillDisk, SmallDisks } from './small-disk.ts';

/** Above the stores' default 64 MiB reserve, so the space alarm stays down until the fill. */
const diskBytes = 160 * 1024 * 1024;
const mountable = await canMountSmallDisks();

const run = runKstoreCli;


describe.skipIf(!mountable)('kstore cluster up restarts a store that exits 75', () => {
  let dir: TempDir | undefined;
  let disks: SmallDisks | undefined;
  const seenPids = new Set<number>();

  afterAll(async () => {
    if (dir === undefined) return;
    await run(['cluster', 'down', '--data-dir', dir.path]);
    for (const pid of seenPids) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    await disks?.cleanup();
    await dir.remove();
  }, 60_000);

  it('a follower whose disk filled exits 75, is restarted by its supervisor and catches up once space is freed', async () => {
    dir = await makeTempDir('kstore-cluster-restart-');
    disks = await SmallDisks.create('kstore-cluster-restart-disks-');
    const dataDir = dir.path;
    for (const id of ['s1', 's2', 's3']) {
      const storeDir = path.join(dataDir, 'stores', id);
      await mkdir(storeDir, { recursive: true });
      await disks.mountAt(storeDir, diskBytes);
    }
    const clusterFile = (): ClusterFile => JSON.parse(readFileSync(path.join(dataDir, 'cluster.json'), 'utf8')) as ClusterFile;
    const status = async (): Promise<ClusterStatus> => JSON.parse((await run(['cluster', 'status', '--data-dir', dataDir, '--json'], 30_000)).stdout) as ClusterStatus;

    const up = await run(['cluster', 'up', '--data-dir', dataDir, '--apis', '0']);
    if (existsSync(path.join(dataDir, 'cluster.json'))) {
      for (const entry of [...clusterFile().stores, ...clusterFile().nats]) if (entry.pid !== undefined) seenPids.add(entry.pid);
    }
    expect(up.code, `${up.stdout}\n${up.stderr}`).toBe(0);
    expect(clusterFile().stores.every((store) => store.supervised === true)).toBe(true);

    const healthy = await waitFor(async () => {
      const s = await status();
      return s.leader !== undefined && s.stores.every((m) => m.alive && m.appliedIndex === m.commitIndex) ? s : undefined;
    }, { timeoutMs: 30_000, description: 'one leader and every member caught up' });
    const follower = healthy.stores.find((m) => m.role === 'follower')!;
    expect(follower.supervisorPid).toBe(clusterFile().stores.find((s) => s.id === follower.id)!.pid);
    expect(follower.pid).toBeDefined();
    expect(follower.pid).not.toBe(follower.supervisorPid);
    seenPids.add(follower.pid!);
    const followerLog = clusterFile().stores.find((s) => s.id === follower.id)!.log;

    const connection = await connect({ servers: clusterFile().natsUrls.join(','), name: 'kstore-cluster-restart-writer' });
    const client = new StoreClient({ connection, cluster: 'kstore', group: 'main', attemptTimeoutMs: 1_000, deadlineMs: 10_000 });
    try {
      expect((await client.propose(createNamespaceCommand())).type).toBe('stored');
      let next = 0;
      const write = async (): Promise<void> => {
        const result = await client.propose(createRegisterCommand(`k${next++}`));
        if (result.type !== 'stored') throw new Error(`write k${next - 1}: ${result.type}`);
      };

      // Fill the follower's disk: its next append fails, it exits 75 and its supervisor restarts it
      // (and again, after a back-off, for as long as the disk stays full).
      const filler = path.join(dataDir, 'stores', follower.id, 'filler');
      await fillDisk(filler);
      await waitFor(async () => {
        await write();
        const log = readFileSync(followerLog, 'utf8');
        return log.includes('raft storage failed') && new RegExp(`exited with code ${storeFailedExitCode} after \\d+ ms \\(attempt 1\\); restart 1`).test(log);
      }, { timeoutMs: 60_000, intervalMs: 100, description: `store ${follower.id} to exit ${storeFailedExitCode} and be restarted`, diagnostics: () => readFileSync(followerLog, 'utf8').slice(-4000) });
      // The two others go on taking writes meanwhile.
      for (let count = 0; count < 10; count++) await write();

      await rm(filler);
      await write();
      const recovered = await waitFor(async () => {
        const s = await status();
        const member = s.stores.find((m) => m.id === follower.id)!;
        const leader = s.stores.find((m) => m.role === 'leader');
        return member.alive && member.role === 'follower' && leader !== undefined && member.appliedIndex === leader.commitIndex ? s : undefined;
      }, { timeoutMs: 90_000, intervalMs: 250, description: `store ${follower.id} back and caught up`, diagnostics: () => readFileSync(followerLog, 'utf8').slice(-4000) });
      const member = recovered.stores.find((m) => m.id === follower.id)!;
      if (member.pid !== undefined) seenPids.add(member.pid);
      // Restarted by the same supervisor, without `cluster up`: the store process is a new one.
      expect(member.supervisorPid).toBe(follower.supervisorPid);
      expect(member.pid).not.toBe(follower.pid);
      expect(pidAlive(follower.pid)).toBe(false);
      expect(recovered.stores.filter((m) => m.role === 'leader')).toHaveLength(1);
      expect(clusterFile().stores.find((s) => s.id === follower.id)!.pid).toBe(follower.supervisorPid);
    } finally {
      client.close();
      await connection.close();
    }

    // down stops the supervisors and their stores.
    const down = await run(['cluster', 'down', '--data-dir', dataDir]);
    expect(down.code, down.stderr).toBe(0);
    for (const pid of seenPids) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
  });
});
