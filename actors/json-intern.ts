// Owns: sharing equal small parts of stored objects (hash-consing), so that N stored objects of
// one shape hold their common parts once: the fieldsV1 tree of a managedFields entry, a label
// set, empty `{}` and `[]`, and short strings (names of managers, label values, timestamps of
// the same second). Everything it hands out is deep-frozen, as everything stored in actors/ is;
// sharing a frozen value is invisible to every reader (values, key order and bytes of every
// serialisation stay the same), so it can never make two replicas disagree.
// Must not: change a value (an interned subtree is equal to the one it replaces, with the same
// key order), share a root (stored objects keep their identity: snapshots number them by it),
// or grow without bound (both tables are bounded; a full table forgets its least used entries).
//
// Cost: one walk of the parts of a value that are not frozen yet (a new version's own parts),
// hashing the canonical text of subtrees up to subtreeTextMax characters without building it,
// and a comparison of two subtrees when their hashes meet. The walk recurses
// at most recursionMax levels; anything deeper is frozen without interning (a stored value's
// depth is bounded by the API tier, a snapshot's is not).
import { deepFreeze } from './json.ts';

/** Subtrees whose canonical text is longer than this are not shared (their children may be). */
const subtreeTextMax = 160;
/** Strings up to this length are shared. */
const stringLengthMax = 64;
/**
 * Strings up to this length are left as they are: JSON.parse, where stored values come from (a
 * request body, a log entry, a snapshot), hands out one internalized string per distinct value of
 * up to 10 characters (V8; measured: a parsed array of 1,000,000 such values costs 8 B per
 * member, of 11-character ones 40 B), so looking them up again only costs time.
 */
const parsedStringsSharedMax = 10;
/** Entries per generation of a table (a table holds at most two). */
const generationEntriesMax = 10_000;
const recursionMax = 64;

/**
 * A bounded map in two generations: new entries go to the young one; when it is full it becomes
 * the old one (the previous old one is dropped), and a hit in the old one moves up. O(1) per
 * operation, at most 2 × generationMax entries, what is in use stays.
 */
class BoundedTable<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(private readonly generationMax: number) {}

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const young = this.young.get(key);
    if (young !== undefined) return young;
    const old = this.old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.generationMax) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}

export class JsonInterner {
  private readonly strings = new BoundedTable<string, string>(generationEntriesMax);
  /** Shared subtrees by the hash of their canonical text. */
  private readonly subtrees = new BoundedTable<number, object>(generationEntriesMax);

  /** Entries held (tests, diagnostics). */
  get size(): { readonly strings: number; readonly subtrees: number } {
    return { strings: this.strings.size, subtrees: this.subtrees.size };
  }

  /** A short string's shared copy (the string itself otherwise). */
  string(value: string): string {
    if (value.length > stringLengthMax || value.length <= parsedStringsSharedMax) return value;
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  /**
   * Deep-freezes `root` in place (as json.ts deepFreeze) and, on the way, replaces its not yet
   * frozen small parts by equal shared ones. The root itself is never replaced. Parts that are
   * frozen already are kept as they are (they are stored parts of an older version).
   */
  compactFrozen<T>(root: T): T {
    if (typeof root !== 'object' || root === null || Object.isFrozen(root)) return root;
    this.visitChildren(root as Record<string, unknown>, 0);
    Object.freeze(root);
    return root;
  }

  /**
   * The canonical text of the value visit() returned last, as its length (-1: too long to share,
   * or not built) and a hash of it. The text itself is never built: two subtrees with the same
   * length and hash are compared value by value (sameContent) before one stands for the other.
   */
  private lastLength = -1;
  private lastHash = 0;

  /**
   * Walks `node`'s children (interning them) and sets lastLength and lastHash to its canonical
   * text's. The text is unambiguous without escaping: strings and keys are length-prefixed. Once
   * it is known to be too long, its leaves' hashes are no longer computed.
   */
  private visitChildren(node: Record<string, unknown>, depth: number): void {
    const isArray = Array.isArray(node);
    // The text so far: `[` or `{`, then per child `<text>,` (array) or `<key length>:<key>=<text>,`.
    let length = 1;
    let hash = isArray ? arrayHashSeed : objectHashSeed;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const current = node[key];
      const child = this.visit(current, depth + 1, length >= 0);
      // An own "__proto__" (JSON.parse makes one) cannot be reassigned: it keeps its own value.
      if (child !== current && key !== '__proto__') node[key] = child;
      if (length < 0) continue;
      const childLength = this.lastLength;
      if (childLength < 0) {
        length = -1;
        continue;
      }
      if (isArray) length += childLength + 1;
      else {
        const lengthDigits = key.length < 10 ? 1 : key.length < 100 ? 2 : String(key.length).length;
        length += lengthDigits + key.length + childLength + 3;
        hash = mix(hash, stringHash(key));
      }
      hash = mix(hash, this.lastHash);
      if (length > subtreeTextMax) length = -1;
    }
    // The closing bracket counts in a parent's text, not in this one's limit.
    this.lastLength = length < 0 ? -1 : length + 1;
    this.lastHash = mix(hash, this.lastLength);
  }

