// The static token file (--token-auth-file): Go encoding/csv parsing, kube's errors and
// warnings, and the authenticator through bearerTokenAuthenticator and the authn plugin.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authnPlugin, bearerTokenAuthenticator, authenticateToken } from '../../../api/auth/authn.ts';
import { CsvParseError, loadTokenFile, parseCsv, parseTokenFile, tokenFileAuthenticator, TokenFileError } from '../../../api/auth/token-file.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

function fields(text: string): string[][] {
  return parseCsv(text).map((record) => [...record.fields]);
}

function parseError(text: string): CsvParseError {
  try {
    parseCsv(text);
  } catch (error) {
    if (error instanceof CsvParseError) return error;
    throw error;
  }
  throw new Error('parsed without an error');
}

describe('token file - CSV as Go reads it', () => {
  it('splits records, skips empty lines, keeps spaces and takes quoted fields with commas, quotes and newlines', () => {
    expect(fields('a,b,c\n\n\r\n d , e,"g1,g2"\r\n"x""y",u,"multi\nline"\n')).toEqual([
      ['a', 'b', 'c'], [' d ', ' e', 'g1,g2'], ['x"y', 'u', 'multi\nline'],
    ]);
  });

  it('reads the last line without a newline and drops a final carriage return', () => {
    expect(fields('a,b,c\r')).toEqual([['a', 'b', 'c']]);
    expect(fields('a,b,"c"')).toEqual([['a', 'b', 'c']]);
  });

  it('numbers records by the line they start on', () => {
    expect(parseCsv('\n\na,"b\nc",d\ne,f,g\n').map((record) => record.line)).toEqual([3, 5]);
  });

  it('treats # as data (no comments)', () => {
    expect(fields('# comment\n')).toEqual([['# comment']]);
  });

  it('refuses a bare quote in an unquoted field with its line and byte column', () => {
    const error = parseError('ok,ok,ok\nab,c"d,e\n');
    expect(error.message).toBe('parse error on line 2, column 5: bare " in non-quoted-field');
  });

  it('refuses text after a closing quote', () => {
    expect(parseError('"a"b,c,d\n').message).toBe('parse error on line 1, column 3: extraneous or missing " in quoted-field');
  });

  it('refuses an unterminated quoted field, naming the record line and the line it ends on', () => {
    expect(parseError('a,"bc').message).toBe('parse error on line 1, column 6: extraneous or missing " in quoted-field');
    expect(parseError('a,"b\nc"x,d\n').message).toBe('record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field');
  });
});

describe('token file - records', () => {
  it('reads token, user, uid and the quoted groups, ignoring further columns', () => {
    const parsed = parseTokenFile('t1,alice,1001,"dev,ops"\nt2,bob,1002\nt3,carol,1003,solo,extra,more\n', '/etc/tokens.csv');
    expect(parsed.entries.map((entry) => [entry.token, entry.user])).toEqual([
      ['t1', { name: 'alice', uid: '1001', groups: ['dev', 'ops'], extra: {} }],
      ['t2', { name: 'bob', uid: '1002', groups: [], extra: {} }],
      ['t3', { name: 'carol', uid: '1003', groups: ['solo'], extra: {} }],
    ]);
    expect(parsed.warnings).toEqual([]);
  });

  it('keeps groups as kube splits them: empty fourth column is one empty group, spaces stay', () => {
    const parsed = parseTokenFile('t1,a,1,\nt2,b,2,"x, y"\n', 'f');
    expect(parsed.entries.map((entry) => entry.user.groups)).toEqual([[''], ['x', ' y']]);
  });

  it('stops on a record of fewer than 3 columns with kube\'s message and the line', () => {
    let caught: unknown;
    try {
      parseTokenFile('t1,alice,1\n\nt2,bob\n', '/etc/tokens.csv');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TokenFileError);
    expect((caught as TokenFileError).message).toBe("token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2");
    expect((caught as TokenFileError).line).toBe(3);
  });

  it('reports a CSV error with its position and the file', () => {
    expect(() => parseTokenFile('t1,a"b,1\n', 'f')).toThrow('parse error on line 1, column 5: bare " in non-quoted-field');
  });

  it('skips empty tokens and lets a duplicate token replace the earlier one, warning by record number without the token', () => {
    const parsed = parseTokenFile(',nobody,0\nsecret-token,first,1\nsecret-token,second,2\n', 'tokens.csv');
    expect(parsed.entries.map((entry) => entry.user.name)).toEqual(['second']);
    expect(parsed.warnings).toEqual([
      "empty token has been found in token file 'tokens.csv', record number '1'",
      "duplicate token has been found in token file 'tokens.csv', record number '3'",
    ]);
    expect(parsed.warnings.join()).not.toContain('secret-token');
  });
});

describe('token file - loading', () => {
  let dir: TempDir;
  beforeAll(async () => { dir = await makeTempDir('kstore-token-file-'); });
  afterAll(async () => { await dir.remove(); });

  it('reads the file', async () => {
    const file = path.join(dir.path, 'tokens.csv');
    await writeFile(file, 'abc,alice,1\n');
    expect((await loadTokenFile(file)).entries).toHaveLength(1);
  });

  it('words a missing file as Go\'s os.Open', async () => {
    const file = path.join(dir.path, 'missing.csv');
    await expect(loadTokenFile(file)).rejects.toThrow(`open ${file}: no such file or directory`);
  });
});

describe('token file - authenticator', () => {
  const authenticator = tokenFileAuthenticator(parseTokenFile('abc123,alice,1001,"dev,ops"\nxyz,bob,1002\n', 'f'));

  it('authenticates a known token as its user in system:authenticated', async () => {
    expect(await authenticateToken('abc123', [authenticator])).toEqual({
      type: 'authenticated', user: { name: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'], extra: {} },
    });
  });

  it('does not know an unknown token or a prefix of a known one (noCredentials), which the union makes "invalid bearer token"', async () => {
    expect(await authenticator('abc12')).toEqual({ type: 'noCredentials' });
    expect(await authenticator('abc1234')).toEqual({ type: 'noCredentials' });
    expect(await authenticateToken('nope', [authenticator])).toEqual({ type: 'rejected', reason: 'invalid bearer token' });
  });

  it('answers through the authn plugin: the user for a good token, 401 for a bad one', async () => {
    const app = Fastify();
    await app.register(authnPlugin, { authenticators: [bearerTokenAuthenticator([authenticator])] });
    app.get('/whoami', async (request) => ({ user: request.user, authorization: request.headers.authorization ?? null }));
    await app.ready();
    try {
      const good = await app.inject({ url: '/whoami', headers: { authorization: 'Bearer xyz' } });
      expect(good.statusCode).toBe(200);
      // kube removes the Authorization header once the request is authenticated.
      expect(good.json()).toEqual({ user: { name: 'bob', uid: '1002', groups: ['system:authenticated'], extra: {} }, authorization: null });
      const bad = await app.inject({ url: '/whoami', headers: { authorization: 'Bearer xyz-not' } });
      expect(bad.statusCode).toBe(401);
      expect(bad.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    } finally {
      await app.close();
    }
  });
});
