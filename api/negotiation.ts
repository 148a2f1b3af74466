// Owns: content negotiation at the HTTP edge: which representation a response takes (JSON,
// YAML, protobuf, the meta.k8s.io Table form, or the metadata-only PartialObjectMetadata[List]
// form in JSON, YAML or protobuf) from the Accept header, and decoding request bodies
// (JSON or YAML) into plain objects with kube-apiserver's errors (400 for a body that does
// not parse, 406 when no acceptable media type is served).
import { stringify as stringifyYaml } from 'yaml';
import { decodeProtobufObject, encodeProtobufObject, isProtobufKind, isProtobufMediaType, PROTOBUF_MEDIA_TYPE, ProtobufDecodeError } from './codecs/protobuf.ts';
import { decodeJsonBody, decodeYamlBody } from './decode.ts';
import type { BodyTarget } from './decode.ts';
import { badRequest, notAcceptable } from './status.ts';

export type ResponseFormat = { readonly type: 'json' } | { readonly type: 'yaml' } | { readonly type: 'table' } | { readonly type: 'protobuf' } | MetadataFormat;

/** `as=PartialObjectMetadata` or `as=PartialObjectMetadataList` of meta.k8s.io v1 or v1beta1, sent in `encoding`. */
export interface MetadataFormat {
  readonly type: 'metadata';
  readonly kind: 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  readonly apiVersion: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';
  readonly encoding: { readonly type: 'json' } | { readonly type: 'yaml' } | { readonly type: 'protobuf' };
}

function encodingOf(mediaType: string): MetadataFormat['encoding'] | undefined {
  if (mediaType === 'application/json') return { type: 'json' };
  if (mediaType === 'application/yaml') return { type: 'yaml' };
  if (mediaType === PROTOBUF_MEDIA_TYPE) return { type: 'protobuf' };
  return undefined;
}

interface MediaRange {
  readonly type: string;
  readonly parameters: Readonly<Record<string, string>>;
}

function parseMediaRanges(accept: string): MediaRange[] {
  return accept.split(',').map((range) => {
    const [type = '', ...parameterParts] = range.split(';').map((part) => part.trim());
    const parameters: Record<string, string> = {};
    for (const part of parameterParts) {
      const [key, value = ''] = part.split('=');
      if (key) parameters[key.trim().toLowerCase()] = value.trim().replace(/^"|"$/g, '');
    }
    return { type: type.toLowerCase(), parameters };
  }).filter((range) => range.type !== '');
}

function formatFor(range: MediaRange, tableAllowed: boolean, protobufAllowed: boolean): ResponseFormat | undefined {
  const as = range.parameters['as'];
  if (as !== undefined) {
    const version = range.parameters['v'];
    const metaVersion = range.parameters['g'] === 'meta.k8s.io' && (version === 'v1' || version === 'v1beta1') ? version : undefined;
    if (metaVersion === undefined || !tableAllowed) return undefined;
    if (as === 'Table') return range.type === 'application/json' ? { type: 'table' } : undefined;
    const encoding = encodingOf(range.type);
    if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && encoding !== undefined) {
      return { type: 'metadata', kind: as, apiVersion: `meta.k8s.io/${metaVersion}`, encoding };
    }
    return undefined;
  }
  if (range.type === 'application/json' || range.type === 'application/*' || range.type === '*/*') return { type: 'json' };
  if (range.type === 'application/yaml') return { type: 'yaml' };
  if (range.type === PROTOBUF_MEDIA_TYPE && protobufAllowed) return { type: 'protobuf' };
  return undefined;
}

/**
 * The formats of the Accept headers seen last (clients send the same few over and over), by
 * the flags and the header; emptied when full. Formats are immutable values.
 */
const negotiated = new Map<string, ResponseFormat>();
const negotiatedMax = 256;
/** Longer Accept headers are negotiated each time (the cache stays small whatever clients send). */
const negotiatedAcceptLengthMax = 512;

