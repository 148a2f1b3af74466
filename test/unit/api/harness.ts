// A test harness for the API tier: the real buildServer over a real ClusterState, with a
// backend that applies each proposal at the next index at once (no Raft, no disk), and a test
// authenticator that reads the identity from an `x-test-user` header ("name;group,group").
// Each namespace it creates gets its `default` ServiceAccount, as the serviceaccount controller
// would add it.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ClusterState, commandVersion, encodeCommand } from '../../../actors/index.ts';
import type { ChangeEvent, Command, CommandResult } from '../../../actors/index.ts';
import { buildServer, StoreClient, systemMastersAuthorizer } from '../../../api/index.ts';
import type { ApiServer, Authenticator, Authorizer, FeatureGates, ServerOptions, StoreBackend } from '../../../api/index.ts';

export class ImmediateBackend implements StoreBackend {
  readonly state = new ClusterState();
  #index = 0;
  proposals = 0;

  async propose(command: Command): Promise<CommandResult> {
    this.proposals++;
    this.#index++;
    return this.state.apply({ index: this.#index, term: 1, data: encodeCommand({ version: commandVersion, command }) });
  }
  async readIndex(): Promise<number> {
    return this.#index;
  }
  get = (key: Parameters<ClusterState['get']>[0]) => this.state.get(key);
  lifecycleOf = (key: Parameters<ClusterState['lifecycleOf']>[0]) => this.state.lifecycleOf(key);
  list = (collection: Parameters<ClusterState['list']>[0]) => this.state.list(collection);
  subscribe = (listener: (events: readonly ChangeEvent[]) => void) => this.state.subscribe(listener);
  currentRevision = (): number => this.state.appliedIndex();
  ready = (): boolean => true;

  readonly #resyncListeners = new Set<(reason: string) => void>();
  subscribeResyncs = (listener: (reason: string) => void): (() => void) => {
    this.#resyncListeners.add(listener);
    return () => this.#resyncListeners.delete(listener);
  };
  /** What an API replica's copy does after losing events: re-synced, the listeners are told. */
  simulateResync(reason: string): void {
    for (const listener of this.#resyncListeners) listener(reason);
  }
}

export const headerAuthenticator: Authenticator = (request) => {
  const header = request.headers['x-test-user'];
  if (typeof header !== 'string') return { type: 'noCredentials' };
  const [name = '', groups = ''] = header.split(';');
  return { type: 'authenticated', user: { name, uid: '', groups: [...groups.split(',').filter((g) => g), 'system:authenticated'], extra: {} } };
};

export const admin = { 'x-test-user': 'admin;system:masters' };

export interface Harness {
  readonly app: FastifyInstance;
  readonly backend: ImmediateBackend;
  readonly cache: ApiServer['cache'];
  /** The server's CRD controllers (tests wait for them to settle). */
  readonly customResources: ApiServer['customResources'];
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly watchCacheEventsMax?: number;
  readonly bookmarkIntervalMs?: number;
  readonly featureGates?: FeatureGates;
  /** Default: system:masters may do anything. */
  readonly authorizers?: readonly Authorizer[];
  /** Default: kube's order of the plugins kstore has. */
  readonly admissionPlugins?: ServerOptions['admissionPlugins'];
  /** Default: a fresh ImmediateBackend. */
  readonly backend?: ImmediateBackend;
  /** Default: the x-test-user header authenticator alone. */
  readonly authenticators?: readonly Authenticator[];
  /** Passed to buildServer as they are (absent: buildServer's defaults). */
  readonly anonymous?: ServerOptions['anonymous'];
  readonly serviceAccountTokens?: ServerOptions['serviceAccountTokens'];
  readonly tokenAuthenticators?: ServerOptions['tokenAuthenticators'];
  readonly apiAudiences?: ServerOptions['apiAudiences'];
  readonly openIdMetadata?: ServerOptions['openIdMetadata'];
}

export async function startHarness(namespaces: readonly string[] = ['default', 't'], options: HarnessOptions = {}): Promise<Harness> {
  const { backend: given, ...serverOptions } = options;
  const backend = given ?? new ImmediateBackend();
  const { app, cache, customResources } = await buildServer({ store: new StoreClient(backend), authenticators: [headerAuthenticator], authorizers: [systemMastersAuthorizer], ...serverOptions });
  const request = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method: method as 'GET', url,
      headers: { ...admin, ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
  for (const name of namespaces) {
    const response = await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (response.statusCode !== 201) throw new Error(`namespace ${name}: ${response.body}`);
    // What the serviceaccount controller would create: pods need it (ServiceAccount admission).
    const account = await request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    if (account.statusCode !== 201) throw new Error(`serviceaccount ${name}/default: ${account.body}`);
  }
  return { app, backend, cache, customResources, request, close: () => app.close() };
}

export function configMap(name: string, data: Record<string, string> = { a: 'b' }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data };
}

/** POSTs `object` to `url` through the harness, expects 201 and returns the created object. */
export async function createdObject<T = Record<string, unknown>>(harness: Harness, url: string, object: unknown): Promise<T> {
  const response = await harness.request('POST', url, object);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<T>();
}

/** Sends a write that must be refused as invalid (422); returns its causes' fields and messages. */
export async function invalidCauses(harness: Harness, method: string, url: string, object: unknown): Promise<{ field: string; message: string }[]> {
  const response = await harness.request(method, url, object);
  expect(response.statusCode, response.body).toBe(422);
  return (response.json().details.causes as { field: string; message: string }[]).map(({ field, message }) => ({ field, message }));
}
