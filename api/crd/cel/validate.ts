// Owns: evaluating compiled x-kubernetes-validations rules against a custom resource (kube's
// cel.Validator.Validate): walking objects, maps and lists with kube's field paths, binding
// `self` and (correlated by map key or list-map keys) `oldSelf`, skipping transition rules without
// an old value unless optionalOldSelf, the rule/messageExpression/reason/fieldPath results, and
// the runtime cost limits (per expression and per object) with kube's messages.

import { Optional } from '@marcbachmann/cel-js';
import type { StatusCause } from '../../status.ts';
import { meter, perCallLimit as defaultPerCallLimit } from './compile.ts';
import type { CompiledExpression, CompiledNode, CompiledRule, CompiledSchemaRules } from './compile.ts';
import { goQuote } from './library.ts';
import { escapeProperty } from './schema.ts';
import type { CelValidationRule } from './schema.ts';
import { toCelValue } from './values.ts';
import type { ObjectClass } from './values.ts';

/** kube's celconfig.RuntimeCELCostBudget: the cost all rules of one object may use together. */
export const runtimeCelCostBudget = 10_000_000;
/** kube's celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const maxMessageExpressionSize = 5 * 1024;

export interface ValidateOptions {
  /** The cost budget of all rules of the object (default kube's RuntimeCELCostBudget, 10,000,000). */
  readonly runtimeCostBudget?: number;
  /** The cost limit of one evaluation (default kube's PerCallLimit, 1,000,000). */
  readonly perCallLimit?: number;
  /** The field path of the object's root; kube validates a custom resource at the nil path, printed `<nil>`. */
  readonly fieldPath?: string;
}

type Path = string | undefined;

function child(path: Path, name: string): string {
  return path === undefined ? name : `${path}.${name}`;
}

function keyed(path: Path, key: string | number): string {
  return `${path ?? ''}[${key}]`;
}

function fieldOf(path: Path): string {
  return path ?? '<nil>';
}

