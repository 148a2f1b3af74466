// Owns: the check of the CEL libraries api/crd/cel puts in a CRD rule's environment, as kube 1.33
// has them: lists, regex (RE2), url, quantity, ip, cidr, format, the strings extension, sets,
// optional types, cel.bind, and schema-typed timestamps, durations and bytes.
import { describe, expect, it } from 'vitest';
import { compileRules, ruleCauses, validateWithRules } from '../../../api/crd/cel/index.ts';
import type { CelSchema } from '../../../api/crd/cel/index.ts';

const spec: CelSchema = {
  type: 'object',
  properties: {
    text: { type: 'string', maxLength: 64 },
    pattern: { type: 'string', maxLength: 64 },
    names: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } },
    created: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    timeout: { type: 'string', format: 'duration' },
    data: { type: 'string', format: 'byte', maxLength: 64 },
    size: { 'x-kubernetes-int-or-string': true },
    ratio: { type: 'number' },
  },
};
const data = {
  text: 'Hello, World', pattern: '(a)\\1', names: ['b', 'a', 'c'], created: '2024-01-02T03:04:05Z', day: '2024-02-29',
  timeout: '1h30m', data: 'aGk=', size: '10%', ratio: 1,
};

/** The causes of one rule on `spec`: empty when it holds. */
function run(rule: string): readonly { message?: string }[] {
  const schema: CelSchema = { type: 'object', properties: { spec: { ...spec, 'x-kubernetes-validations': [{ rule }] } } };
  // Rules on literal lists and unbounded strings may exceed kube's (coarse) cost estimate; only compile errors matter here.
  const compileProblems = ruleCauses(schema, 'schema').filter((cause) => cause.reason !== 'FieldValueForbidden');
  if (compileProblems.length > 0) throw new Error(JSON.stringify(compileProblems));
  return validateWithRules(compileRules(schema), { apiVersion: 'v1', kind: 'K', metadata: { name: 'n' }, spec: data }, undefined);
}

function holds(...rules: string[]): void {
  for (const rule of rules) expect(run(rule), rule).toEqual([]);
}

function fails(rule: string, error: string): void {
  expect(run(rule)).toEqual([{ reason: 'FieldValueInvalid', message: `Invalid value: "object": ${error} evaluating rule: ${rule}`, field: 'spec' }]);
}

describe('lists', () => {
  it('isSorted, sum, min, max, indexOf, lastIndexOf', () => {
    holds('[1, 2, 3].isSorted() && !self.names.isSorted() && ["a", "b"].isSorted()', '[1, 2, 3].sum() == 6 && [1.5, 2.5].sum() == 4.0',
      'self.names.min() == "a" && self.names.max() == "c" && [3, 1, 2].max() == 3', '[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2 && [1].indexOf(5) == -1',
      "[duration('1s'), duration('2s')].sum() == duration('3s')");
  });

  it('max of an empty list is an error', () => {
    fails('self.names.filter(n, n == "z").max() == "z"', 'max called on empty list');
  });
});

describe('regex', () => {
  it('find and findAll', () => {
    holds("'abc 123 456'.find('[0-9]+') == '123' && 'abc'.find('[0-9]+') == ''", "'1, 2, 3'.findAll('[0-9]+') == ['1', '2', '3'] && '1, 2, 3'.findAll('[0-9]+', 2) == ['1', '2']");
  });

  it('matches with RE2 syntax: flags, POSIX classes, Unicode classes, \\A and \\z', () => {
    holds("self.text.matches('(?i)^hello')", "'ab1'.matches('^[[:alpha:]]+[[:digit:]]$')", "'é'.matches('^\\\\pL$')", "'x\\ny'.matches('\\\\Ax') && !'x\\ny'.matches('^y')", "'aaa'.matches('^a{2,3}$')");
  });

  it('refuses a backreference in a pattern from data, as RE2 does', () => {
    fails('self.text.matches(self.pattern)', 'error parsing regexp: invalid escape sequence: `\\1`');
    fails("self.text.find(self.pattern) == ''", 'Illegal regex: error parsing regexp: invalid escape sequence: `\\1`');
  });
});

describe('url', () => {
  it('parses request URIs', () => {
    holds("url('https://user@example.com:8080/a%20b?x=1&x=2&y=').getScheme() == 'https'", "url('https://example.com:8080/a').getHost() == 'example.com:8080'",
      "url('https://[::1]:80/').getHostname() == '::1' && url('https://[::1]:80/').getPort() == '80'", "url('/a%20b').getEscapedPath() == '/a%20b'",
      "url('https://example.com/?x=1&x=2&y=').getQuery() == {'x': ['1', '2'], 'y': ['']}", "isURL('https://example.com') && !isURL('example.com') && !isURL('')");
  });

  it('reports a parse error', () => {
    fails("url('example.com').getHost() == ''", 'URL parse error during conversion from string: parse "example.com": invalid URI for request');
  });
});

