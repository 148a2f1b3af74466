// Conformance and speed comparison of the npm CEL engines for CRD x-kubernetes-validations (issue 14).
// Run: cd tools/cel-evaluation && npm install && node evaluate.mjs
// Prints one JSON document on stdout. Plain JavaScript so the root typecheck is unaffected.
//
// Expected results follow the CEL language definition (github.com/google/cel-spec doc/langdef.md) and the
// Kubernetes CEL documentation (kubernetes.io/docs/reference/using-api/cel): int64/uint64 overflow and
// division by zero are errors, string size counts code points, regexes are RE2, && / || absorb errors,
// all() is false if any predicate is false even when another errs, optional types and the Kubernetes
// list / regex / URL / quantity / IP / CIDR / format libraries behave as documented there.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import * as buf from '@bufbuild/cel';
import { strings as bufStrings } from '@bufbuild/cel/ext';
import * as mb from '@marcbachmann/cel-js';
import * as chromegg from 'cel-js';

// Read the installed version from node_modules (some packages do not export ./package.json).
const versionOf = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;

// ---------------------------------------------------------------------------------------------
// Kubernetes library helpers (minimal JS implementations, only to check that an engine can host them)
// ---------------------------------------------------------------------------------------------
const k8s = {
  isSorted: (list) => list.every((x, i) => i === 0 || !(x < list[i - 1])),
  sum: (list) => list.reduce((a, b) => a + b),
  indexOf: (list, v) => list.findIndex((x) => x === v),
  find: (s, re) => (s.match(new RegExp(re)) ?? [''])[0],
  findAll: (s, re) => [...s.matchAll(new RegExp(re, 'g'))].map((m) => m[0]),
  parseUrl: (s) => {
    const u = new URL(s);
    return { scheme: u.protocol.slice(0, -1), host: u.host, hostname: u.hostname, port: u.port, path: u.pathname, query: u.search };
  },
  // resource.Quantity subset: decimal/binary SI suffixes, result as a JS number of base units.
  parseQuantity: (s) => {
    const m = /^([+-]?[0-9.]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(s);
    if (!m) throw new Error(`invalid quantity: ${s}`);
    const mult = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
    return Number(m[1]) * (m[2] ? mult[m[2]] : 1);
  },
  parseIp: (s) => {
    const parts = s.split('.');
    if (parts.length !== 4 || parts.some((p) => !/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255)) throw new Error(`invalid ip: ${s}`);
    return { family: 4, n: parts.reduce((a, p) => a * 256 + Number(p), 0) };
  },
  parseCidr: (s) => {
    const [addr, bits] = s.split('/');
    const ip = k8s.parseIp(addr);
    const prefix = Number(bits);
    if (!(prefix >= 0 && prefix <= 32)) throw new Error(`invalid cidr: ${s}`);
    return { ip, prefix };
  },
  cidrContains: (c, ip) => Math.floor(ip.n / 2 ** (32 - c.prefix)) === Math.floor(c.ip.n / 2 ** (32 - c.prefix)),
  // format.named: returns the validator errors (empty when valid); only dns1123Label here.
  formatErrors: (name, s) => {
    if (name !== 'dns1123Label') return null;
    return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s) && s.length <= 63 ? [] : ['a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\''];
  },
};

