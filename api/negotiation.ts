// Owns: content negotiation at the HTTP edge: which representation a response takes (JSON,
// YAML or the meta.k8s.io Table form) from the Accept header, and decoding request bodies
// (JSON or YAML) into plain objects with kube-apiserver's errors (400 for a body that does
// not parse, 406 when no acceptable media type is served).
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { badRequest, notAcceptable } from './status.ts';

export type ResponseFormat = { readonly type: 'json' } | { readonly type: 'yaml' } | { readonly type: 'table' };

interface MediaRange {
  readonly type: string;
  readonly parameters: Readonly<Record<string, string>>;
}

function parseMediaRanges(accept: string): MediaRange[] {
  return accept.split(',').map((range) => {
    const [type = '', ...parameterParts] = range.split(';').map((part) => part.trim());
    const parameters: Record<string, string> = {};
    for (const part of parameterParts) {
      const [key, value = ''] = part.split('=');
      if (key) parameters[key.trim().toLowerCase()] = value.trim().replace(/^"|"$/g, '');
    }
    return { type: type.toLowerCase(), parameters };
  }).filter((range) => range.type !== '');
}

function formatFor(range: MediaRange, tableAllowed: boolean): ResponseFormat | undefined {
  const as = range.parameters['as'];
  if (as !== undefined) {
    const isTable = as === 'Table' && range.parameters['g'] === 'meta.k8s.io' && (range.parameters['v'] === 'v1' || range.parameters['v'] === 'v1beta1');
    return isTable && tableAllowed && range.type === 'application/json' ? { type: 'table' } : undefined;
  }
  if (range.type === 'application/json' || range.type === 'application/*' || range.type === '*/*') return { type: 'json' };
  if (range.type === 'application/yaml') return { type: 'yaml' };
  return undefined;
}

/** Picks the first acceptable representation in the client's order; 406 when none is served. */
export function negotiate(accept: string | undefined, tableAllowed: boolean): ResponseFormat {
  if (accept === undefined || accept.trim() === '') return { type: 'json' };
  for (const range of parseMediaRanges(accept)) {
    const format = formatFor(range, tableAllowed);
    if (format) return format;
  }
  throw notAcceptable(`only the following media types are accepted: application/json, application/yaml${tableAllowed ? ', application/json;as=Table;v=v1;g=meta.k8s.io' : ''}`);
}

export function encode(format: ResponseFormat, body: unknown): { contentType: string; payload: string } {
  if (format.type === 'yaml') return { contentType: 'application/yaml', payload: stringifyYaml(body) };
  return { contentType: 'application/json', payload: JSON.stringify(body) };
}

/** Media types request bodies may use (patch types are added by the patch endpoint). */
export const bodyMediaTypes = ['application/json', 'application/yaml'] as const;

/** Decodes a request body of a supported media type into a JSON value. */
export function decodeBody(contentType: string | undefined, raw: string): unknown {
  const mediaType = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (raw.trim() === '') throw badRequest('the body of the request was empty');
  if (mediaType === 'application/yaml') {
    try {
      return parseYaml(raw, { maxAliasCount: 100 }) as unknown;
    } catch (error) {
      throw badRequest(`error converting YAML to JSON: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}
