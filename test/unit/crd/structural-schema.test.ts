// Owns: the checks of api/crd/structural's structuralSchemaCauses against kube 1.33: the rules of
// apiextensions-apiserver pkg/apiserver/schema/validation.go and complete.go (ValidateStructural),
// pkg/apiserver/schema/defaulting/validation.go (ValidateDefaults) and
// pkg/apis/apiextensions/validation/validation.go (validateCustomResourceDefinitionValidation,
// ValidateCustomResourceDefinitionOpenAPISchema), with their field paths and messages; the cases
// follow TestValidateCustomResourceDefinitionValidation where it has them.
import { describe, expect, it } from 'vitest';
import { structuralSchemaCauses } from '../../../api/crd/structural/index.ts';
import type { JsonSchemaProps } from '../../../api/crd/structural/index.ts';

const root = 'spec.versions[0].schema.openAPIV3Schema';

const causesOf = (schema: unknown, options: { statusSubresource?: boolean } = {}): string[] =>
  structuralSchemaCauses(schema, root, options).map((cause) => `${cause.reason} ${cause.field}: ${cause.message}`);

const objectWith = (properties: Record<string, JsonSchemaProps>, extra: JsonSchemaProps = {}): JsonSchemaProps => ({ type: 'object', properties, ...extra });

