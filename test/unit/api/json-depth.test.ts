// Nesting depth: the text checks that refuse a too-deep body before anything recursive sees it
// (JSON scanner, YAML pre-scan, parsed-value check), and every recursive or native walker that
// can meet a body or a stored object, each at the deepest accepted document
// (request-limits.ts's nestingDepthMax) and, where it is iterative, at 10,000 and 100,000.
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { deepFreeze, jsonEqual } from '../../../actors/json.ts';
import type { JsonValue, KubeObject } from '../../../actors/index.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { decodeApplyConfiguration, decodeJsonBody, decodePatch, decodeYamlBody, yamlDepthLine } from '../../../api/decode.ts';
import { duplicateFields } from '../../../api/duplicate-fields.ts';
import { FieldSet } from '../../../api/fieldmanager/field-set.ts';
import { compare, configurationProblems, merge, toFieldSet, withoutNulls } from '../../../api/fieldmanager/typed.ts';
import { goFormat } from '../../../api/go-format.ts';
import { firstTooDeep } from '../../../api/json-depth.ts';
import { scanJson } from '../../../api/json-text.ts';
import { decodeBody, encode } from '../../../api/negotiation.ts';
import { applyJsonPatch, JsonPatchError } from '../../../api/patch/json-patch.ts';
import { applyMergePatch, strategicMerge } from '../../../api/patch/merge-patch.ts';
import { servedKinds } from '../../../api/registry/kinds.ts';
import { validateStructure } from '../../../api/registry/validation.ts';
import { nestingDepthMax } from '../../../api/request-limits.ts';
import { ApiError } from '../../../api/status.ts';

const configMaps = servedKinds.find((kind) => kind.kind === 'ConfigMap' && kind.group === '')!;

