// Owns: the discovery documents clients read before anything else: /version, /api, /apis,
// /apis/<group>, /api/v1 and /apis/<group>/<version>, in both the legacy form (APIVersions,
// APIGroupList, APIGroup, APIResourceList) and the aggregated form (apidiscovery.k8s.io v2 and
// v2beta1 APIGroupDiscoveryList, one request for all resources), chosen from the Accept header
// like kube-apiserver does. Everything is derived at startup from api/registry/kinds.ts and, for
// the create-only reviews that are never stored (authorization.k8s.io access reviews served by
// api/auth/rbac-reviews.ts, authentication.k8s.io SelfSubjectReview and TokenReview by
// api/auth/self-subject-review.ts and api/auth/token-review.ts),
// from reviewResources below. As kube-apiserver (go-restful web services, and the aggregator's
// /apis/ handler), every document is also served with a trailing slash (/version/ is what the
// generated clients call); /apis/ is the legacy list only. It does not serve resources
// themselves, nor OpenAPI (api/openapi.ts), nor the health endpoints (api/health.ts).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { authorizationGroup } from './auth/rbac-reviews.ts';
import { apiVersionOf, servedKinds } from './registry/kinds.ts';
import { apiServicePriorities } from './registry/strategy-apiregistration.ts';
import type { ResourceKind } from './registry/kinds.ts';
import type { KindSource } from './registry/kind-registry.ts';
import { authenticationGroup } from './auth/self-subject-review.ts';
import { notAcceptable, pathNotFound } from './status.ts';
import type { ApiError } from './status.ts';
import { acceptsPlainJson, parseAcceptHeader } from './table.ts';

/** The Kubernetes release whose API we present; kubectl compares it for version skew. */
export const kubernetesVersion = { major: '1', minor: '33', gitVersion: 'v1.33.0-kstore' } as const;

export interface VersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  readonly goVersion: string;
  readonly compiler: string;
  readonly platform: string;
}

