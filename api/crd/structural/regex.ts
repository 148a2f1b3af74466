// Owns: Go regular expressions (RE2 syntax, as Go's regexp.Compile takes them) for the schema's
// `pattern` and the string formats: a parser that accepts what Go's regexp/syntax accepts and
// refuses the rest with Go's error text ("error parsing regexp: missing closing ): `(a`"), and
// a translation to a JavaScript RegExp (flag 'u') that matches the same strings — RE2's
// character classes (ASCII \s, \d, \w and POSIX [:alpha:]), `.` excluding only \n, inline flags
// (?i) (?m) (?s) (?U), \A \z \Q…\E octal and \x{…} escapes, literal braces, and quantified
// assertions. Only matching is needed, so greediness and capture names are dropped. Compiled
// patterns are cached.

export type GoRegexp = { readonly regexp: RegExp; readonly error?: undefined } | { readonly regexp?: undefined; readonly error: string };

const cache = new Map<string, GoRegexp>();
const cacheLimit = 10_000;

/** Go's regexp.Compile of `pattern`: the matcher, or Go's error message. Cached. */
export function compileGoRegexp(pattern: string): GoRegexp {
  const cached = cache.get(pattern);
  if (cached !== undefined) return cached;
  let compiled: GoRegexp;
  try {
    compiled = { regexp: new RegExp(new Translator(pattern).translate(), 'u') };
  } catch (error) {
    compiled = { error: error instanceof GoSyntaxError ? error.message : `error parsing regexp: invalid or unsupported Perl syntax: \`${pattern}\`` };
  }
  if (cache.size >= cacheLimit) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}

class GoSyntaxError extends Error {
  constructor(code: string, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}

const errInvalidCharRange = 'invalid character class range';
const errInvalidEscape = 'invalid escape sequence';
const errInvalidNamedCapture = 'invalid named capture';
const errInvalidPerlOp = 'invalid or unsupported Perl syntax';
const errInvalidRepeatOp = 'invalid nested repetition operator';
const errInvalidRepeatSize = 'invalid repeat count';
const errMissingBracket = 'missing closing ]';
const errMissingParen = 'missing closing )';
const errMissingRepeatArgument = 'missing argument to repetition operator';
const errTrailingBackslash = 'trailing backslash at end of expression';
const errUnexpectedParen = 'unexpected )';
const errDuplicateName = 'duplicate capture group name';

type Range = readonly [number, number];
const maxRune = 0x10ffff;

function complement(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= maxRune) out.push([next, maxRune]);
  return out;
}

const perlClasses: Readonly<Record<string, readonly Range[]>> = {
  d: [[0x30, 0x39]],
  s: [[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]],
  w: [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]],
};

const posixClasses: Readonly<Record<string, readonly Range[]>> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x00, 0x7f]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
  cntrl: [[0x00, 0x1f], [0x7f, 0x7f]],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x09, 0x0d], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  word: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a], [0x5f, 0x5f]],
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};

/** Unicode general categories Go's unicode.Categories knows (JS takes the same short names). */
const categories = new Set(['C', 'Cc', 'Cf', 'Co', 'Cs', 'L', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N', 'Nd', 'Nl', 'No',
  'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl', 'Zp', 'Zs']);

const scriptChecked = new Map<string, boolean>();

function isScript(name: string): boolean {
  let known = scriptChecked.get(name);
  if (known === undefined) {
    try {
      new RegExp(`\\p{Script=${name}}`, 'u');
      known = /^[A-Z][A-Za-z_]*$/.test(name);
    } catch {
      known = false;
    }
    scriptChecked.set(name, known);
  }
  return known;
}

function runeText(code: number): string {
  return `\\u{${code.toString(16)}}`;
}

function rangeText([lo, hi]: Range): string {
  return lo === hi ? runeText(lo) : `${runeText(lo)}-${runeText(hi)}`;
}

/** The simple case variants of a rune (itself included), as RE2's case folding pairs them. */
function caseVariants(code: number): number[] {
  const character = String.fromCodePoint(code);
  const variants = new Set([code]);
  for (const other of [character.toLowerCase(), character.toUpperCase()]) {
    if ([...other].length === 1) variants.add(other.codePointAt(0)!);
  }
  if (code === 0x6b || code === 0x4b) variants.add(0x212a);
  if (code === 0x73 || code === 0x53) variants.add(0x17f);
  return [...variants];
}

