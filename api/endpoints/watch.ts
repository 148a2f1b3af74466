// Owns: the watch verb (GET with watch=1 on a collection or an item): where a watch starts
// (the spec's watch table: Get State and Start at Most Recent / Any, or Start at Exact),
// sendInitialEvents with its closing BOOKMARK, label/field selector transitions (an object
// that stops matching is DELETED for the watcher), timeoutSeconds, a 410 ERROR event when
// the start version has left the window, and the chunked stream of one JSON event per line (or,
// for a client that accepts protobuf first, kube's length-framed protobuf WatchEvents), and
// that a watch's watcher is released whenever its client goes away — however and whenever the
// connection ends, including before the watcher was registered. Each write carries every event
// the watcher has queued (one chunk, not one per event); an event's frame is encoded once for
// all watchers that send it alike, and framed once as an HTTP/1.1 chunk (shared-watch-frames.ts):
// once the headers are out, a watch writes its chunks to the socket itself, one buffer per
// write, instead of through the response (which writes size line, data and CRLF as four
// buffers per chunk, merged again by TLS).
import type { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChangeEvent, KubeObject } from '../../actors/index.ts';
import { collectionPrefix, keyString } from '../../actors/index.ts';
import { encodeProtobufWatchEvent, isProtobufKind, PROTOBUF_WATCH_MEDIA_TYPE } from '../codecs/protobuf.ts';
import { negotiate } from '../negotiation.ts';
import type { ResponseFormat } from '../negotiation.ts';
import { bothMatch, parseFieldSelector, parseLabelSelector } from '../selectors.ts';
import type { Selector } from '../selectors.ts';
import { badRequest, gone, invalid } from '../status.ts';
import { toTable } from '../table.ts';
import { partialObjectMetadata, requireItemForm } from '../partial-metadata.ts';
import { WatcherExpiredError } from '../watchcache/cache-watcher.ts';
import type { CacheWatcher, WatcherItem } from '../watchcache/cache-watcher.ts';
import type { EndpointContext, Query } from './context.ts';
import { queryBoolean, queryString } from './context.ts';
import { includeObjectOf } from './get.ts';
import type { IncludeObject } from './get.ts';
import { parseResourceVersion, settleRead } from './read-consistency.ts';
import { httpChunk, SharedWatchFrames } from './shared-watch-frames.ts';
import { collectionKey } from './target.ts';
import type { Target } from './target.ts';

/**
 * kube-apiserver closes a watch after a random time in [minRequestTimeout, 2×) with
 * minRequestTimeout = 1800 s, so that long-lived watches spread over API replicas.
 */
const watchTimeoutSecondsMin = 1800;

/** The initial events (sendInitialEvents, or a watch without a resourceVersion) go out in chunks of about this size. */
const initialChunkBytes = 64 * 1024;

const sharedFrames = new SharedWatchFrames();

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

interface WatchPlan {
  readonly initial: readonly KubeObject[];
  readonly watcher: CacheWatcher;
  readonly revision: number;
  readonly bookmarkAfterInitial: boolean;
}

function watchSelector(target: Target, query: Query): Selector {
  const field = target.name === undefined
    ? queryString(query, 'fieldSelector')
    : [queryString(query, 'fieldSelector'), `metadata.name=${target.name}`].filter((part) => part).join(',');
  return bothMatch(parseLabelSelector(queryString(query, 'labelSelector')), parseFieldSelector(field, target.kind.fieldSelectors));
}

/** kube's cacheWatcher.convertToWatchEvent: selector transitions become ADDED/DELETED. */
export function convertEvent(event: ChangeEvent, selector: Selector): { type: WatchEventType; object: KubeObject } | undefined {
  if (event.type === 'DELETED') return selector.matches(event.object) ? { type: 'DELETED', object: event.object } : undefined;
  const currentPasses = selector.matches(event.object);
  const previousPasses = event.previous !== undefined && selector.matches(event.previous);
  if (event.type === 'ADDED') return currentPasses ? { type: 'ADDED', object: event.object } : undefined;
  if (currentPasses && previousPasses) return { type: 'MODIFIED', object: event.object };
  if (currentPasses) return { type: 'ADDED', object: event.object };
  if (previousPasses) return { type: 'DELETED', object: event.object };
  return undefined;
}

/** The last event's key string: the cache offers one event to every watcher in turn, so each builds it once, not once per watcher. */
let lastKeyed: { readonly event: ChangeEvent; readonly key: string } | undefined;

function eventKeyString(event: ChangeEvent): string {
  if (lastKeyed?.event !== event) lastKeyed = { event, key: keyString(event.key) };
  return lastKeyed.key;
}

