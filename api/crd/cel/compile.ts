// Owns: compiling the x-kubernetes-validations rules of a CRD schema: one engine environment per
// schema (its object types registered once), `self`/`oldSelf` typed from each rule's node,
// cel-go-style compile errors (`ERROR: <input>:1:6: undefined field 'x'` with the source snippet),
// the RE2 `matches` and compile-time regex literal checks, the static cost of each rule and
// messageExpression, and the instrumentation that meters evaluation (a per-node cost charged by a
// metered evaluator, size-dependent call costs charged by wrapped call handles) so a runaway
// expression is stopped. Compiled rules are cached per schema object.

import type { Environment } from '@marcbachmann/cel-js';
import { estimateCost, multiplyWithOverflowGuard, nodeCost, callCost, operatorCost } from './cost.ts';
import { celTypeName, visitNodes } from './engine.ts';
import type { ComprehensionArgs, EngineNode, EngineType } from './engine.ts';
import { FieldPathError, validFieldPath } from './field-path.ts';
import { baseEnvironment, functionNames, matchesRe2 } from './library.ts';
import { re2Problem } from './regex.ts';
import { escapeProperty, maxRequestSizeBytes, rulesOf, schemaDeclType, hasValidations } from './schema.ts';
import type { CelSchema, CelValidationRule, DeclType } from './schema.ts';
import { CelObject, celEquals, parseDuration } from './values.ts';
import type { ObjectClass } from './values.ts';

/** kube's celconfig.PerCallLimit: the runtime cost limit of one expression evaluation. */
export const perCallLimit = 1_000_000;

/** An error of a rule's compilation (kube's apiservercel.Error). */
export interface RuleError {
  readonly type: 'Invalid' | 'Required' | 'Internal';
  readonly detail: string;
}

/** A compiled expression: call it with the activation ({self, oldSelf}). */
export interface CompiledExpression {
  readonly source: string;
  readonly ast: EngineNode;
  run(activation: Readonly<Record<string, unknown>>): unknown;
  /** cel-go's estimated max cost (before multiplying by the node's cardinality). */
  readonly maxCost: bigint;
}

/** The compilation of one x-kubernetes-validations rule (kube's CompilationResult). */
export interface CompiledRule {
  readonly rule: CelValidationRule;
  readonly program: CompiledExpression | undefined;
  readonly error: RuleError | undefined;
  readonly usesOldSelf: boolean;
  readonly maxCost: bigint;
  /** The worst-case number of evaluations under unbounded lists and maps (3 MiB / (min size + 1)). */
  readonly maxCardinality: bigint;
  readonly messageExpression: CompiledExpression | undefined;
  readonly messageExpressionError: RuleError | undefined;
  readonly messageExpressionMaxCost: bigint;
  /** The rule's fieldPath as a field path (`spec.foo`), when it is valid. */
  readonly normalizedFieldPath: string | undefined;
}

/** The rules of one schema node and of the nodes below it that have rules. */
export interface CompiledNode {
  readonly schema: CelSchema;
  readonly declType: DeclType | undefined;
  /** The schema type, as kube's field errors print it (`"object"`). */
  readonly typeLabel: string;
  readonly rules: readonly CompiledRule[];
  /** Set when the node's rules could not be compiled at all (no CEL type). */
  readonly compilationError: string | undefined;
  readonly properties: ReadonlyMap<string, CompiledNode>;
  readonly items: CompiledNode | undefined;
  readonly additionalProperties: CompiledNode | undefined;
  readonly usesOldSelf: boolean;
}

/** Every compiled rule of a schema: the result of compileRules. */
export interface CompiledSchemaRules {
  readonly schema: CelSchema;
  readonly root: CompiledNode | undefined;
  /** Compiled nodes by the schema node they belong to. */
  readonly bySchema: ReadonlyMap<CelSchema, CompiledNode>;
  /** The classes of the object types, by engine type name. */
  readonly classes: ReadonlyMap<string, ObjectClass>;
}

/** The state of the metered evaluation under way (evaluation is synchronous, so one suffices). */
export interface Meter {
  used: number;
  limit: number;
  exceeded: boolean;
}

export const meter: Meter = { used: 0, limit: Number.POSITIVE_INFINITY, exceeded: false };

