// Owns: the OpenAPI documents built from the served kinds' JSON schemas: /openapi/v2 (swagger
// 2.0, JSON only) and /openapi/v3 with one document per group-version at /openapi/v3/api/v1 and
// /openapi/v3/apis/<group>/<version>. kubectl reads v3 to decide whether the server validates
// fields itself: cli-runtime's queryParamVerifierV3 looks, in the group-version's document, for
// a PATCH operation carrying `x-kubernetes-group-version-kind` of the object's kind and a
// `fieldValidation` parameter; if found, `create -f`, `replace -f` and `apply` leave validation
// to the server. `kubectl explain` finds the kind's schema in components.schemas by the same
// extension. kubectl asks for v2 only as protobuf (gnostic openapi_v2.Document), and 1.27/1.28
// fail every create/apply without it, so v2 is also served as protobuf, hand-encoded below:
// only swagger, info and definitions (what kubectl's v2 models read); no protobuf library is a
// dependency and this needs a dozen fields. This module does not validate objects (ajv does).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { apiVersionOf, servedKinds } from './registry/kinds.ts';
import type { ResourceKind } from './registry/kinds.ts';
import type { KindSource } from './registry/kind-registry.ts';
import { schemaExtensions } from './registry/schemas.ts';
import type { JsonSchema } from './registry/schemas.ts';
import { stringify as toYaml } from 'yaml';
import { kubernetesVersion } from './discovery.ts';
import { notAcceptable, pathNotFound } from './status.ts';
import type { ApiError } from './status.ts';
import { acceptsPlainJson, parseAcceptHeader } from './table.ts';

/** An OpenAPI document or fragment: JSON data. */
export type OpenApiObject = { [key: string]: OpenApiValue };
export type OpenApiValue = string | number | boolean | null | OpenApiValue[] | OpenApiObject;

export type OpenApiFlavor = 'v2' | 'v3';

const metaPrefix = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const objectMetaName = `${metaPrefix}.ObjectMeta`;
const listMetaName = `${metaPrefix}.ListMeta`;
const statusName = `${metaPrefix}.Status`;
const patchName = `${metaPrefix}.Patch`;
const deleteOptionsName = `${metaPrefix}.DeleteOptions`;

function reference(flavor: OpenApiFlavor, name: string): OpenApiObject {
  return { $ref: flavor === 'v2' ? `#/definitions/${name}` : `#/components/schemas/${name}` };
}

/** kube's definition name: io.k8s.api.<core|first group label>.<version>.<Kind>. */
export function definitionName(kind: Pick<ResourceKind, 'group' | 'version' | 'kind' | 'definedBy'>): string {
  // A custom resource is named by its reversed group, as kube's CRD OpenAPI builder names it.
  if (kind.definedBy !== undefined) return `${kind.group.split('.').reverse().join('.')}.${kind.version}.${kind.kind}`;
  const packageName = kind.group === '' ? 'core' : kind.group.split('.')[0] ?? kind.group;
  return `io.k8s.api.${packageName}.${kind.version}.${kind.kind}`;
}

function gvkOf(kind: Pick<ResourceKind, 'group' | 'version' | 'kind'>, suffix = ''): OpenApiObject {
  return { group: kind.group, kind: `${kind.kind}${suffix}`, version: kind.version };
}

/**
 * The named types met while converting a kind's schema (JsonSchema.definition): each becomes a
 * definition of its own, referred to where it is used, as kube's documents do (kubectl explain
 * then prints `<[]Container>`, `<Probe>`, `<Quantity>`).
 */
type NamedDefinitions = Map<string, OpenApiObject>;

/** A use of a named definition: a plain $ref (v2) or an allOf of it (v3, as kube writes it). */
function definitionReference(flavor: OpenApiFlavor, name: string): OpenApiObject {
  return flavor === 'v2' ? reference(flavor, name) : { allOf: [reference(flavor, name)] };
}

function childSchema(schema: JsonSchema, flavor: OpenApiFlavor, named: NamedDefinitions | undefined): OpenApiObject {
  const name = schema.definition;
  if (named === undefined || name === undefined) return toOpenApiSchema(schema, flavor, named);
  const converted = toOpenApiSchema({ ...schema, definition: undefined }, flavor, named);
  const known = named.get(name);
  if (known === undefined) named.set(name, converted);
  else if (JSON.stringify(known) !== JSON.stringify(converted)) throw new Error(`two different schemas are named ${name}`);
  return definitionReference(flavor, name);
}

