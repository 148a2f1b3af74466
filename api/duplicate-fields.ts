// Owns: finding duplicate keys in a JSON document (fieldValidation: kube-apiserver reports
// `duplicate field "metadata.name"` under Strict and as a warning under Warn). JSON.parse
// silently keeps the last value, so the raw text is scanned once more: a small tokenizer that
// tracks the keys of each open object. Runs only on documents that JSON.parse accepted.

interface Frame {
  readonly kind: 'object' | 'array';
  readonly path: string;
  readonly keys: Set<string>;
  /** In an object: the key whose value comes next; in an array: unused. */
  pendingKey: string | undefined;
}

function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** The index of the quote closing the JSON string that opens at `start` (one not escaped by an odd run of backslashes). */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** The value of the JSON string from the quote at `start` to the one at `end` (escapes decoded only when there are any). */
function stringValue(text: string, start: number, end: number): string {
  const body = text.slice(start + 1, end);
  return body.includes('\\') ? JSON.parse(text.slice(start, end + 1)) as string : body;
}

/** Paths of every key that appears twice in the same object, in document order, each once. */
export function duplicateFields(text: string): string[] {
  const stack: Frame[] = [];
  const duplicates = new Set<string>();
  let expectKey = false;
  for (let position = 0; position < text.length;) {
    const code = text.charCodeAt(position);
    const top = stack.at(-1);
    if (code === 0x22) {
      const end = stringEnd(text, position);
      // Only keys are read; a value string is stepped over.
      if (top?.kind === 'object' && expectKey) {
        const value = stringValue(text, position, end);
        if (top.keys.has(value)) duplicates.add(childPath(top.path, value));
        top.keys.add(value);
        top.pendingKey = value;
        expectKey = false;
      }
      position = end + 1;
      continue;
    }
    if (code === 0x7b || code === 0x5b) {
      const path = top?.kind === 'object' ? childPath(top.path, top.pendingKey ?? '') : top?.path ?? '';
      stack.push({ kind: code === 0x7b ? 'object' : 'array', path, keys: new Set(), pendingKey: undefined });
      expectKey = code === 0x7b;
    } else if (code === 0x7d || code === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (code === 0x2c) {
      expectKey = stack.at(-1)?.kind === 'object';
    }
    position++;
  }
  return [...duplicates];
}
