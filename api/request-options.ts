// Owns: reading a request's query parameters into the typed options of its verb, once per
// request, the way kube-apiserver's parameter codec converts url.Values into ListOptions,
// GetOptions, CreateOptions, UpdateOptions, PatchOptions and DeleteOptions:
//  - a boolean parameter is false when absent, "0" or "false" in any case, and true for any
//    other value, the empty string included (apimachinery's Convert_Slice_string_To_bool);
//  - an integer parameter is Go's strconv.ParseInt(value, 10, 64): anything else is a 400
//    BadRequest carrying strconv's message;
//  - a repeated parameter takes its first value, except dryRun, which is a list.
// Pure: no I/O. Only the parameters of the verb's own options kind are decoded, so a stray
// `limit=x` on a create is ignored as kube ignores it.
import { ApiError, badRequest } from './status.ts';

/** Query parameters as fastify parses them (a repeated key becomes an array). */
export type QueryParameters = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The options of one request, decoded from its query. Absent parameters are undefined. */
export interface RequestOptions {
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  /** ListOptions.SendInitialEvents is a *bool: undefined when the parameter is absent. */
  readonly sendInitialEvents: boolean | undefined;
  readonly timeoutSeconds: number | undefined;
  /** 0 when absent (no limit). */
  readonly limit: number;
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: string | undefined;
  readonly continue: string | undefined;
  readonly labelSelector: string | undefined;
  readonly fieldSelector: string | undefined;
  /** Every dryRun value, in order (DryRun is a []string). */
  readonly dryRun: readonly string[];
  readonly fieldManager: string | undefined;
  readonly fieldValidation: string | undefined;
  /** PatchOptions.Force is a *bool. */
  readonly force: boolean | undefined;
  readonly gracePeriodSeconds: number | undefined;
  readonly orphanDependents: boolean | undefined;
  readonly propagationPolicy: string | undefined;
  /** The first parameter of this request's options that does not decode: a 400 before anything runs. */
  readonly problem: ApiError | undefined;
}

/** Which options kinds a verb decodes (deletecollection reads both ListOptions and DeleteOptions). */
export type OptionsKind = 'ListOptions' | 'GetOptions' | 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

export function optionsKindsOf(verb: string): readonly OptionsKind[] {
  switch (verb) {
    case 'list':
    case 'watch':
      return ['ListOptions'];
    case 'get':
      return ['GetOptions'];
    case 'create':
      return ['CreateOptions'];
    case 'update':
      return ['UpdateOptions'];
    case 'patch':
      return ['PatchOptions'];
    case 'delete':
      return ['DeleteOptions'];
    case 'deletecollection':
      return ['ListOptions', 'DeleteOptions'];
    default:
      return [];
  }
}

/** The first value of a parameter (fastify gives an array for a repeated key). */
export function firstQueryValue(query: QueryParameters, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value[0];
}

export function allQueryValues(query: QueryParameters, name: string): readonly string[] {
  const value = query[name];
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : value;
}

/** kube's query-parameter boolean: absent → undefined; "0" or "false" (any case) → false; anything else → true. */
export function parseBoolParameter(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}

const int64Max = 2n ** 63n - 1n;
const int64Min = -(2n ** 63n);

export class ParameterError extends Error {}

/**
 * Go's strconv.ParseInt(value, 10, 64): an optional sign and decimal digits (underscores are
 * not allowed in base 10). Values beyond ±2^53 keep their sign and magnitude approximately,
 * which is all a timeout or a limit needs.
 */
export function parseInt64Parameter(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw new ParameterError(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  const parsed = BigInt(value);
  if (parsed > int64Max || parsed < int64Min) throw new ParameterError(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  return Number(parsed);
}

/** Go's %q for the strings query values carry (printable ASCII as is, the rest escaped as JSON does). */
function goQuote(value: string): string {
  return JSON.stringify(value);
}

interface Decoder {
  readonly query: QueryParameters;
  problem: ApiError | undefined;
}

function integerOf(decoder: Decoder, name: string, decoded: boolean): number | undefined {
  const raw = firstQueryValue(decoder.query, name);
  if (raw === undefined || !decoded) return undefined;
  try {
    return parseInt64Parameter(raw);
  } catch (error) {
    if (!(error instanceof ParameterError)) throw error;
    decoder.problem ??= badRequest(error.message);
    return undefined;
  }
}

/** Decodes the options the verb takes from its query; a parameter of another verb's options is ignored. */
export function decodeRequestOptions(verb: string, query: QueryParameters): RequestOptions {
  const kinds = optionsKindsOf(verb);
  const listing = kinds.includes('ListOptions');
  const deleting = kinds.includes('DeleteOptions');
  const writing = kinds.includes('CreateOptions') || kinds.includes('UpdateOptions') || kinds.includes('PatchOptions') || deleting;
  const decoder: Decoder = { query, problem: undefined };
  const timeoutSeconds = integerOf(decoder, 'timeoutSeconds', listing);
  const limit = integerOf(decoder, 'limit', listing) ?? 0;
  const gracePeriodSeconds = integerOf(decoder, 'gracePeriodSeconds', deleting);
  return {
    watch: verb === 'watch' || (flagOf(query, 'watch', listing) ?? false),
    allowWatchBookmarks: flagOf(query, 'allowWatchBookmarks', listing) ?? false,
    sendInitialEvents: flagOf(query, 'sendInitialEvents', listing),
    timeoutSeconds,
    limit,
    resourceVersion: textOf(query, 'resourceVersion', listing || kinds.includes('GetOptions')),
    resourceVersionMatch: textOf(query, 'resourceVersionMatch', listing),
    continue: textOf(query, 'continue', listing),
    labelSelector: textOf(query, 'labelSelector', listing),
    fieldSelector: textOf(query, 'fieldSelector', listing),
    dryRun: writing ? allQueryValues(query, 'dryRun') : [],
    fieldManager: textOf(query, 'fieldManager', writing && !deleting),
    fieldValidation: textOf(query, 'fieldValidation', writing && !deleting),
    force: flagOf(query, 'force', kinds.includes('PatchOptions')),
    gracePeriodSeconds,
    orphanDependents: flagOf(query, 'orphanDependents', deleting),
    propagationPolicy: textOf(query, 'propagationPolicy', deleting),
    problem: decoder.problem,
  };
}

/** A text parameter the verb's options decode (undefined when they do not). */
function textOf(query: QueryParameters, name: string, decoded: boolean): string | undefined {
  return decoded ? firstQueryValue(query, name) : undefined;
}

/** A boolean parameter the verb's options decode (undefined when they do not, or it is absent). */
function flagOf(query: QueryParameters, name: string, decoded: boolean): boolean | undefined {
  return decoded ? parseBoolParameter(firstQueryValue(query, name)) : undefined;
}