async function planWatch(target: Target, query: Query, selector: Selector, context: EndpointContext): Promise<WatchPlan | 'expired'> {
  const rawVersion = queryString(query, 'resourceVersion') ?? '';
  const sendInitialEvents = queryBoolean(query, 'sendInitialEvents');
  const match = queryString(query, 'resourceVersionMatch');
  if (sendInitialEvents && match !== 'NotOlderThan') {
    throw invalid('meta.k8s.io', 'ListOptions', '', [{ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" }]);
  }
  if (!sendInitialEvents && match !== undefined && match !== '') throw badRequest('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  const revision = rawVersion === '' ? undefined : parseResourceVersion(rawVersion);
  const prefix = collectionPrefix(collectionKey(target));
  const filter = { scope: prefix, matches: (event: ChangeEvent) => eventKeyString(event).startsWith(prefix) };
  const withState = revision === undefined || revision === 0 || sendInitialEvents;
  if (!withState) {
    const watcher = context.cache.watch(revision, filter);
    return watcher === 'expired' ? 'expired' : { initial: [], watcher, revision, bookmarkAfterInitial: false };
  }
  const semantic = revision === undefined ? { type: 'mostRecent' as const } : revision === 0 ? { type: 'any' as const } : { type: 'notOlderThan' as const, revision };
  await settleRead(semantic, context);
  // Listing and registering happen in one synchronous step: no event can fall between them.
  const now = context.store.currentRevision();
  const items = context.cache.listAt(collectionKey(target), now);
  const watcher = context.cache.watch(now, filter);
  if (items === 'expired' || watcher === 'expired') return 'expired';
  return { initial: items.filter((item) => selector.matches(item)), watcher, revision: now, bookmarkAfterInitial: sendInitialEvents };
}

/** A BOOKMARK's object: the requested kind (or PartialObjectMetadata) holding only metadata.resourceVersion (spec, Events). */
function bookmarkObject(target: Target, format: ResponseFormat, revision: number, annotations?: Record<string, string>): unknown {
  if (format.type === 'metadata') return partialObjectMetadata(format, target.kind, { metadata: { resourceVersion: String(revision), ...(annotations ? { annotations } : {}) } });
  return {
    kind: target.kind.kind, apiVersion: target.kind.group === '' ? target.kind.version : `${target.kind.group}/${target.kind.version}`,
    metadata: { resourceVersion: String(revision), ...(annotations ? { annotations } : {}) },
  };
}

/** The wire encoding of a format: a metadata-only watch is sent in its own encoding. */
function wireOf(format: ResponseFormat): ResponseFormat {
  return format.type === 'metadata' ? format.encoding : format;
}

function frame(type: WatchEventType, object: unknown, format: ResponseFormat): string | Buffer {
  if (wireOf(format).type === 'protobuf') return encodeProtobufWatchEvent(type, object as Record<string, unknown>);
  return `${JSON.stringify({ type, object })}\n`;
}

function streamContentType(format: ResponseFormat): string {
  return wireOf(format).type === 'protobuf' ? PROTOBUF_WATCH_MEDIA_TYPE : 'application/json';
}

function renderObject(target: Target, object: KubeObject, format: ResponseFormat, includeObject: IncludeObject): unknown {
  if (format.type === 'metadata') return partialObjectMetadata(format, target.kind, object);
  if (format.type !== 'table') return object;
  return toTable(target.kind, [object], { includeObject, listMeta: { resourceVersion: object.metadata.resourceVersion ?? '' } });
}

/**
 * An event's frame: the stored object itself (JSON, YAML and protobuf watches) is encoded once
 * for every watcher sending it as the same type in the same encoding; a rendered one (a Table,
 * PartialObjectMetadata) is the watcher's own.
 */
function eventFrame(target: Target, type: WatchEventType, object: KubeObject, format: ResponseFormat, includeObject: IncludeObject): string | Buffer {
  const variant = sharedVariant(type, format);
  if (variant === undefined) return frame(type, renderObject(target, object, format, includeObject), format);
  return sharedFrames.frame(object, variant, () => frame(type, object, format));
}

/** The shared frames' variant of an event sent as the stored object; undefined for a rendered one (Table, PartialObjectMetadata). */
function sharedVariant(type: WatchEventType, format: ResponseFormat): string | undefined {
  if (format.type === 'metadata' || format.type === 'table') return undefined;
  return `${type} ${wireOf(format).type === 'protobuf' ? 'protobuf' : 'json'}`;
}

/** Frames written as one chunk. */
interface Chunk {
  readonly frames: readonly (string | Buffer)[];
  /** The frames as one HTTP/1.1 chunk when that is shared by other watchers (one stored object's event). */
  readonly sharedHttpChunk?: Buffer;
}

/** The chunk's data for ServerResponse.write (which frames it as an HTTP chunk itself). */
function chunkData(chunk: Chunk): string | Buffer {
  const { frames } = chunk;
  if (frames.length === 1) return frames[0]!;
  return frames.every((part) => typeof part === 'string')
    ? frames.join('')
    : Buffer.concat(frames.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}

/** The initial events (and the closing bookmark) in chunks of about initialChunkBytes, encoded as they are taken. */
function* initialChunks(target: Target, plan: WatchPlan, format: ResponseFormat, includeObject: IncludeObject): Generator<Chunk> {
  let pending: (string | Buffer)[] = [];
  let pendingBytes = 0;
  for (const item of plan.initial) {
    const encoded = frame('ADDED', renderObject(target, item, format, includeObject), format);
    pending.push(encoded);
    pendingBytes += typeof encoded === 'string' ? Buffer.byteLength(encoded) : encoded.length;
    if (pendingBytes >= initialChunkBytes) {
      yield { frames: pending };
      pending = [];
      pendingBytes = 0;
    }
  }
  if (plan.bookmarkAfterInitial) pending.push(frame('BOOKMARK', bookmarkObject(target, format, plan.revision, { 'k8s.io/initial-events-end': 'true' }), format));
  if (pending.length > 0) yield { frames: pending };
}

/** One batch of the watcher as one chunk; undefined when nothing in it is for the client. */
function batchChunk(target: Target, batch: readonly WatcherItem[], selector: Selector, format: ResponseFormat, includeObject: IncludeObject): Chunk | undefined {
  const frames: (string | Buffer)[] = [];
  let shared: { readonly type: WatchEventType; readonly object: KubeObject; readonly variant: string } | undefined;
  for (const event of batch) {
    if (event.type === 'BOOKMARK') {
      frames.push(frame('BOOKMARK', bookmarkObject(target, format, event.revision), format));
      continue;
    }
    const converted = convertEvent(event, selector);
    if (converted === undefined) continue;
    const variant = sharedVariant(converted.type, format);
    if (variant !== undefined) shared = { type: converted.type, object: converted.object, variant };
    frames.push(eventFrame(target, converted.type, converted.object, format, includeObject));
  }
  if (frames.length === 0) return undefined;
  if (frames.length === 1 && shared !== undefined) {
    const { type, object, variant } = shared;
    return { frames, sharedHttpChunk: sharedFrames.chunk(object, variant, () => frame(type, object, format)) };
  }
  return { frames };
}

/** The ERROR event a watcher that ended for a re-sync closes its stream with. */
function closingChunk(watcher: CacheWatcher, format: ResponseFormat): Chunk | undefined {
  const reason = watcher.closeReason;
  return reason instanceof WatcherExpiredError ? { frames: [frame('ERROR', gone(reason.message).status, format)] } : undefined;
}

/**
 * The client's side of one watch: gone once its socket or the response closes or errors,
 * whichever is seen first, and also when that happened before the handler ran (the client reset
 * the connection while authentication or the read barrier was pending: no 'close' will come
 * then, so `gone` reads the destroyed flags too). Listeners are removed by dispose(), so
 * watches that end on a keep-alive connection do not pile up on its socket.
 */
class ClientConnection {
  readonly #socket: Socket;
  readonly #response: ServerResponse;
  readonly #callbacks = new Set<() => void>();
  #gone = false;
  readonly #onGone = (): void => {
    if (this.#gone) return;
    this.#gone = true;
    for (const callback of this.#callbacks) callback();
    this.#callbacks.clear();
  };

  constructor(request: FastifyRequest, reply: FastifyReply) {
    this.#socket = request.raw.socket;
    this.#response = reply.raw;
    for (const emitter of [this.#socket, this.#response]) {
      emitter.once('close', this.#onGone);
      emitter.once('error', this.#onGone);
    }
  }

  get gone(): boolean {
    if (!this.#gone && (this.#socket.destroyed || this.#response.destroyed)) this.#onGone();
    return this.#gone;
  }

  /** Runs `callback` once the client is gone (now, if it already is). */
  onGone(callback: () => void): void {
    if (this.gone) callback();
    else this.#callbacks.add(callback);
  }

  /** Resolves once `stream` (the response, or its socket when written directly) can take more (drain) or the client is gone. */
  async writable(stream: ServerResponse | Socket): Promise<void> {
    if (this.gone) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        stream.removeListener('drain', done);
        this.#callbacks.delete(done);
        resolve();
      };
      stream.once('drain', done);
      this.#callbacks.add(done);
    });
  }

  dispose(): void {
    this.#callbacks.clear();
    for (const emitter of [this.#socket, this.#response]) {
      emitter.removeListener('close', this.#onGone);
      emitter.removeListener('error', this.#onGone);
    }
  }
}

export async function handleWatch(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const query = request.query as Query;
  const apiVersion = target.kind.group === '' ? target.kind.version : `${target.kind.group}/${target.kind.version}`;
  const format = negotiate(request.headers.accept, true, isProtobufKind(apiVersion, target.kind.kind));
  if (format.type === 'metadata') requireItemForm(format, target.kind);
  const selector = watchSelector(target, query);
  const timeoutRaw = queryString(query, 'timeoutSeconds');
  if (timeoutRaw !== undefined && !/^\d+$/.test(timeoutRaw)) throw badRequest(`timeoutSeconds must be a non-negative integer, got ${JSON.stringify(timeoutRaw)}`);
  const timeoutSeconds = timeoutRaw !== undefined && timeoutRaw !== '0' ? Number(timeoutRaw) : watchTimeoutSecondsMin * (1 + Math.random());
  // Listening starts before the first await: a client that resets the connection while the
  // read barrier is pending must still end the watcher registered after it.
  const connection = new ClientConnection(request, reply);
  let watcher: CacheWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let bookmarks: NodeJS.Timeout | undefined;
  try {
    const plan = await planWatch(target, query, selector, context);
    if (plan !== 'expired') {
      watcher = plan.watcher;
      const registered = watcher;
      connection.onGone(() => registered.terminate(undefined));
    }
    if (connection.gone) {
      // Nobody to answer: the watcher (if any) is already terminated; tell fastify not to.
      reply.hijack();
      return reply;
    }
    if (plan === 'expired') {
      const oldest = context.cache.oldestResumableRevision();
      reply.code(200).type(streamContentType(format)).header('Cache-Control', 'no-cache, private');
      return await reply.send(frame('ERROR', gone(`too old resource version: ${queryString(query, 'resourceVersion')} (${oldest})`).status, format));
    }
    // The response is written by hand so headers go out at once: a client (client-go's
    // Watch(), kubectl get -w) considers the watch established when it sees them, even before
    // the first event.
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'Content-Type': streamContentType(format), 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    raw.flushHeaders();
    // With its socket attached, the response has handed the headers to it: the chunks can follow
    // on the socket directly. A response waiting behind a pipelined one has no socket yet and
    // keeps buffering, and an injected request (fastify.inject) has a stand-in that is no
    // net.Socket: those write through the response.
    const socket = raw.socket instanceof Socket ? raw.socket : null;
    timer = setTimeout(() => plan.watcher.terminate(undefined), timeoutSeconds * 1000);
    bookmarks = queryBoolean(query, 'allowWatchBookmarks')
      ? setInterval(() => plan.watcher.offerBookmark(context.cache.revision()), context.bookmarkIntervalMs)
      : undefined;
    const includeObject = includeObjectOf(query);
    /** Writes a chunk; false once the client is gone. */
    const send = async (chunk: Chunk): Promise<boolean> => {
      if (connection.gone) return false;
      context.metrics.watchEventSent(target.kind.group, target.kind.resource, chunk.frames.length);
      if (socket === null) {
        if (!raw.write(chunkData(chunk))) await connection.writable(raw);
      } else if (!socket.write(chunk.sharedHttpChunk ?? httpChunk(chunk.frames))) {
        await connection.writable(socket);
      }
      return !connection.gone;
    };
    let open = true;
    for (const chunk of initialChunks(target, plan, format, includeObject)) {
      open = await send(chunk);
      if (!open) break;
    }
    while (open) {
      const batch = await plan.watcher.nextBatch();
      if (batch === undefined) break;
      const chunk = batchChunk(target, batch, selector, format, includeObject);
      if (chunk !== undefined) open = await send(chunk);
    }
    const closing = open ? closingChunk(plan.watcher, format) : undefined;
    if (closing !== undefined) open = await send(closing);
    if (open && !connection.gone) raw.end();
    return reply;
  } finally {
    clearTimeout(timer);
    clearInterval(bookmarks);
    if (watcher !== undefined) {
      if (watcher.closeReason !== undefined) context.metrics.watcherTerminated();
      watcher.terminate(undefined);
    }
    connection.dispose();
  }
}