/** Thrown into the engine when the meter's limit is passed. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

function charge(amount: number): void {
  if ((meter.used += amount) > meter.limit) {
    meter.exceeded = true;
    throw new CostLimitExceeded();
  }
}

interface EngineEvaluator {
  run(node: EngineNode, context: unknown): unknown;
}

function meteredRun(this: EngineEvaluator, node: EngineNode, context: unknown): unknown {
  if ((meter.used += node.kc ?? 1) > meter.limit) {
    meter.exceeded = true;
    throw new CostLimitExceeded();
  }
  return node.evaluate(this, node, context);
}

/** Replaces the evaluator of an environment by the metered one (the engine recurses through evaluator.run). */
function instrumentEnvironment(env: Environment): void {
  const probe = env.parse('true');
  probe.check();
  let captured: EngineEvaluator | undefined;
  (probe.ast as unknown as EngineNode).evaluate = function capture(evaluator: unknown): unknown {
    captured = evaluator as EngineEvaluator;
    return true;
  };
  probe();
  if (captured === undefined || typeof captured.run !== 'function') throw new Error('cel engine: evaluator not reachable; the runtime cost budget cannot be enforced');
  captured.run = meteredRun;
}

// ---- compile errors in cel-go's form ----

function lineAndColumn(input: string, offset: number): { line: number; column: number; text: string } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < input.length; index += 1) {
    if (input[index] === '\n') {
      line += 1;
      lineStart = index + 1;
    }
  }
  let lineEnd = input.indexOf('\n', lineStart);
  if (lineEnd < 0) lineEnd = input.length;
  const column = Array.from(input.slice(lineStart, Math.min(offset, lineEnd))).length;
  return { line, column, text: input.slice(lineStart, lineEnd) };
}

/** cel-go's Error.ToDisplayString: `ERROR: <input>:L:C: message` and the snippet with a caret. */
function displayIssue(input: string, offset: number, message: string): string {
  const { line, column, text } = lineAndColumn(input, offset);
  let result = `ERROR: <input>:${line}:${column + 1}: ${message}`;
  const snippet = text.replace(/\t/g, ' ');
  const chars = Array.from(snippet);
  let indicator = '';
  for (let index = 0; index < column && index < chars.length; index += 1) indicator += (chars[index]!.codePointAt(0) ?? 0) > 0x7f ? '\uff0e' : '.';
  indicator += (chars[column]?.codePointAt(0) ?? 0) > 0x7f ? '\uff3e' : '^';
  result += `\n | ${snippet}\n | ${indicator}`;
  return result;
}

const operatorFunctions: Readonly<Record<string, string>> = {
  '==': '_==_', '!=': '_!=_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '+': '_+_', '-': '_-_', '*': '_*_',
  '/': '_/_', '%': '_%_', in: '@in', '!': '!_',
};

interface EngineError {
  readonly code?: string;
  readonly summary?: string;
  readonly message: string;
  readonly node?: { readonly pos?: number; readonly op?: string; readonly args?: unknown; readonly start?: number; readonly end?: number };
  readonly range?: { readonly start: number; readonly end: number };
}

/** Where cel-go reports an error of this node: the dot of a select, the operator of a binary, the paren of a call. */
function issueOffset(input: string, error: EngineError): number {
  const node = error.node;
  const offset = node?.pos ?? error.range?.start ?? 0;
  if (node === undefined) return offset;
  switch (node.op) {
    case '.': return Math.max(0, offset - 1);
    case '.?': return Math.max(0, offset - 2);
    case 'call': {
      const paren = input.indexOf('(', offset);
      return paren < 0 ? offset : paren;
    }
    case 'rcall': {
      const args = node.args as readonly unknown[];
      const receiver = args[1] as { end?: number } | undefined;
      const paren = input.indexOf('(', receiver?.end ?? offset);
      return paren < 0 ? offset : paren;
    }
    default: {
      if (node.op !== undefined && operatorFunctions[node.op] !== undefined && Array.isArray(node.args)) {
        const left = node.args[0] as { end?: number } | undefined;
        const at = input.indexOf(node.op, left?.end ?? offset);
        if (at >= 0) return at;
      }
      return offset;
    }
  }
}

