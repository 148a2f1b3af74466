// Owns: CEL cost: the static estimate of a rule's worst-case cost (cel-go's checker cost model
// with kube's library call estimates and its schema size estimator, walked over the engine's AST
// with the macros costed as cel-go's expansions), the per-node runtime costs charged by the
// instrumented evaluator, and the runtime cost of calls from their actual argument sizes (cel-go's
// cost tracker with kube's CallCost).

import type { ComprehensionArgs, EngineNode, EngineType } from './engine.ts';
import type { DeclType } from './schema.ts';
import { actualSize } from './values.ts';
import { NamedFormat } from './format.ts';

const uint64Max = (1n << 64n) - 1n;

/** cel-go's cost constants. */
export const selectAndIdentCost = 1;
export const listCreateBaseCost = 10;
export const mapCreateBaseCost = 30;
export const stringTraversalCostFactor = 0.1;
export const regexStringLengthCostFactor = 0.25;
const maxNameFormatRegexSize = 128;
const maxFormatSize = 64;

/** A [min, max] estimate (cel-go's SizeEstimate and CostEstimate), saturating at 2^64-1. */
export interface Estimate {
  readonly min: bigint;
  readonly max: bigint;
}

function sat(value: bigint): bigint {
  return value > uint64Max ? uint64Max : value;
}

function fixed(value: number | bigint): Estimate {
  const v = BigInt(value);
  return { min: v, max: v };
}

const zero = fixed(0);
const unknownSize: Estimate = { min: 0n, max: uint64Max };

function add(a: Estimate, b: Estimate): Estimate {
  return { min: sat(a.min + b.min), max: sat(a.max + b.max) };
}

function multiply(a: Estimate, b: Estimate): Estimate {
  return { min: sat(a.min * b.min), max: sat(a.max * b.max) };
}

function factorOf(value: bigint, factor: number): bigint {
  const product = Number(value) * factor;
  if (product >= 2 ** 64) return uint64Max;
  return BigInt(Math.ceil(product));
}

function byFactor(a: Estimate, factor: number): Estimate {
  return { min: factorOf(a.min, factor), max: factorOf(a.max, factor) };
}

function union(a: Estimate, b: Estimate): Estimate {
  return { min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max };
}

interface EntrySize {
  readonly container: 'list' | 'map';
  readonly key: Estimate;
  readonly value: Estimate;
}

function unionEntry(a: EntrySize | undefined, b: EntrySize | undefined): EntrySize | undefined {
  if (a === undefined || b === undefined) return undefined;
  return { container: a.container, key: union(a.key, b.key), value: union(a.value, b.value) };
}

interface LocalVar {
  readonly path: readonly string[] | undefined;
  readonly size: Estimate | undefined;
  readonly entry: EntrySize | undefined;
}

const scalarKinds = new Set(['bool', 'double', 'int', 'uint', 'google.protobuf.Duration', 'google.protobuf.Timestamp']);

function isScalar(type: EngineType | undefined): boolean {
  if (type === undefined) return false;
  if (type.kind === 'optional') return isScalar(type.valueType);
  return scalarKinds.has(type.name);
}

function kindOf(type: EngineType | undefined): string {
  if (type === undefined) return 'dyn';
  if (type.kind === 'dyn' && type.valueType !== undefined) return kindOf(type.valueType);
  return type.kind === 'primitive' ? type.name : type.kind;
}

function nodeArgs(node: EngineNode): readonly unknown[] {
  return node.args as readonly unknown[];
}

/** A call's view for the library estimators: its node, type, path and computed size. */
interface CallOperand {
  readonly node: EngineNode | undefined;
  readonly type: EngineType | undefined;
  readonly path: readonly string[] | undefined;
  readonly size: Estimate | undefined;
}

/** A negative number literal: cel-go's parser makes `-1` one constant. */
function isNegativeLiteral(node: EngineNode): boolean {
  if (node.op !== '-_') return false;
  const operand = node.args as EngineNode;
  return operand.op === 'value' && (typeof operand.args === 'number' || typeof operand.args === 'bigint');
}

const comprehensionMacros = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/**
 * cel-go's checker.Cost for one compiled rule, over the engine's AST; `root` is the rule node's
 * declaration type (the schema size estimator resolves paths from it).
 */
