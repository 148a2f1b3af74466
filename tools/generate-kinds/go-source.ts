// Owns: reading Go source files of API type packages into declarations: imports, package
// markers, struct types with their fields (type expression, struct tag, `+marker` comment lines),
// named types and aliases, constants, and method names per receiver type.
//
// A line-oriented parser, enough for gofmt-formatted API type files: a top-level declaration
// starts at column 0 and a top-level block ends at a line starting with `}` or `)` at column 0.
// Function bodies, interfaces and variable blocks are skipped. Comment prose is never kept; only
// the `+name[=value]` marker lines are.

/** One `// +name=value` (or `// +name`) marker line. */
export interface GoMarker {
  readonly name: string;
  readonly value: string | undefined;
}

/** One struct field: `Name Type \`tag\`` or an embedded `Type \`tag\``. */
export interface GoField {
  /** Undefined for an embedded field. */
  readonly name: string | undefined;
  /** The type expression as written (`*int32`, `[]Container`, `map[string]string`, `metav1.ObjectMeta`). */
  readonly type: string;
  /** Struct tag key → value (`json` → `replicas,omitempty`). */
  readonly tag: ReadonlyMap<string, string>;
  /** Markers of the comment lines directly above the field (no blank line between). */
  readonly markers: readonly GoMarker[];
  /** Set when the line could not be read as a field; describing a message with it fails. */
  readonly unreadable?: string;
  readonly where: string;
}

interface GoDeclarationBase {
  readonly name: string;
  /** Markers of the comment lines between the previous top-level code line and the declaration. */
  readonly markers: readonly GoMarker[];
  /** The import table of the declaring file: package name or alias → import path. */
  readonly imports: ReadonlyMap<string, string>;
  readonly where: string;
}

export interface GoStructDeclaration extends GoDeclarationBase {
  readonly form: 'struct';
  readonly fields: readonly GoField[];
  /** Every marker inside the struct body, attached to a field or not (`+k8s:deprecated=...`). */
  readonly bodyMarkers: readonly GoMarker[];
}

/** `type Name Underlying`: a defined type (`type Protocol string`, `type ResourceList map[...]...`, `type List metav1.List`). */
export interface GoNamedDeclaration extends GoDeclarationBase {
  readonly form: 'named';
  readonly underlying: string;
}

/** `type Name = Target`. */
export interface GoAliasDeclaration extends GoDeclarationBase {
  readonly form: 'alias';
  readonly target: string;
}

export type GoTypeDeclaration = GoStructDeclaration | GoNamedDeclaration | GoAliasDeclaration;

/** A constant's value: a string literal, another identifier, or anything else (kept as text). */
export type GoConstValue =
  | { readonly form: 'string'; readonly value: string }
  | { readonly form: 'identifier'; readonly name: string }
  | { readonly form: 'other'; readonly text: string };

export interface GoConstant {
  readonly name: string;
  /** The declared type as written, when the constant is typed. */
  readonly type: string | undefined;
  readonly value: GoConstValue;
  readonly imports: ReadonlyMap<string, string>;
}

export interface GoPackage {
  readonly importPath: string;
  /** Markers of the package clause's comments (doc.go's `+groupName=`). */
  readonly markers: readonly GoMarker[];
  readonly types: ReadonlyMap<string, GoTypeDeclaration>;
  readonly constants: ReadonlyMap<string, GoConstant>;
  /** Receiver type name → names of its methods. */
  readonly methods: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface GoSourceFile {
  readonly path: string;
  readonly text: string;
}

const markerLine = /^\/\/\s*\+([^\s=]+)(?:=(.*))?$/;

/** The marker of one comment line (already trimmed), if it is a marker line. */
export function markerOf(commentLine: string): GoMarker | undefined {
  const matched = markerLine.exec(commentLine);
  if (!matched) return undefined;
  return { name: matched[1]!, value: matched[2] === undefined ? undefined : matched[2].trim() };
}

function markersOf(commentLines: readonly string[]): GoMarker[] {
  return commentLines.map(markerOf).filter((marker): marker is GoMarker => marker !== undefined);
}

/** Parses `key:"value" key2:"value2"` (a struct tag's content). */
export function parseStructTag(text: string): Map<string, string> {
  const tag = new Map<string, string>();
  for (const matched of text.matchAll(/([A-Za-z_][\w-]*):"((?:[^"\\]|\\.)*)"/g)) tag.set(matched[1]!, matched[2]!);
  return tag;
}

