// Owns: sets of field paths, as structured-merge-diff's fieldpath.Set, and their wire form
// (metav1 FieldsV1: `{"f:data":{".":{},"f:a":{}}}`). A path is a list of path elements, each
// in its serialised form: `f:<field>`, `k:<json of the list map keys>`, `v:<json of a set
// value>`, `i:<index>`. A set is a tree: each node has the elements that are members (paths
// that end there) and the children (prefixes of longer paths). Pure data, no schema: the
// schema-driven walks that build these sets are in ./typed.ts.
import type { JsonValue } from '../../actors/index.ts';

export type PathElement = string;
export type Path = readonly PathElement[];

type JsonObject = { [key: string]: JsonValue };

/** `f:name` */
export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** Go's encoding/json of a value with object keys sorted (map keys are sorted as Go's encoder does). */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`).join(',')}}`;
}

/** `k:{"name":"c"}`: the item of an associative list named by its key fields (sorted by name). */
export function keyElement(key: Readonly<Record<string, JsonValue>>): PathElement {
  return `k:${canonicalJson(key as JsonValue)}`;
}

/** `v:"x"`: the item of a set list. */
export function valueElement(value: JsonValue): PathElement {
  return `v:${canonicalJson(value)}`;
}

/** `i:3`: a list item by position (lists that are neither associative nor atomic). */
export function indexElement(index: number): PathElement {
  return `i:${index}`;
}

const elementRank: Readonly<Record<string, number>> = { f: 0, k: 1, v: 2, i: 3 };

/** structured-merge-diff's PathElement order: fields by name, then keys, values, indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  const rankA = elementRank[a[0]!] ?? 4;
  const rankB = elementRank[b[0]!] ?? 4;
  if (rankA !== rankB) return rankA - rankB;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

function valueString(value: JsonValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
}

/** A path as structured-merge-diff prints it: `.spec.containers[name="c"].image`, `.metadata.finalizers[="x"]`. */
export function pathString(path: Path): string {
  return path.map((element) => {
    const body = element.slice(2);
    switch (element[0]) {
      case 'f':
        return `.${body}`;
      case 'k': {
        const key = JSON.parse(body) as JsonObject;
        return `[${Object.keys(key).sort().map((name) => `${name}=${valueString(key[name]!)}`).join(',')}]`;
      }
      case 'v':
        return `[=${valueString(JSON.parse(body) as JsonValue)}]`;
      default:
        return `[${body}]`;
    }
  }).join('');
}

export class FieldSetError extends Error {}

export class FieldSet {
  readonly #members = new Set<PathElement>();
  readonly #children = new Map<PathElement, FieldSet>();

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** Adds `path` as a member (its prefixes become children, not members). */
  insert(path: Path): this {
    if (path.length > 0) this.#insertFrom(path, 0);
    return this;
  }

