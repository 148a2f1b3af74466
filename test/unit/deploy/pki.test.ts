// The PKI on disk, the admin kubeconfig, and client-certificate authentication over real TLS
// (a fastify https server on port 0; requests with node:https).
import { X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authnPlugin } from '../../../api/auth/authn.ts';
import { writeAdminKubeconfig } from '../../../deploy/kubeconfig.ts';
import { ensurePki, issueClientCertificate } from '../../../deploy/pki.ts';
import type { Pki } from '../../../deploy/pki.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

function fileMode(mode: number): number {
  return mode & 0o777;
}

describe('pki - files', () => {
  let dir: TempDir;
  beforeAll(async () => { dir = await makeTempDir('kstore-pki-'); });
  afterAll(async () => { await dir.remove(); });

  it('creates a CA, a serving certificate and an admin certificate with private keys 0600', async () => {
    const pki = await ensurePki(dir.path, ['kstore.example.com', '10.1.2.3']);
    const ca = new X509Certificate(pki.caCert);
    const server = new X509Certificate(pki.serverCert);
    const admin = new X509Certificate(pki.adminCert);
    expect(ca.ca).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(admin.verify(ca.publicKey)).toBe(true);
    expect(server.subjectAltName?.split(', ').sort()).toEqual(['DNS:kstore.example.com', 'DNS:localhost', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:10.1.2.3', 'IP Address:127.0.0.1']);
    expect(admin.subject).toContain('CN=kstore-admin');
    expect(admin.subject).toContain('O=system:masters');
    expect(new Date(ca.validTo).getTime() - Date.now()).toBeGreaterThan(9 * 365 * 24 * 3600 * 1000);
    for (const key of [pki.paths.caKey, pki.paths.serverKey, pki.paths.adminKey]) {
      expect(fileMode((await stat(key)).mode)).toBe(0o600);
      expect(await readFile(key, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    }
    expect(pki.serverKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('reuses everything on a later start with the same SANs', async () => {
    const first = await ensurePki(dir.path, ['kstore.example.com', '10.1.2.3']);
    const second = await ensurePki(dir.path, ['10.1.2.3', 'kstore.example.com']);
    expect(second).toEqual(first);
  });

  it('re-issues only the serving certificate when the SANs change', async () => {
    const before = await ensurePki(dir.path, ['kstore.example.com', '10.1.2.3']);
    const after = await ensurePki(dir.path, ['other.example.com']);
    expect(after.caCert).toBe(before.caCert);
    expect(after.adminCert).toBe(before.adminCert);
    expect(after.serverCert).not.toBe(before.serverCert);
    expect(new X509Certificate(after.serverCert).subjectAltName).toContain('DNS:other.example.com');
    expect(new X509Certificate(after.serverCert).subjectAltName).not.toContain('kstore.example.com');
  });

  it('writes an admin kubeconfig (0600) with embedded CA and client credentials', async () => {
    const pki = await ensurePki(dir.path, []);
    const file = await writeAdminKubeconfig(dir.path, 'https://127.0.0.1:6443', pki);
    expect(fileMode((await stat(file)).mode)).toBe(0o600);
    const config = parseYaml(await readFile(file, 'utf8'));
    expect(config['current-context']).toBe('kstore');
    expect(config.contexts).toEqual([{ name: 'kstore', context: { cluster: 'kstore', user: 'kstore-admin' } }]);
    expect(config.clusters[0].cluster.server).toBe('https://127.0.0.1:6443');
    expect(Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).toBe(pki.caCert);
    expect(Buffer.from(config.users[0].user['client-certificate-data'], 'base64').toString()).toBe(pki.adminCert);
    expect(Buffer.from(config.users[0].user['client-key-data'], 'base64').toString()).toBe(pki.adminKey);
  });
});

interface Reply {
  readonly statusCode: number;
  readonly contentType: string;
  readonly body: Record<string, unknown>;
}

function get(port: number, ca: string, client?: { cert: string; key: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = https.request({ host: '127.0.0.1', port, path: '/whoami', ca, ...(client ?? {}) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({
        statusCode: response.statusCode ?? 0,
        contentType: String(response.headers['content-type']),
        body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
      }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('authn - client certificates over TLS', () => {
  let serverDir: TempDir;
  let foreignDir: TempDir;
  let pki: Pki;
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    serverDir = await makeTempDir('kstore-pki-');
    foreignDir = await makeTempDir('kstore-pki-foreign-');
    pki = await ensurePki(serverDir.path, []);
    await ensurePki(foreignDir.path, []);
    app = Fastify({ https: { cert: pki.serverCert, key: pki.serverKey, ca: [pki.caCert], requestCert: true, rejectUnauthorized: false } });
    await app.register(authnPlugin);
    app.get('/whoami', async (request) => ({ user: request.user }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
    await serverDir.remove();
    await foreignDir.remove();
  });

  it('authenticates the admin certificate as kstore-admin in system:masters', async () => {
    const reply = await get(port, pki.caCert, { cert: pki.adminCert, key: pki.adminKey });
    expect(reply.statusCode).toBe(200);
    expect(reply.body['user']).toEqual({ name: 'kstore-admin', uid: '', groups: ['system:masters', 'system:authenticated'], extra: {} });
  });

  it('maps every O of a certificate to a group', async () => {
    const bob = await issueClientCertificate(serverDir.path, 'bob', ['dev', 'ops']);
    const reply = await get(port, pki.caCert, bob);
    expect(reply.body['user']).toEqual({ name: 'bob', uid: '', groups: ['dev', 'ops', 'system:authenticated'], extra: {} });
  });

  it('answers 401 Status JSON without a certificate', async () => {
    const reply = await get(port, pki.caCert);
    expect(reply.statusCode).toBe(401);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  it('answers 401 to a certificate from another CA', async () => {
    const mallory = await issueClientCertificate(foreignDir.path, 'mallory', ['system:masters']);
    const reply = await get(port, pki.caCert, mallory);
    expect(reply.statusCode).toBe(401);
    expect(reply.body['reason']).toBe('Unauthorized');
  });

  it('answers 401 to a certificate of the right CA without clientAuth usage (the serving certificate)', async () => {
    const reply = await get(port, pki.caCert, { cert: pki.serverCert, key: pki.serverKey });
    expect(reply.statusCode).toBe(401);
  });
});