/** `{"a":{"a":…1…}}`: `depth` nested objects. */
function deepObjectText(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function deepArrayText(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** A value `depth` objects deep (built without recursion). */
function deepObject(depth: number, leaf: JsonValue = 1, key = 'a'): JsonValue {
  let value: JsonValue = leaf;
  for (let level = 0; level < depth; level++) value = { [key]: value };
  return value;
}

/** A FieldsV1 `depth` objects deep: `{"f:a":{"f:a":…{}}}`. */
function deepFieldsV1(depth: number): JsonValue {
  return deepObject(depth - 1, {}, 'f:a');
}

function status(thrown: () => unknown): { code: number; message: string } {
  try {
    thrown();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.status.message ?? '' };
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('the JSON scanner', () => {
  it('accepts the deepest document and refuses one level more, as Go does at its limit', () => {
    expect(scanJson(deepObjectText(nestingDepthMax), { depthMax: nestingDepthMax })).toEqual({ ok: true });
    expect(scanJson(deepArrayText(nestingDepthMax), { depthMax: nestingDepthMax })).toEqual({ ok: true });
    expect(scanJson(deepObjectText(nestingDepthMax + 1), { depthMax: nestingDepthMax })).toMatchObject({ ok: false, kind: 'depth', message: "invalid character '{' exceeded max depth" });
    expect(scanJson(deepArrayText(nestingDepthMax + 1), { depthMax: nestingDepthMax })).toMatchObject({ ok: false, kind: 'depth', message: "invalid character '[' exceeded max depth" });
  });

  it('refuses 10,000 and 100,000 levels without recursing, in linear time', () => {
    for (const depth of [10_000, 100_000]) {
      expect(scanJson(deepObjectText(depth), { depthMax: nestingDepthMax })).toMatchObject({ ok: false, kind: 'depth' });
      // Go's own limit, reached without any recursion either.
      expect(scanJson(deepArrayText(depth), { depthMax: 10_000 })).toMatchObject(depth > 10_000 ? { ok: false, kind: 'depth' } : { ok: true });
    }
  });

  it("words syntax errors as Go's encoding/json scanner", () => {
    const cases: [string, string][] = [
      ['{', 'unexpected end of JSON input'],
      ['[1,]', "invalid character ']' looking for beginning of value"],
      ['[1 2]', "invalid character '2' after array element"],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
      ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
      ['-', "invalid character ' ' in numeric literal"],
      ['1.', "invalid character ' ' after decimal point in numeric literal"],
      ['1ex', "invalid character 'x' in exponent of numeric literal"],
      ['tru', "invalid character ' ' in literal true (expecting 'e')"],
      ['nulx', "invalid character 'x' in literal null (expecting 'l')"],
      ['"\\x"', "invalid character 'x' in string escape code"],
      ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
      ['"a\nb"', "invalid character '\\n' in string literal"],
      ['{}}', "invalid character '}' after top-level value"],
      ['\u00e9', "invalid character 'Ã' looking for beginning of value"],
      ["'a'", "invalid character '\\'' looking for beginning of value"],
    ];
    for (const [text, message] of cases) expect(scanJson(text, { depthMax: 10 }), text).toMatchObject({ ok: false, message });
  });

  it('reports each number literal with its path', () => {
    const seen: [string, unknown[]][] = [];
    scanJson('{"a":[1,{"b":1e400}],"c":-0.5}', { depthMax: 10, onNumber: (literal, path) => void seen.push([literal, path()]) });
    expect(seen).toEqual([['1', ['a', 0]], ['1e400', ['a', 1, 'b']], ['-0.5', ['c']]]);
  });
});

describe('decoding bodies', () => {
  it('refuses a JSON create body deeper than the limit with kube wording, at 501, 10,001 and 100,000 levels', () => {
    for (const depth of [nestingDepthMax + 1, 10_001, 100_000]) {
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"x":${deepObjectText(depth - 1)}}`;
      expect(status(() => decodeJsonBody(body, { kind: configMaps }))).toEqual({
        code: 400,
        message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`,
      });
      expect(status(() => decodeBody('application/json', body))).toEqual({ code: 400, message: "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth" });
    }
  });

  it('decodes a JSON body at exactly the limit', () => {
    const body = `{"apiVersion":"v1","kind":"ConfigMap","x":${deepObjectText(nestingDepthMax - 1)}}`;
    expect(firstTooDeep(decodeJsonBody(body, { kind: configMaps }), nestingDepthMax)).toBeUndefined();
  });

  it('refuses deep YAML (flow, compact sequences, block indentation, aliases) with go-yaml wording, and takes YAML at the limit', () => {
    const flow = `apiVersion: v1\nkind: ConfigMap\nx: ${'['.repeat(nestingDepthMax)}${']'.repeat(nestingDepthMax)}\n`;
    expect(status(() => decodeYamlBody(flow, { kind: configMaps })).message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): yaml: line 3: exceeded max depth of 500 \(61706956/);
    expect(status(() => decodeBody('application/yaml', flow))).toEqual({ code: 400, message: 'error converting YAML to JSON: yaml: line 3: exceeded max depth of 500' });
    expect(status(() => decodeBody('application/yaml', `${'- '.repeat(100_000)}x`)).message).toBe('error converting YAML to JSON: yaml: exceeded max depth of 500');
    expect(status(() => decodeBody('application/yaml', `x: ${'{a: '.repeat(10_001)}1${'}'.repeat(10_001)}`)).code).toBe(400);
    let block = '';
    for (let level = 0; level < 1_500; level++) block += `${' '.repeat(level)}a:\n`;
    expect(status(() => decodeBody('application/yaml', block))).toEqual({ code: 400, message: 'error converting YAML to JSON: yaml: line 501: exceeded max depth of 500' });
    // Nesting the text does not show (a sequence at its parent key's indentation) is caught once parsed.
    let hidden = 'a:\n';
    for (let level = 0; level < 300; level++) hidden += `${'  '.repeat(level)}- a:\n`;
    expect(yamlDepthLine(hidden)).toBeUndefined();
    expect(status(() => decodeBody('application/yaml', `${hidden}${'  '.repeat(300)}- x\n`)).message).toMatch(/^error converting YAML to JSON: yaml: (line \d+: )?exceeded max depth of 500$/);
    // An alias of an ancestor is a cycle: refused, not followed.
    expect(status(() => decodeBody('application/yaml', 'a: &x [1, *x]')).code).toBe(400);
    const atLimit = `x: ${'['.repeat(nestingDepthMax - 1)}${']'.repeat(nestingDepthMax - 1)}\n`;
    expect(firstTooDeep(decodeBody('application/yaml', atLimit), nestingDepthMax)).toBeUndefined();
  });

  it('does not count brackets in quoted scalars, comments or block scalars', () => {
    const brackets = '['.repeat(1_000);
    expect(yamlDepthLine(`a: "${brackets}"\nb: '${brackets}'\n# ${brackets}\nc: |\n  ${brackets}\nd: x${brackets}\n`)).toBeUndefined();
  });

  it('refuses a deep apply configuration with kube\'s "error decoding YAML"', () => {
    expect(status(() => decodeApplyConfiguration(`apiVersion: v1\nkind: ConfigMap\ndata: ${'{a: '.repeat(100_000)}`))).toEqual({
      code: 400, message: 'error decoding YAML: error converting YAML to JSON: yaml: line 3: exceeded max depth of 500',
    });
    expect(decodeApplyConfiguration('apiVersion: v1\nkind: ConfigMap\n')).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
  });

  it('refuses each patch type deeper than the limit, at 10,001 and 100,000 levels', () => {
    for (const depth of [nestingDepthMax + 1, 10_001, 100_000]) {
      const value = deepObjectText(depth - 1);
      expect(status(() => decodePatch('application/merge-patch+json', `{"x":${value}}`))).toEqual({ code: 400, message: "error decoding patch: invalid character '{' exceeded max depth" });
      expect(status(() => decodePatch('application/strategic-merge-patch+json', `{"x":${value}}`))).toEqual({ code: 400, message: "invalid character '{' exceeded max depth" });
      expect(status(() => decodePatch('application/json-patch+json', `[{"op":"add","path":"/x","value":${deepObjectText(depth - 2)}}]`))).toEqual({ code: 400, message: "error decoding patch: invalid character '{' exceeded max depth" });
      expect(status(() => decodePatch('application/json-patch+json', `[{"op":"add","path":"/x","value":${deepObjectText(depth - 2)}}]`, { fieldValidation: 'Ignore' }))).toEqual({ code: 400, message: "invalid character '{' exceeded max depth" });
      expect(status(() => decodePatch('application/merge-patch+json', `{"x":${value}}`, { fieldValidation: 'Ignore' }))).toEqual({ code: 400, message: 'Invalid JSON Patch' });
    }
  });

  it('refuses a protobuf body whose managedFields fieldsV1 is deeper than the limit', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: deepFieldsV1(10_001) }] } };
    // The encoder writes FieldsV1 with JSON.stringify, which itself overflows near 4,000 levels,
    // so encode a marker and swap the deep JSON in, re-framing every enclosing message.
    const marker = Buffer.from('{"f:marker":{}}');
    const shallow = encodeProtobufObject({ ...object, metadata: { ...object.metadata, managedFields: [{ ...object.metadata.managedFields[0]!, fieldsV1: { 'f:marker': {} } }] } });
    const deep = Buffer.from(deepObjectText(10_001).replaceAll('"a"', '"f:a"').replace('1', '{}'));
    const body = Buffer.concat([shallow.subarray(0, 4), replaceNested(shallow.subarray(4), marker, deep)]);
    expect(() => decodeProtobufObject(body)).toThrow("managedFields fieldsV1 is not JSON: invalid character '{' exceeded max depth");
    expect(status(() => decodeBody('application/vnd.kubernetes.protobuf', body)).code).toBe(400);
    const atLimit = { ...object, metadata: { ...object.metadata, managedFields: [{ ...object.metadata.managedFields[0]!, fieldsV1: deepFieldsV1(nestingDepthMax - 4) }] } };
    expect(decodeProtobufObject(encodeProtobufObject(atLimit))).toEqual(atLimit);
  });
});

