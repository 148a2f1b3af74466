// Owns: the HA kstore of the fault tests as real OS processes — a 3-node nats-server cluster
// with JetStream and three `kstore store` members (store-cluster.ts), one PKI (deploy/pki.ts)
// and N `kstore api` replicas serving HTTPS with it — and the faults on the API tier: kill -9 of
// a replica and its restart on a new port. Also owns the test clients that drive it: writers
// that create ConfigMaps through whichever replica answers, and watchers that resume from the
// last resourceVersion they saw on the next replica when their stream breaks.
//
// Every child started here is SIGKILLed when the process exits and by close().
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import https from 'node:https';
import path from 'node:path';
import { ensurePki } from '../../deploy/pki.ts';
import { freePort } from '../support/free-port.ts';
import { httpsRequest } from '../support/kube-client.ts';
import type { Credentials } from '../support/kube-client.ts';
import { kstoreNodeArgs, repoRoot } from '../support/kstore-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { StoreCluster } from './store-cluster.ts';
import type { StoreClusterOptions } from './store-cluster.ts';

const kstoreExecutable = path.join(repoRoot, 'deploy', 'kstore.mjs');
const apiReadyTimeoutMs = 60_000;
const outputKeptChars = 64 * 1024;

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface ApiProcessOptions {
  readonly name: string;
  readonly natsUrls: readonly string[];
  readonly cluster: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientCaFile: string;
}

/** One `kstore api` replica as a child process; each start picks a free port. */
export class ApiProcess {
  readonly options: ApiProcessOptions;
  #child: ChildProcess | undefined;
  #output = '';
  #exited = true;
  #url = '';

  constructor(options: ApiProcessOptions) {
    this.options = options;
  }

  get running(): boolean {
    return !this.#exited;
  }

  /** https://host:port of the running (or last) incarnation. */
  get url(): string {
    return this.#url;
  }

  output(): string {
    return this.#output;
  }

