// Owns: parsing and matching of label selectors (the k8s.io/apimachinery/pkg/labels grammar:
// `=`, `==`, `!=`, `in`, `notin`, exists, `!key`) and field selectors (`=`, `==`, `!=` on the
// fields a kind supports; metadata.name and metadata.namespace for every kind). A selector that
// does not parse is a 400, never silently ignored; a label key or value kube's labels.Parse
// refuses (IsQualifiedName, IsValidLabelValue: a name part over 63 characters, …) is refused
// with its message ("unable to parse requirement: <nil>: Invalid value: "…": name part must be
// no more than 63 characters").
import type { KubeObject } from '../actors/index.ts';
import { isQualifiedName, labelValueProblems } from './registry/validation.ts';
import { badRequest } from './status.ts';

type Requirement =
  | { readonly operator: 'equals' | 'notEquals'; readonly key: string; readonly value: string }
  | { readonly operator: 'in' | 'notIn'; readonly key: string; readonly values: readonly string[] }
  | { readonly operator: 'exists' | 'doesNotExist'; readonly key: string };

export interface Selector {
  readonly empty: boolean;
  matches(object: KubeObject): boolean;
}

const everything: Selector = { empty: true, matches: () => true };


/** Splits on commas that are not inside a parenthesised value set. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of selector) {
    if (character === '(') depth++;
    if (character === ')') depth--;
    if (character === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim());
}

/** Go's %q of a string, as field.Invalid prints a bad value. */
function quoted(value: string): string {
  return JSON.stringify(value);
}

/** labels' validateLabelKey: the parser checks the key with no field path, so kube prints "<nil>". */
function checkKey(key: string): string {
  const problems = isQualifiedName(key);
  if (problems.length > 0) throw badRequest(`unable to parse requirement: <nil>: Invalid value: ${quoted(key)}: ${problems.join('; ')}`);
  return key;
}

/**
 * labels.NewRequirement's value checks: each value at `values[i][key]` (a set's values sorted, as
 * kube lists them); several errors print as an aggregate `[a, b]`.
 */
function checkValues(key: string, values: readonly string[]): readonly string[] {
  const errors = [...values].sort().flatMap((value, index) => {
    const problems = labelValueProblems(value);
    return problems.length === 0 ? [] : [`values[${index}][${key}]: Invalid value: ${quoted(value)}: ${problems.join('; ')}`];
  });
  if (errors.length > 0) throw badRequest(`unable to parse requirement: ${errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`}`);
  return values;
}

function parseLabelRequirement(part: string): Requirement {
  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (setMatch) {
    const key = checkKey(setMatch[1]!);
    const values = checkValues(key, [...new Set(setMatch[3]!.split(',').map((value) => value.trim()))]);
    return { operator: setMatch[2] === 'in' ? 'in' : 'notIn', key, values };
  }
  const comparison = /^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
  if (comparison) {
    const operator = comparison[2] === '!=' ? 'notEquals' : 'equals';
    const key = checkKey(comparison[1]!);
    return { operator, key, value: checkValues(key, [comparison[3]!.trim()])[0]! };
  }
  if (part.startsWith('!')) return { operator: 'doesNotExist', key: checkKey(part.slice(1).trim()) };
  return { operator: 'exists', key: checkKey(part) };
}

function requirementMatches(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'equals': return present && value === requirement.value;
    case 'notEquals': return !present || value !== requirement.value;
    case 'in': return present && requirement.values.includes(value!);
    case 'notIn': return !present || !requirement.values.includes(value!);
    case 'exists': return present;
    case 'doesNotExist': return !present;
  }
}

export function parseLabelSelector(selector: string | undefined): Selector {
  if (selector === undefined || selector.trim() === '') return everything;
  const requirements = splitTopLevel(selector).map((part) => {
    if (part === '') throw badRequest(`unable to parse requirement: found '', expected: identifier in selector "${selector}"`);
    return parseLabelRequirement(part);
  });
  return {
    empty: false,
    matches: (object) => requirements.every((requirement) => requirementMatches(requirement, object.metadata.labels ?? {})),
  };
}

/** Reads a field a field selector may name; undefined means the kind does not support it. */
export type FieldGetter = (object: Record<string, unknown>) => string;

const metadataFields: Record<string, FieldGetter> = {
  'metadata.name': (object) => (object as unknown as KubeObject).metadata.name ?? '',
  'metadata.namespace': (object) => (object as unknown as KubeObject).metadata.namespace ?? '',
};

export function parseFieldSelector(selector: string | undefined, kindFields: Readonly<Record<string, FieldGetter>> = {}): Selector {
  if (selector === undefined || selector.trim() === '') return everything;
  const fields = { ...metadataFields, ...kindFields };
  const tests = splitTopLevel(selector).map((part) => {
    const match = /^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!match) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const getter = fields[match[1]!];
    if (!getter) throw badRequest(`"${match[1]}" is not a known field selector: only "${Object.keys(fields).join('", "')}"`);
    const negate = match[2] === '!=';
    const value = match[3]!.trim();
    return (object: KubeObject) => (getter(object as unknown as Record<string, unknown>) === value) !== negate;
  });
  return { empty: false, matches: (object) => tests.every((test) => test(object)) };
}

/** Combines a label and a field selector: an object must match both. */
export function bothMatch(label: Selector, field: Selector): Selector {
  if (label.empty && field.empty) return everything;
  return { empty: false, matches: (object) => label.matches(object) && field.matches(object) };
}
