// Owns: the CRD-time checks of x-kubernetes-validations (kube's apiextensions validation of a
// CRD's openAPIV3Schema): each rule's shape (rule, message, messageExpression, reason,
// fieldPath), compile errors, messageExpression errors, transition-rule restrictions, the static
// cost of each rule times its node's cardinality against the per-expression limit, and the total
// of the whole schema against the per-CRD limit, as kube's field errors.

import type { StatusCause } from '../../status.ts';
import { compileRules, compileSchemaNode, expressionCost } from './compile.ts';
import type { CompiledNode, CompiledSchemaRules } from './compile.ts';
import { costErrorMessage } from './cost.ts';
import { FieldPathError, validFieldPath } from './field-path.ts';
import { goQuote } from './library.ts';
import { rulesOf, schemaDeclType } from './schema.ts';
import type { CelSchema, CelValidationRule } from './schema.ts';

/** kube's StaticEstimatedCostLimit: the largest estimated cost of one expression. */
export const staticEstimatedCostLimit = 10_000_000;
/** kube's StaticEstimatedCRDCostLimit: the largest estimated cost of all rules of a schema. */
export const staticEstimatedCrdCostLimit = 100_000_000;

const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

function required(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueRequired', message: `Required value: ${detail}`, field };
}

function invalid(field: string, value: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${detail}`, field };
}

function internal(field: string, detail: string): StatusCause {
  return { reason: 'InternalError', message: `Internal error: ${detail}`, field };
}

/** Go's %#v of an apiextensions.ValidationRule (a set pointer prints as an address; Go prints a real one). */
export function goValidationRule(rule: CelValidationRule): string {
  const reason = rule.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : '(*apiextensions.FieldValueErrorReason)(0xc000000000)';
  const optionalOldSelf = rule.optionalOldSelf === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)';
  return `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? '')}, Message:${goQuote(rule.message ?? '')}, MessageExpression:${goQuote(rule.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(rule.fieldPath ?? '')}, OptionalOldSelf:${optionalOldSelf}}`;
}

function hasNewlines(text: string): boolean {
  return /[\n\r]/.test(text);
}

interface RuleCost {
  readonly field: string;
  readonly cost: bigint;
}

interface Walk {
  readonly compiled: CompiledSchemaRules;
  readonly schemaErrors: StatusCause[];
  readonly celErrors: StatusCause[];
  total: bigint;
  readonly mostExpensive: RuleCost[];
}

const uint64Max = (1n << 64n) - 1n;

function observe(walk: Walk, field: string, cost: bigint): void {
  walk.total = walk.total + cost > uint64Max ? uint64Max : walk.total + cost;
  if (cost < BigInt(staticEstimatedCrdCostLimit / 100)) return;
  walk.mostExpensive.push({ field, cost });
  walk.mostExpensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
  if (walk.mostExpensive.length > 4) walk.mostExpensive.length = 4;
}

/** kube's extractMaxElements: how many times a child may occur per occurrence of its parent (undefined: unbounded). */
function maxElements(schema: CelSchema): bigint | undefined {
  switch (schema.type) {
    case 'object':
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
        return schema.maxProperties === undefined ? undefined : BigInt(Math.max(0, schema.maxProperties));
      }
      return 1n;
    case 'array':
      return schema.maxItems === undefined ? undefined : BigInt(Math.max(0, schema.maxItems));
    default:
      return 1n;
  }
}

function childCardinality(parent: CelSchema, cardinality: bigint | undefined): bigint | undefined {
  if (cardinality === undefined) return undefined;
  const elements = maxElements(parent);
  if (elements === undefined) return undefined;
  const product = cardinality * elements;
  return product > uint64Max ? uint64Max : product;
}

function fieldPathValid(schema: CelSchema, path: string): boolean {
  try {
    validFieldPath(path, schema);
    return true;
  } catch (error) {
    if (error instanceof FieldPathError) return false;
    throw error;
  }
}

function ruleShapeErrors(rules: readonly CelValidationRule[], schema: CelSchema, path: string): StatusCause[] {
  const errors: StatusCause[] = [];
  rules.forEach((rule, index) => {
    const at = `${path}.x-kubernetes-validations[${index}]`;
    const trimmedRule = (rule.rule ?? '').trim();
    const message = rule.message ?? '';
    const trimmedMessage = message.trim();
    if (trimmedRule.length === 0) errors.push(required(`${at}.rule`, 'rule is not specified'));
    else if (message.length > 0 && trimmedMessage.length === 0) errors.push(invalid(`${at}.message`, goQuote(message), 'message must be non-empty if specified'));
    else if (hasNewlines(trimmedMessage)) errors.push(invalid(`${at}.message`, goQuote(message), 'message must not contain line breaks'));
    else if (hasNewlines(trimmedRule) && trimmedMessage.length === 0) errors.push(required(`${at}.message`, 'message must be specified if rule contains line breaks'));
    const messageExpression = rule.messageExpression ?? '';
    if (messageExpression.length > 0 && messageExpression.trim().length === 0) {
      errors.push(required(`${at}.messageExpression`, 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && !supportedReasons.includes(rule.reason)) {
      errors.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${goQuote(rule.reason)}: supported values: ${supportedReasons.map((reason) => `"${reason}"`).join(', ')}`,
        field: `${at}.reason`,
      });
    }
    const fieldPath = rule.fieldPath ?? '';
    if (fieldPath.length > 0 && fieldPath.trim().length === 0) errors.push(invalid(`${at}.fieldPath`, goQuote(fieldPath), 'fieldPath must be non-empty if specified'));
    if (hasNewlines(fieldPath)) errors.push(invalid(`${at}.fieldPath`, goQuote(fieldPath), 'fieldPath must not contain line breaks'));
    if (fieldPath.length > 0 && !fieldPathValid(schema, fieldPath)) errors.push(invalid(`${at}.fieldPath`, goQuote(fieldPath), 'fieldPath must be a valid path'));
  });
  return errors;
}