class Coster {
  private readonly paths = new Map<EngineNode, readonly string[]>();
  private readonly sizes = new Map<EngineNode, Estimate>();
  private readonly entries = new Map<EngineNode, EntrySize>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(private readonly root: DeclType) {}

  private estimateSize(path: readonly string[] | undefined): Estimate | undefined {
    if (path === undefined || path.length === 0) return undefined;
    let current: DeclType | undefined = this.root;
    for (const name of path.slice(1)) {
      if (current === undefined) return undefined;
      if (name === '@items' || name === '@values') current = current.elem;
      else if (name === '@keys') {
        if (current.kind !== 'map') return undefined;
        return { min: 0n, max: 0n };
      } else current = current.fields.get(name)?.type;
    }
    if (current === undefined) return undefined;
    return { min: 0n, max: BigInt(current.maxElements) };
  }

  private peek(name: string): LocalVar | undefined {
    const stack = this.locals.get(name);
    return stack === undefined || stack.length === 0 ? undefined : stack[stack.length - 1];
  }

  private push(name: string, local: LocalVar): void {
    const stack = this.locals.get(name) ?? [];
    stack.push(local);
    this.locals.set(name, stack);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private pathOf(node: EngineNode): readonly string[] | undefined {
    if (node.op === 'id') {
      const local = this.peek(node.args as string);
      if (local !== undefined) return local.path;
    }
    return this.paths.get(node);
  }

  private literalSize(node: EngineNode): Estimate | undefined {
    if (isNegativeLiteral(node)) return fixed(1);
    switch (node.op) {
      case 'value': {
        const value = node.args;
        if (typeof value === 'string') return fixed(Array.from(value).length);
        if (value instanceof Uint8Array) return fixed(value.length);
        if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint' || value === null) return fixed(1);
        if (typeof value === 'object' && value.constructor?.name === 'UnsignedInt') return fixed(1);
        return undefined;
      }
      case 'list': return fixed((node.args as readonly unknown[]).length);
      case 'map': return fixed((node.args as readonly unknown[]).length);
      default: return undefined;
    }
  }

  private sizeOf(node: EngineNode): Estimate | undefined {
    const computed = this.sizes.get(node);
    if (computed !== undefined) return computed;
    const literal = this.literalSize(node);
    if (literal !== undefined) return literal;
    const estimated = this.estimateSize(this.pathOf(node));
    if (estimated !== undefined) {
      this.sizes.set(node, estimated);
      return estimated;
    }
    if (isScalar(node.checkedType)) return fixed(1);
    if (node.op === 'id') return this.peek(node.args as string)?.size;
    return undefined;
  }

  private sizeOrUnknown(node: EngineNode | undefined): Estimate {
    return (node === undefined ? undefined : this.sizeOf(node)) ?? unknownSize;
  }

  private entryOf(node: EngineNode): EntrySize | undefined {
    const computed = this.entries.get(node);
    if (computed !== undefined) return computed;
    if (node.op === 'id') return this.peek(node.args as string)?.entry;
    return undefined;
  }

  private operand(node: EngineNode | undefined): CallOperand {
    if (node === undefined) return { node, type: undefined, path: undefined, size: undefined };
    let path = this.pathOf(node);
    if (path !== undefined && path.length > 0 && path[0] === '@result') path = undefined;
    return { node, type: node.checkedType, path, size: this.sizeOf(node) };
  }

  private operandSize(operand: CallOperand): Estimate {
    return operand.size ?? this.estimateSize(operand.path) ?? unknownSize;
  }

  /** The cost of a node (and, as side effects, its path and size for the nodes above it). */
  cost(node: EngineNode): Estimate {
    switch (node.op) {
      case 'value': return zero;
      case 'id': {
        const name = node.args as string;
        if (node.meta.alternate !== undefined) return zero;
        const local = this.peek(name);
        this.paths.set(node, local !== undefined && local.path !== undefined ? local.path : [name]);
        return fixed(selectAndIdentCost);
      }
      case '.': {
        const [operand, field] = nodeArgs(node) as [EngineNode, string];
        let sum = this.cost(operand);
        const kind = kindOf(operand.checkedType);
        if (kind === 'map' || kind === 'message' || kind === 'param') sum = add(sum, fixed(selectAndIdentCost));
        this.paths.set(node, [...(this.pathOf(operand) ?? []), field]);
        return sum;
      }
      case '.?': {
        const [operand] = nodeArgs(node) as [EngineNode, string];
        return add(this.cost(operand), fixed(1));
      }
      case '[]': {
        const [container, index] = nodeArgs(node) as [EngineNode, EngineNode];
        const sum = add(add(this.cost(container), this.cost(index)), fixed(1));
        const kind = kindOf(container.checkedType);
        if (kind === 'list' || kind === 'map') {
          const entry = this.entryOf(container);
          this.paths.set(node, [...(this.pathOf(container) ?? []), kind === 'list' ? '@items' : '@values']);
          const size = entry?.value ?? this.sizeOf(node);
          if (size !== undefined) this.sizes.set(node, size);
        }
        return sum;
      }
      case '[?]': {
        const [container, index] = nodeArgs(node) as [EngineNode, EngineNode];
        return add(add(this.cost(container), this.cost(index)), fixed(1));
      }
      case '&&': case '||': {
        const [left, right] = nodeArgs(node) as [EngineNode, EngineNode];
        const lhs = this.cost(left);
        const rhs = this.cost(right);
        return { min: lhs.min, max: add(lhs, rhs).max };
      }
      case '?:': {
        const [condition, truthy, falsy] = nodeArgs(node) as [EngineNode, EngineNode, EngineNode];
        const cost = add(this.cost(condition), union(this.cost(truthy), this.cost(falsy)));
        this.sizes.set(node, union(this.sizeOrUnknown(truthy), this.sizeOrUnknown(falsy)));
        const entry = unionEntry(this.entryOf(truthy), this.entryOf(falsy));
        if (entry !== undefined) this.entries.set(node, entry);
        return cost;
      }
      case '!_': case '-_':
        if (isNegativeLiteral(node)) return zero;
        return add(this.cost(node.args as EngineNode), fixed(1));
      case 'list': {
        const elements = node.args as readonly EngineNode[];
        let sum = zero;
        let itemSize: Estimate = { min: elements.length === 0 ? 0n : uint64Max, max: 0n };
        for (const element of elements) {
          sum = add(sum, this.cost(element));
          itemSize = union(itemSize, this.sizeOrUnknown(element));
        }
        this.entries.set(node, { container: 'list', key: fixed(1), value: itemSize });
        return add(sum, fixed(listCreateBaseCost));
      }
      case 'map': {
        const entries = node.args as readonly (readonly [EngineNode, EngineNode])[];
        let sum = zero;
        let keySize: Estimate = { min: entries.length === 0 ? 0n : uint64Max, max: 0n };
        let valueSize: Estimate = { min: entries.length === 0 ? 0n : uint64Max, max: 0n };
        for (const [key, value] of entries) {
          sum = add(add(sum, this.cost(key)), this.cost(value));
          keySize = union(keySize, this.sizeOrUnknown(key));
          valueSize = union(valueSize, this.sizeOrUnknown(value));
        }
        this.entries.set(node, { container: 'map', key: keySize, value: valueSize });
        return add(sum, fixed(mapCreateBaseCost));
      }
      case 'call': case 'rcall':
        return this.costCall(node);
      default:
        if (Array.isArray(node.args) && node.args.length === 2) return this.costBinary(node);
        return zero;
    }
  }

  private costBinary(node: EngineNode): Estimate {
    const [left, right] = nodeArgs(node) as [EngineNode, EngineNode];
    const argCost = add(this.cost(left), this.cost(right));
    const leftKind = kindOf(left.checkedType);
    switch (node.op) {
      case '==': case '!=': case '<': case '<=': case '>': case '>=': {
        if ((node.op === '==' || node.op === '!=') || leftKind === 'string' || leftKind === 'bytes') {
          if (node.op === '==') {
            const special = this.specialEquality(left, right);
            if (special !== undefined) return add(special, argCost);
          }
          const lhs = this.sizeOrUnknown(left);
          const rhs = this.sizeOrUnknown(right);
          const smallestMax = lhs.max < rhs.max ? lhs.max : rhs.max;
          return add(byFactor({ min: smallestMax > 0n ? 1n : 0n, max: smallestMax }, stringTraversalCostFactor), argCost);
        }
        return add(fixed(1), argCost);
      }
      case '+': {
        if (leftKind === 'string' || leftKind === 'bytes' || leftKind === 'list') {
          const resultSize = add(this.sizeOrUnknown(left), this.sizeOrUnknown(right));
          this.sizes.set(node, resultSize);
          const entry = unionEntry(this.entryOf(left), this.entryOf(right));
          if (entry !== undefined) this.entries.set(node, entry);
          if (leftKind === 'list') return add(fixed(1), argCost);
          return add(byFactor(resultSize, stringTraversalCostFactor), argCost);
        }
        return add(fixed(1), argCost);
      }
      case 'in':
        if (kindOf(right.checkedType) === 'list') return add(this.sizeOrUnknown(right), argCost);
        return add(fixed(1), argCost);
      default:
        return add(fixed(1), argCost);
    }
  }

  /** kube's EstimateCallCost for `_==_` of its library types. */
  private specialEquality(left: EngineNode, right: EngineNode): Estimate | undefined {
    const type = left.checkedType?.name;
    if (type === undefined || type !== right.checkedType?.name) return undefined;
    switch (type) {
      case 'net.IP': case 'net.CIDR': case 'kubernetes.Quantity': case 'kubernetes.Semver': return fixed(1);
      case 'kubernetes.NamedFormat': return byFactor({ min: 1n, max: BigInt(maxFormatSize) }, stringTraversalCostFactor);
      case 'kubernetes.URL': {
        const size = this.sizeOf(right) ?? fixed(1);
        return byFactor({ min: 1n, max: size.max }, stringTraversalCostFactor);
      }
      default: return undefined;
    }
  }

  private costComprehension(node: EngineNode, name: string, receiver: EngineNode, args: readonly EngineNode[]): Estimate {
    const iterVar = args[0]?.op === 'id' ? (args[0].args as string) : '';
    let sum = this.cost(receiver);
    const initCost = name === 'map' || name === 'filter' ? fixed(listCreateBaseCost) : zero;
    sum = add(sum, initCost);
    const accuSize = name === 'map' || name === 'filter' ? fixed(0) : fixed(1);
    this.push('@result', { path: undefined, size: accuSize, entry: undefined });
    const entry = this.entryOf(receiver);
    const container = entry?.container ?? (kindOf(receiver.checkedType) === 'map' ? 'map' : 'list');
    const iterSize = container === 'list' ? entry?.value : entry?.key;
    this.push(iterVar, { path: [...(this.pathOf(receiver) ?? []), container === 'list' ? '@items' : '@keys'], size: iterSize, entry: undefined });
    let loopCost: Estimate;
    let stepCost: Estimate;
    let resultCost: Estimate = fixed(1);
    switch (name) {
      case 'all': case 'exists': {
        const predicate = this.cost(args[1]!);
        loopCost = fixed(name === 'all' ? 2 : 3);
        stepCost = { min: 1n, max: sat(1n + predicate.max) };
        break;
      }
      case 'exists_one': {
        const predicate = this.cost(args[1]!);
        loopCost = zero;
        stepCost = add(predicate, { min: 1n, max: 2n });
        resultCost = fixed(2);
        break;
      }
      case 'map': {
        loopCost = zero;
        if (args.length === 3) {
          const filter = this.cost(args[1]!);
          const transform = add(this.cost(args[2]!), fixed(12));
          stepCost = add(filter, union(transform, fixed(1)));
        } else stepCost = add(this.cost(args[1]!), fixed(12));
        break;
      }
      default: {
        const predicate = this.cost(args[1]!);
        loopCost = zero;
        stepCost = add(predicate, { min: 1n, max: 13n });
      }
    }
    this.pop(iterVar);
    this.pop('@result');
    sum = add(sum, resultCost);
    const rangeCount = this.sizeOrUnknown(receiver);
    sum = add(sum, multiply(rangeCount, add(stepCost, loopCost)));
    if (name === 'map' || name === 'filter') this.sizes.set(node, rangeCount);
    else this.sizes.set(node, fixed(1));
    return sum;
  }

  private costCall(node: EngineNode): Estimate {
    const args = nodeArgs(node);
    const name = args[0] as string;
    const isMember = node.op === 'rcall';
    let receiver = isMember ? (args[1] as EngineNode) : undefined;
    const callArgs = (isMember ? args[2] : args[1]) as readonly EngineNode[];
    // Namespace constants (format.named, ip.isCanonical, strings.quote, sets.contains, optional.of)
    // are qualified global functions in cel-go.
    let qualified = name;
    if (receiver !== undefined && receiver.op === 'id' && receiver.meta.alternate !== undefined) {
      qualified = `${receiver.args as string}.${name}`;
      receiver = undefined;
    }
    if (node.meta.alternate !== undefined || node.meta.macro !== undefined) {
      if (qualified === 'has') {
        const operand = callArgs[0]!;
        return operand.op === '.' ? this.cost(nodeArgs(operand)[0] as EngineNode) : this.cost(operand);
      }
      if (qualified === 'cel.bind') {
        const variable = callArgs[0]?.op === 'id' ? (callArgs[0].args as string) : '';
        const init = callArgs[1]!;
        let sum = add(fixed(listCreateBaseCost), this.cost(init));
        this.push(variable, { path: this.pathOf(init), size: this.sizeOf(init), entry: this.entryOf(init) });
        const body = callArgs[2]!;
        sum = add(sum, this.cost(body));
        this.pop(variable);
        const size = this.sizeOf(body);
        if (size !== undefined) this.sizes.set(node, size);
        const entry = this.entryOf(body);
        if (entry !== undefined) this.entries.set(node, entry);
        return sum;
      }
      if (receiver !== undefined && comprehensionMacros.has(name)) return this.costComprehension(node, name, receiver, callArgs);
    }
    if (qualified === 'dyn' && callArgs.length === 1) {
      const cost = add(fixed(1), this.cost(callArgs[0]!));
      const size = this.sizeOf(callArgs[0]!);
      if (size !== undefined) this.sizes.set(node, size);
      const entry = this.entryOf(callArgs[0]!);
      if (entry !== undefined) this.entries.set(node, entry);
      return cost;
    }
    const argCosts = callArgs.map((arg) => this.cost(arg));
    const operands = callArgs.map((arg) => this.operand(arg));
    let sum = zero;
    if (receiver !== undefined) sum = add(sum, this.cost(receiver));
    const target = receiver === undefined ? undefined : this.operand(receiver);
    const argCostSum = argCosts.reduce(add, zero);
    const estimate = this.callEstimate(qualified, target, operands) ?? this.defaultCallEstimate(qualified, target, operands);
    if (estimate.resultSize !== undefined) this.sizes.set(node, estimate.resultSize);
    return add(sum, add(estimate.cost, argCostSum));
  }

  private defaultCallEstimate(name: string, target: CallOperand | undefined, args: readonly CallOperand[]): CallEstimate {
    const size = (operand: CallOperand | undefined): Estimate => (operand === undefined ? unknownSize : this.operandSize(operand));
    switch (name) {
      case 'format':
        if (target !== undefined) return { cost: byFactor(size(target), stringTraversalCostFactor) };
        break;
      case 'bytes':
        if (target === undefined && args.length === 1 && kindOf(args[0]!.type) === 'string') {
          const sz = size(args[0]);
          return { cost: byFactor(sz, stringTraversalCostFactor), resultSize: { min: sz.min, max: sat(sz.max * 4n) } };
        }
        break;
      case 'string':
        if (target === undefined && args.length === 1 && kindOf(args[0]!.type) === 'bytes') {
          const sz = size(args[0]);
          return { cost: byFactor(sz, stringTraversalCostFactor), resultSize: { min: sz.min / 4n, max: sz.max } };
        }
        break;
      case 'strings.quote':
        if (args.length === 1) {
          const sz = size(args[0]);
          return { cost: byFactor(sz, stringTraversalCostFactor), resultSize: { min: sz.min + 2n, max: sat(sz.max * 2n + 2n) } };
        }
        break;
      case 'startsWith': case 'endsWith':
        if (args.length === 1) return { cost: byFactor(size(args[0]), stringTraversalCostFactor) };
        break;
      case 'matches':
        if (target !== undefined && args.length === 1) {
          const strCost = byFactor(add(size(target), fixed(1)), stringTraversalCostFactor);
          const regexCost = byFactor(size(args[0]), regexStringLengthCostFactor);
          return { cost: multiply(strCost, regexCost) };
        }
        break;
      case 'contains':
        if (target !== undefined && args.length === 1) {
          return { cost: multiply(byFactor(size(target), stringTraversalCostFactor), byFactor(size(args[0]), stringTraversalCostFactor)) };
        }
        break;
      case 'sets.contains': case 'sets.equivalent': case 'sets.intersects':
        if (args.length === 2) return { cost: multiply(size(args[0]), size(args[1])) };
        break;
    }
    return { cost: fixed(1) };
  }

  /** kube's CostEstimator.EstimateCallCost. */
  private callEstimate(name: string, target: CallOperand | undefined, args: readonly CallOperand[]): CallEstimate | undefined {
    const size = (operand: CallOperand | undefined): Estimate => (operand === undefined ? unknownSize : this.operandSize(operand));
    switch (name) {
      case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf': {
        if (target === undefined) return undefined;
        if (kindOf(target.type) === 'list') {
          let elementCost = fixed(1);
          const elementType = target.type?.kind === 'dyn' ? target.type.valueType?.valueType : target.type?.valueType;
          const elementKind = kindOf(elementType);
          if (elementKind === 'string' || elementKind === 'bytes') {
            const elementSize = this.estimateSize(target.path === undefined ? undefined : [...target.path, '@items']) ?? unknownSize;
            elementCost = add(elementCost, byFactor(elementSize, stringTraversalCostFactor));
          }
          return { cost: multiply(size(target), elementCost) };
        }
        return { cost: byFactor(size(target), stringTraversalCostFactor) };
      }
      case 'url':
        if (args.length === 1) {
          const sz = size(args[0]);
          return { cost: byFactor(sz, stringTraversalCostFactor), resultSize: sz };
        }
        return undefined;
      case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
        if (target === undefined) return undefined;
        return { cost: byFactor(size(target), stringTraversalCostFactor), resultSize: size(target) };
      case 'replace': {
        if (target === undefined || args.length < 2) return undefined;
        const sz = size(target);
        const toReplace = size(args[0]);
        const replaceWith = size(args[1]);
        let countMax: bigint;
        let retainedMax = 0n;
        if (toReplace.min === 0n) {
          countMax = sz.max < uint64Max ? sz.max + 1n : sz.max;
          retainedMax = sz.max;
        } else if (replaceWith.max <= toReplace.min) {
          countMax = 0n;
          retainedMax = sz.max;
        } else countMax = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)));
        let countMin: bigint;
        let retainedMin = 0n;
        if (toReplace.max === 0n) {
          countMin = sz.min < uint64Max ? sz.min + 1n : sz.min;
          retainedMin = sz.min;
        } else if (toReplace.max <= replaceWith.min) {
          countMin = 0n;
          retainedMin = sz.min;
        } else countMin = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)));
        const resultSize = add(multiply({ min: countMin, max: countMax }, replaceWith), { min: retainedMin, max: retainedMax });
        return { cost: byFactor(sz, 2 * stringTraversalCostFactor), resultSize };
      }
      case 'split': {
        if (target === undefined) return undefined;
        const sz = size(target);
        let max = sz.max;
        const limit = args[1]?.node;
        if (limit !== undefined && limit.op === 'value' && typeof limit.args === 'bigint') max = BigInt.asUintN(64, limit.args);
        return { cost: byFactor(sz, 2 * stringTraversalCostFactor), resultSize: { min: 0n, max } };
      }
      case 'join': {
        if (target === undefined) return undefined;
        const listSize = size(target);
        let sz: Estimate = zero;
        if (target.type?.valueType !== undefined) {
          const elementSize = this.estimateSize(target.path === undefined ? undefined : [...target.path, '@items']) ?? unknownSize;
          sz = multiply(listSize, elementSize);
        }
        if (args.length > 0) {
          const separators = { min: listSize.min > 0n ? listSize.min - 1n : 0n, max: listSize.max > 0n ? listSize.max - 1n : 0n };
          sz = add(sz, multiply(size(args[0]), separators));
        }
        return { cost: byFactor(sz, stringTraversalCostFactor), resultSize: sz };
      }
      case 'find': case 'findAll': {
        if (target === undefined || args.length < 1) return undefined;
        const sz = size(target);
        const strCost = byFactor(add(sz, fixed(1)), stringTraversalCostFactor);
        const regexCost = byFactor(size(args[0]), regexStringLengthCostFactor);
        return { cost: multiply(strCost, regexCost), resultSize: { min: 0n, max: sz.max } };
      }
      case 'cidr': case 'isIP': case 'isCIDR': case 'quantity': case 'isQuantity': case 'semver': case 'isSemver':
        if (target === undefined) return undefined;
        return { cost: byFactor(size(args[0]), stringTraversalCostFactor) };
      case 'ip':
        if (target !== undefined) return { cost: fixed(1) };
        return undefined;
      case 'masked': case 'prefixLength': case 'family': case 'isUnspecified': case 'isLoopback':
      case 'isLinkLocalMulticast': case 'isLinkLocalUnicast': case 'isGlobalUnicast':
        return { cost: fixed(1) };
      case 'containsIP': case 'containsCIDR': {
        if (target === undefined || args.length < 1) return undefined;
        const sz: Estimate = { min: 4n, max: 16n };
        let cost = byFactor(add(sz, sz), stringTraversalCostFactor);
        if (name === 'containsCIDR') cost = add(add(cost, byFactor(sz, stringTraversalCostFactor)), fixed(1));
        if (kindOf(args[0]!.type) === 'string') cost = add(cost, byFactor(size(args[0]), stringTraversalCostFactor));
        return { cost };
      }
      case 'validate':
        if (target === undefined) return undefined;
        return { cost: byFactor(byFactor(size(args[0]), stringTraversalCostFactor), maxNameFormatRegexSize * regexStringLengthCostFactor) };
      case 'format.named':
      case 'sign': case 'asInteger': case 'isInteger': case 'asApproximateFloat': case 'isGreaterThan': case 'isLessThan':
      case 'compareTo': case 'add': case 'sub': case 'major': case 'minor': case 'patch':
      case 'getScheme': case 'getHostname': case 'getHost': case 'getPort': case 'getEscapedPath': case 'getQuery':
        return { cost: fixed(1) };
      default:
        return undefined;
    }
  }
}