describe('the root', () => {
  it('a valid schema has no causes', () => {
    expect(causesOf({ type: 'object' })).toEqual([]);
    expect(causesOf(objectWith({ spec: objectWith({ replicas: { type: 'integer', minimum: 0, default: 1 }, image: { type: 'string' } }) }))).toEqual([]);
  });

  it('no schema: nothing to check (the CRD spec requires one)', () => {
    expect(causesOf(undefined)).toEqual([]);
  });

  it('an empty schema must have a type at the root', () => {
    expect(causesOf({})).toEqual([`FieldValueRequired ${root}.type: Required value: must not be empty at the root`]);
  });

  it('type null: not supported, forbidden, and not an object (kube lists all three)', () => {
    expect(causesOf({ type: 'null' })).toEqual([
      `FieldValueInvalid ${root}.type: Invalid value: "null": must be object at the root`,
      `FieldValueNotSupported ${root}.type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `FieldValueForbidden ${root}.type: Forbidden: type cannot be set to null, use nullable as an alternative`,
    ]);
  });

  it('nullable is forbidden at the root', () => {
    expect(causesOf({ type: 'object', nullable: true })).toEqual([`FieldValueForbidden ${root}.nullable: Forbidden: nullable cannot be true at the root`]);
  });

  it('additionalProperties may not be used at the root', () => {
    expect(causesOf({ type: 'object', additionalProperties: { type: 'string' } })).toEqual([
      `FieldValueForbidden ${root}.additionalProperties: Forbidden: must not be used at the root`,
    ]);
  });

  it('the status subresource allows only some keywords at the root', () => {
    expect(causesOf({ type: 'array', items: { type: 'string' } }, { statusSubresource: true })[0]).toBe(
      `FieldValueInvalid ${root}.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
    );
    const [first] = causesOf({ type: 'object', minProperties: 1 }, { statusSubresource: true });
    expect(first).toMatch(new RegExp(`^FieldValueInvalid ${root.replace(/[[\].]/g, '\\$&')}: Invalid value: apiextensions\\.JSONSchemaProps\\{.*\\}: only \\[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations\\] fields are allowed at the root of the schema if the status subresource is enabled$`));
    expect(causesOf({ type: 'object', description: 'x', required: ['spec'], properties: { spec: { type: 'object' } } }, { statusSubresource: true })).toEqual([]);
  });
});

describe('structural rules (ValidateStructural, sorted by their text)', () => {
  it('every specified field and item needs a type', () => {
    expect(causesOf(objectWith({ spec: { properties: { a: { type: 'array', items: {} } } } }))).toEqual([
      `FieldValueRequired ${root}.properties[spec].properties[a].items.type: Required value: must not be empty for specified array items`,
      `FieldValueRequired ${root}.properties[spec].type: Required value: must not be empty for specified object fields`,
    ]);
  });

  it('an array needs items', () => {
    expect(causesOf(objectWith({ list: { type: 'array' } }))).toEqual([`FieldValueRequired ${root}.properties[list].items: Required value: must be specified`]);
  });

  it('x-kubernetes-preserve-unknown-fields or int-or-string replace the type', () => {
    expect(causesOf(objectWith({ a: { 'x-kubernetes-preserve-unknown-fields': true }, b: { 'x-kubernetes-int-or-string': true } }))).toEqual([]);
  });

  it('int-or-string excludes preserve-unknown-fields and embedded-resource', () => {
    expect(causesOf(objectWith({ a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true } }))).toEqual([
      `FieldValueRequired ${root}.properties[a].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
      `FieldValueInvalid ${root}.properties[a].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      `FieldValueInvalid ${root}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    ]);
  });

  it('the int-or-string anyOf may carry types; other anyOf branches may not', () => {
    expect(causesOf(objectWith({ a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }))).toEqual([]);
    expect(causesOf(objectWith({ a: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] } }))).toEqual([]);
    expect(causesOf(objectWith({ a: { type: 'string', anyOf: [{ type: 'string', description: 'x' }, { maxLength: 3, default: 'a', nullable: true }] } }))).toEqual([
      `FieldValueForbidden ${root}.properties[a].anyOf[0].description: Forbidden: must be empty to be structural`,
      `FieldValueForbidden ${root}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
      `FieldValueForbidden ${root}.properties[a].anyOf[1].default: Forbidden: must be undefined to be structural`,
      `FieldValueForbidden ${root}.properties[a].anyOf[1].nullable: Forbidden: must be false to be structural`,
    ]);
  });

  it('value validations may not carry extensions, additionalProperties or nested metadata', () => {
    expect(causesOf(objectWith({ a: { type: 'object', properties: { b: { type: 'string' } }, allOf: [{ additionalProperties: { type: 'string' }, 'x-kubernetes-list-type': 'set', properties: { b: { 'x-kubernetes-validations': [{ rule: 'true' }] } } }] } }))).toEqual([
      `FieldValueForbidden ${root}.properties[a].allOf[0].additionalProperties: Forbidden: must be undefined to be structural`,
      `FieldValueForbidden ${root}.properties[a].allOf[0].properties[b].x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `FieldValueForbidden ${root}.properties[a].allOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural`,
      // The OpenAPI keyword rules look into allOf too.
      `FieldValueForbidden ${root}.properties[a].allOf[0].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `FieldValueRequired ${root}.properties[a].allOf[0].type: Required value: must be array if x-kubernetes-list-type is specified`,
    ]);
    expect(causesOf(objectWith({ a: { type: 'object', properties: { metadata: { type: 'object' } }, not: { properties: { metadata: {} } } } }))).toEqual([
      `FieldValueForbidden ${root}.properties[a].not.properties[metadata]: Forbidden: must not be specified in a nested context`,
    ]);
  });

  it('a value validation at the root may only name specified fields (completeness; kube checks the root\'s only)', () => {
    const schema = objectWith({ a: { type: 'object', properties: { b: { type: 'string' } } } }, { anyOf: [{ properties: { a: { properties: { c: { maxLength: 1 } } } } }, { properties: { a: { items: { minimum: 1 } } } }] });
    expect(causesOf(schema)).toEqual([
      `FieldValueRequired ${root}.properties[a].items: Required value: because it is defined in ${root}.anyOf[1].properties[a].items`,
      `FieldValueRequired ${root}.properties[a].properties[c]: Required value: because it is defined in ${root}.anyOf[0].properties[a].properties[c]`,
    ]);
    expect(causesOf(objectWith({ a: { type: 'object', properties: { b: { type: 'string' } }, anyOf: [{ properties: { c: { maxLength: 1 } } }] } }))).toEqual([]);
  });

  it('metadata at the root may only restrict name and generateName', () => {
    expect(causesOf(objectWith({ metadata: objectWith({ name: { type: 'string', maxLength: 10 }, generateName: { type: 'string' } }) }))).toEqual([]);
    expect(causesOf(objectWith({ metadata: objectWith({ labels: { type: 'object' } }) }))).toEqual([
      `FieldValueForbidden ${root}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    expect(causesOf(objectWith({ metadata: { type: 'object', description: 'the metadata' } }))).toEqual([
      `FieldValueForbidden ${root}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    expect(causesOf(objectWith({ metadata: { type: 'string' }, kind: { type: 'integer' } }))).toEqual([
      `FieldValueInvalid ${root}.properties[kind].type: Invalid value: "integer": must be string`,
      `FieldValueInvalid ${root}.properties[metadata].type: Invalid value: "string": must be object`,
    ]);
  });

  it('an embedded resource must be an object with properties or preserve unknown fields', () => {
    expect(causesOf(objectWith({ t: { type: 'string', 'x-kubernetes-embedded-resource': true } }))).toEqual([
      `FieldValueRequired ${root}.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `FieldValueInvalid ${root}.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
    ]);
    expect(causesOf(objectWith({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }))).toEqual([]);
    expect(causesOf(objectWith({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, additionalProperties: { type: 'string' } } }))).toEqual([
      `FieldValueForbidden ${root}.properties[t].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`,
      `FieldValueRequired ${root}.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
    ]);
  });

  it('a pattern must be a Go regular expression', () => {
    expect(causesOf(objectWith({ a: { type: 'string', pattern: '(?=x)' } }))).toEqual([
      `FieldValueInvalid ${root}.properties[a].pattern: Invalid value: "(?=x)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
    ]);
  });
});

describe('OpenAPI keyword rules (ValidateCustomResourceDefinitionOpenAPISchema)', () => {
  it('additionalProperties and properties are mutually exclusive', () => {
    expect(causesOf(objectWith({ a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: false } }))).toEqual([
      `FieldValueForbidden ${root}.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
    ]);
    expect(causesOf(objectWith({ a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: true } }))).toEqual([]);
  });

  it('uniqueItems, id, $ref, patternProperties and friends are refused', () => {
    expect(causesOf(objectWith({ a: { type: 'array', items: { type: 'string' }, uniqueItems: true } }))).toEqual([
      `FieldValueForbidden ${root}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ]);
    expect(causesOf(objectWith({ a: { type: 'object', id: 'x', $ref: '#/x', patternProperties: { '^a': { type: 'string' } } } }))).toEqual([
      `FieldValueForbidden ${root}.properties[a].id: Forbidden: id is not supported`,
      `FieldValueForbidden ${root}.properties[a].patternProperties: Forbidden: patternProperties is not supported`,
      `FieldValueForbidden ${root}.properties[a].$ref: Forbidden: $ref is not supported`,
    ]);
  });

  it('$schema alone is only NewStructural\'s error, shown when nothing else is wrong', () => {
    expect(structuralSchemaCauses({ type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' }, root)).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "": OpenAPIV3Schema \'schema\' is not supported', field: root },
    ]);
  });

  it('x-kubernetes-preserve-unknown-fields must be true or undefined', () => {
    expect(causesOf(objectWith({ a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }))).toEqual([
      `FieldValueInvalid ${root}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    ]);
  });

  it('x-kubernetes-embedded-resource is not allowed inside resource meta', () => {
    expect(causesOf(objectWith({ t: objectWith({ metadata: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }, { 'x-kubernetes-embedded-resource': true }) }))).toEqual([
      `FieldValueForbidden ${root}.properties[t].properties[metadata].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
    ]);
  });

  it('x-kubernetes-map-type needs an object and a known value', () => {
    expect(causesOf(objectWith({ a: { type: 'string', 'x-kubernetes-map-type': 'weird' } }))).toEqual([
      `FieldValueInvalid ${root}.properties[a].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
      `FieldValueNotSupported ${root}.properties[a].x-kubernetes-map-type: Unsupported value: "weird": supported values: "atomic", "granular"`,
    ]);
  });

  it('x-kubernetes-list-type needs an array and a known value', () => {
    expect(causesOf(objectWith({ a: { type: 'object', 'x-kubernetes-list-type': 'set' } }))).toEqual([
      `FieldValueInvalid ${root}.properties[a].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`,
    ]);
    expect(causesOf(objectWith({ a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' } }))).toEqual([
      `FieldValueNotSupported ${root}.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
    ]);
  });

  it('the items of a set must be atomic (kube prints the items\' list type for a map-type error)', () => {
    expect(causesOf(objectWith({ a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { b: { type: 'string' } } } } }))).toEqual([
      `FieldValueInvalid ${root}.properties[a].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
    ]);
    expect(causesOf(objectWith({ a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } } }))).toEqual([
      `FieldValueInvalid ${root}.properties[a].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set`,
    ]);
  });

  it('list-map keys: required with type map, names of scalar item properties, no duplicates, required or defaulted', () => {
    expect(causesOf(objectWith({ a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-map-keys': ['k'] } }))).toEqual([
      `FieldValueRequired ${root}.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
    ]);
    expect(causesOf(objectWith({ a: { type: 'array', 'x-kubernetes-list-type': 'map' } }))).toEqual([
      `FieldValueRequired ${root}.properties[a].items: Required value: must be specified`,
      `FieldValueRequired ${root}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `FieldValueRequired ${root}.properties[a].items: Required value: must have a schema if x-kubernetes-list-type is map`,
    ]);
    const listMap = (items: JsonSchemaProps, keys: string[]): JsonSchemaProps => objectWith({ a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, items } });
    expect(causesOf(listMap({ type: 'string' }, ['k']))).toEqual([
      `FieldValueInvalid ${root}.properties[a].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
    ]);
    expect(causesOf(listMap({ type: 'object', required: ['k'], properties: { k: { type: 'object' } } }, ['k', 'x', 'k']))).toEqual([
      `FieldValueInvalid ${root}.properties[a].items.properties[k].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `FieldValueInvalid ${root}.properties[a].x-kubernetes-list-map-keys: Invalid value: []string{"k", "x", "k"}: entries must all be names of item properties`,
      `FieldValueInvalid ${root}.properties[a].items.properties[k].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `FieldValueInvalid ${root}.properties[a].x-kubernetes-list-map-keys: Invalid value: []string{"k", "x", "k"}: must not contain duplicate entries`,
    ]);
    expect(causesOf(listMap({ type: 'object', nullable: true, properties: { k: { type: 'string', nullable: true } } }, ['k']))).toEqual([
      `FieldValueForbidden ${root}.properties[a].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map`,
      `FieldValueRequired ${root}.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `FieldValueForbidden ${root}.properties[a].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
    ]);
    expect(causesOf(listMap({ type: 'object', required: ['k'], properties: { k: { type: 'string' }, p: { type: 'integer', default: 80 } } }, ['k', 'p']))).toEqual([]);
  });

  it('x-kubernetes-validations: static rule checks', () => {
    const rules = (list: unknown[]): unknown => objectWith({ a: { type: 'string', 'x-kubernetes-validations': list as JsonSchemaProps['x-kubernetes-validations'] } });
    const path = `${root}.properties[a].x-kubernetes-validations`;
    expect(causesOf(rules([{ rule: ' ' }, { rule: 'self.size() > 0', message: ' ' }, { rule: 'true', message: 'a\nb' }, { rule: 'true &&\ntrue' }]))).toEqual([
      `FieldValueRequired ${path}[0].rule: Required value: rule is not specified`,
      `FieldValueInvalid ${path}[1].message: Invalid value: " ": message must be non-empty if specified`,
      `FieldValueInvalid ${path}[2].message: Invalid value: "a\\nb": message must not contain line breaks`,
      `FieldValueRequired ${path}[3].message: Required value: message must be specified if rule contains line breaks`,
    ]);
    expect(causesOf(rules([{ rule: 'true', messageExpression: ' ', reason: 'FieldValueBad', fieldPath: '.x' }]))).toEqual([
      `FieldValueRequired ${path}[0].messageExpression: Required value: messageExpression must be non-empty if specified`,
      `FieldValueNotSupported ${path}[0].reason: Unsupported value: "FieldValueBad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `FieldValueInvalid ${path}[0].fieldPath: Invalid value: ".x": fieldPath must be a valid path`,
    ]);
    const onObject = objectWith({ a: objectWith({ b: { type: 'string' }, m: { type: 'object', additionalProperties: { type: 'string' } } }, { 'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.b' }, { rule: 'true', fieldPath: ".m['key']" }, { rule: 'true', fieldPath: '.c' }] }) });
    expect(causesOf(onObject)).toEqual([`FieldValueInvalid ${root}.properties[a].x-kubernetes-validations[2].fieldPath: Invalid value: ".c": fieldPath must be a valid path`]);
  });
});

describe('defaults (ValidateDefaults)', () => {
  it('a default must validate against its schema (errors on `.default`, names relative to it)', () => {
    expect(causesOf(objectWith({ spec: objectWith({ a: { type: 'string', default: 5 }, n: { type: 'integer', maximum: 3, default: 5 } }) }))).toEqual([
      `FieldValueTypeInvalid ${root}.properties[spec].properties[a].default: Invalid value: "integer":  in body must be of type string: "integer"`,
      `FieldValueInvalid ${root}.properties[spec].properties[n].default: Invalid value: 5:  in body should be less than or equal to 3`,
    ]);
    expect(causesOf(objectWith({ spec: objectWith({ o: objectWith({ x: { type: 'integer' } }, { default: { x: 'a' } }) }) }))).toEqual([
      `FieldValueTypeInvalid ${root}.properties[spec].properties[o].default.x: Invalid value: "string": x in body must be of type integer: "string"`,
    ]);
  });

  it('a default must be pruned', () => {
    expect(causesOf(objectWith({ spec: objectWith({ o: objectWith({ x: { type: 'integer' } }, { default: { x: 1, y: 2 } }) }) }))).toEqual([
      `FieldValueInvalid ${root}.properties[spec].properties[o].default: Invalid value: map[string]interface {}{"x":1, "y":2}: must not have unknown fields`,
    ]);
  });

  it('defaults are forbidden in top-level metadata, apiVersion and kind, and in additionalProperties of metadata', () => {
    expect(causesOf(objectWith({ kind: { type: 'string', default: 'X' } }))).toEqual([
      `FieldValueForbidden ${root}.properties[kind].default: Forbidden: must not be set in top-level kind`,
    ]);
    const embedded = objectWith({ t: objectWith({ metadata: objectWith({ labels: { type: 'object', additionalProperties: { type: 'string', default: 'x' } } }) }, { 'x-kubernetes-embedded-resource': true }) });
    expect(causesOf(embedded)).toEqual([
      `FieldValueForbidden ${root}.properties[t].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`,
    ]);
  });

  it('a default inside embedded metadata must make valid metadata', () => {
    const schema = objectWith({ t: objectWith({ metadata: objectWith({ name: { type: 'string', default: 'a/b' } }) }, { 'x-kubernetes-embedded-resource': true }) });
    expect(causesOf(schema)).toEqual([
      `FieldValueInvalid ${root}.properties[t].properties[metadata].properties[name].default: Invalid value: "a/b": must result in valid metadata: metadata.name: Invalid value: "a/b": may not contain '/'`,
    ]);
  });

  it('a default of an embedded resource must have apiVersion and kind', () => {
    const schema = objectWith({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, default: {} } });
    expect(causesOf(schema)).toEqual([
      `FieldValueRequired ${root}.properties[t].default.apiVersion: Required value: must not be empty`,
      `FieldValueRequired ${root}.properties[t].default.kind: Required value: must not be empty`,
    ]);
  });

  it('defaults are only checked once the schema is structural', () => {
    expect(causesOf(objectWith({ a: { default: 5 } }))).toEqual([
      `FieldValueRequired ${root}.properties[a].type: Required value: must not be empty for specified object fields`,
    ]);
  });
});

describe('speed', () => {
  it('accepts a structural 1 MB schema (its speed: npm run bench:crd)', () => {
    let counter = 0;
    const build = (depth: number): JsonSchemaProps => {
      if (depth === 0) return { type: 'string', description: 'a leaf field with a reasonably long description, as controller-gen writes them', maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' };
      const properties: Record<string, JsonSchemaProps> = {};
      for (let i = 0; i < 4; i++) properties[`field${counter++}`] = build(depth - 1);
      properties[`list${counter++}`] = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 } } } };
      return { type: 'object', description: 'an object', properties };
    };
    const schema = { type: 'object', properties: { spec: build(6), status: build(4) } };
    expect(JSON.stringify(schema).length).toBeGreaterThan(1_000_000);
    expect(structuralSchemaCauses(schema, root)).toEqual([]);
  });
});