// ---------------------------------------------------------------------------------------------
// Engines: compile(expr) -> program; run(program, vars) -> value (throws on CEL error)
// ---------------------------------------------------------------------------------------------
function bufbuildEngine() {
  const { celFunc, celMethod, CelScalar, listType, mapType } = buf;
  const S = CelScalar;
  const dynList = listType(S.DYN);
  // bufbuild custom (non-proto) types are impossible: objectType() needs a protobuf message descriptor.
  // The Kubernetes opaque types (URL, Quantity, IP, CIDR, Format) are modelled as tagged maps here.
  const tagged = mapType(S.STRING, S.DYN);
  // The payload is kept as JSON text: nested JS objects inside a Map are not valid CelInput.
  const tag = (kind, value) => new Map([['__kind', kind], ['__value', JSON.stringify(value)]]);
  const untag = (m, kind) => {
    if (m.get('__kind') !== kind) throw new Error(`not a ${kind}`);
    return JSON.parse(m.get('__value'));
  };
  const toArray = (l) => [...l];
  const funcs = [
    ...bufStrings,
    celMethod('isSorted', dynList, [], S.BOOL, function () { return k8s.isSorted(toArray(this)); }),
    celMethod('sum', dynList, [], S.DYN, function () { return k8s.sum(toArray(this)); }),
    celMethod('indexOf', dynList, [S.DYN], S.INT, function (v) { return BigInt(k8s.indexOf(toArray(this), v)); }),
    celMethod('find', S.STRING, [S.STRING], S.STRING, function (re) { return k8s.find(this, re); }),
    celMethod('findAll', S.STRING, [S.STRING], listType(S.STRING), function (re) { return k8s.findAll(this, re); }),
    celFunc('url', [S.STRING], tagged, (s) => tag('URL', k8s.parseUrl(s))),
    celMethod('getHost', tagged, [], S.STRING, function () { return untag(this, 'URL').host; }),
    celFunc('quantity', [S.STRING], tagged, (s) => tag('Quantity', k8s.parseQuantity(s))),
    celMethod('isGreaterThan', tagged, [tagged], S.BOOL, function (o) { return untag(this, 'Quantity') > untag(o, 'Quantity'); }),
    celMethod('asInteger', tagged, [], S.INT, function () { return BigInt(untag(this, 'Quantity')); }),
    celFunc('ip', [S.STRING], tagged, (s) => tag('IP', k8s.parseIp(s))),
    celMethod('family', tagged, [], S.INT, function () { return BigInt(untag(this, 'IP').family); }),
    celFunc('cidr', [S.STRING], tagged, (s) => tag('CIDR', k8s.parseCidr(s))),
    celMethod('containsIP', tagged, [tagged], S.BOOL, function (ip) { return k8s.cidrContains(untag(this, 'CIDR'), untag(ip, 'IP')); }),
    // Namespaced function names work ("format.named" resolves as a qualified name); no optional type
    // exists in bufbuild, so format.named returns the format directly.
    celFunc('format.named', [S.STRING], tagged, (s) => tag('Format', s)),
    celMethod('validate', tagged, [S.STRING], listType(S.STRING), function (s) { return k8s.formatErrors(untag(this, 'Format'), s) ?? []; }),
  ];
  const env = buf.celEnv({ funcs });
  return {
    name: '@bufbuild/cel',
    version: versionOf('@bufbuild/cel'),
    compile: (expr) => buf.plan(env, buf.parse(expr)),
    run: (program, vars) => {
      const r = program(vars);
      if (buf.isCelError(r)) throw new Error(r.message);
      return r;
    },
    input: (v) => v,
  };
}

