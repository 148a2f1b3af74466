// Owns: the request body size limit (kube-apiserver's 3 MiB MaxRequestBodyBytes) enforced so
// that clients still read the 413. Answering before the body is read and closing the
// connection makes the kernel reset it while the client is still sending, and the client sees
// ECONNRESET/EPIPE instead of the Status (Go's server avoids this with a lingering close). So
// an oversized body is read to its end and discarded — up to bodyDrainBytesMax; beyond that
// the connection is cut as the lesser evil — and only then answered with 413.
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** kube-apiserver's MaxRequestBodyBytes: 3 MiB. */
export const requestBodyBytesMax = 3 * 1024 * 1024;

/**
 * How much of an oversized body is read and thrown away to deliver a clean 413: 4× the
 * limit covers a client that overshoots by a large object (a 10 MiB ConfigMap) while bounding
 * the bandwidth one bad request can make the server read.
 */
export const bodyDrainBytesMax = 4 * requestBodyBytesMax;

export class BodyTooLargeError extends Error {
  readonly code = 'KSTORE_BODY_TOO_LARGE';
  constructor() {
    super(`Request entity too large: limit is ${requestBodyBytesMax}`);
    this.name = 'BodyTooLargeError';
  }
}

/** Passes the first requestBodyBytesMax bytes through, discards the rest, fails at the end. */
function limitedBody(): Transform {
  let received = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      received += chunk.length;
      if (received <= requestBodyBytesMax) callback(null, chunk);
      else callback();
    },
    flush(callback: TransformCallback) {
      callback(received > requestBodyBytesMax ? new BodyTooLargeError() : null);
    },
  });
}

/** Installs the limit; fastify's own bodyLimit must be bodyDrainBytesMax. */
export function registerBodyLimit(app: FastifyInstance): void {
  app.addHook('preParsing', async (_request, _reply, payload) => payload.pipe(limitedBody()));
}
