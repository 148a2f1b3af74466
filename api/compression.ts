// Owns: gzip response compression, as kube-apiserver's APIResponseCompression (beta, on by
// default) does it in responsewriters' deferredResponseWriter: only when the client lists gzip
// in Accept-Encoding, only for a body larger than 128 KiB (smaller ones are not worth the CPU),
// at gzip level 1 (kube's defaultGzipContentEncodingLevel: least CPU, ratios within ~1.3× of the
// best), with `Content-Encoding: gzip` and `Vary: Accept-Encoding` on what it compresses and
// nothing changed on what it does not (ETags are kept, as kube keeps them). Watch streams are
// not compressed — kube's WatchServer writes its frames to the connection, never through that
// writer, and here the watch handler writes to the hijacked response, which no onSend hook
// sees. The hot path of a small response is a length check: the Accept-Encoding header is only
// read for bodies over the threshold, and compression runs off the event loop (zlib's thread
// pool).
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** kube's defaultGzipThresholdBytes: bodies of at most this many bytes are sent as they are. */
export const compressionThresholdBytes = 128 * 1024;

/** kube's defaultGzipContentEncodingLevel. */
export const gzipLevel = 1;

/** Whether a body is over the threshold; strings are measured in UTF-8 only when it matters. */
function overThreshold(payload: unknown): payload is string | Buffer {
  if (typeof payload === 'string') {
    if (payload.length > compressionThresholdBytes) return true;
    // Every UTF-16 unit is at most 3 UTF-8 bytes.
    if (payload.length * 3 <= compressionThresholdBytes) return false;
    return Buffer.byteLength(payload, 'utf8') > compressionThresholdBytes;
  }
  return Buffer.isBuffer(payload) && payload.length > compressionThresholdBytes;
}

/**
 * Whether Accept-Encoding names gzip. kube matches the bare token only; a `;q=` parameter is
 * read here too so that `gzip;q=0` (refused) is honoured and `gzip;q=0.8` is not missed.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  for (const entry of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [coding = '', ...parameters] = entry.split(';');
    if (coding.trim().toLowerCase() !== 'gzip') continue;
    const quality = parameters.map((parameter) => parameter.trim().toLowerCase()).find((parameter) => parameter.startsWith('q='));
    return quality === undefined || Number(quality.slice(2)) > 0;
  }
  return false;
}

function compressible(request: FastifyRequest, reply: FastifyReply, payload: unknown): payload is string | Buffer {
  return overThreshold(payload)
    && request.method !== 'HEAD'
    && reply.statusCode !== 204 && reply.statusCode !== 304
    && reply.getHeader('content-encoding') === undefined
    && acceptsGzip(request.headers['accept-encoding']);
}

function addVary(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const values = current === undefined ? [] : (Array.isArray(current) ? current : String(current).split(',')).map((value) => String(value).trim());
  if (values.some((value) => value.toLowerCase() === 'accept-encoding' || value === '*')) return;
  reply.header('vary', [...values.filter((value) => value !== ''), 'Accept-Encoding'].join(', '));
}

/** Installs the onSend hook; register it after every hook that changes the payload. */
export function registerCompression(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!compressible(request, reply, payload)) {
      done(null, payload);
      return;
    }
    gzip(payload, { level: gzipLevel }, (error, compressed) => {
      if (error !== null) {
        done(error);
        return;
      }
      reply.header('content-encoding', 'gzip');
      addVary(reply);
      reply.removeHeader('content-length');
      done(null, compressed);
    });
  });
}