/** The engine's type-check message in cel-go's words. */
function celMessage(error: EngineError, known: ReadonlySet<string>): string {
  const summary = error.summary ?? error.message;
  let match: RegExpExecArray | null;
  switch (error.code) {
    case 'no_such_key':
      if ((match = /^No such key: (.*)$/.exec(summary)) !== null) return `undefined field '${match[1]}'`;
      break;
    case 'unknown_variable':
      if ((match = /^Unknown variable: (.*)$/.exec(summary)) !== null) return `undeclared reference to '${match[1]}' (in container '')`;
      break;
    case 'no_such_overload':
      if ((match = /^no such overload: (.+?) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/.exec(summary)) !== null) {
        return `found no matching overload for '${operatorFunctions[match[2]!]}' applied to '(${celTypeName(match[1]!)}, ${celTypeName(match[3]!)})'`;
      }
      if ((match = /^no such overload: ([-!])(.+)$/.exec(summary)) !== null) return `found no matching overload for '${match[1]}_' applied to '(${celTypeName(match[2]!)})'`;
      break;
    case 'no_matching_overload':
      if ((match = /^found no matching overload for '(?:(.+)\.)?([A-Za-z_][A-Za-z0-9_]*)\((.*)\)'$/.exec(summary)) !== null) {
        const name = match[2]!;
        const receiver = match[1];
        const namespace = receiver !== undefined && /^kubernetes\.\w+Namespace$|^OptionalNamespace$|^CelNamespace$/.test(receiver);
        if (!known.has(name)) return `undeclared reference to '${name}' (in container '')`;
        const types = (match[3] === '' ? [] : match[3]!.split(/, (?![^<]*>)/)).map(celTypeName);
        const target = receiver !== undefined && !namespace ? `${celTypeName(receiver)}.` : '';
        return `found no matching overload for '${namespace ? `${receiver!.replace(/^kubernetes\.|Namespace$/g, '').toLowerCase()}.` : ''}${name}' applied to '${target}(${types.join(', ')})'`;
      }
      break;
    case 'heterogeneous_list_element': case 'heterogeneous_map_key': case 'heterogeneous_map_value':
      if ((match = /expected type '(.+)' but found '(.+)'$/.exec(summary)) !== null) return `expected type '${celTypeName(match[1]!)}' but found '${celTypeName(match[2]!)}'`;
      break;
    default:
      break;
  }
  if (error.code !== undefined && /^(parse_error|unexpected_token|unexpected_character|expected_token|unterminated|invalid_|newline|reserved|limit_exceeded)/.test(error.code) && (error as { name?: string }).name === 'ParseError') {
    return `Syntax error: ${summary}`;
  }
  return summary;
}

// ---- compiling ----

/** The engine type of a declaration type. */
function engineTypeName(type: DeclType): string {
  switch (type.kind) {
    case 'object': return type.objectTypeName!;
    case 'map': return `map<string, ${engineTypeName(type.elem!)}>`;
    case 'list': return `list<${engineTypeName(type.elem!)}>`;
    case 'timestamp': return 'google.protobuf.Timestamp';
    case 'duration': return 'google.protobuf.Duration';
    default: return type.kind;
  }
}

interface NodePlan {
  readonly schema: CelSchema;
  readonly declType: DeclType | undefined;
  readonly properties: Map<string, NodePlan>;
  items: NodePlan | undefined;
  additionalProperties: NodePlan | undefined;
}

/** kube's validator(): the nodes with rules at or below them, each with its declaration type. */
function planNode(schema: CelSchema, declType: DeclType | undefined): NodePlan | undefined {
  if (!hasValidations(schema)) return undefined;
  const plan: NodePlan = { schema, declType, properties: new Map(), items: undefined, additionalProperties: undefined };
  if (schema.items !== undefined) plan.items = planNode(schema.items, declType?.elem);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    let fieldType: DeclType | undefined;
    const escaped = escapeProperty(name);
    if (escaped !== undefined) {
      fieldType = declType?.fields.get(escaped)?.type;
      if (fieldType === undefined) continue;
    } else {
      fieldType = schemaDeclType(property, property['x-kubernetes-embedded-resource'] === true);
      if (fieldType === undefined) continue;
    }
    const child = planNode(property, fieldType);
    if (child !== undefined) plan.properties.set(name, child);
  }
  if (typeof schema.additionalProperties === 'object') plan.additionalProperties = planNode(schema.additionalProperties, declType?.elem);
  return plan;
}

function collectObjectTypes(type: DeclType | undefined, name: string, into: Map<string, DeclType>): void {
  if (type === undefined) return;
  if (type.kind === 'object') {
    if (type.objectTypeName !== undefined) return;
    type.objectTypeName = name;
    into.set(name, type);
    for (const [field, fieldDecl] of type.fields) collectObjectTypes(fieldDecl.type, `${name}.${field}`, into);
  } else if (type.kind === 'list') collectObjectTypes(type.elem, `${name}.__idx`, into);
  else if (type.kind === 'map') collectObjectTypes(type.elem, `${name}.__elem`, into);
}

