// Owns: refusing bad request bodies at decode with kube-apiserver's answers: JSON syntax and
// nesting (Go's scanner messages, api/json-text.ts), YAML nesting (go-yaml's "exceeded max
// depth"), numbers a typed decode refuses (1e400, 2^64 in an int64 field), the shape of each
// patch type's body as kube decodes it (a JSON patch is an array of at most 10,000
// operations; merge and strategic merge patches are objects; strategic merge patch's
// top-level directives), and the size of a patched object. Every limit is in
// api/request-limits.ts. Each function throws an ApiError (api/status.ts) with kube's code and
// message, or returns the decoded value.
import { parse as parseYaml } from 'yaml';
import type { JsonValue } from '../actors/index.ts';
import { firstTooDeep } from './json-depth.ts';
import { scanJson } from './json-text.ts';
import type { PathSegment, ScanOptions } from './json-text.ts';
import { strategicPatchProblem } from './patch/merge-patch.ts';
import type { ResourceKind } from './registry/kinds.ts';
import { numberLiteralProblem } from './registry/validation.ts';
import type { FieldValidation } from './registry/validation.ts';
import { jsonPatchOperationsMax, nestingDepthMax, objectBytesMax } from './request-limits.ts';
import { ApiError, badRequest, requestEntityTooLarge } from './status.ts';

/** What a decode is for: the kind a create or update body must be (kube's typed decode). */
export interface BodyTarget {
  readonly kind: ResourceKind;
}

/**
 * kube's summarizeData(body, 30), appended to "the object provided is unrecognized": the first
 * 30 bytes as text when the body starts with `{`, else in hex; " ..." when cut.
 */
export function summarizeBody(raw: string): string {
  const bytes = Buffer.from(raw, 'utf8');
  if (bytes.length === 0) return '<empty>';
  const head = bytes.subarray(0, 30);
  const more = bytes.length > 30 ? ' ...' : '';
  return bytes[0] === 0x7b ? `${head.toString('utf8')}${more}` : `${head.toString('hex')}${more}`;
}

/** kube's transformDecodeError when the body's kind could not be read (Interpret failed). */
function unrecognized(target: BodyTarget, detail: string, raw: string): ApiError {
  return badRequest(`the object provided is unrecognized (must be of type ${target.kind.kind}): ${detail} (${summarizeBody(raw)})`);
}

