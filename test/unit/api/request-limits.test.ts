// The request limits and the decode-time refusals, function by function, with kube-apiserver
// 1.33's codes and messages: numbers a typed field cannot hold, the shape of each patch type,
// strategic merge patch directives, JSON patch copy growth, the patched object's size, owner
// references and label selectors.
import { describe, expect, it } from 'vitest';
import type { JsonValue, KubeObject } from '../../../actors/index.ts';
import { requestBodyBytesMax as bodyLimitBytes } from '../../../api/body-limit.ts';
import { checkObjectSize, decodeJsonBody, decodePatch, summarizeBody } from '../../../api/decode.ts';
import { goFloat, goFormat } from '../../../api/go-format.ts';
import { applyJsonPatch, JsonPatchError } from '../../../api/patch/json-patch.ts';
import { strategicMerge } from '../../../api/patch/merge-patch.ts';
import { findKind, servedKinds } from '../../../api/registry/kinds.ts';
import { isQualifiedName, metadataCauses, numberLiteralProblem, typedDecodeProblem, ownerReferenceCauses, validateStructure } from '../../../api/registry/validation.ts';
import {
  jsonPatchCopyBytesMax, jsonPatchOperationsMax, labelNameLengthMax, nestingDepthMax, objectBytesMax, requestBodyBytesMax,
} from '../../../api/request-limits.ts';
import { parseLabelSelector } from '../../../api/selectors.ts';
import { ApiError } from '../../../api/status.ts';

const kindOf = (group: string, kind: string) => servedKinds.find((served) => served.group === group && served.kind === kind)!;
const configMaps = kindOf('', 'ConfigMap');
const pods = kindOf('', 'Pod');
const leases = kindOf('coordination.k8s.io', 'Lease');
const events = kindOf('', 'Event');

