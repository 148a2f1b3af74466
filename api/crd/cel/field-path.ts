// Owns: a rule's fieldPath: kube's ValidFieldPath (a JSON path of `.field` and `['key']`
// accessors that must name declared properties or map keys of the rule's schema node) and its
// normalized field.Path text.

import type { CelSchema } from './schema.ts';

/** A fieldPath that does not name a field of the schema; the message is kube's. */
export class FieldPathError extends Error {}

function unescapeSingleQuote(text: string): string {
  return text.replace(/\\(.)/g, (match, directive: string) => {
    switch (directive) {
      case 'a': return '\x07';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      case 'v': return '\v';
      case "'": return "'";
      case '\\': return '\\';
      default: throw new FieldPathError(`invalid string literal: invalid escape char ${match}`);
    }
  });
}

/** Splits a path into '.', '[', ']' and the text between them; a single-quoted string is one token. */
function tokens(path: string): string[] {
  const result: string[] = [];
  let index = 0;
  while (index < path.length) {
    if (path[index] === "'") {
      let end = index + 1;
      while (end < path.length && !(path[end] === "'" && path[end - 1] !== '\\')) end += 1;
      result.push(path.slice(index, end + 1));
      index = end + 1;
      continue;
    }
    const char = path[index]!;
    if (char === '.' || char === '[' || char === ']') {
      result.push(char);
      index += 1;
      continue;
    }
    let end = index;
    while (end < path.length && !['.', '[', ']', "'"].includes(path[end]!)) end += 1;
    if (end === index) end += 1;
    result.push(path.slice(index, end));
    index = end;
  }
  return result;
}

/**
 * kube's ValidFieldPath: the normalized field path (`spec.foo`, `labels[a.b]`) of a rule's
 * fieldPath relative to the schema node; throws FieldPathError with kube's reason.
 */
export function validFieldPath(jsonPath: string, schema: CelSchema): { readonly path: string; readonly schema: CelSchema } {
  let current: CelSchema = schema;
  let path = '';
  const append = (name: string, named: boolean): void => {
    if (!named) {
      path += `[${name}]`;
      current = current.additionalProperties as CelSchema;
      return;
    }
    path += path === '' ? name : `.${name}`;
    const next = current.properties?.[name];
    if (next === undefined) throw new FieldPathError('does not refer to a valid field');
    current = next;
  };
  const isNamed = (): boolean => {
    if (current.properties !== undefined) return true;
    if (typeof current.additionalProperties === 'object') return false;
    throw new FieldPathError('does not refer to a valid field');
  };
  const list = tokens(jsonPath);
  for (let index = 0; index < list.length; index += 1) {
    const token = list[index]!;
    if (token === '[') {
      const quoted = list[++index];
      if (quoted === undefined) throw new FieldPathError('unexpected end of JSON path');
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) throw new FieldPathError(`expected single quoted string but got ${quoted}`);
      const unescaped = unescapeSingleQuote(quoted.slice(1, -1));
      append(unescaped, isNamed());
      const close = list[++index];
      if (close === undefined) throw new FieldPathError('unexpected end of JSON path');
      if (close !== ']') throw new FieldPathError(`expected ] but got ${close}`);
    } else if (token === '.') {
      const name = list[++index];
      if (name === undefined) throw new FieldPathError('unexpected end of JSON path');
      append(name, isNamed());
    } else {
      throw new FieldPathError(`expected [ or . but got: ${token}`);
    }
  }
  return { path, schema: current };
}