/** kube's transformDecodeError once the kind is known: a typed decode error. */
function cannotBeHandled(target: BodyTarget, detail: string): ApiError {
  const { kind, version } = target.kind;
  return badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${detail}`);
}

/** A number literal JSON.parse would change: a fraction, an exponent, or more digits than a double holds exactly. */
function roundedByParse(literal: string): boolean {
  return /[.eE]/.test(literal) || literal.replace('-', '').length > 15;
}

/** Go's json name of a decoded value's type in "cannot unmarshal X into ...". */
function jsonKindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** The struct SimpleMetaFactory.Interpret decodes a body into to read its apiVersion and kind. */
const typeMetaStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Scan options of a body decoded without a target: nesting depth only. */
const plainBodyScan: ScanOptions = { depthMax: nestingDepthMax };

/** Scan options that remember the first number literal JSON.parse would round (for the 400). */
class NumberLiteralCheck implements ScanOptions {
  readonly depthMax = nestingDepthMax;
  problem: string | undefined;
  readonly #target: BodyTarget;

  constructor(target: BodyTarget) {
    this.#target = target;
  }

  onNumber(literal: string, path: () => PathSegment[]): undefined {
    if (this.problem === undefined && roundedByParse(literal)) this.problem = numberLiteralProblem(this.#target.kind, path(), literal);
    return undefined;
  }
}

/**
 * A JSON create/update body, checked before JSON.parse: syntax and nesting with Go's messages
 * (as SimpleMetaFactory.Interpret reports them: "couldn't get version/kind; json parse error:
 * …"), and, with a target, the number literals its kind's fields cannot hold and the
 * top-level shape, in kube's transformDecodeError wording.
 */
export function decodeJsonBody(raw: string, target?: BodyTarget): unknown {
  // No closure per call: under the TypeScript loader every named closure also costs an
  // Object.defineProperty (esbuild's keepNames), measured at ~1% of an API replica's create path.
  const numbers = target ? new NumberLiteralCheck(target) : undefined;
  const result = scanJson(raw, numbers ?? plainBodyScan);
  if (!result.ok) {
    const detail = `couldn't get version/kind; json parse error: ${result.message}`;
    throw target ? unrecognized(target, detail, raw) : badRequest(detail);
  }
  const value = JSON.parse(raw) as unknown;
  if (target && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw unrecognized(target, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKindOf(value)} into Go value of type ${typeMetaStruct}`, raw);
  }
  if (target && numbers?.problem !== undefined) throw cannotBeHandled(target, numbers.problem);
  return value;
}

/** go-yaml's depth error, with its line (1-based; none on the first line, as go-yaml prints it). */
function yamlDepthMessage(line: number | undefined): string {
  return `yaml: ${line !== undefined && line > 0 ? `line ${line + 1}: ` : ''}exceeded max depth of ${nestingDepthMax}`;
}

function isSpaceOrEnd(character: string | undefined): boolean {
  return character === undefined || character === ' ' || character === '\t' || character === '\n' || character === '\r';
}

/** The index after a quoted YAML scalar starting at `start` (`'…'` with '' escapes, `"…"` with \ escapes), and the newlines it spans. */
function skipQuoted(text: string, start: number): { end: number; newlines: number } {
  const quote = text[start];
  let position = start + 1;
  let newlines = 0;
  while (position < text.length) {
    const character = text[position]!;
    if (character === '\n') newlines++;
    if (quote === '"' && character === '\\') {
      position += 2;
      continue;
    }
    if (character === quote) {
      if (quote === "'" && text[position + 1] === "'") {
        position += 2;
        continue;
      }
      return { end: position + 1, newlines };
    }
    position++;
  }
  return { end: position, newlines };
}

/**
 * Where YAML text certainly nests deeper than the limit, found without parsing: the block
 * collections a line is inside (a stack of the indentations of the key and `- ` lines that
 * enclose it, plus the compact entries `- - a:` opening the line), and the flow collections
 * (`[`, `{`) open on top of them, counted outside quotes, comments and block scalars. A lower
 * bound (a sequence at its parent key's indentation is not counted), so it never refuses a
 * document that fits; it exists so the obvious deep document is refused in one cheap pass, with
 * go-yaml's line, before the yaml library's recursive parser would overflow on it. Returns the
 * 0-based line.
 */
export function yamlDepthLine(text: string, max: number = nestingDepthMax): number | undefined {
  let position = 0;
  let line = 0;
  let flow = 0;
  let nodeStart = true;
  let lineIndent = 0;
  let blockScalarParent = -1;
  let atLineStart = true;
  /** Indentations of the enclosing block collection lines, increasing. */
  const indents: number[] = [];
  /** Block nesting at the current point of the current line. */
  let block = 0;
  let dashes = 0;
  let keyOnLine = false;
  const enterBlockLine = (): void => {
    while (indents.length > 0 && indents.at(-1)! >= lineIndent) indents.pop();
    indents.push(lineIndent);
  };
  while (position < text.length) {
    if (atLineStart && flow === 0) {
      atLineStart = false;
      let indent = 0;
      while (text[position + indent] === ' ') indent++;
      const lineEnd = text.indexOf('\n', position);
      const content = text.slice(position + indent, lineEnd < 0 ? text.length : lineEnd).trim();
      if (blockScalarParent >= 0 && (content === '' || indent > blockScalarParent)) {
        // A line of a block scalar (`|`, `>`): content, not structure.
        position = lineEnd < 0 ? text.length : lineEnd + 1;
        line++;
        atLineStart = true;
        continue;
      }
      blockScalarParent = -1;
      if (indent === 0 && (content.startsWith('---') || content.startsWith('...'))) indents.length = 0;
      lineIndent = indent;
      position += indent;
      dashes = 0;
      keyOnLine = false;
      while (text[position] === '-' && isSpaceOrEnd(text[position + 1])) {
        dashes++;
        position++;
        while (text[position] === ' ' || text[position] === '\t') position++;
      }
      if (dashes > 0) enterBlockLine();
      block = dashes > 0 ? indents.length + dashes - 1 : indents.length;
      if (block > max) return line;
      nodeStart = true;
      continue;
    }
    const character = text[position]!;
    const previous = position > 0 ? text[position - 1] : '\n';
    if (character === '\n') {
      line++;
      position++;
      atLineStart = true;
      continue;
    }
    if (character === '#' && isSpaceOrEnd(previous)) {
      const lineEnd = text.indexOf('\n', position);
      position = lineEnd < 0 ? text.length : lineEnd;
      continue;
    }
    if (flow > 0) {
      if (character === '[' || character === '{') {
        flow++;
        if (block + flow > max) return line;
      } else if (character === ']' || character === '}') {
        flow--;
        if (flow === 0) nodeStart = false;
      } else if (character === '"' || character === "'") {
        const { end, newlines } = skipQuoted(text, position);
        position = end;
        line += newlines;
        continue;
      }
      position++;
      continue;
    }
    if (character === ' ' || character === '\t' || character === '\r') {
      position++;
      continue;
    }
    if (nodeStart) {
      if (character === '[' || character === '{') {
        flow = 1;
        if (block + flow > max) return line;
        position++;
        continue;
      }
      if (character === '"' || character === "'") {
        const { end, newlines } = skipQuoted(text, position);
        position = end;
        line += newlines;
        nodeStart = false;
        continue;
      }
      if (character === '|' || character === '>') {
        blockScalarParent = lineIndent;
        const lineEnd = text.indexOf('\n', position);
        position = lineEnd < 0 ? text.length : lineEnd;
        continue;
      }
      if (character === '&' || character === '!') {
        // An anchor or a tag: the node follows it.
        while (position < text.length && !isSpaceOrEnd(text[position])) position++;
        continue;
      }
      nodeStart = false;
    }
    if (character === ':' && isSpaceOrEnd(text[position + 1])) {
      if (!keyOnLine) {
        // A mapping key: the line is (or, after `- `, opens) a block mapping.
        keyOnLine = true;
        if (dashes === 0) enterBlockLine();
        block = dashes === 0 ? indents.length : indents.length + dashes;
        if (block > max) return line;
      }
      nodeStart = true;
    }
    position++;
  }
  return undefined;
}

type YamlParse = { readonly value: unknown } | { readonly depthLine: number | undefined };

/**
 * Parses YAML (1.1 scalars, at most 100 aliases: how kstore reads every YAML body) within the
 * nesting limit: the text is checked first (yamlDepthLine), the parser's own stack overflow is
 * caught, and the result is measured (aliases can nest what the text does not).
 */
function parseYamlWithin(raw: string): YamlParse {
  const line = yamlDepthLine(raw);
  if (line !== undefined) return { depthLine: line };
  let value: unknown;
  try {
    value = parseYaml(raw, { maxAliasCount: 100, version: '1.1' }) as unknown;
  } catch (error) {
    if (error instanceof RangeError) return { depthLine: undefined };
    throw error;
  }
  if (firstTooDeep(value, nestingDepthMax) !== undefined) return { depthLine: undefined };
  return { value };
}

/** A YAML create/update body (decodeBody's YAML branch): nesting beyond the limit is go-yaml's error. */
export function decodeYamlBody(raw: string, target?: BodyTarget): unknown {
  let parsed: YamlParse;
  try {
    parsed = parseYamlWithin(raw);
  } catch (error) {
    throw badRequest(`error converting YAML to JSON: ${(error as Error).message}`);
  }
  if ('value' in parsed) return parsed.value;
  const detail = yamlDepthMessage(parsed.depthLine);
  throw target ? unrecognized(target, detail, raw) : badRequest(`error converting YAML to JSON: ${detail}`);
}

/**
 * The body of a server-side apply (application/apply-patch+yaml): YAML (JSON is YAML) within
 * the nesting limit. kube decodes it with sigs.k8s.io/yaml and answers 400 "error decoding
 * YAML: error converting YAML to JSON: yaml: line 3: exceeded max depth of 10000" (here the
 * limit is nestingDepthMax); other YAML errors keep the same prefix. Returns the parsed value
 * (any JSON value; the caller checks it is an object).
 */
export function decodeApplyConfiguration(raw: string): unknown {
  let parsed: YamlParse;
  try {
    parsed = parseYamlWithin(raw);
  } catch (error) {
    throw badRequest(`error decoding YAML: error converting YAML to JSON: ${(error as Error).message}`);
  }
  if ('value' in parsed) return parsed.value;
  throw badRequest(`error decoding YAML: error converting YAML to JSON: ${yamlDepthMessage(parsed.depthLine)}`);
}

/** Only the nesting check of an apply body, for a caller that parses it itself: throws kube's 400 or returns. */
export function checkApplyConfigurationDepth(raw: string): void {
  const line = yamlDepthLine(raw);
  if (line !== undefined) throw badRequest(`error decoding YAML: error converting YAML to JSON: ${yamlDepthMessage(line)}`);
}

/** The patch media types decodePatch reads (apply is decodeApplyConfiguration). */
export type PatchMediaType = 'application/json-patch+json' | 'application/merge-patch+json' | 'application/strategic-merge-patch+json';

export interface PatchDecodeOptions {
  /** The request's fieldValidation (default Warn, as kube): kube strict-decodes JSON and merge patches under Warn and Strict, with other messages. */
  readonly fieldValidation?: FieldValidation;
}

/** A number JSON.parse turns into ±Infinity: kube's untyped decode (float64) refuses it. */
function overflowsFloat(literal: string): boolean {
  return !Number.isFinite(Number(literal));
}

function float64Problem(literal: string, field?: string): string {
  return `json: cannot unmarshal number ${literal} into Go ${field ? `struct field ${field}` : 'value'} of type float64`;
}

/** The type kube's strict decode of a JSON patch reads it into, and the one jsonpatch.DecodePatch does. */
const jsonPatchTypes = {
  strict: { list: '[]handlers.jsonPatchOp', item: 'handlers.jsonPatchOp', field: 'jsonPatchOp' },
  plain: { list: 'jsonpatch.Patch', item: 'jsonpatch.Operation', field: '' },
} as const;

/**
 * The first problem kube's decode of a JSON patch finds (in document order): a body that is not
 * an array, an operation that is not an object, and (strict decode) op/path/from that are not
 * strings and a value number out of float64's range.
 */
function jsonPatchShapeProblem(patch: unknown, strict: boolean, overflow: { readonly index: number; readonly literal: string } | undefined): string | undefined {
  const types = strict ? jsonPatchTypes.strict : jsonPatchTypes.plain;
  if (!Array.isArray(patch)) return `json: cannot unmarshal ${jsonKindOf(patch)} into Go value of type ${types.list}`;
  for (const [index, operation] of patch.entries()) {
    if (overflow !== undefined && overflow.index < index) break;
    if (operation === null) continue;
    if (typeof operation !== 'object' || Array.isArray(operation)) return `json: cannot unmarshal ${jsonKindOf(operation)} into Go value of type ${types.item}`;
    if (!strict) continue;
    for (const field of ['op', 'path', 'from'] as const) {
      const value = (operation as Record<string, unknown>)[field];
      if (value !== undefined && value !== null && typeof value !== 'string') {
        return `json: cannot unmarshal ${jsonKindOf(value)} into Go struct field ${types.field}.${field} of type string`;
      }
    }
  }
  return overflow ? float64Problem(overflow.literal, `${types.field}.value`) : undefined;
}

function normalizedMediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/**
 * Decodes a PATCH body of a JSON, merge or strategic merge patch with every check kube makes
 * on the patch itself, and kube's answer for each (fieldValidation as kube reads it: Warn when
 * absent):
 * - text: syntax and nesting (Go's scanner messages), 400. JSON patch: "error decoding patch:
 *   …" (Ignore: the bare message); merge patch: the same ("Invalid JSON Patch" under Ignore);
 *   strategic merge patch: the bare message.
 * - numbers beyond float64 (1e400), anywhere in a merge or strategic merge patch or in a JSON
 *   patch operation's value, 400 "json: cannot unmarshal number 1e400 into Go value of type
 *   float64" (not checked where kube decodes raw: JSON and merge patches under Ignore).
 * - shape: a JSON patch is an array of operation objects (400 "json: cannot unmarshal object into
 *   Go value of type []handlers.jsonPatchOp"), of at most 10,000 operations (413 "Request entity
 *   too large: The allowed maximum operations in a JSON patch is 10000, got N"); `null` is no
 *   operation. A merge patch is an object (null: 400 "Invalid JSON Patch"). A strategic merge
 *   patch is an object (null: no change) whose top-level directives are sane ($patch, $retainKeys,
 *   $setElementOrder/…, $deleteFromPrimitiveList/…; see api/patch/merge-patch.ts for the codes).
 * Throws ApiError; returns the patch to apply. kube reads the object before decoding the patch,
 * so a patch of a missing object is 404 there even when the patch is bad: call this after the
 * object is found to keep that order.
 */
export function decodePatch(contentType: string, raw: string, options: PatchDecodeOptions = {}): JsonValue {
  const mediaType = normalizedMediaType(contentType);
  const level = options.fieldValidation ?? 'Warn';
  const strict = level !== 'Ignore';
  if (mediaType === 'application/json-patch+json') {
    let overflow: { index: number; literal: string } | undefined;
    const scan = scanJson(raw, {
      depthMax: nestingDepthMax,
      onNumber: (literal, path) => {
        if (overflow === undefined && strict && overflowsFloat(literal)) {
          const [index, field] = path();
          if (typeof index === 'number' && field === 'value') overflow = { index, literal };
        }
        return undefined;
      },
    });
    if (!scan.ok) throw badRequest(strict ? `error decoding patch: ${scan.message}` : scan.message);
    const patch = JSON.parse(raw) as JsonValue;
    if (patch === null) return [];
    const problem = jsonPatchShapeProblem(patch, strict, overflow);
    if (problem !== undefined) throw badRequest(strict ? `error decoding patch: ${problem}` : problem);
    const operations = patch as JsonValue[];
    if (operations.length > jsonPatchOperationsMax) {
      throw requestEntityTooLarge(`Request entity too large: The allowed maximum operations in a JSON patch is ${jsonPatchOperationsMax}, got ${operations.length}`);
    }
    return operations;
  }
  if (mediaType === 'application/merge-patch+json' || mediaType === 'application/strategic-merge-patch+json') {
    const strategic = mediaType === 'application/strategic-merge-patch+json';
    const checkNumbers = strategic || strict;
    const scan = scanJson(raw, {
      depthMax: nestingDepthMax,
      onNumber: (literal) => (checkNumbers && overflowsFloat(literal) ? float64Problem(literal) : undefined),
    });
    const prefix = strategic ? '' : 'error decoding patch: ';
    if (!scan.ok) throw badRequest(!strategic && !strict && scan.kind !== 'number' ? 'Invalid JSON Patch' : `${prefix}${scan.message}`);
    const patch = JSON.parse(raw) as JsonValue;
    if (patch === null) {
      if (strategic) return {};
      throw badRequest('Invalid JSON Patch');
    }
    if (typeof patch !== 'object' || Array.isArray(patch)) {
      if (!strategic && !strict) return patch;
      throw badRequest(`${prefix}json: cannot unmarshal ${jsonKindOf(patch)} into Go value of type map[string]interface {}`);
    }
    if (strategic) {
      const problem = strategicPatchProblem(patch);
      if (problem) throw problem;
    }
    return patch;
  }
  throw badRequest(`unsupported patch type: ${mediaType}`);
}

/**
 * The size check of a patched (or any written) object: its JSON over objectBytesMax is 413
 * "Request entity too large: limit is 3145728". Call it on a patch's (or an apply's) result
 * before it is validated and proposed. The whole object counts, managedFields included: kube
 * retries a too-large write without them, which kstore's writes do not do, and a stored object
 * must stay within a Raft entry (raft/core/limits.ts, 4 MiB).
 */
export function checkObjectSize(object: unknown): void {
  // Most objects are far below the limit: a bound of their size spares writing them out.
  if (jsonBytesBound(object, 0, objectBytesMax) <= objectBytesMax) return;
  const text = JSON.stringify(object) ?? '';
  if (Buffer.byteLength(text, 'utf8') > objectBytesMax) throw requestEntityTooLarge(`Request entity too large: limit is ${objectBytesMax}`);
}

/** Deeper than this, jsonBytesBound gives up (Infinity) and the object is measured exactly. */
const boundDepthMax = 64;
/** The longest number JSON.stringify writes (`-1.7976931348623157e+308`). */
const numberBytesMax = 24;

/**
 * At least as many bytes as JSON.stringify(value) has in UTF-8, from the lengths alone: a
 * UTF-16 unit of a string is at most 6 bytes (`\u001f`, a lone surrogate's escape; a pair
 * is 4 bytes for two units). Infinity once over `budget`, past boundDepthMax, or for anything
 * but plain JSON values (a toJSON, an undefined member: the exact measure decides).
 */
function jsonBytesBound(value: unknown, depth: number, budget: number): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'string':
      return value.length * 6 + 2;
    case 'number':
      return numberBytesMax;
    case 'boolean':
      return 5;
    case 'object':
      break;
    default:
      return Number.POSITIVE_INFINITY;
  }
  if (depth >= boundDepthMax) return Number.POSITIVE_INFINITY;
  let total = 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      total += jsonBytesBound(item, depth + 1, budget - total) + 1;
      if (total > budget) return Number.POSITIVE_INFINITY;
    }
    return total;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return Number.POSITIVE_INFINITY;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    total += key.length * 6 + 4 + jsonBytesBound(record[key], depth + 1, budget - total);
    if (total > budget) return Number.POSITIVE_INFINITY;
  }
  return total;
}