function marcbachmannEngine() {
  const env = new mb.Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true });
  class Url { constructor(s) { this.u = k8s.parseUrl(s); } }
  class Quantity { constructor(s) { this.q = k8s.parseQuantity(s); } }
  class Ip { constructor(s) { this.ip = k8s.parseIp(s); } }
  class Cidr { constructor(s) { this.c = k8s.parseCidr(s); } }
  class Format { constructor(name) { this.name = name; } }
  class FormatLibrary {}
  env
    .registerType('URL', Url)
    .registerType('Quantity', Quantity)
    .registerType('IP', Ip)
    .registerType('CIDR', Cidr)
    .registerType('Format', Format)
    .registerType('FormatLibrary', FormatLibrary)
    .registerFunction({ name: 'isSorted', receiverType: 'list', returnType: 'bool', params: [], handler: (l) => k8s.isSorted(l) })
    .registerFunction({ name: 'sum', receiverType: 'list<int>', returnType: 'int', params: [], handler: (l) => k8s.sum(l) })
    .registerFunction({ name: 'indexOf', receiverType: 'list', returnType: 'int', params: [{ name: 'v', type: 'dyn' }], handler: (l, v) => BigInt(k8s.indexOf(l, v)) })
    .registerFunction({ name: 'find', receiverType: 'string', returnType: 'string', params: [{ name: 're', type: 'string' }], handler: (s, re) => k8s.find(s, re) })
    .registerFunction({ name: 'findAll', receiverType: 'string', returnType: 'list<string>', params: [{ name: 're', type: 'string' }], handler: (s, re) => k8s.findAll(s, re) })
    .registerFunction('url(string): URL', (s) => new Url(s))
    .registerFunction({ name: 'getHost', receiverType: 'URL', returnType: 'string', params: [], handler: (u) => u.u.host })
    .registerFunction('quantity(string): Quantity', (s) => new Quantity(s))
    .registerFunction({ name: 'isGreaterThan', receiverType: 'Quantity', returnType: 'bool', params: [{ name: 'o', type: 'Quantity' }], handler: (a, b) => a.q > b.q })
    .registerFunction({ name: 'asInteger', receiverType: 'Quantity', returnType: 'int', params: [], handler: (a) => BigInt(a.q) })
    .registerFunction('ip(string): IP', (s) => new Ip(s))
    .registerFunction({ name: 'family', receiverType: 'IP', returnType: 'int', params: [], handler: (ip) => BigInt(ip.ip.family) })
    .registerFunction('cidr(string): CIDR', (s) => new Cidr(s))
    .registerFunction({ name: 'containsIP', receiverType: 'CIDR', returnType: 'bool', params: [{ name: 'ip', type: 'IP' }], handler: (c, ip) => k8s.cidrContains(c.c, ip.ip) })
    // "format.named" cannot be registered as a qualified name (the signature parser rejects it);
    // workaround: a constant `format` of a custom type with a `named` method.
    .registerConstant('format', 'FormatLibrary', new FormatLibrary())
    .registerFunction({ name: 'named', receiverType: 'FormatLibrary', returnType: 'optional<Format>', params: [{ name: 'n', type: 'string' }], handler: (_lib, n) => (k8s.formatErrors(n, '') === null ? mb.Optional.none() : mb.Optional.of(new Format(n))) })
    .registerFunction({ name: 'validate', receiverType: 'Format', returnType: 'optional<list<string>>', params: [{ name: 's', type: 'string' }], handler: (f, s) => { const e = k8s.formatErrors(f.name, s); return e.length ? mb.Optional.of(e) : mb.Optional.none(); } });
  return {
    name: '@marcbachmann/cel-js',
    version: versionOf('@marcbachmann/cel-js'),
    compile: (expr) => env.parse(expr),
    run: (program, vars) => program(vars),
    input: (v) => v,
  };
}

function chromeggEngine() {
  // cel-js only takes global functions (third evaluate() argument); no methods, types or namespaces.
  const functions = {
    isSorted: (l) => k8s.isSorted(l),
    url: (s) => k8s.parseUrl(s),
    quantity: (s) => k8s.parseQuantity(s),
    ip: (s) => k8s.parseIp(s),
    cidr: (s) => k8s.parseCidr(s),
  };
  const toNumbers = (v) => {
    if (typeof v === 'bigint') return Number(v);
    if (Array.isArray(v)) return v.map(toNumbers);
    if (v && typeof v === 'object' && !(v instanceof Uint8Array)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toNumbers(x)]));
    return v;
  };
  return {
    name: 'cel-js',
    version: versionOf('cel-js'),
    compile: (expr) => {
      const r = chromegg.parse(expr);
      if (!r.isSuccess) throw new Error(`parse: ${r.errors.join('; ')}`);
      return r.cst;
    },
    run: (program, vars) => chromegg.evaluate(program, vars, functions),
    input: toNumbers, // it has no int type: every number is a JS number
  };
}

// ---------------------------------------------------------------------------------------------
// Value normalisation: int -> bigint, double -> number, uint -> {uint}, bytes -> {bytes: hex}
// ---------------------------------------------------------------------------------------------
function normalize(v) {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString('hex') };
  if (buf.isCelUint(v) || /Unsigned|Uint/i.test(v.constructor?.name ?? '')) return { uint: BigInt(v.value) };
  if (Array.isArray(v) || buf.isCelList(v)) return [...v].map(normalize);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), normalize(x)]));
  if (v.constructor === Object) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x)]));
  return { opaque: v.constructor?.name ?? typeof v };
}
const same = (a, b) => JSON.stringify(a, jsonSafe) === JSON.stringify(b, jsonSafe);
function jsonSafe(_k, v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number' && !Number.isFinite(v)) return `${v}`;
  return v;
}