/** Reads a Go string literal at the start of `text` ("..." or `...`); undefined if there is none. */
function leadingStringLiteral(text: string): { value: string; rest: string } | undefined {
  if (text.startsWith('`')) {
    const end = text.indexOf('`', 1);
    return end < 0 ? undefined : { value: text.slice(1, end), rest: text.slice(end + 1) };
  }
  if (!text.startsWith('"')) return undefined;
  let value = '';
  for (let index = 1; index < text.length; index++) {
    const char = text[index]!;
    if (char === '"') return { value, rest: text.slice(index + 1) };
    if (char === '\\') {
      const next = text[index + 1];
      index++;
      value += next === 'n' ? '\n' : next === 't' ? '\t' : (next ?? '');
      continue;
    }
    value += char;
  }
  return undefined;
}

function constValueOf(text: string): GoConstValue {
  const literal = leadingStringLiteral(text);
  if (literal && /^\s*(\/\/.*)?$/.test(literal.rest)) return { form: 'string', value: literal.value };
  const identifier = /^([A-Za-z_][\w.]*)\s*(\/\/.*)?$/.exec(text);
  if (identifier) return { form: 'identifier', name: identifier[1]! };
  return { form: 'other', text: text.replace(/\s*\/\/.*$/, '') };
}

const constLine = /^\s*([A-Za-z_]\w*)(?:\s+([A-Za-z_][\w.]*))?\s*=\s*(.+)$/;

/** Line index just after the block opened on line `start` (ends at a column-0 `}` or `)`). */
function skipBlock(lines: readonly string[], start: number): number {
  let index = start + 1;
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.startsWith('}') || line.startsWith(')')) {
      // `) error {` closes a multi-line signature and opens the body.
      if (line.trimEnd().endsWith('{')) return skipBlock(lines, index);
      return index + 1;
    }
    index++;
  }
  throw new Error(`unterminated block from line ${start + 1}`);
}

function parseField(line: string, markers: GoMarker[], where: string): GoField {
  let rest = line.trim();
  let tagText = '';
  const tagStart = rest.indexOf('`');
  if (tagStart >= 0) {
    const tagEnd = rest.indexOf('`', tagStart + 1);
    if (tagEnd < 0) return { name: undefined, type: '', tag: new Map(), markers, unreadable: line.trim(), where };
    tagText = rest.slice(tagStart + 1, tagEnd);
    rest = rest.slice(0, tagStart);
  } else {
    rest = rest.replace(/\s*\/\/.*$/, '');
  }
  const tokens = rest.trim().split(/\s+/);
  const tag = parseStructTag(tagText);
  const typePattern = /^[\w.*[\]{}]+$/;
  if (tokens.length === 1 && typePattern.test(tokens[0]!)) return { name: undefined, type: tokens[0]!, tag, markers, where };
  if (tokens.length === 2 && /^[A-Za-z_]\w*$/.test(tokens[0]!) && typePattern.test(tokens[1]!)) {
    return { name: tokens[0]!, type: tokens[1]!, tag, markers, where };
  }
  return { name: undefined, type: '', tag, markers, unreadable: line.trim(), where };
}

interface MutablePackage {
  markers: GoMarker[];
  types: Map<string, GoTypeDeclaration>;
  constants: Map<string, GoConstant>;
  methods: Map<string, Set<string>>;
}

