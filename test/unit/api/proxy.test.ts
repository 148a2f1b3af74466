// pods/proxy, services/proxy and nodes/proxy against a real upstream: an HTTP server (and an
// HTTPS one standing in for a kubelet) bound on this machine's first non-loopback IPv4 address,
// which kube's address filter allows. What goes upstream (method, path, query, body of any media
// type, headers less credentials, X-Forwarded-Uri), what comes back (status, body, Location and
// HTML links rewritten, CORS headers dropped), kube's refusals (address not allowed, no
// endpoints, invalid ids, the 301 to `proxy/`, the 503 of an unreachable upstream), and the
// request classified as the proxy subresource for authorization.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensurePki } from '../../../deploy/pki.ts';
import type { AuthorizationAttributes, Authorizer } from '../../../api/auth/authz.ts';
import { systemMastersAuthorizer } from '../../../api/index.ts';
import { resolveRequestInfo } from '../../../api/request-info.ts';
import { isGlobalUnicast } from '../../../api/endpoints/proxy.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** The first IPv4 address of this machine that is not loopback (undefined on a machine without one). */
const upstreamIp = Object.values(networkInterfaces()).flat().find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;

let seen: Seen[] = [];
let http: Server;
let https: Server;
let httpPort = 0;
let httpsPort = 0;
let pki: TempDir;

function upstream(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    const url = request.url ?? '';
    if (url.startsWith('/redirect')) {
      response.writeHead(302, { location: '/landing/here' }).end();
    } else if (url.startsWith('/page')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body><a href="/docs/">docs</a> <img src="pic.png"><a href="https://elsewhere.example/x">x</a></body></html>');
    } else {
      response.writeHead(201, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'x-upstream': 'yes' })
        .end(JSON.stringify({ method: request.method, url, tls: 'encrypted' in request.socket }));
    }
  });
}

beforeAll(async () => {
  if (upstreamIp === undefined) return;
  pki = await makeTempDir('kstore-proxy-pki-');
  const issued = await ensurePki(pki.path, [upstreamIp]);
  http = createServer(upstream);
  https = createHttpsServer({ cert: issued.serverCert, key: issued.serverKey }, upstream);
  await new Promise<void>((resolve) => http.listen(0, upstreamIp, resolve));
  await new Promise<void>((resolve) => https.listen(0, upstreamIp, resolve));
  httpPort = (http.address() as AddressInfo).port;
  httpsPort = (https.address() as AddressInfo).port;
});
afterAll(async () => {
  if (upstreamIp === undefined) return;
  await new Promise((resolve) => http.close(resolve));
  await new Promise((resolve) => https.close(resolve));
  await pki.remove();
});

let harness: Harness;
let decisions: AuthorizationAttributes[] = [];
/** Records what was asked; `viewer` may only get pods/proxy. */
const recording: Authorizer = {
  name: 'recording',
  authorize(attributes) {
    decisions.push(attributes);
    const viewerMay = attributes.user.name === 'viewer' && attributes.verb === 'get' && attributes.resource === 'pods' && attributes.subresource === 'proxy';
    return { decision: viewerMay ? 'allow' : 'noOpinion', reason: '' };
  },
};

beforeEach(async () => {
  seen = [];
  decisions = [];
  harness = await startHarness(['default', 't'], { authorizers: [recording, systemMastersAuthorizer] });
});
afterEach(async () => {
  await harness.close();
});

async function ok(method: string, url: string, body?: unknown, expected = [200, 201]): Promise<Json> {
  const response = await harness.request(method, url, body);
  expect(expected, `${method} ${url}: ${response.body}`).toContain(response.statusCode);
  return response.json();
}

async function pod(name: string, ip: string | undefined, ports: number[] = []): Promise<void> {
  await ok('POST', '/api/v1/namespaces/t/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { containers: [{ name: 'app', image: 'nginx', ...(ports.length > 0 ? { ports: ports.map((containerPort) => ({ containerPort })) } : {}) }] },
  });
  if (ip !== undefined) {
    const status = JSON.stringify({ status: { podIP: ip, podIPs: [{ ip }] } });
    const response = await harness.request('PATCH', `/api/v1/namespaces/t/pods/${name}/status`, status, { 'content-type': 'application/merge-patch+json' });
    expect(response.statusCode, response.body).toBe(200);
  }
}

