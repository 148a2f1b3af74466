// Owns: the proxy subresources of pods, services and nodes (`<resource>/<name>/proxy[/<path>]`),
// a reverse proxy as kube-apiserver's ProxyREST connecters with the UpgradeAwareHandler:
//   - the name is `name`, `name:port` or `scheme:name:port` (utilnet.SplitSchemeNamePort; scheme
//     http or https, http when empty); anything else is 400 `invalid <kind> request "<id>"`.
//   - pods: http(s)://<status.podIPs[0] (or podIP)>:<port, else the first declared container
//     port, else none>; an address that is not global unicast (none yet, loopback, link-local,
//     multicast, unspecified) is 400 `address not allowed`, as kube's pod ResourceLocation.
//   - services: a port number is first mapped to the name of the service port with that number
//     (503 `no service port <n> found for service "<name>"`); then a subset of the service's
//     Endpoints with a port of that name and an address whose targetRef names a pod of the
//     namespace that has that IP (kube's isValidAddress) is chosen at random; none is 503 `no
//     endpoints available for service "<name>"`.
//   - nodes: the node's first address of kube-apiserver's default preferred types (Hostname,
//     InternalDNS, InternalIP, ExternalDNS, ExternalIP), resolved; any resolved address that is
//     not global unicast is 400 `address not allowed` (isProxyableHostname). Its kubelet port
//     (status.daemonEndpoints.kubeletEndpoint.Port, 10250 when unset) is reached over https; the
//     kubelet's serving certificate is not verified, as kube-apiserver without
//     --kubelet-certificate-authority does not verify it, and no client certificate is
//     presented (kstore has no --kubelet-client-certificate). Another port named in the id is
//     reached with the id's scheme (http by default).
// The request goes on with its method, query, body and headers, less the hop-by-hop ones and
// the credentials kube-apiserver's authentication and impersonation filters remove
// (Authorization, Impersonate-*), plus X-Forwarded-For and X-Forwarded-Uri; the Host header is
// the client's (kube does not set the location's host). `<name>/proxy` without a path is a 301
// to `<name>/proxy/`. The response comes back as the upstream sent it, with kube's proxy
// Transport rewrites: a Location header and the URL attributes of a text/html body that point
// at an absolute path of the upstream are prefixed with the proxy path, and CORS headers are
// removed. An upstream that cannot be reached is kube's 503 text `Error: '<dial error>'\nTrying
// to reach: '<url>'`. Not done: protocol upgrades (WebSockets, SPDY) through the proxy, and
// kube's per-connection bandwidth limit (off by default in kube too).
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { posix } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { Verb } from '../registry/kind.ts';
import { ApiError, badRequest, methodNotAllowed, notFound } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { requestBody } from './context.ts';
import { checkSubresource } from './subresource.ts';
import type { Target } from './target.ts';

type Fields = Record<string, JsonValue>;

function fields(value: JsonValue | undefined): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

function records(value: JsonValue | undefined): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object' && !Array.isArray(item)) : [];
}

