// Starts real nats-server processes for integration and fault tests: one server, or a cluster
// of three with routes between them, JetStream on, each on free ports with its own temp
// directory and config file. Ready means a client could connect (and, for a cluster, that a
// message published on every server reached a subscriber on every other one). Servers can be
// stopped, killed and restarted one by one on the same ports and store; every process started
// here is killed when the test worker exits, and stopAll() removes the temp directories.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { freePort } from './free-port.ts';
import { makeTempDir } from './temp-dir.ts';
import type { TempDir } from './temp-dir.ts';
import { waitFor } from './wait-for.ts';

export const natsServerExecutable = process.env.NATS_SERVER ?? 'nats-server';
const readyTimeoutMs = 20_000;
const stopTimeoutMs = 10_000;
/** Starts retried when a picked port was taken between picking and binding. */
const startAttempts = 3;
/**
 * max_payload of the test servers: an appendEntries may carry 256 entries of up to a few KiB
 * each, above nats-server's 1 MiB default (8 MiB is nats-server's recommended maximum).
 */
export const testMaxPayloadBytes = 8 * 1024 * 1024;

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

interface ServerPorts {
  readonly client: number;
  readonly cluster: number | undefined;
}

export interface NatsClusterOptions {
  /** nats-server's max_payload; default testMaxPayloadBytes. */
  readonly maxPayloadBytes?: number;
  /** JetStream's max_memory_store, e.g. '1MB' (default: nats-server's, 75% of the machine's memory). */
  readonly maxMemoryStore?: string;
}

function configText(name: string, ports: ServerPorts, storeDir: string, routes: readonly number[], clusterName: string, options: NatsClusterOptions): string {
  const lines = [
    `server_name: ${name}`,
    `listen: 127.0.0.1:${ports.client}`,
    `max_payload: ${options.maxPayloadBytes ?? testMaxPayloadBytes}`,
    `jetstream { store_dir: ${JSON.stringify(storeDir)}${options.maxMemoryStore === undefined ? '' : `, max_memory_store: ${options.maxMemoryStore}`} }`,
  ];
  if (ports.cluster !== undefined) {
    const routeUrls = routes.map((port) => `nats-route://127.0.0.1:${port}`);
    lines.push(`cluster { name: ${clusterName}, listen: 127.0.0.1:${ports.cluster}, routes: [${routeUrls.join(', ')}] }`);
  }
  return `${lines.join('\n')}\n`;
}

export class NatsServerProcess {
  readonly name: string;
  readonly url: string;
  readonly configFile: string;
  #child: ChildProcess | undefined;
  #output = '';
  #exited = true;

  constructor(name: string, url: string, configFile: string) {
    this.name = name;
    this.url = url;
    this.configFile = configFile;
  }

  get running(): boolean {
    return !this.#exited;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  output(): string {
    return this.#output;
  }

