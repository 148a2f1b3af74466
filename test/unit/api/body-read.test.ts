// Request bodies over a real listener: a body that trickles in is answered 408 (a Status) and its
// connection closed, at the deadline or below the minimum rate; an upload refused before its
// body is read (415, 413, 403) leaves no half-read connection behind — a small rest is drained
// and the connection kept, a large one gets `Connection: close` and the connection ends — and a
// chunked body past the drain bound is not read forever.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer, StoreClient, systemMastersAuthorizer } from '../../../api/index.ts';
import type { FastifyInstance } from 'fastify';
import type { BodyReadLimits } from '../../../api/body-limit.ts';
import { bodyDrainBytesMax, requestBodyBytesMax } from '../../../api/body-limit.ts';
import { waitFor } from '../../support/wait-for.ts';
import { admin, headerAuthenticator, ImmediateBackend } from './harness.ts';

let app: FastifyInstance | undefined;
let port: number;

async function start(bodyRead: BodyReadLimits): Promise<void> {
  ({ app } = await buildServer({ store: new StoreClient(new ImmediateBackend()), authenticators: [headerAuthenticator], authorizers: [systemMastersAuthorizer], bodyRead }));
  const namespace = await app.inject({ method: 'POST', url: '/api/v1/namespaces', headers: { ...admin, 'content-type': 'application/json' }, payload: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 't' } }) });
  expect(namespace.statusCode).toBe(201);
  port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
}

afterEach(async () => {
  await app?.close();
  app = undefined;
});

function openConnections(): Promise<number> {
  return new Promise((resolve, reject) => app!.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

interface Response {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A raw HTTP/1.1 client connection: what it received, parsed response by response. */
class Connection {
  readonly socket: net.Socket;
  #received = Buffer.alloc(0);
  #consumed = 0;
  closed = false;
  errored = false;

  constructor() {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.#received = Buffer.concat([this.#received, chunk]);
    });
    this.socket.on('error', () => {
      this.errored = true;
    });
    this.socket.on('close', () => {
      this.closed = true;
    });
  }

  /** The next complete response (Content-Length framed), once it has arrived. */
  async response(timeoutMs = 10_000): Promise<Response> {
    return waitFor(() => this.#parse(), { timeoutMs, description: 'a response', diagnostics: () => this.#received.subarray(this.#consumed).toString('latin1').slice(0, 400) });
  }

  #parse(): Response | undefined {
    const text = this.#received.subarray(this.#consumed);
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine = '', ...lines] = text.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (text.length < end + 4 + length) return undefined;
    this.#consumed += end + 4 + length;
    return { status: Number(statusLine.split(' ')[1]), headers, body: text.subarray(end + 4, end + 4 + length).toString('utf8') };
  }
}

function head(method: string, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: kstore\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}

const cms = '/api/v1/namespaces/t/configmaps';
const json = { ...admin, 'content-type': 'application/json' };

async function expectConnectionEnds(connection: Connection): Promise<void> {
  await waitFor(() => connection.closed, { timeoutMs: 5_000, description: 'the client connection closed' });
  await waitFor(async () => (await openConnections()) === 0, { timeoutMs: 5_000, description: 'no connection left on the server' });
}

/** Sends one byte of `body` every `intervalMs` until the connection closes. */
function trickle(connection: Connection, body: string, intervalMs: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (connection.closed || sent >= body.length) {
      clearInterval(timer);
      return;
    }
    connection.socket.write(body[sent++]!);
  }, intervalMs);
  connection.socket.once('close', () => clearInterval(timer));
}

