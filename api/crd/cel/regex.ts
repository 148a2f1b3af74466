// Owns: RE2 regular expressions for CEL's matches/find/findAll: translating RE2 syntax to an
// equivalent JavaScript RegExp (code point semantics, `.` not matching only `\n`, `\A`/`\z`,
// POSIX classes, `\Q…\E`, `(?P<name>…)`, leading flag groups) and refusing what RE2 refuses
// (backreferences, lookaround, atomic groups, repeat counts over 1000) with Go's regexp error
// texts. Compiled patterns are cached.

/** A pattern RE2 would not compile; the message is Go's `regexp.Compile` error text. */
export class Re2SyntaxError extends Error {}

const posixClasses: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7f', blank: '\\t ', cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9', graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

const generalCategories = new Set([
  'C', 'Cc', 'Cf', 'Co', 'Cs', 'L', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N', 'Nd', 'Nl', 'No',
  'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl', 'Zp', 'Zs',
]);

const jsSyntaxCharacters = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

function parseError(code: string, text: string): Re2SyntaxError {
  return new Re2SyntaxError(`error parsing regexp: ${code}: \`${text}\``);
}

function literal(char: string, inClass: boolean): string {
  if (jsSyntaxCharacters.has(char) || (inClass && char === '-')) return `\\${char}`;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  return char;
}

interface Translation {
  readonly source: string;
  readonly flags: string;
}

function unicodeClass(name: string, negated: boolean): string {
  const property = generalCategories.has(name) ? name : name === 'Any' ? 'Any' : `Script=${name}`;
  return `\\${negated ? 'P' : 'p'}{${property}}`;
}

/** Translates an RE2 pattern; throws Re2SyntaxError for what RE2 rejects or this translation cannot express. */
function translate(pattern: string): Translation {
  const chars = Array.from(pattern);
  let index = 0;
  let flags = 'u';
  let dotAll = false;
  let multiline = false;
  // Flag groups at the very start apply to the whole pattern.
  for (;;) {
    const match = /^\(\?([imsU]+)\)/.exec(chars.slice(index).join(''));
    if (match === null) break;
    for (const flag of match[1]!) {
      if (flag === 'i' && !flags.includes('i')) flags += 'i';
      if (flag === 's') dotAll = true;
      if (flag === 'm') multiline = true;
      if (flag === 'U') throw parseError('invalid or unsupported Perl syntax', '(?U');
    }
    index += match[0].length;
  }
  if (multiline) flags += 'm';
  let out = '';
  let depth = 0;

  const escape = (inClass: boolean): string => {
    const next = chars[index + 1];
    if (next === undefined) throw parseError('trailing backslash at end of expression', '');
    index += 2;
    switch (next) {
      case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        throw parseError('invalid escape sequence', `\\${next}`);
      case '0': {
        let octal = '0';
        while (octal.length < 3 && chars[index] !== undefined && /[0-7]/.test(chars[index]!)) octal += chars[index++];
        return `\\x${Number.parseInt(octal, 8).toString(16).padStart(2, '0')}`;
      }
      case 'A': if (inClass) throw parseError('invalid escape sequence', '\\A'); return multiline ? '(?<![\\s\\S])' : '^';
      case 'z': if (inClass) throw parseError('invalid escape sequence', '\\z'); return '(?![\\s\\S])';
      case 'b': case 'B': if (inClass) throw parseError('invalid escape sequence', `\\${next}`); return `\\${next}`;
      case 'd': case 'D': case 'w': case 'W': return `\\${next}`;
      case 's': return inClass ? '\\t\\n\\f\\r ' : '[\\t\\n\\f\\r ]';
      case 'S': if (inClass) throw parseError('invalid character class range', '\\S'); return '[^\\t\\n\\f\\r ]';
      case 'a': return '\\x07';
      case 'f': return '\\f';
      case 't': return '\\t';
      case 'n': return '\\n';
      case 'r': return '\\r';
      case 'v': return '\\v';
      case 'x': {
        if (chars[index] === '{') {
          const close = chars.indexOf('}', index);
          const hex = close < 0 ? '' : chars.slice(index + 1, close).join('');
          if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || Number.parseInt(hex, 16) > 0x10ffff) throw parseError('invalid escape sequence', `\\x{${hex}`);
          index = close + 1;
          return `\\u{${hex}}`;
        }
        const hex = chars.slice(index, index + 2).join('');
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw parseError('invalid escape sequence', `\\x${hex}`);
        index += 2;
        return `\\x${hex}`;
      }
      case 'p': case 'P': {
        let name: string;
        if (chars[index] === '{') {
          const close = chars.indexOf('}', index);
          if (close < 0) throw parseError('invalid character class range', `\\${next}{`);
          name = chars.slice(index + 1, close).join('');
          index = close + 1;
        } else {
          name = chars[index] ?? '';
          index += 1;
        }
        let negated = next === 'P';
        if (name.startsWith('^')) {
          negated = !negated;
          name = name.slice(1);
        }
        if (!/^[A-Za-z_]+$/.test(name)) throw parseError('invalid character class range', `\\${next}{${name}}`);
        return unicodeClass(name, negated);
      }
      case 'Q': {
        let text = '';
        while (index < chars.length && !(chars[index] === '\\' && chars[index + 1] === 'E')) text += literal(chars[index++]!, inClass);
        if (index < chars.length) index += 2;
        return text;
      }
      case 'E': return '';
      default:
        if (/[A-Za-z0-9]/.test(next)) throw parseError('invalid escape sequence', `\\${next}`);
        return literal(next, inClass);
    }
  };

  const characterClass = (): string => {
    const start = index;
    index += 1;
    let body = '';
    let negated = false;
    if (chars[index] === '^') {
      negated = true;
      index += 1;
    }
    let first = true;
    for (;;) {
      const char = chars[index];
      if (char === undefined) throw parseError('missing closing ]', chars.slice(start).join(''));
      if (char === ']' && !first) {
        index += 1;
        break;
      }
      first = false;
      if (char === '[' && chars[index + 1] === ':') {
        const close = chars.indexOf(']', index + 2);
        const text = close < 0 ? '' : chars.slice(index, close + 1).join('');
        const posix = /^\[:(\^?)([a-z]+):\]$/.exec(text);
        if (posix !== null) {
          const range = posixClasses[posix[2]!];
          if (range === undefined) throw parseError('invalid character class range', text);
          if (posix[1] === '^') throw parseError('invalid character class range', text);
          body += range;
          index = close + 1;
          continue;
        }
      }
      if (char === '\\') {
        body += escape(true);
        continue;
      }
      body += char === '-' ? '-' : literal(char, true);
      index += 1;
    }
    return `[${negated ? '^' : ''}${body}]`;
  };

  while (index < chars.length) {
    const char = chars[index]!;
    switch (char) {
      case '\\':
        out += escape(false);
        continue;
      case '[':
        out += characterClass();
        continue;
      case '.':
        out += dotAll ? '[\\s\\S]' : '[^\\n]';
        index += 1;
        continue;
      case '(': {
        depth += 1;
        if (chars[index + 1] !== '?') {
          out += '(';
          index += 1;
          continue;
        }
        const rest = chars.slice(index, index + 4).join('');
        if (rest.startsWith('(?:')) {
          out += '(?:';
          index += 3;
          continue;
        }
        const named = /^\(\?P?<([A-Za-z0-9_]+)>/.exec(chars.slice(index, index + 260).join(''));
        if (named !== null) {
          out += `(?<${named[1]}>`;
          index += Array.from(named[0]).length;
          continue;
        }
        if (rest.startsWith('(?=') || rest.startsWith('(?!') || rest.startsWith('(?<') || rest.startsWith('(?>')) {
          throw parseError('invalid or unsupported Perl syntax', rest.slice(0, rest.startsWith('(?<') ? 4 : 3));
        }
        throw parseError('invalid or unsupported Perl syntax', rest.slice(0, 3));
      }
      case ')':
        depth -= 1;
        if (depth < 0) throw parseError('unexpected )', pattern);
        out += ')';
        index += 1;
        continue;
      case '{': {
        const repeat = /^\{(\d+)(,(\d*))?\}/.exec(chars.slice(index, index + 24).join(''));
        if (repeat === null) {
          out += '\\{';
          index += 1;
          continue;
        }
        const min = Number(repeat[1]);
        const max = repeat[3] === undefined || repeat[3] === '' ? min : Number(repeat[3]);
        if (min > 1000 || max > 1000 || (repeat[3] !== undefined && repeat[3] !== '' && max < min)) {
          throw parseError('invalid repeat count', repeat[0]);
        }
        out += repeat[0];
        index += repeat[0].length;
        continue;
      }
      case '}':
        out += '\\}';
        index += 1;
        continue;
      case '$':
        out += multiline ? '(?=\\n|(?![\\s\\S]))' : '(?![\\s\\S])';
        index += 1;
        continue;
      default:
        out += char === '/' ? '\\/' : char;
        index += 1;
    }
  }
  if (depth > 0) throw parseError('missing closing )', pattern);
  return { source: out, flags };
}

