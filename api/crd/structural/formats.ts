// Owns: the string formats kube checks in custom resources — kube-openapi's strfmt registry
// (uri, email, hostname, ipv4, ipv6, cidr, mac, uuid/uuid3/4/5, isbn/isbn10/isbn13, creditcard,
// ssn, hexcolor, rgbcolor, byte, password, date, datetime, duration, bsonobjectid), each checked
// as the Go function behind it does (net/url.ParseRequestURI, net/mail.ParseAddress,
// k8s.io/utils/net's sloppy IP parsing, net.ParseMAC, time.Parse), and which formats survive
// apiextensions' format stripping (any other format, int32 included, is dropped before a custom
// resource is validated). Names are normalized as strfmt does (dashes removed: "date-time").
import { compileGoRegexp } from './regex.ts';

/** strfmt's name normalization: dashes removed. */
export function normalizeFormat(name: string): string {
  return name.replaceAll('-', '');
}

function goMatcher(pattern: string): (value: string) => boolean {
  const compiled = compileGoRegexp(pattern);
  if (compiled.regexp === undefined) throw new Error(compiled.error);
  const regexp = compiled.regexp;
  return (value) => regexp.test(value);
}

const utf8 = new TextEncoder();

function byteLength(value: string): number {
  return utf8.encode(value).length;
}

const hostnamePattern = goMatcher(String.raw`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`);

function isHostname(value: string): boolean {
  if (!hostnamePattern(value) || byteLength(value) > 255) return false;
  return value.split('.').every((part) => byteLength(part) <= 63);
}

const uuidPattern = goMatcher('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$');
const uuid3Pattern = goMatcher('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$');
const uuid4Pattern = goMatcher('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$');
const uuid5Pattern = goMatcher('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$');
const creditCardPattern = goMatcher(String.raw`^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$`);
const isbn10Pattern = /^(?:[0-9]{9}X|[0-9]{10})$/;
const isbn13Pattern = /^(?:[0-9]{13})$/;
const hexColorPattern = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const rgbColorPattern = goMatcher(String.raw`^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$`);
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const ssnPattern = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;

function isIsbn(value: string, version: 10 | 13): boolean {
  const sanitized = value.replace(/[\t\n\f\r -]+/g, '');
  if (version === 10) {
    if (!isbn10Pattern.test(sanitized)) return false;
    let checksum = 0;
    for (let i = 0; i < 9; i++) checksum += (i + 1) * Number(sanitized[i]);
    checksum += sanitized[9] === 'X' ? 100 : 10 * Number(sanitized[9]);
    return checksum % 11 === 0;
  }
  if (!isbn13Pattern.test(sanitized)) return false;
  let checksum = 0;
  for (let i = 0; i < 12; i++) checksum += (i % 2 === 0 ? 1 : 3) * Number(sanitized[i]);
  return Number(sanitized[12]) - ((10 - (checksum % 10)) % 10) === 0;
}

function isCreditCard(value: string): boolean {
  const sanitized = value.replace(/[^0-9]+/g, '');
  if (!creditCardPattern(sanitized)) return false;
  let sum = 0;
  let double = false;
  for (let i = sanitized.length - 1; i >= 0; i--) {
    let digit = Number(sanitized[i]);
    if (double) {
      digit *= 2;
      sum += digit >= 10 ? (digit % 10) + 1 : digit;
    } else sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Go's dtoi as the pre-1.17 net parser (k8s.io/utils/net's sloppy copy) reads a decimal: [value, digits]. */
function decimal(text: string, from: number): [number, number] {
  let value = 0;
  let index = from;
  while (index < text.length && text[index]! >= '0' && text[index]! <= '9') {
    value = value * 10 + (text.charCodeAt(index) - 48);
    index++;
    if (value >= 0xffffff) return [value, -1];
  }
  return [value, index - from];
}

function hexadecimal(text: string, from: number): [number, number] {
  let value = 0;
  let index = from;
  while (index < text.length && /^[0-9a-fA-F]$/.test(text[index]!)) {
    value = value * 16 + parseInt(text[index]!, 16);
    index++;
    if (value >= 0xffffff) return [value, -1];
  }
  return [value, index - from];
}

/** An IPv4 address; `sloppy` allows leading zeros (k8s.io/utils/net ParseIPSloppy), else Go's net.ParseIP. */
function parseIPv4(text: string, sloppy: boolean): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  for (const part of parts) {
    if (part === '' || !/^[0-9]+$/.test(part)) return false;
    if (!sloppy && (part.length > 3 || (part.length > 1 && part[0] === '0'))) return false;
    const [value, digits] = decimal(part, 0);
    if (digits < 0 || value > 255) return false;
  }
  return true;
}