function compiledNodeOf(walk: Walk, schema: CelSchema, isResourceRoot: boolean): CompiledNode | string {
  const node = walk.compiled.bySchema.get(schema);
  if (node !== undefined) return node;
  if (schemaDeclType(schema, isResourceRoot) === undefined) return 'unable to convert structural schema to CEL declarations';
  return compileSchemaNode(schema, isResourceRoot).bySchema.get(schema) ?? 'unable to convert structural schema to CEL declarations';
}

function celRuleErrors(walk: Walk, node: CompiledNode, schema: CelSchema, path: string, cardinality: bigint | undefined, oldSelfForbiddenAt: string | undefined): void {
  node.rules.forEach((compiled, index) => {
    const at = `${path}.x-kubernetes-validations[${index}]`;
    const rule = compiled.rule;
    const cost = expressionCost(compiled.maxCost, cardinality, compiled.maxCardinality);
    if (cost > BigInt(staticEstimatedCostLimit)) walk.celErrors.push(forbidden(`${at}.rule`, costErrorMessage('estimated rule cost', cost, staticEstimatedCostLimit)));
    observe(walk, `${at}.rule`, cost);
    if (compiled.error !== undefined) {
      if (compiled.error.type === 'Required') walk.celErrors.push(required(`${at}.rule`, compiled.error.detail));
      else walk.celErrors.push(invalid(`${at}.rule`, goValidationRule(rule), compiled.error.detail));
    }
    if (compiled.messageExpressionError !== undefined) {
      walk.celErrors.push(invalid(`${at}.messageExpression`, goValidationRule(rule), compiled.messageExpressionError.detail));
    } else if (compiled.messageExpression !== undefined) {
      if (compiled.messageExpressionMaxCost > BigInt(staticEstimatedCostLimit)) {
        walk.celErrors.push(forbidden(`${at}.messageExpression`, costErrorMessage('estimated messageExpression cost', compiled.messageExpressionMaxCost, staticEstimatedCostLimit)));
      }
      observe(walk, `${at}.messageExpression`, compiled.messageExpressionMaxCost);
    }
    if (compiled.usesOldSelf) {
      if (oldSelfForbiddenAt !== undefined) {
        walk.celErrors.push(invalid(`${at}.rule`, goQuote(rule.rule ?? ''), `oldSelf cannot be used on the uncorrelatable portion of the schema within ${oldSelfForbiddenAt}`));
      }
    } else if (rule.optionalOldSelf !== undefined) {
      walk.celErrors.push(invalid(`${at}.optionalOldSelf`, String(rule.optionalOldSelf), 'may not be set if oldSelf is not used in rule'));
    }
  });
}

