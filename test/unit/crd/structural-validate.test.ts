// Owns: the checks of api/crd/structural's validateValue against kube 1.33: the expectations of
// apiextensions-apiserver pkg/apiserver/validation/validation_test.go (TestValidateCustomResource),
// kube-openapi's message texts (pkg/validation/errors/schema.go) as kubeOpenAPIResultToFieldErrors
// turns them into causes, and the list-type (schema/listtype) and embedded-resource
// (schema/objectmeta) checks of the custom resource strategy.
import { describe, expect, it } from 'vitest';
import { validateValue } from '../../../api/crd/structural/index.ts';
import type { JsonSchemaProps } from '../../../api/crd/structural/index.ts';
import type { StatusCause } from '../../../api/status.ts';

/** A cause as kube's field.Error prints it (`field: message`), as kube's own tests compare them. */
const errorsOf = (schema: JsonSchemaProps, value: unknown, path?: string): string[] =>
  validateValue(schema, value, path).map((cause: StatusCause) => `${cause.field}: ${cause.message}`);

const withField = (field: JsonSchemaProps): JsonSchemaProps => ({ type: 'object', properties: { field } });

describe('types and nullable (validation_test.go TestValidateCustomResource)', () => {
  const notNullable = withField({ type: 'object' });
  it.each([
    [{}, []],
    [{ field: {} }, []],
    [{ field: 'foo' }, ['field: Invalid value: "string": field in body must be of type object: "string"']],
    [{ field: 42 }, ['field: Invalid value: "integer": field in body must be of type object: "integer"']],
    [{ field: true }, ['field: Invalid value: "boolean": field in body must be of type object: "boolean"']],
    [{ field: 1.2 }, ['field: Invalid value: "number": field in body must be of type object: "number"']],
    [{ field: [] }, ['field: Invalid value: "array": field in body must be of type object: "array"']],
    [{ field: null }, ['field: Invalid value: "null": field in body must be of type object: "null"']],
  ])('non-nullable object: %j', (value, expected) => {
    expect(errorsOf(notNullable, value)).toEqual(expected);
  });

  it('a nullable field takes null but no other type', () => {
    const nullable = withField({ type: 'object', nullable: true });
    expect(errorsOf(nullable, { field: null })).toEqual([]);
    expect(errorsOf(nullable, { field: 'foo' })).toEqual(['field: Invalid value: "string": field in body must be of type object: "string"']);
  });

  it('nullable without a type takes anything', () => {
    const untyped = withField({ nullable: true });
    for (const value of [null, {}, 'foo', 42, true, 1.2, []]) expect(errorsOf(untyped, { field: value })).toEqual([]);
  });

  it('a type mismatch quotes the JSON type twice and the Go type of the field path', () => {
    expect(validateValue({ type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } }, { spec: { replicas: '3' } })).toEqual([
      { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"', field: 'spec.replicas' },
    ]);
  });

  it('a number that is a JSON integer passes as integer; 1.5 does not', () => {
    const schema = withField({ type: 'integer' });
    expect(errorsOf(schema, { field: 3 })).toEqual([]);
    expect(errorsOf(schema, { field: 1.5 })).toEqual(['field: Invalid value: "number": field in body must be of type integer: "number"']);
  });

  it('an integer is a number', () => {
    expect(errorsOf(withField({ type: 'number' }), { field: 3 })).toEqual([]);
  });
});

