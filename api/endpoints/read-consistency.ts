// Owns: the resourceVersion semantics of reads (the spec's get/list tables): Most Recent
// (a ReadIndex round trip), Any, Not older than (wait briefly, then 504 "Too large resource
// version"), Exact and Continuation (from the watch cache's window, 410 outside it), the
// invalid combinations (400), and the continue token format.
import { badRequest, gone, invalid, tooLargeResourceVersion } from '../status.ts';
import type { RequestOptions } from '../request-options.ts';
import type { EndpointContext } from './context.ts';

export type ReadSemantic =
  | { readonly type: 'mostRecent' }
  | { readonly type: 'any' }
  | { readonly type: 'notOlderThan'; readonly revision: number }
  | { readonly type: 'exact'; readonly revision: number }
  | { readonly type: 'continuation'; readonly revision: number; readonly startAfter: string };

export interface ContinueToken {
  readonly revision: number;
  /** The key of the last item returned; the next chunk starts after it. */
  readonly startAfter: string;
}

/** Like kube-apiserver's token: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":key}. */
export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.revision, start: token.startAfter })).toString('base64url');
}

export function decodeContinue(raw: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown };
    if (parsed.v !== 'meta.k8s.io/v1' || typeof parsed.rv !== 'number' || !Number.isSafeInteger(parsed.rv) || parsed.rv < 1 || typeof parsed.start !== 'string') {
      throw new Error('unexpected fields');
    }
    return { revision: parsed.rv, startAfter: parsed.start };
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

export function parseResourceVersion(raw: string): number {
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw badRequest(`invalid resource version: ${JSON.stringify(raw)}`);
  return Number(raw);
}

function invalidCombination(message: string): never {
  throw badRequest(message);
}

/** The semantic of a list (spec: list table). */
export function listSemantic(options: RequestOptions): ReadSemantic {
  const rawVersion = options.resourceVersion;
  const match = options.resourceVersionMatch;
  const limitSet = options.limit > 0;
  const continueRaw = options.continue ?? '';
  if (options.sendInitialEvents !== undefined) {
    throw invalid('meta.k8s.io', 'ListOptions', '', [{ reason: 'FieldValueForbidden', field: 'sendInitialEvents', message: 'Forbidden: sendInitialEvents is forbidden for list' }]);
  }
  if (match !== undefined && match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
    invalidCombination(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
  }
  const versionSet = rawVersion !== undefined && rawVersion !== '';
  if (continueRaw !== '') {
    if (match) invalidCombination('resourceVersionMatch is forbidden when continue is provided');
    if (versionSet && rawVersion !== '0') invalidCombination('specifying resource version is not allowed when using continue');
    const token = decodeContinue(continueRaw);
    return { type: 'continuation', revision: token.revision, startAfter: token.startAfter };
  }
  if (match && !versionSet) invalidCombination('resourceVersionMatch is forbidden unless resourceVersion is provided');
  if (!versionSet) return { type: 'mostRecent' };
  const revision = parseResourceVersion(rawVersion);
  if (match === 'Exact') {
    if (revision === 0) invalidCombination('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    return { type: 'exact', revision };
  }
  if (revision === 0) return { type: 'any' };
  if (match === 'NotOlderThan' || !limitSet) return { type: 'notOlderThan', revision };
  return { type: 'exact', revision };
}

/** The semantic of a get (spec: get table). */
export function getSemantic(options: RequestOptions): ReadSemantic {
  const rawVersion = options.resourceVersion;
  if (rawVersion === undefined || rawVersion === '') return { type: 'mostRecent' };
  const revision = parseResourceVersion(rawVersion);
  return revision === 0 ? { type: 'any' } : { type: 'notOlderThan', revision };
}

const tooLargeRetryAfterSeconds = 1;

/**
 * Makes the local state at least as new as the semantic requires and returns the revision
 * reads will see. A version the store has not reached after a ReadIndex round trip is 504.
 */
export async function settleRead(semantic: ReadSemantic, context: EndpointContext): Promise<number> {
  switch (semantic.type) {
    case 'mostRecent':
      await context.store.readIndex();
      return context.store.currentRevision();
    case 'any':
      return context.store.currentRevision();
    case 'notOlderThan':
    case 'exact':
    case 'continuation':
      if (context.store.currentRevision() < semantic.revision) await context.store.readIndex();
      if (context.store.currentRevision() < semantic.revision) {
        throw tooLargeResourceVersion(semantic.revision, context.store.currentRevision(), tooLargeRetryAfterSeconds);
      }
      return context.store.currentRevision();
  }
}

/** 410 Expired for an Exact list version or continue token older than the watch cache window. */
export function expiredVersion(semantic: ReadSemantic, oldest: number): never {
  if (semantic.type === 'continuation') {
    throw gone('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
  }
  const revision = 'revision' in semantic ? semantic.revision : 0;
  throw gone(`too old resource version: ${revision} (${oldest})`);
}
