// Owns: the check of api/crd/cel's CRD-time checks of x-kubernetes-validations (kube 1.33's
// apiextensions validation of a CRD's openAPIV3Schema): rule shape errors, compile errors in
// cel-go's form, messageExpression errors, fieldPath and reason, transition-rule restrictions,
// the per-expression estimated cost limit with kube's factor message and the per-CRD total.
import { describe, expect, it } from 'vitest';
import { ruleCauses } from '../../../api/crd/cel/index.ts';
import type { CelSchema, CelValidationRule } from '../../../api/crd/cel/index.ts';

const base = 'spec.validation.openAPIV3Schema';
const specPath = `${base}.properties[spec]`;

function withSpecRules(rules: readonly CelValidationRule[], properties: Readonly<Record<string, CelSchema>> = {}): CelSchema {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { name: { type: 'string', maxLength: 10 }, count: { type: 'integer' }, ...properties },
        'x-kubernetes-validations': rules,
      },
    },
  };
}

function goRule(rule: string, extra: { message?: string; messageExpression?: string } = {}): string {
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:${JSON.stringify(extra.message ?? '')}, MessageExpression:${JSON.stringify(extra.messageExpression ?? '')}, `
    + 'Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}';
}

const costAdvice = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

describe('a schema with valid rules', () => {
  it('has no causes', () => {
    expect(ruleCauses(withSpecRules([
      { rule: 'self.count >= 0' }, { rule: 'self.name.size() < 5', message: 'short names only', fieldPath: '.name', reason: 'FieldValueForbidden' },
      { rule: 'self.count >= oldSelf.count', messageExpression: "self.name + ' may not scale down'" },
      { rule: 'oldSelf.hasValue() || self.count == 0', optionalOldSelf: true },
    ]), base)).toEqual([]);
  });
});

describe('compile errors', () => {
  const cases: readonly (readonly [string, string])[] = [
    ['self.nope == 1', "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^"],
    ['self.name + 1 == 2', "compilation failed: ERROR: <input>:1:11: found no matching overload for '_+_' applied to '(string, int)'\n | self.name + 1 == 2\n | ..........^"],
    ['fakeFunction(self.name)', "compilation failed: ERROR: <input>:1:13: undeclared reference to 'fakeFunction' (in container '')\n | fakeFunction(self.name)\n | ............^"],
    ['self.count.size() == 1', "compilation failed: ERROR: <input>:1:16: found no matching overload for 'size' applied to 'int.()'\n | self.count.size() == 1\n | ...............^"],
    ["[1, 'a'].size() == 2", "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() == 2\n | ....^"],
    ["self['name'] == 'x'", "compilation failed: ERROR: <input>:1:5: found no matching overload for '_[_]' applied to '(selfType0.spec, string)'\n | self['name'] == 'x'\n | ....^"],
    ["self.name.matches(')')", "compilation failed: ERROR: <input>:1:19: invalid matches argument\n | self.name.matches(')')\n | ..................^"],
    ["self.name.matches('(a)\\\\1')", "compilation failed: ERROR: <input>:1:19: invalid matches argument\n | self.name.matches('(a)\\\\1')\n | ..................^"],
    ["duration('1') > duration('1s')", "compilation failed: ERROR: <input>:1:10: invalid duration argument\n | duration('1') > duration('1s')\n | .........^"],
    ["timestamp('1000-00-00T00:00:00Z') > timestamp('2000-01-01T00:00:00Z')", "compilation failed: ERROR: <input>:1:11: invalid timestamp\n | timestamp('1000-00-00T00:00:00Z') > timestamp('2000-01-01T00:00:00Z')\n | ..........^"],
    ['self.name', 'cel expression must evaluate to a bool'],
  ];
  for (const [rule, detail] of cases) {
    it(`are reported for ${rule}`, () => {
      expect(ruleCauses(withSpecRules([{ rule }]), base)).toEqual([
        { reason: 'FieldValueInvalid', message: `Invalid value: ${goRule(rule)}: ${detail}`, field: `${specPath}.x-kubernetes-validations[0].rule` },
      ]);
    });
  }

  it('of a syntax error are reported with the position', () => {
    const [cause] = ruleCauses(withSpecRules([{ rule: 'self.name == ' }]), base);
    expect(cause?.message).toMatch(/^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.name == ".*\}: compilation failed: ERROR: <input>:1:14: Syntax error: /);
  });
});

describe('messageExpression', () => {
  it('must compile and be a string', () => {
    expect(ruleCauses(withSpecRules([
      { rule: 'true', messageExpression: '1' },
      { rule: 'true', messageExpression: 'self.x' },
      { rule: 'true', messageExpression: ' ' },
    ]), base)).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: messageExpression must be non-empty if specified', field: `${specPath}.x-kubernetes-validations[2].messageExpression` },
    ]);
    expect(ruleCauses(withSpecRules([{ rule: 'true', messageExpression: '1' }, { rule: 'true', messageExpression: 'self.x' }]), base)).toEqual([
      { reason: 'FieldValueInvalid', message: `Invalid value: ${goRule('true', { messageExpression: '1' })}: messageExpression must evaluate to a string`, field: `${specPath}.x-kubernetes-validations[0].messageExpression` },
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${goRule('true', { messageExpression: 'self.x' })}: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'x'\n | self.x\n | ....^`,
        field: `${specPath}.x-kubernetes-validations[1].messageExpression`,
      },
    ]);
  });
});