describe('x-kubernetes-int-or-string (validation_test.go)', () => {
  const intOrString = withField({ 'x-kubernetes-int-or-string': true });
  it.each([
    [null, 'null'], [true, 'boolean'], [1.2, 'number'], [{}, 'object'], [[], 'array'],
  ])('%j is refused', (value, type) => {
    expect(errorsOf(intOrString, { field: value })).toEqual([`field: Invalid value: "${type}": field in body must be of type integer,string: "${type}"`]);
  });

  it('takes an integer or a string', () => {
    expect(errorsOf(intOrString, { field: 42 })).toEqual([]);
    expect(errorsOf(intOrString, { field: 'foo' })).toEqual([]);
  });

  it('nullable takes null', () => {
    expect(errorsOf(withField({ 'x-kubernetes-int-or-string': true, nullable: true }), { field: null })).toEqual([]);
  });

  it('with the anyOf pattern: the anyOf error on <nil>, then the best branch', () => {
    const schema = withField({ 'x-kubernetes-int-or-string': true, nullable: true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    expect(errorsOf(schema, { field: true })).toEqual([
      'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
      'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
    ]);
  });

  it('with the allOf[0].anyOf pattern: allOf and anyOf errors', () => {
    const schema = withField({ 'x-kubernetes-int-or-string': true, nullable: true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] });
    expect(new Set(errorsOf(schema, { field: [] }))).toEqual(new Set([
      '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
      'field: Invalid value: "array": field in body must be of type integer,string: "array"',
      'field: Invalid value: "array": field in body must be of type integer: "array"',
    ]));
  });
});

describe('value validations (kube-openapi messages through kubeOpenAPIResultToFieldErrors)', () => {
  it('required: Required value, nested paths joined with dots', () => {
    const schema: JsonSchemaProps = { type: 'object', required: ['field'], properties: { field: { type: 'object', required: ['nested'], properties: { nested: {} } } } };
    expect(validateValue(schema, { test: 'a' })).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'field' }]);
    expect(errorsOf(schema, { field: {} })).toEqual(['field.nested: Required value']);
  });

  it('enum: Unsupported value with the supported values quoted (non-strings as JSON)', () => {
    const schema = withField({ type: 'object', required: ['nestedint', 'nestedstring'], properties: {
      nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] },
    } });
    expect(errorsOf(schema, { field: {} })).toEqual(['field.nestedint: Required value', 'field.nestedstring: Required value']);
    expect(new Set(errorsOf(schema, { field: { nestedint: 'x', nestedstring: true } }))).toEqual(new Set([
      'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
      'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
      'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
      'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
    ]));
    expect(validateValue(withField({ type: 'string', enum: ['a', 'b'] }), { field: 'x' })).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "x": supported values: "a", "b"', field: 'field' },
    ]);
  });

  it('enum: an object value prints as Go %#v, a null never matches', () => {
    const schema = withField({ enum: [{ a: 1 }] });
    expect(errorsOf(schema, { field: { a: 2 } })).toEqual(['field: Unsupported value: map[string]interface {}{"a":2}: supported values: "{\\"a\\":1}"']);
    expect(errorsOf(withField({ nullable: true, enum: ['a', null] }), { field: null })).toEqual(['field: Unsupported value: "null": supported values: "a", "null"']);
  });

  it('maxLength: Too long in bytes, value omitted (counts runes)', () => {
    expect(validateValue(withField({ type: 'string', maxLength: 2 }), { field: 'abc' })).toEqual([
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 2 bytes', field: 'field' },
    ]);
    expect(errorsOf(withField({ type: 'string', maxLength: 2 }), { field: 'éé' })).toEqual([]);
  });

  it('minLength: should be at least N chars long', () => {
    expect(validateValue(withField({ type: 'string', minLength: 1 }), { field: '' })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "": field in body should be at least 1 chars long', field: 'field' },
    ]);
  });

  it('pattern: should match, in Go RE2 syntax', () => {
    const schema = withField({ type: 'string', pattern: '^[a-z]+$' });
    expect(errorsOf(schema, { field: 'ABC' })).toEqual(["field: Invalid value: \"ABC\": field in body should match '^[a-z]+$'"]);
    // RE2's \s is ASCII; Go's %q escapes the no-break space.
    expect(errorsOf(withField({ type: 'string', pattern: '\\s' }), { field: '\u00a0' })).toEqual(["field: Invalid value: \"\\u00a0\": field in body should match '\\s'"]);
  });

  it('an invalid pattern says so (validation_test.go "invalid regex")', () => {
    expect(errorsOf(withField({ type: 'string', pattern: '+' }), { field: 'foo' })).toEqual([
      "field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'",
    ]);
  });

  it('minimum and maximum, inclusive and exclusive', () => {
    const schema = withField({ type: 'integer', minimum: 1, maximum: 10 });
    expect(errorsOf(schema, { field: 0 })).toEqual(['field: Invalid value: 0: field in body should be greater than or equal to 1']);
    expect(errorsOf(schema, { field: 11 })).toEqual(['field: Invalid value: 11: field in body should be less than or equal to 10']);
    const exclusive = withField({ type: 'number', minimum: 0.5, exclusiveMinimum: true, maximum: 2.5, exclusiveMaximum: true });
    expect(errorsOf(exclusive, { field: 0.5 })).toEqual(['field: Invalid value: 0.5: field in body should be greater than 0.5']);
    expect(errorsOf(exclusive, { field: 2.5 })).toEqual(['field: Invalid value: 2.5: field in body should be less than 2.5']);
  });

  it('an integer value compares with int64(bound), as kube-openapi does', () => {
    expect(errorsOf(withField({ type: 'integer', maximum: 2.5 }), { field: 3 })).toEqual(['field: Invalid value: 3: field in body should be less than or equal to 2']);
    expect(errorsOf(withField({ type: 'number', maximum: 1e6 }), { field: 1.5e6 + 0.5 })).toEqual(['field: Invalid value: 1.5000005e+06: field in body should be less than or equal to 1e+06']);
  });

  it('multipleOf', () => {
    expect(errorsOf(withField({ type: 'integer', multipleOf: 2 }), { field: 7 })).toEqual(['field: Invalid value: 7: field in body should be a multiple of 2']);
    expect(errorsOf(withField({ type: 'number', multipleOf: 0.5 }), { field: 1.25 })).toEqual(['field: Invalid value: 1.25: field in body should be a multiple of 0.5']);
    expect(errorsOf(withField({ type: 'number', multipleOf: 0.1 }), { field: 0.3 })).toEqual([]);
  });

  it('minItems and maxItems (validation_test.go "maxItems")', () => {
    const schema = withField({ type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } });
    expect(errorsOf(schema, { field: [] })).toEqual(['field: Invalid value: 0: field in body should have at least 1 items']);
    expect(validateValue(schema, { field: ['a', 'b', 'c'] })).toEqual([{ reason: 'FieldValueTooMany', message: 'Too many: 3: must have at most 2 items', field: 'field' }]);
  });

  it('minProperties and maxProperties (validation_test.go "maxProperties")', () => {
    expect(errorsOf({ type: 'object', properties: { fieldX: { type: 'object', maxProperties: 2 } } }, { fieldX: { a: true, b: true, c: true } })).toEqual(['fieldX: Too many: 3: must have at most 2 items']);
    expect(errorsOf(withField({ type: 'object', minProperties: 1 }), { field: {} })).toEqual(['field: Invalid value: 0: field in body should have at least 1 properties']);
  });

  it('items are checked at their index', () => {
    const schema = withField({ type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } });
    expect(errorsOf(schema, { field: [{ name: 'a' }, { name: 1 }] })).toEqual(['field[1].name: Invalid value: "integer": field[1].name in body must be of type string: "integer"']);
  });

  it('additionalProperties values are checked at `map.key` (kube-openapi joins keys with dots)', () => {
    const schema: JsonSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } } } } };
    expect(errorsOf(schema, { spec: { labels: { a: 'x', b: 1 } } })).toEqual(['spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer"']);
  });

  it('additionalProperties: false forbids other fields, reported on the object', () => {
    expect(errorsOf(withField({ type: 'object', additionalProperties: false }), { field: { x: 1 } })).toEqual(['field: Invalid value: "x": field.x in body is a forbidden property']);
  });

  it('oneOf, allOf and not carry the base path (<nil> at the root)', () => {
    const oneOf = withField({ type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] });
    expect(errorsOf(oneOf, { field: { a: 1, b: 2 } })).toEqual(['<nil>: Invalid value: "": "field" must validate one and only one schema (oneOf). Found 2 valid alternatives']);
    expect(errorsOf(oneOf, { field: {} })).toEqual([
      '<nil>: Invalid value: "": "field" must validate one and only one schema (oneOf). Found none valid',
      'field.a: Required value',
    ]);
    const allOf = withField({ type: 'string', allOf: [{ minLength: 2 }, { maxLength: 5 }] });
    expect(errorsOf(allOf, { field: 'a' })).toEqual([
      "field: Invalid value: \"a\": field in body should be at least 2 chars long",
      '<nil>: Invalid value: "": "field" must validate all the schemas (allOf)',
    ]);
    expect(errorsOf(withField({ type: 'string', not: { enum: ['x'] } }), { field: 'x' })).toEqual(['<nil>: Invalid value: "": "field" must not validate the schema (not)']);
    expect(errorsOf(withField({ type: 'string', not: { enum: ['x'] } }), { field: 'x' }, 'status')).toEqual(['status: Invalid value: "": "field" must not validate the schema (not)']);
  });

  it('a base path prefixes the field, not the message (subresources_test.go status.num)', () => {
    expect(errorsOf({ type: 'object', properties: { num: { type: 'integer', maximum: 10 } } }, { num: 15 }, 'status')).toEqual([
      'status.num: Invalid value: 15: num in body should be less than or equal to 10',
    ]);
  });

  it('a valid object has no causes', () => {
    const schema: JsonSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 }, image: { type: 'string' } } } } };
    expect(validateValue(schema, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 1, image: 'nginx' } })).toEqual([]);
  });
});

