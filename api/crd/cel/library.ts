// Owns: the base CEL environment of CRD validation rules: the engine with optional types and
// homogeneous aggregate literals, plus the Kubernetes libraries kube 1.33 puts in its base
// environment (lists, regex, url, quantity, ip, cidr, format, the strings extension functions the
// engine lacks, sets, optional.ofNonZeroValue). Qualified names such as format.named,
// ip.isCanonical, strings.quote and sets.contains are methods of namespace constants.

import { Environment, EvaluationError, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { NamedFormat, namedFormats } from './format.ts';
import { IPAddress, IPPrefix, NetError, parseCIDR, parseIP, parseRequestURL, RequestURL } from './net.ts';
import { parseQuantity, Quantity, QuantityError } from './quantity.ts';
import { re2Find, re2FindAll, re2Matches } from './regex.ts';
import { celEquals } from './values.ts';
import { goQuote } from '../../go-format.ts';

const sync = { async: false } as const;

/** An error raised by a library function, with the kube library's text. */
function fail(message: string): never {
  throw new EvaluationError(message);
}

class FormatNamespace {}
class IPNamespace {}
class StringsNamespace {}
class SetsNamespace {}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' || typeof a === 'number' || typeof a === 'string' || typeof a === 'boolean') {
    return a < (b as typeof a) ? -1 : a > (b as typeof a) ? 1 : 0;
  }
  if (a instanceof UnsignedInt && b instanceof UnsignedInt) return compareValues(a.valueOf(), b.valueOf());
  if (a instanceof Date && b instanceof Date) return compareValues(a.getTime(), b.getTime());
  if (a instanceof Duration && b instanceof Duration) {
    return a.seconds !== b.seconds ? compareValues(a.seconds, b.seconds) : compareValues(a.nanos, b.nanos);
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
      if (a[index] !== b[index]) return a[index]! < b[index]! ? -1 : 1;
    }
    return compareValues(a.length, b.length);
  }
  return 0;
}

const comparableTypes = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];

function registerLists(env: Environment): void {
  for (const type of comparableTypes) {
    env.registerFunction(`list<${type}>.isSorted(): bool`, (list: readonly unknown[]) => {
      for (let index = 1; index < list.length; index += 1) if (compareValues(list[index - 1], list[index]) > 0) return false;
      return true;
    }, sync);
    for (const [name, prefer] of [['min', 1], ['max', -1]] as const) {
      env.registerFunction(`list<${type}>.${name}(): ${type}`, (list: readonly unknown[]) => {
        if (list.length === 0) fail(`${name} called on empty list`);
        let result = list[0];
        for (const item of list.slice(1)) if (compareValues(result, item) === prefer) result = item;
        return result;
      }, sync);
    }
  }
  env.registerFunction('list<int>.sum(): int', (list: readonly bigint[]) => {
    let total = 0n;
    for (const item of list) {
      total += item;
      if (total > 9223372036854775807n || total < -9223372036854775808n) fail('integer overflow');
    }
    return total;
  }, sync);
  env.registerFunction('list<uint>.sum(): uint', (list: readonly UnsignedInt[]) => {
    let total = 0n;
    for (const item of list) total += item.valueOf();
    if (total > 18446744073709551615n) fail('unsigned integer overflow');
    return new UnsignedInt(total);
  }, sync);
  env.registerFunction('list<double>.sum(): double', (list: readonly number[]) => list.reduce((total, item) => total + item, 0), sync);
  env.registerFunction('list<google.protobuf.Duration>.sum(): google.protobuf.Duration',
    (list: readonly Duration[]) => list.reduce((total, item) => total.addDuration(item), new Duration(0n, 0)), sync);
  env.registerFunction('list<A>.indexOf(A): int', (list: readonly unknown[], item: unknown) => BigInt(list.findIndex((entry) => celEquals(entry, item))), sync);
  env.registerFunction('list<A>.lastIndexOf(A): int', (list: readonly unknown[], item: unknown) => {
    for (let index = list.length - 1; index >= 0; index -= 1) if (celEquals(list[index], item)) return BigInt(index);
    return -1n;
  }, sync);
}

function regexCall<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof EvaluationError) throw error;
    return fail(`Illegal regex: ${(error as Error).message}`);
  }
}

function registerRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', (text: string, pattern: string) => regexCall(() => re2Find(text, pattern)), sync);
  env.registerFunction('string.findAll(string): list<string>', (text: string, pattern: string) => regexCall(() => re2FindAll(text, pattern, -1)), sync);
  env.registerFunction('string.findAll(string, int): list<string>',
    (text: string, pattern: string, limit: bigint) => regexCall(() => re2FindAll(text, pattern, Number(limit))), sync);
}

function netCall<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof NetError || error instanceof QuantityError) return fail(error.message);
    throw error;
  }
}