/** Walks a schema node after its children, as kube does; returns whether the subtree has schema errors. */
function walkNode(walk: Walk, schema: CelSchema, path: string, cardinality: bigint | undefined, oldSelfForbiddenAt: string | undefined, isResourceRoot: boolean): boolean {
  const schemaErrorsBefore = walk.schemaErrors.length;
  const additional = schema.additionalProperties;
  if (typeof additional === 'object') {
    walkNode(walk, additional, `${path}.additionalProperties`, childCardinality(schema, cardinality), oldSelfForbiddenAt, additional['x-kubernetes-embedded-resource'] === true);
  }
  const mapType = schema['x-kubernetes-map-type'];
  const correlatable = mapType === undefined || mapType === 'granular' || mapType === 'atomic';
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    walkNode(walk, property, `${path}.properties[${name}]`, childCardinality(schema, cardinality),
      oldSelfForbiddenAt ?? (correlatable ? undefined : path), property['x-kubernetes-embedded-resource'] === true);
  }
  if (schema.items !== undefined) {
    const forbid = schema['x-kubernetes-list-type'] !== 'map' ? path : undefined;
    walkNode(walk, schema.items, `${path}.items`, childCardinality(schema, cardinality), oldSelfForbiddenAt ?? forbid, schema.items['x-kubernetes-embedded-resource'] === true);
  }
  const rules = rulesOf(schema);
  if (rules.length > 0) {
    walk.schemaErrors.push(...ruleShapeErrors(rules, schema, path));
    if (walk.schemaErrors.length === schemaErrorsBefore) {
      const node = compiledNodeOf(walk, schema, isResourceRoot);
      if (typeof node === 'string') {
        walk.celErrors.push(internal(`${path}.x-kubernetes-validations`, `internal error: failed to construct type information for x-kubernetes-validations rules: ${node}`));
      } else if (node.compilationError !== undefined) {
        walk.celErrors.push(internal(`${path}.x-kubernetes-validations`, node.compilationError));
      } else {
        celRuleErrors(walk, node, schema, path, cardinality, oldSelfForbiddenAt);
      }
    }
  }
  return walk.schemaErrors.length > schemaErrorsBefore;
}

/**
 * The CRD-time causes of a (structural) openAPIV3Schema's x-kubernetes-validations at
 * `fieldPath` (e.g. `spec.validation.openAPIV3Schema` or
 * `spec.versions[0].schema.openAPIV3Schema`): rule shape errors first, then compile, cost and
 * transition-rule errors, then the per-CRD total cost.
 */
export function ruleCauses(schema: CelSchema, fieldPath: string): StatusCause[] {
  const walk: Walk = { compiled: compileRules(schema), schemaErrors: [], celErrors: [], total: 0n, mostExpensive: [] };
  walkNode(walk, schema, fieldPath, 1n, undefined, true);
  const causes = [...walk.schemaErrors, ...walk.celErrors];
  if (walk.total > BigInt(staticEstimatedCrdCostLimit)) {
    for (const expensive of walk.mostExpensive) {
      causes.push(forbidden(expensive.field, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    }
    causes.push(forbidden(fieldPath, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', walk.total, staticEstimatedCrdCostLimit)));
  }
  return causes;
}