interface CallEstimate {
  readonly cost: Estimate;
  readonly resultSize?: Estimate;
}

/** cel-go's estimated cost of a checked expression, with sizes from the rule node's type. */
export function estimateCost(ast: EngineNode, root: DeclType): Estimate {
  return new Coster(root).cost(ast);
}

/** The saturating product of a cost and a cardinality (kube's multiplyWithOverflowGuard). */
export function multiplyWithOverflowGuard(cost: bigint, cardinality: bigint): bigint {
  if (cost === 0n) return 0n;
  return sat(cost * cardinality);
}

/** kube's getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: bigint, limit: number): string {
  const factor = Number(cost) / limit;
  let text: string;
  if (factor > 100) text = 'more than 100x';
  else if (factor < 1.5) text = `${factor.toFixed(6)}x`;
  else text = `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** The runtime cost charged for evaluating one node, before any size-dependent call cost. */
export function nodeCost(node: EngineNode, parentComprehension: ComprehensionArgs | undefined): number {
  if (parentComprehension !== undefined && parentComprehension.step === node) {
    switch (parentComprehension.kind) {
      case 'quantifier': return 3;
      default: return node.op === 'accuPush' ? 12 : 1;
    }
  }
  if (isNegativeLiteral(node)) return 0;
  switch (node.op) {
    case 'value': return 0;
    case 'id': return node.meta.alternate === undefined ? selectAndIdentCost : 0;
    case '&&': case '||': case '?:': case 'comprehension': return 0;
    case 'list': return listCreateBaseCost;
    case 'map': return mapCreateBaseCost;
    case 'accuPush': return 12;
    case 'accuInc': return 2;
    case 'rcall': case 'call': {
      if (node.meta.alternate !== undefined) {
        const name = nodeArgs(node)[0];
        return name === 'map' || name === 'filter' ? listCreateBaseCost + 1 : 1;
      }
      if (node.meta.macro !== undefined) return nodeArgs(node)[0] === 'has' ? 0 : nodeArgs(node)[0] === 'bind' ? listCreateBaseCost : 1;
      return 1;
    }
    default: return 1;
  }
}