// ---------------------------------------------------------------------------------------------
// Conformance table
// ---------------------------------------------------------------------------------------------
const items = (n) => Array.from({ length: n }, (_, i) => ({ name: `item${String.fromCharCode(97 + (i % 26))}`, weight: BigInt(i % 5) }));
const self = {
  metadata: { name: 'web', namespace: 'prod' },
  spec: {
    replicas: 3n,
    maxReplicas: 5n,
    ratio: 0.5,
    mode: 'Fast',
    immutable: 'x',
    tags: ['a', 'b'],
    labels: { app: 'web', 'app.kubernetes.io/name': 'web' },
    items: [{ name: 'alpha', weight: 1n }, { name: 'beta', weight: 2n }, { name: 'gamma', weight: 3n }],
    created: '2024-01-01T00:00:00Z',
    expires: '2024-01-03T00:00:00Z',
  },
};
const oldSelf = { ...self, spec: { ...self.spec, replicas: 2n } };
const V = { self, oldSelf };

// expect: {value} or {error: RegExp of an acceptable error message}
const cases = [
  // --- operators and scalar semantics
  ['basic', '1 + 2 * 3', { value: 7n }],
  ['basic', '9223372036854775807 + 1', { error: /overflow/i }],
  ['basic', '-9223372036854775807 - 2', { error: /overflow/i }],
  ['basic', '9223372036854775807 * 2', { error: /overflow/i }],
  ['basic', '1u - 2u', { error: /overflow/i }],
  ['basic', '1 / 0', { error: /divi.*zero|zero/i }],
  ['basic', '1 % 0', { error: /modulus|divi.*zero|zero/i }],
  ['basic', '-5 / 2', { value: -2n }],
  ['basic', '-5 % 3', { value: -2n }],
  ['basic', '5 / 2.0', { error: /overload/i }],
  ['basic', '1.0 / 0.0', { value: Infinity }],
  ['basic', '3u + 4u', { value: { uint: 7n } }],
  ['basic', 'dyn(1) == 1.0', { value: true }], // heterogeneous equality at runtime; `1 == 1.0` itself fails type checking
  ['basic', '1 == 1.0', { error: /overload/i }],
  ['basic', '1 < 1.5', { value: true }],
  ['basic', "int('9223372036854775808')", { error: /range|overflow|convert|invalid/i }],
  ['basic', 'uint(-1)', { error: /range|overflow|convert|invalid/i }],
  ['basic', "'héllo'.size()", { value: 5n }],
  ['basic', "size('😀x')", { value: 2n }],
  ['basic', "b'abc'.size()", { value: 3n }],
  ['basic', "bytes('é').size()", { value: 2n }],
  ['basic', "'abc' + 'def' == 'abcdef'", { value: true }],
  ['basic', "'abc123'.matches('^[a-z]+[0-9]+$')", { value: true }],
  ['basic', "'aa'.matches('(a)\\\\1')", { error: /regex|pattern|invalid|backreference|escape/i }],
  ["basic", "'hello'.startsWith('he') && 'hello'.endsWith('lo') && 'hello'.contains('ll')", { value: true }],
  ['basic', '[1, 2] + [3] == [1, 2, 3]', { value: true }],
  ['basic', "'a' in {'a': 1}", { value: true }],
  ['basic', "{'a': 1}['b']", { error: /key|not found|no such/i }],
  ['basic', '[1, 2][5]', { error: /index|range|bounds/i }],
  ['basic', 'false && 1 / 0 == 1', { value: false }],
  ['basic', '1 / 0 == 1 || true', { value: true }],
  ['basic', 'type(1) == int && type(1u) == uint && type(1.0) == double', { value: true }],
  ['basic', "[1, 'a']", { error: /type|homogeneous|mismatch/i }],
  // --- strings extension library (enabled in Kubernetes)
  ['strings-ext', "'Hello'.lowerAscii() + 'x'.upperAscii()", { value: 'helloX' }],
  ['strings-ext', "'a,b,c'.split(',')", { value: ['a', 'b', 'c'] }],
  ['strings-ext', "['a', 'b'].join('-')", { value: 'a-b' }],
  ['strings-ext', "'hello'.indexOf('l')", { value: 2n }],
  ['strings-ext', "'hello'.substring(1, 3)", { value: 'el' }],
  ['strings-ext', "'hello'.replace('l', 'L')", { value: 'heLLo' }],
  ['strings-ext', "' x '.trim()", { value: 'x' }],
  ['strings-ext', "'héllo'.charAt(1)", { value: 'é' }],
  // --- macros
  ['macros', 'has(self.spec.replicas)', { value: true }],
  ['macros', 'has(self.spec.missing)', { value: false }],
  ['macros', "self.spec.items.all(i, i.name.matches('^[a-z]+$'))", { value: true }],
  ['macros', "self.spec.items.exists(i, i.name == 'beta')", { value: true }],
  ['macros', "self.spec.items.exists_one(i, i.name.startsWith('g'))", { value: true }],
  ['macros', 'self.spec.items.map(i, i.name)', { value: ['alpha', 'beta', 'gamma'] }],
  ['macros', 'self.spec.items.filter(i, i.weight > 1).size()', { value: 2n }],
  ['macros', "self.spec.labels.all(k, k.startsWith('app'))", { value: true }],
  ['macros', '[0, -1].all(x, 1 / x > 0)', { value: false }],
  ['macros', '[0, 1].all(x, 1 / x > 0)', { error: /divi.*zero|zero/i }],
  ['macros', '[1, 2, 3].map(x, x % 2 == 1, x * 10)', { value: [10n, 30n] }],
  // --- self / oldSelf
  ['self', 'self.spec.replicas <= self.spec.maxReplicas', { value: true }],
  ['self', 'self.spec.replicas >= oldSelf.spec.replicas', { value: true }],
  ['self', 'self.spec.immutable == oldSelf.spec.immutable', { value: true }],
  ['self', 'self.spec.tags == oldSelf.spec.tags', { value: true }],
  ['self', "self.spec.labels['app.kubernetes.io/name'] == 'web'", { value: true }],
  ['self', 'self.spec.ratio * 2.0 == 1.0', { value: true }],
  ['self', 'self.spec.replicas + 1', { value: 4n }],
  ['self', "self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z0-9-]+$')", { value: true }],
  ['self', 'self.spec.missing == 1', { error: /key|not found|no such|missing/i }],
  // --- optional types (Kubernetes 1.29+)
  ['optional', 'self.spec.?missing.orValue(5)', { value: 5n }],
  ['optional', 'self.spec.?replicas.orValue(0)', { value: 3n }],
  ['optional', 'self.?spec.?replicas.value()', { value: 3n }],
  ['optional', 'optional.of(1).hasValue()', { value: true }],
  ['optional', 'optional.none().hasValue()', { value: false }],
  ['optional', "{'a': 1}[?'b'].hasValue()", { value: false }],
  // --- timestamps and durations
  ['time', "timestamp('2024-01-01T00:00:00Z') + duration('1h') == timestamp('2024-01-01T01:00:00Z')", { value: true }],
  ['time', "timestamp('2024-03-01T00:00:00Z') - timestamp('2024-02-28T00:00:00Z') == duration('48h')", { value: true }],
  ['time', "duration('1h30m').getMinutes()", { value: 90n }],
  ['time', "timestamp('2024-01-01T00:00:00Z').getDayOfWeek()", { value: 1n }],
  ['time', "string(timestamp('2024-01-01T00:00:00.123456789Z'))", { value: '2024-01-01T00:00:00.123456789Z' }],
  ['time', "timestamp(self.spec.created) + duration('24h') < timestamp(self.spec.expires)", { value: true }],
  ['time', "timestamp('not a time')", { error: /time|parse|invalid|format/i }],
  // --- Kubernetes libraries (registered by this script where the engine allows it)
  ['k8s-lists', '[1, 2, 3].isSorted() && !["b", "a"].isSorted()', { value: true }],
  ['k8s-lists', '[1, 2, 3].sum()', { value: 6n }],
  ['k8s-lists', '[1, 2, 3].indexOf(2)', { value: 1n }],
  ['k8s-regex', "'abc 123'.find('[0-9]+')", { value: '123' }],
  ['k8s-regex', "'1, 2, 3'.findAll('[0-9]+').size()", { value: 3n }],
  ['k8s-url', "url('https://example.com:80/').getHost()", { value: 'example.com:80' }],
  ['k8s-quantity', "quantity('1Gi').isGreaterThan(quantity('500Mi'))", { value: true }],
  ['k8s-quantity', "quantity('50k').asInteger()", { value: 50000n }],
  ['k8s-ip', "ip('192.168.0.1').family()", { value: 4n }],
  ['k8s-ip', "cidr('192.168.0.0/24').containsIP(ip('192.168.0.5'))", { value: true }],
  ['k8s-format', "format.named('dns1123Label').value().validate('my-name').hasValue()", { value: false }],
  ['k8s-format', "format.named('dns1123Label').value().validate('My_Name').hasValue()", { value: true }],
];

