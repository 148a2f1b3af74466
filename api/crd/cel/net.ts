// Owns: the value types of the CEL ip, cidr and url libraries: IP addresses and prefixes parsed
// as Go's net/netip does (no leading zeros, no zones, no IPv4-mapped IPv6 as kube refuses them)
// with canonical (RFC 5952) text, the address class predicates, and request URIs parsed as Go's
// url.ParseRequestURI (scheme, host, hostname, port, escaped path, query).

/** A parse failure, with the kube library's message. */
export class NetError extends Error {}

/** An IPv4 (4 bytes) or IPv6 (16 bytes) address. */
export class IPAddress {
  constructor(readonly bytes: Uint8Array) {}

  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }

  toString(): string {
    return formatAddress(this.bytes);
  }

  equals(other: IPAddress): boolean {
    return sameBytes(this.bytes, other.bytes);
  }

  isUnspecified(): boolean {
    return this.bytes.every((byte) => byte === 0);
  }

  isLoopback(): boolean {
    if (this.family === 4) return this.bytes[0] === 127;
    return this.bytes.slice(0, 15).every((byte) => byte === 0) && this.bytes[15] === 1;
  }

  isMulticast(): boolean {
    return this.family === 4 ? (this.bytes[0]! & 0xf0) === 0xe0 : this.bytes[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    if (this.family === 4) return this.bytes[0] === 224 && this.bytes[1] === 0 && this.bytes[2] === 0;
    return this.bytes[0] === 0xff && (this.bytes[1]! & 0x0f) === 0x02;
  }

  isLinkLocalUnicast(): boolean {
    if (this.family === 4) return this.bytes[0] === 169 && this.bytes[1] === 254;
    return this.bytes[0] === 0xfe && (this.bytes[1]! & 0xc0) === 0x80;
  }

  isGlobalUnicast(): boolean {
    if (this.family === 4 && this.bytes.every((byte) => byte === 255)) return false;
    return !this.isUnspecified() && !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }
}

/** A network prefix: an address (as written) and a prefix length. */
export class IPPrefix {
  constructor(readonly address: IPAddress, readonly bits: number) {}

  toString(): string {
    return `${this.address.toString()}/${this.bits}`;
  }

  equals(other: IPPrefix): boolean {
    return this.bits === other.bits && this.address.equals(other.address);
  }

  masked(): IPPrefix {
    return new IPPrefix(new IPAddress(maskBytes(this.address.bytes, this.bits)), this.bits);
  }

  contains(address: IPAddress): boolean {
    if (address.family !== this.address.family) return false;
    return sameBytes(maskBytes(address.bytes, this.bits), maskBytes(this.address.bytes, this.bits));
  }