function ceilFactor(size: number, factor: number): number {
  return Math.ceil(size * factor);
}

/** The runtime cost of a call from its actual arguments (receiver first) and result, as cel-go's tracker and kube's CallCost. */
export function callCost(name: string, args: readonly unknown[], result: unknown): number {
  switch (name) {
    case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
      return args.length > 0 ? traversalCost(args[0]) : 0;
    case 'url': case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
      return ceilFactor(actualSize(args[0]), stringTraversalCostFactor);
    case 'replace': case 'split':
      return ceilFactor(actualSize(args[0]), 2 * stringTraversalCostFactor);
    case 'join':
      return ceilFactor(actualSize(result), 2 * stringTraversalCostFactor);
    case 'find': case 'findAll':
    case 'matches': {
      const strCost = ceilFactor(1 + actualSize(args[0]), stringTraversalCostFactor);
      const regexCost = ceilFactor(actualSize(args[1]), regexStringLengthCostFactor);
      return strCost * regexCost;
    }
    case 'cidr': case 'isIP': case 'isCIDR': case 'quantity': case 'isQuantity': case 'isCanonical':
      return ceilFactor(actualSize(args[args.length - 1]), name === 'isCanonical' ? 2 * stringTraversalCostFactor : stringTraversalCostFactor);
    case 'ip':
      return typeof args[0] === 'string' ? ceilFactor(actualSize(args[0]), stringTraversalCostFactor) : 1;
    case 'containsIP': case 'containsCIDR': {
      const cidrSize = actualSize(args[0]);
      let cost = ceilFactor(cidrSize + cidrSize, stringTraversalCostFactor);
      if (name === 'containsCIDR') cost += ceilFactor(cidrSize, stringTraversalCostFactor) + 1;
      if (typeof args[1] === 'string') cost += ceilFactor(actualSize(args[1]), stringTraversalCostFactor);
      return cost;
    }
    case 'validate': {
      const format = args[0];
      if (!(format instanceof NamedFormat)) return 1;
      const strCost = ceilFactor(1 + actualSize(args[1]), stringTraversalCostFactor);
      return strCost * ceilFactor(format.maxRegexSize, regexStringLengthCostFactor);
    }
    case 'startsWith': case 'endsWith': case 'format': case 'quote':
      return ceilFactor(actualSize(args[0]), stringTraversalCostFactor);
    case 'contains':
      return ceilFactor(actualSize(args[0]), stringTraversalCostFactor) * ceilFactor(actualSize(args[1]), stringTraversalCostFactor);
    default:
      return 1;
  }
}