describe('proxy paths are classified as the proxy subresource', () => {
  it('request info names the resource, the object and the proxy subresource', () => {
    const info = resolveRequestInfo('POST', '/api/v1/namespaces/t/pods/web:8080/proxy/some/path/');
    expect(info).toMatchObject({ verb: 'create', resource: 'pods', name: 'web:8080', subresource: 'proxy', namespace: 't', parts: ['pods', 'web:8080', 'proxy', 'some', 'path'] });
    expect(info.target?.subresource).toBe('proxy');
    expect(resolveRequestInfo('GET', '/api/v1/nodes/n1/proxy/metrics').target).toMatchObject({ name: 'n1', subresource: 'proxy' });
    // Only a proxy subresource has a path after it.
    expect(resolveRequestInfo('GET', '/api/v1/namespaces/t/pods/web/status/extra').target).toBeUndefined();
    expect(resolveRequestInfo('GET', '/api/v1/namespaces/t/configmaps/c/proxy/x').target).toBeUndefined();
  });
});

describe.skipIf(upstreamIp === undefined)('pods/proxy', () => {
  it('passes the method, path, query, body and headers on, and the answer back', async () => {
    await pod('web', upstreamIp, [httpPort]);
    const response = await harness.request('POST', '/api/v1/namespaces/t/pods/web/proxy/echo/a%20b?x=1&limit=abc', 'plain text', {
      'content-type': 'text/plain', authorization: 'Bearer secret', 'x-custom': 'kept',
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toEqual({ method: 'POST', url: '/echo/a%20b?x=1&limit=abc', tls: false });
    expect(response.headers['x-upstream']).toBe('yes');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toBe('plain text');
    expect(seen[0]!.headers['authorization']).toBeUndefined();
    expect(seen[0]!.headers['x-custom']).toBe('kept');
    expect(seen[0]!.headers['x-forwarded-uri']).toBe('/api/v1/namespaces/t/pods/web/proxy/echo/a b');
    expect(seen[0]!.headers['x-forwarded-for']).toBeDefined();
    // Authorized as create on pods/proxy.
    expect(decisions.some((attributes) => attributes.verb === 'create' && attributes.resource === 'pods' && attributes.subresource === 'proxy' && attributes.name === 'web')).toBe(true);
  });

  it('takes the port from the name, keeps a trailing slash, and rewrites redirects and HTML links', async () => {
    await pod('web', upstreamIp);
    const base = `/api/v1/namespaces/t/pods/web:${httpPort}/proxy`;
    expect((await ok('GET', `${base}/dir/`)).url).toBe('/dir/');
    const redirect = await harness.request('GET', `${base}/redirect`);
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers['location']).toBe(`${base}/landing/here`);
    const page = await harness.request('GET', `${base}/page`);
    expect(page.body).toBe(`<html><body><a href="${base}/docs/">docs</a> <img src="pic.png"><a href="https://elsewhere.example/x">x</a></body></html>`);
    const bare = await harness.request('GET', `${base}?q=1`);
    expect(bare.statusCode).toBe(301);
    expect(bare.headers['location']).toBe(`${base}/?q=1`);
    expect(seen.map((request) => request.url)).toEqual(['/dir/', '/redirect', '/page']);
  });

  it('refuses pods without a proxyable address and bad ids as kube does', async () => {
    await pod('pending', undefined, [80]);
    await pod('local', '127.0.0.1', [80]);
    for (const name of ['pending', 'local']) {
      const response = await harness.request('GET', `/api/v1/namespaces/t/pods/${name}/proxy/`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ reason: 'BadRequest', message: 'address not allowed' });
    }
    const invalid = await harness.request('GET', '/api/v1/namespaces/t/pods/ftp:web:80/proxy/');
    expect(invalid.json()).toMatchObject({ code: 400, message: 'invalid pod request "ftp:web:80"' });
    expect((await harness.request('GET', '/api/v1/namespaces/t/pods/nope/proxy/')).json()).toMatchObject({ code: 404, message: 'pods "nope" not found' });
    expect(seen).toEqual([]);
  });

  it('an unreachable upstream is kube\'s 503 text', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, upstreamIp, resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await pod('gone', upstreamIp);
    const response = await harness.request('GET', `/api/v1/namespaces/t/pods/gone:${port}/proxy/x`);
    expect(response.statusCode).toBe(503);
    expect(response.body).toBe(`Error: 'dial tcp ${upstreamIp}:${port}: connect: connection refused'\nTrying to reach: 'http://${upstreamIp}:${port}/x'`);
  });

  it('is authorized as the proxy subresource with the method\'s verb', async () => {
    await pod('web', upstreamIp, [httpPort]);
    const viewer = { 'x-test-user': 'viewer' };
    const allowed = await harness.request('GET', '/api/v1/namespaces/t/pods/web/proxy/ok', undefined, viewer);
    expect(allowed.statusCode, allowed.body).toBe(201);
    const denied = await harness.request('DELETE', '/api/v1/namespaces/t/pods/web/proxy/ok', undefined, viewer);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toBe('pods "web" is forbidden: User "viewer" cannot delete resource "pods/proxy" in API group "" in the namespace "t"');
    expect(seen.map((request) => request.method)).toEqual(['GET']);
  });
});

