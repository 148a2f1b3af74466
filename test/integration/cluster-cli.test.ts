// Owns: the end-to-end test of `kstore cluster up|status|down` as a user runs it: real
// nats-servers, store members and (when deploy/roles/api.ts exists) API replicas in a temp
// data dir; status JSON; kubectl through admin.kubeconfig; down leaves no process; a second up
// on the same dir keeps the data. afterAll runs `cluster down` and SIGKILLs any pid left in
// cluster.json.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePki } from '../../deploy/pki.ts';
import { colocatedEnvironment, colocatedNatsEnvironment, colocatedNodeFlags } from '../../deploy/node-flags.ts';
import { pidAlive } from '../../deploy/roles/cluster.ts';
import type { ClusterFile, ClusterStatus } from '../../deploy/roles/cluster.ts';
import { runKstoreCli } from '../support/kstore-cli.ts';
import { freePort } from '../support/free-port.ts';
import { repoRoot } from '../support/kstore-process.ts';
import { Kubectl, describeResult } from '../support/kubectl.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const kstore = path.join(repoRoot, 'deploy', 'kstore.mjs');
const apiRoleLanded = existsSync(path.join(repoRoot, 'deploy', 'roles', 'api.ts'));
const apis = apiRoleLanded ? 2 : 0;

const run = runKstoreCli;


/** A process's command line (argv), from /proc. */
function commandLineOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((arg) => arg !== '');
}

