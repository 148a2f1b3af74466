// Owns: classifying an HTTP request the way kube-apiserver's RequestInfoFactory does
// (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go): whether it targets an API
// resource, and if so its verb, group, version, namespace, resource, name and subresource.
// Pure: no I/O, no clock. Authorization, audit and routing read the result; this module does not
// decide whether the resource exists or whether the verb is allowed.

/** The request attributes authorization and handlers work from. */
export interface RequestInfo {
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

/** Query parameters as fastify parses them (a repeated key becomes an array). */
export type QueryParameters = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Path prefixes that hold API resources; "api" is the core group, which has no group segment. */
const apiPrefixes: ReadonlySet<string> = new Set(['api', 'apis']);
const grouplessApiPrefixes: ReadonlySet<string> = new Set(['api']);

/** Verbs that appear as a path segment before the resource (the legacy /watch/ form and proxy). */
const specialVerbs: ReadonlySet<string> = new Set(['proxy', 'watch']);
/** For these verbs everything after the name belongs to the proxied path, not a subresource. */
const specialVerbsWithoutSubresources: ReadonlySet<string> = new Set(['proxy']);
/** Subresources of a namespace object: /api/v1/namespaces/<ns>/status is not a resource "status". */
const namespaceSubresources: ReadonlySet<string> = new Set(['status', 'finalize']);

const verbByMethod: Readonly<Record<string, string>> = {
  POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete',
};

function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

function firstValue(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value[0];
}

/**
 * Go's query-to-bool conversion used for ListOptions.watch: present and not "0"/"false"
 * (case-insensitive) means true, so `?watch`, `?watch=1` and `?watch=true` all start a watch.
 */
export function isWatchRequested(query: QueryParameters): boolean {
  const value = firstValue(query['watch']);
  if (value === undefined) return false;
  return value !== '0' && value.toLowerCase() !== 'false';
}

/** Splits a field selector on unescaped commas (a backslash escapes the next character). */
function splitSelectorTerms(selector: string): string[] {
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

function nonResourceRequest(method: string, path: string): RequestInfo {
  return {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '',
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
    return { verb: watchVerb, name: nameFromFieldSelector(firstValue(query['fieldSelector'])) };
  }
  if (verb === 'delete') return { verb: 'deletecollection', name };
  return { verb, name };
}

/**
 * Classifies a request. `path` is the URL path without the query; `query` the parsed query.
 * Paths that do not look like /api/<v>/<...> or /apis/<g>/<v>/<...> are non-resource requests
 * (discovery documents such as /api, /apis/<g>/<v>, /healthz, /openapi/v2, /version).
 */
export function resolveRequestInfo(method: string, path: string, query: QueryParameters = {}): RequestInfo {
  let segments = splitPath(path);
  const prefix = segments[0] ?? '';
  if (segments.length < 3 || !apiPrefixes.has(prefix)) return nonResourceRequest(method, path);
  segments = segments.slice(1);
  let apiGroup = '';
  if (!grouplessApiPrefixes.has(prefix)) {
    if (segments.length < 3) return nonResourceRequest(method, path);
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
  return {
    isResourceRequest: true, path, verb: resolved.verb, apiPrefix: prefix, apiGroup, apiVersion,
    namespace, resource: target.resource, subresource: target.subresource, name: resolved.name, parts,
  };
}
