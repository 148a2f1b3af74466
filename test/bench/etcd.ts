// Owns: the etcd baseline of the Raft benchmark — finding (or installing, with apt-get, as .ci/run
// does for nats-server) Debian's etcd-server, a 3-member etcd cluster on loopback (free ports,
// temp data dirs on the same disk as kstore's, default 100 ms heartbeat / 1 s election, fsync
// on as always in etcd), its members' pids, and a put client. Used by bench:raft and npm run bench.
//
// The client speaks etcd's HTTP/JSON gRPC gateway (POST /v3/kv/put, base64 key and value) over
// node's http with keep-alive connections (one socket per concurrent proposer), so no npm
// dependency is added. The gateway costs etcd one extra in-process hop (JSON -> gRPC) per
// request; a native gRPC client would be somewhat faster, so the baseline is conservative for
// etcd only in that respect. Puts go to the leader's endpoint (etcd forwards a follower's put to
// the leader, which would cost an extra hop); after a failure a proposer moves to the next
// endpoint.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../support/free-port.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

/** One request's timeout: the same 2 s as StoreClient's attempt timeout, so failover compares. */
export const etcdRequestTimeoutMs = 2_000;
const readyTimeoutMs = 30_000;

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** The etcd executable, installing etcd-server with apt-get if needed; or why it is unavailable. */
export function findEtcd(): { readonly executable: string } | { readonly unavailable: string } {
  if (onPath('etcd')) return { executable: 'etcd' };
  const root = process.getuid?.() === 0;
  const sudo = !root && onPath('sudo');
  if (!root && !sudo) return { unavailable: 'etcd is not on PATH and apt-get needs root (no sudo)' };
  const apt = (args: readonly string[]): number | null => {
    process.stderr.write(`bench: etcd not found; running ${sudo ? 'sudo ' : ''}apt-get ${args.join(' ')}\n`);
    const command = sudo ? 'sudo' : 'apt-get';
    const argv = sudo ? ['apt-get', ...args] : [...args];
    // apt-get's output goes to stderr: the benchmarks print their JSON on stdout.
    return spawnSync(command, argv, { stdio: ['ignore', process.stderr, 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status;
  };
  if (apt(['install', '-y', 'etcd-server']) !== 0 && (apt(['update']) !== 0 || apt(['install', '-y', 'etcd-server']) !== 0)) {
    return { unavailable: 'apt-get install -y etcd-server failed' };
  }
  return onPath('etcd') ? { executable: 'etcd' } : { unavailable: 'etcd-server installed but etcd is not on PATH' };
}

export function etcdVersion(executable: string): string {
  const result = spawnSync(executable, ['--version'], { encoding: 'utf8' });
  return /etcd Version: (\S+)/.exec(result.stdout)?.[1] ?? 'unknown';
}

interface EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  child: ChildProcess | undefined;
  output: string;
  exited: boolean;
}

export class EtcdCluster {
  readonly members: readonly EtcdMember[];
  readonly #dir: TempDir;
  readonly #agent: http.Agent;

  private constructor(members: readonly EtcdMember[], dir: TempDir, agent: http.Agent) {
    this.members = members;
    this.#dir = dir;
    this.#agent = agent;
  }

  static async start(executable: string, size = 3): Promise<EtcdCluster> {
    const dir = await makeTempDir('kstore-bench-etcd-');
    const members: EtcdMember[] = [];
    for (let position = 0; position < size; position++) {
      members.push({
        name: `e${position + 1}`, clientUrl: `http://127.0.0.1:${await freePort()}`, peerUrl: `http://127.0.0.1:${await freePort()}`,
        child: undefined, output: '', exited: true,
      });
    }
    const initialCluster = members.map((member) => `${member.name}=${member.peerUrl}`).join(',');
    // maxSockets is per host:port; Infinity lets every proposer keep its own connection.
    const cluster = new EtcdCluster(members, dir, new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }));
    try {
      for (const member of members) {
        const child = spawn(executable, [
          '--name', member.name, '--data-dir', path.join(dir.path, member.name),
          '--listen-client-urls', member.clientUrl, '--advertise-client-urls', member.clientUrl,
          '--listen-peer-urls', member.peerUrl, '--initial-advertise-peer-urls', member.peerUrl,
          '--initial-cluster', initialCluster, '--initial-cluster-state', 'new', '--initial-cluster-token', 'kstore-bench',
        ], { stdio: ['ignore', 'pipe', 'pipe'] });
        member.child = child;
        member.exited = false;
        children.add(child);
        const append = (chunk: Buffer): void => {
          member.output = (member.output + chunk.toString('utf8')).slice(-16_000);
        };
        child.stdout?.on('data', append);
        child.stderr?.on('data', append);
        child.once('exit', () => {
          member.exited = true;
          children.delete(child);
        });
      }
      await waitFor(async () => (await cluster.leader()) !== undefined, {
        timeoutMs: readyTimeoutMs, intervalMs: 100, description: 'an etcd leader', diagnostics: () => members.map((member) => member.output.slice(-2000)).join('\n'),
      });
      return cluster;
    } catch (error) {
      await cluster.close();
      throw error;
    }
  }

  /** POSTs JSON to one member's gateway; rejects on a non-2xx answer or after the timeout. */
  post(member: EtcdMember, route: string, body: unknown, timeoutMs = etcdRequestTimeoutMs): Promise<unknown> {
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = http.request(`${member.clientUrl}${route}`, {
        method: 'POST', agent: this.#agent, timeout: timeoutMs,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((response.statusCode ?? 0) >= 300) reject(new Error(`etcd ${route}: HTTP ${String(response.statusCode)} ${text.slice(0, 200)}`));
          else resolve(JSON.parse(text) as unknown);
        });
        response.on('error', reject);
      });
      request.on('timeout', () => request.destroy(new Error(`etcd ${route}: no answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(payload);
    });
  }

  put(member: EtcdMember, key: string, value: string): Promise<unknown> {
    return this.post(member, '/v3/kv/put', { key: Buffer.from(key).toString('base64'), value: Buffer.from(value).toString('base64') });
  }

  /** The member that is leader according to a running member's status, if any. */
  async leader(): Promise<EtcdMember | undefined> {
    for (const member of this.members) {
      if (member.exited) continue;
      try {
        const status = await this.post(member, '/v3/maintenance/status', {}, 500) as { header?: { member_id?: string }; leader?: string };
        if (status.leader === undefined || status.leader === '0') continue;
        if (status.header?.member_id === status.leader) return member;
        for (const other of this.members) {
          if (other === member || other.exited) continue;
          const otherStatus = await this.post(other, '/v3/maintenance/status', {}, 500) as { header?: { member_id?: string } };
          if (otherStatus.header?.member_id === status.leader) return other;
        }
      } catch {
        // Not answering (killed or starting): ask the next member.
      }
    }
    return undefined;
  }

  /** Each running member's name and pid (for CPU accounting from /proc). */
  memberPids(): { readonly name: string; readonly pid: number }[] {
    return this.members.flatMap((member) => (member.exited || member.child?.pid === undefined ? [] : [{ name: member.name, pid: member.child.pid }]));
  }

  /** SIGKILLs the member named `name`. */
  kill(name: string): void {
    const member = this.members.find((candidate) => candidate.name === name);
    if (member === undefined) throw new Error(`no etcd member ${name}`);
    member.child?.kill('SIGKILL');
  }

  async close(): Promise<void> {
    for (const member of this.members) member.child?.kill('SIGKILL');
    await waitFor(() => this.members.every((member) => member.exited), { timeoutMs: 10_000, intervalMs: 20, description: 'etcd members to exit' }).catch(() => undefined);
    this.#agent.destroy();
    await this.#dir.remove().catch(() => undefined);
  }
}

export type { EtcdMember };
