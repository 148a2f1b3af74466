// Owns: how kstore's own command-line tools (kstore inspect) reach a Kubernetes API server the
// way kubectl does: the kubeconfig (--kubeconfig, else the first file of $KUBECONFIG, else
// ~/.kube/config), its current context (or --context) with the cluster's server and CA
// (certificate-authority-data or certificate-authority) and the user's client certificate and
// key (inline or as files) or bearer token; the resource a name like `cm`, `configmaps`,
// `ConfigMap` or `leases.coordination.k8s.io` means, found through discovery; and plain HTTPS
// requests, including a line-by-line watch stream.
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

export interface KubeTarget {
  readonly server: string;
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly token?: string;
  /** The context's namespace, else "default". */
  readonly namespace: string;
}

interface KubeconfigDocument {
  readonly 'current-context'?: string;
  readonly contexts?: readonly { readonly name: string; readonly context?: { readonly cluster?: string; readonly user?: string; readonly namespace?: string } }[];
  readonly clusters?: readonly { readonly name: string; readonly cluster?: { readonly server?: string; readonly 'certificate-authority-data'?: string; readonly 'certificate-authority'?: string } }[];
  readonly users?: readonly { readonly name: string; readonly user?: {
    readonly 'client-certificate-data'?: string; readonly 'client-key-data'?: string;
    readonly 'client-certificate'?: string; readonly 'client-key'?: string; readonly token?: string;
  } }[];
}

export function kubeconfigPath(explicit: string | undefined): string {
  if (explicit !== undefined && explicit !== '') return explicit;
  const fromEnvironment = (process.env.KUBECONFIG ?? '').split(path.delimiter).find((entry) => entry !== '');
  return fromEnvironment ?? path.join(os.homedir(), '.kube', 'config');
}

async function material(data: string | undefined, file: string | undefined, base: string): Promise<Buffer | undefined> {
  if (data !== undefined && data !== '') return Buffer.from(data, 'base64');
  if (file !== undefined && file !== '') return readFile(path.resolve(base, file));
  return undefined;
}

/** The target of `context` (else the current context) in the kubeconfig at `file`. */
export async function loadKubeconfig(file: string, context?: string): Promise<KubeTarget> {
  const document = parse(await readFile(file, 'utf8')) as KubeconfigDocument | null;
  if (document === null || typeof document !== 'object') throw new Error(`${file} is not a kubeconfig`);
  const contextName = context ?? document['current-context'];
  const chosen = document.contexts?.find((entry) => entry.name === contextName);
  if (chosen === undefined) throw new Error(`context ${JSON.stringify(contextName ?? '')} is not in ${file}`);
  const cluster = document.clusters?.find((entry) => entry.name === chosen.context?.cluster)?.cluster;
  if (cluster?.server === undefined) throw new Error(`the cluster of context ${JSON.stringify(contextName)} has no server in ${file}`);
  const user = document.users?.find((entry) => entry.name === chosen.context?.user)?.user ?? {};
  const base = path.dirname(file);
  const ca = await material(cluster['certificate-authority-data'], cluster['certificate-authority'], base);
  const cert = await material(user['client-certificate-data'], user['client-certificate'], base);
  const key = await material(user['client-key-data'], user['client-key'], base);
  return {
    server: cluster.server, namespace: chosen.context?.namespace ?? 'default',
    ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }),
    ...(user.token === undefined ? {} : { token: user.token }),
  };
}

export interface KubeResponse {
  readonly status: number;
  readonly body: string;
}

function requestOptions(target: KubeTarget, urlPath: string): https.RequestOptions {
  const url = new URL(urlPath, target.server);
  return {
    protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`, method: 'GET',
    headers: { accept: 'application/json', ...(target.token === undefined ? {} : { authorization: `Bearer ${target.token}` }) },
    ...(target.ca === undefined ? {} : { ca: target.ca }), ...(target.cert === undefined ? {} : { cert: target.cert }), ...(target.key === undefined ? {} : { key: target.key }),
  };
}

export function kubeGet(target: KubeTarget, urlPath: string, timeoutMs = 30_000): Promise<KubeResponse> {
  return new Promise((resolve, reject) => {
    const request = https.request(requestOptions(target, urlPath), (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`GET ${urlPath}: no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}

/** Streams a watch: calls `onLine` per JSON line; resolves when the server ends the stream. */
export function kubeWatch(target: KubeTarget, urlPath: string, onLine: (line: string) => void): { done: Promise<number>; stop(): void } {
  let request: ReturnType<typeof https.request> | undefined;
  const done = new Promise<number>((resolve, reject) => {
    request = https.request(requestOptions(target, urlPath), (response) => {
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
          onLine(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
        }
      });
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
  return { done, stop: () => request?.destroy() };
}

/** A served resource, as discovery lists it. */
export interface ServedResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

interface ResourceList {
  readonly resources?: readonly { readonly name: string; readonly singularName?: string; readonly namespaced: boolean; readonly kind: string; readonly shortNames?: readonly string[] }[];
}

async function discoveryJson<T>(target: KubeTarget, urlPath: string): Promise<T> {
  const response = await kubeGet(target, urlPath);
  if (response.status !== 200) throw new Error(`GET ${urlPath}: ${response.status} ${response.body.slice(0, 300)}`);
  return JSON.parse(response.body) as T;
}

/** Resolves `name` (plural, singular, short name or kind, optionally `.group`) through discovery. */
export async function resolveResource(target: KubeTarget, name: string): Promise<ServedResource> {
  const wanted = name.toLowerCase();
  const dot = wanted.indexOf('.');
  const bare = dot === -1 ? wanted : wanted.slice(0, dot);
  const groupFilter = dot === -1 ? undefined : wanted.slice(dot + 1);
  const versions: { group: string; version: string }[] = [];
  const core = await discoveryJson<{ versions?: readonly string[] }>(target, '/api');
  for (const version of core.versions ?? []) versions.push({ group: '', version });
  const groups = await discoveryJson<{ groups?: readonly { name: string; preferredVersion?: { version: string } }[] }>(target, '/apis');
  for (const group of groups.groups ?? []) if (group.preferredVersion !== undefined) versions.push({ group: group.name, version: group.preferredVersion.version });
  for (const { group, version } of versions) {
    if (groupFilter !== undefined && group !== groupFilter) continue;
    const list = await discoveryJson<ResourceList>(target, group === '' ? `/api/${version}` : `/apis/${group}/${version}`);
    for (const resource of list.resources ?? []) {
      if (resource.name.includes('/')) continue;
      const names = [resource.name, resource.singularName ?? '', resource.kind.toLowerCase(), ...(resource.shortNames ?? [])];
      if (names.includes(bare)) return { group, version, resource: resource.name, kind: resource.kind, namespaced: resource.namespaced };
    }
  }
  throw new Error(`the server doesn't have a resource type "${name}"`);
}

/** The API path of one object of `resource`. */
export function objectPath(resource: ServedResource, namespace: string, name: string): string {
  const base = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scoped = resource.namespaced ? `${base}/namespaces/${encodeURIComponent(namespace)}` : base;
  return `${scoped}/${resource.resource}/${encodeURIComponent(name)}`;
}