function collectPlanTypes(plan: NodePlan, into: Map<string, DeclType>, counter: { next: number }): void {
  if (plan.declType !== undefined) collectObjectTypes(plan.declType, `selfType${counter.next++}`, into);
  for (const child of plan.properties.values()) collectPlanTypes(child, into, counter);
  if (plan.items !== undefined) collectPlanTypes(plan.items, into, counter);
  if (plan.additionalProperties !== undefined) collectPlanTypes(plan.additionalProperties, into, counter);
}

interface CompileContext {
  readonly crdEnvironment: Environment;
  readonly known: ReadonlySet<string>;
}

type ExpressionResult = { readonly expression: CompiledExpression } | { readonly error: string };

function nodeArgs(node: EngineNode): readonly unknown[] {
  return node.args as readonly unknown[];
}

/** An RFC 3339 timestamp within CEL's range (years 1 to 9999). */
function validTimestamp(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/.exec(text);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const days = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return day <= days[month - 1]!;
}

/** Compile-time checks the engine does not make: RE2 literals of matches (cel-go's ValidateRegexLiterals), `[]` on objects. */
function astProblems(ast: EngineNode): { offset: number; message: string } | undefined {
  let problem: { offset: number; message: string } | undefined;
  visitNodes(ast, (node) => {
    if (problem !== undefined) return;
    if ((node.op === 'rcall' || node.op === 'call') && nodeArgs(node)[0] === 'matches') {
      const args = (node.op === 'rcall' ? nodeArgs(node)[2] : nodeArgs(node)[1]) as readonly EngineNode[];
      const pattern = args[args.length - 1];
      if (pattern !== undefined && pattern.op === 'value' && typeof pattern.args === 'string' && re2Problem(pattern.args) !== undefined) {
        problem = { offset: pattern.pos, message: 'invalid matches argument' };
      }
    }
    if (node.op === 'call' && (nodeArgs(node)[0] === 'duration' || nodeArgs(node)[0] === 'timestamp')) {
      const [argument] = nodeArgs(node)[1] as readonly EngineNode[];
      if (argument !== undefined && argument.op === 'value' && typeof argument.args === 'string') {
        const duration = nodeArgs(node)[0] === 'duration';
        if (duration ? parseDuration(argument.args) === undefined || /[dw]/.test(argument.args) : !validTimestamp(argument.args)) {
          problem = { offset: argument.pos, message: duration ? 'invalid duration argument' : 'invalid timestamp' };
        }
      }
    }
    if (node.op === '[]') {
      const [container, index] = nodeArgs(node) as [EngineNode, EngineNode];
      if (container.checkedType?.kind === 'message') {
        problem = {
          offset: node.input.indexOf('[', container.end),
          message: `found no matching overload for '_[_]' applied to '(${celTypeName(container.checkedType.name)}, ${celTypeName(index.checkedType?.name ?? 'dyn')})'`,
        };
      }
    }
  });
  return problem;
}

const meteredOperators = new Set(['==', '!=', '<', '<=', '>', '>=', '+', 'in']);
const meteredCalls = new Set([
  'isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf', 'url', 'lowerAscii', 'upperAscii', 'substring', 'trim', 'replace', 'split',
  'join', 'find', 'findAll', 'cidr', 'isIP', 'isCIDR', 'quantity', 'isQuantity', 'isCanonical', 'ip', 'containsIP', 'containsCIDR',
  'validate', 'startsWith', 'endsWith', 'format', 'quote', 'contains',
]);

function isSizable(type: EngineType | undefined): boolean {
  if (type === undefined) return true;
  return !['int', 'uint', 'double', 'bool', 'null', 'type'].includes(type.name);
}

