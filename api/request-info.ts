// Owns: the one parse of an HTTP request's path and query, done once when the request arrives
// (kube-apiserver's RequestInfoFactory): whether it targets an API resource, and if so its verb,
// group, version, namespace, resource, name and subresource, the typed options of its verb
// (request-options.ts), and the served kind it names (endpoints/target.ts). Authentication,
// authorization, admission, dispatch, metrics and audit all read this result; nothing else
// re-parses the path or the query, so what is served is what was authorized.
// A path is taken segment by segment, each percent-decoded once: a malformed escape is a 400,
// and an API path that is not canonical (an empty segment from `//`, a `.` or `..` segment, a
// segment that decodes to something holding `/`) names nothing and is a 404, as kube's router
// finds no route for it. Pure: no I/O, no clock.

/** The request attributes authorization and handlers work from. */
export interface RequestInfo {
  /**
   * Set when the request must be answered with this Status whatever the user: a malformed
   * percent-escape (400, answered before authentication, as Go's server refuses the request
   * line) or a non-canonical API path (404, answered after authentication).
   */
  readonly rejection: { readonly error: ApiError; readonly beforeAuthentication: boolean } | undefined;
  /** The typed options of the verb, decoded from the query once. */
  readonly options: RequestOptions;
  /** The served kind and object the path names; undefined when it names none (404 at dispatch). */
  readonly target: Target | undefined;
  /** True for /api/<v>/... and /apis/<g>/<v>/... paths with at least a version. */
  readonly isResourceRequest: boolean;
  /** The URL path, without the query string. */
  readonly path: string;
  /**
   * For resource requests: get, list, watch, create, update, patch, delete, deletecollection,
   * proxy (or '' for an unknown HTTP method). For other requests: the lowercase HTTP method.
   */
  readonly verb: string;
  /** 'api' or 'apis' for resource requests, otherwise ''. */
  readonly apiPrefix: string;
  /** '' is the core group. */
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** '' for cluster-scoped requests and for lists across all namespaces. */
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** The path segments from the resource on: resource/name/subresource/... */
  readonly parts: readonly string[];
}

export type { QueryParameters } from './request-options.ts';

import { builtinKinds, resolveTarget as targetOfRequest } from './endpoints/target.ts';
import type { KindLookup } from './registry/kind-registry.ts';
import type { Target } from './endpoints/target.ts';
import { decodeRequestOptions, firstQueryValue, parseBoolParameter } from './request-options.ts';
import type { QueryParameters, RequestOptions } from './request-options.ts';
import { ApiError, badRequest, pathNotFound } from './status.ts';

/** Path prefixes that hold API resources; "api" is the core group, which has no group segment. */
const apiPrefixes: ReadonlySet<string> = new Set(['api', 'apis']);
const grouplessApiPrefixes: ReadonlySet<string> = new Set(['api']);

/** Verbs that appear as a path segment before the resource (the legacy /watch/ form and proxy). */
const specialVerbs: ReadonlySet<string> = new Set(['proxy', 'watch']);
/** For these verbs everything after the name belongs to the proxied path, not a subresource. */
const specialVerbsWithoutSubresources: ReadonlySet<string> = new Set(['proxy']);
/** Subresources of a namespace object: /api/v1/namespaces/<ns>/status is not a resource "status". */
const namespaceSubresources: ReadonlySet<string> = new Set(['status', 'finalize', 'lifecycle']);

const verbByMethod: Readonly<Record<string, string>> = {
  POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete',
};

/** The path's segments, each percent-decoded once, or why the path names nothing. */
interface PathSegments {
  readonly segments: readonly string[];
  readonly decodeError: string | undefined;
  readonly canonical: boolean;
}

/**
 * Splits the raw path on `/` and decodes each segment. One trailing slash is allowed (kube's
 * router trims it); any other empty segment, a `.`/`..` segment or a segment that decodes to
 * something with a `/` makes the path non-canonical.
 */
export function pathSegments(rawPath: string): PathSegments {
  const raw = (rawPath.startsWith('/') ? rawPath.slice(1) : rawPath).split('/');
  if (raw.length > 0 && raw.at(-1) === '') raw.pop();
  const segments: string[] = [];
  let canonical = true;
  for (const part of raw) {
    let decoded = part;
    // Without a `%` there is nothing to decode.
    if (part.includes('%')) {
      try {
        decoded = decodeURIComponent(part);
      } catch {
        const escape = /%(?![0-9a-fA-F]{2}).{0,2}/.exec(part)?.[0] ?? part;
        return { segments: [], decodeError: `invalid URL escape ${JSON.stringify(escape)}`, canonical: false };
      }
    }
    if (decoded === '' || decoded === '.' || decoded === '..' || decoded.includes('/')) canonical = false;
    segments.push(decoded);
  }
  return { segments, decodeError: undefined, canonical };
}

/**
 * Go's query-to-bool conversion used for ListOptions.watch: present and not "0"/"false"
 * (case-insensitive) means true, so `?watch`, `?watch=1`, `?watch=True` all start a watch.
 */
export function isWatchRequested(query: QueryParameters): boolean {
  return parseBoolParameter(firstQueryValue(query, 'watch')) ?? false;
}

