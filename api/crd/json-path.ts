// Owns: the JSONPath expressions a CustomResourceDefinition names fields with (printer columns'
// jsonPath, selectableFields, the scale subresource's replica and selector paths): parsing
// `.spec.replicas`, `.metadata.labels['app.kubernetes.io/name']`, `.spec.items[0]`,
// `.spec.items[*].name`, `.status.conditions[?(@.type=="Ready")].status`, and finding the values
// they name in an object — the subset of client-go's jsonpath templates that CRDs use. Pure.

export type PathStep =
  | { readonly type: 'field'; readonly name: string }
  | { readonly type: 'index'; readonly index: number }
  | { readonly type: 'all' }
  | { readonly type: 'filter'; readonly path: readonly string[]; readonly operator: '==' | '!='; readonly value: string | number | boolean };

export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathError';
  }
}

const identifier = /^[A-Za-z0-9_-]+/;

function parseLiteral(text: string): string | number | boolean {
  const trimmed = text.trim();
  const quoted = /^(['"])(.*)\1$/.exec(trimmed);
  if (quoted !== null) return quoted[2]!;
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  const number = Number(trimmed);
  if (trimmed !== '' && Number.isFinite(number)) return number;
  throw new JsonPathError(`unrecognized filter value ${trimmed}`);
}

function parseFilter(body: string): PathStep {
  const match = /^\?\(\s*@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(.+?)\s*\)$/.exec(body);
  if (match === null) throw new JsonPathError(`unsupported filter [${body}]`);
  return { type: 'filter', path: match[1]!.slice(1).split('.'), operator: match[2] as '==' | '!=', value: parseLiteral(match[3]!) };
}

/** Parses a path such as `.spec.replicas`; a surrounding `{…}` is accepted, as kube's templates. */
export function parseJsonPath(path: string): PathStep[] {
  let rest = path.trim();
  if (rest.startsWith('{') && rest.endsWith('}')) rest = rest.slice(1, -1).trim();
  const steps: PathStep[] = [];
  if (rest === '' || rest === '.') return steps;
  if (!rest.startsWith('.') && !rest.startsWith('[')) throw new JsonPathError(`unrecognized character in action: ${rest}`);
  while (rest.length > 0) {
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      const name = identifier.exec(rest)?.[0];
      if (name === undefined) throw new JsonPathError(`invalid field name at ${JSON.stringify(rest)}`);
      steps.push({ type: 'field', name });
      rest = rest.slice(name.length);
    } else if (rest.startsWith('[')) {
      const close = rest.startsWith('[?(') ? rest.indexOf(')]') + 1 : rest.indexOf(']');
      if (close <= 0) throw new JsonPathError('unterminated array');
      const body = rest.slice(1, close).trim();
      rest = rest.slice(close + 1);
      if (body === '*') steps.push({ type: 'all' });
      else if (body.startsWith('?')) steps.push(parseFilter(body));
      else if (/^-?\d+$/.test(body)) steps.push({ type: 'index', index: Number(body) });
      else {
        const quoted = /^(['"])(.*)\1$/.exec(body);
        if (quoted === null) throw new JsonPathError(`invalid array index ${body}`);
        steps.push({ type: 'field', name: quoted[2]! });
      }
    } else {
      throw new JsonPathError(`unrecognized character in action: ${rest}`);
    }
  }
  return steps;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const name of path) current = isRecord(current) ? current[name] : undefined;
  return current;
}

/** Every value the path names in `root`, in document order (none when a step finds nothing). */
export function findJsonPath(root: unknown, steps: readonly PathStep[]): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.type === 'field') {
        if (isRecord(value) && value[step.name] !== undefined) next.push(value[step.name]);
      } else if (step.type === 'index') {
        if (Array.isArray(value)) {
          const index = step.index < 0 ? value.length + step.index : step.index;
          if (index >= 0 && index < value.length) next.push(value[index]);
        }
      } else if (step.type === 'all') {
        if (Array.isArray(value)) next.push(...value);
        else if (isRecord(value)) next.push(...Object.values(value));
      } else {
        const candidates = Array.isArray(value) ? value : [];
        for (const candidate of candidates) {
          const found = valueAt(candidate, step.path);
          const equal = found === step.value || (found !== undefined && typeof found !== 'object' && String(found) === String(step.value) && typeof step.value === 'string' && typeof found === 'string');
          if (step.operator === '==' ? equal : !equal && found !== undefined) next.push(candidate);
        }
      }
    }
    current = next;
  }
  return current;
}

/** The plain field names of a path made of field steps only (`.spec.replicas` → ['spec', 'replicas']), else undefined. */
export function fieldNamesOf(steps: readonly PathStep[]): string[] | undefined {
  const names: string[] = [];
  for (const step of steps) {
    if (step.type !== 'field') return undefined;
    names.push(step.name);
  }
  return names;
}

/** How client-go's jsonpath prints a found value: strings as they are, other values as JSON. */
export function printedValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}
