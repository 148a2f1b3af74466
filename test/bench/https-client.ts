// Owns: the benchmark's HTTPS client for the Kubernetes API: keep-alive connections (as
// client-go keeps them) with the admin client certificate, one agent per API endpoint, JSON
// requests that resolve with status and parsed body, and long-running watch streams that hand
// each event line to a callback with its arrival time; and the few request helpers the
// benchmarks share (a status check, a namespace, a ConfigMap body). Benchmarks only; tests use
// test/support/kube-client.ts (one connection per request, raw bodies for error assertions).
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Credentials } from '../support/kube-client.ts';

export interface JsonResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface WatchEventLine {
  readonly type: string;
  readonly object: { readonly metadata?: { readonly name?: string; readonly resourceVersion?: string }; readonly data?: Record<string, string> };
}

/** A started watch: stop() ends it; `ended` resolves when the server or stop() ends the stream. */
export interface WatchStream {
  stop(): void;
  readonly ended: Promise<void>;
}

const requestTimeoutMs = 30_000;

export class BenchClient {
  readonly server: string;
  readonly #agent: https.Agent;
  readonly #credentials: Credentials;

  constructor(server: string, credentials: Credentials, maxSockets: number) {
    this.server = server;
    this.#credentials = credentials;
    this.#agent = new https.Agent({
      keepAlive: true, maxSockets, maxFreeSockets: maxSockets,
      ca: credentials.ca, ...(credentials.cert === undefined ? {} : { cert: credentials.cert }), ...(credentials.key === undefined ? {} : { key: credentials.key }),
    });
  }

  /** The credentials this client presents (a watcher thread opens its own connections with them). */
  get credentials(): Credentials {
    return this.#credentials;
  }

  close(): void {
    this.#agent.destroy();
  }

  /** One JSON request on a pooled connection; rejects on network errors and timeouts only. */
  request(method: string, path: string, body?: unknown): Promise<JsonResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const url = new URL(path, this.server);
    return new Promise<JsonResponse>((resolve, reject) => {
      const request = https.request({
        hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`, method, agent: this.#agent,
        headers: {
          accept: 'application/json',
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(payload.length) }),
        },
        timeout: requestTimeoutMs,
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: response.statusCode ?? 0, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> });
          } catch {
            reject(new Error(`${method} ${path}: HTTP ${response.statusCode ?? 0} with a body that is not JSON: ${text.slice(0, 200)}`));
          }
        });
      });
      request.on('timeout', () => request.destroy(new Error(`${method} ${path} timed out after ${requestTimeoutMs} ms`)));
      request.on('error', reject);
      request.end(payload);
    });
  }

  /**
   * Opens a watch on its own connection (a watch holds its connection for its lifetime) and calls
   * onEvent with each event and its arrival time (process.hrtime, ms). Resolves once the server
   * answered 200; rejects otherwise.
   */
  watch(path: string, onEvent: (event: WatchEventLine, arrivedMs: number) => void): Promise<WatchStream> {
    const url = new URL(path, this.server);
    return new Promise<WatchStream>((resolve, reject) => {
      const request = https.request({
        hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`, method: 'GET', agent: false,
        headers: { accept: 'application/json' },
        ca: this.#credentials.ca, cert: this.#credentials.cert, key: this.#credentials.key,
      }, (response: IncomingMessage) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`watch ${path}: HTTP ${response.statusCode ?? 0}`));
          return;
        }
        let pending = '';
        const ended = new Promise<void>((end) => {
          response.on('end', end);
          response.on('close', end);
          response.on('error', () => end());
        });
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          const arrived = Number(process.hrtime.bigint()) / 1e6;
          pending += chunk;
          let newline = pending.indexOf('\n');
          while (newline >= 0) {
            const line = pending.slice(0, newline);
            pending = pending.slice(newline + 1);
            if (line.trim() !== '') onEvent(JSON.parse(line) as WatchEventLine, arrived);
            newline = pending.indexOf('\n');
          }
        });
        resolve({ stop: () => request.destroy(), ended });
      });
      request.on('error', (error) => reject(error));
      request.end();
    });
  }
}

/** The response's body when its status is one of `accepted`; rejects with `what` and the status otherwise. */
export async function expectStatus(promise: Promise<JsonResponse>, accepted: readonly number[], what: string): Promise<Record<string, unknown>> {
  const response = await promise;
  if (!accepted.includes(response.status)) throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
  return response.body;
}

/** Creates namespace `name` unless it exists. */
export async function ensureNamespace(client: BenchClient, name: string): Promise<void> {
  await expectStatus(client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }), [201, 409], `create namespace ${name}`);
}

/** A ConfigMap holding `value` under the key "value". */
export function configMap(name: string, value: string, labels?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: labels === undefined ? { name } : { name, labels }, data: { value } };
}