function classify(engine, expr, expect) {
  let program;
  try {
    program = engine.compile(expr);
  } catch (e) {
    const message = firstLine(e);
    if (expect.error && expect.error.test(message)) return { status: 'pass', phase: 'compile', error: message };
    return { status: 'unsupported', phase: 'compile', error: message };
  }
  try {
    const got = normalize(engine.run(program, engine.input(V)));
    if ('value' in expect) return { status: same(got, expect.value) ? 'pass' : 'fail', got: JSON.parse(JSON.stringify(got, jsonSafe)) };
    return { status: 'fail', got: JSON.parse(JSON.stringify(got, jsonSafe)), note: 'expected an error' };
  } catch (e) {
    const message = firstLine(e);
    if (expect.error && expect.error.test(message)) return { status: 'pass', error: message };
    if (/unknown|unbound|not found in context|no such overload|no matching overload|not recognized|not supported|undefined/i.test(message) && !expect.error) {
      return { status: 'unsupported', phase: 'run', error: message };
    }
    return { status: 'fail', error: message };
  }
}
const firstLine = (e) => String(e?.message ?? e).split('\n')[0].slice(0, 160);

// ---------------------------------------------------------------------------------------------
// Speed: median of many rounds, each round a batch timed with process.cpuUsage (user+system)
// ---------------------------------------------------------------------------------------------
function cpuMicros(fn, n) {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / n;
}
function measure(fn) {
  for (let i = 0; i < 50; i++) fn(); // warm up the JIT before calibrating
  let batch = 1;
  while (batch < 1e6) {
    const t = Math.min(cpuMicros(fn, batch), cpuMicros(fn, batch), cpuMicros(fn, batch)) * batch;
    if (t >= 5000) break;
    batch *= 2;
  }
  const rounds = [];
  for (let r = 0; r < 21; r++) rounds.push(cpuMicros(fn, batch));
  rounds.sort((a, b) => a - b);
  return { medianMicros: Number(rounds[10].toPrecision(4)), batch, rounds: rounds.length };
}

