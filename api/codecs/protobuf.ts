// Owns: the Kubernetes protobuf wire format (application/vnd.kubernetes.protobuf) for the kinds
// kstore serves: the 4-byte "k8s\0" prefix plus runtime.Unknown envelope, and the conversion
// between protobuf messages and the JSON shape kube-apiserver produces for the same object.
//
// The messages are built from the generated kind descriptions (./protobuf-messages.ts). The JSON
// mapping is a reflective walk over them that applies Go's rules: JSON names from the
// descriptions, metav1.Time as RFC 3339 seconds, MicroTime with 6 fractional digits, bytes as
// base64, int64 as a number, FieldsV1 as the JSON object it carries, resource.Quantity as its
// string, a wrapped string list (ExtraValue) as a plain array, embedded Go structs (json
// ",inline") merged into the enclosing object, and zero values dropped unless Go keeps them
// (pointer or non-omitempty fields).
// Watch streams are framed as kube frames them: each event a 4-byte big-endian length and a
// metav1.WatchEvent whose object.raw is the object's own prefixed envelope.
import protobuf from 'protobufjs';
import type { Field, Type } from 'protobufjs';
import { scanJson } from '../json-text.ts';
import { nestingDepthMax } from '../request-limits.ts';
import { fieldJsonFacts, hasKindMessage, jsonFormOf, kindMessageType, protobufKindNames, unknownType, watchEventType } from './protobuf-messages.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** The Content-Type of a protobuf watch response, as kube-apiserver writes it. */
export const PROTOBUF_WATCH_MEDIA_TYPE = `${PROTOBUF_MEDIA_TYPE};stream=watch`;

/** The 4 bytes ("k8s" and a zero byte) in front of every protobuf-encoded object. */
const PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A request body that is not a well-formed protobuf object of a supported kind. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}

/** An object that cannot be written as protobuf (unsupported kind or malformed field). */
export class ProtobufEncodeError extends Error {
  override readonly name = 'ProtobufEncodeError';
}

type JsonObject = Record<string, unknown>;

/** True for application/vnd.kubernetes.protobuf, with or without parameters. */
export function isProtobufMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  return (contentType.split(';')[0] ?? '').trim().toLowerCase() === PROTOBUF_MEDIA_TYPE;
}

/** The supported "apiVersion/kind" pairs, e.g. "v1/ConfigMap", "coordination.k8s.io/v1/Lease". */
export function protobufKinds(): string[] {
  return protobufKindNames();
}

/** True when objects of this apiVersion and kind can be encoded and decoded as protobuf. */
export function isProtobufKind(apiVersion: string, kind: string): boolean {
  return hasKindMessage(apiVersion, kind);
}

// ---- decoding: wire bytes → JSON shape ----

/** Decodes a prefixed runtime.Unknown envelope into the object's JSON shape. */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < PREFIX.length || !body.subarray(0, PREFIX.length).equals(PREFIX)) {
    throw new ProtobufDecodeError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const envelope = decodeMessage(unknownType(), body.subarray(PREFIX.length), 'runtime.Unknown');
  const { apiVersion, kind } = envelopeTypeMeta(envelope);
  checkEnvelopeEncoding(envelope);
  const type = kindMessageType(apiVersion, kind);
  if (type === undefined) {
    throw new ProtobufDecodeError(`no protobuf definition for kind "${kind}" in version "${apiVersion}"`);
  }
  const raw = envelope['raw'];
  const message = decodeMessage(type, typeof raw === 'string' ? Buffer.from(raw, 'base64') : Buffer.alloc(0), kind);
  return { apiVersion, kind, ...messageToJson(type, message) };
}

function decodeMessage(type: Type, bytes: Uint8Array, what: string): JsonObject {
  try {
    const message = type.decode(bytes);
    return type.toObject(message, { longs: Number, bytes: String, defaults: false, arrays: false, objects: false });
  } catch (error) {
    throw new ProtobufDecodeError(`unable to decode ${what}: ${(error as Error).message}`);
  }
}

