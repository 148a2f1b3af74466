// Owns: a whole kstore store cluster as real OS processes for the fault tests and the Raft
// benchmark — a 3-node nats-server cluster (test/support/nats-server.ts) and three
// `kstore store` members (each its own node process on its own temp data directory) — plus the
// faults injected into it: kill -9 and restart of a member, SIGSTOP/SIGCONT, kill and restart of
// a nats-server, and a stop-and-restart of every member on the same data directories.
//
// Every child started here is SIGKILLed when the process exits (and by close(), which test
// afterAll hooks call even when a test failed). A paused (SIGSTOPped) member is continued
// before it is killed, so no stopped process is left behind.
//
// Members are spawned here rather than with test/integration/store-process.ts so that callers
// can pass node flags (the benchmark's --cpu-prof) and pin a member to one nats-server.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { StoreClient } from '../../deploy/store-client.ts';
import { connectNats } from '../../raft/index.ts';
import type { MemberStatus } from '../../raft/index.ts';
import { kstoreNodeArgs, repoRoot } from '../support/kstore-process.ts';
import { NatsCluster } from '../support/nats-server.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const kstoreExecutable = path.join(repoRoot, 'deploy', 'kstore.mjs');
/** A member recovers its log and prints its ready line well within this (tsx start-up included). */
const readyTimeoutMs = 60_000;
/** SIGTERM gives a member this long to stop cleanly before it is SIGKILLed. */
const stopTimeoutMs = 15_000;
/** A leader is elected within a few election timeouts (1-2 s each at the default 100 ms tick). */
export const leaderTimeoutMs = 30_000;
/** A healed member follows the leader and has applied what was committed at the heal within this. */
export const catchUpTimeoutMs = 45_000;
/** How long one clusterStatus() scatter-gather listens for member answers. */
const statusGatherMs = 300;
/** Output kept per member for diagnostics (the tail is what matters). */
const outputKeptChars = 64 * 1024;

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

export interface StoreProcessOptions {
  readonly id: string;
  readonly peers: readonly string[];
  readonly natsUrls: readonly string[];
  readonly dataDir: string;
  readonly cluster: string;
  /** Raft tick; undefined keeps the store's default (100 ms). */
  readonly tickMs?: number;
  /** Extra node flags before the script (e.g. --cpu-prof). */
  readonly nodeArgs?: readonly string[];
  /** Extra `kstore store` flags (e.g. --storage-reserve-bytes). */
  readonly storeArgs?: readonly string[];
}

/** One `kstore store` member as a child process; can be started again on the same data dir. */
export class StoreProcess {
  readonly options: StoreProcessOptions;
  #child: ChildProcess | undefined;
  #output = '';
  #exited = true;
  #paused = false;
  #starts = 0;

  constructor(options: StoreProcessOptions) {
    this.options = options;
  }

  get id(): string {
    return this.options.id;
  }

  get running(): boolean {
    return !this.#exited;
  }

  get paused(): boolean {
    return this.#paused;
  }

  output(): string {
    return this.#output;
  }

