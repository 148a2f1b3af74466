// Owns: the TokenRequest API, POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token, as
// kube's TokenREST (pkg/registry/core/serviceaccount/storage/token.go) answers it. The body is an
// authentication.k8s.io/v1 TokenRequest; a metadata.name or .namespace that differs from the URL's
// is a 422; the service account must exist (404); spec.audiences default to the API audiences
// and spec.expirationSeconds to 3600 (kube's v1 defaulting), which must be at least 600 and at
// most 2^32 (422, kube's messages). spec.boundObjectRef binds the token to a Pod (of this
// namespace, run by this service account; its node is named in the token too), a Secret (of this
// namespace) or a Node, by group and kind alone as kube matches them (other kinds: 400); the
// object must exist (404) and have the given uid if one is given (409). A requested expiration
// above --service-account-max-token-expiration is shortened, with kube's warning; a pod-bound
// request for exactly 3607 s with API audiences gets a year-long token that warns after 3607 s
// (--service-account-extend-token-expiration). The answer (201) is the request with its
// defaults, name, namespace and creationTimestamp, and status {token, expirationTimestamp}.
// kube mints on a dry run too (TokenREST ignores dryRun), and so does this. Without a token
// issuer (no signing key) the subresource is not served: 404. Who may ask is the authz hook's
// business (create on serviceaccounts/token).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KubeObject, ObjectKey } from '../../actors/index.ts';
import { badRequest, conflict, invalid, notFound, pathNotFound } from '../status.ts';
import type { StatusCause } from '../status.ts';
import type { EndpointContext } from '../endpoints/context.ts';
import { formatTime, isDryRun, requestBody, respond, sendWarnings } from '../endpoints/context.ts';
import { checkSubresource } from '../endpoints/subresource.ts';
import type { Target } from '../endpoints/target.ts';
import { expirationExtensionSeconds, warnOnlyBoundTokenExpirationSeconds } from './service-account-token.ts';
import type { ObjectRef, ServiceAccountTokenIssuer } from './service-account-token.ts';
import { readTypedBody } from './review-body.ts';
import { scanJson } from '../json-text.ts';
import { nestingDepthMax } from '../request-limits.ts';

const group = 'authentication.k8s.io';
const kind = 'TokenRequest';
const apiVersion = `${group}/v1`;
/** kube's v1 default of spec.expirationSeconds. */
export const defaultExpirationSeconds = 3600;
/** kube's MinTokenAgeSec. */
export const minExpirationSeconds = 600;
const maxExpirationSeconds = 2 ** 32;

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A decoding failure, worded as kube's JSON decoder words one. */
function undecodable(detail: string): never {
  throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${detail}`);
}

interface BoundObjectReference {
  readonly kind: string;
  readonly apiVersion: string;
  readonly name: string;
  readonly uid: string;
}

interface ParsedRequest {
  readonly metadata: Fields;
  readonly audiences: readonly string[];
  /** An int64, exact (a JSON number beyond 2^53 would be rounded as a number). */
  readonly expirationSeconds: bigint;
  readonly boundObjectRef: BoundObjectReference | undefined;
}

function stringField(object: Fields, name: string, where: string): string {
  const value = object[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') undecodable(`json: cannot unmarshal ${typeof value} into Go struct field ${where}.${name} of type string`);
  return value;
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/**
 * An int64 field as Go's encoding/json decodes it, from the number's literal text when the body
 * was JSON (so 2^63-1 stays exact): a fraction, an exponent or an out-of-range integer cannot be
 * unmarshalled into it (400); absent or null is undefined.
 */
function int64Field(value: unknown, literal: string | undefined, where: string): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') undecodable(`json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go struct field ${where} of type int64`);
  const text = literal ?? String(value);
  if (!/^-?\d+$/.test(text) || BigInt(text) < int64Min || BigInt(text) > int64Max) {
    undecodable(`json: cannot unmarshal number ${text} into Go struct field ${where} of type int64`);
  }
  return BigInt(text);
}

/** The literal text of spec.expirationSeconds in a JSON body (undefined for other media types). */
function numberLiterals(request: FastifyRequest): { readonly expirationSeconds?: string } {
  const mediaType = (request.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') return {};
  const raw = requestBody(request);
  let expirationSeconds: string | undefined;
  scanJson(Buffer.isBuffer(raw) ? raw.toString('utf8') : raw, {
    depthMax: nestingDepthMax,
    onNumber: (literal, path) => {
      const at = path();
      if (at.length === 2 && at[0] === 'spec' && at[1] === 'expirationSeconds') expirationSeconds = literal;
      return undefined;
    },
  });
  return expirationSeconds === undefined ? {} : { expirationSeconds };
}

function readTokenRequest(request: FastifyRequest): ParsedRequest {
  const literals = numberLiterals(request);
  const body = readTypedBody(request, apiVersion, kind);
  const metadata = body['metadata'] ?? {};
  if (!isFields(metadata)) undecodable('metadata: must be object');
  const spec = body['spec'] ?? {};
  if (!isFields(spec)) undecodable('spec: must be object');
  const audiences = spec['audiences'] ?? [];
  if (!Array.isArray(audiences) || !audiences.every((audience) => typeof audience === 'string')) {
    undecodable('json: cannot unmarshal into Go struct field TokenRequestSpec.spec.audiences of type []string');
  }
  const expiration = int64Field(spec['expirationSeconds'], literals.expirationSeconds, 'TokenRequestSpec.spec.expirationSeconds') ?? BigInt(defaultExpirationSeconds);
  const ref = spec['boundObjectRef'] ?? undefined;
  if (ref !== undefined && !isFields(ref)) undecodable('spec.boundObjectRef: must be object');
  const where = 'BoundObjectReference.spec.boundObjectRef';
  return {
    metadata, audiences: audiences as string[], expirationSeconds: expiration,
    boundObjectRef: ref === undefined ? undefined : {
      kind: stringField(ref, 'kind', where), apiVersion: stringField(ref, 'apiVersion', where), name: stringField(ref, 'name', where), uid: stringField(ref, 'uid', where),
    },
  };
}

function fieldInvalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` };
}