function envelopeTypeMeta(envelope: JsonObject): { apiVersion: string; kind: string } {
  const typeMeta = (envelope['typeMeta'] ?? {}) as JsonObject;
  const apiVersion = typeof typeMeta['apiVersion'] === 'string' ? typeMeta['apiVersion'] : '';
  const kind = typeof typeMeta['kind'] === 'string' ? typeMeta['kind'] : '';
  if (kind === '') throw new ProtobufDecodeError("Object 'Kind' is missing in the protobuf envelope");
  if (apiVersion === '') throw new ProtobufDecodeError("Object 'apiVersion' is missing in the protobuf envelope");
  return { apiVersion, kind };
}

function checkEnvelopeEncoding(envelope: JsonObject): void {
  const encoding = envelope['contentEncoding'];
  if (typeof encoding === 'string' && encoding !== '') {
    throw new ProtobufDecodeError(`unsupported content encoding "${encoding}" in the protobuf envelope`);
  }
  const contentType = envelope['contentType'];
  if (typeof contentType === 'string' && contentType !== '' && !isProtobufMediaType(contentType)) {
    throw new ProtobufDecodeError(`unsupported content type "${contentType}" in the protobuf envelope`);
  }
}

/** One decoded message (protobufjs plain object, present fields only) → its JSON shape. */
function messageToJson(type: Type, value: JsonObject): JsonObject {
  const json: JsonObject = {};
  for (const field of type.fieldsArray) {
    const facts = fieldJsonFacts(field);
    const embedded = facts.inline ? messageTypeOf(field) : undefined;
    if (embedded !== undefined) {
      Object.assign(json, messageToJson(embedded, (value[field.name] ?? {}) as JsonObject));
      continue;
    }
    if (facts.json === undefined) continue;
    const converted = fieldToJson(field, value[field.name], facts.keepZero);
    if (converted !== undefined) json[facts.json] = converted;
  }
  return json;
}

function fieldToJson(field: Field, value: unknown, keepZero: boolean): unknown {
  if (value === undefined || value === null) return undefined;
  if (field.map) return mapToJson(field, value as JsonObject);
  if (field.repeated) {
    const items = (value as unknown[]).map((item) => valueToJson(field, item));
    return items.length === 0 ? undefined : items;
  }
  if (field.resolvedType === null && !keepZero && isZeroScalar(value)) return undefined;
  return valueToJson(field, value);
}

function mapToJson(field: Field, value: JsonObject): JsonObject | undefined {
  const entries = Object.entries(value);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([key, item]) => [key, valueToJson(field, item)]));
}

/** A single value of a field (one element of a list or map): messages recurse, scalars pass. */
function valueToJson(field: Field, value: unknown): unknown {
  const type = messageTypeOf(field);
  if (type === undefined) return value;
  const form = jsonFormOf(type);
  switch (form) {
    case undefined: return messageToJson(type, value as JsonObject);
    case 'time': case 'microTime': return timeToJson(value as JsonObject, form === 'microTime');
    case 'fieldsV1': return fieldsV1ToJson(value as JsonObject);
    case 'rawExtension': return rawExtensionToJson(value as JsonObject);
    case 'intOrString': return intOrStringToJson(value as JsonObject);
    case 'quantity': return quantityToJson(value as JsonObject);
    case 'array': return arrayToJson(value as JsonObject);
    case 'json': return rawExtensionToJson(value as JsonObject);
    case 'schemaOrArray': case 'schemaOrBool': case 'schemaOrStringArray': return schemaUnionToJson(type, form, value as JsonObject);
    default: throw new ProtobufDecodeError(`${field.name}: no JSON mapping for ${qualifiedName(type)} (${form})`);
  }
}

/** The JSONSchemaProps message a JSONSchemaProps "or" type holds in its `schema` field. */
function schemaTypeOf(union: Type): Type {
  const schemaField = union.fields['schema'];
  const schemaType = schemaField === undefined ? undefined : messageTypeOf(schemaField);
  if (schemaType === undefined) throw new ProtobufDecodeError(`${qualifiedName(union)} has no schema field`);
  return schemaType;
}