  /** Spawns the server (again) with its config; resolves once a client can connect. */
  async start(): Promise<void> {
    if (!this.#exited) throw new Error(`nats-server ${this.name} is already running`);
    const child = spawn(natsServerExecutable, ['-c', this.configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    this.#exited = false;
    running.add(child);
    const append = (chunk: Buffer): void => {
      this.#output += chunk.toString('utf8');
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    child.once('error', (error) => {
      this.#output += `spawn error: ${error.message}\n`;
      this.#exited = true;
      running.delete(child);
    });
    child.once('exit', (code, signal) => {
      this.#output += `exited: code ${String(code)} signal ${String(signal)}\n`;
      this.#exited = true;
      running.delete(child);
    });
    // A failed connect means "not yet"; an exit (e.g. the port was taken) ends the wait at once.
    const outcome = await waitFor(async () => {
      if (this.#exited) return 'exited';
      const connection = await connect({ servers: this.url, reconnect: false, timeout: 1_000 });
      await connection.close();
      return 'ready';
    }, { timeoutMs: readyTimeoutMs, intervalMs: 50, description: `nats-server ${this.name} at ${this.url} to accept clients`, diagnostics: () => this.#output });
    if (outcome === 'exited') throw new Error(`nats-server ${this.name} exited before accepting clients:\n${this.#output}`);
  }

  /** Sends `signal` and waits for the exit (SIGKILL after a deadline). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exited) return;
    child.kill(signal);
    try {
      await waitFor(() => this.#exited, { timeoutMs: stopTimeoutMs, description: `nats-server ${this.name} to exit after ${signal}` });
    } catch {
      child.kill('SIGKILL');
      await waitFor(() => this.#exited, { timeoutMs: stopTimeoutMs, description: `nats-server ${this.name} to exit after SIGKILL` });
    }
  }

  kill(): Promise<void> {
    return this.stop('SIGKILL');
  }

  /** Stops (SIGTERM) if running, then starts again on the same ports and store. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

export class NatsCluster {
  readonly servers: readonly NatsServerProcess[];
  readonly #dir: TempDir;

  private constructor(servers: readonly NatsServerProcess[], dir: TempDir) {
    this.servers = servers;
    this.#dir = dir;
  }

  /** Client URLs of every server (for a client that should fail over between them). */
  get urls(): string[] {
    return this.servers.map((server) => server.url);
  }

  server(position: number): NatsServerProcess {
    const server = this.servers[position];
    if (server === undefined) throw new Error(`no nats-server #${position} (cluster of ${this.servers.length})`);
    return server;
  }

  /** One server (size 1) or a routed cluster (size 3), each with JetStream; resolves once all are ready. */
  static async start(size: 1 | 3 = 3, options: NatsClusterOptions = {}): Promise<NatsCluster> {
    let lastError: unknown;
    for (let attempt = 0; attempt < startAttempts; attempt++) {
      const dir = await makeTempDir('kstore-nats-');
      const cluster = await NatsCluster.#configure(size, dir, options);
      try {
        await Promise.all(cluster.servers.map((server) => server.start()));
        if (size > 1) await cluster.waitForRoutes();
        return cluster;
      } catch (error) {
        lastError = error;
        await cluster.stopAll();
        const outputs = cluster.servers.map((server) => server.output()).join('\n');
        if (!/address already in use/i.test(outputs)) throw error;
      }
    }
    throw lastError;
  }

  static async #configure(size: number, dir: TempDir, options: NatsClusterOptions): Promise<NatsCluster> {
    const ports: ServerPorts[] = [];
    const taken = new Set<number>();
    const pick = async (): Promise<number> => {
      for (;;) {
        const port = await freePort();
        if (!taken.has(port)) {
          taken.add(port);
          return port;
        }
      }
    };
    for (let position = 0; position < size; position++) ports.push({ client: await pick(), cluster: size > 1 ? await pick() : undefined });
    const servers: NatsServerProcess[] = [];
    for (const [position, serverPorts] of ports.entries()) {
      const name = `n${position + 1}`;
      const serverDir = path.join(dir.path, name);
      await mkdir(path.join(serverDir, 'jetstream'), { recursive: true });
      const routes = ports.filter((_, other) => other !== position).map((other) => other.cluster).filter((port): port is number => port !== undefined);
      const configFile = path.join(serverDir, 'nats.conf');
      await writeFile(configFile, configText(name, serverPorts, path.join(serverDir, 'jetstream'), routes, 'kstore-test', options));
      servers.push(new NatsServerProcess(name, `nats://127.0.0.1:${serverPorts.client}`, configFile));
    }
    return new NatsCluster(servers, dir);
  }

  /** Waits until a message published on each running server reaches a subscriber on every other one. */
  async waitForRoutes(timeoutMs = readyTimeoutMs): Promise<void> {
    const live = this.servers.filter((server) => server.running);
    const connections: NatsConnection[] = await Promise.all(live.map((server) => connect({ servers: server.url, reconnect: false })));
    try {
      const subject = `kstore.test.routes.${Date.now()}`;
      const heard = connections.map(() => new Set<number>());
      for (const [position, connection] of connections.entries()) {
        connection.subscribe(subject, {
          callback: (_error, message) => {
            heard[position]?.add(Number(message.string()));
          },
        });
        await connection.flush();
      }
      await waitFor(async () => {
        for (const [position, connection] of connections.entries()) connection.publish(subject, String(position));
        await Promise.all(connections.map((connection) => connection.flush()));
        return heard.every((set) => set.size === connections.length);
      }, { timeoutMs, intervalMs: 100, description: 'routes between every pair of nats-servers', diagnostics: () => live.map((server) => server.output()).join('\n') });
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
  }

  /** Kills every server and removes the temp directory. Never throws; safe to call twice. */
  async stopAll(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.kill().catch(() => undefined)));
    await this.#dir.remove().catch(() => undefined);
  }
}