/** The runtime cost of a binary operator from its operands (cel-go's tracker). */
export function operatorCost(op: string, left: unknown, right: unknown): number {
  switch (op) {
    case '==': case '!=':
      if (isKubeUnitEquality(left)) return 1;
      return ceilFactor(Math.min(actualSize(left), actualSize(right)), stringTraversalCostFactor);
    case '<': case '<=': case '>': case '>=':
      if (typeof left === 'string' || left instanceof Uint8Array) return ceilFactor(Math.min(actualSize(left), actualSize(right)), stringTraversalCostFactor);
      return 1;
    case '+':
      if (typeof left === 'string' || left instanceof Uint8Array) return ceilFactor(actualSize(left) + actualSize(right), stringTraversalCostFactor);
      return 1;
    case 'in':
      return Array.isArray(right) ? actualSize(right) : 1;
    default:
      return 1;
  }
}

function isKubeUnitEquality(value: unknown): boolean {
  return typeof value === 'object' && value !== null && ['Quantity', 'IPAddress', 'IPPrefix', 'NamedFormat', 'RequestURL'].includes(value.constructor.name);
}

function traversalCost(value: unknown): number {
  if (typeof value === 'string') return Math.floor(value.length * stringTraversalCostFactor);
  if (value instanceof Uint8Array) return Math.floor(value.length * stringTraversalCostFactor);
  if (Array.isArray(value)) return value.reduce((total: number, item) => total + traversalCost(item), 0);
  if (value instanceof Map) {
    let total = 0;
    for (const [key, item] of value) total += traversalCost(key) + traversalCost(item);
    return total;
  }
  return 1;
}