/**
 * Converts one ajv schema node to OpenAPI: nullable types, kube's date-time format, no `false`
 * additionalProperties, IntOrString and Quantity as kube publishes them, string enums' values, the
 * required fields and x-kubernetes-* list extensions. With `named`, nested named types become references, collected there.
 */
export function toOpenApiSchema(schema: JsonSchema, flavor: OpenApiFlavor, named?: NamedDefinitions): OpenApiObject {
  const result: OpenApiObject = {};
  if (schema.description !== undefined) result['description'] = schema.description;
  const types = Array.isArray(schema.type) ? schema.type as string[] : undefined;
  if (types?.includes('integer')) {
    // intstr.IntOrString, as kube publishes it: a string with format int-or-string (v2), the extension (v3).
    if (flavor === 'v2') Object.assign(result, { type: 'string', format: 'int-or-string' });
    else result['x-kubernetes-int-or-string'] = true;
  } else if (types?.includes('number')) {
    // resource.Quantity: a string in v2, one of string and number in v3 (kube's OpenAPIV3OneOfTypes).
    if (flavor === 'v2') result['type'] = 'string';
    else result['oneOf'] = [{ type: 'string' }, { type: 'number' }];
  } else if (types !== undefined) {
    result['type'] = types.find((type) => type !== 'null') ?? 'string';
    if (flavor === 'v3' && types.includes('null')) result['nullable'] = true;
  } else if (schema.type !== undefined) {
    result['type'] = schema.type;
  }
  if (schema.format !== undefined) result['format'] = schema.format === 'date-time-or-empty' ? 'date-time' : schema.format;
  if (schema.enumValues !== undefined) result['enum'] = [...schema.enumValues];
  if (schema.items !== undefined) result['items'] = childSchema(schema.items, flavor, named);
  if (schema.properties !== undefined) {
    result['properties'] = Object.fromEntries(Object.entries(schema.properties)
      .map(([name, property]) => [name, childSchema(property, flavor, named)]));
  }
  if (typeof schema.additionalProperties === 'object') {
    result['additionalProperties'] = childSchema(schema.additionalProperties, flavor, named);
  }
  const required = schema.required ?? schema.requiredFields;
  if (required !== undefined) result['required'] = [...required];
  for (const extension of schemaExtensions) {
    const value = schema[extension];
    if (value !== undefined) result[extension] = Array.isArray(value) ? [...value as readonly string[]] : value as string;
  }
  return result;
}

/** A property that refers to another definition, the way kube's v3 documents do (allOf + default). */
function referenceProperty(flavor: OpenApiFlavor, name: string, description: string): OpenApiObject {
  return flavor === 'v2'
    ? { ...reference(flavor, name), description }
    : { allOf: [reference(flavor, name)], default: {}, description };
}

function kindDefinition(kind: ResourceKind, flavor: OpenApiFlavor, named: NamedDefinitions): OpenApiObject {
  const converted = toOpenApiSchema(kind.schema, flavor, named);
  const properties = { ...(converted['properties'] as OpenApiObject | undefined) };
  properties['metadata'] = referenceProperty(flavor, objectMetaName, 'Standard object\'s metadata.');
  return { ...converted, properties, 'x-kubernetes-group-version-kind': [gvkOf(kind)] };
}

