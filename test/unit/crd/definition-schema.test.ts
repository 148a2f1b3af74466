// Owns: the check of the generated description of apiextensions.k8s.io/v1
// (api/registry/generated/apiextensions-v1.ts) and of the JSON schema built from it: the
// CustomResourceDefinition kind, the JSON forms of JSON and the JSONSchemaProps "or" types, and a
// CRD schema that takes every value kube's decoder takes (any JSON for default, enum and example;
// a schema or a boolean for additionalProperties; a schema or a list for items; a schema or a
// string list for dependencies) while JSONSchemaProps' recursion stays a finite tree.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { toOpenApiSchema } from '../../../api/openapi.ts';
import type { OpenApiObject } from '../../../api/openapi.ts';
import { apiPackages, messageDescriptions } from '../../../api/registry/generated/index.ts';
import type { MessageName } from '../../../api/registry/kind-description.ts';
import { SchemaBuilder } from '../../../api/registry/schema-from-description.ts';
import type { JsonSchema } from '../../../api/registry/schemas.ts';
import { widgetCrd, widgetSchema } from './definition-fixtures.ts';
import type { Fields } from './definition-fixtures.ts';

const v1 = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const crdMessage = `${v1}.CustomResourceDefinition` as MessageName;

describe('the generated description', () => {
  it('has the CustomResourceDefinition kind, cluster-scoped with its list', () => {
    const description = apiPackages.find((entry) => entry.groupVersion?.group === 'apiextensions.k8s.io');
    expect(description?.groupVersion).toEqual({ group: 'apiextensions.k8s.io', version: 'v1' });
    expect(description?.kinds).toEqual([
      { kind: 'CustomResourceDefinition', message: crdMessage, listKind: 'CustomResourceDefinitionList', clusterScoped: true, client: {}, lifecycle: { introduced: '1.16' } },
    ]);
  });

  it('gives JSON and the "or" types JSON forms of their own, and their protobuf fields', () => {
    expect(messageDescriptions.get(`${v1}.JSON` as MessageName)).toEqual({
      name: `${v1}.JSON`, jsonForm: 'json', fields: [{ protoName: 'raw', number: 1, type: 'bytes' }],
    });
    expect(messageDescriptions.get(`${v1}.JSONSchemaPropsOrBool` as MessageName)?.fields).toEqual([
      { protoName: 'allows', number: 1, type: 'bool' },
      { protoName: 'schema', number: 2, type: `${v1}.JSONSchemaProps`, pointer: true },
    ]);
    expect(messageDescriptions.get(`${v1}.JSONSchemaPropsOrArray` as MessageName)?.jsonForm).toBe('schemaOrArray');
    expect(messageDescriptions.get(`${v1}.JSONSchemaPropsOrStringArray` as MessageName)?.jsonForm).toBe('schemaOrStringArray');
    const props = messageDescriptions.get(`${v1}.JSONSchemaProps` as MessageName)!;
    expect(props.fields.find((field) => field.json === 'properties')).toMatchObject({ number: 29, mapKey: 'string', type: `${v1}.JSONSchemaProps` });
    expect(props.fields.find((field) => field.json === 'x-kubernetes-validations')).toMatchObject({
      number: 44, protoName: 'xKubernetesValidations', repeated: true, listType: 'map', listMapKeys: ['rule'], patchMergeKey: 'rule',
    });
  });
});

describe('the CRD schema', () => {
  const builder = new SchemaBuilder();
  const schema = builder.kindSchema(crdMessage);
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const format of ['byte', 'date-time-or-empty', 'int32', 'int64', 'double', 'float']) ajv.addFormat(format, () => true);
  const validate = ajv.compile(schema);
  const problems = (openAPIV3Schema: unknown): string[] => {
    const crd = widgetCrd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }] as unknown as Fields[] });
    return validate(crd) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  };

  it('takes every value kube\'s decoder takes in the JSON and "or" fields', () => {
    expect(problems(widgetSchema())).toEqual([]);
    expect(problems({
      type: 'object', default: { a: [1, 'x', null] }, enum: [1, 'a', null, true, { b: 2 }, [3]], example: 'anything',
      additionalProperties: true, additionalItems: false, items: [{ type: 'string' }, { type: 'integer' }],
      dependencies: { a: ['b', 'c'], d: { required: ['e'] } },
      properties: { spec: { type: 'object', additionalProperties: { type: 'string' }, items: { type: 'string' }, default: 3.5 } },
      'x-kubernetes-validations': [{ rule: 'self.a > 0', reason: 'FieldValueForbidden', fieldPath: '.a' }],
    })).toEqual([]);
  });

  it('still types the schema object itself', () => {
    expect(problems('object')).toEqual(['/spec/versions/0/schema/openAPIV3Schema must be object']);
    expect(problems({ type: 5, maxLength: 'long' })).toEqual([
      '/spec/versions/0/schema/openAPIV3Schema/type must be string',
      '/spec/versions/0/schema/openAPIV3Schema/maxLength must be integer',
    ]);
    expect(problems({ required: 'spec' })).toEqual(['/spec/versions/0/schema/openAPIV3Schema/required must be array']);
  });

  it('recursion: a nested schema is an open object (one level of JSONSchemaProps is described), a nested "or" value any JSON', () => {
    const props = builder.messageSchema(`${v1}.JSONSchemaProps` as MessageName);
    expect(props.properties?.['properties']).toEqual({ type: 'object', additionalProperties: { type: 'object' } });
    expect(props.properties?.['not']).toEqual({ type: 'object' });
    expect(props.properties?.['allOf']).toMatchObject({ type: 'array', items: { type: 'object' } });
    expect(props.properties?.['items']).toEqual({ items: { type: 'object' }, definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray' });
    expect(props.properties?.['additionalProperties']).toEqual({ definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool' });
    expect((props.properties?.['dependencies']?.additionalProperties as JsonSchema)).toEqual({
      items: { type: 'string' }, definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray',
    });
    expect(props.properties?.['default']).toEqual({ definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON' });
    // A finite tree: it serialises.
    expect(() => JSON.stringify(schema)).not.toThrow();
  });

  it('an "or" type built on its own checks an object as JSONSchemaProps, any other value passes', () => {
    const own = new SchemaBuilder();
    const orBool = own.messageSchema(`${v1}.JSONSchemaPropsOrBool` as MessageName);
    expect(orBool.type).toBeUndefined();
    expect(orBool.additionalProperties).toBe(false);
    expect(Object.keys(orBool.properties ?? {})).toContain('x-kubernetes-validations');
    const check = new Ajv({ allErrors: true, strict: false });
    for (const format of ['byte', 'date-time-or-empty', 'int32', 'int64', 'double', 'float']) check.addFormat(format, () => true);
    const validateOrBool = check.compile(orBool);
    expect([true, false, { type: 'string' }].map((value) => validateOrBool(value))).toEqual([true, true, true]);
    expect(validateOrBool({ type: 5 })).toBe(false);
  });

  it('publishes one OpenAPI definition per kube name, JSONSchemaProps once', () => {
    const named = new Map<string, OpenApiObject>();
    toOpenApiSchema(schema, 'v3', named);
    const prefix = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
    for (const name of ['JSONSchemaProps', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrBool', 'JSONSchemaPropsOrStringArray', 'JSON', 'CustomResourceDefinitionSpec']) {
      expect(named.has(`${prefix}.${name}`), name).toBe(true);
    }
    expect(named.get(`${prefix}.JSONSchemaProps`)?.['type']).toBe('object');
    expect(named.get(`${prefix}.JSONSchemaPropsOrBool`)).toEqual({});
  });
});
