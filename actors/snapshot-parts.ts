// Owns: the parts table of a snapshot (format 4), and of the state an API replica copies from a
// store member at its start (deploy/state-service.ts streams it: each chunk carries the parts its
// objects are the first to refer to, newPartTexts / addParts). Stored objects share sub-parts in memory: the
// interner (json-intern.ts) makes one object of every equal small part (a managedFields entry, its
// fieldsV1 tree, a label set), and a new version keeps the parts an update did not touch from the
// previous one. A snapshot that writes every object in full writes each shared part once per
// place, and a restore then has to find the sharing again by content (canonical texts and table
// lookups for every small part of every object: a quarter of a restart's main thread). Here a part
// that is one object in several places is written once, in a `parts` table, and each place as a
// reference to it; the restore resolves each reference to one frozen object, so the restored
// objects share exactly what the written ones did, with no content lookups.
//
// The text is JSON. Within a written unit (a table object, or a part) an object whose only key is
// `$` with a non-negative integer is a reference to that part; a stored object that has an own `$`
// key is written wrapped, as {"$":-1,"v":<the object>}. Both hold only down to unitDepthMax levels
// below a unit's root; below that, values are written and read as plain JSON (a stored value's depth
// is bounded by the API tier, a snapshot's is not). Empty objects and arrays are never parts; the
// restore makes each one shared. Short strings are shared through the interner, as compactFrozen
// shares them.
// Must not: change a value (key order, undefined members and every serialisation of a restored
// object are the written one's), share what was not shared when written (beyond empty objects and
// arrays, and short strings), or read a clock, random numbers or I/O.
// The bytes depend on what the writer's objects share by identity, which the interner's bounded
// tables decide: two replicas in the same state write the same values, not always the same bytes.
import { assert } from '../raft/stdx/index.ts';
import { deepFreeze } from './json.ts';
import { storedJson } from './json-intern.ts';

/** The key of a reference (and of the wrapper of a stored object that has this key itself). */
const referenceKey = '$';
/** The reference-wrapper value marking a stored object written wrapped. */
const wrappedMark = -1;
/** Levels below a unit's root where references and wrappers are written and read. */
const unitDepthMax = 64;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function hasEntries(value: object): boolean {
  if (Array.isArray(value)) return value.length > 0;
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

/**
 * Writes units (table objects, then the parts they refer to) with references for their shared
 * parts. scan() every unit root first (in writing order), then write() them; parts are numbered in
 * the order write() first refers to them, and partsToWrite() yields each numbered part, including
 * those numbered while earlier parts are written.
 */
export class SnapshotPartsWriter {
  private readonly seen = new Set<object>();
  private readonly shared = new Set<object>();
  private readonly numbers = new Map<object, number>();
  private readonly parts: object[] = [];
  /** Parts handed out by newPartTexts() so far. */
  private partsHandedOut = 0;

  /** Notes the sub-parts of one unit root; a sub-part met a second time (anywhere) is shared. */
  scan(root: object): void {
    this.scanChildren(root, 0);
  }

  private scanChildren(node: object, depth: number): void {
    if (depth >= unitDepthMax) return;
    if (Array.isArray(node)) {
      for (let at = 0; at < node.length; at++) this.scanChild(node[at], depth + 1);
      return;
    }
    for (const key in node) if (Object.hasOwn(node, key)) this.scanChild((node as JsonObject)[key], depth + 1);
  }

  private scanChild(child: unknown, depth: number): void {
    if (!isObject(child) || !hasEntries(child)) return;
    // One hash operation per sub-part: the set grows unless the part was met before.
    const seenBefore = this.seen.size;
    this.seen.add(child);
    if (this.seen.size === seenBefore) {
      this.shared.add(child);
      return;
    }
    this.scanChildren(child, depth);
  }

  /** Sub-parts met more than once (tests, diagnostics). */
  get sharedCount(): number {
    return this.shared.size;
  }

  /** A unit's JSON text, its shared sub-parts written as references. */
  write(root: object): string {
    return this.unitText(root);
  }

  /** The parts referred to so far and any they refer to, in number order (the list grows while it is read). */
  *partsToWrite(): Generator<object, void, undefined> {
    for (let at = 0; at < this.parts.length; at++) yield this.parts[at] as object;
  }

  /**
   * For a stream of units (deploy/state-service.ts): the texts of the parts numbered since the
   * last call, and of any they refer to, in number order. A reader that adds them before the units
   * written since resolves every reference those units hold.
   */
  newPartTexts(): string[] {
    const texts: string[] = [];
    for (; this.partsHandedOut < this.parts.length; this.partsHandedOut++) texts.push(this.write(this.parts[this.partsHandedOut] as object));
    return texts;
  }

  private unitText(root: object): string {
    return Array.isArray(root) ? this.arrayText(root, 0) : this.objectText(root as JsonObject, 0);
  }

  private valueText(value: unknown, depth: number): string | undefined {
    if (!isObject(value)) return JSON.stringify(value);
    if (depth > unitDepthMax) return JSON.stringify(value);
    if (this.shared.has(value)) return `{"${referenceKey}":${this.numberOf(value)}}`;
    return Array.isArray(value) ? this.arrayText(value, depth) : this.objectText(value as JsonObject, depth);
  }

  private numberOf(part: object): number {
    let number = this.numbers.get(part);
    if (number === undefined) {
      number = this.parts.length;
      this.numbers.set(part, number);
      this.parts.push(part);
    }
    return number;
  }

  private arrayText(array: readonly unknown[], depth: number): string {
    let text = '[';
    for (let at = 0; at < array.length; at++) {
      // As JSON.stringify: an array member that JSON cannot hold (undefined) is written as null.
      text += `${at === 0 ? '' : ','}${this.valueText(array[at], depth + 1) ?? 'null'}`;
    }
    return `${text}]`;
  }

  private objectText(object: JsonObject, depth: number): string {
    let text = '{';
    let first = true;
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      const member = this.valueText(object[key], depth + 1);
      // As JSON.stringify: a member that JSON cannot hold (undefined) is left out.
      if (member === undefined) continue;
      text += `${first ? '' : ','}${JSON.stringify(key)}:${member}`;
      first = false;
    }
    text += '}';
    return Object.hasOwn(object, referenceKey) ? `{"${referenceKey}":${wrappedMark},"v":${text}}` : text;
  }
}