  #insertFrom(path: Path, depth: number): void {
    if (depth === path.length - 1) this.#members.add(path[depth]!);
    else this.#child(path[depth]!).#insertFrom(path, depth + 1);
  }

  #child(element: PathElement): FieldSet {
    let child = this.#children.get(element);
    if (!child) {
      child = new FieldSet();
      this.#children.set(element, child);
    }
    return child;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    const parent = this.node(path.slice(0, -1));
    return parent !== undefined && parent.#members.has(path.at(-1)!);
  }

  /** The subtree under `prefix` (paths relative to it), if any path extends it. */
  node(prefix: Path): FieldSet | undefined {
    return prefix.reduce<FieldSet | undefined>((node, element) => (node === undefined ? undefined : node.#children.get(element)), this);
  }

  /** Whether some member is strictly longer than `prefix` and starts with it. */
  hasDescendants(prefix: Path): boolean {
    const node = this.node(prefix);
    return node !== undefined && !node.empty();
  }

  empty(): boolean {
    if (this.#members.size > 0) return false;
    for (const child of this.#children.values()) if (!child.empty()) return false;
    return true;
  }

  /** Every member, in structured-merge-diff's order (a path before the paths it prefixes). */
  paths(): Path[] {
    const result: Path[] = [];
    const visit = (node: FieldSet, prefix: PathElement[]): void => {
      const elements = [...new Set([...node.#members, ...node.#children.keys()])].sort(compareElements);
      for (const element of elements) {
        if (node.#members.has(element)) result.push([...prefix, element]);
        const child = node.#children.get(element);
        if (child) visit(child, [...prefix, element]);
      }
    };
    visit(this, []);
    return result;
  }

  size(): number {
    return this.paths().length;
  }

  clone(): FieldSet {
    return new FieldSet().#unionInPlace(this);
  }

  #unionInPlace(other: FieldSet): this {
    for (const member of other.#members) this.#members.add(member);
    for (const [element, child] of other.#children) this.#child(element).#unionInPlace(child);
    return this;
  }

  union(other: FieldSet): FieldSet {
    return this.clone().#unionInPlace(other);
  }

  /** Members of this set that are not members of `other` (exact paths; prefixes are not implied). */
  difference(other: FieldSet): FieldSet {
    const result = new FieldSet();
    for (const member of this.#members) if (!other.#members.has(member)) result.#members.add(member);
    for (const [element, child] of this.#children) {
      const otherChild = other.#children.get(element);
      const rest = otherChild ? child.difference(otherChild) : child.clone();
      if (!rest.empty()) result.#children.set(element, rest);
    }
    return result;
  }

  intersection(other: FieldSet): FieldSet {
    const result = new FieldSet();
    for (const member of this.#members) if (other.#members.has(member)) result.#members.add(member);
    for (const [element, child] of this.#children) {
      const otherChild = other.#children.get(element);
      if (!otherChild) continue;
      const both = child.intersection(otherChild);
      if (!both.empty()) result.#children.set(element, both);
    }
    return result;
  }

  /** This set without `prefix` and every path under it (structured-merge-diff's RecursiveDifference of one path). */
  withoutSubtree(prefix: Path): FieldSet {
    const result = this.clone();
    if (prefix.length === 0) return new FieldSet();
    const parent = result.node(prefix.slice(0, -1));
    if (parent) {
      parent.#members.delete(prefix.at(-1)!);
      parent.#children.delete(prefix.at(-1)!);
    }
    return result.#pruned();
  }

  /** Only `prefix` and the paths under it. */
  onlySubtree(prefix: Path): FieldSet {
    const result = new FieldSet();
    if (this.has(prefix)) result.insert(prefix);
    const node = this.node(prefix);
    if (node && !node.empty()) {
      let target: FieldSet = result;
      for (const element of prefix) target = target.#child(element);
      target.#unionInPlace(node);
    }
    return result;
  }

  #pruned(): this {
    for (const [element, child] of this.#children) {
      child.#pruned();
      if (child.empty()) this.#children.delete(element);
    }
    return this;
  }

  equals(other: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(other.toFieldsV1());
  }

  /** The FieldsV1 wire form: members are `{}`, a member that also prefixes others holds `".": {}`. */
  toFieldsV1(): JsonObject {
    return this.#emit(false);
  }

  #emit(includeSelf: boolean): JsonObject {
    const result: JsonObject = {};
    if (includeSelf) result['.'] = {};
    // The members, then the other elements with a non-empty subtree (the order a stable sort keeps for equal elements).
    const elements = [...this.#members];
    for (const [element, child] of this.#children) if (!this.#members.has(element) && !child.empty()) elements.push(element);
    elements.sort(compareElements);
    for (const element of elements) {
      const child = this.#children.get(element);
      const member = this.#members.has(element);
      result[element] = child && !child.empty() ? child.#emit(member) : {};
    }
    return result;
  }

  /** Parses FieldsV1 (throws FieldSetError for anything but nested objects with valid element keys). */
  static fromFieldsV1(fields: JsonValue | undefined): FieldSet {
    const set = new FieldSet();
    if (fields === undefined || fields === null) return set;
    set.#read(fields, []);
    return set;
  }

  #read(fields: JsonValue, at: Path): void {
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) throw new FieldSetError(`expected an object at ${pathString(at) || '.'}`);
    for (const [element, child] of Object.entries(fields)) {
      if (element === '.') {
        if (at.length === 0) throw new FieldSetError('"." at the root');
        this.insert(at);
        continue;
      }
      if (!/^[fkvi]:/.test(element)) throw new FieldSetError(`unknown path element ${JSON.stringify(element)}`);
      if (element[0] === 'k' || element[0] === 'v') {
        try {
          JSON.parse(element.slice(2));
        } catch {
          throw new FieldSetError(`invalid path element ${JSON.stringify(element)}`);
        }
      }
      if (child === null || typeof child !== 'object' || Array.isArray(child)) throw new FieldSetError(`expected an object at ${element}`);
      const path = [...at, element];
      if (Object.keys(child).length === 0) this.insert(path);
      else this.#read(child, path);
    }
  }
}