const cache = new Map<string, RegExp | Re2SyntaxError>();
const cacheLimit = 2048;

/** The cached JavaScript RegExp for an RE2 pattern; throws Re2SyntaxError when RE2 would refuse it. */
export function re2(pattern: string): RegExp {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    try {
      const { source, flags } = translate(pattern);
      entry = new RegExp(source, flags);
    } catch (error) {
      entry = error instanceof Re2SyntaxError ? error : parseError('invalid regular expression', pattern);
    }
    if (cache.size >= cacheLimit) cache.clear();
    cache.set(pattern, entry);
  }
  if (entry instanceof Re2SyntaxError) throw entry;
  return entry;
}

/** Whether RE2 compiles the pattern. */
export function re2Problem(pattern: string): string | undefined {
  try {
    re2(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Go's regexp.MatchString. */
export function re2Matches(text: string, pattern: string): boolean {
  const regex = re2(pattern);
  regex.lastIndex = 0;
  return regex.test(text);
}

/** Go's Regexp.FindString: the leftmost match, or ''. */
export function re2Find(text: string, pattern: string): string {
  const match = re2(pattern).exec(text);
  return match === null ? '' : match[0];
}

/** Go's Regexp.FindAllString(text, n): up to n (all when negative) successive non-overlapping matches. */
export function re2FindAll(text: string, pattern: string, limit: number): string[] {
  if (limit === 0) return [];
  const base = re2(pattern);
  const regex = new RegExp(base.source, `${base.flags}g`);
  const result: string[] = [];
  let previousEnd = -1;
  let match: RegExpExecArray | null;
  while ((match = regex.exec(text)) !== null) {
    const end = match.index + match[0].length;
    if (match[0].length === 0) {
      // An empty match right after the previous match is skipped, as Go does.
      if (match.index === previousEnd) {
        regex.lastIndex = match.index + (text.codePointAt(match.index)! > 0xffff ? 2 : 1);
        if (regex.lastIndex > text.length) break;
        continue;
      }
      regex.lastIndex = match.index + ((text.codePointAt(match.index) ?? 0) > 0xffff ? 2 : 1);
    }
    result.push(match[0]);
    previousEnd = end;
    if (limit > 0 && result.length >= limit) break;
    if (match.index >= text.length) break;
  }
  return result;
}
