// Owns: the check of api/crd/cel's validation of custom resources with x-kubernetes-validations
// (kube 1.33's cel.Validator): passing and failing rules with kube's causes, messageExpression
// (and its fallbacks), transition rules and optionalOldSelf, rules on list items and map values
// with their field paths, list-map correlation of oldSelf, fieldPath and reason, evaluation
// errors, and the runtime cost limits.
import { describe, expect, it } from 'vitest';
import { compileRules, validateWithRules } from '../../../api/crd/cel/index.ts';
import type { CelSchema, CelValidationRule } from '../../../api/crd/cel/index.ts';

type Fields = Record<string, unknown>;

/** A CRD root schema with `spec` declared as given. */
function crdSchema(spec: CelSchema, rootRules: readonly CelValidationRule[] = []): CelSchema {
  return { type: 'object', properties: { spec }, ...(rootRules.length > 0 ? { 'x-kubernetes-validations': rootRules } : {}) };
}

function resource(spec: Fields): Fields {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec };
}

function validate(schema: CelSchema, spec: Fields, oldSpec?: Fields, options = {}): ReturnType<typeof validateWithRules> {
  return validateWithRules(compileRules(schema), resource(spec), oldSpec === undefined ? undefined : resource(oldSpec), options);
}

const replicasSpec = (rules: readonly CelValidationRule[]): CelSchema => ({
  type: 'object',
  properties: { replicas: { type: 'integer' }, maxReplicas: { type: 'integer' }, name: { type: 'string' } },
  'x-kubernetes-validations': rules,
});

describe('rules on an object', () => {
  const schema = crdSchema(replicasSpec([{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' }]));

  it('passes a resource the rule accepts', () => {
    expect(validate(schema, { replicas: 2, maxReplicas: 3 })).toEqual([]);
  });

  it('reports a failing rule with its message at the node', () => {
    expect(validate(schema, { replicas: 5, maxReplicas: 3 })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas must not exceed maxReplicas', field: 'spec' },
    ]);
  });

  it('reports a rule without message as failed rule: <rule>', () => {
    const bare = crdSchema(replicasSpec([{ rule: '  self.replicas <= self.maxReplicas ' }]));
    expect(validate(bare, { replicas: 5, maxReplicas: 3 })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": failed rule: self.replicas <= self.maxReplicas', field: 'spec' },
    ]);
  });

  it('reports root rules at the nil field path, and sees apiVersion, kind and metadata.name', () => {
    const root = crdSchema({ type: 'object' }, [{ rule: "self.metadata.name.startsWith('x') && self.kind == 'Widget'" }]);
    expect(validate(root, {})).toEqual([
      { reason: 'FieldValueInvalid', message: "Invalid value: \"object\": failed rule: self.metadata.name.startsWith('x') && self.kind == 'Widget'", field: '<nil>' },
    ]);
  });

  it('does not evaluate rules of absent or null values', () => {
    const { spec: _spec, ...withoutSpec } = resource({});
    expect(validateWithRules(compileRules(schema), withoutSpec, undefined)).toEqual([]);
    expect(validateWithRules(compileRules(schema), { ...withoutSpec, spec: null }, undefined)).toEqual([]);
  });

  it('escapes property names as kube does', () => {
    const escaped = crdSchema({
      type: 'object',
      properties: { 'x-y': { type: 'string' }, 'a.b': { type: 'string' }, namespace: { type: 'string' }, 'c__d': { type: 'string' } },
      'x-kubernetes-validations': [{ rule: "self.x__dash__y == self.a__dot__b && self.__namespace__ == self.c__underscores__d" }],
    });
    expect(validate(escaped, { 'x-y': 'p', 'a.b': 'p', namespace: 'q', c__d: 'q' })).toEqual([]);
    expect(validate(escaped, { 'x-y': 'p', 'a.b': 'o', namespace: 'q', c__d: 'q' })).toHaveLength(1);
  });
});

describe('messageExpression', () => {
  it('gives the message of a failing rule', () => {
    const schema = crdSchema(replicasSpec([{ rule: 'self.replicas <= self.maxReplicas', message: 'static', messageExpression: "'replicas ' + string(self.replicas) + ' exceed ' + string(self.maxReplicas)" }]));
    expect(validate(schema, { replicas: 5, maxReplicas: 3 })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas 5 exceed 3', field: 'spec' },
    ]);
  });

  it('falls back to the message, then to the rule, when it errs or gives an empty or multi-line string', () => {
    const schema = crdSchema(replicasSpec([
      { rule: 'self.replicas <= self.maxReplicas', message: 'static message', messageExpression: 'self.name' },
      { rule: 'self.replicas <= self.maxReplicas', messageExpression: "'   '" },
      { rule: 'self.replicas <= self.maxReplicas', messageExpression: "'a\\nb'" },
    ]));
    expect(validate(schema, { replicas: 5, maxReplicas: 3 })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": static message', field: 'spec' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": failed rule: self.replicas <= self.maxReplicas', field: 'spec' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": failed rule: self.replicas <= self.maxReplicas', field: 'spec' },
    ]);
  });
});

