// The property test of the request parser and the write path. A seeded generator sends random
// requests — verbs × content types × patch types × dry run × subresources × query spellings ×
// path spellings (`//`, `/./`, `..`, `%2F`, escaped letters, trailing slashes) × callers — to
// the real API server (buildServer over an in-memory store, with anonymous requests, a static
// token file, service account tokens, TokenRequest and TokenReview as deploy/auth-wiring.ts
// assembles them), recording what the authorizer was asked, what the admission chain saw and
// what reached the store. The callers are header-authenticated users with narrow RBAC rights,
// anonymous requests, two static token users, a service account of t with a minted token, and
// bad bearer tokens (test/fuzz/auth-requests.ts); besides the resource requests it sends
// TokenRequests (POST serviceaccounts/<name>/token) and TokenReviews with random bodies.
// It checks after every request:
//  1. no 5xx, and every error is a metav1.Status;
//  2. every proposal reached the store through the write path: the admission chain's validating
//     phase saw the same operation on the same object first (no write skips admission); a
//     TokenRequest or TokenReview writes nothing;
//  3. what was served is what was authorized: the request's own authorization was an allow for
//     the resource, namespace and (when named) object that was written or read, with the verb
//     that ran (a watch stream was authorized as a watch, a list as a list; a TokenRequest as
//     create serviceaccounts/token on the account its token names); every authorization was
//     asked for exactly the caller's identity; a bad bearer token is a 401 (never anonymous)
//     that asks no authorizer and does not echo the token;
//  4. no user gained rights: the narrow users', the token users', the service account's and
//     anonymous's answers to a fixed set of probe questions are the same after every request as
//     before the first (the escalation hole, on every path);
//  5. a token a TokenRequest minted (201) authenticates, in a follow-up SelfSubjectReview, as
//     exactly the service account it was requested for (a 401 when none of its audiences is an
//     API audience), and a TokenReview authenticates a token as its owner exactly when the
//     owner's authenticator accepts it for the asked audiences.
//  6. what a create or update stored holds every resource.Quantity, metav1.Time and MicroTime of
//     a built-in kind in the form kube writes it back (a pod's generated resources and timestamps
//     mix canonical, non-canonical and unparseable values): nothing stored that a Go client could
//     not decode.
// Used by test/unit/api/request-fuzz.test.ts (short, in CI) and `npm run fuzz:requests` (long).
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { StoreClient } from '../../api/index.ts';
import type { Authorizer } from '../../api/index.ts';
import { admissionPluginsInOrder } from '../../api/admission/chain.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../../api/admission/chain.ts';
import { authorize } from '../../api/auth/authz.ts';
import type { AuthorizationAttributes, Decision } from '../../api/auth/authz.ts';
import { authorizersFor } from '../../api/auth/rbac-authorizer.ts';
import type { RbacReader } from '../../api/auth/rbac-authorizer.ts';
import type { Command, CommandResult, ObjectKey } from '../../actors/index.ts';
import { ensureRbacBootstrap } from '../../deploy/rbac-bootstrap.ts';
import { servedKinds } from '../../api/registry/kinds.ts';
import { formatQuantity, parseQuantity } from '../../api/quantity.ts';
import { canonicalGoTimestamp } from '../../api/go-time.ts';
import { headerAuthenticator, ImmediateBackend, startHarness } from '../unit/api/harness.ts';
import {
  AuthWorld, authFixtureObjects, badTokens, bodyWithToken, checkAuthenticatedAs, checkBadToken, checkMintedToken, checkTokenRequestServed, checkTokenReview,
  decodedResponse, generateTokenRequest, generateTokenReview, identityOf, probedAuthCallers,
} from './auth-requests.ts';
import type { AuthEndpointRequest, Caller, ReviewedToken } from './auth-requests.ts';
import { cronTabCrd } from '../support/crd-fixtures.ts';
import { controllerIdentity as crdControllerIdentity } from '../../api/crd/custom-resources.ts';
import { waitFor } from '../support/wait-for.ts';
import type { Harness } from '../unit/api/harness.ts';

/** A small deterministic PRNG (mulberry32), so a failing seed replays. */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

class RecordingBackend extends ImmediateBackend {
  readonly commands: Command[] = [];
  override async propose(command: Command): Promise<CommandResult> {
    this.commands.push(command);
    return super.propose(command);
  }
}

interface AuthorizationRecord {
  readonly attributes: AuthorizationAttributes;
  readonly decision: Decision;
}

const rbacGroup = 'rbac.authorization.k8s.io';

interface Resource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

