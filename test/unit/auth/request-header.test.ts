// The authenticating proxy (--requestheader-*) over real TLS: a fastify https server on port 0
// trusting two CAs (the client CA and the request-header CA), requests with node:https.
import https from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authnPlugin, certificateAuthenticatorFor, verifyCertificateChain } from '../../../api/auth/authn.ts';
import type { AuthnOptions } from '../../../api/auth/authn.ts';
import { proxyHeaderNames, requestHeaderAuthenticator, unescapeExtraKey, validateRequestHeaderConfig } from '../../../api/auth/request-header.ts';
import type { RequestHeaderConfig } from '../../../api/auth/request-header.ts';
import { createCa, issue, x509 } from './test-certificates.ts';
import type { Issued } from './test-certificates.ts';

interface Reply {
  readonly statusCode: number;
  readonly body: { user?: unknown; headers?: Record<string, unknown> } & Record<string, unknown>;
}

interface Pki {
  clientCa: Issued;
  proxyCa: Issued;
  foreignCa: Issued;
  server: Issued;
}

async function makePki(): Promise<Pki> {
  // The same subject for every CA: only keys tell them apart, as a careless setup would have it.
  const clientCa = await createCa('CN=kubernetes');
  const proxyCa = await createCa('CN=kubernetes');
  const foreignCa = await createCa('CN=kubernetes');
  const server = await issue(clientCa, { subject: 'CN=kube-apiserver', usage: x509.ExtendedKeyUsage.serverAuth, sans: ['127.0.0.1'] });
  return { clientCa, proxyCa, foreignCa, server };
}

function get(port: number, pki: Pki, client: { cert: string; key: string } | undefined, headers: OutgoingHttpHeaders, path = '/whoami'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = https.request({ host: '127.0.0.1', port, path, ca: pki.clientCa.cert, agent: false, headers, ...(client ?? {}) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ statusCode: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as Reply['body'] }));
    });
    request.on('error', reject);
    request.end();
  });
}

const kubeadmHeaders = {
  usernameHeaders: ['X-Remote-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'],
};

async function startServer(pki: Pki, config: RequestHeaderConfig, options: Pick<AuthnOptions, 'anonymous'> = {}): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify({ https: { cert: pki.server.cert, key: pki.server.key, ca: [pki.clientCa.cert, pki.proxyCa.cert], requestCert: true, rejectUnauthorized: false } });
  await app.register(authnPlugin, {
    authenticators: [requestHeaderAuthenticator(config), certificateAuthenticatorFor(pki.clientCa.cert)],
    proxyHeaders: proxyHeaderNames(config),
    ...options,
  });
  app.get('/*', async (request) => ({ user: request.user, headers: request.headers }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port };
}

function proxyHeadersIn(headers: Record<string, unknown> | undefined): string[] {
  return Object.keys(headers ?? {}).filter((name) => name.startsWith('x-remote-') || name.startsWith('x-other-') || name === 'authorization');
}