  #append(text: string): void {
    this.#output = (this.#output + text).slice(-outputKeptChars);
  }

  /** Spawns the member and resolves once it printed its ready line. */
  async start(): Promise<void> {
    if (!this.#exited) throw new Error(`store member ${this.id} is already running`);
    const { options } = this;
    const args = [...kstoreNodeArgs('colocated'), ...(options.nodeArgs ?? []), kstoreExecutable, 'store', '--id', options.id, '--peers', options.peers.join(','),
      '--nats', options.natsUrls.join(','), '--data-dir', options.dataDir, '--cluster', options.cluster];
    if (options.tickMs !== undefined) args.push('--tick-ms', String(options.tickMs));
    args.push(...(options.storeArgs ?? []));
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#starts += 1;
    const start = this.#starts;
    this.#child = child;
    this.#exited = false;
    this.#paused = false;
    children.add(child);
    let ready = false;
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (!ready) {
        stdout += text;
        ready = /^kstore store ready:/m.test(stdout);
      }
      this.#append(text);
    });
    child.stderr?.on('data', (chunk: Buffer) => this.#append(chunk.toString('utf8')));
    const exited = (): void => {
      this.#exited = true;
      children.delete(child);
    };
    child.once('error', (error) => {
      this.#append(`[start ${start}] spawn error: ${error.message}\n`);
      exited();
    });
    child.once('exit', (code, signal) => {
      this.#append(`[start ${start}] exited: code ${String(code)} signal ${String(signal)}\n`);
      exited();
    });
    // An exit ends the wait at once (a throwing condition would only count as "not yet").
    const outcome = await waitFor(() => (ready ? 'ready' : this.#exited ? 'exited' : undefined), {
      timeoutMs: readyTimeoutMs, intervalMs: 20, description: `store member ${this.id} ready line`, diagnostics: () => this.#output.slice(-4000),
    });
    if (outcome === 'exited') throw new Error(`store member ${this.id} exited before ready\n${this.#output.slice(-4000)}`);
  }

  /** Sends `signal` and waits for the exit; SIGKILL if it has not exited by the deadline. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exited) return;
    if (this.#paused) this.resume();
    child.kill(signal);
    try {
      await waitFor(() => this.#exited, { timeoutMs: stopTimeoutMs, intervalMs: 10, description: `store member ${this.id} to exit after ${signal}` });
    } catch (error) {
      child.kill('SIGKILL');
      await waitFor(() => this.#exited, { timeoutMs: stopTimeoutMs, intervalMs: 10, description: `store member ${this.id} to exit after SIGKILL` });
      throw error;
    }
  }

  /** SIGSTOP: the process keeps its sockets but runs nothing until resume(). */
  pause(): void {
    if (this.#child === undefined || this.#exited) throw new Error(`store member ${this.id} is not running`);
    this.#child.kill('SIGSTOP');
    this.#paused = true;
  }

  resume(): void {
    if (this.#child !== undefined && !this.#exited) this.#child.kill('SIGCONT');
    this.#paused = false;
  }

  /** Cleanup: SIGKILL if running. Never throws. */
  async kill(): Promise<void> {
    await this.stop('SIGKILL').catch(() => undefined);
  }
}

export interface StoreClusterOptions {
  /** Raft cluster name in NATS subjects (distinct per test keeps stray messages apart). */
  readonly cluster: string;
  readonly tickMs?: number;
  /**
   * 'all': every member gets every nats-server URL, in the same order (each uses the first it
   * can reach and fails over to the next, so all share one server while it lives). 'pinned': member i is given only nats-server i's URL, so the test knows which server
   * a member is on. It is not cut off for good when that server dies: the NATS client learns
   * the cluster's other servers from INFO and reconnects to one of them.
   */
  readonly natsUrls: 'all' | 'pinned';
  /** One nats-server instead of a 3-node NATS cluster (the benchmark's option). */
  readonly natsServers?: 1 | 3;
  readonly nodeArgs?: readonly string[];
  /** Extra `kstore store` flags for every member. */
  readonly storeArgs?: readonly string[];
  readonly memberIds?: readonly string[];
  /** Called with each member's data dir (created, empty) before the members start, e.g. to mount a small disk there. */
  readonly prepareDataDir?: (dataDir: string) => Promise<void>;
}

export const defaultMemberIds: readonly string[] = ['s1', 's2', 's3'];

/** Three store members over a NATS cluster, on temp dirs; close() kills everything. */
export class StoreCluster {
  readonly nats: NatsCluster;
  readonly members: readonly StoreProcess[];
  readonly options: StoreClusterOptions;
  readonly #dir: TempDir;
  readonly #connection: NatsConnection;
  /** A client for status queries and the harness's own proposals (not part of any history). */
  readonly admin: StoreClient;

  private constructor(nats: NatsCluster, dir: TempDir, members: readonly StoreProcess[], connection: NatsConnection, options: StoreClusterOptions) {
    this.nats = nats;
    this.#dir = dir;
    this.members = members;
    this.#connection = connection;
    this.options = options;
    this.admin = new StoreClient({ connection, cluster: options.cluster, group: 'main', attemptTimeoutMs: 1_000, deadlineMs: 30_000 });
  }

  static async start(options: StoreClusterOptions): Promise<StoreCluster> {
    const nats = await NatsCluster.start(options.natsServers ?? 3);
    let dir: TempDir | undefined;
    let members: StoreProcess[] = [];
    try {
      dir = await makeTempDir('kstore-fault-');
      const ids = options.memberIds ?? defaultMemberIds;
      const dataRoot = dir.path;
      members = ids.map((id, position) => new StoreProcess({
        id, peers: ids, dataDir: path.join(dataRoot, id), cluster: options.cluster,
        natsUrls: options.natsUrls === 'pinned' ? [nats.server(position % nats.servers.length).url] : nats.urls,
        ...(options.tickMs === undefined ? {} : { tickMs: options.tickMs }),
        ...(options.nodeArgs === undefined ? {} : { nodeArgs: options.nodeArgs }),
        ...(options.storeArgs === undefined ? {} : { storeArgs: options.storeArgs }),
      }));
      if (options.prepareDataDir !== undefined) {
        for (const member of members) {
          await mkdir(member.options.dataDir, { recursive: true });
          await options.prepareDataDir(member.options.dataDir);
        }
      }
      await Promise.all(members.map((member) => member.start()));
      const connection = await connectNats(nats.urls, `kstore-fault-admin-${options.cluster}`);
      return new StoreCluster(nats, dir, members, connection, options);
    } catch (error) {
      await Promise.all(members.map((member) => member.kill()));
      await nats.stopAll();
      await dir?.remove();
      throw error;
    }
  }

  member(id: string): StoreProcess {
    const found = this.members.find((member) => member.id === id);
    if (found === undefined) throw new Error(`no member ${id}`);
    return found;
  }

  /** The nats-server a pinned member connected to first (and stays on while that server lives). */
  natsServerOf(id: string): number {
    if (this.options.natsUrls !== 'pinned') throw new Error('members are not pinned to nats-servers');
    return this.members.findIndex((member) => member.id === id) % this.nats.servers.length;
  }

  /** Waits until exactly one of `expected` answering members is leader, and every answer agrees. */
  async leader(expected = this.members.filter((member) => member.running && !member.paused).length, timeoutMs = leaderTimeoutMs): Promise<MemberStatus> {
    return waitFor(async () => {
      const answered = await this.admin.clusterStatus(statusGatherMs);
      const leaders = answered.filter((status) => status.role === 'leader');
      const leader = leaders[0];
      if (answered.length < expected || leaders.length !== 1 || leader === undefined) return undefined;
      return answered.every((status) => status.term === leader.term && status.leaderId === leader.id) ? leader : undefined;
    }, { timeoutMs, intervalMs: 50, description: `one leader agreed on by ${expected} members`, diagnostics: () => this.diagnostics() });
  }

  /**
   * Waits until member `id` (just restarted, resumed or reconnected) is back as a full member:
   * it answers, follows the leader of the highest term any member reports (or leads it), and has
   * applied everything committed when the wait began. Returns its status and that index.
   */
  async caughtUp(id: string, timeoutMs = catchUpTimeoutMs): Promise<{ readonly status: MemberStatus; readonly target: number }> {
    const target = Math.max(0, ...(await this.admin.clusterStatus(statusGatherMs)).map((status) => status.commitIndex));
    let last: MemberStatus | undefined;
    const status = await waitFor(async () => {
      const answered = await this.admin.clusterStatus(statusGatherMs);
      const member = answered.find((candidate) => candidate.id === id);
      last = member ?? last;
      const leader = answered.filter((candidate) => candidate.role === 'leader').sort((left, right) => right.term - left.term)[0];
      if (member === undefined || leader === undefined || member.failure !== undefined) return undefined;
      return member.term === leader.term && member.leaderId === leader.id && member.appliedIndex >= target ? member : undefined;
    }, {
      timeoutMs, intervalMs: 50, description: `store member ${id} to follow the current leader and apply index ${target} (the highest commit index when it was healed)`,
      diagnostics: () => `last status of ${id}: ${last === undefined ? 'no answer' : JSON.stringify(last)}\n${this.diagnostics()}`,
    });
    return { status, target };
  }

  /** Stops every member with `signal` (default SIGKILL) and starts them again on the same data directories. */
  async restartAll(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await Promise.all(this.members.map((member) => member.stop(signal)));
    await Promise.all(this.members.map((member) => member.start()));
  }

  /** A fresh NATS connection for one client (its own socket, any server of the cluster). */
  connect(name: string): Promise<NatsConnection> {
    return connectNats(this.nats.urls, name);
  }

  diagnostics(): string {
    return this.members.map((member) => `--- ${member.id} (${member.running ? 'running' : 'exited'}) ---\n${member.output().slice(-3000)}`).join('\n');
  }

  /** Kills every member and nats-server and removes the data. Never throws; safe to call twice. */
  async close(): Promise<void> {
    this.admin.close();
    await this.#connection.close().catch(() => undefined);
    await Promise.all(this.members.map((member) => member.kill()));
    await this.nats.stopAll();
    await this.#dir.remove().catch(() => undefined);
  }
}