describe('rule shape', () => {
  it('reports empty rules and messages, line breaks, unsupported reasons and invalid field paths', () => {
    expect(ruleCauses(withSpecRules([
      { rule: ' ' }, { rule: 'true', message: ' ' }, { rule: 'true', message: 'a\nb' }, { rule: 'true\n&& true' },
      { rule: 'true', reason: 'Bogus' }, { rule: 'true', fieldPath: '.nope' }, { rule: 'true', fieldPath: 'name' }, { rule: 'true', fieldPath: ' ' },
    ]), base)).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: rule is not specified', field: `${specPath}.x-kubernetes-validations[0].rule` },
      { reason: 'FieldValueInvalid', message: 'Invalid value: " ": message must be non-empty if specified', field: `${specPath}.x-kubernetes-validations[1].message` },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "a\\nb": message must not contain line breaks', field: `${specPath}.x-kubernetes-validations[2].message` },
      { reason: 'FieldValueRequired', message: 'Required value: message must be specified if rule contains line breaks', field: `${specPath}.x-kubernetes-validations[3].message` },
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
        field: `${specPath}.x-kubernetes-validations[4].reason`,
      },
      { reason: 'FieldValueInvalid', message: 'Invalid value: ".nope": fieldPath must be a valid path', field: `${specPath}.x-kubernetes-validations[5].fieldPath` },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "name": fieldPath must be a valid path', field: `${specPath}.x-kubernetes-validations[6].fieldPath` },
      { reason: 'FieldValueInvalid', message: 'Invalid value: " ": fieldPath must be non-empty if specified', field: `${specPath}.x-kubernetes-validations[7].fieldPath` },
      { reason: 'FieldValueInvalid', message: 'Invalid value: " ": fieldPath must be a valid path', field: `${specPath}.x-kubernetes-validations[7].fieldPath` },
    ]);
  });

  it('accepts field paths into properties and map keys', () => {
    const schema = withSpecRules([{ rule: 'true', fieldPath: ".labels['app.kubernetes.io/name']" }, { rule: 'true', fieldPath: "['name']" }], {
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    });
    expect(ruleCauses(schema, base)).toEqual([]);
  });
});

