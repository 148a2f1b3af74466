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
// building a canonical text only for subtrees up to subtreeTextMax characters. The walk recurses
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
class BoundedTable<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();

  constructor(private readonly generationMax: number) {}

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: string): V | undefined {
    const young = this.young.get(key);
    if (young !== undefined) return young;
    const old = this.old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.young.size >= this.generationMax) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}

export class JsonInterner {
  private readonly strings = new BoundedTable<string>(generationEntriesMax);
  private readonly subtrees = new BoundedTable<object>(generationEntriesMax);

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

  /** The canonical text of the value visit() returned last, or null when too long to share. */
  private lastText: string | null = null;

  /**
   * Walks `node`'s children (interning them) and returns its canonical text, or null. The text
   * is unambiguous without escaping: strings and keys are length-prefixed. Once the text is
   * known to be too long it is no longer built, nor are its leaves' texts (they would only be
   * thrown away: the interner's allocations were 3–6 KB per stored write in every process).
   */
  private visitChildren(node: Record<string, unknown>, depth: number): string | null {
    const isArray = Array.isArray(node);
    let text: string | null = isArray ? '[' : '{';
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const current = node[key];
      const child = this.visit(current, depth + 1, text !== null);
      // An own "__proto__" (JSON.parse makes one) cannot be reassigned: it keeps its own value.
      if (child !== current && key !== '__proto__') node[key] = child;
      if (text === null) continue;
      const childText = this.lastText;
      if (childText === null) text = null;
      else if (isArray) text = text.length + childText.length + 1 > subtreeTextMax ? null : `${text}${childText},`;
      else {
        const lengthDigits = key.length < 10 ? 1 : key.length < 100 ? 2 : String(key.length).length;
        const length: number = text.length + lengthDigits + key.length + childText.length + 3;
        text = length > subtreeTextMax ? null : `${text}${key.length}:${key}=${childText},`;
      }
    }
    return text === null ? null : `${text}${isArray ? ']' : '}'}`;
  }

  /**
   * Interns `value` (a child at `depth`) and sets lastText to its canonical text; a leaf's text
   * only when `textWanted` (its parent's text is still being built), an object's always (the
   * object may be shared whatever its parent is).
   */
  private visit(value: unknown, depth: number, textWanted: boolean): unknown {
    switch (typeof value) {
      case 'string': {
        if (value.length > stringLengthMax) {
          this.lastText = null;
          return value;
        }
        this.lastText = textWanted ? `${value.length}'${value}` : null;
        return this.string(value);
      }
      case 'number':
        this.lastText = textWanted ? `n${value}` : null;
        return value;
      case 'boolean':
        this.lastText = value ? 't' : 'f';
        return value;
      case 'undefined':
        this.lastText = 'u';
        return value;
      case 'object': {
        if (value === null) {
          this.lastText = 'z';
          return value;
        }
        this.lastText = null;
        if (Object.isFrozen(value)) return value;
        if (depth > recursionMax) return deepFreeze(value);
        const text = this.visitChildren(value as Record<string, unknown>, depth);
        Object.freeze(value);
        this.lastText = text;
        if (text === null) return value;
        const known = this.subtrees.get(text);
        if (known !== undefined) return known;
        this.subtrees.set(text, value);
        return value;
      }
      default:
        this.lastText = null;
        return value;
    }
  }
}

/** The process's interner for stored objects (a cache: what it holds never changes a value). */
export const storedJson = new JsonInterner();