/** The HTTP methods kube's proxy connecters take (proxyMethods). */
export const proxyMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const verbOfMethod: Readonly<Record<string, Verb>> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** utilnet.SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port` with scheme "", http or https. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name = '';
  let port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = [parts[0]!, parts[1]!];
  else if (parts.length === 3) [scheme, name, port] = [parts[0]!, parts[1]!, parts[2]!];
  else return undefined;
  if (name === '' || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}

function ipv4Octets(address: string): number[] {
  return address.split('.').map(Number);
}

/** Go's net.IP.IsGlobalUnicast: not unspecified, loopback, multicast, link-local or the IPv4 broadcast address. */
export function isGlobalUnicast(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    const [a = 0, b = 0] = ipv4Octets(address);
    if (address === '255.255.255.255' || address === '0.0.0.0') return false;
    // Loopback 127/8, multicast 224/4, link-local 169.254/16.
    return !(a === 127 || (a >= 224 && a <= 239) || (a === 169 && b === 254));
  }
  if (family === 6) {
    const lower = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped !== null) return isGlobalUnicast(mapped[1]!);
    if (lower === '::' || lower === '::1') return false;
    const first = Number.parseInt(lower.split(':')[0] || '0', 16);
    if ((first & 0xff00) === 0xff00) return false;
    if ((first & 0xffc0) === 0xfe80) return false;
    return true;
  }
  return false;
}

function hostPort(host: string, port: string): string {
  const bracketed = host.includes(':') ? `[${host}]` : host;
  return port === '' ? bracketed : `${bracketed}:${port}`;
}

interface Location {
  readonly scheme: string;
  readonly host: string;
  /** The kubelet's transport: TLS without verifying the serving certificate. */
  readonly insecureTls: boolean;
}

/** errors.NewServiceUnavailable: 503 with the reason as the message (no Retry-After). */
function serviceUnavailable(message: string): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'ServiceUnavailable', code: 503 });
}

function getObject(context: EndpointContext, resource: string, namespace: string, name: string): KubeObject {
  const object = context.store.get({ group: '', resource, namespace, name });
  if (!object) throw notFound({ group: '', resource }, name);
  return object;
}

function podIpOf(pod: KubeObject): string {
  const status = fields(pod['status'] as JsonValue | undefined);
  const first = records(status['podIPs'])[0]?.['ip'];
  if (typeof first === 'string' && first !== '') return first;
  return typeof status['podIP'] === 'string' ? status['podIP'] : '';
}

/** pod.ResourceLocation. */
function podLocation(context: EndpointContext, namespace: string, id: string): Location {
  const split = splitSchemeNamePort(id);
  if (split === undefined) throw badRequest(`invalid pod request ${JSON.stringify(id)}`);
  const pod = getObject(context, 'pods', namespace, split.name);
  let port = split.port;
  if (port === '') {
    for (const container of records(fields(pod['spec'] as JsonValue | undefined)['containers'])) {
      const declared = records(container['ports'])[0];
      if (declared !== undefined) {
        port = String(declared['containerPort'] ?? '');
        break;
      }
    }
  }
  const ip = podIpOf(pod);
  if (!isGlobalUnicast(ip)) throw badRequest('address not allowed');
  return { scheme: split.scheme, host: hostPort(ip, port), insecureTls: false };
}

/** isValidAddress: the address is a pod of this namespace that has this IP. */
function isValidAddress(context: EndpointContext, namespace: string, address: Fields): boolean {
  const ref = fields(address['targetRef']);
  if (address['targetRef'] === undefined || ref['namespace'] !== namespace || typeof ref['name'] !== 'string') return false;
  const pod = context.store.get({ group: '', resource: 'pods', namespace, name: ref['name'] });
  if (!pod) return false;
  return records(fields(pod['status'] as JsonValue | undefined)['podIPs']).some((podIp) => podIp['ip'] === address['ip']);
}

function randomStart(length: number): number {
  return Math.floor(Math.random() * length);
}

/** The service REST's ResourceLocation. */
function serviceLocation(context: EndpointContext, namespace: string, id: string): Location {
  const split = splitSchemeNamePort(id);
  if (split === undefined) throw badRequest(`invalid service request ${JSON.stringify(id)}`);
  let portName = split.port;
  if (/^[+-]?\d+$/.test(split.port)) {
    const number = Number(split.port);
    const service = getObject(context, 'services', namespace, split.name);
    const port = records(fields(service['spec'] as JsonValue | undefined)['ports']).find((candidate) => candidate['port'] === number);
    if (port === undefined) throw serviceUnavailable(`no service port ${number} found for service ${JSON.stringify(split.name)}`);
    portName = typeof port['name'] === 'string' ? port['name'] : '';
  }
  const endpoints = getObject(context, 'endpoints', namespace, split.name);
  const subsets = records(endpoints['subsets'] as JsonValue | undefined);
  if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(split.name)}`);
  const subsetStart = randomStart(subsets.length);
  for (let subsetTry = 0; subsetTry < subsets.length; subsetTry++) {
    const subset = subsets[(subsetStart + subsetTry) % subsets.length]!;
    const addresses = records(subset['addresses']);
    if (addresses.length === 0) continue;
    for (const port of records(subset['ports'])) {
      if ((port['name'] ?? '') !== portName) continue;
      const addressStart = randomStart(addresses.length);
      for (let addressTry = 0; addressTry < addresses.length; addressTry++) {
        const address = addresses[(addressStart + addressTry) % addresses.length]!;
        if (!isValidAddress(context, namespace, address)) continue;
        return { scheme: split.scheme, host: hostPort(String(address['ip']), String(port['port'] ?? '')), insecureTls: false };
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`);
}

/** kube-apiserver's default --kubelet-preferred-address-types. */
const preferredAddressTypes = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];
const defaultKubeletPort = 10250;

/** Go's %v of a node's addresses, as the NoMatchError prints them. */
function addressesText(addresses: readonly Fields[]): string {
  return `[${addresses.map((address) => `{${String(address['type'] ?? '')} ${String(address['address'] ?? '')}}`).join(' ')}]`;
}

/** node.ResourceLocation with the kubelet connection info getter. */
async function nodeLocation(context: EndpointContext, id: string): Promise<Location> {
  const split = splitSchemeNamePort(id);
  if (split === undefined) throw badRequest(`invalid node request ${JSON.stringify(id)}`);
  const node = getObject(context, 'nodes', '', split.name);
  const status = fields(node['status'] as JsonValue | undefined);
  const addresses = records(status['addresses']);
  let hostname: string | undefined;
  for (const type of preferredAddressTypes) {
    const found = addresses.find((address) => address['type'] === type);
    if (found !== undefined) {
      hostname = String(found['address'] ?? '');
      break;
    }
  }
  if (hostname === undefined) {
    // A plain error in kube (not a Status): 500 with no reason.
    throw new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `no preferred addresses found; known addresses: ${addressesText(addresses)}`, code: 500 });
  }
  const declared = fields(fields(fields(status['daemonEndpoints'])['kubeletEndpoint']))['Port'];
  const kubeletPort = String(typeof declared === 'number' && declared > 0 ? declared : defaultKubeletPort);
  let resolved: { address: string }[];
  try {
    resolved = await lookup(hostname, { all: true });
  } catch {
    throw badRequest(`lookup ${hostname}: no such host`);
  }
  if (resolved.length === 0) throw badRequest('no addresses for hostname');
  if (resolved.some((entry) => !isGlobalUnicast(entry.address))) throw badRequest('address not allowed');
  if (split.port === '' || split.port === kubeletPort) return { scheme: 'https', host: hostPort(hostname, kubeletPort), insecureTls: true };
  return { scheme: split.scheme, host: hostPort(hostname, split.port), insecureTls: false };
}

/** The proxied path: the request's segments after `proxy`, with its leading and trailing slash. */
function subpathOf(request: FastifyRequest): string {
  const info = request.requestInfo;
  let path = info.parts.slice(3).join('/');
  if (path !== '') path = `/${path}`;
  if (info.path.endsWith('/') && !path.endsWith('/')) path += '/';
  return path;
}

/** A path as Go's url.URL.EscapedPath writes it. */
function escapePath(path: string): string {
  return path.split('/').map((segment) => encodeURIComponent(segment).replace(/%(24|26|2B|2C|3A|3B|3D|40)/gi, (escape) => decodeURIComponent(escape))).join('/');
}

const hopHeaders = ['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

function withoutHopHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(hopHeaders);
  const connection = headers['connection'];
  for (const token of (Array.isArray(connection) ? connection.join(',') : connection ?? '').split(',')) {
    if (token.trim() !== '') named.add(token.trim().toLowerCase());
  }
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || named.has(name)) continue;
    result[name] = value;
  }
  return result;
}

/** The headers sent upstream: the client's, less hop-by-hop headers and the credentials kube's filters remove. */
function upstreamHeaders(request: FastifyRequest, forwardedUri: string): OutgoingHttpHeaders {
  const headers = withoutHopHeaders(request.headers);
  delete headers['authorization'];
  for (const name of Object.keys(headers)) if (name.startsWith('impersonate-')) delete headers[name];
  const prior = headers['x-forwarded-for'];
  const client = request.ip;
  headers['x-forwarded-for'] = prior === undefined ? client : `${Array.isArray(prior) ? prior.join(', ') : prior}, ${client}`;
  headers['x-forwarded-uri'] = forwardedUri;
  return headers;
}

/** The Go dial error text kube shows for an unreachable upstream. */
function dialError(error: NodeJS.ErrnoException, host: string): string {
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connect: connection refused', EHOSTUNREACH: 'connect: no route to host', ENETUNREACH: 'connect: network is unreachable',
    ETIMEDOUT: 'i/o timeout', ECONNRESET: 'read: connection reset by peer',
  };
  const reason = error.code !== undefined ? reasons[error.code] : undefined;
  return reason === undefined ? error.message : `dial tcp ${host}: ${reason}`;
}

/** Which attributes of which tags hold URLs (kube's atomsToAttrs). */
const urlAttributes: Readonly<Record<string, readonly string[]>> = {
  a: ['href'], applet: ['codebase'], area: ['href'], audio: ['src'], base: ['href'], blockquote: ['cite'], body: ['background'],
  button: ['formaction'], command: ['icon'], del: ['cite'], embed: ['src'], form: ['action'], frame: ['longdesc', 'src'], head: ['profile'],
  html: ['manifest'], iframe: ['longdesc', 'src'], img: ['longdesc', 'src', 'usemap'], input: ['src', 'usemap', 'formaction'], ins: ['cite'],
  link: ['href'], object: ['classid', 'codebase', 'data', 'usemap'], q: ['cite'], script: ['src'], source: ['src'], video: ['poster', 'src'],
};

/** Transport.rewriteURL: an absolute path on the upstream's own host goes through the proxy. */
function rewriteUrl(target: string, upstreamHost: string, pathPrepend: string): string {
  let parsed: URL;
  try {
    parsed = new URL(target, 'http://relative.invalid');
  } catch {
    return target;
  }
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
  const differentHost = absolute && parsed.host !== upstreamHost;
  if (differentHost || !(absolute ? parsed.pathname.startsWith('/') : target.startsWith('/'))) return target;
  const suffix = `${parsed.search}${parsed.hash}`;
  if (parsed.pathname.startsWith(pathPrepend)) return `${parsed.pathname}${suffix}`;
  let path = posix.join(pathPrepend, parsed.pathname);
  if (parsed.pathname.endsWith('/') && !path.endsWith('/')) path += '/';
  return `${path}${suffix}`;
}

/** rewriteHTML: the URL attributes of start tags rewritten, everything else as it was. */
function rewriteHtml(html: string, rewrite: (url: string) => string): string {
  return html.replace(/<([a-zA-Z][a-zA-Z0-9]*)(\s[^<>]*?)?(\/?)>/g, (tag, name: string, attributes: string | undefined, close: string) => {
    const wanted = urlAttributes[name.toLowerCase()];
    if (wanted === undefined || attributes === undefined) return tag;
    const rewritten = attributes.replace(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(\s*=\s*)("([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g, (whole, attribute: string, equals: string, _value: string, double?: string, single?: string, bare?: string) => {
      if (!wanted.includes(attribute.toLowerCase())) return whole;
      const value = double ?? single ?? bare ?? '';
      const quote = double !== undefined ? '"' : single !== undefined ? "'" : '"';
      return `${attribute}${equals}${quote}${rewrite(value)}${quote}`;
    });
    return `<${name}${rewritten}${close}>`;
  });
}

const corsHeaders = ['access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin'];

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** Any method on `<resource>/<name>/proxy[/<path>]` of pods, services or nodes. */
export async function handleProxy(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  const method = request.method.toUpperCase();
  if (!(proxyMethods as readonly string[]).includes(method)) throw methodNotAllowed('the server does not allow this method on the requested resource');
  const verb = verbOfMethod[method];
  checkSubresource(target, verb ?? 'get');
  const id = target.name!;
  await context.store.readIndex();
  const resource = target.kind.resource;
  const location = resource === 'pods' ? podLocation(context, target.namespace, id)
    : resource === 'services' ? serviceLocation(context, target.namespace, id)
      : await nodeLocation(context, id);
  const path = subpathOf(request);
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  const requestPath = request.requestInfo.path;
  // kube redirects an empty proxied path to the proxy path with a trailing slash (issue 4958).
  if (path === '') return reply.code(301).header('location', `${requestPath}/${query}`).send();
  const pathPrepend = requestPath.endsWith(path) ? requestPath.slice(0, requestPath.length - path.length) : requestPath;
  const scheme = location.scheme === '' ? 'http' : location.scheme;
  const url = `${scheme}://${location.host}${escapePath(path)}${query}`;
  const forwardedUri = `${posix.join(pathPrepend, path)}${path.endsWith('/') && !posix.join(pathPrepend, path).endsWith('/') ? '/' : ''}`;
  const headers = upstreamHeaders(request, forwardedUri);
  const body = method === 'GET' || method === 'HEAD' ? undefined : requestBody(request);
  let upstream: IncomingMessage;
  try {
    upstream = await new Promise<IncomingMessage>((resolve, reject) => {
      const send = scheme === 'https' ? httpsRequest : httpRequest;
      const outgoing = send(url, { method, headers, ...(scheme === 'https' ? { rejectUnauthorized: !location.insecureTls } : {}), timeout: 30_000 }, resolve);
      outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('i/o timeout'), { code: 'ETIMEDOUT' })));
      outgoing.on('error', reject);
      request.raw.on('close', () => {
        if (!request.raw.complete || reply.raw.destroyed) outgoing.destroy();
      });
      outgoing.end(body !== undefined && body.length > 0 ? body : undefined);
    });
  } catch (error) {
    const message = `Error: '${dialError(error as NodeJS.ErrnoException, location.host.includes(':') ? location.host : `${location.host}:${scheme === 'https' ? 443 : 80}`)}'\nTrying to reach: '${url}'`;
    return reply.code(503).type('text/plain; charset=utf-8').send(message);
  }
  const responseHeaders = withoutHopHeaders(upstream.headers);
  for (const name of corsHeaders) delete responseHeaders[name];
  const redirect = responseHeaders['location'];
  if (typeof redirect === 'string' && redirect !== '') responseHeaders['location'] = rewriteUrl(redirect, location.host, pathPrepend);
  reply.code(upstream.statusCode ?? 502);
  const contentType = String(responseHeaders['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const encoding = String(responseHeaders['content-encoding'] ?? '');
  if (redirect === undefined && contentType === 'text/html' && (encoding === '' || encoding === 'gzip') && method !== 'HEAD') {
    const raw = await readAll(upstream);
    const html = (encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
    const rewritten = Buffer.from(rewriteHtml(html, (value) => rewriteUrl(value, location.host, pathPrepend)), 'utf8');
    delete responseHeaders['content-length'];
    reply.headers(responseHeaders);
    return reply.send(encoding === 'gzip' ? gzipSync(rewritten) : rewritten);
  }
  reply.headers(responseHeaders);
  if (method === 'HEAD') {
    upstream.resume();
    return reply.send();
  }
  return reply.send(upstream);
}
