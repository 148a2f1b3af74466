// Owns: checking JSON text before JSON.parse sees it, as Go's encoding/json scanner does (the
// scanner kube-apiserver's decoders run first): one linear pass with an explicit stack, no
// recursion, that refuses nesting deeper than a limit ("exceeded max depth") and any syntax
// error with Go's exact message ("invalid character 'x' after object key", "unexpected end of
// JSON input"), and reports each number literal with its path so callers can check numbers
// JSON.parse would silently round (1e400 → Infinity, 2^64 → 18446744073709552000) against
// what the field's Go type accepts. The grammar is RFC 8259, the same JSON.parse accepts, so
// text this passes always parses.

/** A step into a document: an object key or an array position. */
export type PathSegment = string | number;

export interface ScanOptions {
  /** Deepest nesting of objects and arrays allowed (Go: len(parseState) <= max). */
  readonly depthMax: number;
  /**
   * Called for each number literal (its exact text) and a function giving its path. Return
   * a message to stop scanning with that failure (reported as `kind: 'number'`). Called as
   * a method of the options object.
   */
  readonly onNumber?: (literal: string, path: () => PathSegment[]) => string | undefined;
}

export type ScanResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: 'syntax' | 'depth' | 'number'; readonly message: string; readonly offset: number };

/**
 * Go's quoteChar of the byte the scanner stopped at: `'x'`, `'\n'`, `'\x01'`. Go scans bytes,
 * so a non-ASCII character is reported as its first UTF-8 byte read as a code point (`'Ã'`).
 */
export function goQuoteChar(text: string, offset: number): string {
  const codePoint = text.codePointAt(offset) ?? 0;
  const byte = codePoint < 0x80 ? codePoint
    : codePoint < 0x800 ? 0xc0 | (codePoint >> 6)
      : codePoint < 0x10000 ? 0xe0 | (codePoint >> 12)
        : 0xf0 | (codePoint >> 18);
  if (byte === 0x27) return `'\\''`;
  if (byte === 0x22) return `'"'`;
  const named: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (named[byte] !== undefined) return `'${named[byte]}'`;
  if (byte < 0x20 || byte === 0x7f) return `'\\x${byte.toString(16).padStart(2, '0')}'`;
  // strconv.Quote escapes the non-printable Latin-1 code points (C1 controls, NBSP, soft hyphen).
  if ((byte >= 0x80 && byte <= 0xa0) || byte === 0xad) return `'\\u00${byte.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(byte)}'`;
}

const enum Frame { ObjectKey, ObjectValue, ArrayValue }

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isHex(code: number): boolean {
  return isDigit(code) || (code >= 0x61 && code <= 0x66) || (code >= 0x41 && code <= 0x46);
}

/** Scans `text` as one JSON value; see the module comment. */
export function scanJson(text: string, options: ScanOptions): ScanResult {
  return new JsonScanner(text, options).scan();
}

/**
 * One scan's state. A class rather than closures over locals: the scanner runs on every JSON
 * body, and a function's inner named closures are created (and, under the TypeScript loader,
 * named) on every call.
 */
class JsonScanner {
  readonly #text: string;
  readonly #options: ScanOptions;
  readonly #length: number;
  #position = 0;
  readonly #frames: Frame[] = [];
  // The key of each open object's current member (start and end of its quoted text) and the
  // position of each open array's current element; read only to build a path on demand.
  readonly #keyStart: number[] = [];
  readonly #keyEnd: number[] = [];
  readonly #index: number[] = [];

  constructor(text: string, options: ScanOptions) {
    this.#text = text;
    this.#options = options;
    this.#length = text.length;
  }