function registerURLs(env: Environment): void {
  env.registerType('kubernetes.URL', { ctor: RequestURL, fields: {} });
  env.registerFunction('url(string): kubernetes.URL', (text: string) => netCall(() => parseRequestURL(text)), sync);
  env.registerFunction('isURL(string): bool', (text: string) => {
    try {
      parseRequestURL(text);
      return true;
    } catch {
      return false;
    }
  }, sync);
  env.registerFunction('kubernetes.URL.getScheme(): string', (url: RequestURL) => url.scheme, sync);
  env.registerFunction('kubernetes.URL.getHost(): string', (url: RequestURL) => url.host, sync);
  env.registerFunction('kubernetes.URL.getHostname(): string', (url: RequestURL) => url.hostname(), sync);
  env.registerFunction('kubernetes.URL.getPort(): string', (url: RequestURL) => url.port(), sync);
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (url: RequestURL) => url.escapedPath, sync);
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (url: RequestURL) => url.query(), sync);
  env.registerOperator('kubernetes.URL == kubernetes.URL', (a: RequestURL, b: RequestURL) => a.text === b.text);
}

function registerQuantity(env: Environment): void {
  const Q = 'kubernetes.Quantity';
  env.registerType(Q, { ctor: Quantity, fields: {} });
  env.registerFunction(`quantity(string): ${Q}`, (text: string) => netCall(() => parseQuantity(text)), sync);
  env.registerFunction('isQuantity(string): bool', (text: string) => {
    try {
      parseQuantity(text);
      return true;
    } catch {
      return false;
    }
  }, sync);
  env.registerFunction(`sign(${Q}): int`, (q: Quantity) => q.sign(), sync);
  env.registerFunction(`${Q}.sign(): int`, (q: Quantity) => q.sign(), sync);
  env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) === 1, sync);
  env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) === -1, sync);
  env.registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compare(b)), sync);
  env.registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat(), sync);
  env.registerFunction(`${Q}.asInteger(): int`, (q: Quantity) => q.asInt64() ?? fail('cannot convert value to integer'), sync);
  env.registerFunction(`${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined, sync);
  env.registerFunction(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b), sync);
  env.registerFunction(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => a.add(Quantity.fromInt(b)), sync);
  env.registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b.negate()), sync);
  env.registerFunction(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => a.add(Quantity.fromInt(-b)), sync);
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.compare(b) === 0);
}

function registerIP(env: Environment): void {
  env.registerType('net.IP', { ctor: IPAddress, fields: {} });
  env.registerType('kubernetes.IPNamespace', { ctor: IPNamespace, fields: {} });
  env.registerConstant('ip', 'kubernetes.IPNamespace', new IPNamespace());
  env.registerFunction('ip(string): net.IP', (text: string) => netCall(() => parseIP(text)), sync);
  env.registerFunction('isIP(string): bool', (text: string) => {
    try {
      parseIP(text);
      return true;
    } catch {
      return false;
    }
  }, sync);
  env.registerFunction('kubernetes.IPNamespace.isCanonical(string): bool',
    (_namespace: IPNamespace, text: string) => netCall(() => parseIP(text).toString() === text), sync);
  env.registerFunction('string(net.IP): string', (ip: IPAddress) => ip.toString(), sync);
  env.registerFunction('net.IP.family(): int', (ip: IPAddress) => BigInt(ip.family), sync);
  env.registerFunction('net.IP.isUnspecified(): bool', (ip: IPAddress) => ip.isUnspecified(), sync);
  env.registerFunction('net.IP.isLoopback(): bool', (ip: IPAddress) => ip.isLoopback(), sync);
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: IPAddress) => ip.isLinkLocalMulticast(), sync);
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: IPAddress) => ip.isLinkLocalUnicast(), sync);
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (ip: IPAddress) => ip.isGlobalUnicast(), sync);
  env.registerOperator('net.IP == net.IP', (a: IPAddress, b: IPAddress) => a.equals(b));
}

function registerCIDR(env: Environment): void {
  env.registerType('net.CIDR', { ctor: IPPrefix, fields: {} });
  env.registerFunction('cidr(string): net.CIDR', (text: string) => netCall(() => parseCIDR(text)), sync);
  env.registerFunction('isCIDR(string): bool', (text: string) => {
    try {
      parseCIDR(text);
      return true;
    } catch {
      return false;
    }
  }, sync);
  env.registerFunction('net.CIDR.containsIP(string): bool', (prefix: IPPrefix, text: string) => netCall(() => prefix.contains(parseIP(text))), sync);
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', (prefix: IPPrefix, ip: IPAddress) => prefix.contains(ip), sync);
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (prefix: IPPrefix, text: string) => netCall(() => prefix.containsPrefix(parseCIDR(text))), sync);
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (prefix: IPPrefix, other: IPPrefix) => prefix.containsPrefix(other), sync);
  env.registerFunction('net.CIDR.ip(): net.IP', (prefix: IPPrefix) => prefix.address, sync);
  env.registerFunction('net.CIDR.prefixLength(): int', (prefix: IPPrefix) => BigInt(prefix.bits), sync);
  env.registerFunction('net.CIDR.masked(): net.CIDR', (prefix: IPPrefix) => prefix.masked(), sync);
  env.registerFunction('string(net.CIDR): string', (prefix: IPPrefix) => prefix.toString(), sync);
  env.registerOperator('net.CIDR == net.CIDR', (a: IPPrefix, b: IPPrefix) => a.equals(b));
}

function registerFormat(env: Environment): void {
  const F = 'kubernetes.NamedFormat';
  env.registerType(F, { ctor: NamedFormat, fields: {} });
  env.registerType('kubernetes.FormatNamespace', { ctor: FormatNamespace, fields: {} });
  env.registerConstant('format', 'kubernetes.FormatNamespace', new FormatNamespace());
  env.registerFunction(`kubernetes.FormatNamespace.named(string): optional<${F}>`, (_namespace: FormatNamespace, name: string) => {
    const format = namedFormats.get(name);
    return format === undefined ? Optional.none() : Optional.of(format);
  }, sync);
  for (const [name, format] of namedFormats) {
    env.registerFunction(`kubernetes.FormatNamespace.${name}(): ${F}`, () => format, sync);
  }
  env.registerFunction(`${F}.validate(string): optional<list<string>>`, (format: NamedFormat, value: string) => {
    const problems = format.validate(value);
    return problems.length === 0 ? Optional.none() : Optional.of(problems);
  }, sync);
  env.registerOperator(`${F} == ${F}`, (a: NamedFormat, b: NamedFormat) => a.name === b.name);
}

export { goQuote } from '../../go-format.ts';

function formatArgument(verb: string, precision: number | undefined, value: unknown): string {
  switch (verb) {
    case 's':
      if (typeof value === 'string') return value;
      if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
      if (value instanceof UnsignedInt) return String(value.valueOf());
      if (typeof value === 'number') return String(value);
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((item) => formatArgument('s', undefined, item)).join(', ')}]`;
      if (value instanceof Duration) return value.toString();
      if (value instanceof Date) return value.toISOString().replace('.000Z', 'Z');
      return String(value);
    case 'd':
      if (typeof value === 'bigint') return String(value);
      if (value instanceof UnsignedInt) return String(value.valueOf());
      if (typeof value === 'number' && Number.isFinite(value)) return String(Math.trunc(value));
      return fail('error during formatting: decimal clause can only be used on integers');
    case 'f':
    case 'e': {
      const number = typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : value instanceof UnsignedInt ? Number(value.valueOf()) : Number.NaN;
      if (Number.isNaN(number) && typeof value !== 'number') return fail(`error during formatting: fixed-point clause can only be used on doubles`);
      if (!Number.isFinite(number)) return Number.isNaN(number) ? 'NaN' : number > 0 ? 'Infinity' : '-Infinity';
      if (verb === 'f') return number.toFixed(precision ?? 6);
      const text = number.toExponential(precision ?? 6);
      return text.replace(/e([+-])(\d)$/, 'e$10$2');
    }
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      const radix = verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
      let text: string;
      if (typeof value === 'bigint') text = value.toString(radix);
      else if (value instanceof UnsignedInt) text = value.valueOf().toString(radix);
      else if (typeof value === 'boolean' && verb === 'b') text = value ? '1' : '0';
      else if (typeof value === 'string' && radix === 16) text = Array.from(new TextEncoder().encode(value), (byte) => byte.toString(16).padStart(2, '0')).join('');
      else return fail(`error during formatting: only integers${radix === 16 ? ', byte buffers, and strings' : ''} can be formatted as ${radix === 2 ? 'binary' : radix === 8 ? 'octal' : 'hex'}`);
      return verb === 'X' ? text.toUpperCase() : text;
    }
    default:
      return fail(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

/** cel-go's string.format subset: %s %d %f %e %b %o %x %X with optional precision, and %%. */
function formatString(template: string, args: readonly unknown[]): string {
  let out = '';
  let argument = 0;
  for (let index = 0; index < template.length; index += 1) {
    const char = template[index]!;
    if (char !== '%') {
      out += char;
      continue;
    }
    if (template[index + 1] === '%') {
      out += '%';
      index += 1;
      continue;
    }
    const clause = /^%(?:\.(\d+))?([a-zA-Z])/.exec(template.slice(index));
    if (clause === null) fail('could not parse formatting clause: unexpected end of string');
    if (argument >= args.length) fail(`index ${argument} out of range`);
    out += formatArgument(clause[2]!, clause[1] === undefined ? undefined : Number(clause[1]), args[argument]);
    argument += 1;
    index += clause[0].length - 1;
  }
  return out;
}

function codePoints(text: string): string[] {
  return Array.from(text);
}

function registerStrings(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (text: string, index: bigint) => {
    const chars = codePoints(text);
    if (index < 0n || index > BigInt(chars.length)) fail(`index out of range: ${index}`);
    return chars[Number(index)] ?? '';
  }, sync);
  const replace = (text: string, search: string, replacement: string, limit: number): string => {
    if (limit === 0) return text;
    if (search === '') {
      const chars = codePoints(text);
      const count = limit < 0 ? chars.length + 1 : Math.min(limit, chars.length + 1);
      let out = '';
      for (let index = 0; index < chars.length; index += 1) out += (index < count ? replacement : '') + chars[index];
      return count > chars.length ? out + replacement : out;
    }
    let out = '';
    let rest = text;
    let done = 0;
    for (;;) {
      const at = rest.indexOf(search);
      if (at < 0 || (limit >= 0 && done >= limit)) return out + rest;
      out += rest.slice(0, at) + replacement;
      rest = rest.slice(at + search.length);
      done += 1;
    }
  };
  env.registerFunction('string.replace(string, string): string', (text: string, search: string, replacement: string) => replace(text, search, replacement, -1), sync);
  env.registerFunction('string.replace(string, string, int): string',
    (text: string, search: string, replacement: string, limit: bigint) => replace(text, search, replacement, Number(limit)), sync);
  env.registerFunction('string.format(list<dyn>): string', (template: string, args: readonly unknown[]) => formatString(template, args), sync);
  env.registerType('kubernetes.StringsNamespace', { ctor: StringsNamespace, fields: {} });
  env.registerConstant('strings', 'kubernetes.StringsNamespace', new StringsNamespace());
  env.registerFunction('kubernetes.StringsNamespace.quote(string): string', (_namespace: StringsNamespace, text: string) => goQuote(text), sync);
}

