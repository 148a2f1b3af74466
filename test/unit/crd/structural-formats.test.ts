// Owns: the checks of api/crd/structural's Go regular expressions and string formats against
// Go's regexp/syntax (the error texts of regexp/syntax/parse.go, RE2's character classes) and
// kube-openapi 1.33's strfmt registry (pkg/validation/strfmt/default.go and the Go parsers its
// checks call).
import { describe, expect, it } from 'vitest';
import { compileGoRegexp, validateValue } from '../../../api/crd/structural/index.ts';

const matches = (pattern: string, value: string): boolean => {
  const compiled = compileGoRegexp(pattern);
  if (compiled.regexp === undefined) throw new Error(compiled.error);
  return compiled.regexp.test(value);
};

describe('Go regular expressions', () => {
  it.each([
    ['(a', 'error parsing regexp: missing closing ): `(a`'],
    ['a)', 'error parsing regexp: unexpected ): `a)`'],
    ['a**', 'error parsing regexp: invalid nested repetition operator: `**`'],
    ['a{2}{3}', 'error parsing regexp: invalid nested repetition operator: `{2}{3}`'],
    ['*a', 'error parsing regexp: missing argument to repetition operator: `*`'],
    ['\\q', 'error parsing regexp: invalid escape sequence: `\\q`'],
    ['\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['x{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'],
    ['[z-a]', 'error parsing regexp: invalid character class range: `z-a`'],
    ['[a', 'error parsing regexp: missing closing ]: `[a`'],
    ['(?=a)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['\\p{Nope}', 'error parsing regexp: invalid character class range: `\\p{Nope}`'],
    ['[[:nope:]]', 'error parsing regexp: invalid character class range: `[:nope:]`'],
    ['a\\', 'error parsing regexp: trailing backslash at end of expression: ``'],
  ])('%s is refused as Go refuses it', (pattern, error) => {
    expect(compileGoRegexp(pattern)).toEqual({ error });
  });

  it('RE2 syntax JavaScript does not share', () => {
    expect(matches('a{', 'a{')).toBe(true);
    expect(matches('a{,3}', 'a{,3}')).toBe(true);
    expect(matches('[]a]', ']')).toBe(true);
    expect(matches('^[[:alpha:]]+$', 'abc')).toBe(true);
    expect(matches('^[[:alpha:]]+$', 'ab1')).toBe(false);
    expect(matches('\\Qa.b\\E', 'axb')).toBe(false);
    expect(matches('(?i)^abc$', 'ABC')).toBe(true);
    expect(matches('^a(?i:b)c$', 'aBc')).toBe(true);
    expect(matches('^a(?i:b)c$', 'aBC')).toBe(false);
    expect(matches('(?s)^.$', '\n')).toBe(true);
    expect(matches('^.$', '\r')).toBe(true);
    expect(matches('(?m)^b$', 'a\nb\nc')).toBe(true);
    expect(matches('\\x{41}\\101', 'AA')).toBe(true);
    expect(matches('^\\pL+$', 'héllo')).toBe(true);
    expect(matches('^\\p{Greek}+$', 'αβγ')).toBe(true);
    expect(matches('(?P<name>x)', 'x')).toBe(true);
    expect(matches('\\Aab\\z', 'ab')).toBe(true);
  });

  it('RE2 classes are ASCII: \\s, \\d and \\w', () => {
    expect(matches('^\\s$', '\u00a0')).toBe(false);
    expect(matches('^\\s$', '\v')).toBe(false);
    expect(matches('^\\d$', '٣')).toBe(false);
    expect(matches('^\\w$', 'é')).toBe(false);
  });
});

describe('string formats (strfmt)', () => {
  const check = (format: string, value: string): boolean =>
    validateValue({ type: 'object', properties: { f: { type: 'string', format } } }, { f: value }).length === 0;

  it.each([
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', 'not-a-uuid'],
    ['uuid4', '123e4567-e89b-42d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174000'],
    ['hostname', 'example.com', '-bad-.com'],
    ['ipv4', '10.0.0.1', '10.0.0.256'],
    ['ipv4', '010.000.000.001', '1.2.3'],
    ['ipv6', '2001:db8::1', '2001:db8::00001'],
    ['ipv6', '::ffff:1.2.3.4', ':::'],
    ['cidr', '10.0.0.0/8', '10.0.0.0/33'],
    ['cidr', 'fd00::/64', 'fd00::'],
    ['mac', '00:1a:2b:3c:4d:5e', '00:1a:2b:3c:4d'],
    ['mac', '001a.2b3c.4d5e', '001a.2b3c'],
    ['uri', 'https://example.com/path?q=1', 'example.com/path'],
    ['uri', '/absolute/path', 'https://exa mple.com/'],
    ['email', 'user@example.com', 'not an email'],
    ['email', 'Jane Doe <jane@example.com>', 'a@@b'],
    ['byte', 'aGVsbG8=', 'not base64!'],
    ['byte', 'aGVsbG8h', ''],
    ['date', '2024-02-29', '2023-02-29'],
    ['date-time', '2024-01-01T10:00:00Z', '2024-01-01 10:00:00'],
    ['date-time', '2024-01-01t10:00:00.123+02:00', '2024-01-01T24:00:00Z'],
    ['datetime', '2024-01-01T10:00:00Z', 'yesterday'],
    ['duration', '1h30m', 'forever'],
    ['duration', '3 days', ''],
    ['hexcolor', '#ffaa00', '#ffaa0'],
    ['rgbcolor', 'rgb(255, 0, 10)', 'rgb(256,0,0)'],
    ['isbn10', '0321751043', '0321751044'],
    ['isbn13', '978-0321751041', '978-0321751042'],
    ['isbn', '0321751043', '123'],
    ['creditcard', '4111 1111 1111 1111', '4111 1111 1111 1112'],
    ['ssn', '123-45-6789', '123456789'],
    ['bsonobjectid', '507f1f77bcf86cd799439011', '507f1f77bcf86cd79943901'],
    ['password', 'anything at all', undefined],
  ])('%s: %j is valid, %j is not', (format, valid, invalid) => {
    expect(check(format, valid)).toBe(true);
    if (invalid !== undefined) expect(check(format, invalid)).toBe(false);
  });
});
