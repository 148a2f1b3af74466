// Owns: the static token file (--token-auth-file; kube's
// staging/src/k8s.io/apiserver/pkg/authentication/token/tokenfile). The file is CSV as Go's
// encoding/csv reads it with a variable number of fields per record: `token,user,uid` and an
// optional fourth column of comma-separated groups (usually double-quoted); further columns are
// ignored, empty lines are skipped, there are no comments (a `#` line is a record like any
// other). A record of fewer than 3 columns, or a CSV syntax error, stops the server with kube's
// message. A record with an empty token is skipped and a token seen again replaces the earlier
// one; both only warn, as kube does. The authenticator answers `noCredentials` for a token it
// does not hold (the bearer union then answers "invalid bearer token"), and the file's user,
// uid and groups plus system:authenticated for one it holds. Tokens are looked up by their
// SHA-256 digest and confirmed with a constant-time comparison; no token reaches a message.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { withAuthenticatedGroup } from './authn.ts';
import type { TokenAuthenticator, UserInfo } from './authn.ts';
import { constantTimeEqual } from './bootstrap-token-authn.ts';

/** A CSV syntax error, worded as Go's csv.ParseError. */
export class CsvParseError extends Error {
  constructor(readonly startLine: number, readonly line: number, readonly column: number, readonly reason: string) {
    super(startLine === line
      ? `parse error on line ${line}, column ${column}: ${reason}`
      : `record on line ${startLine}; parse error on line ${line}, column ${column}: ${reason}`);
    this.name = 'CsvParseError';
  }
}

/** Go's csv.ErrBareQuote and csv.ErrQuote texts. */
const bareQuote = 'bare " in non-quoted-field';
const misplacedQuote = 'extraneous or missing " in quoted-field';

/** One CSV record and the line it starts on (1-based). */
export interface CsvRecord {
  readonly fields: readonly string[];
  readonly line: number;
}

/** The input split as Go's csv reader reads lines: each keeps its "\n"; "\r\n" becomes "\n". */
function csvLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    let line = end < 0 ? text.slice(start) : text.slice(start, end + 1);
    start = end < 0 ? text.length : end + 1;
    if (end < 0 && line.endsWith('\r')) line = line.slice(0, -1);
    if (line.endsWith('\r\n')) line = `${line.slice(0, -2)}\n`;
    lines.push(line);
  }
  return lines;
}

/** Length of the trailing newline of a line (0 or 1). */
function newlineLength(line: string): number {
  return line.endsWith('\n') ? 1 : 0;
}

/** Go measures CSV columns in bytes (1-based). */
function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The fields of the record starting at lines[index] (a non-empty line), and the next line's index. */
function readRecord(lines: readonly string[], index: number): { fields: string[]; next: number } {
  const startLine = index + 1;
  let next = index + 1;
  let line = lines[index]!;
  let lineNumber = startLine;
  let column = 1;
  const fields: string[] = [];
  for (;;) {
    if (!line.startsWith('"')) {
      const comma = line.indexOf(',');
      const field = comma >= 0 ? line.slice(0, comma) : line.slice(0, line.length - newlineLength(line));
      const quote = field.indexOf('"');
      if (quote >= 0) throw new CsvParseError(startLine, lineNumber, column + byteLength(field.slice(0, quote)), bareQuote);
      fields.push(field);
      if (comma < 0) return { fields, next };
      column += byteLength(field) + 1;
      line = line.slice(comma + 1);
      continue;
    }
    // A quoted field: up to the closing quote, across lines; `""` is one quote.
    line = line.slice(1);
    column += 1;
    let value = '';
    for (;;) {
      const quote = line.indexOf('"');
      if (quote >= 0) {
        value += line.slice(0, quote);
        column += byteLength(line.slice(0, quote)) + 1;
        line = line.slice(quote + 1);
        if (line.startsWith('"')) {
          value += '"';
          line = line.slice(1);
          column += 1;
          continue;
        }
        if (line.startsWith(',')) {
          line = line.slice(1);
          column += 1;
          fields.push(value);
          break;
        }
        if (line.length === newlineLength(line)) {
          fields.push(value);
          return { fields, next };
        }
        throw new CsvParseError(startLine, lineNumber, column - 1, misplacedQuote);
      }
      value += line;
      column += byteLength(line);
      // The file ends inside the quotes.
      if (next >= lines.length) throw new CsvParseError(startLine, lineNumber, column, misplacedQuote);
      line = lines[next]!;
      next += 1;
      lineNumber = next;
      column = 1;
    }
  }
}