describe('formats kube checks in custom resources', () => {
  it('a string format is checked with the format name in the message', () => {
    expect(validateValue(withField({ type: 'string', format: 'uuid' }), { field: 'nope' })).toEqual([
      { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "nope": field in body must be of type uuid: "nope"', field: 'field' },
    ]);
    expect(errorsOf(withField({ type: 'string', format: 'date-time' }), { field: '2024-13-01T00:00:00Z' })).toEqual([
      'field: Invalid value: "2024-13-01T00:00:00Z": field in body must be of type date-time: "2024-13-01T00:00:00Z"',
    ]);
    expect(errorsOf(withField({ type: 'string', format: 'date-time' }), { field: '2024-01-01T10:00:00Z' })).toEqual([]);
  });

  it('unsupported formats (int32, float, unknown names) are stripped: no check', () => {
    expect(errorsOf(withField({ type: 'integer', format: 'int32' }), { field: 2 ** 40 })).toEqual([]);
    expect(errorsOf(withField({ type: 'string', format: 'something' }), { field: 'x' })).toEqual([]);
  });

  it('a format on a non-string value is a type error naming the Go type', () => {
    expect(errorsOf(withField({ type: 'string', format: 'uuid' }), { field: 5 })).toEqual(['field: Invalid value: "int64": field in body must be of type uuid: "int64"']);
  });
});

describe('list types (schema/listtype)', () => {
  it('a set reports each repeat at its second occurrence', () => {
    const schema = withField({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' });
    expect(validateValue(schema, { field: ['a', 'b', 'a', 'b', 'a'] })).toEqual([
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"', field: 'field[2]' },
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: "b"', field: 'field[3]' },
    ]);
  });

  it('a set of objects compares them as JSON and prints them as Go maps', () => {
    const schema = withField({ type: 'array', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'string' } } }, 'x-kubernetes-list-type': 'set' });
    expect(errorsOf(schema, { field: [{ a: 'x' }, { a: 'x' }] })).toEqual(['field[1]: Duplicate value: map[string]interface {}{"a":"x"}']);
  });

  it('a map list reports duplicate keys, with one or several key fields', () => {
    const single = withField({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } } });
    expect(errorsOf(single, { field: [{ name: 'a', v: 1 }, { name: 'a', v: 2 }, { v: 3 }, { v: 4 }] })).toEqual([
      'field[1]: Duplicate value: map[string]interface {}{"name":"a"}',
      'field[3]: Duplicate value: map[string]interface {}{}',
    ]);
    const double = withField({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k1', 'k2'], items: { type: 'object', properties: { k1: { type: 'string' }, k2: { type: 'integer' } } } });
    expect(errorsOf(double, { field: [{ k1: 'a', k2: 1 }, { k1: 'a', k2: 2 }, { k2: 1, k1: 'a' }] })).toEqual(['field[2]: Duplicate value: map[string]interface {}{"k1":"a", "k2":1}']);
  });

  it('list types nested under maps use `[key]` paths', () => {
    const schema = withField({ type: 'object', additionalProperties: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-list-type': 'set' } });
    expect(errorsOf(schema, { field: { x: [1, 1] } })).toEqual(['field[x][1]: Duplicate value: 1']);
  });
});

describe('embedded resources (schema/objectmeta Validate)', () => {
  const schema = withField({ type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true });

  it('apiVersion and kind are required', () => {
    expect(validateValue(schema, { field: {} })).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: must not be empty', field: 'field.apiVersion' },
      { reason: 'FieldValueRequired', message: 'Required value: must not be empty', field: 'field.kind' },
    ]);
  });

  it('apiVersion must parse, kind must be a DNS-1035 label in any case', () => {
    expect(errorsOf(schema, { field: { apiVersion: 'a/b/c', kind: 'Foo_Bar' } })).toEqual([
      'field.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "field.kind: Invalid value: \"Foo_Bar\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(errorsOf(schema, { field: { apiVersion: 'v1', kind: 'Pod' } })).toEqual([]);
  });

  it('metadata is validated as ObjectMeta with path-segment names', () => {
    expect(errorsOf(schema, { field: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a/b', namespace: 'Bad', labels: { 'a b': 'x' } } } })).toEqual([
      "field.metadata.name: Invalid value: \"a/b\": may not contain '/'",
      "field.metadata.namespace: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      "field.metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
  });

  it('metadata that does not decode as ObjectMeta is Go\'s decode error', () => {
    expect(errorsOf(schema, { field: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: 'x' } } })).toEqual([
      'field.metadata: Invalid value: map[string]interface {}{"labels":"x"}: json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string',
    ]);
  });
});

describe('speed', () => {
  it('validates a CR of hundreds of fields, 10 levels deep (its speed: npm run bench:crd)', () => {
    const leaf = (depth: number): JsonSchemaProps => depth === 0
      ? { type: 'object', properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: 'string', maxLength: 64, pattern: '^[a-z0-9-]*$' }])) }
      : { type: 'object', properties: { child: leaf(depth - 1), list: { type: 'array', items: { type: 'integer', minimum: 0 } }, name: { type: 'string', enum: ['a', 'b'] } } };
    const schema: JsonSchemaProps = { type: 'object', properties: { spec: leaf(10) } };
    const value = (depth: number): unknown => depth === 0
      ? Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, `value-${i}`]))
      : { child: value(depth - 1), list: [1, 2, 3], name: 'a' };
    const object = { spec: value(10) };
    expect(validateValue(schema, object)).toEqual([]);
  });
});
