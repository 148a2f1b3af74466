// Owns: RFC 6902 JSON Patch (add, remove, replace, move, copy, test) over plain JSON values,
// with RFC 6901 pointers. Hand-written because it is ~100 lines and must report failures as
// kube-apiserver does (a failed test or a missing path is a 422/400 for the request, not a
// crash); the input is never mutated. What a patch may make is bounded as in kube: the bytes
// its `copy` operations add (json-patch's AccumulatedCopySizeLimit, which kube-apiserver sets
// to 3 MiB) and, as kstore's decoders bound every document, the nesting of the result
// (api/request-limits.ts); the number of operations is checked when the patch is decoded
// (api/decode.ts) and again here.
import type { JsonValue } from '../../actors/index.ts';
import { firstTooDeep } from '../json-depth.ts';
import { jsonPatchCopyBytesMax, jsonPatchOperationsMax, nestingDepthMax } from '../request-limits.ts';
import { badRequest, requestEntityTooLarge } from '../status.ts';

export class JsonPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchError';
  }
}

type Container = JsonValue[] | { [key: string]: JsonValue };

interface Operation {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: JsonValue;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer: ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function isContainer(value: JsonValue | undefined): value is Container {
  return value !== null && typeof value === 'object';
}

function parentOf(document: JsonValue, tokens: string[], pointer: string): { parent: Container; last: string } {
  let current: JsonValue | undefined = document;
  for (const token of tokens.slice(0, -1)) {
    current = isContainer(current) ? (Array.isArray(current) ? current[Number(token)] : current[token]) : undefined;
    if (current === undefined) throw new JsonPatchError(`doc is missing path: "${pointer}"`);
  }
  if (!isContainer(current)) throw new JsonPatchError(`doc is missing path: "${pointer}"`);
  return { parent: current, last: tokens.at(-1)! };
}

function arrayIndex(parent: JsonValue[], token: string, allowEnd: boolean, pointer: string): number {
  if (token === '-' && allowEnd) return parent.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new JsonPatchError(`invalid array index ${JSON.stringify(token)} in "${pointer}"`);
  const position = Number(token);
  if (position > parent.length || (!allowEnd && position === parent.length)) throw new JsonPatchError(`index out of bounds in "${pointer}"`);
  return position;
}

function read(document: JsonValue, pointer: string): JsonValue {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return document;
  const { parent, last } = parentOf(document, tokens, pointer);
  const value = Array.isArray(parent) ? parent[arrayIndex(parent, last, false, pointer)] : parent[last];
  if (value === undefined) throw new JsonPatchError(`doc is missing path: "${pointer}"`);
  return value;
}

function add(document: JsonValue, pointer: string, value: JsonValue): JsonValue {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(document, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true, pointer), 0, value);
  else parent[last] = value;
  return document;
}

function remove(document: JsonValue, pointer: string): JsonValue {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new JsonPatchError('cannot remove the whole document');
  const { parent, last } = parentOf(document, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false, pointer), 1);
  else if (Object.hasOwn(parent, last)) delete parent[last];
  else throw new JsonPatchError(`Unable to remove nonexistent key: ${last}: missing value`);
  return document;
}

/** Structural equality (key order aside), as json-patch's test compares; iterative. */
function sameJson(a: JsonValue, b: JsonValue): boolean {
  const pairs: [JsonValue, JsonValue][] = [[a, b]];
  while (pairs.length > 0) {
    const [left, right] = pairs.pop()!;
    if (left === right) continue;
    if (left === null || right === null || typeof left !== 'object' || typeof right !== 'object') return false;
    if (Array.isArray(left) !== Array.isArray(right)) return false;
    const leftKeys = Object.keys(left);
    if (leftKeys.length !== Object.keys(right).length) return false;
    for (const key of leftKeys) {
      if (!Object.hasOwn(right, key)) return false;
      pairs.push([(left as Record<string, JsonValue>)[key]!, (right as Record<string, JsonValue>)[key]!]);
    }
  }
  return true;
}

/**
 * Refuses a value placed at `pointer` that would nest the document deeper than any decoder here
 * accepts. kube would build it and fail re-decoding the result ("exceeded max depth"); this
 * stops at the operation, before the document is ever that deep.
 */
function checkDepth(pointer: string, value: JsonValue): void {
  const tooDeep = firstTooDeep(value, nestingDepthMax - parsePointer(pointer).length);
  if (tooDeep !== undefined) {
    throw new JsonPatchError(`couldn't get version/kind; json parse error: invalid character '${tooDeep === 'array' ? '[' : '{'}' exceeded max depth`);
  }
}

/** The bytes a copy adds, as json-patch measures them: the copied value's JSON. */
function jsonBytes(value: JsonValue): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

interface Budget {
  copiedBytes: number;
}

function applyOperation(document: JsonValue, operation: Operation, budget: Budget): JsonValue {
  const value = operation.value;
  switch (operation.op) {
    case 'add':
      if (value === undefined) throw new JsonPatchError('add operation does not apply: doc is missing value');
      checkDepth(operation.path, value);
      return add(document, operation.path, structuredClone(value));
    case 'remove':
      return remove(document, operation.path);
    case 'replace':
      if (value === undefined) throw new JsonPatchError('replace operation does not apply: doc is missing value');
      read(document, operation.path);
      checkDepth(operation.path, value);
      return add(remove(document, operation.path), operation.path, structuredClone(value));
    case 'move': {
      const moved = read(document, operation.from ?? '');
      checkDepth(operation.path, moved);
      return add(remove(document, operation.from ?? ''), operation.path, moved);
    }
    case 'copy': {
      const copied = read(document, operation.from ?? '');
      parentOf(document, parsePointer(operation.path), operation.path);
      budget.copiedBytes += jsonBytes(copied);
      if (budget.copiedBytes > jsonPatchCopyBytesMax) {
        throw new JsonPatchError(`Unable to complete the copy, the accumulated size increase of copy is ${budget.copiedBytes}, exceeding the limit ${jsonPatchCopyBytesMax}`);
      }
      checkDepth(operation.path, copied);
      return add(document, operation.path, structuredClone(copied));
    }
    case 'test':
      if (!sameJson(read(document, operation.path), value ?? null)) {
        throw new JsonPatchError(`testing value ${operation.path} failed: test failed`);
      }
      return document;
    default:
      throw new JsonPatchError(`Unexpected kind: ${operation.op}`);
  }
}

/** Applies a patch document (an array of operations) to a copy of `document`. */
export function applyJsonPatch(document: JsonValue, patch: unknown): JsonValue {
  if (!Array.isArray(patch)) throw new JsonPatchError('json patch must be an array of operations');
  const tooDeep = firstTooDeep(patch, nestingDepthMax);
  if (tooDeep !== undefined) throw badRequest(`error decoding patch: invalid character '${tooDeep === 'array' ? '[' : '{'}' exceeded max depth`);
  // kube's maxJSONPatchOperations: 413 before any operation is applied.
  if (patch.length > jsonPatchOperationsMax) {
    throw requestEntityTooLarge(`Request entity too large: The allowed maximum operations in a JSON patch is ${jsonPatchOperationsMax}, got ${patch.length}`);
  }
  let result = structuredClone(document);
  const budget: Budget = { copiedBytes: 0 };
  for (const operation of patch) {
    if (operation === null || typeof operation !== 'object' || typeof (operation as Operation).op !== 'string' || typeof (operation as Operation).path !== 'string') {
      throw new JsonPatchError(`invalid JSON patch operation: ${JSON.stringify(operation)}`);
    }
    result = applyOperation(result, operation as Operation, budget);
  }
  return result;
}