  containsPrefix(other: IPPrefix): boolean {
    return other.address.family === this.address.family && this.bits <= other.bits && this.contains(other.address);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false;
  return true;
}

function maskBytes(bytes: Uint8Array, bits: number): Uint8Array {
  const result = new Uint8Array(bytes.length);
  for (let index = 0; index < bytes.length; index += 1) {
    const keep = Math.max(0, Math.min(8, bits - index * 8));
    result[index] = bytes[index]! & ((0xff << (8 - keep)) & 0xff);
  }
  return result;
}

function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  const groups: number[] = [];
  for (let index = 0; index < 16; index += 2) groups.push((bytes[index]! << 8) | bytes[index + 1]!);
  let bestStart = -1;
  let bestLength = 0;
  for (let index = 0; index < 8;) {
    if (groups[index] !== 0) {
      index += 1;
      continue;
    }
    let end = index;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - index > bestLength && end - index >= 2) {
      bestStart = index;
      bestLength = end - index;
    }
    index = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function parseIPv4(text: string, quoted: string): Uint8Array {
  const fields = text.split('.');
  if (fields.length !== 4) throw new NetError(`ParseAddr(${quoted}): IPv4 address too ${fields.length < 4 ? 'short' : 'long'}`);
  const bytes = new Uint8Array(4);
  fields.forEach((field, index) => {
    if (field === '') throw new NetError(`ParseAddr(${quoted}): IPv4 field must have at least one digit`);
    if (!/^[0-9]+$/.test(field)) throw new NetError(`ParseAddr(${quoted}): unexpected character`);
    if (field.length > 1 && field.startsWith('0')) throw new NetError(`ParseAddr(${quoted}): IPv4 field has octet with leading zero`);
    const value = Number(field);
    if (value > 255) throw new NetError(`ParseAddr(${quoted}): IPv4 field has value >255`);
    bytes[index] = value;
  });
  return bytes;
}

function parseIPv6(text: string, quoted: string): Uint8Array {
  const fail = (detail: string): never => {
    throw new NetError(`ParseAddr(${quoted}): ${detail}`);
  };
  const halves = text.split('::');
  if (halves.length > 2) fail('multiple :: in address');
  const groupsOf = (part: string): number[] => {
    if (part === '') return [];
    const result: number[] = [];
    const pieces = part.split(':');
    pieces.forEach((piece, index) => {
      if (piece.includes('.')) {
        if (index !== pieces.length - 1) fail('unexpected character');
        const v4 = parseIPv4(piece, quoted);
        result.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
        return;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) fail(piece.length > 4 ? 'IPv6 field has value >=2^16' : 'each colon-separated field must have at least one digit');
      result.push(Number.parseInt(piece, 16));
    });
    return result;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  let groups: number[];
  if (halves.length === 2) {
    if (head.length + tail.length > 7) fail('IPv6 address too long');
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    if (head.length < 8) fail('IPv6 address too short');
    if (head.length > 8) fail('IPv6 address too long');
    groups = head;
  }
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** netip.ParseAddr as the kube ip library uses it (zones and IPv4-mapped IPv6 refused). */
export function parseIP(text: string): IPAddress {
  const quoted = JSON.stringify(text);
  let bytes: Uint8Array;
  try {
    if (text === '') throw new NetError('ParseAddr(""): unable to parse IP');
    if (text.includes('%')) {
      throw new NetError('zone');
    }
    bytes = text.includes(':') ? parseIPv6(text, quoted) : text.includes('.') ? parseIPv4(text, quoted) : (() => {
      throw new NetError(`ParseAddr(${quoted}): unable to parse IP`);
    })();
  } catch (error) {
    if ((error as Error).message === 'zone') throw new NetError(`IP address ${quoted} with zone value is not allowed`);
    throw new NetError(`IP Address ${quoted} parse error during conversion from string: ${(error as Error).message}`);
  }
  if (bytes.length === 16 && bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    throw new NetError(`IPv4-mapped IPv6 address ${quoted} is not allowed`);
  }
  return new IPAddress(bytes);
}

/** netip.ParsePrefix as the kube cidr library uses it. */
export function parseCIDR(text: string): IPPrefix {
  const quoted = JSON.stringify(text);
  const slash = text.lastIndexOf('/');
  const fail = (detail: string): never => {
    throw new NetError(`network address parse error during conversion from string: netip.ParsePrefix(${quoted}): ${detail}`);
  };
  if (slash < 0) fail('no \'/\'');
  const addressText = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  if (addressText.includes('%')) fail('IPv6 zones cannot be present in a prefix');
  let address: IPAddress;
  try {
    const bytes = addressText.includes(':') ? parseIPv6(addressText, JSON.stringify(addressText)) : parseIPv4(addressText, JSON.stringify(addressText));
    address = new IPAddress(bytes);
  } catch (error) {
    return fail((error as Error).message);
  }
  if (!/^[0-9]+$/.test(bitsText) || (bitsText.length > 1 && bitsText.startsWith('0'))) fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > address.bytes.length * 8) fail(`prefix length out of range`);
  const bytes = address.bytes;
  if (bytes.length === 16 && bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    throw new NetError(`IPv4-mapped IPv6 address ${quoted} is not allowed`);
  }
  return new IPPrefix(address, bits);
}

/** A parsed request URI. */
export class RequestURL {
  constructor(
    readonly text: string,
    readonly scheme: string,
    readonly host: string,
    readonly escapedPath: string,
    readonly rawQuery: string,
  ) {}

  hostname(): string {
    if (this.host.startsWith('[')) {
      const close = this.host.indexOf(']');
      return close < 0 ? this.host.slice(1) : this.host.slice(1, close);
    }
    const colon = this.host.lastIndexOf(':');
    return colon < 0 ? this.host : this.host.slice(0, colon);
  }

  port(): string {
    const close = this.host.lastIndexOf(']');
    const colon = this.host.lastIndexOf(':');
    if (colon < 0 || colon < close) return '';
    const port = this.host.slice(colon + 1);
    return /^[0-9]*$/.test(port) ? port : '';
  }

  /** url.Values of the query: every key with its values in order. */
  query(): Map<string, string[]> {
    const result = new Map<string, string[]>();
    for (const part of this.rawQuery.split('&')) {
      if (part === '' || part.includes(';')) continue;
      const equals = part.indexOf('=');
      const key = unescapeQuery(equals < 0 ? part : part.slice(0, equals));
      const value = unescapeQuery(equals < 0 ? '' : part.slice(equals + 1));
      if (key === undefined || value === undefined) continue;
      const values = result.get(key);
      if (values === undefined) result.set(key, [value]);
      else values.push(value);
    }
    return result;
  }
}

function unescapeQuery(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** url.ParseRequestURI then url.Parse, as kube's url() does; the error text is Go's. */
export function parseRequestURL(text: string): RequestURL {
  const fail = (detail: string): never => {
    throw new NetError(`URL parse error during conversion from string: parse ${JSON.stringify(text)}: ${detail}`);
  };
  if (Array.from(text).some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)) fail('net/url: invalid control character in URL');
  if (text === '') fail('empty url');
  let rest = text;
  let scheme = '';
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (schemeMatch !== null) {
    scheme = schemeMatch[1]!.toLowerCase();
    rest = rest.slice(schemeMatch[0].length);
  } else if (/^[0-9+.-]*:/.test(rest) && !rest.startsWith('/')) fail('missing protocol scheme');
  let rawQuery = '';
  const question = rest.indexOf('?');
  if (question >= 0) {
    rawQuery = rest.slice(question + 1);
    rest = rest.slice(0, question);
  }
  if (!rest.startsWith('/') && scheme === '') fail('invalid URI for request');
  let host = '';
  if (rest.startsWith('//') && (scheme !== '' || true)) {
    const authorityEnd = rest.indexOf('/', 2);
    const authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, authorityEnd);
    rest = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
    const at = authority.lastIndexOf('@');
    host = at < 0 ? authority : authority.slice(at + 1);
    if (host.startsWith('[') && host.indexOf(']') < 0) fail('missing \']\' in host');
    const close = host.lastIndexOf(']');
    const colon = host.lastIndexOf(':');
    if (colon > close) {
      const port = host.slice(colon + 1);
      if (!/^[0-9]*$/.test(port)) fail(`invalid port ${JSON.stringify(`:${port}`)} after host`);
    }
  } else if (scheme !== '' && !rest.startsWith('/')) {
    // An opaque URI such as mailto:x: kube's url() accepts it with an empty host and path.
    return new RequestURL(text, scheme, '', '', rawQuery);
  }
  if (/%(?![0-9a-fA-F]{2})/.test(rest)) fail(`invalid URL escape ${JSON.stringify(rest.slice(rest.search(/%(?![0-9a-fA-F]{2})/), rest.search(/%(?![0-9a-fA-F]{2})/) + 3))}`);
  return new RequestURL(text, scheme, host, rest, rawQuery);
}