const bigSelf = { items: items(1000), replicas: 3n, maxReplicas: 5n };
const deep = { spec: { template: { metadata: { labels: { app: 'web' } } } } };
const speedCases = [
  ['replicas', 'self.replicas <= self.maxReplicas', { self: bigSelf }],
  ['all-matches-1000', "self.items.all(i, i.name.matches('^[a-z]+$'))", { self: bigSelf }],
  ['string-concat', "(self.metadata.namespace + '/' + self.metadata.name + '-' + self.spec.mode).size() <= 253", { self }],
  ['has-chain', 'has(self.spec) && has(self.spec.template) && has(self.spec.template.metadata) && has(self.spec.template.metadata.labels)', { self: deep }],
];

function speed(engine) {
  const out = {};
  for (const [id, expr, vars] of speedCases) {
    try {
      const compile = measure(() => engine.compile(expr));
      const program = engine.compile(expr);
      const input = engine.input(vars);
      const result = normalize(engine.run(program, input));
      const evaluate = measure(() => engine.run(program, input));
      out[id] = { expr, result, compileMicros: compile.medianMicros, evalMicros: evaluate.medianMicros, evalBatch: evaluate.batch };
    } catch (e) {
      out[id] = { expr, error: firstLine(e) };
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Cost controls: what the API offers, plus a probe with an expensive nested comprehension
// ---------------------------------------------------------------------------------------------
const costApi = {
  '@bufbuild/cel': {
    runtimeCostOrStepCounter: false,
    stopRunningExpression: 'no (synchronous; only by running it in a worker_thread and terminating the worker)',
    staticCostEstimation: false,
    structuralLimits: false,
    typeChecker: 'yes internally (check.js, used when planning a CheckedExpr) but check() is not exported from the package entry points',
    ast: 'yes: parse() returns the cel.expr protobuf ParsedExpr (the same AST as cel-go)',
  },
  '@marcbachmann/cel-js': {
    runtimeCostOrStepCounter: false,
    stopRunningExpression: 'no (synchronous unless an async function is registered; worker_thread needed)',
    staticCostEstimation: false,
    structuralLimits: 'yes, parse time: limits {maxAstNodes, maxDepth, maxListElements, maxMapEntries, maxCallArguments}',
    typeChecker: 'yes: env.check(expr) with declared variables / schemas, returns the result type',
    ast: 'yes: parse(expr).ast (own node format), serialize(ast) back to text',
  },
  'cel-js': {
    runtimeCostOrStepCounter: false,
    stopRunningExpression: 'no (worker_thread needed)',
    staticCostEstimation: false,
    structuralLimits: false,
    typeChecker: false,
    ast: 'chevrotain CST only',
  },
};
function costProbe(engine) {
  const range = Array.from({ length: 100 }, (_, i) => BigInt(i));
  const expr = 'self.all(x, self.all(y, self.all(z, x + y + z >= 0)))'; // 10^6 predicate evaluations
  try {
    const program = engine.compile(expr);
    const input = engine.input({ self: range });
    const start = process.cpuUsage();
    const result = normalize(engine.run(program, input));
    const d = process.cpuUsage(start);
    return { expr, listSize: 100, result, cpuMillis: Math.round((d.user + d.system) / 1000), stoppedByEngine: false };
  } catch (e) {
    return { expr, error: firstLine(e) };
  }
}
function limitsProbe() {
  try {
    const env = new mb.Environment({ unlistedVariablesAreDyn: true, limits: { maxAstNodes: 20 } });
    env.parse(Array.from({ length: 30 }, () => '1').join(' + '));
    return { maxAstNodes20: 'not enforced' };
  } catch (e) {
    return { maxAstNodes20: `rejected at parse: ${firstLine(e)}` };
  }
}

// ---------------------------------------------------------------------------------------------
const engines = [bufbuildEngine(), marcbachmannEngine(), chromeggEngine()];
const report = {
  generatedAt: new Date().toISOString(),
  machine: { node: process.version, platform: `${os.platform()} ${os.arch()}`, cpu: os.cpus()[0]?.model, cpus: os.cpus().length },
  engines: {},
};
for (const engine of engines) {
  const conformance = cases.map(([category, expr, expect]) => ({
    category,
    expr,
    expected: 'value' in expect ? JSON.parse(JSON.stringify(expect.value, jsonSafe)) : `error ${expect.error}`,
    ...classify(engine, expr, expect),
  }));
  const summary = {};
  for (const c of conformance) {
    summary[c.category] ??= { pass: 0, fail: 0, unsupported: 0 };
    summary[c.category][c.status]++;
  }
  summary.total = conformance.reduce((t, c) => ({ ...t, [c.status]: (t[c.status] ?? 0) + 1 }), {});
  report.engines[engine.name] = {
    version: engine.version,
    summary,
    conformance,
    cost: { api: costApi[engine.name], nestedComprehension: costProbe(engine), ...(engine.name === '@marcbachmann/cel-js' ? { limits: limitsProbe() } : {}) },
    speed: speed(engine),
  };
}
process.stdout.write(`${JSON.stringify(report, jsonSafe, 2)}\n`);