function failure(thrown: () => unknown): { code: number; reason: string | undefined; message: string } {
  try {
    thrown();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, reason: error.status.reason, message: error.status.message ?? '' };
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('the limits', () => {
  it("are kube-apiserver's values (nesting aside, see request-limits.ts)", () => {
    expect(requestBodyBytesMax).toBe(3 * 1024 * 1024);
    expect(bodyLimitBytes).toBe(requestBodyBytesMax);
    expect(jsonPatchOperationsMax).toBe(10_000);
    expect(jsonPatchCopyBytesMax).toBe(3 * 1024 * 1024);
    expect(objectBytesMax).toBe(requestBodyBytesMax);
    expect(labelNameLengthMax).toBe(63);
    expect(nestingDepthMax).toBeLessThanOrEqual(10_000);
  });
});

describe('numbers', () => {
  const body = (generation: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","generation":${generation}}}`;

  it('refuses literals an int64 field cannot hold, as Go\'s ParseInt, in a create body', () => {
    for (const literal of ['1e400', '18446744073709551616', '9223372036854775808', '1.5', '1e3', '1.0', '-9223372036854775809']) {
      expect(failure(() => decodeJsonBody(body(literal), { kind: configMaps }))).toEqual({
        code: 400, reason: 'BadRequest',
        message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number ${literal} into Go struct field ObjectMeta.metadata.generation of type int64`,
      });
    }
    for (const literal of ['9223372036854775807', '-9223372036854775808', '0', '42']) {
      expect(decodeJsonBody(body(literal), { kind: configMaps })).toMatchObject({ metadata: { name: 'c' } });
    }
  });

  it('names the struct, the field path and the Go type as the decoder does', () => {
    expect(numberLiteralProblem(pods, ['spec', 'containers', 0, 'ports', 0, 'containerPort'], '2147483648'))
      .toBe('json: cannot unmarshal number 2147483648 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32');
    expect(numberLiteralProblem(leases, ['spec', 'leaseDurationSeconds'], '1e400'))
      .toBe('json: cannot unmarshal number 1e400 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32');
    expect(numberLiteralProblem(events, ['count'], '2.5')).toBe('json: cannot unmarshal number 2.5 into Go struct field Event.count of type int32');
    // Unknown fields and free-form values are not typed: Go skips them.
    expect(numberLiteralProblem(configMaps, ['bogus'], '1e400')).toBeUndefined();
    expect(numberLiteralProblem(configMaps, ['metadata', 'managedFields', 0, 'fieldsV1', 'x'], '1e400')).toBeUndefined();
  });

  it('checks the values of any write (YAML bodies, patch results) against the schema', () => {
    const object = (generation: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', generation } });
    expect(typedDecodeProblem(configMaps, object(2 ** 64))).toBe('json: cannot unmarshal number 18446744073709552000 into Go struct field ObjectMeta.metadata.generation of type int64');
    expect(typedDecodeProblem(configMaps, object(Infinity))).toBe('json: cannot unmarshal number +Inf into Go struct field ObjectMeta.metadata.generation of type int64');
    expect(typedDecodeProblem(configMaps, object(3))).toBeUndefined();
    expect(failure(() => validateStructure(configMaps, object(1.5) as unknown as KubeObject, { level: 'Warn', duplicates: [] }))).toEqual({
      code: 400, reason: 'BadRequest',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64',
    });
    // A patch's result is re-decoded by kube: 422 on the field "patch".
    const patched = failure(() => validateStructure(configMaps, object(2 ** 64) as unknown as KubeObject, { level: 'Warn', duplicates: [], source: 'patch' }));
    expect(patched.code).toBe(422);
    expect(patched.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal number 18446744073709552000 into Go struct field ObjectMeta\.metadata\.generation of type int64$/);
  });
});

describe('patch bodies', () => {
  it('a JSON patch must be an array of operation objects (400, wording per fieldValidation)', () => {
    expect(failure(() => decodePatch('application/json-patch+json', '{"op":"add","path":"/a","value":1}'))).toEqual({
      code: 400, reason: 'BadRequest', message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    });
    expect(failure(() => decodePatch('application/json-patch+json', '{"op":"add"}', { fieldValidation: 'Ignore' })).message)
      .toBe('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    expect(failure(() => decodePatch('application/json-patch+json; charset=utf-8', '"x"')).message).toBe('error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp');
    expect(failure(() => decodePatch('application/json-patch+json', '[[1]]')).message).toBe('error decoding patch: json: cannot unmarshal array into Go value of type handlers.jsonPatchOp');
    expect(failure(() => decodePatch('application/json-patch+json', '[{"op":1,"path":"/a"}]')).message).toBe('error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string');
    expect(failure(() => decodePatch('application/json-patch+json', '[{"op":"add","path":"/a","value":{"b":-1e999}}]')).message)
      .toBe('error decoding patch: json: cannot unmarshal number -1e999 into Go struct field jsonPatchOp.value of type float64');
    expect(failure(() => decodePatch('application/json-patch+json', '[{"op":"add",')).message).toBe('error decoding patch: unexpected end of JSON input');
    expect(decodePatch('application/json-patch+json', 'null')).toEqual([]);
    expect(decodePatch('application/json-patch+json', '[{"op":"add","path":"/a","value":1}]')).toEqual([{ op: 'add', path: '/a', value: 1 }]);
  });

  it('a JSON patch of more than 10,000 operations is 413', () => {
    const operations = (count: number) => JSON.stringify(Array.from({ length: count }, () => ({ op: 'test', path: '/a', value: 1 })));
    expect(failure(() => decodePatch('application/json-patch+json', operations(10_001)))).toEqual({
      code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    });
    expect(decodePatch('application/json-patch+json', operations(10_000))).toHaveLength(10_000);
    expect(failure(() => applyJsonPatch({}, JSON.parse(operations(10_001)) as unknown)).code).toBe(413);
  });

  it('merge and strategic merge patches must be objects', () => {
    expect(failure(() => decodePatch('application/merge-patch+json', '[1]')).message).toBe('error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
    expect(failure(() => decodePatch('application/merge-patch+json', 'null')).message).toBe('Invalid JSON Patch');
    expect(failure(() => decodePatch('application/merge-patch+json', '{"a":1e400}')).message).toBe('error decoding patch: json: cannot unmarshal number 1e400 into Go value of type float64');
    expect(failure(() => decodePatch('application/merge-patch+json', '{"a":}', { fieldValidation: 'Ignore' })).message).toBe('Invalid JSON Patch');
    expect(failure(() => decodePatch('application/strategic-merge-patch+json', '5')).message).toBe('json: cannot unmarshal number into Go value of type map[string]interface {}');
    expect(failure(() => decodePatch('application/strategic-merge-patch+json', '{"a":[1e400]}')).message).toBe('json: cannot unmarshal number 1e400 into Go value of type float64');
    expect(decodePatch('application/strategic-merge-patch+json', 'null')).toEqual({});
  });
});

describe('strategic merge patch directives', () => {
  const configMapSchema = findKind('', 'v1', 'configmaps')?.schema;
  const live = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: ['a', 'b'], labels: { x: 'y' } }, data: { a: 'b' } } as JsonValue;
  const smp = (patch: string) => failure(() => decodePatch('application/strategic-merge-patch+json', patch));
  const merged = (patch: JsonValue) => failure(() => strategicMerge(live, patch, configMapSchema));

  it("kube answers an unknown $patch with strategicpatch's error, not a Status: 500 without a reason", () => {
    expect(smp('{"$patch":"bogus","data":{"a":"b"}}')).toEqual({ code: 500, reason: undefined, message: 'unknown patch type: bogus in map: map[$patch:bogus data:map[a:b]]' });
    expect(smp('{"$patch":5}').message).toBe('unknown patch type: %!s(int64=5) in map: map[$patch:5]');
    // Nested, where the patch meets an existing map; a new map with a directive is not checked (kube drops it).
    expect(merged({ metadata: { labels: { $patch: 'bogus' } } })).toEqual({ code: 500, reason: undefined, message: 'unknown patch type: bogus in map: map[$patch:bogus]' });
    expect(() => strategicMerge(live, { spec: { $patch: 'bogus' } }, configMapSchema)).not.toThrow();
  });

  it('$setElementOrder must be a list (500) of a key with a field (400)', () => {
    expect(smp('{"$setElementOrder/finalizers":"a"}')).toEqual({ code: 500, reason: undefined, message: 'expected a []interface {}, but received a string' });
    expect(smp('{"$setElementOrder/finalizers":null}').message).toBe('expected a []interface {}, but received a %!s(<nil>)');
    expect(smp('{"$setElementOrder/finalizers":["a"],"finalizers":"a"}').message).toBe('expected a []interface {}, but received a string');
    expect(smp('{"$setElementOrder":["a"]}')).toEqual({ code: 400, reason: 'BadRequest', message: 'invalid patch format of setElementOrder list' });
    expect(merged({ '$setElementOrder/data': [] }).message).toBe('expected a []interface {}, but received a map[string]interface {}');
  });

  it('$retainKeys must be a list naming every field the patch sets (400)', () => {
    expect(smp('{"$retainKeys":5}')).toEqual({ code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' });
    expect(smp('{"$retainKeys":["data"],"metadata":{}}').message).toBe('invalid patch format of retainKeys');
    // A valid one drops the live fields it does not name.
    expect(strategicMerge({ a: 1, b: 2, c: 3 }, { $retainKeys: ['a', 'c'], c: 4 }, undefined)).toEqual({ a: 1, c: 4 });
  });

  it('$deleteFromPrimitiveList needs a field (400); a value that is not a list is ignored, as kube does', () => {
    expect(smp('{"$deleteFromPrimitiveList":["a"]}')).toEqual({ code: 400, reason: 'BadRequest', message: 'invalid patch format of primitive list' });
    expect(strategicMerge(live, { metadata: { '$deleteFromPrimitiveList/finalizers': 5 } }, configMapSchema)).toEqual(live);
    expect(strategicMerge(live, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, configMapSchema)).toMatchObject({ metadata: { finalizers: ['b'] } });
  });

  it('a merging list refuses unknown, merge and keyless delete directives (500)', () => {
    const owned = { metadata: { name: 'c', ownerReferences: [{ uid: 'u1', name: 'o' }] } } as JsonValue;
    expect(failure(() => strategicMerge(owned, { metadata: { ownerReferences: [{ $patch: 'bogus', uid: 'u1' }] } }, configMapSchema)).message).toBe('unknown patch type: bogus in map: map[$patch:bogus uid:u1]');
    expect(failure(() => strategicMerge(owned, { metadata: { ownerReferences: [{ $patch: 'merge' }] } }, configMapSchema)).message).toBe('merging lists cannot yet be specified in the patch');
    expect(failure(() => strategicMerge(owned, { metadata: { ownerReferences: [{ $patch: 'delete' }] } }, configMapSchema)).message).toBe('map: map[$patch:delete] does not contain declared merge key: uid');
    expect(strategicMerge(owned, { metadata: { ownerReferences: [{ uid: 'u2', name: 'p' }, { $patch: 'replace' }] } }, configMapSchema)).toEqual({ metadata: { name: 'c', ownerReferences: [{ uid: 'u2', name: 'p' }] } });
  });
});

describe('patch growth', () => {
  it("a JSON patch's copies may add at most 3 MiB (kube's JSONPatchMaxCopyBytes), and the doubling patch fails before building 32 MiB", () => {
    const document = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'x'.repeat(1024) } } as JsonValue;
    const operations: JsonValue[] = [{ op: 'add', path: '/b', value: [] }, { op: 'copy', from: '/data/a', path: '/b/-' }];
    for (let step = 0; step < 15; step++) operations.push({ op: 'copy', from: '/b', path: '/b/-' });
    expect(JSON.stringify(operations).length).toBeLessThan(2048);
    let message = '';
    try {
      applyJsonPatch(document, operations);
    } catch (error) {
      expect(error).toBeInstanceOf(JsonPatchError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
  });

  it("a patched object larger than the object limit is 413 with kube's wording, managedFields included", () => {
    const object = (bytes: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'x'.repeat(bytes) } });
    expect(failure(() => checkObjectSize(object(objectBytesMax)))).toEqual({ code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
    expect(() => checkObjectSize(object(objectBytesMax - 200))).not.toThrow();
    const managed = { ...object(objectBytesMax - 200), metadata: { name: 'c', managedFields: [{ manager: 'm', fieldsV1: { 'f:x': 'y'.repeat(1000) } }] } };
    expect(failure(() => checkObjectSize(managed)).code).toBe(413);
  });
});

describe('owner references (ValidateOwnerReferences)', () => {
  it('names each missing part at metadata.ownerReferences, without an index', () => {
    expect(ownerReferenceCauses([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o' }])).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.uid', message: 'Invalid value: "": uid must not be empty' },
    ]);
    expect(ownerReferenceCauses([{ apiVersion: 'a/b/c', uid: 'u' }]).map((cause) => `${cause.field}: ${cause.message}`)).toEqual([
      'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
    ]);
    expect(ownerReferenceCauses([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u' }])).toEqual([]);
  });

  it('refuses core Events as owners and a second controller', () => {
    expect(ownerReferenceCauses([{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }])[0]!.message)
      .toBe('Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner');
    const controllers = ownerReferenceCauses([
      { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
      { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2', controller: true },
    ]);
    expect(controllers).toHaveLength(1);
    expect(controllers[0]!.message).toMatch(/: Only one reference can have Controller set to true\. Found "true" in references for A\/a and B\/b$/);
  });

  it('is part of the metadata rules, after annotations', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: '' }] } } as unknown as KubeObject;
    expect(metadataCauses(object, 'dns1123Subdomain')).toEqual([{ reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.uid', message: 'Invalid value: "": uid must not be empty' }]);
  });
});

describe('label selectors and qualified names', () => {
  const selectorFailure = (selector: string) => failure(() => parseLabelSelector(selector));

  it("refuses a key whose name part is over 63 characters with labels.Parse's message", () => {
    const key = 'k'.repeat(64);
    expect(selectorFailure(`${key}=v`)).toEqual({ code: 400, reason: 'BadRequest', message: `unable to parse requirement: <nil>: Invalid value: "${key}": name part must be no more than 63 characters` });
    expect(selectorFailure(`!${key}`).message).toBe(`unable to parse requirement: <nil>: Invalid value: "${key}": name part must be no more than 63 characters`);
    expect(selectorFailure('-a=b').message).toBe(`unable to parse requirement: <nil>: Invalid value: "-a": name part ${"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}`);
    expect(parseLabelSelector(`${'k'.repeat(63)}=v`).empty).toBe(false);
    expect(parseLabelSelector(`example.com/${'k'.repeat(63)} in (a,b)`).empty).toBe(false);
  });

  it("refuses a bad value at values[i][key], as NewRequirement does", () => {
    const value = 'v'.repeat(64);
    expect(selectorFailure(`a=${value}`).message).toBe(`unable to parse requirement: values[0][a]: Invalid value: "${value}": must be no more than 63 characters`);
    expect(selectorFailure('a in (ok,-x,-y)').message).toMatch(/^unable to parse requirement: \[values\[0\]\[a\]: Invalid value: "-x": a valid label .*, values\[1\]\[a\]: Invalid value: "-y": a valid label .*\]$/);
  });

  it("words qualified names as apimachinery's IsQualifiedName", () => {
    expect(isQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('example.com/')).toEqual(['name part must be non-empty', expect.stringMatching(/^name part must consist of/)]);
    expect(isQualifiedName(`${'a'.repeat(254)}/b`)).toEqual(['prefix part must be no more than 253 characters']);
  });
});

describe("Go's rendering of values in messages", () => {
  it('prints maps sorted, numbers as int64 or float64 %v', () => {
    expect(goFormat({ b: [1, 'x', null, 1.5, true], a: { c: 1e21 } })).toBe('map[a:map[c:1e+21] b:[1 x <nil> 1.5 true]]');
    expect([1e6, 123456, 1e-5, 0.0001, 1.5e300, -2.5, 2 ** 64].map(goFloat)).toEqual(['1e+06', '123456', '1e-05', '0.0001', '1.5e+300', '-2.5', '1.8446744073709552e+19']);
    expect(summarizeBody('{"a":1}')).toBe('{"a":1}');
    expect(summarizeBody('a: 1')).toBe('613a2031');
  });
});
