// Owns: the meta.k8s.io Table representation of objects (what `kubectl get` prints), built like
// kube-apiserver's built-in printers: Name (format "name"), the kind's columns, then Age as a
// human-readable duration computed at the moment of the response (which is why this lives at
// the HTTP edge and may read the clock). Also owns parsing of the Accept header into media
// ranges, which the Table check and the discovery and OpenAPI endpoints share.
// It does not fetch objects, check permissions or pick the wire encoding of the Table.
import type { ResourceKind } from './registry/kinds.ts';
import { badRequest } from './status.ts';

/** One clause of an Accept header: `type/subtype;param=value;q=0.5`. */
export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  /** Parameter names are lowercase; `q` is removed and kept in `quality`. */
  readonly parameters: Readonly<Record<string, string>>;
  readonly quality: number;
}

/** A long Accept header is a client bug or an attack; kubectl sends fewer than 10 clauses. */
const acceptClausesMax = 64;

function parseMediaRange(clause: string): MediaRange | undefined {
  const [essence = '', ...rawParameters] = clause.split(';').map((part) => part.trim());
  const [type = '', subtype = ''] = essence.toLowerCase().split('/');
  if (type === '' || subtype === '') return undefined;
  const parameters: Record<string, string> = {};
  let quality = 1;
  for (const rawParameter of rawParameters) {
    const separator = rawParameter.indexOf('=');
    if (separator <= 0) continue;
    const name = rawParameter.slice(0, separator).trim().toLowerCase();
    const value = rawParameter.slice(separator + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'q') quality = Number.isFinite(Number(value)) ? Number(value) : 0;
    else parameters[name] = value;
  }
  return { type, subtype, parameters, quality };
}

/**
 * Parses Accept into media ranges ordered by preference: by quality, then by the client's order
 * (kube-apiserver negotiates the same way). Ranges with q=0 are dropped. An absent or empty
 * header yields no ranges; callers treat that as "anything".
 */
export function parseAcceptHeader(accept: string | undefined): MediaRange[] {
  if (accept === undefined || accept.trim() === '') return [];
  const ranges = accept.split(',').slice(0, acceptClausesMax)
    .map(parseMediaRange)
    .filter((range): range is MediaRange => range !== undefined && range.quality > 0);
  return ranges
    .map((range, index) => ({ range, index }))
    .sort((left, right) => right.range.quality - left.range.quality || left.index - right.index)
    .map(({ range }) => range);
}

/** True if the range accepts plain application/json (wildcards included, no `as=` conversion). */
export function acceptsPlainJson(range: MediaRange): boolean {
  if (range.parameters['as'] !== undefined) return false;
  if (range.type === '*' && range.subtype === '*') return true;
  return range.type === 'application' && (range.subtype === 'json' || range.subtype === '*');
}

export type TableVersion = 'v1' | 'v1beta1';

/** A Table request understood from the Accept header. */
export interface TableMediaType {
  readonly version: TableVersion;
  /** The Content-Type to answer with: the accepted clause, as kube echoes it. */
  readonly contentType: string;
}

function tableVersionOf(range: MediaRange): TableVersion | undefined {
  if (range.parameters['as'] !== 'Table' || range.parameters['g'] !== 'meta.k8s.io') return undefined;
  if (range.type !== 'application' || range.subtype !== 'json') return undefined;
  const version = range.parameters['v'];
  return version === 'v1' || version === 'v1beta1' ? version : undefined;
}

/**
 * Whether the client's first acceptable media type is a Table (kubectl get sends
 * `application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1beta1;g=meta.k8s.io,
 * application/json`). Returns the Table version and response content type, or undefined when
 * plain JSON comes first (or no Table is asked for).
 */
