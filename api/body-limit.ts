// Owns: reading request bodies within bounds of size and time, and never leaving a connection
// with a half-read body behind an answer.
//
// Size: kube-apiserver's 3 MiB MaxRequestBodyBytes, enforced so that clients still read the 413.
// Answering before the body is read and closing the connection makes the kernel reset it while
// the client is still sending, and the client sees ECONNRESET/EPIPE instead of the Status. So an
// oversized body is read to its end and discarded — up to bodyDrainBytesMax; beyond that the
// read stops and the connection is closed after the 413 — and only then answered.
//
// Time: Go's http.Server as kube-apiserver configures it sets ReadHeaderTimeout (32 s) but no
// ReadTimeout, and a body that trickles in is only bounded there by the 60 s --request-timeout
// filter around non-long-running requests (504 Timeout). Here a body must arrive whole within
// bodyReadTimeoutMsDefault (60 s, the same budget) of the request's headers, and after a grace of
// 10 s at no less than 1 KiB/s on average — a 3 MiB body at the deadline's pace needs ~52 KiB/s,
// so the floor only catches clients that trickle bytes to hold a connection (one byte every few
// seconds would otherwise keep it for the whole minute). A body that misses either bound is
// answered 408 Request Timeout with a metav1.Status (reason Timeout) and `Connection: close`:
// HTTP's status for "the client did not send the request in time" (Node's own request timeout
// answers 408 too; Go closes such a connection without an answer, and kube's timeout filter,
// which answers for the whole request, uses 504).
//
// Refused uploads: an answer that goes out while the body is still unread (415, an early 413 on
// Content-Length, 401/403 from the hooks, the 408 above) does what Go's server does after a
// handler: up to unreadBodyDrainBytesMax (Go's maxPostHandlerReadBytes, 256 KiB) of remaining
// body is read and thrown away before answering, so the connection stays usable; more than that
// (or a body that stalls) and the answer carries `Connection: close` and the connection is
// closed lingering — our side half-closed after the answer, what the client still sends read and
// discarded for up to lingerMs (Go's rstAvoidanceDelay), then destroyed — so the client reads the
// answer rather than a reset, and no half-read connection stays open.
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestBodyBytesMax } from './request-limits.ts';
import { ApiError } from './status.ts';

/** kube-apiserver's MaxRequestBodyBytes (request-limits.ts), enforced on the wire here. */
export { requestBodyBytesMax };

/**
 * How much of an oversized body is read and thrown away to deliver a clean 413: 4× the
 * limit covers a client that overshoots by a large object (a 10 MiB ConfigMap) while bounding
 * the bandwidth one bad request can make the server read.
 */
export const bodyDrainBytesMax = 4 * requestBodyBytesMax;

/** Whole-body deadline, from the request's headers to the body's last byte. */
export const bodyReadTimeoutMsDefault = 60_000;
/** The slowest average a body may arrive at once bodyReadRateGraceMsDefault has passed. */
export const bodyReadMinBytesPerSecondDefault = 1024;
export const bodyReadRateGraceMsDefault = 10_000;

/** Go's maxPostHandlerReadBytes: unread body read after an early answer to keep the connection. */
export const unreadBodyDrainBytesMax = 256 * 1024;

/** Go's rstAvoidanceDelay: how long a closing connection keeps reading before it is destroyed. */
export const lingerMs = 500;

/** kube-apiserver's ReadHeaderTimeout; Node checks it every headersCheckIntervalMs. */
export const headersTimeoutMs = 32_000;
export const headersCheckIntervalMs = 2_000;

export interface BodyReadLimits {
  /** Whole-body deadline (default bodyReadTimeoutMsDefault). */
  readonly timeoutMs?: number;
  /** Minimum average rate after the grace period (default bodyReadMinBytesPerSecondDefault). */
  readonly minBytesPerSecond?: number;
  /** Time before the minimum rate applies (default bodyReadRateGraceMsDefault). */
  readonly rateGraceMs?: number;
}

/**
 * Node's own request timeouts (fastify/http server options): headers within kube's
 * ReadHeaderTimeout, and the whole request (headers and body, never the response, so watches are
 * not affected) within that plus the body deadline — a backstop behind the 408 of this module,
 * answered by Node with a bare 408 and a closed connection.
 */
export function serverTimeouts(limits: BodyReadLimits = {}): ServerTimeouts {
  const bodyTimeoutMs = limits.timeoutMs ?? bodyReadTimeoutMsDefault;
  return {
    requestTimeout: headersTimeoutMs + bodyTimeoutMs + headersCheckIntervalMs,
    http: { headersTimeout: headersTimeoutMs, connectionsCheckingInterval: headersCheckIntervalMs },
  };
}