/** Sets each node's runtime cost and wraps the call handles whose cost depends on their arguments. */
function instrumentAst(ast: EngineNode): void {
  visitNodes(ast, (node) => {
    node.kc = nodeCost(node, undefined);
  });
  visitNodes(ast, (node) => {
    if (node.op === 'comprehension') {
      const comprehension = node.args as ComprehensionArgs;
      comprehension.step.kc = nodeCost(comprehension.step, comprehension);
      return;
    }
    const original = node.handle;
    if (original === undefined || node.meta.alternate !== undefined || node.meta.macro !== undefined) return;
    if (node.op === 'rcall' || node.op === 'call') {
      const name = nodeArgs(node)[0] as string;
      if (name === 'matches') {
        node.handle = (values: unknown, ...rest: unknown[]): unknown => {
          const list = values as readonly unknown[];
          if (typeof list[0] !== 'string' || typeof list[1] !== 'string') return original(values, ...rest);
          charge(callCost('matches', list, undefined) - 1);
          return matchesRe2(list[0], list[1]);
        };
      } else if (meteredCalls.has(name)) {
        node.handle = (values: unknown, ...rest: unknown[]): unknown => {
          const result = original(values, ...rest);
          const extra = callCost(name, values as readonly unknown[], result) - 1;
          if (extra > 0) charge(extra);
          return result;
        };
      }
      return;
    }
    if (meteredOperators.has(node.op) && Array.isArray(node.args)) {
      const [left, right] = node.args as [EngineNode, EngineNode];
      if (!isSizable(left.checkedType) && !isSizable(right.checkedType)) return;
      const op = node.op;
      node.handle = (l: unknown, r: unknown, ...rest: unknown[]): unknown => {
        const result = original(l, r, ...rest);
        const extra = operatorCost(op, l, r) - 1;
        if (extra > 0) charge(extra);
        return result;
      };
    }
  });
}

function compileExpression(env: Environment, context: CompileContext, source: string, expected: 'bool' | 'string', root: DeclType, prefix: string): ExpressionResult {
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env.parse(source);
  } catch (error) {
    const engineError = error as EngineError;
    return { error: `${prefix}compilation failed: ${displayIssue(source, issueOffset(source, engineError), celMessage(engineError, context.known))}` };
  }
  const checked = parsed.check();
  if (!checked.valid) {
    const engineError = checked.error as unknown as EngineError;
    return { error: `${prefix}compilation failed: ${displayIssue(source, issueOffset(source, engineError), celMessage(engineError, context.known))}` };
  }
  const ast = parsed.ast as unknown as EngineNode;
  const problem = astProblems(ast);
  if (problem !== undefined) return { error: `${prefix}compilation failed: ${displayIssue(source, problem.offset, problem.message)}` };
  if (checked.type !== expected) {
    return { error: expected === 'bool' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string' };
  }
  instrumentAst(ast);
  const maxCost = estimateCost(ast, root).max;
  const rootCost = ast.kc ?? 0;
  return {
    expression: {
      source,
      ast,
      maxCost,
      run(activation) {
        charge(rootCost);
        return parsed(activation);
      },
    },
  };
}

function usesOldSelf(ast: EngineNode): boolean {
  let found = false;
  visitNodes(ast, (node) => {
    if (node.op === 'id' && node.args === 'oldSelf') found = true;
  });
  return found;
}

function maxCardinality(minSerializedSize: number): bigint {
  return BigInt(Math.floor(maxRequestSizeBytes / (minSerializedSize + 1)));
}

function nodeEnvironment(context: CompileContext, type: string, optionalOldSelf: boolean): Environment {
  const env = context.crdEnvironment.clone();
  env.registerVariable('self', type);
  env.registerVariable('oldSelf', optionalOldSelf ? `optional<${type}>` : type);
  instrumentEnvironment(env);
  return env;
}

function compileNodeRules(plan: NodePlan, context: CompileContext): { rules: CompiledRule[]; error: string | undefined } {
  const rules = rulesOf(plan.schema);
  if (rules.length === 0) return { rules: [], error: undefined };
  const declType = plan.declType;
  if (declType === undefined) return { rules: [], error: 'failed to convert to declType for CEL validation rules' };
  const typeName = engineTypeName(declType);
  let plain: Environment | undefined;
  let optional: Environment | undefined;
  const cardinality = maxCardinality(declType.minSerializedSize);
  const compiled = rules.map((rule): CompiledRule => {
    const empty: CompiledRule = {
      rule, program: undefined, error: undefined, usesOldSelf: false, maxCost: 0n, maxCardinality: 0n,
      messageExpression: undefined, messageExpressionError: undefined, messageExpressionMaxCost: 0n, normalizedFieldPath: undefined,
    };
    const source = rule.rule ?? '';
    if (source.trim() === '') return empty;
    const env = rule.optionalOldSelf === true
      ? (optional ??= nodeEnvironment(context, typeName, true))
      : (plain ??= nodeEnvironment(context, typeName, false));
    const result = compileExpression(env, context, source, 'bool', declType, '');
    if ('error' in result) return { ...empty, error: { type: 'Invalid', detail: result.error } };
    const program = result.expression;
    let messageExpression: CompiledExpression | undefined;
    let messageExpressionError: RuleError | undefined;
    if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
      const message = compileExpression(env, context, rule.messageExpression, 'string', declType, 'messageExpression ');
      if ('error' in message) messageExpressionError = { type: 'Invalid', detail: message.error };
      else messageExpression = message.expression;
    }
    let normalizedFieldPath: string | undefined;
    if (rule.fieldPath !== undefined && rule.fieldPath !== '') {
      try {
        normalizedFieldPath = validFieldPath(rule.fieldPath, plan.schema).path;
      } catch (error) {
        if (!(error instanceof FieldPathError)) throw error;
      }
    }
    return {
      rule, program, error: undefined, usesOldSelf: usesOldSelf(program.ast), maxCost: program.maxCost, maxCardinality: cardinality,
      messageExpression, messageExpressionError, messageExpressionMaxCost: messageExpression?.maxCost ?? 0n, normalizedFieldPath,
    };
  });
  return { rules: compiled, error: undefined };
}