/**
 * apiextensions' JSONSchemaProps "or" types as their Go MarshalJSON writes them: OrArray is the
 * list of schemas when it has any, else the schema; OrBool is the schema when set, else the
 * boolean; OrStringArray is the list of strings when it has any, else the schema, else null.
 */
function schemaUnionToJson(union: Type, form: 'schemaOrArray' | 'schemaOrBool' | 'schemaOrStringArray', value: JsonObject): unknown {
  const schemaType = schemaTypeOf(union);
  const schema = value['schema'] === undefined || value['schema'] === null ? undefined : messageToJson(schemaType, value['schema'] as JsonObject);
  if (form === 'schemaOrArray') {
    const schemas = Array.isArray(value['jSONSchemas']) ? value['jSONSchemas'] : [];
    return schemas.length > 0 ? schemas.map((item) => messageToJson(schemaType, item as JsonObject)) : schema ?? null;
  }
  if (form === 'schemaOrBool') return schema ?? value['allows'] === true;
  const properties = Array.isArray(value['property']) ? value['property'] : [];
  return properties.length > 0 ? properties : schema ?? null;
}

/** JSON → the plain form of a JSONSchemaProps "or" type, as its Go UnmarshalJSON reads it (other values: unset). */
function schemaUnionFromJson(union: Type, form: 'schemaOrArray' | 'schemaOrBool' | 'schemaOrStringArray', value: unknown): JsonObject {
  const schemaType = schemaTypeOf(union);
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (form === 'schemaOrBool') {
    if (typeof value === 'boolean') return { allows: value };
    return isObject ? { allows: true, schema: messageFromJson(schemaType, value as JsonObject) } : {};
  }
  if (Array.isArray(value)) {
    return form === 'schemaOrArray'
      ? { jSONSchemas: value.map((item) => messageFromJson(schemaType, (item ?? {}) as JsonObject)) }
      : { property: value.filter((item): item is string => typeof item === 'string') };
  }
  return isObject ? { schema: messageFromJson(schemaType, value as JsonObject) } : {};
}

/** A Go named slice wrapped in a message (authentication's and authorization's ExtraValue): its items. */
function arrayToJson(value: JsonObject): unknown[] {
  const items = value['items'];
  return Array.isArray(items) ? items : [];
}

/** intstr.IntOrString: type 0 is intVal (0 included), type 1 strVal, as its JSON marshaller writes. */
function intOrStringToJson(value: JsonObject): number | string {
  return Number(value['type'] ?? 0) === 1 ? String(value['strVal'] ?? '') : Number(value['intVal'] ?? 0);
}

/** resource.Quantity carries its canonical string; Go's zero Quantity prints as "0". */
function quantityToJson(value: JsonObject): string {
  const text = value['string'];
  return typeof text === 'string' && text !== '' ? text : '0';
}