export interface ServerTimeouts {
  /** fastify's requestTimeout. */
  readonly requestTimeout: number;
  /** Options of Node's http/https server. */
  readonly http: { readonly headersTimeout: number; readonly connectionsCheckingInterval: number };
}

export class BodyTooLargeError extends Error {
  readonly code = 'KSTORE_BODY_TOO_LARGE';
  constructor() {
    super(`Request entity too large: limit is ${requestBodyBytesMax}`);
    this.name = 'BodyTooLargeError';
  }
}

function bodyReadTimeout(): ApiError {
  return new ApiError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Timeout', code: 408,
    message: 'request body was not received in time',
  });
}

type DrainResult = 'complete' | 'excess' | 'timeout' | 'closed';

/** One request with a body, from its headers until the body is read or the connection ends. */
class BodyRead {
  readonly #raw: IncomingMessage;
  readonly #timeoutMs: number;
  readonly #minBytesPerSecond: number;
  readonly #rateGraceMs: number;
  readonly #started = Date.now();
  #received = 0;
  #timer: NodeJS.Timeout | undefined;
  #timedOut = false;
  /** The parsing stream while fastify reads the body through it. */
  #parsing: Transform | undefined;
  /** Set while the rest of the body is read and discarded. */
  #draining: ((result: DrainResult) => void) | undefined;

