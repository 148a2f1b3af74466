// Owns: rendering JSON values the way Go's fmt prints the unstructured values
// (map[string]interface{}, []interface{}, int64, float64, string, bool, nil) that kube-apiserver
// puts in error messages (strategic merge patch's "unknown patch type: x in map: map[...]",
// "expected a []interface {}, but received a string"), and Go's strconv.Quote of a string. Values are as sigs.k8s.io/json decodes
// them with PreserveInts: a whole number within int64 is an int64, any other number a float64.
import type { JsonValue } from '../actors/index.ts';

const int64Bound = 2 ** 63;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const nonPrintable = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;
const namedEscapes: Readonly<Record<string, string>> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v',
};

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

/** Go's unicode.IsPrint of one code point. */
export function isGoPrintable(char: string): boolean {
  return printable.test(char);
}

/** Go's strconv.Quote (fmt's %q of a string): double quotes, Go escapes for control and non-printable characters. */
export function goQuote(text: string): string {
  if (!nonPrintable.test(text) && !text.includes('"') && !text.includes('\\')) return `"${text}"`;
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (isGoPrintable(char)) out += char;
    else if (namedEscapes[char] !== undefined) out += namedEscapes[char];
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

function isInt64(value: number): boolean {
  return Number.isInteger(value) && value >= -int64Bound && value < int64Bound;
}

/** Go's %v of a float64 (strconv 'g' with the shortest digits: %e below 1e-4 or from 1e6 on). */
export function goFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa = '0', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Go's reflect type name of a decoded value (`string`, `int64`, `map[string]interface {}`); `%!s(<nil>)` for nil, as %s prints a nil Type. */
export function goTypeName(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return isInt64(value) ? 'int64' : 'float64';
  return Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}';
}

function scalar(value: string | number | boolean | null, verb: 'v' | 's'): string {
  if (value === null) return verb === 'v' ? '<nil>' : '%!s(<nil>)';
  if (typeof value === 'string') return value;
  const text = typeof value === 'boolean' ? String(value) : isInt64(value) ? BigInt(value).toString() : goFloat(value);
  return verb === 'v' ? text : `%!s(${goTypeName(value)}=${text})`;
}

/** Literal output in goFormat's work list (a class, so no JSON value is mistaken for one). */
class Text {
  constructor(readonly text: string) {}
}

/**
 * fmt's %v (or %s) of a decoded value: `map[a:1 b:[x y]]` with map keys sorted, as fmt prints
 * maps. Iterative, so any depth prints without recursion.
 */
export function goFormat(value: JsonValue, verb: 'v' | 's' = 'v'): string {
  const out: string[] = [];
  // A work list of values to print and literal text to emit, processed last-in first-out.
  const work: (JsonValue | Text)[] = [value];
  while (work.length > 0) {
    const current = work.pop()!;
    if (current instanceof Text) {
      out.push(current.text);
      continue;
    }
    if (current === null || typeof current !== 'object') {
      out.push(scalar(current, verb));
      continue;
    }
    if (Array.isArray(current)) {
      work.push(new Text(']'));
      for (let index = current.length - 1; index >= 0; index--) {
        work.push(current[index]!);
        if (index > 0) work.push(new Text(' '));
      }
      out.push('[');
      continue;
    }
    const keys = Object.keys(current).sort();
    work.push(new Text(']'));
    for (let index = keys.length - 1; index >= 0; index--) {
      work.push(current[keys[index]!]!);
      work.push(new Text(`${keys[index]!}:`));
      if (index > 0) work.push(new Text(' '));
    }
    out.push('map[');
  }
  return out.join('');
}