/**
 * Picks the first acceptable representation in the client's order; 406 when none is served.
 * Protobuf is offered when protobufAllowed: the caller knows the body's kind has a protobuf
 * message (objects, lists and, framed, watch events; see codecs/protobuf.ts).
 */
export function negotiate(accept: string | undefined, tableAllowed: boolean, protobufAllowed = true): ResponseFormat {
  if (accept === undefined || accept.trim() === '') return { type: 'json' };
  const key = `${tableAllowed ? 't' : '-'}${protobufAllowed ? 'p' : '-'}${accept}`;
  const known = negotiated.get(key);
  if (known !== undefined) return known;
  for (const range of parseMediaRanges(accept)) {
    const format = formatFor(range, tableAllowed, protobufAllowed);
    if (format) {
      if (accept.length <= negotiatedAcceptLengthMax) {
        if (negotiated.size >= negotiatedMax) negotiated.clear();
        negotiated.set(key, format);
      }
      return format;
    }
  }
  throw notAcceptable(`only the following media types are accepted: application/json, application/yaml${tableAllowed ? ', application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' : ''}`);
}

/** Whether a body can be sent as protobuf (its apiVersion/kind is known to the codec). */
export function protobufEncodable(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  const { apiVersion, kind } = body as { apiVersion?: unknown; kind?: unknown };
  return typeof apiVersion === 'string' && typeof kind === 'string' && isProtobufKind(apiVersion, kind);
}

/**
 * JSON bodies of at least this many characters are sent as their UTF-8 bytes, not as a string.
 * V8 returns a long JSON.stringify result as a tree of parts; fastify's content length
 * (Buffer.byteLength) then flattens it into fresh memory before it counts, and the socket write
 * converts it to UTF-8 again. A list page of 500 ConfigMaps (~600 KB) spent ~2.7 ms in the
 * first and ~3 ms in the write. TextEncoder encodes it in one pass, and a Buffer's length is
 * known. Server-side, such a page took 6.6 ms at p50 instead of 10 ms. Short bodies stay
 * strings, which cost nothing extra.
 */
const jsonBytesFromChars = 65_536;
const utf8 = new TextEncoder();

export function encode(format: ResponseFormat, body: unknown): { contentType: string; payload: string | Buffer } {
  if (format.type === 'metadata') return encode(format.encoding, body);
  if (format.type === 'yaml') return { contentType: 'application/yaml', payload: stringifyYaml(body) };
  if (format.type === 'protobuf') return { contentType: PROTOBUF_MEDIA_TYPE, payload: encodeProtobufObject(body as Record<string, unknown>) };
  const text = JSON.stringify(body);
  if (text.length < jsonBytesFromChars) return { contentType: 'application/json', payload: text };
  const bytes = utf8.encode(text);
  return { contentType: 'application/json', payload: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/** Text media types request bodies may use (patch types are added by the patch endpoint). */
export const bodyMediaTypes = ['application/json', 'application/yaml'] as const;

/**
 * Decodes a request body of a supported media type (JSON, YAML, protobuf) into a JSON value.
 * JSON is checked before it is parsed (Go's syntax messages, nesting beyond
 * request-limits.ts's nestingDepthMax), YAML within the same nesting (api/decode.ts). With a
 * `target` (a create or update body of that kind) errors are worded as kube's typed decode
 * words them ("the object provided is unrecognized (must be of type ConfigMap): …") and number
 * literals the kind's fields cannot hold (1e400, 2^64 in an int64 field) are refused.
 */
export function decodeBody(contentType: string | undefined, raw: string | Buffer, target?: BodyTarget): unknown {
  if (isProtobufMediaType(contentType)) {
    if (!Buffer.isBuffer(raw) || raw.length === 0) throw badRequest('the body of the request was empty');
    try {
      return decodeProtobufObject(raw);
    } catch (error) {
      if (error instanceof ProtobufDecodeError) throw badRequest(error.message);
      throw error;
    }
  }
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  const mediaType = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (raw.trim() === '') throw badRequest('the body of the request was empty');
  if (mediaType === 'application/yaml') return decodeYamlBody(raw, target);
  return decodeJsonBody(raw, target);
}