  constructor(raw: IncomingMessage, limits: BodyReadLimits) {
    this.#raw = raw;
    this.#timeoutMs = limits.timeoutMs ?? bodyReadTimeoutMsDefault;
    this.#minBytesPerSecond = limits.minBytesPerSecond ?? bodyReadMinBytesPerSecondDefault;
    this.#rateGraceMs = limits.rateGraceMs ?? bodyReadRateGraceMsDefault;
    raw.once('end', () => this.#stop());
    raw.once('close', () => {
      this.#stop();
      this.#draining?.('closed');
    });
    this.#schedule();
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** The whole body has arrived (the connection can carry another request). */
  get complete(): boolean {
    return this.#raw.complete || this.#raw.readableEnded;
  }

  /** Bytes of body still to come, when the request declared its length. */
  get remaining(): number | undefined {
    const length = Number(this.#raw.headers['content-length']);
    return Number.isFinite(length) && this.#raw.headers['transfer-encoding'] === undefined ? Math.max(0, length - this.#received) : undefined;
  }

  /**
   * The stream fastify reads the body from: passes the first requestBodyBytesMax bytes, discards
   * the rest up to bodyDrainBytesMax and fails at the end (413), fails at once past that.
   */
  parse(payload: NodeJS.ReadableStream): Transform {
    const limited = new LimitedBody(this);
    // Failing it must never be an uncaught 'error' when fastify is not reading it (a GET).
    limited.on('error', ignoreError);
    this.#parsing = limited;
    return payload.pipe(limited);
  }

  /** LimitedBody's report: `bytes` more of the body arrived. */
  received(bytes: number): void {
    this.#received += bytes;
  }

  /** LimitedBody's report: the parsing stream reached the body's end. */
  parsed(): void {
    this.#parsing = undefined;
  }

  /**
   * Reads and discards the rest of the body, at most `bytesMax` more bytes, within the deadline.
   * The parsing stream (if any) is detached first: fastify has given up on it.
   */
  async drain(bytesMax: number): Promise<DrainResult> {
    if (this.complete) return 'complete';
    if (this.#timedOut) return 'timeout';
    if (this.#raw.destroyed) return 'closed';
    this.#detachParsing();
    const raw = this.#raw;
    let drained = 0;
    const result = await new Promise<DrainResult>((resolve) => {
      const onData = (chunk: Buffer): void => {
        this.#received += chunk.length;
        drained += chunk.length;
        if (drained > bytesMax) this.#draining?.('excess');
      };
      const onEnd = (): void => this.#draining?.('complete');
      this.#draining = (outcome) => {
        this.#draining = undefined;
        raw.removeListener('data', onData);
        raw.removeListener('end', onEnd);
        resolve(outcome);
      };
      raw.on('data', onData);
      raw.once('end', onEnd);
      raw.resume();
    });
    if (result !== 'complete') raw.pause();
    return result;
  }

  /** The body arrived whole before it was parsed: the deadline no longer applies. */
  discardTimer(): void {
    this.#stop();
  }

  /** Lets whatever the client still sends flow and be discarded (the connection is closing). */
  discard(): void {
    this.#detachParsing();
    this.#stop();
    this.#raw.resume();
  }

  #detachParsing(): void {
    if (this.#parsing === undefined) return;
    this.#raw.unpipe(this.#parsing);
    this.#parsing = undefined;
  }

  /** Next check: the deadline, or the first moment the average rate could fall below the floor. */
  #schedule(): void {
    const elapsed = Date.now() - this.#started;
    const rateDue = Math.max(this.#rateGraceMs, Math.floor((this.#received * 1000) / this.#minBytesPerSecond) + 1);
    const due = Math.min(this.#timeoutMs, rateDue);
    this.#timer = setTimeout(() => this.#check(), Math.max(0, due - elapsed));
    this.#timer.unref();
  }

  #check(): void {
    this.#timer = undefined;
    if (this.complete) return;
    const elapsed = Date.now() - this.#started;
    const tooSlow = elapsed >= this.#rateGraceMs && this.#received * 1000 < this.#minBytesPerSecond * elapsed;
    if (elapsed < this.#timeoutMs && !tooSlow) {
      this.#schedule();
      return;
    }
    this.#timedOut = true;
    // While fastify reads the body, failing its stream answers the request (through the error
    // handler: the 408 Status); before, the preParsing hook answers it; while draining after an
    // early answer, that answer closes the connection.
    this.#draining?.('timeout');
    this.#parsing?.destroy(bodyReadTimeout());
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function ignoreError(): void {}

/**
 * The stream fastify reads a body from: passes the first requestBodyBytesMax bytes, discards
 * the rest up to bodyDrainBytesMax and fails at the end (413), fails at once past that. A class
 * rather than Transform options, so a request's body creates no closures.
 */
class LimitedBody extends Transform {
  readonly #read: BodyRead;
  #passed = 0;

  constructor(read: BodyRead) {
    super();
    this.#read = read;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#read.received(chunk.length);
    this.#passed += chunk.length;
    if (this.#passed > bodyDrainBytesMax) callback(new BodyTooLargeError());
    else if (this.#passed <= requestBodyBytesMax) callback(null, chunk);
    else callback();
  }

  override _flush(callback: TransformCallback): void {
    this.#read.parsed();
    callback(this.#passed > requestBodyBytesMax ? new BodyTooLargeError() : null);
  }
}

const bodyReads = new WeakMap<IncomingMessage, BodyRead>();

function hasBody(raw: IncomingMessage): boolean {
  if (raw.headers['transfer-encoding'] !== undefined) return true;
  const length = raw.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * The whole body has already arrived, unread, and its declared length is within
 * requestBodyBytesMax: no deadline can apply any more and the parsing stream would pass every
 * byte, so the body is read as it is (most bodies: a small one arrives with its headers, before
 * the hooks end). Saves a stream and a pipe per request. Node's parser delivers exactly
 * Content-Length bytes (and may not have marked the message complete yet when they are buffered).
 */
function arrivedWithinLimit(raw: IncomingMessage): boolean {
  if (raw.headers['transfer-encoding'] !== undefined) return false;
  const length = Number(raw.headers['content-length']);
  if (!(Number.isSafeInteger(length) && length >= 0 && length <= requestBodyBytesMax)) return false;
  return raw.complete || raw.readableLength >= length;
}

/**
 * Ends a connection after the answer without a reset: our side is half-closed once the answer is
 * written (Node calls destroySoon for a `Connection: close` response), what the client still
 * sends is read and discarded, and the socket is destroyed when the client closes or after
 * lingerMs.
 */
function closeLingering(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    const timer = setTimeout(() => this.destroy(), lingerMs);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

/** An answer is going out: make sure no unread body is left on the connection. */
async function settleBody(read: BodyRead, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const remaining = read.remaining;
  if (!read.timedOut && (remaining === undefined || remaining <= unreadBodyDrainBytesMax)) {
    if ((await read.drain(unreadBodyDrainBytesMax)) === 'complete') return;
  }
  if (reply.raw.headersSent) return;
  reply.header('Connection', 'close');
  read.discard();
  const socket = request.raw.socket;
  if (socket instanceof Socket && !socket.destroyed) closeLingering(socket);
}

/** Installs the limits; fastify's own bodyLimit must be bodyDrainBytesMax. */
export function registerBodyLimit(app: FastifyInstance, limits: BodyReadLimits = {}): void {
  app.addHook('onRequest', async (request) => {
    if (hasBody(request.raw)) bodyReads.set(request.raw, new BodyRead(request.raw, limits));
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    const read = bodyReads.get(request.raw);
    if (read === undefined) return payload;
    if (read.timedOut) throw bodyReadTimeout();
    if (payload === request.raw && arrivedWithinLimit(request.raw)) {
      // Arrived while the earlier hooks ran: nothing left to bound (and no hook before this one
      // replaced the stream, e.g. with a decoder whose output the limit would have to count).
      read.discardTimer();
      bodyReads.delete(request.raw);
      return payload;
    }
    return read.parse(payload);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const read = bodyReads.get(request.raw);
    if (read === undefined || read.complete) {
      done(null, payload);
      return;
    }
    settleBody(read, request, reply).then(() => done(null, payload), done);
  });
}