function parseFile(file: GoSourceFile, into: MutablePackage): void {
  const lines = file.text.split('\n');
  const imports = new Map<string, string>();
  let pendingComments: string[] = [];
  const addImport = (spec: string): void => {
    const matched = /^(?:([\w.]+)\s+)?"([^"]+)"/.exec(spec.trim());
    if (!matched) return;
    const path = matched[2]!;
    const alias = matched[1] ?? path.split('/').pop()!;
    if (alias !== '_' && alias !== '.') imports.set(alias, path);
  };
  const addConstant = (text: string): void => {
    const matched = constLine.exec(text);
    if (!matched) return;
    // `Name = Type("value")` is typed by its conversion.
    const converted = matched[2] === undefined ? /^([A-Za-z_][\w.]*)\((.*)\)\s*(\/\/.*)?$/.exec(matched[3]!.trim()) : null;
    if (converted) {
      into.constants.set(matched[1]!, { name: matched[1]!, type: converted[1], value: constValueOf(converted[2]!.trim()), imports });
      return;
    }
    into.constants.set(matched[1]!, { name: matched[1]!, type: matched[2], value: constValueOf(matched[3]!.trim()), imports });
  };
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    const where = `${file.path}:${index + 1}`;
    if (line.startsWith('//')) {
      pendingComments.push(line.trim());
      index++;
      continue;
    }
    if (line.trim() === '') {
      index++;
      continue;
    }
    const markers = markersOf(pendingComments);
    pendingComments = [];
    if (line.startsWith('/*')) {
      while (index < lines.length && !lines[index]!.includes('*/')) index++;
      index++;
      continue;
    }
    if (line.startsWith('package ')) {
      into.markers.push(...markers);
      index++;
      continue;
    }
    if (line === 'import (') {
      index++;
      while (index < lines.length && !lines[index]!.startsWith(')')) addImport(lines[index++]!);
      index++;
      continue;
    }
    if (line.startsWith('import ')) {
      addImport(line.slice('import '.length));
      index++;
      continue;
    }
    let matched = /^type (\w+) struct \{$/.exec(line);
    if (matched) {
      const name = matched[1]!;
      const fields: GoField[] = [];
      const bodyMarkers: GoMarker[] = [];
      let fieldComments: string[] = [];
      index++;
      for (; index < lines.length && !lines[index]!.startsWith('}'); index++) {
        const fieldLine = lines[index]!.trim();
        if (fieldLine.startsWith('/*')) {
          while (index < lines.length && !lines[index]!.includes('*/')) index++;
          fieldComments = [];
        } else if (fieldLine.startsWith('//')) {
          fieldComments.push(fieldLine);
          const marker = markerOf(fieldLine);
          if (marker) bodyMarkers.push(marker);
        } else if (fieldLine === '') {
          fieldComments = [];
        } else {
          fields.push(parseField(fieldLine, markersOf(fieldComments), `${file.path}:${index + 1}`));
          fieldComments = [];
        }
      }
      index++;
      into.types.set(name, { form: 'struct', name, fields, bodyMarkers, markers, imports, where });
      continue;
    }
    matched = /^type (\w+) struct\s*\{\s*\}\s*(\/\/.*)?$/.exec(line);
    if (matched) {
      into.types.set(matched[1]!, { form: 'struct', name: matched[1]!, fields: [], bodyMarkers: [], markers, imports, where });
      index++;
      continue;
    }
    if (/^type \w+ interface \{$/.test(line)) {
      index = skipBlock(lines, index);
      continue;
    }
    matched = /^type (\w+) = (\S+)\s*(\/\/.*)?$/.exec(line);
    if (matched) {
      into.types.set(matched[1]!, { form: 'alias', name: matched[1]!, target: matched[2]!, markers, imports, where });
      index++;
      continue;
    }
    matched = /^type (\w+) (.+?)\s*(\/\/.*)?$/.exec(line);
    if (matched) {
      into.types.set(matched[1]!, { form: 'named', name: matched[1]!, underlying: matched[2]!, markers, imports, where });
      if (line.trimEnd().endsWith('{')) index = skipBlock(lines, index);
      else index++;
      continue;
    }
    if (line === 'const (') {
      index++;
      while (index < lines.length && !lines[index]!.startsWith(')')) addConstant(lines[index++]!);
      index++;
      continue;
    }
    if (line.startsWith('const ')) {
      addConstant(line.slice('const '.length));
      index++;
      continue;
    }
    matched = /^func \((?:\w+ )?\*?(\w+)\) (\w+)\(/.exec(line);
    if (matched) {
      const methods = into.methods.get(matched[1]!) ?? new Set<string>();
      methods.add(matched[2]!);
      into.methods.set(matched[1]!, methods);
    }
    const trimmed = line.trimEnd();
    if (trimmed.endsWith('{') || trimmed.endsWith('(')) index = skipBlock(lines, index);
    else index++;
  }
}

/** Parses the Go files of one package (the caller leaves out tests and generated code). */
export function parseGoPackage(importPath: string, files: readonly GoSourceFile[]): GoPackage {
  const parsed: MutablePackage = { markers: [], types: new Map(), constants: new Map(), methods: new Map() };
  for (const file of [...files].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0))) {
    try {
      parseFile(file, parsed);
    } catch (error) {
      throw new Error(`${file.path}: ${(error as Error).message}`);
    }
  }
  return { importPath, ...parsed };
}