function invalid(path: Path, typeLabel: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${goQuote(typeLabel)}: ${detail}`, field: fieldOf(path) };
}

/** kube's fieldErrorForReason. */
function errorForReason(path: Path, typeLabel: string, detail: string, reason: string | undefined): StatusCause {
  switch (reason) {
    case 'FieldValueForbidden': return { reason, message: `Forbidden: ${detail}`, field: fieldOf(path) };
    case 'FieldValueRequired': return { reason, message: `Required value: ${detail}`, field: fieldOf(path) };
    case 'FieldValueDuplicate': return { reason, message: `Duplicate value: ${goQuote(typeLabel)}`, field: fieldOf(path) };
    default: return invalid(path, typeLabel, detail);
  }
}

function ruleErrorString(rule: CelValidationRule): string {
  const message = (rule.message ?? '').trim();
  return message.length > 0 ? message : (rule.rule ?? '').trim();
}

function ruleMessageOrDefault(rule: CelValidationRule): string {
  return (rule.message ?? '').length === 0 ? `failed rule: ${ruleErrorString(rule)}` : rule.message!.trim();
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Evaluation {
  readonly value: unknown;
  readonly error: Error | undefined;
  readonly cost: number;
  readonly exceeded: boolean;
}

function evaluate(expression: CompiledExpression, activation: Readonly<Record<string, unknown>>, limit: number): Evaluation {
  meter.used = 0;
  meter.limit = limit;
  meter.exceeded = false;
  let value: unknown;
  let error: Error | undefined;
  try {
    value = expression.run(activation);
  } catch (thrown) {
    error = thrown instanceof Error ? thrown : new Error(String(thrown));
  }
  const result = { value, error, cost: meter.used, exceeded: meter.exceeded };
  meter.limit = Number.POSITIVE_INFINITY;
  meter.exceeded = false;
  return result;
}

/** The text of an evaluation error as cel-go words it. */
function evaluationErrorText(error: Error): string {
  const summary = (error as { summary?: string }).summary ?? error.message;
  if (/^No such key: /.test(summary)) return summary.replace(/^No such key: (index out of bounds, )?/, (_match, bounds: string | undefined) => (bounds === undefined ? 'no such key: ' : 'index out of bounds: '));
  if (/^found no matching overload/.test(summary)) return `no such overload: ${summary.replace(/^found no matching overload for /, '')}`;
  return summary;
}

interface State {
  budget: number;
  readonly perCallLimit: number;
  readonly classes: ReadonlyMap<string, ObjectClass>;
  readonly causes: StatusCause[];
}

function celValueOf(node: CompiledNode, value: unknown, state: State): unknown {
  return node.declType === undefined ? value : toCelValue(value, node.declType, state.classes);
}

/** Evaluates the node's rules; false when no further rules may run. */
function validateExpressions(node: CompiledNode, path: Path, value: unknown, old: unknown, celSelf: unknown, celOld: unknown, state: State): boolean {
  const label = node.typeLabel;
  if (node.compilationError !== undefined) {
    state.causes.push(invalid(path, label, `rule compiler initialization error: ${node.compilationError}`));
    return true;
  }
  if (node.rules.length === 0) return true;
  if (state.budget <= 0) {
    state.causes.push(invalid(path, label, 'validation failed due to running out of cost budget, no further validation rules will be run'));
    state.budget = -1;
    return false;
  }
  const hasOld = old !== undefined && old !== null;
  const activation: Record<string, unknown> = { self: celSelf };
  if (node.usesOldSelf && hasOld) activation['oldSelf'] = celOld;
  let optionalActivation: Record<string, unknown> | undefined;
  for (const compiled of node.rules) {
    const rule = compiled.rule;
    if (compiled.error !== undefined) {
      state.causes.push(invalid(path, label, `rule compile error: ${compiled.error.detail}`));
      continue;
    }
    const program = compiled.program;
    if (program === undefined) continue;
    const optional = rule.optionalOldSelf === true;
    if (compiled.usesOldSelf && !hasOld && !optional) continue;
    const ruleActivation = optional
      ? (optionalActivation ??= { self: celSelf, oldSelf: hasOld ? Optional.of(celOld) : Optional.none() })
      : activation;
    const result = evaluate(program, ruleActivation, state.perCallLimit);
    if (result.cost > state.budget) {
      state.causes.push(invalid(path, label, 'validation failed due to running out of cost budget, no further validation rules will be run'));
      state.budget = -1;
      return false;
    }
    state.budget -= result.cost;
    if (result.exceeded) {
      state.causes.push(invalid(path, label, `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`));
      state.budget = -1;
      return false;
    }
    if (result.error !== undefined) {
      const text = evaluationErrorText(result.error);
      if (text.startsWith('no such overload')) {
        state.causes.push(invalid(path, label, `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`));
      } else {
        state.causes.push(invalid(path, label, `${text} evaluating rule: ${ruleErrorString(rule)}`));
      }
      continue;
    }
    if (result.value === true) continue;
    const failurePath = compiled.normalizedFieldPath !== undefined && compiled.normalizedFieldPath.length > 0 ? child(path, compiled.normalizedFieldPath) : path;
    if (!reportFailure(compiled, failurePath, label, activation, state)) return false;
  }
  return true;
}

/** Adds the failure of a rule, with its messageExpression's message when that evaluates; false when no further rules may run. */
function reportFailure(compiled: CompiledRule, path: Path, label: string, activation: Readonly<Record<string, unknown>>, state: State): boolean {
  const rule = compiled.rule;
  const messageExpression = compiled.messageExpression;
  if (messageExpression === undefined) {
    state.causes.push(errorForReason(path, label, ruleMessageOrDefault(rule), rule.reason));
    return true;
  }
  const result = evaluate(messageExpression, activation, state.perCallLimit);
  if (result.cost > state.budget) {
    state.causes.push(invalid(path, label, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'));
    state.budget = -1;
    return false;
  }
  if (result.exceeded) {
    state.causes.push(invalid(path, label, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(messageExpression.source)}`));
    state.budget = -1;
    return false;
  }
  state.budget -= result.cost;
  let message: string | undefined;
  if (result.error === undefined && typeof result.value === 'string') {
    const trimmed = result.value.trim();
    if (trimmed.length > 0 && new TextEncoder().encode(trimmed).length <= maxMessageExpressionSize && !trimmed.includes('\n')) message = trimmed;
  }
  state.causes.push(errorForReason(path, label, message ?? ruleMessageOrDefault(rule), rule.reason));
  return true;
}