export function versionInfo(): VersionInfo {
  return {
    ...kubernetesVersion, gitCommit: '', gitTreeState: 'clean', buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`, compiler: 'tsx', platform: `${process.platform}/${process.arch}`,
  };
}

/**
 * A resource served create-only and never stored (an access or identity review): discovery
 * lists it with its verbs and scope but no storage version hash, as kube-apiserver does.
 */
export type ReviewResource = Pick<ResourceKind, 'group' | 'version' | 'resource' | 'singular' | 'kind' | 'namespaced' | 'verbs'>;

function review(group: string, resource: string, kind: string, namespaced = false): ReviewResource {
  return { group, version: 'v1', resource, singular: resource.slice(0, -1), kind, namespaced, verbs: ['create'] };
}

/**
 * The reviews kstore serves, in kube's order (resources sorted by name). kstore's v1beta1
 * SelfSubjectReview (for kubectl 1.27) is not advertised, as kube 1.29+ disables that beta
 * version by default.
 */
export const reviewResources: readonly ReviewResource[] = [
  review(authenticationGroup, 'selfsubjectreviews', 'SelfSubjectReview'),
  review(authenticationGroup, 'tokenreviews', 'TokenReview'),
  review(authorizationGroup, 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
  review(authorizationGroup, 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'),
  review(authorizationGroup, 'selfsubjectrulesreviews', 'SelfSubjectRulesReview'),
  review(authorizationGroup, 'subjectaccessreviews', 'SubjectAccessReview'),
];

export interface DiscoveryOptions {
  /** The kinds to advertise; defaults to every built-in kind. */
  readonly kinds?: readonly ResourceKind[];
  /** The kinds to advertise as they change at run time (takes precedence over `kinds`). */
  readonly source?: KindSource;
  /** The create-only reviews to advertise after the kinds; defaults to reviewResources. */
  readonly reviews?: readonly ReviewResource[];
}

/** What discovery says of one resource, from a served kind or a review. */
interface DiscoveredResource extends ReviewResource, Pick<ResourceKind, 'shortNames' | 'categories'> {
  readonly subresources: NonNullable<ResourceKind['subresources']>;
  /** Absent for a resource that is never stored. */
  readonly storageVersionHash?: string;
}

function discoveredKind(kind: ResourceKind): DiscoveredResource {
  return {
    group: kind.group, version: kind.version, resource: kind.resource, singular: kind.singular, kind: kind.kind,
    namespaced: kind.namespaced, shortNames: kind.shortNames, categories: kind.categories, verbs: kind.verbs,
    subresources: kind.subresources ?? [], storageVersionHash: storageVersionHash(kind.storage ?? kind),
  };
}

function discoveredReview(resource: ReviewResource): DiscoveredResource {
  return { ...resource, shortNames: [], categories: [], subresources: [] };
}

/** apimachinery StorageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>"). */
export function storageVersionHash(kind: Pick<ResourceKind, 'group' | 'version' | 'kind'>): string {
  const digest = createHash('sha256').update(`${kind.group}/${kind.version}/${kind.kind}`).digest();
  return digest.subarray(0, 8).toString('base64');
}

/** One entry of an APIResourceList (metav1.APIResource). */
function apiResourceOf(kind: DiscoveredResource) {
  return {
    name: kind.resource, singularName: kind.singular, namespaced: kind.namespaced, kind: kind.kind,
    verbs: [...kind.verbs],
    ...(kind.shortNames.length > 0 ? { shortNames: [...kind.shortNames] } : {}),
    ...(kind.categories.length > 0 ? { categories: [...kind.categories] } : {}),
    ...(kind.storageVersionHash === undefined ? {} : { storageVersionHash: kind.storageVersionHash }),
  };
}

/** Subresources appear in the legacy list as "<resource>/<subresource>" entries. */
function subresourcesOf(kind: DiscoveredResource) {
  return kind.subresources.map((subresource) => ({
    name: `${kind.resource}/${subresource.name}`, singularName: '', namespaced: kind.namespaced,
    // A subresource of another kind names its group and version (pods/eviction: policy/v1 Eviction).
    ...(subresource.responseKind && (subresource.responseKind.group !== kind.group || subresource.responseKind.version !== kind.version)
      ? { group: subresource.responseKind.group, version: subresource.responseKind.version } : {}),
    kind: subresource.responseKind?.kind ?? kind.kind, verbs: [...subresource.verbs],
  }));
}

/** /api/v1 and /apis/<g>/<v>; the core list has no apiVersion field, as in kube-apiserver. */
function apiResourceList(kinds: readonly DiscoveredResource[], group: string, version: string) {
  const resources = kinds.filter((kind) => kind.group === group && kind.version === version).flatMap((kind) => [apiResourceOf(kind), ...subresourcesOf(kind)]);
  const groupVersion = apiVersionOf({ group, version });
  return group === ''
    ? { kind: 'APIResourceList', groupVersion, resources }
    : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

/** The groups in the order their resources come, each group's versions in the same order. */
function groupVersionsOf(kinds: readonly DiscoveredResource[]): { group: string; versions: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const kind of kinds) {
    const versions = groups.get(kind.group) ?? [];
    if (!versions.includes(kind.version)) versions.push(kind.version);
    groups.set(kind.group, versions);
  }
  return orderedByPriority([...groups].map(([group, versions]) => ({ group, versions })));
}

/**
 * The APIService priority a custom resource group gets (kube's CRD registration controller): low,
 * after every built-in group, and one version priority for all its versions, which then sort as
 * Kubernetes versions.
 */
export const customGroupPriority = { group: 1000, version: 100 } as const;

/** A group/version's APIService priority (kube's table); other groups are custom resource groups. */
function priorityOf(group: string, version: string): { readonly group: number; readonly version: number } {
  // The aggregator's own group has no APIService of its own; kube lists it first of the named groups.
  if (group === 'apiregistration.k8s.io') return { group: 18000, version: 15 };
  return apiServicePriorities.get(`${group}/${version}`) ?? customGroupPriority;
}

const kubeVersionPattern = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Kubernetes' version order (apimachinery's CompareKubeAwareVersionStrings): GA before beta
 * before alpha, higher numbers first; names that are not Kubernetes versions come last, by name.
 * Negative when `left` sorts first.
 */
export function compareKubeVersions(left: string, right: string): number {
  const parse = (version: string) => {
    const match = kubeVersionPattern.exec(version);
    if (match === null) return undefined;
    const stage = match[2] === undefined ? 2 : match[2] === 'beta' ? 1 : 0;
    return { major: Number(match[1]), stage, minor: Number(match[3] ?? 0) };
  };
  const a = parse(left);
  const b = parse(right);
  if (a === undefined || b === undefined) {
    if (a !== undefined) return -1;
    if (b !== undefined) return 1;
    return left < right ? -1 : left > right ? 1 : 0;
  }
  if (a.stage === 2 && b.stage === 2) return b.major - a.major;
  if (a.stage !== b.stage) return b.stage - a.stage;
  return b.major - a.major || b.minor - a.minor;
}

/**
 * Groups in kube-apiserver's discovery order: the legacy group, then by group priority (highest
 * first), each group's versions by version priority (its preferred version first).
 */
function orderedByPriority(groups: readonly { group: string; versions: string[] }[]): { group: string; versions: string[] }[] {
  const ranked = groups.map((entry, position) => ({
    group: entry.group, position,
    versions: [...entry.versions].sort((left, right) => priorityOf(entry.group, right).version - priorityOf(entry.group, left).version || compareKubeVersions(left, right)),
  }));
  const rank = (entry: { group: string; versions: string[] }): number => (entry.group === '' ? Infinity : Math.max(...entry.versions.map((version) => priorityOf(entry.group, version).group)));
  // Groups of equal priority (the custom resource groups) sort by name, as the aggregator's list.
  const byName = (left: { group: string; versions: string[] }, right: { group: string; versions: string[] }): number => (rank(left) === customGroupPriority.group ? (left.group < right.group ? -1 : left.group > right.group ? 1 : 0) : 0);
  return ranked.sort((left, right) => rank(right) - rank(left) || byName(left, right) || left.position - right.position).map(({ group, versions }) => ({ group, versions }));
}

/** metav1.APIGroup; the first version is the preferred one. */
export function apiGroupOf(group: string, versions: readonly string[]) {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, ...(entries[0] ? { preferredVersion: entries[0] } : {}) };
}

// --- aggregated discovery (apidiscovery.k8s.io) ---

type AggregatedVersion = 'v2' | 'v2beta1';

/** The versions of APIGroupDiscoveryList we can produce (v2beta1: kubectl 1.26-1.29). */
const aggregatedVersions: readonly AggregatedVersion[] = ['v2', 'v2beta1'];

function aggregatedResourceOf(kind: DiscoveredResource) {
  return {
    resource: kind.resource,
    responseKind: { group: kind.group, version: kind.version, kind: kind.kind },
    scope: kind.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: kind.singular,
    verbs: [...kind.verbs],
    ...(kind.shortNames.length > 0 ? { shortNames: [...kind.shortNames] } : {}),
    ...(kind.categories.length > 0 ? { categories: [...kind.categories] } : {}),
    ...(kind.subresources.length > 0 ? {
      subresources: kind.subresources.map((subresource) => ({
        subresource: subresource.name, responseKind: subresource.responseKind ?? { group: kind.group, version: kind.version, kind: kind.kind }, verbs: [...subresource.verbs],
      })),
    } : {}),
  };
}

function aggregatedGroupOf(kinds: readonly DiscoveredResource[], group: string, versions: readonly string[]) {
  return {
    metadata: group === '' ? {} : { name: group },
    versions: versions.map((version) => ({
      version,
      resources: kinds.filter((kind) => kind.group === group && kind.version === version).map(aggregatedResourceOf),
      freshness: 'Current',
    })),
  };
}

/** The aggregated document: /api holds the core group only, /apis every named group. */
function aggregatedDiscovery(kinds: readonly DiscoveredResource[], root: 'api' | 'apis', version: AggregatedVersion) {
  const groups = groupVersionsOf(kinds).filter(({ group }) => (root === 'api') === (group === ''));
  return {
    kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {},
    items: groups.map(({ group, versions }) => aggregatedGroupOf(kinds, group, versions)),
  };
}

function aggregatedContentType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

type Negotiated = { readonly form: 'aggregated'; readonly version: AggregatedVersion } | { readonly form: 'legacy' };

/**
 * Picks the first acceptable form in the client's order: an aggregated list (kubectl 1.27+
 * lists it first), else plain JSON. Undefined means nothing acceptable (406).
 */
export function negotiateDiscovery(accept: string | undefined, allowAggregated: boolean): Negotiated | undefined {
  const ranges = parseAcceptHeader(accept);
  if (ranges.length === 0) return { form: 'legacy' };
  for (const range of ranges) {
    const { g, v, as } = range.parameters;
    const isJson = range.type === 'application' && range.subtype === 'json';
    const version = aggregatedVersions.find((candidate) => candidate === v);
    if (allowAggregated && isJson && g === 'apidiscovery.k8s.io' && as === 'APIGroupDiscoveryList' && version) {
      return { form: 'aggregated', version };
    }
    if (acceptsPlainJson(range)) return { form: 'legacy' };
  }
  return undefined;
}

const notAcceptableMessage = 'only the following media types are accepted: application/json, '
  + 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, '
  + 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

function sendStatus(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.code).type('application/json').send(error.status);
}

/** Sends a JSON document with a strong ETag, answering 304 when the client already has it. */
function sendDocument(request: FastifyRequest, reply: FastifyReply, document: unknown, contentType: string): FastifyReply {
  const body = JSON.stringify(document);
  const etag = `"${createHash('sha256').update(contentType).update(body).digest('hex').slice(0, 32)}"`;
  reply.header('etag', etag).header('vary', 'Accept');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  // A Buffer keeps our Content-Type verbatim; fastify would reformat it for a string payload.
  return reply.code(200).header('content-type', contentType).send(Buffer.from(body, 'utf8'));
}

/** The address clients reach us on, as advertised in /api's serverAddressByClientCIDRs. */
function serverAddress(request: FastifyRequest): string {
  const socket = request.raw.socket as { localAddress?: string; localPort?: number } | null;
  const address = socket?.localAddress;
  const port = socket?.localPort;
  if (address === undefined || port === undefined) return request.headers.host ?? '';
  const host = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

interface Documents {
  readonly kinds: readonly DiscoveredResource[];
  readonly groups: readonly { group: string; versions: string[] }[];
}

/** `aggregated` false: the legacy list only (kube's /apis/, the aggregator's unwrapped apisHandler). */
function serveRoot(current: () => Documents, root: 'api' | 'apis', aggregated = true) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const documents = current();
    const negotiated = negotiateDiscovery(request.headers.accept, aggregated);
    if (negotiated === undefined) return sendStatus(reply, notAcceptable(notAcceptableMessage));
    if (negotiated.form === 'aggregated') {
      const document = aggregatedDiscovery(documents.kinds, root, negotiated.version);
      return sendDocument(request, reply, document, aggregatedContentType(negotiated.version));
    }
    if (root === 'api') {
      const cidrs = [{ clientCIDR: '0.0.0.0/0', serverAddress: serverAddress(request) }];
      return sendDocument(request, reply, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: cidrs }, 'application/json');
    }
    const groups = documents.groups.filter(({ group }) => group !== '').map(({ group, versions }) => apiGroupOf(group, versions));
    return sendDocument(request, reply, { kind: 'APIGroupList', apiVersion: 'v1', groups }, 'application/json');
  };
}

function serveLegacy(request: FastifyRequest, reply: FastifyReply, document: unknown | undefined): FastifyReply {
  if (document === undefined) return sendStatus(reply, pathNotFound());
  if (negotiateDiscovery(request.headers.accept, false) === undefined) {
    return sendStatus(reply, notAcceptable(notAcceptableMessage));
  }
  return sendDocument(request, reply, document, 'application/json');
}

/** Registers `path` and, as kube-apiserver serves them too, `path` with a trailing slash. */
function getWithSlash<Params>(app: FastifyInstance, path: string, handler: (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => Promise<FastifyReply>): void {
  app.get<{ Params: Params }>(path, handler);
  app.get<{ Params: Params }>(`${path}/`, handler);
}

function registerRoutes(app: FastifyInstance, current: () => Documents): void {
  const versionsOf = (group: string) => current().groups.find((entry) => entry.group === group)?.versions ?? [];
  getWithSlash(app, '/version', async (_request, reply) => reply.type('application/json').send(versionInfo()));
  getWithSlash(app, '/api', serveRoot(current, 'api'));
  app.get('/apis', serveRoot(current, 'apis'));
  app.get('/apis/', serveRoot(current, 'apis', false));
  getWithSlash<{ version: string }>(app, '/api/:version', async (request, reply) => {
    const served = versionsOf('').includes(request.params.version);
    return serveLegacy(request, reply, served ? apiResourceList(current().kinds, '', request.params.version) : undefined);
  });
  getWithSlash<{ group: string }>(app, '/apis/:group', async (request, reply) => {
    const versions = versionsOf(request.params.group);
    const document = request.params.group !== '' && versions.length > 0
      ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupOf(request.params.group, versions) }
      : undefined;
    return serveLegacy(request, reply, document);
  });
  getWithSlash<{ group: string; version: string }>(app, '/apis/:group/:version', async (request, reply) => {
    const { group, version } = request.params;
    const served = group !== '' && versionsOf(group).includes(version);
    return serveLegacy(request, reply, served ? apiResourceList(current().kinds, group, version) : undefined);
  });
}

async function discoveryPluginBody(app: FastifyInstance, options: DiscoveryOptions): Promise<void> {
  const source: KindSource = options.source ?? { all: () => options.kinds ?? servedKinds, generation: () => 0 };
  const build = (): Documents => {
    const kinds = [...source.all().map(discoveredKind), ...(options.reviews ?? reviewResources).map(discoveredReview)];
    return { kinds, groups: groupVersionsOf(kinds) };
  };
  // Rebuilt when the served kinds change (a CustomResourceDefinition came, changed or went).
  let built = { generation: source.generation(), documents: build() };
  registerRoutes(app, () => {
    if (built.generation !== source.generation()) built = { generation: source.generation(), documents: build() };
    return built.documents;
  });
}

/** Serves /version and the discovery documents. */
export const discoveryPlugin = fastifyPlugin(discoveryPluginBody, { name: 'kstore-discovery', fastify: '5.x' });