const sharedEmptyObject: object = Object.freeze({});
const sharedEmptyArray: readonly unknown[] = Object.freeze([]);

/**
 * Reads parsed units back: references resolved to one frozen object per part (each part read once,
 * when first referred to), wrappers removed, empty objects and arrays and short strings shared,
 * everything frozen. The parsed values are completed in place (an assignment keeps a key where
 * it was).
 */
export class SnapshotPartsReader {
  private readonly rawParts: unknown[];
  private readonly resolved: (object | undefined)[] = [];
  private readonly resolving = new Set<number>();

  constructor(rawParts: readonly unknown[] = []) {
    this.rawParts = [...rawParts];
  }

  /** Appends parsed parts to the table (a stream's parts arrive with the units that first refer to them). */
  addParts(rawParts: readonly unknown[]): void {
    for (const part of rawParts) this.rawParts.push(part);
  }

  /** A parsed unit root, read back (the root itself, unless it was written wrapped). */
  read(root: unknown): object {
    assert(isObject(root), 'a snapshot unit is an object or an array');
    return this.objectValue(root, 0, true);
  }

  private part(number: unknown): object {
    assert(typeof number === 'number' && Number.isInteger(number) && number >= 0 && number < this.rawParts.length,
      `snapshot part ${String(number)} is in the table`);
    const known = this.resolved[number];
    if (known !== undefined) return known;
    assert(!this.resolving.has(number), `snapshot part ${number} does not contain itself`);
    this.resolving.add(number);
    const part = this.read(this.rawParts[number]);
    this.resolving.delete(number);
    this.resolved[number] = part;
    return part;
  }

  private value(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return storedJson.string(value);
    if (!isObject(value)) return value;
    if (depth > unitDepthMax) return deepFreeze(value);
    return this.objectValue(value, depth, false);
  }

  private objectValue(value: object, depth: number, root: boolean): object {
    if (Array.isArray(value)) {
      if (value.length === 0) return root ? Object.freeze(value) : sharedEmptyArray;
      for (let at = 0; at < value.length; at++) {
        const member: unknown = value[at];
        const read = this.value(member, depth + 1);
        if (read !== member) value[at] = read;
      }
      return Object.freeze(value);
    }
    let object = value as JsonObject;
    if (Object.hasOwn(object, referenceKey)) {
      const mark = object[referenceKey];
      if (mark !== wrappedMark) {
        assert(!root, 'a snapshot unit is not a reference');
        return this.part(mark);
      }
      const wrapped = object['v'];
      assert(isObject(wrapped) && !Array.isArray(wrapped), 'a wrapped snapshot object holds an object');
      object = wrapped as JsonObject;
    } else if (!root && !hasEntries(object)) return sharedEmptyObject;
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      const member = object[key];
      const read = this.value(member, depth + 1);
      if (read === member) continue;
      // An own "__proto__" (JSON.parse makes one) is redefined, not assigned (which would set the prototype).
      if (key === '__proto__') Object.defineProperty(object, key, { value: read, writable: true, enumerable: true, configurable: true });
      else object[key] = read;
    }
    return Object.freeze(object);
  }
}