/** The processes whose parent is `pid` (a supervisor's store member). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(entry)] : [];
  });
}

function pidsOf(file: ClusterFile): number[] {
  return [...file.apis.map((a) => a.pid), ...file.stores.map((s) => s.pid), ...file.nats.map((n) => n.pid)].filter((pid): pid is number => pid !== undefined);
}

describe('kstore cluster up|status|down', () => {
  let dir: TempDir;
  const seenPids = new Set<number>();
  const clusterFile = (): ClusterFile => JSON.parse(readFileSync(path.join(dir.path, 'cluster.json'), 'utf8')) as ClusterFile;
  const up = async (): Promise<ClusterFile> => {
    const result = await run(['cluster', 'up', '--data-dir', dir.path, '--apis', String(apis)]);
    if (existsSync(path.join(dir.path, 'cluster.json'))) for (const pid of pidsOf(clusterFile())) seenPids.add(pid);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    return clusterFile();
  };
  const status = async (): Promise<ClusterStatus> => {
    const result = await run(['cluster', 'status', '--data-dir', dir.path, '--json'], 30_000);
    return JSON.parse(result.stdout) as ClusterStatus;
  };

  beforeAll(async () => {
    dir = await makeTempDir('kstore-cluster-cli-');
  });

  afterAll(async () => {
    await run(['cluster', 'down', '--data-dir', dir.path]);
    if (existsSync(path.join(dir.path, 'cluster.json'))) for (const pid of pidsOf(clusterFile())) seenPids.add(pid);
    for (const pid of seenPids) {
      if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await dir.remove();
  }, 60_000);

  it('starts, reports, stops and restarts with the data kept', async () => {
    const first = await up();
    expect(first.nats).toHaveLength(3);
    expect(first.stores.map((s) => s.id)).toEqual(['s1', 's2', 's3']);
    expect(first.apis).toHaveLength(apis);
    for (const pid of pidsOf(first)) expect(pidAlive(pid)).toBe(true);
    // Every store member (the child of its supervisor) and API replica runs with the node flags
    // and environment of processes that share a machine.
    const members = first.stores.flatMap((s) => childrenOf(s.pid!));
    expect(members).toHaveLength(3);
    for (const pid of [...members, ...first.apis.map((a) => a.pid!)]) {
      const argv = commandLineOf(pid);
      expect(argv.slice(1, 1 + colocatedNodeFlags.length), argv.join(' ')).toEqual(colocatedNodeFlags);
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      for (const [name, value] of Object.entries(colocatedEnvironment)) expect(environment, name).toContain(`${name}=${process.env[name] ?? value}`);
    }
    // And every nats-server with the Go runtime's setting for a shared machine.
    for (const pid of first.nats.map((n) => n.pid!)) {
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      for (const [name, value] of Object.entries(colocatedNatsEnvironment)) expect(environment, name).toContain(`${name}=${process.env[name] ?? value}`);
    }

    // A second up on a live cluster refuses and starts nothing.
    const refused = await run(['cluster', 'up', '--data-dir', dir.path, '--apis', String(apis)]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/running cluster/);

    const healthy = await waitFor(async () => {
      const s = await status();
      return s.healthy && s.stores.every((m) => m.appliedIndex !== undefined && m.appliedIndex === m.commitIndex) ? s : undefined;
    }, { timeoutMs: 30_000, description: 'a healthy cluster with every member caught up' });
    expect(healthy.stores.filter((m) => m.role === 'leader')).toHaveLength(1);
    expect(healthy.nats.every((n) => n.alive && n.jetstream === 'ok')).toBe(true);
    const appliedBefore = Math.max(...healthy.stores.map((m) => m.appliedIndex ?? 0));

    let resourceVersion: string | undefined;
    if (apiRoleLanded) {
      expect(first.kubeconfig).toBe(path.join(dir.path, 'admin.kubeconfig'));
      expect(healthy.apis.every((a) => a.ready)).toBe(true);
      const kubectl = new Kubectl({ kubeconfig: path.join(dir.path, 'admin.kubeconfig'), cacheDir: path.join(dir.path, 'kubectl-cache') });
      const created = await kubectl.run(['create', 'namespace', 'cluster-cli']);
      expect(created.code, describeResult(['create', 'namespace'], created)).toBe(0);
      const got = await kubectl.run(['get', 'namespace', 'cluster-cli', '-o', 'jsonpath={.metadata.resourceVersion}']);
      expect(got.code, describeResult(['get', 'namespace'], got)).toBe(0);
      resourceVersion = got.stdout;

      // Failover as a user sees it: kill -9 the leader; status names a new leader in a higher
      // term and the killed member unreachable; kubectl keeps working; `up` restarts only the
      // dead member, which catches up.
      const leader = healthy.stores.find((m) => m.role === 'leader')!;
      process.kill(leader.pid!, 'SIGKILL');
      const failedOver = await waitFor(async () => {
        const s = await status();
        const next = s.stores.find((m) => m.role === 'leader');
        return next !== undefined && next.id !== leader.id ? s : undefined;
      }, { timeoutMs: 30_000, description: 'a new leader after the kill' });
      expect(failedOver.stores.find((m) => m.id === leader.id)).toMatchObject({ alive: false, role: 'unreachable' });
      expect(failedOver.stores.find((m) => m.role === 'leader')!.term).toBeGreaterThan(leader.term!);
      const afterKill = await kubectl.run(['create', 'configmap', 'after-failover', '-n', 'cluster-cli', '--from-literal=a=b']);
      expect(afterKill.code, describeResult(['create', 'configmap'], afterKill)).toBe(0);
      const repaired = await up();
      expect(repaired.stores.find((m) => m.id === leader.id)!.pid).not.toBe(leader.pid);
      expect(repaired.apis.map((a) => a.pid)).toEqual(first.apis.map((a) => a.pid));
      await waitFor(async () => {
        const s = await status();
        return s.healthy && s.stores.every((m) => m.alive && m.appliedIndex !== undefined && m.appliedIndex === m.commitIndex) ? s : undefined;
      }, { timeoutMs: 30_000, description: 'the restarted member to catch up' });
    }

    const storeLogStarts = clusterFile().stores.map((store) => ({ log: store.log, from: readFileSync(store.log).length }));
    const down = await run(['cluster', 'down', '--data-dir', dir.path]);
    expect(down.code, down.stderr).toBe(0);
    for (const pid of pidsOf(clusterFile())) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    // The leader is stopped last and skips peers that are gone: no hand-off waits out its timeout.
    for (const { log, from } of storeLogStarts) expect(readFileSync(log, 'utf8').slice(from), log).not.toContain('leadership hand-off failed');
    const stopped = await status();
    expect(stopped.healthy).toBe(false);
    expect(stopped.stores.every((m) => m.role === 'unreachable' && !m.alive)).toBe(true);
    expect((await run(['cluster', 'down', '--data-dir', dir.path])).code).toBe(0);

    const natsLogStarts = first.nats.map((server) => ({ log: server.log, from: readFileSync(server.log).length }));
    const second = await up();
    expect(second.stores.map((s) => [s.id, s.dataDir])).toEqual(first.stores.map((s) => [s.id, s.dataDir]));
    // A cold start gives JetStream a fresh start (its metadata group bootstraps instead of
    // recovering, which waits out nats-server's 4-9 s election timeout).
    for (const { log, from } of natsLogStarts) {
      const started = readFileSync(log, 'utf8').slice(from);
      expect(started, log).toContain('JetStream cluster bootstrapping');
      expect(started, log).not.toContain('JetStream cluster recovering state');
    }
    const again = await waitFor(async () => {
      const s = await status();
      return s.healthy ? s : undefined;
    }, { timeoutMs: 30_000, description: 'the restarted cluster to be healthy' });
    // The log survived: every member is at least where the first run left it.
    expect(Math.max(...again.stores.map((m) => m.commitIndex ?? 0))).toBeGreaterThanOrEqual(appliedBefore);
    if (apiRoleLanded) {
      const kubectl = new Kubectl({ kubeconfig: path.join(dir.path, 'admin.kubeconfig'), cacheDir: path.join(dir.path, 'kubectl-cache-2') });
      const got = await kubectl.run(['get', 'namespace', 'cluster-cli', '-o', 'jsonpath={.metadata.resourceVersion}']);
      expect(got.code, describeResult(['get', 'namespace'], got)).toBe(0);
      expect(got.stdout).toBe(resourceVersion);
    }

    expect((await run(['cluster', 'down', '--data-dir', dir.path])).code).toBe(0);
    for (const pid of pidsOf(second)) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
  });
});

describe('kstore cluster up that fails', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('kstore-cluster-cli-fail-');
  });
  afterAll(async () => {
    await run(['cluster', 'down', '--data-dir', dir.path]);
    const file = path.join(dir.path, 'cluster.json');
    if (existsSync(file)) {
      for (const pid of pidsOf(JSON.parse(readFileSync(file, 'utf8')) as ClusterFile)) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await dir.remove();
  }, 60_000);

  it('stops the nats-servers it started, prints the failing log and exits non-zero', async () => {
    // The first store member rejects the flag and exits after the nats-servers are up.
    const result = await run(['cluster', 'up', '--data-dir', dir.path, '--apis', '0', '--events-max-age', 'forever']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/store s1 exited before it was ready/);
    expect(result.stderr).toMatch(/last lines of .*store-s1\.log/);
    expect(result.stderr).toMatch(/events-max-age|duration/i);
    const file = JSON.parse(readFileSync(path.join(dir.path, 'cluster.json'), 'utf8')) as ClusterFile;
    expect(file.nats).toHaveLength(3);
    for (const pid of pidsOf(file)) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
  });
});

// Until `kstore api` exists, an all-in-one `kstore server` sharing the cluster's PKI stands in
// for a replica entry in cluster.json: status must GET its /readyz with the admin certificate,
// flag an unreachable replica as unhealthy, and down must stop it.
describe('kstore cluster status and down with API replica entries', () => {
  let dir: TempDir;
  let serverPid: number | undefined;
  beforeAll(async () => {
    dir = await makeTempDir('kstore-cluster-cli-apis-');
  });
  afterAll(async () => {
    await run(['cluster', 'down', '--data-dir', dir.path]);
    const file = path.join(dir.path, 'cluster.json');
    const pids = existsSync(file) ? pidsOf(JSON.parse(readFileSync(file, 'utf8')) as ClusterFile) : [];
    for (const pid of [...pids, serverPid]) if (pid !== undefined && pidAlive(pid)) process.kill(pid, 'SIGKILL');
    await dir.remove();
  }, 60_000);

  it('reports replica readiness over HTTPS and stops replicas on down', async () => {
    const result = await run(['cluster', 'up', '--data-dir', dir.path, '--apis', '0']);
    expect(result.code, result.stderr).toBe(0);
    await ensurePki(dir.path, []);
    const serverDir = path.join(dir.path, 'stand-in');
    await cp(path.join(dir.path, 'pki'), path.join(serverDir, 'pki'), { recursive: true });
    const port = await freePort();
    const log = path.join(dir.path, 'logs', 'stand-in.log');
    const out = openSync(log, 'a');
    const child = spawn(process.execPath, [kstore, 'server', '--data-dir', serverDir, '--port', String(port)], { detached: true, stdio: ['ignore', out, out] });
    child.unref();
    closeSync(out);
    serverPid = child.pid;
    await waitFor(() => readFileSync(log, 'utf8').includes('kstore ready:'), { timeoutMs: 60_000, description: 'the stand-in server', diagnostics: () => readFileSync(log, 'utf8') });

    const file = JSON.parse(readFileSync(path.join(dir.path, 'cluster.json'), 'utf8')) as ClusterFile;
    const withApi: ClusterFile = { ...file, apis: [{ name: 'a1', url: `https://127.0.0.1:${port}`, port, pid: serverPid, log }] };
    writeFileSync(path.join(dir.path, 'cluster.json'), JSON.stringify(withApi));
    const healthy = await run(['cluster', 'status', '--data-dir', dir.path, '--json'], 30_000);
    expect(healthy.code, healthy.stdout).toBe(0);
    const status = JSON.parse(healthy.stdout) as ClusterStatus;
    expect(status.apis).toMatchObject([{ name: 'a1', ready: true, alive: true }]);

    const deadPort = await freePort();
    writeFileSync(path.join(dir.path, 'cluster.json'), JSON.stringify({ ...withApi, apis: [...withApi.apis, { name: 'a2', url: `https://127.0.0.1:${deadPort}`, port: deadPort, pid: undefined, log }] }));
    const unhealthy = await run(['cluster', 'status', '--data-dir', dir.path], 30_000);
    expect(unhealthy.code).not.toBe(0);
    expect(unhealthy.stdout).toMatch(/UNHEALTHY/);
    expect(unhealthy.stdout).toMatch(/a2 .* no /);

    expect((await run(['cluster', 'down', '--data-dir', dir.path])).code).toBe(0);
    expect(pidAlive(serverPid)).toBe(false);
    for (const pid of pidsOf(file)) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
  });
});