  /**
   * Interns `value` (a child at `depth`) and sets lastLength and lastHash to its canonical text's:
   * a leaf's only when `textWanted` (its parent's text is still within the limit), an object's
   * always (the object may be shared whatever its parent is).
   */
  private visit(value: unknown, depth: number, textWanted: boolean): unknown {
    switch (typeof value) {
      case 'string': {
        if (value.length > stringLengthMax || !textWanted) this.lastLength = -1;
        else {
          // `<length>'<value>`
          this.lastLength = (value.length < 10 ? 2 : 3) + value.length;
          this.lastHash = stringHash(value);
        }
        return value.length > stringLengthMax ? value : this.string(value);
      }
      case 'number':
        if (textWanted) {
          // `n<value>`, as String() writes it (0 and -0 alike, as the text has them).
          const written = String(value);
          this.lastLength = 1 + written.length;
          this.lastHash = mix(numberHashSeed, stringHash(written));
        } else this.lastLength = -1;
        return value;
      case 'boolean':
        this.lastLength = 1;
        this.lastHash = value ? trueHash : falseHash;
        return value;
      case 'undefined':
        this.lastLength = 1;
        this.lastHash = undefinedHash;
        return value;
      case 'object': {
        if (value === null) {
          this.lastLength = 1;
          this.lastHash = nullHash;
          return value;
        }
        this.lastLength = -1;
        if (Object.isFrozen(value)) return value;
        if (depth > recursionMax) return deepFreeze(value);
        this.visitChildren(value as Record<string, unknown>, depth);
        Object.freeze(value);
        if (this.lastLength < 0) return value;
        const known = this.subtrees.get(this.lastHash);
        if (known !== undefined && sameContent(known, value)) return known;
        this.subtrees.set(this.lastHash, value);
        return value;
      }
      default:
        this.lastLength = -1;
        return value;
    }
  }
}

// Hashes of canonical texts (32-bit FNV-1a steps over UTF-16 code units and child hashes). A
// collision costs only a comparison: sameContent decides.
const fnvPrime = 0x01000193;
const fnvOffset = 0x811c9dc5;
const arrayHashSeed = 0x5b;
const objectHashSeed = 0x7b;
const numberHashSeed = 0x6e;
const trueHash = 0x74;
const falseHash = 0x66;
const undefinedHash = 0x75;
const nullHash = 0x7a;

function mix(hash: number, value: number): number {
  return Math.imul(hash ^ value, fnvPrime);
}

/** A string's hash as canonical texts use it (exported for tests, which look for collisions). */
export function stringHash(value: string): number {
  let hash = Math.imul(fnvOffset ^ value.length, fnvPrime);
  for (let index = 0; index < value.length; index++) hash = Math.imul(hash ^ value.charCodeAt(index), fnvPrime);
  return hash;
}

/**
 * Whether two interned subtrees have the same canonical text: the same kind (array or object),
 * the same keys in the same order, and children that are the same value or, for objects, of the
 * same content. Numbers compare as their texts do (0 and -0 alike).
 */
function sameContent(left: object, right: object): boolean {
  if (left === right) return true;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  for (let index = 0; index < leftKeys.length; index++) {
    const key = leftKeys[index]!;
    if (key !== rightKeys[index]) return false;
    const leftValue = (left as Record<string, unknown>)[key];
    const rightValue = (right as Record<string, unknown>)[key];
    if (leftValue === rightValue) continue;
    if (typeof leftValue !== 'object' || typeof rightValue !== 'object' || leftValue === null || rightValue === null) return false;
    if (!sameContent(leftValue, rightValue)) return false;
  }
  return true;
}

/** The process's interner for stored objects (a cache: what it holds never changes a value). */
export const storedJson = new JsonInterner();