/** An int64 field's invalid value, printed exactly as Go prints it. */
function int64Invalid(field: string, value: bigint, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${value.toString()}: ${detail}` };
}

/** schema.FromAPIVersionAndKind: the group and version an apiVersion names (both empty when it does not parse). */
function groupVersionOf(version: string): { group: string; version: string } {
  if (version === '' || version === '/') return { group: '', version: '' };
  const parts = version.split('/');
  if (parts.length === 1) return { group: '', version };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

function coreKey(resource: string, namespace: string, name: string): ObjectKey {
  return { group: '', resource, namespace, name };
}

/** A rest.Getter's Get: a name is required (400), a missing object is a 404. */
function getObject(context: EndpointContext, resource: string, namespace: string, name: string): KubeObject {
  if (name === '') throw badRequest('Name parameter required.');
  const object = context.store.get(coreKey(resource, namespace, name));
  if (object === undefined) throw notFound({ group: '', resource }, name);
  return object;
}

interface Binding {
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
}

function refOf(object: KubeObject): ObjectRef {
  return { name: object.metadata.name ?? '', uid: object.metadata.uid ?? '' };
}

/** The objects a token is bound to, checked as TokenREST checks them. */
function bindingOf(ref: BoundObjectReference | undefined, serviceAccount: string, namespace: string, context: EndpointContext): Binding {
  if (ref === undefined) return {};
  const gvk = groupVersionOf(ref.apiVersion);
  let binding: Binding;
  let uid: string;
  if (gvk.group === '' && ref.kind === 'Pod') {
    const pod = getObject(context, 'pods', namespace, ref.name);
    const spec = isFields(pod['spec']) ? pod['spec'] : {};
    if (spec['serviceAccountName'] !== serviceAccount) {
      throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(serviceAccount)} to pod running with different serviceaccount name.`);
    }
    const nodeName = typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
    // A pod's node that does not exist is still named in the token, without a uid.
    const node = nodeName === '' ? undefined : context.store.get(coreKey('nodes', '', nodeName));
    binding = { pod: refOf(pod), ...(nodeName === '' ? {} : { node: node === undefined ? { name: nodeName, uid: '' } : refOf(node) }) };
    uid = pod.metadata.uid ?? '';
  } else if (gvk.group === '' && ref.kind === 'Node') {
    const node = getObject(context, 'nodes', '', ref.name);
    binding = { node: refOf(node) };
    uid = node.metadata.uid ?? '';
  } else if (gvk.group === '' && ref.kind === 'Secret') {
    const secret = getObject(context, 'secrets', namespace, ref.name);
    binding = { secret: refOf(secret) };
    uid = secret.metadata.uid ?? '';
  } else {
    throw badRequest(`cannot bind token to object of type ${gvk.group}/${gvk.version}, Kind=${ref.kind}`);
  }
  if (ref.uid !== '' && ref.uid !== uid) {
    throw conflict({ group: gvk.group, resource: ref.kind }, ref.name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  return binding;
}

/** Handles POST serviceaccounts/<name>/token. */
export async function handleTokenRequest(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  checkSubresource(target, 'create');
  const issuer: ServiceAccountTokenIssuer | undefined = context.serviceAccountTokens;
  if (issuer === undefined) throw pathNotFound();
  isDryRun(request.requestInfo.options, 'CreateOptions');
  const name = target.name!;
  const namespace = target.namespace ?? '';
  const parsed = readTokenRequest(request);
  const metadata: Fields = { ...parsed.metadata };
  if (typeof metadata['name'] === 'string' && metadata['name'] !== '' && metadata['name'] !== name) {
    throw invalid(group, kind, name, [fieldInvalid('metadata.name', metadata['name'], 'must match the service account name if specified')]);
  }
  if (typeof metadata['namespace'] === 'string' && metadata['namespace'] !== '' && metadata['namespace'] !== namespace) {
    throw invalid(group, kind, name, [fieldInvalid('metadata.namespace', metadata['namespace'], 'must match the service account namespace if specified')]);
  }
  await context.store.readIndex();
  const account = getObject(context, 'serviceaccounts', namespace, name);
  const audiences = parsed.audiences.length === 0 ? [...issuer.apiAudiences] : [...parsed.audiences];
  const now = issuer.now();
  metadata['name'] = name;
  metadata['namespace'] = namespace;
  metadata['creationTimestamp'] = formatTime(now);
  const causes: StatusCause[] = [];
  const requested = parsed.expirationSeconds;
  if (requested < BigInt(minExpirationSeconds)) causes.push(int64Invalid('spec.expirationSeconds', requested, 'may not specify a duration less than 10 minutes'));
  if (requested > BigInt(maxExpirationSeconds)) causes.push(int64Invalid('spec.expirationSeconds', requested, 'may not specify a duration larger than 2^32 seconds'));
  if (causes.length > 0) throw invalid(group, kind, '', causes);
  const binding = bindingOf(parsed.boundObjectRef, name, namespace, context);
  // Within [600, 2^32] now: exact as a number.
  let expirationSeconds = Number(requested);
  const cap = issuer.maxExpirationSeconds;
  if (cap !== undefined && cap > 0 && expirationSeconds > cap) {
    sendWarnings(reply, [`requested expiration of ${expirationSeconds} seconds shortened to ${cap} seconds`]);
    expirationSeconds = cap;
  }
  // A projected token of a pod asking kube's marker lifetime lives a year and warns after it.
  const extended = issuer.extendExpiration && binding.pod !== undefined && expirationSeconds === warnOnlyBoundTokenExpirationSeconds
    && audiences.every((audience) => issuer.apiAudiences.includes(audience));
  const minted = await issuer.mint({
    serviceAccount: { namespace, name, uid: account.metadata.uid ?? '' }, audiences,
    expirationSeconds: extended ? expirationExtensionSeconds : expirationSeconds,
    ...(extended ? { warnAfterSeconds: expirationSeconds } : {}),
    ...binding,
  });
  const ref = parsed.boundObjectRef;
  return respond(request, reply, 201, {
    kind, apiVersion, metadata,
    spec: {
      audiences, expirationSeconds,
      boundObjectRef: ref === undefined ? null : {
        ...(ref.kind === '' ? {} : { kind: ref.kind }), ...(ref.apiVersion === '' ? {} : { apiVersion: ref.apiVersion }),
        ...(ref.name === '' ? {} : { name: ref.name }), ...(ref.uid === '' ? {} : { uid: ref.uid }),
      },
    },
    status: { token: minted.token, expirationTimestamp: formatTime(new Date(now.getTime() + expirationSeconds * 1000)) },
  });
}