/** An IPv6 address (with an optional trailing IPv4 part), as Go parses it; `sloppy` is the pre-1.17 parser. */
function parseIPv6(text: string, sloppy: boolean): boolean {
  let groups = 0;
  let ellipsis = -1;
  let index = 0;
  if (text.startsWith('::')) {
    ellipsis = 0;
    index = 2;
    if (index === text.length) return true;
  }
  while (groups < 8) {
    const rest = text.slice(index);
    const [value, digits] = hexadecimal(text, index);
    if (digits > 0 && index + digits < text.length && text[index + digits] === '.') {
      if (ellipsis < 0 && groups !== 6) return false;
      if (groups + 2 > 8) return false;
      if (!parseIPv4(rest, sloppy)) return false;
      groups += 2;
      index = text.length;
      break;
    }
    if (digits <= 0 || value > 0xffff || (!sloppy && digits > 4)) return false;
    groups++;
    index += digits;
    if (index === text.length) break;
    if (text[index] !== ':' || index + 1 === text.length) return false;
    index++;
    if (text[index] === ':') {
      if (ellipsis >= 0) return false;
      ellipsis = groups;
      index++;
      if (index === text.length) break;
    }
  }
  if (index !== text.length) return false;
  if (groups < 8) return ellipsis >= 0;
  return ellipsis < 0;
}

function parseIP(text: string, sloppy: boolean): boolean {
  for (const character of text) {
    if (character === '.') return parseIPv4(text, sloppy);
    if (character === ':') return parseIPv6(text, sloppy);
  }
  return false;
}

function isCIDR(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  const address = value.slice(0, slash);
  const mask = value.slice(slash + 1);
  if (!parseIP(address, true)) return false;
  const bits = address.includes(':') ? 128 : 32;
  const [length, digits] = decimal(mask, 0);
  return digits > 0 && digits === mask.length && length <= bits;
}

function isMAC(value: string): boolean {
  if (value.length < 14) return false;
  const hexPair = (from: number): boolean => /^[0-9a-fA-F]{2}$/.test(value.slice(from, from + 2));
  if (value[2] === ':' || value[2] === '-') {
    if ((value.length + 1) % 3 !== 0) return false;
    const count = (value.length + 1) / 3;
    if (count !== 6 && count !== 8 && count !== 20) return false;
    for (let i = 0; i < count; i++) {
      if (!hexPair(3 * i)) return false;
      if (i < count - 1 && value[3 * i + 2] !== value[2]) return false;
    }
    return true;
  }
  if (value[4] === '.') {
    if ((value.length + 1) % 5 !== 0) return false;
    const count = (2 * (value.length + 1)) / 5;
    if (count !== 6 && count !== 8 && count !== 20) return false;
    for (let i = 0; i < count; i += 2) {
      const at = 5 * (i / 2);
      if (!hexPair(at) || !hexPair(at + 2)) return false;
      if (i < count - 2 && value[at + 4] !== '.') return false;
    }
    return true;
  }
  return false;
}

const userinfoCharacter = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;
const hostCharacterAllowed = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"%]$/;

function validPercentEncoding(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && !/^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) return false;
  }
  return true;
}

/** Go's net/url.ParseRequestURI succeeds. */
function isRequestURI(value: string): boolean {
  if (value === '' || [...value].some((character) => character.charCodeAt(0) < 0x20 || character === '\u007f')) return false;
  let rest = value;
  let scheme = '';
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(value);
  if (value.startsWith(':')) return false;
  if (schemeMatch !== null) {
    scheme = schemeMatch[1]!;
    rest = value.slice(schemeMatch[0].length);
  }
  if (!(rest.endsWith('?') && rest.split('?').length === 2)) {
    const question = rest.indexOf('?');
    if (question >= 0) rest = rest.slice(0, question);
  } else rest = rest.slice(0, -1);
  if (!rest.startsWith('/')) return scheme !== '';
  if (scheme !== '' && rest.startsWith('//')) {
    const authorityEnd = rest.indexOf('/', 2);
    const authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, authorityEnd);
    rest = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
    const at = authority.lastIndexOf('@');
    const userinfo = at < 0 ? undefined : authority.slice(0, at);
    const host = at < 0 ? authority : authority.slice(at + 1);
    if (userinfo !== undefined && !userinfoCharacter.test(userinfo)) return false;
    if (!validHost(host)) return false;
  }
  return validPercentEncoding(rest);
}

function validHost(host: string): boolean {
  let name = host;
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) return false;
    const port = host.slice(close + 1);
    if (port !== '' && !/^:[0-9]*$/.test(port)) return false;
    name = host.slice(1, close);
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) {
      if (!/^:[0-9]*$/.test(host.slice(colon))) return false;
      name = host.slice(0, colon);
    }
  }
  if (!validPercentEncoding(name)) return false;
  for (const character of name) {
    if (character.codePointAt(0)! < 0x80 && !hostCharacterAllowed.test(character)) return false;
  }
  return true;
}

/** An atom character of net/mail (printable ASCII but specials, or any non-ASCII rune). */
function isAtext(character: string): boolean {
  const code = character.codePointAt(0)!;
  return code > 0x20 && code !== 0x7f && !'()<>[]:;@\\,."'.includes(character);
}