/**
 * Parses CSV as Go's encoding/csv Reader does with FieldsPerRecord = -1 and no comment
 * character: empty lines are skipped, quoted fields may hold commas, `""` and newlines, and a
 * quote in an unquoted field or a stray character after a closing quote is an error.
 */
export function parseCsv(text: string): CsvRecord[] {
  const lines = csvLines(text);
  const records: CsvRecord[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.length === newlineLength(line)) {
      index += 1;
      continue;
    }
    const { fields, next } = readRecord(lines, index);
    records.push({ fields, line: index + 1 });
    index = next;
  }
  return records;
}

/** A token file's error: kube's message (which names the file, or the CSV position); `line` is the record's line. */
export class TokenFileError extends Error {
  constructor(message: string, readonly file: string, readonly line: number | undefined) {
    super(message);
    this.name = 'TokenFileError';
  }
}

/** One user of the token file. */
export interface TokenFileEntry {
  readonly token: string;
  readonly user: UserInfo;
  /** The line of the file the record starts on. */
  readonly line: number;
}

export interface ParsedTokenFile {
  /** Entries by token; a later record of the same token replaced the earlier one. */
  readonly entries: readonly TokenFileEntry[];
  /** kube's warnings (empty tokens, duplicate tokens): never a token, only record numbers. */
  readonly warnings: readonly string[];
}

/**
 * Parses the content of a token file named `file` (the name goes into messages). Throws a
 * TokenFileError with kube's message on a CSV error or a record of fewer than 3 columns.
 */
export function parseTokenFile(content: string, file: string): ParsedTokenFile {
  let records: CsvRecord[];
  try {
    records = parseCsv(content);
  } catch (error) {
    if (error instanceof CsvParseError) throw new TokenFileError(error.message, file, error.startLine);
    throw error;
  }
  const byToken = new Map<string, TokenFileEntry>();
  const warnings: string[] = [];
  let recordNumber = 0;
  for (const { fields, line } of records) {
    if (fields.length < 3) {
      throw new TokenFileError(`token file '${file}' must have at least 3 columns (token, user name, user uid), found ${fields.length}`, file, line);
    }
    recordNumber += 1;
    const [token = '', name = '', uid = '', groups] = fields;
    if (token === '') {
      warnings.push(`empty token has been found in token file '${file}', record number '${recordNumber}'`);
      continue;
    }
    if (byToken.has(token)) warnings.push(`duplicate token has been found in token file '${file}', record number '${recordNumber}'`);
    // kube splits the fourth column on every comma, keeping empty and space-padded names.
    const user: UserInfo = { name, uid, groups: groups === undefined ? [] : groups.split(','), extra: {} };
    byToken.delete(token);
    byToken.set(token, { token, user, line });
  }
  return { entries: [...byToken.values()], warnings };
}

/** Reads and parses the file; a missing or unreadable file is an error worded as Go's os.Open. */
export async function loadTokenFile(file: string): Promise<ParsedTokenFile> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : String(error);
    throw new TokenFileError(`open ${file}: ${reason}`, file, undefined);
  }
  return parseTokenFile(content, file);
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The token authenticator over a parsed token file. */
export function tokenFileAuthenticator(parsed: ParsedTokenFile): TokenAuthenticator {
  const byDigest = new Map<string, TokenFileEntry>();
  for (const entry of parsed.entries) byDigest.set(digest(entry.token), entry);
  return (token) => {
    const entry = byDigest.get(digest(token));
    if (entry === undefined || !constantTimeEqual(entry.token, token)) return { type: 'noCredentials' };
    return { type: 'authenticated', user: withAuthenticatedGroup(entry.user) };
  };
}
