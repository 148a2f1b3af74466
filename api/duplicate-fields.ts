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

/** Reads a JSON string starting at the opening quote; returns its value and the index after it. */
function readString(text: string, start: number): { value: string; end: number } {
  let position = start + 1;
  while (text[position] !== '"') position += text[position] === '\\' ? 2 : 1;
  return { value: JSON.parse(text.slice(start, position + 1)) as string, end: position + 1 };
}

/** Paths of every key that appears twice in the same object, in document order, each once. */
export function duplicateFields(text: string): string[] {
  const stack: Frame[] = [];
  const duplicates = new Set<string>();
  let expectKey = false;
  for (let position = 0; position < text.length;) {
    const character = text[position]!;
    const top = stack.at(-1);
    if (character === '"') {
      const { value, end } = readString(text, position);
      position = end;
      if (top?.kind === 'object' && expectKey) {
        if (top.keys.has(value)) duplicates.add(childPath(top.path, value));
        top.keys.add(value);
        top.pendingKey = value;
        expectKey = false;
      }
      continue;
    }
    if (character === '{' || character === '[') {
      const path = top?.kind === 'object' ? childPath(top.path, top.pendingKey ?? '') : top?.path ?? '';
      stack.push({ kind: character === '{' ? 'object' : 'array', path, keys: new Set(), pendingKey: undefined });
      expectKey = character === '{';
    } else if (character === '}' || character === ']') {
      stack.pop();
      expectKey = false;
    } else if (character === ',') {
      expectKey = stack.at(-1)?.kind === 'object';
    }
    position++;
  }
  return [...duplicates];
}
