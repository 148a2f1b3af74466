// Owns: parsing and matching of label selectors (the k8s.io/apimachinery/pkg/labels grammar:
// `=`, `==`, `!=`, `in`, `notin`, exists, `!key`) and field selectors (`=`, `==`, `!=` on the
// fields a kind supports; metadata.name and metadata.namespace for every kind). A selector that
// does not parse is a 400, never silently ignored.
import type { KubeObject } from '../actors/index.ts';
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

const labelKeyPattern = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const labelValuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

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

function checkKey(key: string, selector: string): string {
  if (!labelKeyPattern.test(key) || key.length > 316) {
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  }
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!labelValuePattern.test(value) || value.length > 63) {
    throw badRequest(`unable to parse requirement: invalid label value: "${value}" in selector "${selector}"`);
  }
  return value;
}

function parseLabelRequirement(part: string, selector: string): Requirement {
  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (setMatch) {
    const values = setMatch[3]!.split(',').map((value) => checkValue(value.trim(), selector));
    return { operator: setMatch[2] === 'in' ? 'in' : 'notIn', key: checkKey(setMatch[1]!, selector), values };
  }
  const comparison = /^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
  if (comparison) {
    const operator = comparison[2] === '!=' ? 'notEquals' : 'equals';
    return { operator, key: checkKey(comparison[1]!, selector), value: checkValue(comparison[3]!.trim(), selector) };
  }
  if (part.startsWith('!')) return { operator: 'doesNotExist', key: checkKey(part.slice(1).trim(), selector) };
  return { operator: 'exists', key: checkKey(part, selector) };
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
    return parseLabelRequirement(part, selector);
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