describe.skipIf(upstreamIp === undefined)('services/proxy', () => {
  async function service(endpointsPortName: string, address: Json | undefined): Promise<void> {
    await ok('POST', '/api/v1/namespaces/t/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' },
      spec: { ports: [{ name: 'http', port: 80, targetPort: httpPort }], selector: { app: 'web' } },
    });
    await ok('PUT', '/api/v1/namespaces/t/endpoints/svc', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'svc' },
      subsets: address === undefined ? [] : [{ addresses: [address], ports: [{ name: endpointsPortName, port: httpPort }] }],
    });
  }

  it('reaches a ready endpoint of the service by port name or number', async () => {
    await pod('web', upstreamIp);
    await service('http', { ip: upstreamIp, targetRef: { kind: 'Pod', namespace: 't', name: 'web' } });
    expect(await ok('GET', '/api/v1/namespaces/t/services/svc:http/proxy/by-name')).toMatchObject({ url: '/by-name' });
    expect(await ok('GET', '/api/v1/namespaces/t/services/svc:80/proxy/by-number?a=b')).toMatchObject({ url: '/by-number?a=b' });
    const missingPort = await harness.request('GET', '/api/v1/namespaces/t/services/svc:81/proxy/');
    expect(missingPort.json()).toMatchObject({ code: 503, reason: 'ServiceUnavailable', message: 'no service port 81 found for service "svc"' });
    const otherName = await harness.request('GET', '/api/v1/namespaces/t/services/svc:metrics/proxy/');
    expect(otherName.json()).toMatchObject({ code: 503, message: 'no endpoints available for service "svc:metrics"' });
  });

  it('answers 503 without endpoints, or with addresses that are not the pod they name', async () => {
    await service('http', undefined);
    expect((await harness.request('GET', '/api/v1/namespaces/t/services/svc:http/proxy/')).json()).toMatchObject({ code: 503, message: 'no endpoints available for service "svc"' });
    await ok('DELETE', '/api/v1/namespaces/t/services/svc');
    await ok('DELETE', '/api/v1/namespaces/t/endpoints/svc');
    await pod('other', '10.1.2.3');
    await service('http', { ip: upstreamIp, targetRef: { kind: 'Pod', namespace: 't', name: 'other' } });
    expect((await harness.request('GET', '/api/v1/namespaces/t/services/svc:http/proxy/')).json()).toMatchObject({ code: 503, message: 'no endpoints available for service "svc:http"' });
    expect(seen).toEqual([]);
  });
});

describe.skipIf(upstreamIp === undefined)('nodes/proxy', () => {
  async function node(name: string, addresses: Json[], kubeletPort: number): Promise<void> {
    await ok('POST', '/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node', metadata: { name },
      status: { addresses, daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } },
    });
  }

  it('reaches the kubelet port over https without verifying its certificate, another port over http', async () => {
    await node('n1', [{ type: 'InternalIP', address: upstreamIp }], httpsPort);
    expect(await ok('GET', '/api/v1/nodes/n1/proxy/metrics')).toEqual({ method: 'GET', url: '/metrics', tls: true });
    expect(await ok('GET', `/api/v1/nodes/n1:${httpPort}/proxy/plain`)).toEqual({ method: 'GET', url: '/plain', tls: false });
  });

  it('refuses nodes without a usable address', async () => {
    await node('bare', [], 10250);
    const bare = await harness.request('GET', '/api/v1/nodes/bare/proxy/');
    expect(bare.statusCode).toBe(500);
    expect(bare.json().message).toBe('no preferred addresses found; known addresses: []');
    await node('loop', [{ type: 'InternalIP', address: '127.0.0.1' }], 10250);
    expect((await harness.request('GET', '/api/v1/nodes/loop/proxy/')).json()).toMatchObject({ code: 400, message: 'address not allowed' });
    expect((await harness.request('GET', '/api/v1/nodes/none/proxy/')).json()).toMatchObject({ code: 404, message: 'nodes "none" not found' });
  });
});

describe('the address filter is Go\'s IsGlobalUnicast', () => {
  it('refuses loopback, link-local, multicast, unspecified and broadcast addresses only', () => {
    for (const address of ['10.0.0.1', '192.168.1.5', '8.8.8.8', '240.0.0.1', 'fd00::2', '2001:db8::1']) expect(isGlobalUnicast(address), address).toBe(true);
    for (const address of ['', 'node-1', '127.0.0.1', '127.1.2.3', '169.254.169.254', '224.0.0.1', '0.0.0.0', '255.255.255.255', '::', '::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1']) {
      expect(isGlobalUnicast(address), address).toBe(false);
    }
  });
});