const listedResources: readonly Resource[] = [
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false },
  { group: rbacGroup, version: 'v1', resource: 'roles', kind: 'Role', namespaced: true },
  { group: rbacGroup, version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  { group: rbacGroup, version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  { group: rbacGroup, version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  // A custom resource (the fixture's CRD, established before the run): its decode, schema, CEL
  // rules and patch types go through the same path.
  { group: 'stable.example.com', version: 'v1', resource: 'crontabs', kind: 'CronTab', namespaced: true },
];

/** The listed resources (with bodies of their own) and every other served kind (with generic bodies). */
const resources: readonly Resource[] = [
  ...listedResources,
  ...servedKinds
    .filter((kind) => !listedResources.some((listed) => listed.group === kind.group && listed.version === kind.version && listed.resource === kind.resource))
    .map(({ group, version, resource, kind, namespaced }) => ({ group, version, resource, kind, namespaced })),
];

const everything = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];

function bodyFor(resource: Resource, name: string, random: Random, user: Caller): Record<string, unknown> {
  const apiVersion = resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
  const metadata: Record<string, unknown> = { name, ...(random.chance(0.2) ? { uid: 'forged-uid' } : {}), ...(random.chance(0.2) ? { resourceVersion: random.pick(['1', '999999', 'x']) } : {}) };
  const base = { apiVersion, kind: resource.kind, metadata };
  switch (resource.kind) {
    case 'ConfigMap':
      return { ...base, data: { a: random.pick(['b', 'c']) } };
    case 'Secret':
      return { ...base, stringData: { password: 'p' } };
    case 'Pod': {
      // Quantities and timestamps, canonical, not, or not parseable at all (huge exponents included).
      const quantity = (): unknown => random.pick(['100m', 0.5, '1024Mi', ' 2 ', '2000m', 1e21, '1e999999999', '1e', 'abc', true]);
      if (random.chance(0.5)) metadata['creationTimestamp'] = random.pick(['2026-01-01T01:00:00.5+01:00', '2026-02-30T00:00:00Z', 'now', 1767225600, null]);
      const resources = random.chance(0.6) ? { resources: { limits: { cpu: quantity() }, requests: { memory: quantity() } } } : {};
      return { ...base, spec: { containers: [{ name: 'c', image: 'nginx', ...resources }] } };
    }
    case 'Namespace':
      return base;
    case 'CronTab':
      // Valid or refused by the schema (a wrong type, an unknown field) or by a CEL rule (replicas over the maximum).
      return { ...base, spec: {
        cronSpec: random.pick(['* * * * *', 'nope']), image: 'web:1', replicas: random.pick([1, 3, 20, 'three', -1]), maxReplicas: 10,
        ...(random.chance(0.3) ? { unknownField: true } : {}), ...(random.chance(0.2) ? { tier: random.pick(['gold', 'silver']) } : {}),
      } };
    case 'Role':
    case 'ClusterRole':
      return random.chance(0.2) && resource.kind === 'ClusterRole'
        ? { ...base, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }] } }
        : { ...base, rules: random.chance(0.7) ? everything : [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] };
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      // Subjects are narrow users: an administrator's binding would give them rights on purpose, so
      // the administrator binds carol (never probed) and only the narrow users try to bind themselves.
      return { ...base, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: random.pick(['cluster-admin', 'admin', 'view']) }, subjects: [{ kind: 'User', name: user === 'admin' ? 'carol' : random.pick(['eve', 'bob']) }] };
    default:
      // Any other kind: a spec the kind's rules may take or refuse, with odd numbers and a pod template.
      return random.chance(0.3) ? base : {
        ...base,
        spec: {
          replicas: random.pick([1, 0, -1, 2.5, 2 ** 63, 1e20]),
          selector: random.pick([{ matchLabels: { app: name } }, {}, 'x']),
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }], restartPolicy: random.pick(['Always', 'Never']) } },
          ...(random.chance(0.3) ? { unknownField: true } : {}),
        },
      };
  }
}

const contentTypes = [
  'application/json', 'application/yaml', 'application/json-patch+json', 'application/merge-patch+json',
  'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'text/plain', 'application/xml',
  'application/vnd.kubernetes.protobuf',
] as const;

