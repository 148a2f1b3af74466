// End-to-end over HTTPS: client-certificate authentication, the serving certificate's names,
// and the Status bodies of HTTP errors, against one kstore server started for this file.
// Ends by checking that none of the rejected requests changed the stored state.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePki } from '../../deploy/pki.ts';
import { KstoreProcess } from '../support/kstore-process.ts';
import { httpsRequest, httpsRequestTolerantOfEarlyReply, jsonBody, KubeClient, readKubeconfig } from '../support/kube-client.ts';
import type { HttpResponse, KubeconfigCredentials } from '../support/kube-client.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';

const extraSan = 'kstore.e2e.example';
const namespace = 't';
const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;

interface Status {
  kind?: string;
  apiVersion?: string;
  status?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { name?: string; kind?: string; causes?: { field?: string; reason?: string; message?: string }[] };
}

interface ObjectList {
  kind?: string;
  items?: { metadata?: { name?: string; resourceVersion?: string } }[];
}

let dir: TempDir | undefined;
let server: KstoreProcess | undefined;
let admin: KubeconfigCredentials;
let client: KubeClient;
/** resourceVersion of the one configmap this file stores, taken right after creating it. */
let keptResourceVersion: string | undefined;

function describeResponse(response: HttpResponse): string {
  return `HTTP ${response.status} ${response.headers['content-type'] ?? ''}\n${response.body.slice(0, 2000)}`;
}

/** Asserts a kube-apiserver style failure Status body with the given code and reason. */
function expectStatus(response: HttpResponse, code: number, reason: string): Status {
  expect(response.status, describeResponse(response)).toBe(code);
  expect(response.headers['content-type'], describeResponse(response)).toMatch(/^application\/json/);
  const status = jsonBody<Status>(response);
  expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  expect(typeof status.message === 'string' && status.message !== '', describeResponse(response)).toBe(true);
  return status;
}

function configMap(name: string, data: Record<string, string> = { a: 'b' }): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

beforeAll(async () => {
  dir = await makeTempDir('kstore-e2e-tls-');
  server = await KstoreProcess.start({ dataDir: path.join(dir.path, 'data'), tlsSans: [extraSan] });
  admin = await readKubeconfig(server.kubeconfigPath);
  client = new KubeClient(admin.server, admin);
  const created = await client.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  expect(created.status, describeResponse(created)).toBe(201);
  const kept = await client.post(configMaps, configMap('keep'));
  expect(kept.status, describeResponse(kept)).toBe(201);
  keptResourceVersion = jsonBody<{ metadata?: { resourceVersion?: string } }>(kept).metadata?.resourceVersion;
});

afterAll(async () => {
  if (server) await server.stop().catch(() => server?.kill());
  await dir?.remove();
});

describe('client certificate authentication', () => {
  it('accepts the admin client certificate from the kubeconfig', async () => {
    const response = await client.get('/api/v1/namespaces');
    expect(response.status, describeResponse(response)).toBe(200);
    expect(jsonBody<ObjectList>(response).kind).toBe('NamespaceList');
  });

  it('treats a request without credentials as system:anonymous: 403 on the API, 200 on /livez (kube-apiserver\'s default --anonymous-auth)', async () => {
    const response = await httpsRequest(admin.server, { ca: admin.ca }, { path: '/api/v1/namespaces' });
    expectStatus(response, 403, 'Forbidden');
    expect(jsonBody<{ message: string }>(response).message).toBe('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
    const livez = await httpsRequest(admin.server, { ca: admin.ca }, { path: '/livez' });
    expect(livez.status, describeResponse(livez)).toBe(200);
  });

  it('answers a request with a client certificate from a different CA with 401, even with the admin subject', async () => {
    if (!dir) throw new Error('no temp dir');
    // A complete second PKI: its admin certificate has the same subject (kstore-admin,
    // system:masters) but is signed by another CA.
    const foreign = await ensurePki(path.join(dir.path, 'foreign'), []);
    expect(foreign.caCert).not.toBe(admin.ca);
    const response = await httpsRequest(admin.server, { ca: admin.ca, cert: foreign.adminCert, key: foreign.adminKey },
      { path: '/api/v1/namespaces' });
    expectStatus(response, 401, 'Unauthorized');
  });
});

describe('serving certificate', () => {
  it('validates against the kubeconfig CA for 127.0.0.1', async () => {
    const url = new URL(admin.server);
    const response = await httpsRequest(`https://127.0.0.1:${url.port}`, admin, { path: '/version' });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.peerCertificate?.subjectaltname).toContain('IP Address:127.0.0.1');
  });

  it('validates against the kubeconfig CA for localhost', async () => {
    const url = new URL(admin.server);
    const response = await httpsRequest(`https://127.0.0.1:${url.port}`, admin, { path: '/version', servername: 'localhost' });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.peerCertificate?.subjectaltname).toContain('DNS:localhost');
  });

  it('validates against the kubeconfig CA for a name given with --tls-san', async () => {
    const url = new URL(admin.server);
    const response = await httpsRequest(`https://127.0.0.1:${url.port}`, admin, { path: '/version', servername: extraSan });
    expect(response.status, describeResponse(response)).toBe(200);
    expect(response.peerCertificate?.subjectaltname).toContain(`DNS:${extraSan}`);
  });

  it('does not validate for a name that is not one of its subject alternative names', async () => {
    const url = new URL(admin.server);
    await expect(httpsRequest(`https://127.0.0.1:${url.port}`, admin, { path: '/version', servername: 'not-a-san.example' }))
      .rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });
});