function isDigit(character: string | undefined): boolean {
  return character !== undefined && character >= '0' && character <= '9';
}

function isAlnum(character: string): boolean {
  return /^[A-Za-z0-9]$/.test(character);
}

interface Flags {
  readonly caseInsensitive: boolean;
  readonly multiLine: boolean;
  readonly dotNewline: boolean;
}

/** One item in a class: a rune range or a JS property escape. */
interface ClassParts {
  readonly ranges: Range[];
  readonly properties: string[];
}

type AtomKind = 'atom' | 'assertion' | 'repeat' | 'marker';

interface Frame {
  readonly flags: Flags;
  /** The output length where the group's text starts (after its opening). */
  readonly start: number;
  readonly opening: string;
}

class Translator {
  private readonly runes: string[];
  private position = 0;
  private out: string[] = [];
  private flags: Flags = { caseInsensitive: false, multiLine: false, dotNewline: false };
  private readonly frames: Frame[] = [];
  /** The last item: where its text starts in `out` and what it is. */
  private lastStart = -1;
  private lastKind: AtomKind = 'marker';
  /** The source text of the previous item when it was a repetition (Go's lastRepeat). */
  private lastRepeat = '';
  private readonly names = new Set<string>();

  constructor(private readonly source: string) {
    this.runes = [...source];
  }

  private rest(from = this.position): string {
    return this.runes.slice(from).join('');
  }

  private text(from: number, to: number): string {
    return this.runes.slice(from, to).join('');
  }

