// Owns: the check of api/crd/cel's static cost estimator against kube 1.33's TestCostEstimation
// table (apiextensions-apiserver pkg/apiserver/schema/cel): the estimated max cost of one rule on
// a schema node, once with the size bounds derived from the 3 MiB request limit and once with
// maxItems / maxProperties / maxLength set.
import { describe, expect, it } from 'vitest';
import { compileSchemaNode } from '../../../api/crd/cel/compile.ts';
import type { CelSchema } from '../../../api/crd/cel/index.ts';

type Generator = (max?: number) => CelSchema;

const rules = (rule: string): Pick<CelSchema, 'x-kubernetes-validations'> => ({ 'x-kubernetes-validations': [{ rule }] });
const bound = (key: 'maxItems' | 'maxProperties' | 'maxLength', max: number | undefined): CelSchema => (max === undefined ? {} : { [key]: max });
function typed(type: string): CelSchema {
  if (type === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
  if (type === 'date' || type === 'date-time' || type === 'duration') return { type: 'string', format: type };
  return { type };
}
const objectItem: CelSchema = { type: 'object', required: ['required'], properties: { required: { type: 'string' }, optional: { type: 'string' } } };
const array = (type: string, rule: string): Generator => (max) => ({ type: 'array', items: typed(type), ...bound('maxItems', max), ...rules(rule) });
const arrayOfArrays = (type: string, rule: string): Generator => (max) => ({ type: 'array', items: { type: 'array', items: { type } }, ...bound('maxItems', max), ...rules(rule) });
const objectArray = (rule: string): Generator => (max) => ({ type: 'array', items: objectItem, ...bound('maxItems', max), ...rules(rule) });
const mapArray = (type: string, rule: string): Generator => (max) => ({ type: 'array', items: { type: 'object', additionalProperties: { type } }, ...bound('maxItems', max), ...rules(rule) });
const map = (type: string, rule: string): Generator => (max) => ({ type: 'object', additionalProperties: typed(type), ...bound('maxProperties', max), ...rules(rule) });
const mapOf = (item: CelSchema, rule: string): Generator => (max) => ({ type: 'object', additionalProperties: item, ...bound('maxProperties', max), ...rules(rule) });
const string = (rule: string): Generator => (max) => ({ type: 'string', ...bound('maxLength', max), ...rules(rule) });
const bytes = (rule: string): Generator => (max) => ({ type: 'string', format: 'byte', ...bound('maxLength', max), ...rules(rule) });
const nested = (rule: string): Generator => (max) => ({ type: 'object', additionalProperties: { type: 'string', ...bound('maxLength', max) }, ...bound('maxProperties', max), ...rules(rule) });
const allMax = (rule: string): Generator => (max) => ({
  type: 'array', ...bound('maxItems', max), ...rules(rule),
  items: { type: 'object', ...bound('maxProperties', max), additionalProperties: { ...objectItem, ...bound('maxProperties', max) } },
});
const oneMax = (rule: string): Generator => (max) => ({ type: 'array', ...rules(rule), items: { type: 'object', ...bound('maxProperties', max), additionalProperties: objectItem } });
const enumString = (rule: string, ...values: string[]): Generator => (max) => ({ type: 'string', enum: values, ...bound('maxLength', max), ...rules(rule) });
const stringOf = (max: number | undefined): CelSchema => ({ type: 'string', ...bound('maxLength', max) });

/** [name, schema, cost with derived bounds (undefined: not checked), bound, cost with the bound]. */
const table: readonly (readonly [string, Generator, number | undefined, number, number])[] = [
  ['number array with all', array('number', 'self.all(x, true)'), 4718591, 10, 32],
  ['string array with all', array('string', 'self.all(x, true)'), 3145727, 20, 62],
  ['boolean array with all', array('boolean', 'self.all(x, true)'), 1887437, 5, 17],
  ['array of number arrays with all', arrayOfArrays('number', 'self.all(x, true)'), 3145727, 100, 302],
  ['array of objects with all', objectArray('self.all(x, true)'), 555128, 50, 152],
  ['map of numbers with all', map('number', 'self.all(x, true)'), 1348169, 10, 32],
  ['map of strings with all', map('string', 'self.all(x, true)'), 1179647, 3, 11],
  ['map of booleans with all', map('boolean', 'self.all(x, true)'), 943718, 100, 302],
  ['string with contains', string("self.contains('test')"), 314574, 10, 5],
  ['string with startsWith', string("self.startsWith('test')"), 2, 15, 2],
  ['string with endsWith', string("self.endsWith('test')"), 2, 30, 2],
  ['concatenated string', string('size(self + "hello") > size("hello")'), 314578, 4, 7],
  ['index of number array', array('number', 'self[1] == 0.0'), 2, 5000, 2],
  ['index of string array', array('string', 'self[1] == self[1]'), 314577, 8, 314577],
  ['O(n^2) loop', array('number', 'self.all(x, self.all(y, true))'), undefined, 10, 352],
  ['O(n^3) loop', array('number', 'self.all(x, self.all(y, self.all(z, true)))'), undefined, 10, 3552],
  ['regex matches', string('self.matches("x")'), 314574, 50, 22],
  ['regex matches on a literal', string('"".matches("(((((((((())))))))))[0-9]")'), 7, 10, 7],
  ['regex matches empty pattern', string('self.matches("")'), 1, 100, 1],
  ['map lookup in all', nested('self.all(x, x.contains(self[x]))'), 2752507, 10, 72],
  ['index of fixed array', array('number', 'self[3] == 0.0'), 2, 0, 2],
  ['index of fixed map', map('number', 'self["x"] == 0.0'), 2, 0, 2],
  ['string equality', string('self == "x"'), 2, 0, 1],
  ['bytes equality', bytes('self == b"x"'), 2, 0, 1],
  ['all with equality', array('number', 'self.all(x, x == 0.0)'), 6291454, 3 * 1024 * 2048, 25165826],
  ['nested maps all bounded', allMax('self.all(x, x["y"].required == "z")'), 7340027, 10, 72],
  ['nested maps one bound', oneMax('self.all(x, x["y"].required == "z")'), 7340027, 10, 7340027],
  ['int-or-string array with all', array('int-or-string', 'self.all(x, true)'), 4718591, 10, 32],
  ['index of int-or-string array', array('int-or-string', 'self[0] == 5'), 3, 10, 3],
  ['index of boolean array', array('boolean', 'self[0] == false'), 2, 25, 2],
  ['index of object array', objectArray('self[0] == null'), 2, 422, 2],
  ['index of array of arrays', arrayOfArrays('number', 'self[0][0] == -1.0'), 3, 51, 3],
  ['array of number maps with all', mapArray('number', 'self.all(x, x.y == 25.2)'), 6291452, 12, 74],
  ['index of array of number maps', mapArray('number', 'self[0].x > 2.0'), 4, 3000, 4],
  ['duration array with all', array('duration', 'self.all(x, true)'), 2359295, 5, 17],
  ['index of duration array', array('duration', 'self[0].getHours() == 2'), 4, 525, 4],
  ['date array with all', array('date', 'self.all(x, true)'), 725936, 15, 47],
  ['index of date array', array('date', 'self[2].getDayOfMonth() == 13'), 4, 42, 4],
  ['date-time array with all', array('date-time', 'self.all(x, true)'), 428963, 25, 77],
  ['index of date-time array', array('date-time', 'self[2].getMinutes() == 45'), 4, 99, 4],
  ['map of int-or-strings with all', map('int-or-string', 'self.all(x, true)'), 1348169, 15, 47],
  ['map of objects with all', mapOf(objectItem, 'self.all(x, true)'), 428963, 20, 62],
  ['map of number maps with all', mapOf({ type: 'object', additionalProperties: { type: 'number' } }, 'self.all(x, true)'), 1179647, 10, 32],
  ['map of number arrays with all', mapOf({ type: 'array', items: { type: 'number' } }, 'self.all(x, true)'), 1179647, 25, 77],
  ['map of durations with all', map('duration', 'self.all(x, true)'), 1048577, 5, 17],
  ['map of dates with all', map('date', 'self.all(x, true)'), 524288, 10, 32],
  ['map of date-times with all', map('date-time', 'self.all(x, true)'), 349526, 25, 77],
  ['regex find', string("self.find('[0-9]+') == ''"), 629147, 10, 11],
  ['join', (max) => ({ type: 'array', items: stringOf(max), ...bound('maxItems', max), ...rules("self.join(' ') == 'aa bb'") }), 329853068905, 10, 43],
  ['isSorted', (max) => ({ type: 'array', items: stringOf(max), ...bound('maxItems', max), ...rules('self.isSorted() == true') }), 329854432052, 10, 52],
  ['replace', (max) => ({ type: 'object', properties: { str: stringOf(max), before: stringOf(2), after: stringOf(4) }, ...rules("self.str.replace(self.before, self.after) == 'does not matter'") }), 629154, 4, 12],
  ['split', (max) => ({ type: 'object', properties: { str: stringOf(max), separator: stringOf(max) }, ...rules('self.str.split(self.separator) == []') }), 629160, 10, 22],
  ['lowerAscii', (max) => ({ ...stringOf(max), ...rules("self.lowerAscii() == 'lower!'") }), 314575, 10, 6],
  ['size calls', map('integer', 'oldSelf.size() == self.size()'), 5, 10, 5],
  ['timestamp comparison', map('date-time', 'self["a"] == self["b"]'), 8, 7, 8],
  ['duration comparison', map('duration', 'self["c"] == self["d"]'), 8, 42, 8],
  ['enum bounds the string size', enumString("self.contains('A')", 'A', 'B', 'C', 'LongValue'), 2, 1000, 401],
];

function ruleCost(schema: CelSchema): string {
  const rule = compileSchemaNode(schema, false).root!.rules[0]!;
  return rule.error === undefined ? String(rule.maxCost) : `error: ${rule.error.detail}`;
}

describe('the static cost estimate of a rule, as kube 1.33 estimates it', () => {
  for (const [name, generate, derivedCost, max, boundCost] of table) {
    it(name, () => {
      if (derivedCost !== undefined) expect(ruleCost(generate())).toBe(String(derivedCost));
      expect(ruleCost(generate(max))).toBe(String(boundCost));
    });
  }

  it('makes O(n^2) and O(n^3) loops over unbounded lists exceed the per-expression limit', () => {
    expect(BigInt(ruleCost(array('number', 'self.all(x, self.all(y, true))')()))).toBeGreaterThan(10_000_000n);
    expect(BigInt(ruleCost(array('number', 'self.all(x, self.all(y, self.all(z, true)))')()))).toBeGreaterThan(10_000_000n);
  });
});