/** Spells a canonical path another way: some spellings name the same thing, some name nothing. */
function respell(path: string, random: Random): string {
  const segments = path.split('/');
  switch (random.pick(['none', 'none', 'none', 'none', 'none', 'double', 'dot', 'dotdot', 'slash', 'escape', 'trailing', 'upper'] as const)) {
    case 'none':
      return path;
    case 'double': {
      const at = 1 + Math.floor(random.next() * (segments.length - 1));
      return [...segments.slice(0, at), '', ...segments.slice(at)].join('/');
    }
    case 'dot': {
      const at = 1 + Math.floor(random.next() * (segments.length - 1));
      return [...segments.slice(0, at), '.', ...segments.slice(at)].join('/');
    }
    case 'dotdot': {
      const at = 2 + Math.floor(random.next() * Math.max(1, segments.length - 2));
      return [...segments.slice(0, at), 'x', '..', ...segments.slice(at)].join('/');
    }
    case 'slash': {
      const at = 2 + Math.floor(random.next() * Math.max(1, segments.length - 2));
      return [...segments.slice(0, at - 1), `${segments[at - 1] ?? ''}%2F${segments[at] ?? ''}`, ...segments.slice(at + 1)].join('/');
    }
    case 'escape':
      // A letter written as its escape decodes to the same canonical path.
      return path.replace(/([a-z])(?=[a-z]*$)/, (letter) => `%${letter.charCodeAt(0).toString(16)}`);
    case 'trailing':
      return `${path}/`;
    case 'upper':
      return path.replace(/%2F/g, '%2f');
  }
}

export interface FuzzRequest {
  readonly caller: Caller;
  /** How the Authorization header spells "Bearer" (token callers). */
  readonly scheme: string;
  readonly endpoint: 'resource' | 'tokenrequest' | 'tokenreview';
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly contentType: string | undefined;
  readonly accept: string | undefined;
  /** The body (a TokenReview's token is `@token@`, put in when sent: tokens are per run). */
  readonly body: string | undefined;
  /** The token a TokenReview asks about. */
  readonly reviewed: ReviewedToken | undefined;
}

const badCallers = badTokens.map((bad) => `bad:${bad}` as const);

/** A TokenRequest or TokenReview, its path respelled, from a caller likely to be allowed or not. */
function generateAuthEndpointRequest(random: Random, endpoint: 'tokenrequest' | 'tokenreview'): FuzzRequest {
  const generated: AuthEndpointRequest = endpoint === 'tokenrequest' ? generateTokenRequest(random) : generateTokenReview(random);
  const caller: Caller = random.chance(0.1) ? random.pick(badCallers) : endpoint === 'tokenrequest'
    ? random.pick(['admin', 'admin', 'tina', 'tina', 'tina', 'robot', 'eve', 'bob', 'tom', 'anonymous'] as const)
    : random.pick(['admin', 'admin', 'tom', 'tom', 'tom', 'tina', 'robot', 'nobody', 'anonymous'] as const);
  const accept = random.chance(0.15) ? random.pick(['application/yaml', 'application/vnd.kubernetes.protobuf', 'application/xml', 'application/json;as=Table;v=v1;g=meta.k8s.io']) : undefined;
  return {
    caller, scheme: random.pick(['Bearer', 'Bearer', 'bearer', 'BEARER']), endpoint, method: generated.method,
    // Respelled a third of the time: most spellings name nothing, and the bodies are the point here.
    path: `${random.chance(0.35) ? respell(generated.path, random) : generated.path}${generated.query.length === 0 ? '' : `?${generated.query.join('&')}`}`,
    contentType: generated.contentType, accept, body: generated.body, reviewed: generated.reviewed,
  };
}

/**
 * A request of the main stream: a resource request from a header user, or (given `caller`)
 * from that caller. The main stream draws exactly as it did before the auth callers existed,
 * so its seeds explore what they explored then.
 */