describe('quantity', () => {
  it('compares, adds and converts', () => {
    holds("quantity('1Gi').isGreaterThan(quantity('500Mi')) && quantity('1').isLessThan(quantity('1001m'))", "quantity('1') == quantity('1000m') && quantity('1k').compareTo(quantity('999')) == 1",
      "quantity('50k').asInteger() == 50000 && !quantity('1.5').isInteger() && quantity('1.5').asApproximateFloat() == 1.5",
      "quantity('1').add(quantity('500m')) == quantity('1.5') && quantity('2').sub(1) == quantity('1') && quantity('1').add(2).asInteger() == 3",
      "sign(quantity('-1')) == -1 && isQuantity('1e3') && !isQuantity('1x')");
  });

  it('reports parse and conversion errors', () => {
    fails("quantity('1x').asInteger() == 1", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    fails("quantity('1.5').asInteger() == 1", 'cannot convert value to integer');
  });
});

describe('ip and cidr', () => {
  it('parse and classify addresses', () => {
    holds("ip('192.168.0.1').family() == 4 && ip('::1').family() == 6 && ip('::1').isLoopback()", "string(ip('2001:0db8:0:0:0:0:0:1')) == '2001:db8::1'",
      "ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", "ip('fe80::1').isLinkLocalUnicast() && ip('8.8.8.8').isGlobalUnicast() && ip('0.0.0.0').isUnspecified()",
      "isIP('1.2.3.4') && !isIP('1.2.3') && !isIP('01.2.3.4') && ip('10.0.0.1') == ip('10.0.0.1')");
  });

  it('parse and test prefixes', () => {
    holds("cidr('192.168.0.0/24').containsIP('192.168.0.5') && cidr('192.168.0.0/24').containsIP(ip('192.168.0.5'))",
      "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))",
      "cidr('10.0.0.1/8').masked() == cidr('10.0.0.0/8') && cidr('10.0.0.1/8').prefixLength() == 8 && cidr('10.0.0.1/8').ip() == ip('10.0.0.1')",
      "string(cidr('10.0.0.1/8')) == '10.0.0.1/8' && isCIDR('::/0') && !isCIDR('10.0.0.0/33')");
  });

  it('refuses what kube refuses', () => {
    fails("ip('::ffff:1.2.3.4').family() == 6", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
    fails("ip('1.2.3').family() == 4", 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short');
  });
});

describe('format', () => {
  it('validates named formats', () => {
    holds("!format.named('dns1123Label').value().validate('my-name').hasValue()", "format.dns1123Label().validate('My_Name').hasValue()",
      "!format.named('nope').hasValue() && format.named('uuid').value().validate('x').value() == ['does not match the UUID format']",
      "format.labelValue().validate('a b').value().size() == 1 && !format.qualifiedName().validate('example.com/name').hasValue()");
  });
});

describe('strings', () => {
  it('has the strings extension', () => {
    holds("'héllo'.charAt(1) == 'é' && 'hello'.replace('l', 'L') == 'heLLo' && 'hello'.replace('l', 'L', 1) == 'heLlo'",
      "'%s is %d years, %.2f'.format(['x', 3, 1.5]) == 'x is 3 years, 1.50'".replace("['x', 3, 1.5]", "[dyn('x'), dyn(3), dyn(1.5)]"),
      "strings.quote('a\"b') == '\"a\\\\\"b\"'", "self.text.lowerAscii() == 'hello, world' && self.text.split(', ') == ['Hello', 'World']",
      "['a', 'b'].join('-') == 'a-b' && ' x '.trim() == 'x' && 'hello'.substring(1, 3) == 'el' && 'hello'.indexOf('l') == 2");
  });
});

describe('sets, optionals and cel.bind', () => {
  it('work on rule values', () => {
    holds('sets.contains([1, 2, 3], [1, 2]) && sets.equivalent([1, 2], [2, 1]) && sets.intersects([1], [1, 5])',
      "self.?nope.orValue('d') == 'd' && self.?text.hasValue() && optional.of(1).value() == 1 && !optional.none().hasValue()",
      "!optional.ofNonZeroValue('').hasValue() && {'a': 1}[?'b'].orValue(2) == 2",
      'cel.bind(n, self.names.size(), n > 2 && n < 4)');
  });
});

describe('schema formats', () => {
  it('make date-time and date timestamps, duration durations and byte bytes', () => {
    holds("self.created == timestamp('2024-01-02T03:04:05Z') && self.created.getFullYear() == 2024",
      "self.day.getMonth() == 1 && self.day.getDate() == 29", "self.timeout == duration('90m') && self.timeout.getMinutes() == 90",
      "self.data == b'hi'", "type(self.size) == string && self.ratio == 1.0");
  });
});