describe('transition rules', () => {
  it('may not use oldSelf below a list that is not a map list', () => {
    const item: CelSchema = { type: 'object', properties: { v: { type: 'string', maxLength: 5 } }, 'x-kubernetes-validations': [{ rule: 'self.v == oldSelf.v' }] };
    const schema = withSpecRules([], {
      atomic: { type: 'array', maxItems: 5, items: item },
      mapList: { type: 'array', maxItems: 5, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['v'], items: item },
    });
    expect(ruleCauses(schema, base)).toEqual([{
      reason: 'FieldValueInvalid',
      message: `Invalid value: "self.v == oldSelf.v": oldSelf cannot be used on the uncorrelatable portion of the schema within ${specPath}.properties[atomic]`,
      field: `${specPath}.properties[atomic].items.x-kubernetes-validations[0].rule`,
    }]);
  });

  it('may not set optionalOldSelf when the rule does not use oldSelf', () => {
    expect(ruleCauses(withSpecRules([{ rule: 'self.count > 0', optionalOldSelf: true }]), base)).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: true: may not be set if oldSelf is not used in rule', field: `${specPath}.x-kubernetes-validations[0].optionalOldSelf` },
    ]);
  });
});

describe('estimated cost', () => {
  it('refuses a rule whose cost times its cardinality exceeds the per-expression limit, with the factor', () => {
    const schema = withSpecRules([], {
      list: { type: 'array', maxItems: 2000, items: { type: 'string', maxLength: 100 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x != y || true))' }] },
    });
    const field = `${specPath}.properties[list].x-kubernetes-validations[0].rule`;
    expect(ruleCauses(schema, base)).toEqual([
      { reason: 'FieldValueForbidden', message: `Forbidden: estimated rule cost exceeds budget by factor of 18.0x ${costAdvice}`, field },
      { reason: 'FieldValueForbidden', message: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema', field },
      { reason: 'FieldValueForbidden', message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.8x ${costAdvice}`, field: base },
    ]);
  });

  it('prints a factor below 1.5 with six decimals and above 100 as more than 100x', () => {
    const nearLimit = withSpecRules([], {
      list: { type: 'array', maxItems: 545, items: { type: 'string', maxLength: 100 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x != y || true))' }] },
    });
    const [near] = ruleCauses(nearLimit, base);
    expect(near?.message).toMatch(new RegExp(`^Forbidden: estimated rule cost exceeds budget by factor of 1\\.\\d{6}x ${costAdvice.replace(/[()]/g, '\\$&')}$`));
    const unbounded = withSpecRules([], { list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x != y))' }] } });
    expect(ruleCauses(unbounded, base)[0]?.message).toBe(`Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${costAdvice}`);
  });

  it('multiplies a rule below unbounded lists by the largest number of times it can occur', () => {
    const rule = { rule: "self.matches('^[a-z]+$')" };
    const bounded = withSpecRules([], { names: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [rule] } } });
    expect(ruleCauses(bounded, base)).toEqual([]);
    const unbounded = withSpecRules([], { names: { type: 'array', items: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [rule] } } });
    // (63×4+1)×0.1 → 26 × 8×0.25 → 2, plus 1 for self: 53, times 3 MiB / (2+1) string items.
    expect(ruleCauses(unbounded, base)).toEqual([
      { reason: 'FieldValueForbidden', message: `Forbidden: estimated rule cost exceeds budget by factor of 5.6x ${costAdvice}`, field: `${specPath}.properties[names].items.x-kubernetes-validations[0].rule` },
    ]);
  });

  it('refuses a schema whose rules together exceed the per-CRD limit, naming the most expensive ones', () => {
    const expensive = (index: number): CelSchema => ({
      type: 'array', maxItems: 500, items: { type: 'string', maxLength: 20 },
      'x-kubernetes-validations': [{ rule: `self.all(x, self.exists(y, x == y + '${index}'))` }],
    });
    const schema = withSpecRules([], Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`list${index}`, expensive(index)])));
    const causes = ruleCauses(schema, base);
    expect(causes.filter((cause) => cause.message?.startsWith('Forbidden: estimated rule cost'))).toEqual([]);
    expect(causes.filter((cause) => cause.message === 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')).toHaveLength(4);
    expect(causes.at(-1)).toEqual({
      reason: 'FieldValueForbidden',
      message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.438125x ${costAdvice}`,
      field: base,
    });
  });
});