describe('request body deadlines', () => {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow' }, data: { a: 'b' } });

  it('a body sent one byte every 200 ms past the deadline is answered 408 and its connection closed', async () => {
    await start({ timeoutMs: 1_000 });
    const connection = new Connection();
    const startedAt = Date.now();
    connection.socket.write(head('POST', cms, { ...json, 'content-length': String(body.length) }));
    trickle(connection, body, 200);
    const response = await connection.response();
    expect(response.status).toBe(408);
    expect(response.headers['connection']).toBe('close');
    expect(JSON.parse(response.body)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Timeout', code: 408 });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
    await expectConnectionEnds(connection);
  });

  it('a chunked body below the minimum rate after the grace period is answered 408', async () => {
    await start({ timeoutMs: 60_000, minBytesPerSecond: 100, rateGraceMs: 500 });
    const connection = new Connection();
    connection.socket.write(head('POST', cms, { ...json, 'transfer-encoding': 'chunked' }));
    connection.socket.write(`${body.length.toString(16)}\r\n`);
    trickle(connection, body, 200);
    const response = await connection.response();
    expect(response.status).toBe(408);
    expect(JSON.parse(response.body)).toMatchObject({ reason: 'Timeout', code: 408 });
    await expectConnectionEnds(connection);
  });

  it('a body that arrives in time is not affected by the deadline', async () => {
    await start({ timeoutMs: 1_000 });
    const connection = new Connection();
    connection.socket.write(head('POST', cms, { ...json, 'content-length': String(body.length) }) + body);
    expect((await connection.response()).status).toBe(201);
    // Keep-alive: a second request on the same connection.
    connection.socket.write(head('GET', `${cms}/slow`, admin));
    expect((await connection.response()).status).toBe(200);
    connection.socket.end();
    await expectConnectionEnds(connection);
  });

  it('a body sent whole is read up to the size limit and refused one byte past it (413)', async () => {
    await start({ timeoutMs: 1_000 });
    const connection = new Connection();
    const sized = (name: string, bytes: number): string => {
      const bare = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '' } });
      return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'x'.repeat(bytes - bare.length) } });
    };
    // Small bodies arrive with their headers (read as they are); large ones in many reads (through the parsing stream).
    const small = sized('small', 200);
    connection.socket.write(head('POST', cms, { ...json, 'content-length': String(small.length) }) + small);
    expect((await connection.response()).status).toBe(201);
    // Read and decoded: the ConfigMap's own 1 MiB data limit answers (422), not the body limit.
    const atLimit = sized('at-limit', requestBodyBytesMax);
    expect(atLimit.length).toBe(requestBodyBytesMax);
    connection.socket.write(head('POST', cms, { ...json, 'content-length': String(atLimit.length) }) + atLimit);
    const read = await connection.response();
    expect(read.status).toBe(422);
    expect(read.body).toContain('ConfigMap');
    const over = sized('over', requestBodyBytesMax + 1);
    connection.socket.write(head('POST', cms, { ...json, 'content-length': String(over.length) }) + over);
    const response = await connection.response();
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ code: 413, message: `Request entity too large: limit is ${requestBodyBytesMax}` });
    connection.socket.end();
    await expectConnectionEnds(connection);
  });
});

describe('uploads refused before their body is read', () => {
  it('a 5 MB text/plain POST gets its 415 and the connection ends', async () => {
    await start({});
    const connection = new Connection();
    const upload = Buffer.alloc(5 * 1024 * 1024, 'x');
    connection.socket.write(head('POST', cms, { ...admin, 'content-type': 'text/plain', 'content-length': String(upload.length) }));
    connection.socket.write(upload);
    const response = await connection.response();
    expect(response.status).toBe(415);
    expect(response.headers['connection']).toBe('close');
    expect(JSON.parse(response.body)).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
    await expectConnectionEnds(connection);
  });

  it('a 5 MB POST without credentials gets its 401 and the connection ends', async () => {
    await start({});
    const connection = new Connection();
    const upload = Buffer.alloc(5 * 1024 * 1024, 'x');
    connection.socket.write(head('POST', cms, { 'content-type': 'application/json', 'content-length': String(upload.length) }));
    connection.socket.write(upload);
    const response = await connection.response();
    expect(response.status).toBe(401);
    expect(response.headers['connection']).toBe('close');
    await expectConnectionEnds(connection);
  });

  it('a small refused upload is drained and its connection kept', async () => {
    await start({});
    const connection = new Connection();
    const upload = 'x'.repeat(64 * 1024);
    connection.socket.write(head('POST', cms, { ...admin, 'content-type': 'text/plain', 'content-length': String(upload.length) }) + upload);
    const response = await connection.response();
    expect(response.status).toBe(415);
    expect(response.headers['connection']).not.toBe('close');
    connection.socket.write(head('GET', cms, admin));
    expect((await connection.response()).status).toBe(200);
    connection.socket.end();
    await expectConnectionEnds(connection);
  });

  it('a Content-Length past the drain bound gets 413 at once and the connection ends', async () => {
    await start({});
    const connection = new Connection();
    connection.socket.write(head('POST', cms, { ...json, 'content-length': String(bodyDrainBytesMax + 1) }));
    connection.socket.write(Buffer.alloc(64 * 1024, 'x'));
    const response = await connection.response();
    expect(response.status).toBe(413);
    expect(response.headers['connection']).toBe('close');
    await expectConnectionEnds(connection);
  });

  it('a chunked body past the drain bound is not read to its end: 413 and the connection ends', async () => {
    await start({});
    const connection = new Connection();
    connection.socket.write(head('POST', cms, { ...json, 'transfer-encoding': 'chunked' }));
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    // Keeps sending (as a client that never ends its body would) until the server gives up.
    const send = (): void => {
      while (!connection.closed && !connection.errored && connection.socket.write(frame));
    };
    connection.socket.on('drain', send);
    send();
    const response = await connection.response(20_000);
    expect(response.status).toBe(413);
    expect(response.headers['connection']).toBe('close');
    await expectConnectionEnds(connection);
  });
});