function listDefinition(kind: ResourceKind, flavor: OpenApiFlavor): OpenApiObject {
  return {
    description: `${kind.kind}List is a list of ${kind.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      items: { type: 'array', items: referenceProperty(flavor, definitionName(kind), '') },
      metadata: referenceProperty(flavor, listMetaName, 'Standard list metadata.'),
    },
    'x-kubernetes-group-version-kind': [gvkOf(kind, 'List')],
  };
}

function sharedDefinitions(kinds: readonly ResourceKind[], flavor: OpenApiFlavor, named: NamedDefinitions): OpenApiObject {
  const objectMeta = kinds[0]?.schema.properties?.['metadata'];
  const text = { type: 'string' };
  return {
    [objectMetaName]: objectMeta ? toOpenApiSchema({ ...objectMeta, definition: undefined }, flavor, named) : { type: 'object' },
    [listMetaName]: {
      description: 'ListMeta describes metadata that synthetic resources must have.', type: 'object',
      properties: { continue: text, remainingItemCount: { type: 'integer', format: 'int64' }, resourceVersion: text, selfLink: text },
    },
    [statusName]: {
      description: 'Status is a return value for calls that don\'t return other objects.', type: 'object',
      properties: {
        apiVersion: text, kind: text, code: { type: 'integer', format: 'int32' }, message: text, reason: text, status: text,
        details: { type: 'object' }, metadata: referenceProperty(flavor, listMetaName, 'Standard list metadata.'),
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
    },
    [patchName]: { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.', type: 'object' },
    [deleteOptionsName]: {
      description: 'DeleteOptions may be provided when deleting an API object.', type: 'object',
      properties: {
        apiVersion: text, kind: text, dryRun: { type: 'array', items: text }, gracePeriodSeconds: { type: 'integer', format: 'int64' },
        orphanDependents: { type: 'boolean' }, preconditions: { type: 'object', properties: { resourceVersion: text, uid: text } },
        propagationPolicy: text,
      },
    },
  };
}

/** All definitions for the given kinds: the kinds, their lists and the meta types they refer to. */
export function definitionsFor(kinds: readonly ResourceKind[], flavor: OpenApiFlavor): OpenApiObject {
  const named: NamedDefinitions = new Map();
  const definitions: OpenApiObject = sharedDefinitions(kinds, flavor, named);
  for (const kind of kinds) {
    definitions[definitionName(kind)] = kindDefinition(kind, flavor, named);
    definitions[`${definitionName(kind)}List`] = listDefinition(kind, flavor);
  }
  for (const [name, definition] of [...named].sort(([a], [b]) => a.localeCompare(b))) {
    if (!(name in definitions)) definitions[name] = definition;
  }
  return definitions;
}

// --- operations ---

type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

interface ParameterSpec {
  readonly name: string;
  readonly location: 'query' | 'path';
  readonly type: 'string' | 'boolean' | 'integer';
  readonly description: string;
}

const query = (name: string, type: ParameterSpec['type'], description: string): ParameterSpec =>
  ({ name, location: 'query', type, description });

const writeParameters: readonly ParameterSpec[] = [
  query('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid values: All.'),
  query('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  query('fieldValidation', 'string', 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values: Ignore, Warn (default), Strict.'),
];

const listParameters: readonly ParameterSpec[] = [
  query('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  query('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  query('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields.'),
  query('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels.'),
  query('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  query('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  query('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  query('sendInitialEvents', 'boolean', 'sendInitialEvents=true may be set together with watch=true.'),
  query('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  query('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
];

const parametersByAction: Readonly<Record<Action, readonly ParameterSpec[]>> = {
  get: [],
  list: listParameters,
  post: writeParameters,
  put: writeParameters,
  patch: [...writeParameters, query('force', 'boolean', 'Force is going to "force" Apply requests.')],
  delete: [query('dryRun', 'string', 'When present, indicates that modifications should not be persisted.'),
    query('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
    query('propagationPolicy', 'string', 'Whether and how garbage collection will be performed.')],
  deletecollection: [...listParameters, query('dryRun', 'string', 'When present, indicates that modifications should not be persisted.')],
};

const patchContentTypes = ['application/apply-patch+yaml', 'application/json-patch+json',
  'application/merge-patch+json', 'application/strategic-merge-patch+json'];

function parameterObject(spec: ParameterSpec, flavor: OpenApiFlavor): OpenApiObject {
  const common = { name: spec.name, in: spec.location, description: spec.description, ...(spec.location === 'path' ? { required: true } : {}) };
  return flavor === 'v2'
    ? { ...common, type: spec.type, uniqueItems: true }
    : { ...common, schema: { type: spec.type, uniqueItems: true } };
}

const operationVerb: Readonly<Record<Action, string>> = {
  get: 'read', list: 'list', post: 'create', put: 'replace', patch: 'patch', delete: 'delete', deletecollection: 'deleteCollection',
};

function operationId(kind: ResourceKind, action: Action, allNamespaces: boolean): string {
  const groupLabel = kind.group === '' ? 'Core' : (kind.group.split('.')[0] ?? '');
  const prefix = `${groupLabel.charAt(0).toUpperCase()}${groupLabel.slice(1)}${kind.version.charAt(0).toUpperCase()}${kind.version.slice(1)}`;
  const scope = kind.namespaced ? (allNamespaces ? '' : 'Namespaced') : '';
  const suffix = allNamespaces ? 'ForAllNamespaces' : '';
  return `${operationVerb[action]}${prefix}${scope}${kind.kind}${suffix}`;
}

function responseSchemaName(kind: ResourceKind, action: Action): string {
  if (action === 'list') return `${definitionName(kind)}List`;
  if (action === 'deletecollection' || action === 'delete') return statusName;
  return definitionName(kind);
}

function requestBody(kind: ResourceKind, action: Action, flavor: OpenApiFlavor): OpenApiObject | undefined {
  if (action !== 'post' && action !== 'put' && action !== 'patch' && action !== 'delete') return undefined;
  const name = action === 'patch' ? patchName : action === 'delete' ? deleteOptionsName : definitionName(kind);
  if (flavor === 'v2') return { name: 'body', in: 'body', required: action !== 'delete', schema: reference(flavor, name) };
  const types = action === 'patch' ? patchContentTypes : ['*/*'];
  return { content: Object.fromEntries(types.map((type) => [type, { schema: reference(flavor, name) }])), required: action !== 'delete' };
}

function responses(kind: ResourceKind, action: Action, flavor: OpenApiFlavor): OpenApiObject {
  const schema = reference(flavor, responseSchemaName(kind, action));
  const ok: OpenApiObject = flavor === 'v2'
    ? { description: 'OK', schema }
    : { description: 'OK', content: { 'application/json': { schema }, 'application/yaml': { schema } } };
  const result: OpenApiObject = { '200': ok };
  if (action === 'post' || action === 'put' || action === 'patch') result['201'] = { ...ok, description: 'Created' };
  result['401'] = { description: 'Unauthorized' };
  return result;
}

function operation(kind: ResourceKind, action: Action, flavor: OpenApiFlavor, allNamespaces = false): OpenApiObject {
  const body = requestBody(kind, action, flavor);
  const parameters = parametersByAction[action].map((spec) => parameterObject(spec, flavor));
  const op: OpenApiObject = {
    description: `${operationVerb[action]} ${kind.kind}`,
    operationId: operationId(kind, action, allNamespaces),
    tags: [kind.group === '' ? `core_${kind.version}` : `${kind.group.split('.')[0] ?? ''}_${kind.version}`],
    parameters: flavor === 'v2' && body ? [...parameters, body] : parameters,
    responses: responses(kind, action, flavor),
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvkOf(kind),
  };
  if (flavor === 'v3' && body) op['requestBody'] = body;
  if (flavor === 'v2' && action === 'patch') op['consumes'] = patchContentTypes;
  return op;
}

function pathParameters(names: readonly string[], flavor: OpenApiFlavor): OpenApiValue[] {
  return names.map((name) => parameterObject({ name, location: 'path', type: 'string', description: `${name} of the resource` }, flavor));
}

/** The REST paths of one kind: collection, item, and for namespaced kinds the all-namespaces list. */
export function pathsForKind(kind: ResourceKind, flavor: OpenApiFlavor): OpenApiObject {
  const root = kind.group === '' ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  const scoped = kind.namespaced ? `${root}/namespaces/{namespace}/${kind.resource}` : `${root}/${kind.resource}`;
  const scopeNames = kind.namespaced ? ['namespace'] : [];
  const paths: OpenApiObject = {
    [scoped]: {
      get: operation(kind, 'list', flavor), post: operation(kind, 'post', flavor),
      delete: operation(kind, 'deletecollection', flavor), parameters: pathParameters(scopeNames, flavor),
    },
    [`${scoped}/{name}`]: {
      get: operation(kind, 'get', flavor), put: operation(kind, 'put', flavor), patch: operation(kind, 'patch', flavor),
      delete: operation(kind, 'delete', flavor), parameters: pathParameters(['name', ...scopeNames], flavor),
    },
  };
  if (kind.namespaced) paths[`${root}/${kind.resource}`] = { get: operation(kind, 'list', flavor, true), parameters: [] };
  return paths;
}

const info = { title: 'Kubernetes', version: kubernetesVersion.gitVersion };

/** The swagger 2.0 document of every kind. */
export function openApiV2Document(kinds: readonly ResourceKind[]): OpenApiObject {
  const paths = Object.assign({}, ...kinds.map((kind) => pathsForKind(kind, 'v2'))) as OpenApiObject;
  return {
    swagger: '2.0', info, paths, definitions: definitionsFor(kinds, 'v2'),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    security: [{ BearerToken: [] }],
  };
}

/** The OpenAPI 3.0 document of one group-version. */
export function openApiV3Document(kinds: readonly ResourceKind[]): OpenApiObject {
  const paths = Object.assign({}, ...kinds.map((kind) => pathsForKind(kind, 'v3'))) as OpenApiObject;
  return {
    openapi: '3.0.0', info, paths,
    components: {
      schemas: definitionsFor(kinds, 'v3'),
      securitySchemes: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    },
  };
}

// --- protobuf (gnostic openapiv2/OpenAPIv2.proto field numbers) ---

const protobufContentType = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const protobufResponseContentType = 'application/octet-stream';
const wireLengthDelimited = 2;

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return bytes;
}

function fieldBytes(field: number, content: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from([...varint(field * 8 + wireLengthDelimited), ...varint(content.length)]), content]);
}

function fieldString(field: number, value: string): Uint8Array {
  return fieldBytes(field, Buffer.from(value, 'utf8'));
}

function messageOf(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

/** NamedAny{name=1, value=2: Any{yaml=2}}: kube encodes vendor extensions as YAML text. */
function vendorExtension(field: number, name: string, value: OpenApiValue): Uint8Array {
  return fieldBytes(field, messageOf([fieldString(1, name), fieldBytes(2, fieldString(2, toYaml(value)))]));
}

function namedSchemas(field: number, entries: readonly [string, OpenApiValue][]): Uint8Array {
  return fieldBytes(field, messageOf(entries.map(([name, schema]) =>
    fieldBytes(1, messageOf([fieldString(1, name), fieldBytes(2, encodeSchema(schema as OpenApiObject))])))));
}

/** Schema: _ref=1 format=2 description=4 required=19 additionalProperties=21 type=22 items=23 allOf=24 properties=25 x-*=31. */
function encodeSchema(schema: OpenApiObject): Uint8Array {
  const parts: Uint8Array[] = [];
  const text = (key: string) => (typeof schema[key] === 'string' ? schema[key] as string : undefined);
  const reference = text('$ref');
  if (reference !== undefined) parts.push(fieldString(1, reference));
  if (text('format') !== undefined) parts.push(fieldString(2, text('format') ?? ''));
  if (text('description') !== undefined) parts.push(fieldString(4, text('description') ?? ''));
  for (const name of (schema['required'] as string[] | undefined) ?? []) parts.push(fieldString(19, name));
  const additional = schema['additionalProperties'];
  if (additional !== undefined) parts.push(fieldBytes(21, fieldBytes(1, encodeSchema(additional as OpenApiObject))));
  if (text('type') !== undefined) parts.push(fieldBytes(22, fieldString(1, text('type') ?? '')));
  if (schema['items'] !== undefined) parts.push(fieldBytes(23, fieldBytes(1, encodeSchema(schema['items'] as OpenApiObject))));
  for (const member of (schema['allOf'] as OpenApiObject[] | undefined) ?? []) parts.push(fieldBytes(24, encodeSchema(member)));
  const properties = schema['properties'] as OpenApiObject | undefined;
  if (properties !== undefined) parts.push(namedSchemas(25, Object.entries(properties)));
  for (const [key, value] of Object.entries(schema)) if (key.startsWith('x-')) parts.push(vendorExtension(31, key, value));
  return messageOf(parts);
}

/** Document: swagger=1, info=2 {title=1, version=2}, definitions=9 {additionalProperties=1 NamedSchema}. */
export function encodeOpenApiV2Protobuf(document: OpenApiObject): Uint8Array {
  const definitions = Object.entries((document['definitions'] as OpenApiObject | undefined) ?? {});
  return messageOf([
    fieldString(1, String(document['swagger'] ?? '2.0')),
    fieldBytes(2, messageOf([fieldString(1, info.title), fieldString(2, info.version)])),
    namedSchemas(9, definitions),
  ]);
}

/** The v3 index key of a group-version: "api/v1" or "apis/<group>/<version>". */
export function groupVersionPath(kind: Pick<ResourceKind, 'group' | 'version'>): string {
  return kind.group === '' ? `api/${kind.version}` : `apis/${apiVersionOf(kind)}`;
}

interface PreparedDocument {
  readonly body: string;
  /** kube: uppercase hex sha512 of the document, used as ?hash= and ETag. */
  readonly hash: string;
}

function prepare(document: OpenApiObject): PreparedDocument {
  const body = JSON.stringify(document);
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

interface Documents {
  readonly v2: PreparedDocument;
  readonly v2Protobuf: Uint8Array;
  readonly v3: ReadonlyMap<string, PreparedDocument>;
  readonly index: string;
}

function buildDocuments(kinds: readonly ResourceKind[]): Documents {
  const byGroupVersion = new Map<string, ResourceKind[]>();
  for (const kind of kinds) byGroupVersion.set(groupVersionPath(kind), [...(byGroupVersion.get(groupVersionPath(kind)) ?? []), kind]);
  const v3 = new Map([...byGroupVersion].map(([path, members]) => [path, prepare(openApiV3Document(members))]));
  const paths = Object.fromEntries([...v3].map(([path, document]) => [path, { serverRelativeURL: `/openapi/v3/${path}?hash=${document.hash}` }]));
  const v2 = openApiV2Document(kinds);
  return { v2: prepare(v2), v2Protobuf: encodeOpenApiV2Protobuf(v2), v3, index: JSON.stringify({ paths }) };
}

function sendStatus(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.code).type('application/json').send(error.status);
}

function acceptsJson(request: FastifyRequest): boolean {
  const ranges = parseAcceptHeader(request.headers.accept);
  return ranges.length === 0 || ranges.some(acceptsPlainJson);
}

const notAcceptableMessage = `only the following media types are accepted: application/json, ${protobufContentType}`;

/** True when the client's first acceptable type is the gnostic protobuf (kubectl's only choice). */
function prefersProtobuf(request: FastifyRequest): boolean {
  for (const range of parseAcceptHeader(request.headers.accept)) {
    if (`${range.type}/${range.subtype}` === protobufContentType) return true;
    if (acceptsPlainJson(range)) return false;
  }
  return false;
}

/** Documents under a matching ?hash= never change (kube marks them immutable); others are revalidated. */
function sendPrepared(request: FastifyRequest, reply: FastifyReply, document: PreparedDocument): FastifyReply {
  if (!acceptsJson(request)) return sendStatus(reply, notAcceptable(notAcceptableMessage));
  const etag = `"${document.hash}"`;
  const requestedHash = (request.query as Record<string, string | undefined>)['hash'];
  reply.header('etag', etag).header('vary', 'Accept');
  reply.header('cache-control', requestedHash === document.hash ? 'public, immutable' : 'no-cache, private');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.code(200).type('application/json').send(document.body);
}

async function openapiPluginBody(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const source: KindSource = options.source ?? { all: () => options.kinds ?? servedKinds, generation: () => 0 };
  // Built on first request (not at start: ~0.3 s of CPU a restart need not wait for), and rebuilt
  // on first use after the served kinds change (a CustomResourceDefinition came, changed or went).
  // The documents depend only on the served kinds, so when they are built does not change them.
  let built: { readonly generation: number; readonly documents: Documents } | undefined;
  const current = (): Documents => {
    if (built === undefined || built.generation !== source.generation()) built = { generation: source.generation(), documents: buildDocuments(source.all()) };
    return built.documents;
  };
  app.get('/openapi/v2', async (request, reply) => {
    const documents = current();
    if (!prefersProtobuf(request)) return sendPrepared(request, reply, documents.v2);
    // Not the requested type as Content-Type: '@' is no token character, so Go's
    // mime.ParseMediaType (client-go's response handling) would fail on it.
    return reply.header('etag', `"${documents.v2.hash}"`).header('vary', 'Accept')
      .header('content-type', protobufResponseContentType).send(Buffer.from(documents.v2Protobuf));
  });
  app.get('/openapi/v3', async (request, reply) => {
    if (!acceptsJson(request)) return sendStatus(reply, notAcceptable(notAcceptableMessage));
    return reply.header('cache-control', 'no-cache, private').type('application/json').send(current().index);
  });
  app.get<{ Params: { '*': string } }>('/openapi/v3/*', async (request, reply) => {
    const document = current().v3.get(request.params['*']);
    return document === undefined ? sendStatus(reply, pathNotFound()) : sendPrepared(request, reply, document);
  });
}

export interface OpenApiOptions {
  /** The kinds to describe; defaults to every built-in kind. */
  readonly kinds?: readonly ResourceKind[];
  /** The kinds to describe as they change at run time (takes precedence over `kinds`). */
  readonly source?: KindSource;
}

/** Serves /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>. */
export const openapiPlugin = fastifyPlugin(openapiPluginBody, { name: 'kstore-openapi', fastify: '5.x' });
