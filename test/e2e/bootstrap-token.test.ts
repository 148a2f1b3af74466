// End to end against a real `kstore server --enable-bootstrap-token-auth --controllers
// '*,tokencleaner,bootstrapsigner'` over HTTPS, on the wall clock: a token secret with a far
// expiration authenticates and cluster-info is signed with it (verified as kubeadm does); once its
// expiration is moved into the past, the leader's expiry command flips it to expired (401), the
// token cleaner deletes it and its signature goes; malformed token secrets are 422 and malformed
// bearer tokens 401; the token secret never appears in the server's output.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { httpsRequest, jsonBody, readKubeconfig } from '../support/kube-client.ts';
import type { KubeconfigCredentials } from '../support/kube-client.ts';
import { repoRoot } from '../support/kstore-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const tokenId = 'e2etok';
const tokenSecretValue = 'q8z3m1x7c5v9b2n4';
const token = `${tokenId}.${tokenSecretValue}`;

let dir: TempDir;
let child: ChildProcess;
let output = '';
let admin: KubeconfigCredentials;

beforeAll(async () => {
  dir = await makeTempDir('kstore-bootstrap-');
  const port = await freePort();
  child = spawn(process.execPath, [
    path.join(repoRoot, 'deploy', 'kstore.mjs'), 'server', '--port', String(port), '--data-dir', dir.path,
    '--enable-bootstrap-token-auth', '--controllers', '*,tokencleaner,bootstrapsigner',
  ], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  await waitFor(() => output.includes('kstore ready'), { timeoutMs: 60_000, description: 'kstore server ready', diagnostics: () => output });
  admin = await readKubeconfig(path.join(dir.path, 'admin.kubeconfig'));
});

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await dir?.remove();
});

const asAdmin = (method: string, requestPath: string, body?: unknown, headers?: Record<string, string>) =>
  httpsRequest(admin.server, admin, { method, path: requestPath, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) });
const asBearer = (bearer: string, requestPath = '/api') => httpsRequest(admin.server, { ca: admin.ca }, { path: requestPath, headers: { authorization: `Bearer ${bearer}` } });

/** kubeadm's check: rebuild `header.payload.signature` with payload = kubeconfig, verify HS256 with the token. */
function verifiesLikeKubeadm(detached: string, content: string, key: string): boolean {
  const [header = '', payload, signature = ''] = detached.split('.');
  if (payload !== '') return false;
  const expected = createHmac('sha256', key).update(`${header}.${Buffer.from(content).toString('base64url')}`).digest();
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function utcSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

describe('bootstrap tokens on kstore server', () => {
  it('refuses a malformed token secret (422) and a malformed bearer token (401)', async () => {
    const bad = await asAdmin('POST', '/api/v1/namespaces/kube-system/secrets', {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef' }, type: 'bootstrap.kubernetes.io/token',
      stringData: { 'token-id': 'abcdef', 'token-secret': 'tooshort', 'usage-bootstrap-authentication': 'maybe' },
    });
    expect(bad.status, bad.body).toBe(422);
    expect(jsonBody<{ details: { causes: { field: string }[] } }>(bad).details.causes.map((cause) => cause.field)).toEqual(['data[token-secret]', 'data[usage-bootstrap-authentication]']);
    for (const bearer of ['not-a-token', 'abcdef.0123456789abcdef', `${tokenId}.${tokenSecretValue.toUpperCase()}`]) {
      const response = await asBearer(bearer);
      expect(response.status).toBe(401);
      expect(jsonBody(response)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    }
  });

  it('walks create → authenticate → signed cluster-info → expired (401) → cleaned up', async () => {
    // With bootstrap tokens on, the server keeps kubeadm's cluster-info: its URL and CA, nothing secret.
    const kubeconfig = await waitFor(async () => {
      const response = await asAdmin('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info');
      return response.status === 200 ? jsonBody<{ data: Record<string, string> }>(response).data['kubeconfig'] : undefined;
    }, { timeoutMs: 30_000, description: 'the server to create cluster-info', diagnostics: () => output });
    const published = parse(kubeconfig) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[]; users: unknown };
    expect(published.clusters[0]?.cluster.server).toBe(admin.server);
    expect(Buffer.from(published.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString()).toBe(admin.ca);
    expect(published.users).toBeNull();
    // A far expiration, so authenticating and signing are seen however slow the machine; then the
    // expiration is moved into the past and the leader's token expirer (re-planned by the update)
    // expires the token.
    const expiration = utcSeconds(Date.now() + 3_600_000);
    const created = await asAdmin('POST', '/api/v1/namespaces/kube-system/secrets', {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${tokenId}` }, type: 'bootstrap.kubernetes.io/token',
      stringData: { 'token-id': tokenId, 'token-secret': tokenSecretValue, expiration, 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', 'auth-extra-groups': 'system:bootstrappers:e2e' },
    });
    expect(created.status, created.body).toBe(201);

    const discovery = await asBearer(token);
    expect(discovery.status, discovery.body).toBe(200);
    expect(jsonBody(discovery)).toMatchObject({ kind: 'APIVersions' });

    const signature = await waitFor(async () => {
      const clusterInfo = jsonBody<{ data: Record<string, string> }>(await asAdmin('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info'));
      return clusterInfo.data[`jws-kubeconfig-${tokenId}`];
    }, { timeoutMs: 30_000, description: 'cluster-info signed', diagnostics: () => output });
    expect(verifiesLikeKubeadm(signature, kubeconfig, token)).toBe(true);
    expect(verifiesLikeKubeadm(signature, kubeconfig, `${tokenId}.aaaaaaaaaaaaaaaa`)).toBe(false);

    const past = utcSeconds(Date.now() - 60_000);
    const moved = await asAdmin('PATCH', `/api/v1/namespaces/kube-system/secrets/bootstrap-token-${tokenId}`, { data: { expiration: Buffer.from(past).toString('base64') } }, { 'content-type': 'application/merge-patch+json' });
    expect(moved.status, moved.body).toBe(200);
    // The expiration has passed: the leader commits expireTokens, the cleaner deletes the secret.
    await waitFor(async () => (await asBearer(token)).status === 401, { timeoutMs: 20_000, description: 'the token is refused once expired', diagnostics: () => output });
    await waitFor(async () => (await asAdmin('GET', `/api/v1/namespaces/kube-system/secrets/bootstrap-token-${tokenId}`)).status === 404, { timeoutMs: 20_000, description: 'the token cleaner deleted the secret', diagnostics: () => output });
    await waitFor(async () => {
      const clusterInfo = jsonBody<{ data: Record<string, string> }>(await asAdmin('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info'));
      return clusterInfo.data[`jws-kubeconfig-${tokenId}`] === undefined;
    }, { timeoutMs: 30_000, description: 'the signature removed', diagnostics: () => output });
    expect(output).not.toContain(tokenSecretValue);
  });
});