  translate(): string {
    while (this.position < this.runes.length) {
      const start = this.position;
      let repeat = '';
      const character = this.runes[this.position]!;
      switch (character) {
        case '(':
          this.openParen();
          break;
        case '|':
          this.position++;
          this.out.push('|');
          this.setLast(-1, 'marker');
          break;
        case ')':
          this.closeParen();
          break;
        case '^':
          this.position++;
          this.pushAtom(this.flags.multiLine ? '(?<![^\\n])' : '^', 'assertion');
          break;
        case '$':
          this.position++;
          this.pushAtom(this.flags.multiLine ? '(?![^\\n])' : '$', 'assertion');
          break;
        case '.':
          this.position++;
          this.pushAtom(this.flags.dotNewline ? '[\\s\\S]' : '[^\\n]', 'atom');
          break;
        case '[':
          this.pushAtom(this.parseClass(), 'atom');
          break;
        case '*':
        case '+':
        case '?': {
          this.position++;
          this.repeat(character, start);
          repeat = this.rest(start);
          break;
        }
        case '{': {
          const parsed = this.parseRepeatBraces();
          if (parsed === undefined) {
            this.position++;
            this.pushLiteral(0x7b);
            break;
          }
          const { min, max, end } = parsed;
          const before = this.text(start, end);
          this.position = end;
          if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) throw new GoSyntaxError(errInvalidRepeatSize, before);
          this.repeat(max === min ? `{${min}}` : max < 0 ? `{${min},}` : `{${min},${max}}`, start);
          repeat = this.rest(start);
          break;
        }
        case '\\':
          this.parseBackslash();
          break;
        default:
          this.position++;
          this.pushLiteral(character.codePointAt(0)!);
      }
      this.lastRepeat = repeat;
    }
    if (this.frames.length > 0) throw new GoSyntaxError(errMissingParen, this.source);
    return this.out.join('');
  }

  private setLast(start: number, kind: AtomKind): void {
    this.lastStart = start;
    this.lastKind = kind;
  }

  private pushAtom(text: string, kind: AtomKind): void {
    this.setLast(this.out.length, kind);
    this.out.push(text);
  }

  private pushLiteral(code: number): void {
    if (this.flags.caseInsensitive) {
      const variants = caseVariants(code);
      if (variants.length > 1) {
        this.pushAtom(`[${variants.map(runeText).join('')}]`, 'atom');
        return;
      }
    }
    const character = String.fromCodePoint(code);
    this.pushAtom(/^[\^$\\.*+?()[\]{}|/]$/.test(character) ? `\\${character}` : /^[\p{L}\p{N}\p{M}\p{P}\p{S} ]$/u.test(character) ? character : runeText(code), 'atom');
  }

  /** Applies a repetition to the last item; `sourceStart` is where the operator began in the source. */
  private repeat(operator: string, sourceStart: number): void {
    // A lazy marker is consumed with the operator.
    if (this.runes[this.position] === '?') this.position++;
    const after = this.position;
    if (this.lastRepeat !== '') {
      const lastLength = [...this.lastRepeat].length;
      const consumedAfterLast = this.runes.length - after;
      throw new GoSyntaxError(errInvalidRepeatOp, [...this.lastRepeat].slice(0, lastLength - consumedAfterLast).join(''));
    }
    if (this.lastStart < 0 || this.lastKind === 'marker') {
      throw new GoSyntaxError(errMissingRepeatArgument, this.text(sourceStart, after));
    }
    const atom = this.out.splice(this.lastStart).join('');
    const wrapped = this.lastKind === 'assertion' || this.lastKind === 'repeat' ? `(?:${atom})` : atom;
    this.setLast(this.out.length, 'repeat');
    this.out.push(`${wrapped}${operator}`);
  }

  /** `{n}`, `{n,}`, `{n,m}` at the position; undefined when it is not a repeat (then `{` is a literal). */
  private parseRepeatBraces(): { min: number; max: number; end: number } | undefined {
    let index = this.position + 1;
    const number = (): number | undefined => {
      const from = index;
      while (isDigit(this.runes[index])) index++;
      if (index === from) return undefined;
      const digits = this.text(from, index);
      if (digits.length >= 2 && digits[0] === '0') return undefined;
      return digits.length > 8 ? -1 : Number(digits);
    };
    const min = number();
    if (min === undefined) return undefined;
    let max = min;
    if (this.runes[index] === ',') {
      index++;
      if (this.runes[index] === '}') max = -1;
      else {
        const parsed = number();
        if (parsed === undefined) return undefined;
        max = parsed;
      }
    }
    if (this.runes[index] !== '}') return undefined;
    return { min, max, end: index + 1 };
  }

  private openParen(): void {
    const start = this.position;
    if (this.runes[start + 1] === '?') {
      const named = this.runes[start + 2] === 'P' && this.runes[start + 3] === '<' ? 4 : this.runes[start + 2] === '<' ? 3 : 0;
      if (named > 0) {
        const end = this.runes.indexOf('>', start);
        if (end < 0) throw new GoSyntaxError(errInvalidNamedCapture, this.rest(start));
        const name = this.text(start + named, end);
        if (name === '' || !/^[A-Za-z0-9_]+$/.test(name)) throw new GoSyntaxError(errInvalidNamedCapture, this.text(start, end + 1));
        if (this.names.has(name)) throw new GoSyntaxError(errDuplicateName, name);
        this.names.add(name);
        this.position = end + 1;
        this.pushFrame('(');
        return;
      }
      this.parseFlags(start);
      return;
    }
    this.position++;
    this.pushFrame('(');
  }

  private pushFrame(opening: string): void {
    this.out.push(opening);
    this.frames.push({ flags: this.flags, start: this.out.length, opening });
    this.setLast(-1, 'marker');
  }

  private parseFlags(start: number): void {
    let index = start + 2;
    let sign = 1;
    let sawFlag = false;
    let { caseInsensitive, multiLine, dotNewline } = this.flags;
    while (index < this.runes.length) {
      const character = this.runes[index]!;
      index++;
      switch (character) {
        case 'i': caseInsensitive = sign > 0; sawFlag = true; continue;
        case 'm': multiLine = sign > 0; sawFlag = true; continue;
        case 's': dotNewline = sign > 0; sawFlag = true; continue;
        case 'U': sawFlag = true; continue;
        case '-':
          if (sign < 0) throw new GoSyntaxError(errInvalidPerlOp, this.text(start, index));
          sign = -1;
          sawFlag = false;
          continue;
        case ':':
        case ')': {
          if (sign < 0 && !sawFlag) throw new GoSyntaxError(errInvalidPerlOp, this.text(start, index));
          this.position = index;
          const flags = { caseInsensitive, multiLine, dotNewline };
          if (character === ':') {
            this.out.push('(?:');
            this.frames.push({ flags: this.flags, start: this.out.length, opening: '(?:' });
            this.setLast(-1, 'marker');
          }
          this.flags = flags;
          return;
        }
        default:
          throw new GoSyntaxError(errInvalidPerlOp, this.text(start, index));
      }
    }
    throw new GoSyntaxError(errMissingParen, this.source);
  }

  private closeParen(): void {
    const frame = this.frames.pop();
    if (frame === undefined) throw new GoSyntaxError(errUnexpectedParen, this.source);
    this.position++;
    this.flags = frame.flags;
    this.out.push(')');
    // The whole group, from its opening, is the last item.
    this.setLast(frame.start - 1, 'atom');
  }

  private parseBackslash(): void {
    const start = this.position;
    const next = this.runes[start + 1];
    if (next === undefined) throw new GoSyntaxError(errTrailingBackslash, '');
    switch (next) {
      case 'A':
        this.position += 2;
        this.pushAtom('^', 'assertion');
        return;
      case 'z':
        this.position += 2;
        this.pushAtom('$', 'assertion');
        return;
      case 'b':
        this.position += 2;
        this.pushAtom('\\b', 'assertion');
        return;
      case 'B':
        this.position += 2;
        this.pushAtom('\\B', 'assertion');
        return;
      case 'C':
        throw new GoSyntaxError(errInvalidEscape, '\\C');
      case 'Q': {
        let end = start + 2;
        while (end < this.runes.length && !(this.runes[end] === '\\' && this.runes[end + 1] === 'E')) end++;
        for (const character of this.runes.slice(start + 2, end)) this.pushLiteral(character.codePointAt(0)!);
        this.position = Math.min(end + 2, this.runes.length);
        return;
      }
      case 'p':
      case 'P': {
        const parts: ClassParts = { ranges: [], properties: [] };
        this.position = this.parseUnicodeClass(start, parts);
        this.pushAtom(this.classText(parts, false), 'atom');
        return;
      }
      case 'd': case 's': case 'w': case 'D': case 'S': case 'W': {
        this.position += 2;
        const ranges = perlClasses[next.toLowerCase()]!;
        this.pushAtom(`[${(next === next.toLowerCase() ? ranges : complement(ranges)).map(rangeText).join('')}]`, 'atom');
        return;
      }
    }
    const [code, end] = this.parseEscape(start);
    this.position = end;
    this.pushLiteral(code);
  }

  /** A single-rune escape at `start` (the backslash): the rune and where it ends. */
  private parseEscape(start: number): [number, number] {
    let index = start + 1;
    const character = this.runes[index];
    if (character === undefined) throw new GoSyntaxError(errTrailingBackslash, '');
    index++;
    const invalid = (): never => {
      throw new GoSyntaxError(errInvalidEscape, this.text(start, index));
    };
    if (character >= '1' && character <= '7') {
      const following = this.runes[index];
      if (following === undefined || following < '0' || following > '7') return invalid();
    }
    if (character >= '0' && character <= '7') {
      let value = Number(character);
      for (let digits = 1; digits < 3; digits++) {
        const following = this.runes[index];
        if (following === undefined || following < '0' || following > '7') break;
        value = value * 8 + Number(following);
        index++;
      }
      return [value, index];
    }
    switch (character) {
      case 'x': {
        if (this.runes[index] === '{') {
          index++;
          let value = 0;
          let digits = 0;
          while (index < this.runes.length && /^[0-9A-Fa-f]$/.test(this.runes[index]!)) {
            value = value * 16 + parseInt(this.runes[index]!, 16);
            digits++;
            index++;
            if (value > maxRune) return invalid();
          }
          if (this.runes[index] !== '}' || digits === 0) {
            if (index < this.runes.length) index++;
            return invalid();
          }
          return [value, index + 1];
        }
        const high = this.runes[index];
        const low = this.runes[index + 1];
        if (high === undefined || !/^[0-9A-Fa-f]$/.test(high)) {
          if (high !== undefined) index++;
          return invalid();
        }
        if (low === undefined || !/^[0-9A-Fa-f]$/.test(low)) {
          index += low === undefined ? 1 : 2;
          return invalid();
        }
        return [parseInt(high + low, 16), index + 2];
      }
      case 'a': return [7, index];
      case 'f': return [12, index];
      case 'n': return [10, index];
      case 'r': return [13, index];
      case 't': return [9, index];
      case 'v': return [11, index];
    }
    if (character.codePointAt(0)! < 0x80 && !isAlnum(character)) return [character.codePointAt(0)!, index];
    return invalid();
  }

  /** `\pL`, `\p{Greek}`, `\P{^L}` at `start`: adds it to `parts`, returns where it ends. */
  private parseUnicodeClass(start: number, parts: ClassParts): number {
    let negate = this.runes[start + 1] === 'P';
    const first = this.runes[start + 2];
    if (first === undefined) throw new GoSyntaxError(errInvalidCharRange, this.text(start, start + 2));
    let name: string;
    let end: number;
    let sequence: string;
    if (first !== '{') {
      name = first;
      end = start + 3;
      sequence = this.text(start, end);
    } else {
      const close = this.runes.indexOf('}', start);
      if (close < 0) throw new GoSyntaxError(errInvalidCharRange, this.rest(start));
      name = this.text(start + 3, close);
      end = close + 1;
      sequence = this.text(start, end);
    }
    if (name.startsWith('^')) {
      negate = !negate;
      name = name.slice(1);
    }
    if (name === 'Any') {
      if (negate) parts.properties.push('\\P{Any}');
      else parts.ranges.push([0, maxRune]);
      return end;
    }
    let property: string;
    if (categories.has(name)) property = name;
    else if (isScript(name)) property = `Script=${name}`;
    else throw new GoSyntaxError(errInvalidCharRange, sequence);
    if (this.flags.caseInsensitive && (name === 'Lu' || name === 'Ll' || name === 'Lt')) property = 'LC';
    parts.properties.push(`\\${negate ? 'P' : 'p'}{${property}}`);
    return end;
  }

  private classText(parts: ClassParts, negated: boolean): string {
    let ranges = parts.ranges;
    if (this.flags.caseInsensitive) {
      const folded: Range[] = [...ranges];
      for (const [lo, hi] of ranges) {
        if (hi - lo > 2000) continue;
        for (let code = lo; code <= hi; code++) {
          for (const variant of caseVariants(code)) if (variant < lo || variant > hi) folded.push([variant, variant]);
        }
      }
      ranges = folded;
    }
    const body = `${ranges.map(rangeText).join('')}${parts.properties.join('')}`;
    if (body === '') return negated ? '[\\s\\S]' : '[]';
    return `[${negated ? '^' : ''}${body}]`;
  }

  private parseClass(): string {
    const start = this.position;
    const wholeClass = (): string => this.rest(start);
    let index = start + 1;
    let negated = false;
    if (this.runes[index] === '^') {
      negated = true;
      index++;
    }
    const parts: ClassParts = { ranges: [], properties: [] };
    let first = true;
    while (index >= this.runes.length || this.runes[index] !== ']' || first) {
      first = false;
      if (index >= this.runes.length) throw new GoSyntaxError(errMissingBracket, wholeClass());
      const character = this.runes[index]!;
      if (character === '[' && this.runes[index + 1] === ':') {
        const close = this.rest(index + 2).indexOf(':]');
        if (close >= 0) {
          const closeIndex = index + 2 + [...this.rest(index + 2).slice(0, close)].length;
          const name = this.text(index, closeIndex + 2);
          const negatedName = name.startsWith('[:^');
          const ranges = posixClasses[name.slice(negatedName ? 3 : 2, -2)];
          if (ranges === undefined) throw new GoSyntaxError(errInvalidCharRange, name);
          parts.ranges.push(...(negatedName ? complement(ranges) : ranges));
          index = closeIndex + 2;
          continue;
        }
      }
      if (character === '\\' && (this.runes[index + 1] === 'p' || this.runes[index + 1] === 'P')) {
        index = this.parseUnicodeClass(index, parts);
        continue;
      }
      if (character === '\\' && this.runes[index + 1] !== undefined && 'dswDSW'.includes(this.runes[index + 1]!)) {
        const escape = this.runes[index + 1]!;
        const ranges = perlClasses[escape.toLowerCase()]!;
        parts.ranges.push(...(escape === escape.toLowerCase() ? ranges : complement(ranges)));
        index += 2;
        continue;
      }
      const rangeStart = index;
      let lo: number;
      [lo, index] = this.classChar(index, wholeClass);
      let hi = lo;
      if (this.runes[index] === '-' && this.runes[index + 1] !== undefined && this.runes[index + 1] !== ']') {
        [hi, index] = this.classChar(index + 1, wholeClass);
        if (hi < lo) throw new GoSyntaxError(errInvalidCharRange, this.text(rangeStart, index));
      }
      parts.ranges.push([lo, hi]);
    }
    this.position = index + 1;
    return this.classText(parts, negated);
  }

  private classChar(index: number, wholeClass: () => string): [number, number] {
    const character = this.runes[index];
    if (character === undefined) throw new GoSyntaxError(errMissingBracket, wholeClass());
    if (character === '\\') return this.parseEscape(index);
    return [character.codePointAt(0)!, index + 1];
  }
}
