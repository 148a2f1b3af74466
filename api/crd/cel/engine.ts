// Owns: the view of @marcbachmann/cel-js internals that compiled rules rely on: the shape of a
// parsed and type-checked AST node (operator, operands, checked type, macro expansion, the planned
// call handle), walking every node including macro expansions, and the cel-go spelling of engine
// type names. These are internals of the engine (not its typed API): compile.ts fails loudly when
// the evaluator cannot be reached, and the unit tests under test/unit/crd/cel-* pin the rest.

/** A checked type of the engine (TypeDeclaration). */
export interface EngineType {
  readonly kind: string;
  readonly name: string;
  readonly type: string;
  readonly valueType?: EngineType;
  readonly keyType?: EngineType;
}

/** Operands of a comprehension node (a macro's expansion). */
export interface ComprehensionArgs {
  readonly kind?: string;
  readonly iterable: EngineNode;
  readonly iterVarName: string;
  readonly init: EngineNode;
  readonly step: EngineNode;
}

/** A macro that is evaluated by hooks rather than an expansion (has, cel.bind, optional or/orValue). */
export interface EngineMacro {
  readonly args?: readonly EngineNode[];
  readonly receiver?: EngineNode;
  readonly arg?: EngineNode;
  readonly var?: string;
  readonly val?: EngineNode;
  readonly exp?: EngineNode;
}

/** The engine's planned handle of a call or operator node. */
export type EngineHandle = (...args: unknown[]) => unknown;

/** A parsed (and, once checked, typed) AST node of the engine. */
export interface EngineNode {
  readonly op: string;
  readonly args: unknown;
  readonly pos: number;
  readonly start: number;
  readonly end: number;
  readonly input: string;
  readonly checkedType?: EngineType;
  readonly meta: { readonly alternate?: EngineNode; readonly macro?: EngineMacro };
  handle?: EngineHandle;
  /** kstore: the runtime cost charged each time the node is evaluated. */
  kc?: number;
  evaluate(evaluator: unknown, node: EngineNode, context: unknown): unknown;
}

export function isNode(value: unknown): value is EngineNode {
  return typeof value === 'object' && value !== null && typeof (value as { op?: unknown }).op === 'string' && 'meta' in value;
}

/** The operand nodes of a node, in source order (macro expansions are reached through meta). */
export function childNodes(node: EngineNode): EngineNode[] {
  const args = node.args;
  switch (node.op) {
    case 'value': case 'id': case 'accuValue': case 'accuInc':
      return [];
    case '.': case '.?':
      return [(args as readonly unknown[])[0] as EngineNode];
    case 'call':
      return [...((args as readonly unknown[])[1] as EngineNode[])];
    case 'rcall':
      return [(args as readonly unknown[])[1] as EngineNode, ...((args as readonly unknown[])[2] as EngineNode[])];
    case 'map':
      return (args as readonly (readonly [EngineNode, EngineNode])[]).flatMap((entry) => [entry[0], entry[1]]);
    case 'comprehension': {
      const comprehension = args as ComprehensionArgs;
      return [comprehension.iterable, comprehension.init, comprehension.step];
    }
    case '!_': case '-_': case 'accuPush':
      return isNode(args) ? [args] : [];
    default:
      return Array.isArray(args) ? args.filter(isNode) : isNode(args) ? [args] : [];
  }
}

/** Visits every node once: operands, macro expansions and the nodes macros hold. */
export function visitNodes(root: EngineNode, visit: (node: EngineNode) => void): void {
  const seen = new Set<EngineNode>();
  const walk = (node: EngineNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    visit(node);
    const meta = node.meta;
    if (meta.alternate !== undefined) walk(meta.alternate);
    if (meta.macro !== undefined) {
      const macro = meta.macro;
      for (const candidate of [macro.receiver, macro.arg, macro.val, macro.exp, ...(macro.args ?? [])]) if (isNode(candidate)) walk(candidate);
    }
    for (const child of childNodes(node)) walk(child);
  };
  walk(root);
}

/** A type name as cel-go prints it: list(string), map(string, int), optional_type(int), null_type. */
export function celTypeName(name: string): string {
  let text = name;
  for (let previous = ''; previous !== text;) {
    previous = text;
    text = text.replace(/dyn<([^<>]*)>/g, '$1');
  }
  return text.replace(/\boptional</g, 'optional_type(').replace(/\b(list|map)</g, '$1(').replace(/>/g, ')').replace(/\bnull\b/g, 'null_type');
}