/** Go's net/mail.ParseAddress accepts the address (a bare addr-spec or `name <addr-spec>`). */
function isEmail(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed === '') return false;
  const angle = trimmed.lastIndexOf('<');
  if (angle >= 0) {
    if (!trimmed.endsWith('>')) return false;
    const name = trimmed.slice(0, angle).trim();
    if (name !== '' && !validDisplayName(name)) return false;
    return isAddrSpec(trimmed.slice(angle + 1, -1));
  }
  return isAddrSpec(trimmed);
}

function validDisplayName(name: string): boolean {
  if (name.startsWith('"')) return /^"(?:[^"\\]|\\.)*"$/u.test(name);
  return name.split(/\s+/).every((word) => [...word].every((character) => isAtext(character) || character === '.'));
}

function isDotAtom(text: string): boolean {
  if (text === '' || text.startsWith('.') || text.endsWith('.') || text.includes('..')) return false;
  for (const character of text) if (character !== '.' && !isAtext(character)) return false;
  return true;
}

function isAddrSpec(spec: string): boolean {
  const at = spec.lastIndexOf('@');
  if (at <= 0) return false;
  const local = spec.slice(0, at);
  const domain = spec.slice(at + 1);
  const localValid = local.startsWith('"') ? /^"(?:[^"\\\r\n]|\\.)*"$/u.test(local) && local.length > 2 : isDotAtom(local);
  if (!localValid) return false;
  if (domain.startsWith('[')) return /^\[[^[\]\\]*\]$/.test(domain);
  return isDotAtom(domain);
}

const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Go's time.Parse("2006-01-02", value) succeeds. */
function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : daysInMonth[month - 1]!);
}

const dateTimeTime = goMatcher('^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$');
const dateTimeTimeParts = /^([0-9]{2}):([0-9]{2}):([0-9]{2})/;

/** strfmt's IsDateTime: a valid date, "t", then a time whose fields are in range (lowercased). */
function isDateTime(value: string): boolean {
  if (value.length < 4) return false;
  const parts = value.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const time = parts[1]!;
  if (!dateTimeTime(time)) return false;
  const fields = dateTimeTimeParts.exec(time)!;
  return fields[1]! <= '23' && fields[2]! <= '59' && fields[3]! <= '59';
}

const durationUnits: readonly (readonly string[])[] = [
  ['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week'],
];

function isGoDuration(value: string): boolean {
  if (value === '0' || value === '+0' || value === '-0') return true;
  return /^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$/u.test(value);
}

/** strfmt's ParseDuration: Go's time.ParseDuration, or "<n> <unit>" pieces in Scala's style. */
function isDuration(value: string): boolean {
  if (isGoDuration(value)) return true;
  let matched = false;
  for (const match of value.matchAll(/(\d+)[\t\n\f\r ]*([A-Za-zµ]+)/gu)) {
    if (BigInt(match[1]!) > 2n ** 63n - 1n) return false;
    const unit = match[2]!.toLowerCase().trim();
    for (const variants of durationUnits) {
      variants.forEach((variant, index) => {
        if ((index === variants.length - 1 && unit.startsWith(variant)) || variant.toLowerCase() === unit) matched = true;
      });
    }
  }
  return matched;
}

const validators: ReadonlyMap<string, (value: string) => boolean> = new Map<string, (value: string) => boolean>([
  ['bsonobjectid', (value) => /^[0-9a-fA-F]{24}$/.test(value)],
  ['uri', isRequestURI],
  ['email', isEmail],
  ['hostname', isHostname],
  ['ipv4', (value) => parseIP(value, true) && value.includes('.')],
  ['ipv6', (value) => parseIP(value, false) && value.includes(':')],
  ['cidr', isCIDR],
  ['mac', isMAC],
  ['uuid', uuidPattern],
  ['uuid3', uuid3Pattern],
  ['uuid4', uuid4Pattern],
  ['uuid5', uuid5Pattern],
  ['isbn', (value) => isIsbn(value, 10) || isIsbn(value, 13)],
  ['isbn10', (value) => isIsbn(value, 10)],
  ['isbn13', (value) => isIsbn(value, 13)],
  ['creditcard', isCreditCard],
  ['ssn', (value) => value.length === 11 && ssnPattern.test(value)],
  ['hexcolor', (value) => hexColorPattern.test(value)],
  ['rgbcolor', rgbColorPattern],
  ['byte', (value) => base64Pattern.test(value)],
  ['password', () => true],
  ['date', isDate],
  ['datetime', isDateTime],
  ['duration', isDuration],
]);

/** The strfmt validator of a format name (normalized), if the registry has one. */
export function formatValidator(format: string): ((value: string) => boolean) | undefined {
  return format === '' ? undefined : validators.get(normalizeFormat(format));
}

/**
 * The format a custom resource is validated with: apiextensions strips every format outside its
 * supported list (all of strfmt's), so int32, int64, float, double and unknown names are "".
 */
export function supportedFormat(format: string): string {
  return format !== '' && validators.has(normalizeFormat(format)) ? format : '';
}