export function generateRequest(random: Random, caller?: Caller): FuzzRequest {
  const user: Caller = caller ?? random.pick(['admin', 'admin', 'admin', 'eve', 'eve', 'eve', 'bob', 'nobody'] as const);
  // eve mostly tries what she is there for: roles and bindings (the escalation paths).
  const resource = user === 'eve' && random.chance(0.6) ? random.pick(resources.filter((candidate) => candidate.group === rbacGroup))
    // Mostly the listed kinds (bodies of their own, so writes succeed), else any served kind.
    : random.pick(random.chance(0.9) ? listedResources : resources);
  const method = random.pick(['GET', 'GET', 'POST', 'PUT', 'PATCH', 'PATCH', 'DELETE'] as const);
  const namespace = random.pick(['t', 't', 't', 't', 'default', 'nowhere']);
  // A pod created under a name of its own: its quantities reach the store instead of a 409.
  const name = resource.resource === 'pods' && method === 'POST' && random.chance(0.5) ? `p${Math.floor(random.next() * 1e6)}` : random.pick(['c', 'mine', 'fresh', 'root', 't']);
  const prefix = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const collection = resource.namespaced && !(method === 'GET' && random.chance(0.1)) ? `${prefix}/namespaces/${namespace}/${resource.resource}` : `${prefix}/${resource.resource}`;
  const named = method !== 'POST' && !(method === 'GET' && random.chance(0.4)) && !(method === 'DELETE' && random.chance(0.15));
  const subresource = named && random.chance(0.2) ? random.pick(['status', 'finalize', 'lifecycle', 'binding', 'eviction', 'scale', 'approval', 'ephemeralcontainers', 'resize', 'proxy', 'bogus', 'status/extra']) : '';
  let path = named ? `${collection}/${name}${subresource === '' ? '' : `/${subresource}`}` : collection;
  if (random.chance(0.05)) path = path.replace('/api/v1/', '/api/v1/watch/');
  path = respell(path, random);
  const query: string[] = [];
  if (random.chance(0.25)) query.push('dryRun=All');
  if (method === 'GET' && random.chance(0.15)) query.push(`watch=${random.pick(['True', '1', 'true', '0', 'false', 'abc', ''])}`);
  if (random.chance(0.05)) query.push(`limit=${random.pick(['abc', '5', '-1', '99999999999999999999'])}`);
  if (random.chance(0.2)) query.push('fieldManager=fuzz');
  if (random.chance(0.1)) query.push(`force=${random.pick(['true', 'maybe'])}`);
  if (random.chance(0.05)) query.push(`fieldValidation=${random.pick(['Strict', 'Bogus'])}`);
  // Every watch ends on its own: a stream is read to its end.
  query.push('timeoutSeconds=1');
  const url = `${path}?${query.join('&')}`;
  let contentType: string | undefined;
  let body: string | undefined;
  if (method === 'POST' || method === 'PUT' || method === 'PATCH' || (method === 'DELETE' && random.chance(0.2))) {
    const object = bodyFor(resource, name, random, user);
    contentType = method === 'PATCH'
      ? random.pick(contentTypes.filter((type) => type !== 'application/json' && type !== 'application/yaml'))
      : random.pick(contentTypes.slice(0, 2).concat(['text/plain', 'application/xml']));
    if (method === 'DELETE') {
      contentType = 'application/json';
      body = JSON.stringify({ apiVersion: 'v1', kind: 'DeleteOptions', ...(random.chance(0.5) ? { preconditions: { resourceVersion: '1' } } : {}), ...(random.chance(0.3) ? { dryRun: ['All'] } : {}) });
    } else if (contentType === 'application/json-patch+json') {
      body = JSON.stringify(random.chance(0.1) ? { not: 'an array' } : [{ op: 'replace', path: random.pick(['/rules', '/roleRef', '/data', '/metadata/uid']), value: random.pick([everything, { a: 'b' }, 'x']) }]);
    } else if (contentType === 'application/apply-patch+yaml' || contentType === 'application/yaml') {
      body = toYaml(object);
    } else {
      body = JSON.stringify(method === 'PATCH' && random.chance(0.5) ? { rules: everything, roleRef: { kind: 'ClusterRole', name: 'cluster-admin' }, metadata: { uid: 'x' } } : object);
    }
  }
  const accept = random.chance(0.1) ? random.pick(['application/xml', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io']) : undefined;
  return { caller: user, scheme: caller === undefined ? 'Bearer' : random.pick(['Bearer', 'bearer']), endpoint: 'resource', method, path: url, contentType, accept, body, reviewed: undefined };
}

/**
 * A request of the auth stream (its own PRNG, interleaved with the main stream): a TokenRequest,
 * a TokenReview, or a resource request from anonymous, a token user, the service account or a
 * bad bearer token.
 */
export function generateAuthRequest(random: Random): FuzzRequest {
  const draw = random.next();
  if (draw < 0.4) return generateAuthEndpointRequest(random, 'tokenrequest');
  if (draw < 0.7) return generateAuthEndpointRequest(random, 'tokenreview');
  return generateRequest(random, random.chance(0.35) ? random.pick(badCallers) : random.pick(['anonymous', 'anonymous', 'tina', 'tom', 'robot', 'robot'] as const));
}

/** How often the auth stream adds a request after one of the main stream. */
const authRequestChance = 0.3;

/** What the narrow users, the token users, the service account and anonymous may do, asked before the run and after every request. */
const probes: readonly AuthorizationAttributes[] = (['eve', 'bob', 'nobody', ...probedAuthCallers] as const).flatMap((caller) => [
  ['get', '', 'secrets', 't'], ['create', '', 'pods', 't'], ['delete', '', 'configmaps', 't'], ['list', '', 'secrets', ''],
  ['create', rbacGroup, 'clusterrolebindings', ''], ['escalate', rbacGroup, 'roles', 't'], ['bind', rbacGroup, 'clusterroles', ''],
  ['get', '', 'configmaps', 'default'], ['watch', '', 'configmaps', 't'], ['list', '', 'configmaps', 't'],
  ['create', '', 'serviceaccounts', 't', 'token'], ['create', '', 'serviceaccounts', 'default', 'token'], ['get', '', 'serviceaccounts', 't'],
  ['create', 'authentication.k8s.io', 'tokenreviews', ''], ['impersonate', '', 'serviceaccounts', 't'],
].map(([verb, apiGroup, resource, namespace, subresource = '']) => ({
  user: identityOf(caller)!, verb: verb!, isResourceRequest: true, path: '', apiGroup: apiGroup!,
  apiVersion: 'v1', namespace: namespace!, resource: resource!, subresource, name: '',
})));

export interface FuzzFailure {
  readonly seed: number;
  readonly iteration: number;
  readonly request: FuzzRequest;
  readonly problem: string;
  readonly status: number;
  readonly body: string;
}

export interface FuzzRun {
  readonly requests: number;
  readonly failures: readonly FuzzFailure[];
  /** How often each status code was answered (to see the run explored refusals and successes). */
  readonly statuses: Readonly<Record<string, number>>;
  /** Requests that proposed something. */
  readonly writes: number;
  /** TokenRequests answered 201 whose token the follow-up SelfSubjectReview checked. */
  readonly mintedTokens: number;
  /** TokenReviews answered 201 that authenticated their token. */
  readonly authenticatedReviews: number;
  /** Requests with a bad bearer token. */
  readonly badTokens: number;
}

interface Fixture {
  readonly harness: Harness;
  readonly world: AuthWorld;
  readonly backend: RecordingBackend;
  readonly authorizations: AuthorizationRecord[];
  readonly admitted: AdmissionAttributes[];
  readonly chain: readonly Authorizer[];
}

async function startFixture(): Promise<Fixture> {
  const backend = new RecordingBackend();
  const authorizations: AuthorizationRecord[] = [];
  const admitted: AdmissionAttributes[] = [];
  const reader: RbacReader = { get: (key) => backend.get(key), list: (collection) => backend.list(collection) };
  const chain = authorizersFor(['RBAC'], reader);
  const recorder: Authorizer = {
    name: 'recorder',
    async authorize(attributes) {
      const result = await authorize(chain, attributes);
      authorizations.push({ attributes, decision: result.decision });
      return result;
    },
  };
  const admissionRecorder: AdmissionPlugin = { name: 'Recorder', validate: (attributes) => { admitted.push(attributes); } };
  const store = new StoreClient(backend);
  const world = new AuthWorld(store, headerAuthenticator);
  const harness = await startHarness(['default', 't'], { authorizers: [recorder], admissionPlugins: [...admissionPluginsInOrder, admissionRecorder], backend, ...world.serverOptions() });
  await ensureRbacBootstrap(store);
  const setup: [string, Record<string, unknown>][] = [
    [`/apis/${rbacGroup}/v1/namespaces/t/roles`, { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name: 'eve-powers' }, rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      { apiGroups: [rbacGroup], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'] },
    ] }],
    [`/apis/${rbacGroup}/v1/namespaces/t/rolebindings`, { apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'eve-powers' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'eve-powers' }, subjects: [{ kind: 'User', name: 'eve' }] }],
    [`/apis/${rbacGroup}/v1/namespaces/t/roles`, { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name: 'bob-getter' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get'] }] }],
    [`/apis/${rbacGroup}/v1/namespaces/t/rolebindings`, { apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-getter' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'bob-getter' }, subjects: [{ kind: 'User', name: 'bob' }] }],
    [`/apis/${rbacGroup}/v1/namespaces/t/roles`, { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name: 'mine' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }],
    ['/api/v1/namespaces/t/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } }],
    ['/api/v1/namespaces/t/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'mine' }, stringData: { password: 'hunter2' } }],
    ...authFixtureObjects,
  ];
  for (const [path, object] of setup) {
    const response = await harness.request('POST', path, object);
    if (response.statusCode !== 201) throw new Error(`fixture ${path}: ${response.body}`);
  }
  await world.mintTokens();
  // The CronTab CRD, served and its controllers done (their own writes must not fall inside a request's window).
  const crd = await harness.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', cronTabCrd());
  if (crd.statusCode !== 201) throw new Error(`fixture CRD: ${crd.body}`);
  await waitFor(async () => (await harness.request('GET', '/apis/stable.example.com/v1/namespaces/t/crontabs')).statusCode === 200
    && (await harness.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.stable.example.com')).statusCode === 200, { timeoutMs: 10_000, description: 'the CronTab CRD served' });
  await harness.customResources?.settled();
  return { harness, world, backend, authorizations, admitted, chain };
}

async function probeAnswers(chain: readonly Authorizer[]): Promise<readonly Decision[]> {
  const answers: Decision[] = [];
  for (const probe of probes) answers.push((await authorize(chain, probe)).decision);
  return answers;
}

/** The probes a user may answer yes to now but not before (losing rights is no escalation). */
function gained(before: readonly Decision[], after: readonly Decision[]): string[] {
  return probes.filter((_probe, index) => after[index] === 'allow' && before[index] !== 'allow')
    .map((probe) => `${probe.user.name} ${probe.verb} ${probe.resource} in "${probe.namespace}"`);
}

function sameKey(attributes: AdmissionAttributes, key: ObjectKey): boolean {
  return attributes.kind.resource === key.resource && attributes.kind.group === key.group && attributes.namespace === key.namespace && attributes.name === key.name;
}

const operationOf = { create: 'CREATE', update: 'UPDATE', delete: 'DELETE' } as const;

/** A path with its escapes decoded (as it is when one is malformed). */
function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The checks of one answered request; '' when it holds. */
function check(request: FuzzRequest, status: number, contentType: string, body: string, served: Record<string, unknown> | undefined, fixture: Fixture, commands: readonly Command[], admitted: readonly AdmissionAttributes[], authorizations: readonly AuthorizationRecord[]): string {
  // kube-apiserver's own answer to an applied configuration with a field its schema does not
  // declare is a plain error, so 500 (api/fieldmanager/apply-handler.ts): the one 500 expected.
  const typedPatchRefusal = status === 500 && request.contentType === 'application/apply-patch+yaml' && body.includes('"message":"failed to create typed patch object');
  if (status >= 500 && !typedPatchRefusal) return `answered ${status}`;
  if (status >= 400) {
    if (!contentType.startsWith('application/json')) return `an error that is not a Status (${contentType})`;
    const parsed = JSON.parse(body) as { kind?: string; code?: number };
    if (parsed.kind !== 'Status' || parsed.code !== status) return 'an error that is not a Status with its code';
  }
  const authenticatedAs = checkAuthenticatedAs(request.caller, authorizations.map((record) => record.attributes));
  if (authenticatedAs !== '') return authenticatedAs;
  const badToken = checkBadToken(request.caller, status, body, fixture.world);
  if (badToken !== '') return badToken;
  if (request.endpoint !== 'resource' && commands.length > 0) return `a ${request.endpoint} proposed ${commands.map((command) => command.type).join(', ')}`;
  const own = authorizations.find((record) => !['escalate', 'bind', 'impersonate'].includes(record.attributes.verb));
  for (const command of commands) {
    if (command.type !== 'create' && command.type !== 'update' && command.type !== 'delete') continue;
    if (!admitted.some((attributes) => attributes.operation === operationOf[command.type] && sameKey(attributes, command.key))) {
      return `${command.type} of ${JSON.stringify(command.key)} was proposed without admission`;
    }
    if (own === undefined || own.decision !== 'allow') return `${command.type} of ${JSON.stringify(command.key)} was proposed without an allowed authorization`;
    const authorized = own.attributes;
    // An eviction deletes its pod, a binding updates it: the authorized resource is the subresource's.
    // POST bindings assigns a pod: authorized as create bindings, it updates the pod.
    const bindingOfPod = authorized.resource === 'bindings' && authorized.apiGroup === '' && command.key.group === '' && command.key.resource === 'pods';
    if ((authorized.resource !== command.key.resource || authorized.apiGroup !== command.key.group) && !bindingOfPod) return `wrote ${command.key.resource} but authorized ${authorized.resource}`;
    // A namespace's own requests carry its name as their namespace (kube's RequestInfo).
    const namespaceObject = command.key.group === '' && command.key.resource === 'namespaces' && authorized.namespace === command.key.name;
    if (authorized.namespace !== command.key.namespace && !namespaceObject) return `wrote in namespace "${command.key.namespace}" but authorized "${authorized.namespace}"`;
    if (authorized.name !== '' && authorized.name !== command.key.name) return `wrote ${command.key.name} but authorized ${authorized.name}`;
    // What is stored decodes as kube would decode it: a pod's quantities and timestamps in their canonical form.
    if (command.type !== 'delete' && command.key.group === '' && command.key.resource === 'pods') {
      const notCanonical = nonCanonicalPodValue(command.object);
      if (notCanonical !== undefined) return `${command.type} of ${JSON.stringify(command.key)} stored ${notCanonical}, which kube would not`;
    }
    // Only an eviction deletes through a subresource; a DELETE of <name>/<subresource> never deletes the object.
    const eviction = authorized.apiGroup === '' && authorized.resource === 'pods' && authorized.subresource === 'eviction';
    if (command.type === 'delete' && authorized.subresource !== '' && !eviction) return `deleted ${command.key.resource} ${command.key.name} but authorized ${authorized.verb} ${authorized.resource}/${authorized.subresource}`;
  }
  // The lifecycle inspector serves an ObjectLifecycle of any kind, however its path is spelled.
  if (status < 300 && request.path.startsWith('/api') && !decodedPath(request.path).includes('/lifecycle')) {
    if (own === undefined || own.decision !== 'allow') return `answered ${status} without an allowed authorization`;
    const tokenRequest = checkTokenRequestServed(served, own.attributes);
    if (tokenRequest !== '') return tokenRequest;
    if (served?.['kind'] === 'TokenReview' && (own.attributes.verb !== 'create' || own.attributes.apiGroup !== 'authentication.k8s.io' || own.attributes.resource !== 'tokenreviews')) {
      return `a TokenReview was served authorized as ${own.attributes.verb} ${own.attributes.apiGroup}/${own.attributes.resource}`;
    }
    // A watch that saw nothing before its timeout has an empty body.
    const streamed = body.startsWith('{"type":') || body === '';
    if (streamed && own.attributes.verb !== 'watch') return `served a watch stream authorized as ${own.attributes.verb}`;
    // Protobuf bodies are checked through their JSON twin (the same handler answers both).
    if (!streamed && request.method === 'GET' && !contentType.includes('protobuf')) {
      const served = (contentType.startsWith('application/yaml') ? parseYaml(body) : JSON.parse(body)) as { kind?: string; items?: { metadata?: { namespace?: string } }[]; metadata?: { namespace?: string; name?: string } };
      const kind = resources.find((resource) => resource.resource === own.attributes.resource && resource.group === own.attributes.apiGroup)?.kind;
      if (kind !== undefined && served.kind !== kind && served.kind !== `${kind}List` && served.kind !== 'Table') return `served a ${served.kind ?? '?'} authorized as ${own.attributes.resource}`;
      if (served.kind?.endsWith('List') === true && own.attributes.verb !== 'list') return `served a list authorized as ${own.attributes.verb}`;
      const namespaces = served.kind === 'Table' || kind === 'Namespace' ? [] : served.items?.map((item) => item.metadata?.namespace ?? '') ?? [served.metadata?.namespace ?? ''];
      if (own.attributes.namespace !== '' && namespaces.some((namespace) => namespace !== own.attributes.namespace)) return `served objects of another namespace than "${own.attributes.namespace}"`;
      if (own.attributes.name !== '' && served.metadata?.name !== undefined && served.kind === kind && served.metadata.name !== own.attributes.name) return `served ${served.metadata.name} authorized as ${own.attributes.name}`;
    }
  }
  return '';
}

/** The first quantity or timestamp of a stored pod that is not in the form kube writes back (checked with api/quantity.ts and api/go-time.ts, not with the decode under test). */
function nonCanonicalPodValue(pod: Record<string, unknown> | { readonly [key: string]: unknown }): string | undefined {
  const isCanonical = (value: unknown, canonical: (text: string) => string): boolean => {
    if (typeof value !== 'string') return false;
    try {
      return canonical(value) === value;
    } catch {
      return false;
    }
  };
  const metadata = (pod['metadata'] ?? {}) as Record<string, unknown>;
  for (const field of ['creationTimestamp', 'deletionTimestamp']) {
    if (metadata[field] !== undefined && !isCanonical(metadata[field], (text) => canonicalGoTimestamp(text, 'Time'))) return `metadata.${field} ${JSON.stringify(metadata[field])}`;
  }
  const containers = ((pod['spec'] ?? {}) as { containers?: { resources?: Record<string, Record<string, unknown>> }[] }).containers ?? [];
  for (const container of containers) {
    for (const [part, list] of Object.entries(container.resources ?? {})) {
      for (const [name, value] of Object.entries(list)) {
        if (!isCanonical(value, (text) => formatQuantity(parseQuantity(text)))) return `resources.${part}.${name} ${JSON.stringify(value)}`;
      }
    }
  }
  return undefined;
}

interface Tally {
  readonly statuses: Record<string, number>;
  readonly failures: FuzzFailure[];
  writes: number;
  badTokens: number;
  requests: number;
}

/** Sends one request, checks it (and, for a minted token, its follow-up), and the probes after it. */
async function sendAndCheck(fixture: Fixture, request: FuzzRequest, rights: readonly Decision[], tally: Tally, seed: number, iteration: number): Promise<readonly Decision[]> {
  const commandsBefore = fixture.backend.commands.length;
  const admittedBefore = fixture.admitted.length;
  fixture.authorizations.length = 0;
  const reviewedToken = request.reviewed === undefined ? '' : fixture.world.reviewedToken(request.reviewed);
  const body = request.reviewed === undefined ? request.body : bodyWithToken(request.body, request.contentType, reviewedToken);
  const response = await fixture.harness.app.inject({
    method: request.method, url: request.path,
    headers: { ...fixture.world.headersFor(request.caller, request.scheme), ...(request.contentType ? { 'content-type': request.contentType } : {}), ...(request.accept ? { accept: request.accept } : {}) },
    // Protobuf bodies are bytes (kept in a latin1 string); everything else is text.
    ...(body !== undefined ? { payload: request.contentType?.includes('protobuf') === true ? Buffer.from(body, 'latin1') : body } : {}),
  });
  tally.requests++;
  tally.statuses[String(response.statusCode)] = (tally.statuses[String(response.statusCode)] ?? 0) + 1;
  // The request's own writes: the CRD controllers' (which run beside requests, as in kube) are not.
  const commands = fixture.backend.commands.slice(commandsBefore).filter((command) => !('by' in command) || command.by !== crdControllerIdentity);
  if (commands.length > 0) tally.writes++;
  if (request.caller.startsWith('bad:')) tally.badTokens++;
  const served = response.statusCode < 300 ? decodedResponse(response) : undefined;
  let problem = check(request, response.statusCode, String(response.headers['content-type'] ?? ''), response.body, served, fixture, commands, fixture.admitted.slice(admittedBefore), fixture.authorizations);
  if (problem === '') problem = checkTokenReview(fixture.world, request, body, response.statusCode, served);
  if (problem === '' && response.statusCode === 201) {
    problem = await checkMintedToken(fixture.world, served, async (headers) => {
      fixture.authorizations.length = 0;
      const followUp = await fixture.harness.app.inject({
        method: 'POST', url: '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers, payload: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      });
      return { response: followUp, authorizedAs: fixture.authorizations.map((record) => record.attributes.user) };
    });
  }
  const now = await probeAnswers(fixture.chain);
  const escalated = request.caller === 'admin' ? [] : gained(rights, now);
  if (problem === '' && escalated.length > 0) problem = `a narrow user gained rights: ${escalated.join('; ')}`;
  // Minted tokens stay out of reports.
  if (problem !== '') tally.failures.push({ seed, iteration, request, problem, status: response.statusCode, body: response.body.replace(/eyJ[\w-]*\.[\w-]*\.[\w-]*/g, '<token>').slice(0, 500) });
  // An administrator may change rights on purpose, anyone may lose them: the baseline follows.
  return now;
}

/**
 * Runs `iterations` requests of the main stream against a fresh server, each followed, about
 * one time in three, by one of the auth stream; returns what failed.
 */
export async function fuzzRequests(seed: number, iterations: number): Promise<FuzzRun> {
  const random = new Random(seed);
  const authRandom = new Random(seed ^ 0x5bd1e995);
  const fixture = await startFixture();
  const tally: Tally = { statuses: {}, failures: [], writes: 0, badTokens: 0, requests: 0 };
  try {
    let rights = await probeAnswers(fixture.chain);
    for (let iteration = 0; iteration < iterations; iteration++) {
      rights = await sendAndCheck(fixture, generateRequest(random), rights, tally, seed, iteration);
      if (authRandom.chance(authRequestChance)) rights = await sendAndCheck(fixture, generateAuthRequest(authRandom), rights, tally, seed, iteration);
    }
    const authenticatedReviews = fixture.world.reviews.filter((review) => review.authenticated).length;
    return {
      requests: tally.requests, failures: tally.failures, statuses: tally.statuses, writes: tally.writes,
      mintedTokens: fixture.world.minted.length, authenticatedReviews, badTokens: tally.badTokens,
    };
  } finally {
    await fixture.harness.close();
  }
}