function registerSets(env: Environment): void {
  env.registerType('kubernetes.SetsNamespace', { ctor: SetsNamespace, fields: {} });
  env.registerConstant('sets', 'kubernetes.SetsNamespace', new SetsNamespace());
  const contains = (list: readonly unknown[], sub: readonly unknown[]): boolean => sub.every((item) => list.some((entry) => celEquals(entry, item)));
  env.registerFunction('kubernetes.SetsNamespace.contains(list<A>, list<A>): bool',
    (_namespace: SetsNamespace, list: readonly unknown[], sub: readonly unknown[]) => contains(list, sub), sync);
  env.registerFunction('kubernetes.SetsNamespace.equivalent(list<A>, list<A>): bool',
    (_namespace: SetsNamespace, a: readonly unknown[], b: readonly unknown[]) => contains(a, b) && contains(b, a), sync);
  env.registerFunction('kubernetes.SetsNamespace.intersects(list<A>, list<A>): bool',
    (_namespace: SetsNamespace, a: readonly unknown[], b: readonly unknown[]) => a.some((item) => b.some((entry) => celEquals(entry, item))), sync);
}

function isZeroValue(value: unknown): boolean {
  if (value === null || value === false || value === '' || value === 0 || value === 0n) return true;
  if (value instanceof UnsignedInt) return value.valueOf() === 0n;
  if (Array.isArray(value) || value instanceof Uint8Array) return value.length === 0;
  if (value instanceof Map) return value.size === 0;
  if (value instanceof Duration) return value.seconds === 0n && value.nanos === 0;
  if (value instanceof Date) return value.getTime() === -62135596800000;
  return false;
}

function registerOptionalExtras(env: Environment): void {
  env.registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>',
    (_namespace: unknown, value: unknown) => (isZeroValue(value) ? Optional.none() : Optional.of(value)), sync);
}

/** The names a rule may call that are functions of the environment (for "undeclared reference" errors). */
export function functionNames(env: Environment): ReadonlySet<string> {
  return new Set(env.getDefinitions().functions.map((fn) => fn.name));
}

let base: Environment | undefined;

/** The shared base environment (built once); CRD environments clone it. */
export function baseEnvironment(): Environment {
  if (base === undefined) {
    const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true, unlistedVariablesAreDyn: false });
    registerLists(env);
    registerRegex(env);
    registerURLs(env);
    registerQuantity(env);
    registerIP(env);
    registerCIDR(env);
    registerFormat(env);
    registerStrings(env);
    registerSets(env);
    registerOptionalExtras(env);
    base = env;
  }
  return base;
}

/** RE2 `matches`, which replaces the engine's JavaScript-RegExp one in compiled rules (errors are Go's regexp errors). */
export function matchesRe2(text: string, pattern: string): boolean {
  try {
    return re2Matches(text, pattern);
  } catch (error) {
    return fail((error as Error).message);
  }
}