describe('HTTP errors carry Status bodies', () => {
  it('answers GET of a missing configmap with 404 NotFound naming it', async () => {
    const status = expectStatus(await client.get(`${configMaps}/nope`), 404, 'NotFound');
    expect(status.message).toBe('configmaps "nope" not found');
    expect(status.details).toMatchObject({ name: 'nope', kind: 'configmaps' });
  });

  it('answers POST of malformed JSON with 400 BadRequest', async () => {
    expectStatus(await client.post(configMaps, '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {'), 400, 'BadRequest');
  });

  it('answers POST of a Secret to the configmaps resource with 400 BadRequest', async () => {
    const response = await client.post(configMaps, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-kind', namespace }, data: {} });
    expectStatus(response, 400, 'BadRequest');
  });

  it('answers POST of a 4 MiB body with 413 RequestEntityTooLarge', async () => {
    const body = JSON.stringify(configMap('too-big', { big: 'x'.repeat(4 * 1024 * 1024) }));
    const response = await httpsRequestTolerantOfEarlyReply(admin.server, admin, { path: configMaps, body });
    expect(response.status, response.body).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 413, reason: 'RequestEntityTooLarge' });
  });

  it('answers POST with Content-Type text/plain with 415 UnsupportedMediaType', async () => {
    const response = await client.post(configMaps, JSON.stringify(configMap('plain-text')), { 'content-type': 'text/plain' });
    expectStatus(response, 415, 'UnsupportedMediaType');
  });

  it('answers PUT whose body names another object than the URL with 400 BadRequest', async () => {
    const response = await client.put(`${configMaps}/url-name`, configMap('body-name'));
    expectStatus(response, 400, 'BadRequest');
  });

  it('answers POST of an upper-case name with 422 Invalid and a cause for metadata.name', async () => {
    const status = expectStatus(await client.post(configMaps, configMap('Upper')), 422, 'Invalid');
    expect(status.details?.causes, JSON.stringify(status)).toContainEqual(expect.objectContaining({ field: 'metadata.name' }));
  });

  it('leaves the stored state unchanged after all the rejected requests', async () => {
    const listed = await client.get(configMaps);
    expect(listed.status, describeResponse(listed)).toBe(200);
    // Besides the root CA publisher's kube-root-ca.crt, only what the one accepted POST stored.
    const items = (jsonBody<ObjectList>(listed).items ?? []).filter((item) => item.metadata?.name !== 'kube-root-ca.crt');
    expect(items.map((item) => item.metadata?.name)).toEqual(['keep']);
    expect(items[0]?.metadata?.resourceVersion).toBe(keptResourceVersion);
    const secrets = await client.get(`/api/v1/namespaces/${namespace}/secrets`);
    expect(secrets.status, describeResponse(secrets)).toBe(200);
    expect(jsonBody<ObjectList>(secrets).items).toEqual([]);
  });
});