function readVarint(buffer: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let next = at;
  for (;;) {
    const byte = buffer[next++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return { value, next };
    shift += 7;
  }
}

function encodeVarint(value: number): Buffer {
  return Buffer.from(protobuf.Writer.create().uint32(value).finish());
}

/**
 * The protobuf message `message` with the length-delimited payload equal to `marker` (at any
 * depth of nested messages) replaced by `replacement`, each enclosing length rewritten.
 */
function replaceNested(message: Buffer, marker: Buffer, replacement: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < message.length) {
    const tag = readVarint(message, at);
    const wireType = tag.value % 8;
    if (wireType !== 2) {
      const end = wireType === 0 ? readVarint(message, tag.next).next : wireType === 1 ? tag.next + 8 : tag.next + 4;
      parts.push(message.subarray(at, end));
      at = end;
      continue;
    }
    const length = readVarint(message, tag.next);
    const payload = message.subarray(length.next, length.next + length.value);
    let replaced = payload;
    if (payload.equals(marker)) replaced = replacement;
    else if (payload.includes(marker)) replaced = replaceNested(payload, marker, replacement);
    parts.push(message.subarray(at, tag.next), encodeVarint(replaced.length), replaced);
    at = length.next + length.value;
  }
  return Buffer.concat(parts);
}

