// The shortcuts of the write path's per-request work give the answers of the full computation:
// the object size check (a bound from lengths, the exact UTF-8 measure near the limit),
// formatTime's per-second reuse, a request path without escapes, negotiation's memory of
// Accept headers, a long JSON body sent as its UTF-8 bytes, and the duplicate-key scan stepping
// over value strings.
import { describe, expect, it } from 'vitest';
import { checkObjectSize } from '../../../api/decode.ts';
import { formatTime } from '../../../api/endpoints/context.ts';
import { duplicateFields } from '../../../api/duplicate-fields.ts';
import { encode, negotiate } from '../../../api/negotiation.ts';
import { pathSegments } from '../../../api/request-info.ts';
import { objectBytesMax } from '../../../api/request-limits.ts';
import { ApiError } from '../../../api/status.ts';

function tooLarge(object: unknown): boolean {
  try {
    checkObjectSize(object);
    return false;
  } catch (error) {
    if (error instanceof ApiError && error.status.code === 413) return true;
    throw error;
  }
}

/** A ConfigMap whose JSON is exactly `bytes` bytes of UTF-8 with `unit` (its UTF-8 size `unitBytes`) filling its value. */
function configMapOfBytes(bytes: number, unit: string, unitBytes: number): Record<string, unknown> {
  const shell = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '' } };
  const fill = bytes - Buffer.byteLength(JSON.stringify(shell));
  const object = { ...shell, data: { a: unit.repeat(Math.floor(fill / unitBytes)) + 'x'.repeat(fill % unitBytes) } };
  expect(Buffer.byteLength(JSON.stringify(object))).toBe(bytes);
  return object;
}

describe('checkObjectSize', () => {
  it('draws the line at the limit for escaped, multi-byte and plain text alike', () => {
    for (const [unit, unitBytes] of [['\u0001', 6], ['€', 3], ['😀', 4], ['"', 2], ['a', 1]] as const) {
      expect(tooLarge(configMapOfBytes(objectBytesMax, unit, unitBytes))).toBe(false);
      expect(tooLarge(configMapOfBytes(objectBytesMax + 1, unit, unitBytes))).toBe(true);
    }
  });

  it('passes small objects of every JSON value type', () => {
    expect(tooLarge({ a: [1, -1.5e300, true, false, null, 'x', { b: [] }], c: {} })).toBe(false);
  });

  it('measures what JSON.stringify writes: a toJSON, a Date, a class instance', () => {
    expect(tooLarge({ a: { toJSON: () => 'x'.repeat(objectBytesMax) } })).toBe(true);
    expect(tooLarge({ a: new Date(0) })).toBe(false);
    class Big {
      readonly text = 'x'.repeat(objectBytesMax);
    }
    expect(tooLarge({ a: new Big() })).toBe(true);
  });

  it('counts members, array items and nesting deeper than the bound follows', () => {
    let deep: unknown = 'x'.repeat(objectBytesMax);
    for (let depth = 0; depth < 100; depth++) deep = [deep];
    expect(tooLarge(deep)).toBe(true);
    const many = Object.fromEntries(Array.from({ length: 200_000 }, (_, index) => [`key-${index}`, 'v'.repeat(10)]));
    expect(tooLarge(many)).toBe(Buffer.byteLength(JSON.stringify(many)) > objectBytesMax);
  });
});

describe('formatTime', () => {
  it('is RFC 3339 in whole seconds for each instant, whatever was formatted before', () => {
    const instants = [0, 999, 1000, 1_700_000_000_123, 1_700_000_000_999, 1_700_000_001_000, 1_700_000_000_500, -1, -1000, -1001, 253402300799999];
    for (const instant of [...instants, ...instants.reverse()]) {
      expect(formatTime(new Date(instant))).toBe(new Date(instant).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    }
  });

  it('still refuses an invalid date', () => {
    expect(() => formatTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('pathSegments', () => {
  it('decodes only segments with escapes, and reports a bad escape', () => {
    expect(pathSegments('/api/v1/namespaces/a%2Fb/configmaps')).toEqual({ segments: ['api', 'v1', 'namespaces', 'a/b', 'configmaps'], decodeError: undefined, canonical: false });
    expect(pathSegments('/api/v1/namespaces/x/configmaps/')).toEqual({ segments: ['api', 'v1', 'namespaces', 'x', 'configmaps'], decodeError: undefined, canonical: true });
    expect(pathSegments('api//v1').canonical).toBe(false);
    expect(pathSegments('/api/v1/%zz').decodeError).toBe('invalid URL escape "%zz"');
  });
});

describe('negotiate', () => {
  it('answers a repeated Accept header as the first time, for each combination of what is allowed', () => {
    const table = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';
    const protobuf = 'application/vnd.kubernetes.protobuf, application/json';
    for (let round = 0; round < 3; round++) {
      expect(negotiate(table, true)).toEqual({ type: 'table' });
      expect(negotiate(table, false)).toEqual({ type: 'json' });
      expect(negotiate(protobuf, false)).toEqual({ type: 'protobuf' });
      expect(negotiate(protobuf, false, false)).toEqual({ type: 'json' });
      expect(() => negotiate('text/html', false)).toThrow(/only the following media types are accepted/);
    }
  });

  it('keeps answering right past the number of headers it remembers', () => {
    for (let index = 0; index < 600; index++) {
      expect(negotiate(`application/x-${index}, application/yaml`, false)).toEqual({ type: 'yaml' });
    }
    expect(negotiate(`${'application/x, '.repeat(100)}application/json`, false)).toEqual({ type: 'json' });
  });
});

describe('duplicateFields', () => {
  it('steps over value strings whatever they hold, and reads escaped keys', () => {
    const text = String.raw`{"a":"x\\","b":"\"{,}\"","a":1,"c\"d":{"e":"\\\"","e":[],"\u0065":2},"c\"d":null,"f":"\\"}`;
    JSON.parse(text);
    expect(duplicateFields(text)).toEqual(['a', 'c"d.e', 'c"d']);
  });
});

describe('encode', () => {
  it('sends a long JSON body as the UTF-8 bytes of JSON.stringify, a short one as the string', () => {
    const json = negotiate('application/json', false);
    const small = { kind: 'ConfigMap', data: { a: 'é€😀' } };
    expect(encode(json, small).payload).toBe(JSON.stringify(small));
    for (const unit of ['v', 'é', '€', '😀', '\u0001"\\', '\ud800']) {
      const items = Array.from({ length: 200 }, (_, index) => ({ metadata: { name: `c${index}` }, data: { value: unit.repeat(400) } }));
      const body = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items };
      const { contentType, payload } = encode(json, body);
      expect(contentType).toBe('application/json');
      expect(Buffer.isBuffer(payload)).toBe(true);
      expect((payload as Buffer).equals(Buffer.from(JSON.stringify(body), 'utf8'))).toBe(true);
      expect(JSON.parse((payload as Buffer).toString('utf8'))).toEqual(JSON.parse(JSON.stringify(body)));
    }
  });
});