function isZeroScalar(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

/**
 * A Time present on the wire but zero is Go's zero metav1.Time, which marshals to JSON null
 * (gogo-protobuf writes every non-pointer Time, so e.g. a condition's unset lastProbeTime
 * arrives this way and kube-apiserver's JSON shows it as null). An absent Time stays absent.
 */
function timeToJson(value: JsonObject, micro: boolean): string | null {
  const seconds = Number(value['seconds'] ?? 0);
  const nanos = Number(value['nanos'] ?? 0);
  if (seconds === 0 && nanos === 0) return null;
  const whole = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (!micro) return `${whole}Z`;
  return `${whole}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/**
 * A FieldsV1's raw JSON, checked as every JSON body is (api/json-text.ts: Go's syntax messages,
 * request-limits.ts's nesting limit) before it is parsed: it is the one free-form part of an
 * object, so the one place a protobuf body can nest without bound.
 */
function fieldsV1ToJson(value: JsonObject): unknown {
  const raw = value['Raw'];
  if (typeof raw !== 'string' || raw === '') return undefined;
  const text = Buffer.from(raw, 'base64').toString('utf8');
  const scan = scanJson(text, { depthMax: nestingDepthMax });
  if (!scan.ok) throw new ProtobufDecodeError(`managedFields fieldsV1 is not JSON: ${scan.message}`);
  return JSON.parse(text) as unknown;
}

// ---- encoding: JSON shape → wire bytes ----

/** Encodes an object of a supported kind as the prefixed runtime.Unknown envelope. */
export function encodeProtobufObject(object: Record<string, unknown>): Buffer {
  const apiVersion = typeof object['apiVersion'] === 'string' ? object['apiVersion'] : '';
  const kind = typeof object['kind'] === 'string' ? object['kind'] : '';
  const type = kindMessageType(apiVersion, kind);
  if (type === undefined) {
    throw new ProtobufEncodeError(`no protobuf definition for kind "${kind}" in version "${apiVersion}"`);
  }
  const raw = encodeMessage(type, object);
  // Written like Go's runtime.Unknown marshaller: contentEncoding and contentType present and empty.
  const envelope = encodeMessage(unknownType(), { typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' });
  return Buffer.concat([PREFIX, envelope]);
}

/**
 * One event of a protobuf watch stream: a 4-byte big-endian length, then a metav1.WatchEvent
 * holding the type and, in object.raw, the object's own prefixed envelope (client-go decodes the
 * frame with the raw serializer and the embedded object with the prefixed one).
 */
export function encodeProtobufWatchEvent(type: string, object: Record<string, unknown>): Buffer {
  const event = encodeMessage(watchEventType(), { type, object: { raw: encodeProtobufObject(object) } });
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length, 0);
  return Buffer.concat([length, event]);
}

/** Splits a protobuf watch stream into its events (tests and tools read streams with it). */
export function decodeProtobufWatchEvents(stream: Buffer): { type: string; object: Record<string, unknown> }[] {
  const events: { type: string; object: Record<string, unknown> }[] = [];
  let offset = 0;
  while (offset < stream.length) {
    if (stream.length - offset < 4) throw new ProtobufDecodeError('truncated watch frame length');
    const length = stream.readUInt32BE(offset);
    const end = offset + 4 + length;
    if (end > stream.length) throw new ProtobufDecodeError('truncated watch frame');
    const event = decodeMessage(watchEventType(), stream.subarray(offset + 4, end), 'WatchEvent');
    const raw = ((event['object'] ?? {}) as JsonObject)['raw'];
    events.push({ type: String(event['type'] ?? ''), object: decodeProtobufObject(Buffer.from(typeof raw === 'string' ? raw : '', 'base64')) });
    offset = end;
  }
  return events;
}

function encodeMessage(type: Type, json: JsonObject): Uint8Array {
  try {
    const plain = type === unknownType() || type === watchEventType() ? json : messageFromJson(type, json);
    return type.encode(type.fromObject(plain)).finish();
  } catch (error) {
    if (error instanceof ProtobufEncodeError) throw error;
    throw new ProtobufEncodeError(`unable to encode ${type.name}: ${(error as Error).message}`);
  }
}

/**
 * A runtime.RawExtension (ControllerRevision's data): the raw JSON it carries, checked like a
 * FieldsV1's; no bytes is Go's nil Raw, which marshals as null.
 */
function rawExtensionToJson(value: JsonObject): unknown {
  const raw = value['raw'];
  if (typeof raw !== 'string' || raw === '') return null;
  const text = Buffer.from(raw, 'base64').toString('utf8');
  const scan = scanJson(text, { depthMax: nestingDepthMax });
  if (!scan.ok) throw new ProtobufDecodeError(`a RawExtension is not JSON: ${scan.message}`);
  return JSON.parse(text) as unknown;
}

/** JSON → a plain object protobufjs' fromObject accepts (times split, FieldsV1 serialized). */
function messageFromJson(type: Type, json: JsonObject): JsonObject {
  const plain: JsonObject = {};
  for (const field of type.fieldsArray) {
    const facts = fieldJsonFacts(field);
    const embedded = facts.inline ? messageTypeOf(field) : undefined;
    if (embedded !== undefined) {
      // Go always writes an embedded struct, so the message is present even when empty.
      plain[field.name] = messageFromJson(embedded, json);
      continue;
    }
    if (facts.json === undefined) continue;
    const value = json[facts.json];
    if (value === null && isTimeField(field)) plain[field.name] = {}; // null is Go's zero time, written as an empty Time
    if (value === undefined || value === null) continue;
    plain[field.name] = fieldFromJson(field, value);
  }
  return plain;
}

function fieldFromJson(field: Field, value: unknown): unknown {
  if (field.map) {
    const entries = Object.entries(expectObject(field, value)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // A map of Times (a PDB's disruptedPods) may hold Go's zero time, which is null in JSON.
    return Object.fromEntries(entries.map(([key, item]) => [key, item === null && holdsTimes(field) ? {} : valueFromJson(field, item)]));
  }
  if (field.repeated) {
    if (!Array.isArray(value)) throw new ProtobufEncodeError(`${field.name}: expected a list`);
    return value.map((item) => valueFromJson(field, item));
  }
  return valueFromJson(field, value);
}

function valueFromJson(field: Field, value: unknown): unknown {
  const type = messageTypeOf(field);
  if (type === undefined) return value;
  const form = jsonFormOf(type);
  switch (form) {
    case undefined: return messageFromJson(type, expectObject(field, value));
    case 'time': case 'microTime': return timeFromJson(field, value);
    case 'fieldsV1': return { Raw: Buffer.from(JSON.stringify(value), 'utf8') };
    case 'rawExtension': return { raw: Buffer.from(JSON.stringify(value), 'utf8') };
    case 'intOrString': return typeof value === 'string' ? { type: 1, intVal: 0, strVal: value } : { type: 0, intVal: Number(value), strVal: '' };
    case 'quantity': return quantityFromJson(field, value);
    case 'array':
      if (!Array.isArray(value)) throw new ProtobufEncodeError(`${field.name}: expected a list`);
      return { items: value };
    case 'json': return { raw: Buffer.from(JSON.stringify(value), 'utf8') };
    case 'schemaOrArray': case 'schemaOrBool': case 'schemaOrStringArray': return schemaUnionFromJson(type, form, value);
    default: throw new ProtobufEncodeError(`${field.name}: no JSON mapping for ${qualifiedName(type)} (${form})`);
  }
}

/** A Quantity is a string in JSON; a bare number (kube's unmarshaller accepts one) is its text. */
function quantityFromJson(field: Field, value: unknown): JsonObject {
  if (typeof value === 'string') return { string: value };
  if (typeof value === 'number' && Number.isFinite(value)) return { string: String(value) };
  throw new ProtobufEncodeError(`${field.name}: ${JSON.stringify(value)} is not a quantity`);
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

function timeFromJson(field: Field, value: unknown): JsonObject {
  const match = typeof value === 'string' ? RFC3339.exec(value.toUpperCase()) : null;
  const milliseconds = match ? Date.parse(`${match[1]}${match[3]}`) : Number.NaN;
  if (!match || Number.isNaN(milliseconds)) {
    throw new ProtobufEncodeError(`${field.name}: ${JSON.stringify(value)} is not an RFC 3339 time`);
  }
  return { seconds: Math.floor(milliseconds / 1000), nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}

function expectObject(field: Field, value: unknown): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProtobufEncodeError(`${field.name}: expected an object`);
  }
  return value as JsonObject;
}

// ---- shared ----

/** A field whose values (one, or each list item or map value) are Times. */
function holdsTimes(field: Field): boolean {
  const type = messageTypeOf(field);
  const form = type === undefined ? undefined : jsonFormOf(type);
  return form === 'time' || form === 'microTime';
}

function isTimeField(field: Field): boolean {
  const type = messageTypeOf(field);
  const form = type === undefined ? undefined : jsonFormOf(type);
  return !field.repeated && !field.map && (form === 'time' || form === 'microTime');
}

function messageTypeOf(field: Field): Type | undefined {
  return field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
}

function qualifiedName(type: Type): string {
  return type.fullName.replace(/^\./, '');
}