describe('walkers at the deepest accepted document', () => {
  const limit = nestingDepthMax;

  it('iterative helpers handle 10,000 and 100,000 levels', () => {
    for (const depth of [10_000, 100_000]) {
      const value = JSON.parse(deepObjectText(depth)) as JsonValue;
      const other = JSON.parse(deepObjectText(depth)) as JsonValue;
      expect(jsonEqual(value, other)).toBe(true);
      expect(deepFreeze(value)).toBe(value);
      expect(Object.isFrozen(value)).toBe(true);
      expect(firstTooDeep(value, limit)).toBe('object');
      expect(goFormat(value).length).toBe(depth * 7 + 1);
    }
    expect(duplicateFields(`{"a":1,"a":${deepObjectText(10_000)}}`)).toEqual(['a']);
  });

  it('merge and strategic merge patches, and JSON patch, apply at the limit', () => {
    const target = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } as JsonValue;
    const patch = { x: deepObject(limit - 1) } as JsonValue;
    expect(firstTooDeep(applyMergePatch(target, patch), limit)).toBeUndefined();
    expect(firstTooDeep(strategicMerge(target, patch, undefined), limit)).toBeUndefined();
    const twice = strategicMerge(strategicMerge(target, patch, undefined), patch, undefined);
    expect(firstTooDeep(twice, limit)).toBeUndefined();
    // A JSON patch body nests its values two levels down (the list, the operation).
    expect(firstTooDeep(applyJsonPatch(target, [{ op: 'add', path: '/x', value: deepObject(limit - 2) }]), limit)).toBeUndefined();
    expect(() => applyJsonPatch(target, [{ op: 'add', path: '/x', value: deepObject(limit - 1) }])).toThrow("error decoding patch: invalid character '{' exceeded max depth");
  });

  it('a JSON patch cannot grow the document past the limit: copying a value into itself is refused before it overflows', () => {
    const start = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, x: deepObject(limit - 2) } as JsonValue;
    const operations = Array.from({ length: 10_000 }, () => ({ op: 'copy', from: '/x', path: '/x/b' }));
    expect(() => applyJsonPatch(start, operations)).toThrow(JsonPatchError);
    expect(() => applyJsonPatch(start, operations)).toThrow("couldn't get version/kind; json parse error: invalid character '{' exceeded max depth");
    const path = `/x${'/a'.repeat(limit - 3)}`;
    expect(firstTooDeep(applyJsonPatch(start, [{ op: 'add', path: `${path}/b`, value: { c: 1 } }]), limit)).toBeUndefined();
    expect(() => applyJsonPatch(start, [{ op: 'add', path: `${path}/b`, value: { c: { d: 1 } } }])).toThrow('exceeded max depth');
  });

  it('structural validation (null dropping, schema check, unknown-field order, strict patch message) at the limit', () => {
    const deep = deepObject(limit - 1);
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, x: deep, y: deep } as unknown as KubeObject;
    expect(validateStructure(configMaps, structuredClone(object), { level: 'Warn', duplicates: [] })).toEqual(['unknown field "x"', 'unknown field "y"']);
    expect(() => validateStructure(configMaps, structuredClone(object), { level: 'Strict', duplicates: [], source: 'patch' })).toThrow(/is invalid: patch: Invalid value: /);
  });

  it('field sets and the typed walks handle managedFields at the limit', () => {
    const fields = deepFieldsV1(limit - 4);
    const set = FieldSet.fromFieldsV1(fields);
    expect(set.toFieldsV1()).toEqual(fields);
    expect(set.paths()[0]!.length).toBe(limit - 5);
    expect(set.equals(set.clone())).toBe(true);
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: fields }] }, data: { a: 'b' } } as JsonValue;
    const other = structuredClone(object) as { data: Record<string, string> };
    other.data['a'] = 'c';
    expect(toFieldSet(object, configMaps.schema).empty()).toBe(false);
    expect(compare(object, other as unknown as JsonValue, configMaps.schema).modified.empty()).toBe(false);
    expect(merge(object, other as unknown as JsonValue, configMaps.schema)).toEqual(other);
    expect(withoutNulls(object)).toEqual(object);
    expect(configurationProblems(object, configMaps.schema)).toEqual([]);
  });

  it('the native walkers (structuredClone, JSON.stringify, YAML and protobuf encoding) handle the limit', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: {}, items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: deepFieldsV1(limit - 4) }] } }] };
    expect(structuredClone(object)).toEqual(object);
    expect(JSON.parse(JSON.stringify(object))).toEqual(object);
    expect(stringifyYaml(object).length).toBeGreaterThan(limit);
    expect(String(encode({ type: 'yaml' }, object).payload).length).toBeGreaterThan(limit);
    expect(encodeProtobufObject(object.items[0]!).length).toBeGreaterThan(limit);
  });
});
