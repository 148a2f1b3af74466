// Owns: kube's field.Error as a StatusCause for the structural-schema engine — the reason
// (FieldValueInvalid, FieldValueTypeInvalid, …) and the message apimachinery's ErrorBody prints
// (the bad value rendered as Go prints it: %q for strings, %v for numbers and booleans, %#v for
// maps and lists, "null" for nil), and the Go renderings those messages need (strconv.Quote,
// fmt's %#v of decoded JSON). Values follow the repo's convention for decoded JSON: a whole
// number within int64 is Go's int64, any other number a float64 (api/go-format.ts).
import type { StatusCause } from '../../status.ts';
import { goFloat } from '../../go-format.ts';
import { goQuote } from '../../go-format.ts';

const int64Bound = 2 ** 63;

/** Whether a decoded JSON number is an int64 (a whole number within int64), else a float64. */
export function isGoInt(value: number): boolean {
  return Number.isInteger(value) && value >= -int64Bound && value < int64Bound;
}

/** fmt's %v of an int64 or float64. */
export function goNumber(value: number): string {
  return isGoInt(value) ? BigInt(value).toString() : goFloat(value);
}

/** Go's int64(f) of a float64: truncation; out of range (amd64) gives the minimum int64. */
export function goInt64(value: number): bigint {
  if (!Number.isFinite(value) || value >= int64Bound || value < -int64Bound) return -(2n ** 63n);
  return BigInt(Math.trunc(value));
}

export { goQuote } from '../../go-format.ts';

/** fmt's %#v of a decoded JSON value held in an interface{} (map keys sorted, as fmt prints them). */
export function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record).sort(goStringCompare).map((key) => `${goQuote(key)}:${goSyntax(record[key])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return goQuote(String(value));
}

/** %#v of a []string. */
export function goStrings(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/**
 * How field.Error's ErrorBody prints a bad value: nil as "null" (quoted), strings %q, numbers and
 * booleans %v, anything else %#v. A value already rendered (Go-typed, e.g. a struct) is passed
 * as a GoText.
 */
export class GoText {
  constructor(readonly text: string) {}
}

export function goBadValue(value: unknown): string {
  if (value instanceof GoText) return value.text;
  if (value === null || value === undefined) return '"null"';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  return goSyntax(value);
}

/** A field path as field.Path prints it; kube prints a nil path as "<nil>". */
export function fieldOf(path: string | undefined): string {
  return path === undefined || path === '' ? '<nil>' : path;
}

function withDetail(head: string, detail: string): string {
  return detail === '' ? head : `${head}: ${detail}`;
}

export function invalidCause(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: withDetail(`Invalid value: ${goBadValue(value)}`, detail), field };
}

export function typeInvalidCause(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueTypeInvalid', message: withDetail(`Invalid value: ${goBadValue(value)}`, detail), field };
}

export function requiredCause(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: withDetail('Required value', detail), field };
}

export function forbiddenCause(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail), field };
}

export function duplicateCause(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${goBadValue(value)}`, field };
}

/** field.NotSupported: the supported values each quoted (strconv.Quote of their %v). */
export function notSupportedCause(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const detail = supported.length === 0 ? '' : `supported values: ${supported.map(goQuote).join(', ')}`;
  return { reason: 'FieldValueNotSupported', message: withDetail(`Unsupported value: ${goBadValue(value)}`, detail), field };
}

/** field.TooLong: the value is omitted; "may not be more than N bytes" (kube says bytes even for rune counts). */
export function tooLongCause(field: string, max: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: ${max >= 0 ? `may not be more than ${max} bytes` : 'value is too long'}`, field };
}

/** field.TooMany: "Too many: <actual>: must have at most <max> items". */
export function tooManyCause(field: string, actual: number, max: number): StatusCause {
  const detail = max >= 0 ? `must have at most ${max} items` : 'has too many items';
  return { reason: 'FieldValueTooMany', message: actual >= 0 ? `Too many: ${actual}: ${detail}` : `Too many: ${detail}`, field };
}

/** Go's field.Path: a child name after a dot, an index or map key in brackets. */
export function childPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}.${name}`;
}

export function indexPath(parent: string, index: number | string): string {
  return `${parent}[${index}]`;
}

/** Go's sort.Strings order (byte order of UTF-8, which is code point order). */
export function goStringCompare(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** A JSON string as Go's json.Marshal writes it (HTML characters and line separators escaped). */
function goJsonString(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go's json.Marshal of a decoded value (maps with sorted keys), used where kube compares or prints JSON. */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort(goStringCompare).map((key) => `${goJsonString(key)}:${goJson(record[key])}`).join(',')}}`;
  }
  if (typeof value === 'number') return isGoInt(value) ? BigInt(value).toString() : JSON.stringify(value);
  if (typeof value === 'string') return goJsonString(value);
  return JSON.stringify(value) ?? 'null';
}