describe('request-header authentication over TLS', () => {
  let pki: Pki;
  let proxy: Issued;
  let strangerProxy: Issued;
  let bob: Issued;
  let foreign: Issued;
  let expiredProxy: Issued;
  let chainedProxy: { cert: string; key: string };
  let server: { app: FastifyInstance; port: number };
  let anonymousServer: { app: FastifyInstance; port: number };

  beforeAll(async () => {
    pki = await makePki();
    proxy = await issue(pki.proxyCa, { subject: 'CN=front-proxy-client' });
    strangerProxy = await issue(pki.proxyCa, { subject: 'CN=someone-else' });
    bob = await issue(pki.clientCa, { subject: 'CN=bob, O=dev' });
    foreign = await issue(pki.foreignCa, { subject: 'CN=front-proxy-client' });
    expiredProxy = await issue(pki.proxyCa, { subject: 'CN=front-proxy-client', notBefore: new Date(Date.now() - 10 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
    const intermediate = await issue(pki.proxyCa, { subject: 'CN=front-proxy-intermediate', ca: true });
    const leaf = await issue(intermediate, { subject: 'CN=front-proxy-client' });
    chainedProxy = { cert: `${leaf.cert}\n${intermediate.cert}`, key: leaf.key };
    const config: RequestHeaderConfig = {
      clientCaPem: pki.proxyCa.cert, allowedNames: ['front-proxy-client'],
      ...kubeadmHeaders, usernameHeaders: ['X-Remote-User', 'X-Other-User'],
    };
    server = await startServer(pki, config);
    anonymousServer = await startServer(pki, config, { anonymous: { enabled: true } });
  });
  afterAll(async () => {
    await server.app.close();
    await anonymousServer.app.close();
  });

  it('trusts a proxy certificate of the request-header CA: user, uid, every group value, percent-decoded extra keys', async () => {
    const reply = await get(server.port, pki, proxy, {
      'X-Remote-User': 'alice', 'X-Remote-Uid': 'uid-1', 'X-Remote-Group': ['one', 'two, three'],
      'X-Remote-Extra-Scopes': ['read', 'write'], 'X-Remote-Extra-Acme.com%2Fproject': 'p1', 'X-Remote-Extra-Bad%zzKey': 'v',
      authorization: 'Bearer ignored',
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.body.user).toEqual({
      name: 'alice', uid: 'uid-1', groups: ['one', 'two, three', 'system:authenticated'],
      extra: { scopes: ['read', 'write'], 'acme.com/project': ['p1'], 'bad%zzkey': ['v'] },
    });
    // Nothing downstream sees the proxy's headers or the Authorization header.
    expect(proxyHeadersIn(reply.body.headers)).toEqual([]);
  });

  it('takes the first username header that has a value, in the configured order', async () => {
    const reply = await get(server.port, pki, proxy, { 'X-Remote-User': '', 'X-Other-User': 'carol' });
    expect(reply.body.user).toMatchObject({ name: 'carol', groups: ['system:authenticated'] });
  });

  it('trusts a proxy certificate issued through an intermediate it presents', async () => {
    const reply = await get(server.port, pki, chainedProxy, { 'X-Remote-User': 'dave' });
    expect(reply.statusCode).toBe(200);
    expect(reply.body.user).toMatchObject({ name: 'dave' });
  });

  it('ignores the headers of a client-CA certificate: the request is its own CN, and the headers are removed', async () => {
    const reply = await get(server.port, pki, bob, { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Foo': 'bar' });
    expect(reply.statusCode).toBe(200);
    expect(reply.body.user).toEqual({ name: 'bob', uid: '', groups: ['dev', 'system:authenticated'], extra: {} });
    expect(proxyHeadersIn(reply.body.headers)).toEqual([]);
  });

  it('refuses a request-header CA certificate whose CN is not an allowed name (401, even with anonymous enabled)', async () => {
    for (const port of [server.port, anonymousServer.port]) {
      const reply = await get(port, pki, strangerProxy, { 'X-Remote-User': 'alice' });
      expect(reply.statusCode).toBe(401);
    }
  });

  it('refuses a certificate of an untrusted CA with the same issuer name, and an expired proxy certificate (401, not anonymous)', async () => {
    for (const client of [foreign, expiredProxy]) {
      const reply = await get(anonymousServer.port, pki, client, { 'X-Remote-User': 'alice' });
      expect(reply.statusCode).toBe(401);
    }
  });

  it('a trusted proxy request without a username is not authenticated by the proxy: the client CA rejects its certificate (401)', async () => {
    const reply = await get(anonymousServer.port, pki, proxy, { 'X-Remote-Group': 'system:masters' });
    expect(reply.statusCode).toBe(401);
  });

  it('a request without a certificate is anonymous when allowed (headers removed), else 401', async () => {
    const anonymous = await get(anonymousServer.port, pki, undefined, { 'X-Remote-User': 'alice' });
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.body.user).toEqual({ name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} });
    expect(proxyHeadersIn(anonymous.body.headers)).toEqual([]);
    expect((await get(server.port, pki, undefined, { 'X-Remote-User': 'alice' })).statusCode).toBe(401);
  });
});

describe('client-certificate authenticator bound to the client CA', () => {
  let pki: Pki;
  let server: { app: FastifyInstance; port: number };

  beforeAll(async () => {
    pki = await makePki();
    const app = Fastify({ https: { cert: pki.server.cert, key: pki.server.key, ca: [pki.clientCa.cert, pki.proxyCa.cert], requestCert: true, rejectUnauthorized: false } });
    await app.register(authnPlugin, { authenticators: [certificateAuthenticatorFor(pki.clientCa.cert)] });
    app.get('/*', async (request) => ({ user: request.user }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    server = { app, port: (app.server.address() as AddressInfo).port };
  });
  afterAll(async () => { await server.app.close(); });

  it('accepts a certificate of the client CA and refuses one node also trusts (the request-header CA)', async () => {
    const bob = await issue(pki.clientCa, { subject: 'CN=bob, O=a, O=b' });
    expect((await get(server.port, pki, bob, {})).body.user).toEqual({ name: 'bob', uid: '', groups: ['a', 'b', 'system:authenticated'], extra: {} });
    const proxy = await issue(pki.proxyCa, { subject: 'CN=front-proxy-client' });
    expect((await get(server.port, pki, proxy, {})).statusCode).toBe(401);
  });

  it('refuses a certificate whose extended key usage excludes client auth', async () => {
    const serving = await issue(pki.clientCa, { subject: 'CN=mallory', usage: x509.ExtendedKeyUsage.serverAuth });
    expect((await get(server.port, pki, serving, {})).statusCode).toBe(401);
  });
});

describe('certificate chain verification', () => {
  it('needs the chain to reach a root of the bundle, through CA intermediates, within validity', async () => {
    const root = await createCa('CN=root');
    const other = await createCa('CN=root');
    const intermediate = await issue(root, { subject: 'CN=intermediate', ca: true });
    const notCa = await issue(root, { subject: 'CN=not-a-ca' });
    const leaf = await issue(intermediate, { subject: 'CN=leaf' });
    const underLeaf = await issue(notCa, { subject: 'CN=under-leaf' });
    const der = (issued: Issued) => Buffer.from(issued.certificate.rawData);
    const roots = [new (await import('node:crypto')).X509Certificate(root.cert)];
    const now = Date.now();
    expect(verifyCertificateChain(der(leaf), [der(intermediate)], roots, now)).toBeUndefined();
    expect(verifyCertificateChain(der(leaf), [], roots, now)).toBe('x509: certificate signed by unknown authority');
    expect(verifyCertificateChain(der(leaf), [der(intermediate)], [new (await import('node:crypto')).X509Certificate(other.cert)], now)).toBe('x509: certificate signed by unknown authority');
    expect(verifyCertificateChain(der(underLeaf), [der(notCa)], roots, now)).toBe('x509: certificate signed by unknown authority');
    expect(verifyCertificateChain(der(leaf), [der(intermediate)], roots, now + 20 * 86_400_000)).toBe('x509: certificate has expired or is not yet valid');
  });
});

describe('request-header helpers', () => {
  it('decodes extra keys as Go\'s url.PathUnescape, keeping malformed ones', () => {
    expect(unescapeExtraKey('acme.com%2fproject')).toBe('acme.com/project');
    expect(unescapeExtraKey('caf%c3%a9')).toBe('café');
    expect(unescapeExtraKey('a+b')).toBe('a+b');
    expect(unescapeExtraKey('bad%zz')).toBe('bad%zz');
    expect(unescapeExtraKey('short%4')).toBe('short%4');
  });

  it('validates the flags as kube 1.33 does', () => {
    expect(validateRequestHeaderConfig({ ...kubeadmHeaders, allowedNames: [] })).toEqual({ errors: [], warnings: [] });
    expect(validateRequestHeaderConfig({ ...kubeadmHeaders, usernameHeaders: ['X-User', ' '], uidHeaders: ['X-Uid'], allowedNames: [''] })).toEqual({
      errors: [
        'empty value in "requestheader-username-headers"',
        'empty value in "requestheader-allowed-names"',
        '--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work',
      ],
      warnings: ['--requestheader-username-headers is set without specifying the standard X-Remote-User header - API aggregation will not work'],
    });
  });
});
