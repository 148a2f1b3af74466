// A minimal HTTPS client for the Kubernetes API of a kstore server: credentials from the admin
// kubeconfig (base64 certificate-authority-data, client-certificate-data, client-key-data),
// one TLS connection per request, a timeout on every request, and the raw status, headers and
// body returned (so tests can assert error Status bodies too).
import https from 'node:https';
import tls from 'node:tls';
import type { IncomingHttpHeaders } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

export interface Credentials {
  /** PEM of the CA that signs the serving certificate (what the client trusts). */
  readonly ca: string;
  /** PEM client certificate and key; omit both for an anonymous request. */
  readonly cert?: string;
  readonly key?: string;
}

export interface KubeconfigCredentials extends Credentials {
  readonly server: string;
  readonly cert: string;
  readonly key: string;
}

interface KubeconfigDocument {
  clusters?: { name?: string; cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  users?: { name?: string; user?: { 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
  'current-context'?: string;
}

function fromBase64(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new Error(`kubeconfig has no ${what}`);
  return Buffer.from(value, 'base64').toString('utf8');
}

/** Server URL and credentials of the current context of a kubeconfig with inline (base64) data. */
export async function readKubeconfig(file: string): Promise<KubeconfigCredentials> {
  const document = parse(await readFile(file, 'utf8')) as KubeconfigDocument;
  const contextName = document['current-context'];
  const context = document.contexts?.find((entry) => entry.name === contextName)?.context ?? document.contexts?.[0]?.context;
  const cluster = document.clusters?.find((entry) => entry.name === context?.cluster)?.cluster ?? document.clusters?.[0]?.cluster;
  const user = document.users?.find((entry) => entry.name === context?.user)?.user ?? document.users?.[0]?.user;
  if (!cluster?.server) throw new Error(`kubeconfig ${file} has no server`);
  return {
    server: cluster.server,
    ca: fromBase64(cluster['certificate-authority-data'], 'certificate-authority-data'),
    cert: fromBase64(user?.['client-certificate-data'], 'client-certificate-data'),
    key: fromBase64(user?.['client-key-data'], 'client-key-data'),
  };
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The peer (serving) certificate of the connection. */
  readonly peerCertificate: PeerCertificate | undefined;
}

export interface RequestOptions {
  readonly method?: string;
  /** Path with query, e.g. /api/v1/namespaces/t/configmaps?dryRun=All */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string or Buffer is sent as is; anything else as JSON. */
  readonly body?: unknown;
  /** Overrides the TLS server name (SNI and certificate host check). */
  readonly servername?: string;
  /** Do not verify the serving certificate (kubeadm's discovery before it knows the CA). */
  readonly insecure?: boolean;
  readonly timeoutMs?: number;
}

const defaultRequestTimeoutMs = 30_000;

/** One HTTPS request on a fresh connection; rejects on network errors and timeouts only. */
export function httpsRequest(server: string, credentials: Credentials, options: RequestOptions): Promise<HttpResponse> {
  const url = new URL(options.path, server);
  let payload: Buffer | undefined;
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) {
    if (typeof options.body === 'string') payload = Buffer.from(options.body, 'utf8');
    else if (Buffer.isBuffer(options.body)) payload = options.body;
    else payload = Buffer.from(JSON.stringify(options.body), 'utf8');
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const timeoutMs = options.timeoutMs ?? defaultRequestTimeoutMs;
  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    let responded = false;
    const request = https.request({
      protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`,
      method: options.method ?? 'GET', headers, agent: false,
      ...(options.insecure === true ? { rejectUnauthorized: false } : { ca: credentials.ca }), cert: credentials.cert, key: credentials.key,
      ...(options.servername === undefined ? {} : { servername: options.servername }),
    }, (response) => {
      responded = true;
      const peerCertificate = (response.socket as TLSSocket).getPeerCertificate?.();
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => {
        if (!settled) {
          settled = true;
          reject(error);
        }
      });
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8'), peerCertificate });
      });
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`${options.method ?? 'GET'} ${url.href} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('error', (error) => {
      // A server may answer (e.g. 413) and close before the whole body was written; the
      // response then still arrives and wins.
      if (responded || settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
    request.end(payload);
  });
}

/** JSON.parse of a response body, with the body in the error when it is not JSON. */
export function jsonBody<T = Record<string, unknown>>(response: HttpResponse): T {
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new Error(`expected a JSON body, got HTTP ${response.status}: ${response.body.slice(0, 2000)}`);
  }
}

/** A client bound to one server and one set of credentials. */
export class KubeClient {
  readonly server: string;
  readonly credentials: Credentials;

  constructor(server: string, credentials: Credentials) {
    this.server = server;
    this.credentials = credentials;
  }

  static async fromKubeconfig(file: string): Promise<KubeClient> {
    const config = await readKubeconfig(file);
    return new KubeClient(config.server, config);
  }

  request(options: RequestOptions): Promise<HttpResponse> {
    return httpsRequest(this.server, this.credentials, options);
  }

  get(path: string): Promise<HttpResponse> {
    return this.request({ method: 'GET', path });
  }

  post(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpResponse> {
    return this.request({ method: 'POST', path, body, ...(headers ? { headers } : {}) });
  }

  put(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpResponse> {
    return this.request({ method: 'PUT', path, body, ...(headers ? { headers } : {}) });
  }

  delete(path: string): Promise<HttpResponse> {
    return this.request({ method: 'DELETE', path });
  }
}

/**
 * Sends a request whose body the server may refuse before reading it all (413): like Go's
 * HTTP client, it keeps reading after a failed write, so the early answer is still seen.
 * Node's https client drops the response on EPIPE, hence a raw TLS socket here.
 */
export function httpsRequestTolerantOfEarlyReply(server: string, credentials: Credentials, options: RequestOptions & { body: string }): Promise<{ status: number; body: string }> {
  const url = new URL(options.path, server);
  const payload = Buffer.from(options.body, 'utf8');
  const head = [
    `${options.method ?? 'POST'} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Accept: application/json',
    `Content-Type: ${options.headers?.['content-type'] ?? 'application/json'}`, `Content-Length: ${payload.length}`, 'Connection: close', '', '',
  ].join('\r\n');
  const timeoutMs = options.timeoutMs ?? defaultRequestTimeoutMs;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = tls.connect({
      host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port), ca: credentials.ca, cert: credentials.cert, key: credentials.key,
      servername: url.hostname.replace(/^\[|\]$/g, ''),
    }, () => {
      socket.write(head);
      socket.write(payload, () => undefined);
    });
    const timer = setTimeout(() => socket.destroy(new Error(`request timed out after ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined); // a failed write is expected; what was read still counts
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!match) {
        reject(new Error(`no HTTP response before the connection closed (read ${text.length} bytes)`));
        return;
      }
      const [headers = '', ...rest] = text.split('\r\n\r\n');
      const chunked = /transfer-encoding:\s*chunked/i.test(headers);
      resolve({ status: Number(match[1]), body: chunked ? decodeChunked(rest.join('\r\n\r\n')) : rest.join('\r\n\r\n') });
    });
  });
}

function decodeChunked(text: string): string {
  let body = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) return body;
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return body;
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** One event of a watch stream as the server sent it (one JSON document per line). */
export interface WatchEvent {
  readonly type: string;
  readonly object: {
    readonly kind?: string;
    readonly code?: number;
    readonly reason?: string;
    readonly metadata?: { readonly name?: string; readonly resourceVersion?: string; readonly annotations?: Readonly<Record<string, string>> };
  };
}

/** A watch response read line by line: `next()` waits for the next event (with a deadline). */
export interface WatchReader {
  readonly status: number;
  next(timeoutMs?: number): Promise<WatchEvent>;
  /** Resolves true if the server ends the stream within `timeoutMs` with no further event. */
  ended(timeoutMs?: number): Promise<boolean>;
  close(): void;
}

/** Opens a watch (`path` must carry watch=1) and resolves once the response headers arrived. */
export function openWatch(server: string, credentials: Credentials, path: string): Promise<WatchReader> {
  const url = new URL(path, server);
  return new Promise<WatchReader>((resolve, reject) => {
    const request = https.request({
      protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`,
      method: 'GET', headers: { accept: 'application/json' }, agent: false, ca: credentials.ca, cert: credentials.cert, key: credentials.key,
    }, (response) => {
      response.setEncoding('utf8');
      let buffer = '';
      let done = false;
      const waiters: (() => void)[] = [];
      const wake = (): void => { for (const waiter of waiters.splice(0)) waiter(); };
      response.on('data', (chunk: string) => { buffer += chunk; wake(); });
      response.on('end', () => { done = true; wake(); });
      response.on('error', () => { done = true; wake(); });
      const waitForChange = (timeoutMs: number, what: string): Promise<void> => new Promise((resolveWait, rejectWait) => {
        const timer = setTimeout(() => rejectWait(new Error(`watch ${url.pathname}${url.search}: no ${what} within ${timeoutMs} ms; buffered: ${buffer.slice(0, 500)}`)), timeoutMs);
        waiters.push(() => { clearTimeout(timer); resolveWait(); });
      });
      resolve({
        status: response.statusCode ?? 0,
        async next(timeoutMs = 10_000): Promise<WatchEvent> {
          const deadline = Date.now() + timeoutMs;
          while (!buffer.includes('\n')) {
            if (done) throw new Error(`watch ${url.pathname}${url.search} ended; buffered: ${buffer.slice(0, 500)}`);
            await waitForChange(Math.max(1, deadline - Date.now()), 'event');
          }
          const newline = buffer.indexOf('\n');
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          return JSON.parse(line) as WatchEvent;
        },
        async ended(timeoutMs = 10_000): Promise<boolean> {
          const deadline = Date.now() + timeoutMs;
          while (!done && !buffer.includes('\n')) await waitForChange(Math.max(1, deadline - Date.now()), 'end');
          return done && !buffer.includes('\n');
        },
        close: () => request.destroy(),
      });
    });
    request.on('error', reject);
    request.end();
  });
}