/** Splits a field selector on unescaped commas (a backslash escapes the next character). */
export function splitSelectorTerms(selector: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let index = 0; index < selector.length; index++) {
    const character = selector[index] ?? '';
    if (character === '\\' && index + 1 < selector.length) {
      current += character + (selector[index + 1] ?? '');
      index++;
    } else if (character === ',') {
      terms.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  terms.push(current);
  return terms;
}

function unescapeSelectorValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** A name usable as one path segment (apimachinery path.IsValidPathSegmentName). */
function isValidPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

/**
 * The object name a list or watch is narrowed to by `fieldSelector=metadata.name=<name>`
 * (fields.Selector.RequiresExactMatch), so that `kubectl get cm x -w` is authorized on x.
 */
export function nameFromFieldSelector(selector: string | undefined): string {
  if (selector === undefined || selector === '') return '';
  for (const term of splitSelectorTerms(selector)) {
    const match = /^\s*metadata\.name\s*==?(.*)$/.exec(term);
    if (match === null || term.includes('!=')) continue;
    const name = unescapeSelectorValue((match[1] ?? '').trim());
    return isValidPathSegmentName(name) ? name : '';
  }
  return '';
}

function nonResourceRequest(method: string, path: string, query: QueryParameters): RequestInfo {
  const verb = method.toLowerCase();
  return {
    rejection: undefined, options: decodeRequestOptions(verb, query), target: undefined,
    isResourceRequest: false, path, verb, apiPrefix: '', apiGroup: '',
    apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [],
  };
}

interface ResourcePath {
  readonly namespace: string;
  readonly parts: readonly string[];
}

/** Resolves /namespaces/<ns>/<resource>/... to the namespace and the parts from the resource on. */
function resolveNamespace(segments: readonly string[]): ResourcePath {
  if (segments[0] !== 'namespaces' || segments.length < 2) return { namespace: '', parts: segments };
  const namespace = segments[1] ?? '';
  const third = segments[2];
  // /namespaces/<ns> and /namespaces/<ns>/status name the namespace object itself.
  if (third === undefined || namespaceSubresources.has(third)) return { namespace, parts: segments };
  return { namespace, parts: segments.slice(2) };
}

/** Resource, name and subresource from parts like resource/name/subresource/... */
function resolveTarget(parts: readonly string[], verb: string): { resource: string; name: string; subresource: string } {
  const subresource = parts.length >= 3 && !specialVerbsWithoutSubresources.has(verb) ? parts[2] ?? '' : '';
  return { resource: parts[0] ?? '', name: parts[1] ?? '', subresource };
}

/** Turns get → list/watch and delete → deletecollection for requests without a name. */
function collectionVerb(verb: string, name: string, query: QueryParameters): { verb: string; name: string } {
  if (name !== '') return { verb, name };
  if (verb === 'get') {
    const watchVerb = isWatchRequested(query) ? 'watch' : 'list';
    return { verb: watchVerb, name: nameFromFieldSelector(firstQueryValue(query, 'fieldSelector')) };
  }
  if (verb === 'delete') return { verb: 'deletecollection', name };
  return { verb, name };
}

/**
 * Classifies a request. `rawPath` is the URL path as sent (percent-encoded), without the query;
 * `query` the parsed query. Paths that do not look like /api/<v>/<...> or /apis/<g>/<v>/<...> are
 * non-resource requests (discovery documents such as /api, /apis/<g>/<v>, /healthz, /openapi/v2,
 * /version); `path` is then the decoded path.
 */
export function resolveRequestInfo(method: string, rawPath: string, query: QueryParameters = {}, kinds: KindLookup = builtinKinds): RequestInfo {
  const parsed = pathSegments(rawPath);
  if (parsed.decodeError !== undefined) {
    return { ...nonResourceRequest(method, rawPath, query), rejection: { error: badRequest(parsed.decodeError), beforeAuthentication: true } };
  }
  const path = `/${parsed.segments.join('/')}${rawPath.length > 1 && rawPath.endsWith('/') ? '/' : ''}`;
  let segments = [...parsed.segments];
  const prefix = segments[0] ?? '';
  if (!apiPrefixes.has(prefix)) return nonResourceRequest(method, path, query);
  // An API path that is not canonical names no resource and no discovery document.
  const notCanonical = parsed.canonical ? undefined : { error: pathNotFound(), beforeAuthentication: false };
  if (segments.length < 3) return { ...nonResourceRequest(method, path, query), rejection: notCanonical };
  segments = segments.slice(1);
  let apiGroup = '';
  if (!grouplessApiPrefixes.has(prefix)) {
    if (segments.length < 3) return { ...nonResourceRequest(method, path, query), rejection: notCanonical };
    apiGroup = segments[0] ?? '';
    segments = segments.slice(1);
  }
  const apiVersion = segments[0] ?? '';
  segments = segments.slice(1);
  let verb = verbByMethod[method.toUpperCase()] ?? '';
  const first = segments[0] ?? '';
  if (specialVerbs.has(first) && segments.length >= 2) {
    verb = first;
    segments = segments.slice(1);
  }
  const { namespace, parts } = resolveNamespace(segments);
  const target = resolveTarget(parts, verb);
  const resolved = collectionVerb(verb, target.name, query);
  const resource = target.resource;
  const subresource = target.subresource;
  return {
    rejection: notCanonical, options: decodeRequestOptions(resolved.verb, query),
    isResourceRequest: true, path, verb: resolved.verb, apiPrefix: prefix, apiGroup, apiVersion,
    namespace, resource, subresource, name: resolved.name, parts,
    target: notCanonical === undefined
      ? targetOfRequest({ isResourceRequest: true, verb: resolved.verb, apiGroup, apiVersion, namespace, resource, subresource, parts }, kinds)
      : undefined,
  };
}