  async start(): Promise<void> {
    if (!this.#exited) throw new Error(`api replica ${this.options.name} is already running`);
    const port = await freePort();
    const { options } = this;
    const args = [...kstoreNodeArgs('colocated'), kstoreExecutable, 'api', '--nats', options.natsUrls.join(','), '--port', String(port), '--bind-address', '127.0.0.1',
      '--cluster', options.cluster, '--tls-cert-file', options.certFile, '--tls-private-key-file', options.keyFile,
      '--client-ca-file', options.clientCaFile];
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    this.#exited = false;
    children.add(child);
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      this.#append(text);
    });
    child.stderr?.on('data', (chunk: Buffer) => this.#append(chunk.toString('utf8')));
    child.once('error', (error) => {
      this.#append(`spawn error: ${error.message}\n`);
      this.#exited = true;
      children.delete(child);
    });
    child.once('exit', (code, signal) => {
      this.#append(`exited: code ${String(code)} signal ${String(signal)}\n`);
      this.#exited = true;
      children.delete(child);
    });
    // An exit ends the wait at once (a throwing condition would only count as "not yet").
    const outcome = await waitFor((): { readonly url: string } | 'exited' | undefined => {
      const url = /^kstore api ready: serving (https:\/\/\S+)/m.exec(stdout)?.[1];
      if (url !== undefined) return { url };
      return this.#exited ? 'exited' : undefined;
    }, { timeoutMs: apiReadyTimeoutMs, intervalMs: 20, description: `api replica ${options.name} ready line`, diagnostics: () => this.#output.slice(-4000) });
    if (outcome === 'exited') throw new Error(`api replica ${options.name} exited before ready\n${this.#output.slice(-4000)}`);
    this.#url = outcome.url;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exited) return;
    child.kill(signal);
    try {
      await waitFor(() => this.#exited, { timeoutMs: 15_000, intervalMs: 10, description: `api replica ${this.options.name} to exit after ${signal}` });
    } catch (error) {
      child.kill('SIGKILL');
      await waitFor(() => this.#exited, { timeoutMs: 15_000, intervalMs: 10, description: `api replica ${this.options.name} to exit after SIGKILL` });
      throw error;
    }
  }

  async kill(): Promise<void> {
    await this.stop('SIGKILL').catch(() => undefined);
  }

  #append(text: string): void {
    this.#output = (this.#output + text).slice(-outputKeptChars);
  }
}

/** The whole HA cluster: stores over NATS, one PKI, API replicas. close() kills everything. */
export class HaCluster {
  readonly stores: StoreCluster;
  readonly apis: readonly ApiProcess[];
  readonly credentials: Credentials;
  readonly #dir: TempDir;

  private constructor(stores: StoreCluster, apis: readonly ApiProcess[], credentials: Credentials, dir: TempDir) {
    this.stores = stores;
    this.apis = apis;
    this.credentials = credentials;
    this.#dir = dir;
  }

  /** `stores`: more options of the store cluster (small disks, store flags). */
  static async start(options: { readonly cluster: string; readonly apis: number; readonly stores?: Pick<StoreClusterOptions, 'prepareDataDir' | 'storeArgs'> }): Promise<HaCluster> {
    const stores = await StoreCluster.start({ cluster: options.cluster, natsUrls: 'all', ...options.stores });
    const dir = await makeTempDir('kstore-ha-pki-');
    const apis: ApiProcess[] = [];
    try {
      await stores.leader();
      const pki = await ensurePki(dir.path, []);
      for (let position = 0; position < options.apis; position++) {
        apis.push(new ApiProcess({
          name: `api${position + 1}`, natsUrls: stores.nats.urls, cluster: options.cluster,
          certFile: pki.paths.serverCert, keyFile: pki.paths.serverKey, clientCaFile: pki.paths.caCert,
        }));
      }
      await Promise.all(apis.map((api) => api.start()));
      return new HaCluster(stores, apis, { ca: pki.caCert, cert: pki.adminCert, key: pki.adminKey }, dir);
    } catch (error) {
      await Promise.all(apis.map((api) => api.kill()));
      await stores.close();
      await dir.remove();
      throw error;
    }
  }

  /** URLs of the running API replicas. */
  endpoints(): string[] {
    return this.apis.filter((api) => api.running).map((api) => api.url);
  }

  diagnostics(): string {
    return `${this.stores.diagnostics()}\n${this.apis.map((api) => `--- ${api.options.name} ---\n${api.output().slice(-3000)}`).join('\n')}`;
  }

  async close(): Promise<void> {
    await Promise.all(this.apis.map((api) => api.kill()));
    await this.stores.close();
    await this.#dir.remove().catch(() => undefined);
  }
}

export interface WriteRecord {
  readonly name: string;
  /** 201 → acknowledged with resourceVersion; anything else → outcome unknown (or refused). */
  readonly status: number;
  readonly resourceVersion?: string;
  /** performance.now() when the request was sent. */
  readonly sentAt: number;
  /** performance.now() when the answer (or the failure) arrived. */
  readonly answeredAt: number;
}

/**
 * Writers create ConfigMaps w<writer>-<n> in `namespace` until stop(); each request goes to the
 * next endpoint (round robin, endpoints() re-read each time, so killed replicas drop out). A
 * network error or 5xx is recorded with status 0/5xx (unknown outcome) and the writer moves on.
 */
export class Writers {
  readonly records: WriteRecord[] = [];
  #stopped = false;
  readonly #running: Promise<void>[];

  constructor(endpoints: () => readonly string[], credentials: Credentials, namespace: string, count: number) {
    let turn = 0;
    this.#running = Array.from({ length: count }, async (_, writer) => {
      for (let sequence = 0; !this.#stopped; sequence++) {
        const current = endpoints();
        const endpoint = current[turn++ % Math.max(1, current.length)];
        const name = `w${writer}-${sequence}`;
        if (endpoint === undefined) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        }
        const sentAt = performance.now();
        try {
          const response = await httpsRequest(endpoint, credentials, {
            method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, timeoutMs: 15_000,
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { writer: String(writer), sequence: String(sequence) } },
          });
          const body = response.status === 201 ? JSON.parse(response.body) as { metadata?: { resourceVersion?: string } } : undefined;
          this.records.push({ name, status: response.status, sentAt, answeredAt: performance.now(), ...(body?.metadata?.resourceVersion === undefined ? {} : { resourceVersion: body.metadata.resourceVersion }) });
          if (response.status >= 500) await new Promise((resolve) => setTimeout(resolve, 50));
        } catch {
          this.records.push({ name, status: 0, sentAt, answeredAt: performance.now() });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    });
  }

  acknowledged(): WriteRecord[] {
    return this.records.filter((record) => record.status === 201);
  }

  /** Creates acknowledged whose request was sent at or after `since` (performance.now()). */
  acknowledgedSince(since: number): number {
    return this.records.filter((record) => record.status === 201 && record.sentAt >= since).length;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#running);
  }
}

export interface SeenEvent {
  readonly type: string;
  readonly name: string;
  readonly resourceVersion: string;
}

/**
 * A watch on one namespace's ConfigMaps that resumes on the next endpoint from the last
 * resourceVersion it saw (bookmarks included) whenever its stream ends or fails, as client-go's
 * reflector does. An ERROR event (e.g. 410 Gone) is recorded in `errors` and also resumed from.
 */
export class ResumingWatcher {
  readonly events: SeenEvent[] = [];
  readonly errors: string[] = [];
  reconnects = 0;
  lastResourceVersion: string;
  #stopped = false;
  #request: ReturnType<typeof https.request> | undefined;
  readonly #done: Promise<void>;