function compileNode(plan: NodePlan, context: CompileContext, bySchema: Map<CelSchema, CompiledNode>): CompiledNode {
  const { rules, error } = compileNodeRules(plan, context);
  const properties = new Map<string, CompiledNode>();
  for (const [name, child] of plan.properties) properties.set(name, compileNode(child, context, bySchema));
  const node: CompiledNode = {
    schema: plan.schema,
    declType: plan.declType,
    typeLabel: plan.schema.type ?? '',
    rules,
    compilationError: error,
    properties,
    items: plan.items === undefined ? undefined : compileNode(plan.items, context, bySchema),
    additionalProperties: plan.additionalProperties === undefined ? undefined : compileNode(plan.additionalProperties, context, bySchema),
    usesOldSelf: rules.some((rule) => rule.usesOldSelf),
  };
  bySchema.set(plan.schema, node);
  return node;
}

let knownFunctions: ReadonlySet<string> | undefined;

const resourceCache = new WeakMap<CelSchema, CompiledSchemaRules>();
const nodeCache = new WeakMap<CelSchema, CompiledSchemaRules>();

/**
 * Compiles every x-kubernetes-validations rule of a CRD openAPIV3Schema (the root is a resource
 * root: `self` has apiVersion, kind and metadata.name/generateName). Cached per schema object:
 * pass the same object to reuse the compilation.
 */
export function compileRules(schema: CelSchema): CompiledSchemaRules {
  return compileSchemaNode(schema, true);
}

/** compileRules for a schema node that is a resource root (the CRD root, an embedded resource) or not. */
export function compileSchemaNode(schema: CelSchema, isResourceRoot: boolean): CompiledSchemaRules {
  const cache = isResourceRoot ? resourceCache : nodeCache;
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  const rootType = schemaDeclType(schema, isResourceRoot);
  const plan = planNode(schema, rootType);
  const classes = new Map<string, ObjectClass>();
  const bySchema = new Map<CelSchema, CompiledNode>();
  let root: CompiledNode | undefined;
  if (plan !== undefined) {
    const objectTypes = new Map<string, DeclType>();
    collectPlanTypes(plan, objectTypes, { next: 0 });
    const crdEnvironment = baseEnvironment().clone();
    // Listing the definitions of a clone would make it share the base's overload index; list the base's.
    knownFunctions ??= functionNames(baseEnvironment());
    for (const [name, type] of objectTypes) {
      const Class = { [name]: class extends CelObject {} }[name]!;
      classes.set(name, Class);
      const fields: Record<string, string> = {};
      for (const [field, fieldDecl] of type.fields) fields[field] = engineTypeName(fieldDecl.type);
      crdEnvironment.registerType(name, { ctor: Class, fields });
      crdEnvironment.registerOperator(`${name} == ${name}`, (a: unknown, b: unknown) => celEquals(a, b));
      // cel-go lets objects (messages) be compared with null.
      crdEnvironment.registerOperator(`${name} == null`, (a: unknown, b: unknown) => a === b);
    }
    root = compileNode(plan, { crdEnvironment, known: knownFunctions }, bySchema);
  }
  const result: CompiledSchemaRules = { schema, root, bySchema, classes };
  cache.set(schema, result);
  return result;
}

/** kube's getExpressionCost: the rule's cost times the node's cardinality. */
export function expressionCost(maxCost: bigint, cardinality: bigint | undefined, fallbackCardinality: bigint): bigint {
  return multiplyWithOverflowGuard(maxCost, cardinality ?? fallbackCardinality);
}