describe('transition rules', () => {
  const schema = crdSchema(replicasSpec([{ rule: 'self.replicas >= oldSelf.replicas', message: 'may not scale down' }]));

  it('are skipped on create', () => {
    expect(validate(schema, { replicas: 1 })).toEqual([]);
  });

  it('compare with the old object on update', () => {
    expect(validate(schema, { replicas: 3 }, { replicas: 2 })).toEqual([]);
    expect(validate(schema, { replicas: 1 }, { replicas: 2 })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": may not scale down', field: 'spec' },
    ]);
  });

  it('with optionalOldSelf run on create too, with oldSelf an optional', () => {
    const optional = crdSchema(replicasSpec([{ rule: 'oldSelf.hasValue() ? self.replicas >= oldSelf.value().replicas : self.replicas == 1', optionalOldSelf: true, message: 'start at 1, never scale down' }]));
    expect(validate(optional, { replicas: 1 })).toEqual([]);
    expect(validate(optional, { replicas: 2 })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": start at 1, never scale down', field: 'spec' },
    ]);
    expect(validate(optional, { replicas: 4 }, { replicas: 3 })).toEqual([]);
    expect(validate(optional, { replicas: 2 }, { replicas: 3 })).toHaveLength(1);
  });

  it('correlate map entries by key and list-map items by their keys, and not plain list items', () => {
    const immutable = { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self.value == oldSelf.value', message: 'value is immutable' }] };
    const schema = crdSchema({
      type: 'object',
      properties: {
        byName: { type: 'object', additionalProperties: immutable },
        listMap: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: immutable },
      },
    });
    const before = { byName: { a: { value: '1' } }, listMap: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }] };
    const after = { byName: { a: { value: '2' }, b: { value: '9' } }, listMap: [{ name: 'b', value: '3' }, { name: 'a', value: '1' }, { name: 'c', value: '0' }] };
    expect(validate(schema, after, before)).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": value is immutable', field: 'spec.byName[a]' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": value is immutable', field: 'spec.listMap[0]' },
    ]);
  });
});

describe('rules below lists and maps', () => {
  const schema = crdSchema({
    type: 'object',
    properties: {
      ports: {
        type: 'array',
        items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0 && self < 65536', message: 'must be a port' }] },
        'x-kubernetes-validations': [{ rule: 'self.size() <= 2', message: 'at most 2 ports' }],
      },
      labels: {
        type: 'object',
        additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() <= 3' }] },
        'x-kubernetes-validations': [{ rule: "!('forbidden' in self)", reason: 'FieldValueForbidden', message: 'the forbidden label may not be set' }],
      },
    },
  });

  it('run per item and entry with the index or key in the field path', () => {
    expect(validate(schema, { ports: [80, 0, 70000], labels: { a: 'ok', forbidden: 'long value' } })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "array": at most 2 ports', field: 'spec.ports' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "integer": must be a port', field: 'spec.ports[1]' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "integer": must be a port', field: 'spec.ports[2]' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: the forbidden label may not be set', field: 'spec.labels' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": failed rule: self.size() <= 3', field: 'spec.labels[forbidden]' },
    ]);
  });
});