export function wantsTable(accept: string | undefined): TableMediaType | undefined {
  for (const range of parseAcceptHeader(accept)) {
    const version = tableVersionOf(range);
    if (version !== undefined) {
      return { version, contentType: `application/json;as=Table;v=${version};g=meta.k8s.io` };
    }
    if (range.parameters['as'] === undefined) return undefined;
  }
  return undefined;
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Parses the `includeObject` query parameter; kube's default is Metadata. */
export function parseIncludeObject(value: string | undefined): IncludeObject {
  if (value === undefined || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw badRequest(`unrecognized includeObject value: "${value}"`);
}

export interface TableColumnDefinition {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

export type TableCell = string | number | boolean | null;

export interface TableRow {
  readonly cells: readonly TableCell[];
  readonly object?: Record<string, unknown>;
}

export interface ListMeta {
  readonly resourceVersion?: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export interface Table {
  readonly kind: 'Table';
  readonly apiVersion: `meta.k8s.io/${TableVersion}`;
  readonly metadata: ListMeta;
  readonly columnDefinitions: readonly TableColumnDefinition[];
  readonly rows: readonly TableRow[];
}

export interface TableOptions {
  readonly includeObject: IncludeObject;
  /** Present for lists: copied to the Table's metadata. For a single object its resourceVersion is used. */
  readonly listMeta?: ListMeta;
  /** Defaults to v1. */
  readonly version?: TableVersion;
  /** Milliseconds since the epoch that Age is measured against; defaults to now. */
  readonly nowMs?: number;
}

/** Descriptions from metav1.ObjectMeta's swagger docs, as kube's printers use them. */
const nameDescription = 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const creationTimestampDescription = 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

function columnDefinitions(kind: ResourceKind): TableColumnDefinition[] {
  const own = kind.columns.map((column) => ({
    name: column.name, type: column.type, format: column.format ?? '', description: column.description,
    priority: column.priority,
  }));
  if (kind.tableLayout === 'columnsOnly') return own;
  return [
    { name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 0 },
    ...kind.columns.map((column) => ({
      name: column.name, type: column.type, format: column.format ?? '', description: column.description,
      priority: column.priority,
    })),
    // Built-in printers present Age as a string cell computed on the server (printers.go).
    { name: 'Age', type: 'string', format: '', description: creationTimestampDescription, priority: 0 },
  ];
}

const secondMs = 1000;
const minuteSeconds = 60;
const hourSeconds = 60 * minuteSeconds;
const daySeconds = 24 * hourSeconds;
const yearDays = 365;

function withRemainder(whole: number, wholeUnit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${whole}${wholeUnit}` : `${whole}${wholeUnit}${rest}${restUnit}`;
}

/**
 * apimachinery's duration.HumanDuration: "45s", "3m20s", "15m", "5h10m", "20h", "3d4h", "10d",
 * "2y30d", "9y". Up to two seconds in the future is clock skew and reads "0s".
 */
export function humanDuration(durationMs: number): string {
  const seconds = Math.trunc(durationMs / secondMs);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 2 * minuteSeconds) return `${seconds}s`;
  const minutes = Math.trunc(seconds / minuteSeconds);
  if (minutes < 10) return withRemainder(minutes, 'm', seconds % minuteSeconds, 's');
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = Math.trunc(seconds / hourSeconds);
  if (hours < 8) return withRemainder(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(seconds / daySeconds);
  if (hours < 24 * 8) return withRemainder(days, 'd', hours % 24, 'h');
  if (hours < 24 * yearDays * 2) return `${days}d`;
  const years = Math.trunc(days / yearDays);
  if (hours < 24 * yearDays * 8) return withRemainder(years, 'y', days % yearDays, 'd');
  return `${years}y`;
}

function metadataOf(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = object['metadata'];
  return metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)
    ? metadata as Record<string, unknown>
    : {};
}

/** printers.go translateTimestampSince: "<unknown>" when the object has no creation time. */
function ageCell(metadata: Record<string, unknown>, nowMs: number): string {
  const created = metadata['creationTimestamp'];
  const createdMs = typeof created === 'string' ? Date.parse(created) : Number.NaN;
  return Number.isNaN(createdMs) ? '<unknown>' : humanDuration(nowMs - createdMs);
}

function rowObject(object: Record<string, unknown>, includeObject: IncludeObject, version: TableVersion) {
  if (includeObject === 'None') return undefined;
  if (includeObject === 'Object') return object;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: metadataOf(object) };
}

function sinceCell(timestamp: unknown, nowMs: number): string {
  const timeMs = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(timeMs) ? '<unknown>' : humanDuration(nowMs - timeMs);
}

function rowOf(kind: ResourceKind, object: Record<string, unknown>, options: TableOptions, nowMs: number): TableRow {
  const metadata = metadataOf(object);
  const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
  const own = kind.columns.map((column) => column.cell(object, (timestamp) => sinceCell(timestamp, nowMs)));
  const cells: TableCell[] = kind.tableLayout === 'columnsOnly' ? own : [name, ...own, ageCell(metadata, nowMs)];
  const embedded = rowObject(object, options.includeObject, options.version ?? 'v1');
  return embedded === undefined ? { cells } : { cells, object: embedded };
}

function tableMetadata(objects: readonly Record<string, unknown>[], listMeta: ListMeta | undefined): ListMeta {
  if (listMeta !== undefined) {
    return {
      ...(listMeta.resourceVersion ? { resourceVersion: listMeta.resourceVersion } : {}),
      ...(listMeta.continue ? { continue: listMeta.continue } : {}),
      ...(listMeta.remainingItemCount !== undefined ? { remainingItemCount: listMeta.remainingItemCount } : {}),
    };
  }
  const single = objects.length === 1 && objects[0] !== undefined ? metadataOf(objects[0]) : {};
  return typeof single['resourceVersion'] === 'string' ? { resourceVersion: single['resourceVersion'] } : {};
}

/** Converts objects of one kind (a list, or a single get) to a Table. */
export function toTable(kind: ResourceKind, objects: readonly Record<string, unknown>[], options: TableOptions): Table {
  const nowMs = options.nowMs ?? Date.now();
  const version = options.version ?? 'v1';
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: tableMetadata(objects, options.listMeta),
    columnDefinitions: columnDefinitions(kind),
    rows: objects.map((object) => rowOf(kind, object, options, nowMs)),
  };
}