  // At the end of the text Go's scanner is fed one space: a state that cannot take it reports
  // "invalid character ' ' <context>", any other "unexpected end of JSON input".
  #fail(kind: 'syntax' | 'depth', at: number, context: string): ScanResult {
    const length = this.#length;
    if (at < length) return { ok: false, kind, message: `invalid character ${goQuoteChar(this.#text, at)} ${context}`, offset: at };
    return { ok: false, kind: 'syntax', message: context === '' ? 'unexpected end of JSON input' : `invalid character ' ' ${context}`, offset: length };
  }

  #pathOf(): PathSegment[] {
    return this.#frames.map((frame, depth) => (frame === Frame.ArrayValue
      ? this.#index[depth]!
      : JSON.parse(this.#text.slice(this.#keyStart[depth]!, this.#keyEnd[depth]!)) as string));
  }

  #skipSpace(): void {
    const text = this.#text;
    const length = this.#length;
    let position = this.#position;
    while (position < length && isSpace(text.charCodeAt(position))) position++;
    this.#position = position;
  }

  /** Scans a string starting at its opening quote; returns the failure, if any. */
  #scanString(): ScanResult | undefined {
    const text = this.#text;
    const length = this.#length;
    let position = this.#position + 1;
    for (;;) {
      if (position >= length) return this.#fail('syntax', position, '');
      const code = text.charCodeAt(position);
      if (code === 0x22) {
        this.#position = position + 1;
        return undefined;
      }
      if (code < 0x20) return this.#fail('syntax', position, 'in string literal');
      if (code !== 0x5c) {
        position++;
        continue;
      }
      position++;
      if (position >= length) return this.#fail('syntax', position, 'in string escape code');
      const escape = text.charCodeAt(position);
      if (escape === 0x75) {
        for (let digit = 1; digit <= 4; digit++) {
          if (position + digit >= length) return this.#fail('syntax', length, 'in \\u hexadecimal character escape');
          if (!isHex(text.charCodeAt(position + digit))) return this.#fail('syntax', position + digit, 'in \\u hexadecimal character escape');
        }
        position += 5;
      } else if ('bfnrt\\/"'.includes(text[position]!)) {
        position++;
      } else {
        return this.#fail('syntax', position, 'in string escape code');
      }
    }
  }

  /** An object key (its string) and the colon after it; `position` ends past the colon. */
  #scanKey(depth: number): ScanResult | undefined {
    const text = this.#text;
    if (this.#position >= this.#length) return this.#fail('syntax', this.#position, '');
    if (text.charCodeAt(this.#position) !== 0x22) return this.#fail('syntax', this.#position, 'looking for beginning of object key string');
    this.#keyStart[depth] = this.#position;
    const failure = this.#scanString();
    if (failure) return failure;
    this.#keyEnd[depth] = this.#position;
    this.#skipSpace();
    if (this.#position >= this.#length) return this.#fail('syntax', this.#position, '');
    if (text.charCodeAt(this.#position) !== 0x3a) return this.#fail('syntax', this.#position, 'after object key');
    this.#position++;
    return undefined;
  }

  /** Scans a number literal (its first character is '-' or a digit). */
  #scanNumber(): ScanResult | undefined {
    const text = this.#text;
    const length = this.#length;
    const start = this.#position;
    let position = start;
    if (text.charCodeAt(position) === 0x2d) {
      position++;
      if (!isDigit(text.charCodeAt(position))) return this.#fail('syntax', position, 'in numeric literal');
    }
    if (text.charCodeAt(position) === 0x30) position++;
    else while (position < length && isDigit(text.charCodeAt(position))) position++;
    if (position < length && text.charCodeAt(position) === 0x2e) {
      position++;
      if (!isDigit(text.charCodeAt(position))) return this.#fail('syntax', position, 'after decimal point in numeric literal');
      while (position < length && isDigit(text.charCodeAt(position))) position++;
    }
    if (position < length && (text.charCodeAt(position) | 0x20) === 0x65) {
      position++;
      if (position < length && (text.charCodeAt(position) === 0x2b || text.charCodeAt(position) === 0x2d)) position++;
      if (!isDigit(text.charCodeAt(position))) return this.#fail('syntax', position, 'in exponent of numeric literal');
      while (position < length && isDigit(text.charCodeAt(position))) position++;
    }
    this.#position = position;
    // Called as a method of the options, so an options object may be a class instance.
    const options = this.#options;
    if (options.onNumber) {
      const problem = options.onNumber(text.slice(start, position), () => this.#pathOf());
      if (problem !== undefined) return { ok: false, kind: 'number', message: problem, offset: start };
    }
    return undefined;
  }

  #scanLiteral(word: string): ScanResult | undefined {
    const text = this.#text;
    const position = this.#position;
    for (let at = 1; at < word.length; at++) {
      if (text[position + at] !== word[at]) return this.#fail('syntax', position + at, `in literal ${word} (expecting '${word[at]}')`);
    }
    this.#position = position + word.length;
    return undefined;
  }

  scan(): ScanResult {
    const text = this.#text;
    const length = this.#length;
    const frames = this.#frames;
    // The main loop: at the top, a value is expected; after a value, the enclosing frame decides.
    let expectValue = true;
    for (;;) {
      this.#skipSpace();
      if (expectValue) {
        if (this.#position >= length) return this.#fail('syntax', this.#position, '');
        const code = text.charCodeAt(this.#position);
        if (code === 0x7b || code === 0x5b) {
          const depth = frames.length;
          frames.push(code === 0x7b ? Frame.ObjectKey : Frame.ArrayValue);
          if (frames.length > this.#options.depthMax) return this.#fail('depth', this.#position, 'exceeded max depth');
          this.#index[depth] = 0;
          this.#position++;
          this.#skipSpace();
          if (code === 0x5b) {
            if (this.#position < length && text.charCodeAt(this.#position) === 0x5d) {
              this.#position++;
              frames.pop();
              expectValue = false;
            }
            continue;
          }
          if (this.#position < length && text.charCodeAt(this.#position) === 0x7d) {
            this.#position++;
            frames.pop();
            expectValue = false;
            continue;
          }
          // An object's first key.
          const failure = this.#scanKey(depth);
          if (failure) return failure;
          frames[depth] = Frame.ObjectValue;
          continue;
        }
        let failure: ScanResult | undefined;
        if (code === 0x22) failure = this.#scanString();
        else if (code === 0x2d || isDigit(code)) failure = this.#scanNumber();
        else if (code === 0x74) failure = this.#scanLiteral('true');
        else if (code === 0x66) failure = this.#scanLiteral('false');
        else if (code === 0x6e) failure = this.#scanLiteral('null');
        else return this.#fail('syntax', this.#position, 'looking for beginning of value');
        if (failure) return failure;
        expectValue = false;
        continue;
      }
      // After a value.
      const depth = frames.length - 1;
      if (depth < 0) {
        if (this.#position < length) return this.#fail('syntax', this.#position, 'after top-level value');
        return { ok: true };
      }
      if (this.#position >= length) return this.#fail('syntax', this.#position, '');
      const code = text.charCodeAt(this.#position);
      if (frames[depth] === Frame.ArrayValue) {
        if (code === 0x2c) {
          this.#index[depth]!++;
          this.#position++;
          expectValue = true;
        } else if (code === 0x5d) {
          this.#position++;
          frames.pop();
        } else {
          return this.#fail('syntax', this.#position, 'after array element');
        }
        continue;
      }
      if (code === 0x7d) {
        this.#position++;
        frames.pop();
        continue;
      }
      if (code !== 0x2c) return this.#fail('syntax', this.#position, 'after object key:value pair');
      this.#position++;
      this.#skipSpace();
      const failure = this.#scanKey(depth);
      if (failure) return failure;
      expectValue = true;
    }
  }
}