describe('fieldPath and reason', () => {
  it('report the failure at the field path and with the reason', () => {
    const schema = crdSchema({
      type: 'object',
      properties: { min: { type: 'integer' }, max: { type: 'integer' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
      'x-kubernetes-validations': [
        { rule: 'self.min <= self.max', fieldPath: '.max', reason: 'FieldValueInvalid', message: 'max must be at least min' },
        { rule: 'has(self.max)', fieldPath: '.max', reason: 'FieldValueRequired', message: 'max is required' },
        { rule: 'self.min != self.max', fieldPath: ".labels['a.b']", reason: 'FieldValueDuplicate' },
      ],
    });
    expect(validate(schema, { min: 2, max: 1, labels: {} })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": max must be at least min', field: 'spec.max' },
    ]);
    expect(validate(schema, { min: 2, labels: {} })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": no such key: max evaluating rule: max must be at least min', field: 'spec' },
      { reason: 'FieldValueRequired', message: 'Required value: max is required', field: 'spec.max' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": no such key: max evaluating rule: self.min != self.max', field: 'spec' },
    ]);
    expect(validate(schema, { min: 1, max: 1, labels: {} })).toEqual([
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: "object"', field: 'spec.labels[a.b]' },
    ]);
  });
});

describe('evaluation errors', () => {
  it('are reported with the rule', () => {
    const schema = crdSchema(replicasSpec([{ rule: 'self.replicas / self.maxReplicas > 0' }]));
    expect(validate(schema, { replicas: 5, maxReplicas: 0 })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": division by zero evaluating rule: self.replicas / self.maxReplicas > 0', field: 'spec' },
    ]);
  });

  it('of runtime overload mismatches on int-or-string are reported as kube does', () => {
    const schema = crdSchema({ 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self == 1 || self.startsWith("a")' }] });
    const causes = validate(schema, 5 as unknown as Fields);
    expect(causes).toHaveLength(1);
    expect(causes[0]!.message).toMatch(/^Invalid value: "": 'no such overload.*': call arguments did not match a supported operator, function or macro signature for rule: self == 1 \|\| self.startsWith\("a"\)$/);
  });
});

describe('the runtime cost limits', () => {
  const loops = crdSchema({
    type: 'object',
    properties: {
      items: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "self.all(x, self.all(y, self.all(z, x + y + z != '')))" }] },
      later: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() > 100' }] },
    },
  });
  const spec = { items: Array.from({ length: 200 }, (_, index) => `item-${index}`), later: 'x' };

  // A runaway expression that were not stopped would run for minutes: the test's timeout catches that.
  it('stop a runaway expression at the per-expression limit, and run no further rules', () => {
    expect(validate(loops, spec)).toEqual([{
      reason: 'FieldValueInvalid',
      message: "Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, self.all(z, x + y + z != '')))",
      field: 'spec.items',
    }]);
  });

  it('stop validation when the object budget is used up', () => {
    expect(validate(loops, { items: ['a', 'b', 'c'], later: 'x' }, undefined, { runtimeCostBudget: 50 })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run', field: 'spec.items' },
    ]);
  });

  it('let cheap rules run within the budget', () => {
    expect(validate(loops, { items: ['a', 'b'], later: 'x' })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": failed rule: self.size() > 100', field: 'spec.later' },
    ]);
  });
});

describe('compiled rules', () => {
  // Their speed is measured by the CRD benchmark (npm run bench:crd), not asserted here.
  it('are cached per schema object and give the same answer every time', () => {
    const schema = crdSchema(replicasSpec([
      { rule: 'self.replicas <= self.maxReplicas' }, { rule: "self.name.matches('^[a-z]+$')" }, { rule: 'self.replicas >= 0' },
    ]));
    expect(compileRules(schema)).toBe(compileRules(schema));
    const compiled = compileRules(schema);
    const object = resource({ replicas: 1, maxReplicas: 3, name: 'abc' });
    for (let round = 0; round < 100; round += 1) expect(validateWithRules(compiled, object, undefined)).toHaveLength(0);
  });
});