/** Old list items by the values of their list-map keys (kube's makeMapList); empty for other lists. */
function correlatedItems(node: CompiledNode, old: unknown): ((item: unknown) => unknown) {
  const keys = node.schema['x-kubernetes-list-map-keys'];
  if (node.schema['x-kubernetes-list-type'] !== 'map' || keys === undefined || keys.length === 0 || !Array.isArray(old)) return () => undefined;
  const keyOf = (item: unknown): string | undefined => (isRecord(item) ? JSON.stringify(keys.map((key) => item[key] ?? null)) : undefined);
  const byKey = new Map<string, unknown>();
  for (const item of old) {
    const key = keyOf(item);
    if (key !== undefined && !byKey.has(key)) byKey.set(key, item);
  }
  return (item) => {
    const key = keyOf(item);
    return key === undefined ? undefined : byKey.get(key);
  };
}

function mapIsCorrelatable(node: CompiledNode): boolean {
  const mapType = node.schema['x-kubernetes-map-type'];
  return mapType === undefined || mapType === 'granular' || mapType === 'atomic';
}

/** A child's already converted CEL value, when the parent's conversion holds it. */
function celChild(parent: unknown, key: string | number, kind: 'property' | 'item' | 'entry'): unknown {
  if (parent === undefined || parent === null) return undefined;
  if (kind === 'item') return Array.isArray(parent) ? parent[key as number] : undefined;
  if (kind === 'entry') return parent instanceof Map ? parent.get(key as string) : undefined;
  const escaped = escapeProperty(key as string);
  return escaped === undefined ? undefined : (parent as Record<string, unknown>)[escaped];
}

function validateNode(node: CompiledNode, path: Path, value: unknown, old: unknown, celSelf: unknown, celOld: unknown, state: State): boolean {
  if (value === undefined || value === null) return true;
  let self = celSelf;
  let oldSelf = celOld;
  if (node.rules.length > 0) {
    self ??= celValueOf(node, value, state);
    if (old !== undefined && old !== null) oldSelf ??= celValueOf(node, old, state);
    if (!validateExpressions(node, path, value, old, self, oldSelf, state)) return false;
  }
  if (Array.isArray(value)) {
    const items = node.items;
    if (items === undefined) return true;
    const oldItem = correlatedItems(node, old);
    for (let index = 0; index < value.length; index += 1) {
      const item = value[index];
      const previous = oldItem(item);
      const celItem = celChild(self, index, 'item');
      if (!validateNode(items, keyed(path, index), item, previous, celItem, undefined, state)) return false;
    }
    return true;
  }
  if (isRecord(value)) {
    const oldRecord = isRecord(old) && mapIsCorrelatable(node) ? old : undefined;
    const additional = node.additionalProperties;
    if (additional !== undefined) {
      for (const [key, entry] of Object.entries(value)) {
        if (!validateNode(additional, keyed(path, key), entry, oldRecord?.[key], celChild(self, key, 'entry'), celChild(oldSelf, key, 'entry'), state)) return false;
      }
    }
    if (node.properties.size > 0) {
      for (const [key, entry] of Object.entries(value)) {
        const property = node.properties.get(key);
        if (property === undefined) continue;
        if (!validateNode(property, child(path, key), entry, oldRecord?.[key], celChild(self, key, 'property'), celChild(oldSelf, key, 'property'), state)) return false;
      }
    }
  }
  return true;
}

/**
 * Evaluates every compiled rule at every node of a custom resource (and, for transition rules,
 * its old object on update) and returns kube's causes. Evaluation stops, with kube's message,
 * when the object's runtime cost budget or an expression's cost limit is used up.
 */
export function validateWithRules(compiled: CompiledSchemaRules, object: unknown, oldObject: unknown, options: ValidateOptions = {}): StatusCause[] {
  const root = compiled.root;
  if (root === undefined) return [];
  const state: State = {
    budget: options.runtimeCostBudget ?? runtimeCelCostBudget,
    perCallLimit: options.perCallLimit ?? defaultPerCallLimit,
    classes: compiled.classes,
    causes: [],
  };
  validateNode(root, options.fieldPath, object, oldObject, undefined, undefined, state);
  return state.causes;
}