  constructor(endpoints: () => readonly string[], credentials: Credentials, namespace: string, fromResourceVersion: string, firstEndpoint: number) {
    this.lastResourceVersion = fromResourceVersion;
    let turn = firstEndpoint;
    this.#done = (async () => {
      while (!this.#stopped) {
        const current = endpoints();
        const endpoint = current[turn % Math.max(1, current.length)];
        if (endpoint !== undefined) {
          await this.#follow(endpoint, credentials, namespace).catch(() => undefined);
        }
        if (this.#stopped) break;
        this.reconnects += 1;
        turn += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#request?.destroy();
    await this.#done;
  }

  #follow(endpoint: string, credentials: Credentials, namespace: string): Promise<void> {
    const url = new URL(`/api/v1/namespaces/${namespace}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${this.lastResourceVersion}`, endpoint);
    return new Promise<void>((resolve, reject) => {
      const request = https.request({
        hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: 'GET', agent: false,
        headers: { accept: 'application/json' }, ca: credentials.ca, cert: credentials.cert, key: credentials.key,
      }, (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`watch answered ${response.statusCode ?? 0}`));
          return;
        }
        let pending = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          pending += chunk;
          for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
            const line = pending.slice(0, newline).trim();
            pending = pending.slice(newline + 1);
            if (line !== '') this.#onEvent(JSON.parse(line) as { type: string; object: { metadata?: { name?: string; resourceVersion?: string }; code?: number; message?: string } });
          }
        });
        response.on('end', resolve);
        response.on('close', resolve);
        response.on('error', reject);
      });
      this.#request = request;
      request.on('error', reject);
      request.end();
    });
  }

  #onEvent(event: { type: string; object: { metadata?: { name?: string; resourceVersion?: string }; code?: number; message?: string } }): void {
    if (event.type === 'ERROR') {
      this.errors.push(`${event.object.code ?? '?'} ${event.object.message ?? ''}`);
      this.#request?.destroy();
      return;
    }
    const resourceVersion = event.object.metadata?.resourceVersion ?? '';
    if (event.type !== 'BOOKMARK') this.events.push({ type: event.type, name: event.object.metadata?.name ?? '', resourceVersion });
    if (resourceVersion !== '') this.lastResourceVersion = resourceVersion;
  }
}
