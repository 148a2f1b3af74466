// Owns: CEL values of custom resource data: converting decoded JSON, guided by the schema's
// declaration types, into the engine's values (integers as bigint, date/date-time as
// timestamps, duration as durations, byte as bytes, objects as instances of one class per object
// type, maps as Map, lists as arrays) the way kube's UnstructuredToVal does, and CEL equality of
// those values.

import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import type { DeclType } from './schema.ts';

/** The base of the classes of schema object types: fields are own properties named by their CEL names. */
export class CelObject {}

/** The class of each registered object type, by engine type name. */
export type ObjectClass = new () => CelObject;

const goDurationUnits: Readonly<Record<string, bigint>> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n,
  d: 86_400_000_000_000n, w: 604_800_000_000_000n,
};

/** A Go-style duration string ("1h30m", "-1.5s", also "d" and "w" as strfmt accepts) as a CEL duration. */
export function parseDuration(text: string): Duration | undefined {
  let rest = text.trim();
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return new Duration(0n, 0);
  if (rest === '') return undefined;
  let nanos = 0n;
  const part = /^(\d+)(?:\.(\d*))?\s*(ns|us|µs|μs|ms|s|m|h|d|w)/;
  while (rest.length > 0) {
    const match = part.exec(rest);
    if (match === null) return undefined;
    const unit = goDurationUnits[match[3]!]!;
    nanos += BigInt(match[1]!) * unit;
    const fraction = match[2] ?? '';
    if (fraction !== '') nanos += (BigInt(fraction.slice(0, 18).padEnd(18, '0')) * unit) / 10n ** 18n;
    rest = rest.slice(match[0].length).trimStart();
  }
  if (negative) nanos = -nanos;
  const seconds = nanos / 1_000_000_000n;
  return new Duration(seconds, Number(nanos - seconds * 1_000_000_000n));
}

function parseTimestamp(text: string, dateOnly: boolean): Date | undefined {
  const match = dateOnly
    ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
    : /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/.exec(text);
  if (match === null) return undefined;
  const iso = dateOnly ? `${text}T00:00:00Z` : text.replace(' ', 'T').replace(/[zZ]$/, 'Z') + (match[8] === undefined ? 'Z' : '');
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function decodeBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Converts decoded JSON to the CEL value of the declaration type; values of another shape pass as they are. */
export function toCelValue(value: unknown, type: DeclType, classes: ReadonlyMap<string, ObjectClass>): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'object': {
      if (!isRecord(value)) return value;
      const Class = type.objectTypeName === undefined ? undefined : classes.get(type.objectTypeName);
      if (Class === undefined) return value;
      const object = new Class() as Record<string, unknown>;
      for (const [name, field] of type.fields) {
        const fieldValue = value[field.property];
        if (fieldValue !== undefined) object[name] = toCelValue(fieldValue, field.type, classes);
      }
      return object;
    }
    case 'map': {
      if (!isRecord(value)) return value;
      const map = new Map<string, unknown>();
      for (const [key, entry] of Object.entries(value)) map.set(key, toCelValue(entry, type.elem!, classes));
      return map;
    }
    case 'list':
      return Array.isArray(value) ? value.map((item) => toCelValue(item, type.elem!, classes)) : value;
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
    case 'dyn':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
    case 'timestamp':
      return typeof value === 'string' ? parseTimestamp(value, type.schema.format === 'date') ?? value : value;
    case 'duration':
      return typeof value === 'string' ? parseDuration(value) ?? value : value;
    case 'bytes':
      return typeof value === 'string' ? decodeBase64(value) ?? value : value;
    default:
      return value;
  }
}

function sameKeys(a: object, b: object): boolean {
  const left = Object.keys(a);
  const right = Object.keys(b);
  if (left.length !== right.length) return false;
  return left.every((key) => Object.hasOwn(b, key));
}

/** CEL equality (`==`) of values: numeric across int/uint/double, deep for lists, maps and objects. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof a === 'number') {
    if (typeof b === 'bigint' || typeof b === 'number') return a == b;
    if (b instanceof UnsignedInt) return a == b.valueOf();
    return false;
  }
  if (a instanceof UnsignedInt) return celEquals(a.valueOf(), b instanceof UnsignedInt ? b.valueOf() : b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => celEquals(item, b[index]));
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [key, value] of a) if (!b.has(key) || !celEquals(value, b.get(key))) return false;
    return true;
  }
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration) return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    return a.every((byte, index) => byte === b[index]);
  }
  if (a.constructor !== b.constructor) return false;
  const equals = (a as { equals?: (other: unknown) => boolean }).equals;
  if (typeof equals === 'function') return equals.call(a, b);
  if (a.constructor === Object || a instanceof CelObject) {
    if (!sameKeys(a, b)) return false;
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    return Object.keys(left).every((key) => celEquals(left[key], right[key]));
  }
  return false;
}

/** The size kube's cost tracker gives a value (traits.Sizer): code points of strings, bytes, entries; 1 otherwise. */
export function actualSize(value: unknown): number {
  if (typeof value === 'string') {
    let count = 0;
    for (let index = 0; index < value.length; index += 1) {
      const code = value.charCodeAt(index);
      if (code < 0xd800 || code > 0xdbff) count += 1;
    }
    return count;
  }
  if (value instanceof Uint8Array || Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  if (value instanceof CelObject) return Object.keys(value).length;
  if (typeof value === 'object' && value !== null && value.constructor === Object) return Object.keys(value).length;
  return 1;
}
