// End to end, the `kubeadm join` path against a real `kstore server --enable-bootstrap-token-auth
// --controllers '*,bootstrapsigner' --authorization-mode Node,RBAC --enable-admission-plugins
// NodeRestriction`: the operator makes a bootstrap token (kubeadm's auth-extra-groups); a node
// that has only that token and the CA pin reads the signed cluster-info anonymously, verifies it,
// posts a kubelet client CSR that csrapproving approves and csrsigning issues, and then, as
// system:node:<name> under the Node authorizer, registers its Node, reads the secret its pod
// mounts and nothing else. A tampered token, a wrong pin and a user CSR that is not a node's are
// refused or left pending.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KstoreProcess } from '../support/kstore-process.ts';
import { httpsRequest, jsonBody, readKubeconfig } from '../support/kube-client.ts';
import type { KubeconfigCredentials } from '../support/kube-client.ts';
import { caCertHash, joinAsNode } from '../support/node-join.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const tokenId = 'joinab';
const token = `${tokenId}.7k2m9p4q1x8z5c3v`;

let dir: TempDir;
let server: KstoreProcess;
let admin: KubeconfigCredentials;

const asAdmin = (method: string, requestPath: string, body?: unknown, headers?: Record<string, string>) =>
  httpsRequest(admin.server, admin, { method, path: requestPath, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) });

beforeAll(async () => {
  dir = await makeTempDir('kstore-node-join-');
  server = await KstoreProcess.start({
    dataDir: path.join(dir.path, 'data'),
    extraArgs: ['--enable-bootstrap-token-auth', '--controllers', '*,bootstrapsigner', '--authorization-mode', 'Node,RBAC', '--enable-admission-plugins', 'NodeRestriction'],
  });
  admin = await readKubeconfig(server.kubeconfigPath);
  // kubeadm token create: a token for joining nodes, signing cluster-info.
  const created = await asAdmin('POST', '/api/v1/namespaces/kube-system/secrets', {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${tokenId}` }, type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': tokenId, 'token-secret': token.split('.')[1], 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true',
      'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
    },
  });
  expect(created.status, created.body).toBe(201);
  await waitFor(async () => {
    const response = await httpsRequest(admin.server, { ca: admin.ca }, { path: '/api/v1/namespaces/kube-public/configmaps/cluster-info' });
    return response.status === 200 && jsonBody<{ data: Record<string, string> }>(response).data[`jws-kubeconfig-${tokenId}`] !== undefined;
  }, { timeoutMs: 30_000, description: 'cluster-info signed with the token', diagnostics: () => server.output().slice(-3000) });
}, 120_000);

afterAll(async () => {
  if (server) await server.stop().catch(() => server.kill());
  await dir?.remove();
});

describe('a node joins with a bootstrap token', () => {
  it('refuses discovery with a wrong pin or a token that did not sign cluster-info', async () => {
    await expect(joinAsNode({ server: admin.server, token, caCertHash: 'sha256:00', nodeName: 'n0' })).rejects.toThrow('does not match the pin');
    await expect(joinAsNode({ server: admin.server, token: `${tokenId}.aaaaaaaaaaaaaaaa`, caCertHash: caCertHash(admin.ca), nodeName: 'n0' })).rejects.toThrow('does not verify');
  });

  it('gets a kubelet client certificate approved and issued, then acts as system:node:<name> under the Node authorizer', async () => {
    const joined = await joinAsNode({ server: admin.server, token, caCertHash: caCertHash(admin.ca), nodeName: 'worker-1' });
    const csr = jsonBody<{ spec: { username: string; groups: string[] }; status: { conditions: { type: string; reason: string }[] } }>(
      await asAdmin('GET', `/apis/certificates.k8s.io/v1/certificatesigningrequests/${joined.csrName}`));
    expect(csr.spec.username).toBe(`system:bootstrap:${tokenId}`);
    expect(csr.spec.groups).toContain('system:bootstrappers:kubeadm:default-node-token');
    expect(csr.status.conditions[0]).toMatchObject({ type: 'Approved', reason: 'AutoApproved' });

    const asNode = (method: string, requestPath: string, body?: unknown, headers?: Record<string, string>) =>
      httpsRequest(admin.server, joined.credentials, { method, path: requestPath, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) });
    const review = await asNode('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(jsonBody<{ status: { userInfo: unknown } }>(review).status.userInfo).toEqual({ username: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'] });
    const registered = await asNode('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1' } });
    expect(registered.status, registered.body).toBe(201);
    const impostor = await asNode('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-2' } });
    expect(impostor.status).toBe(403);
    expect(jsonBody<{ message: string }>(impostor).message).toContain('node "worker-1" is not allowed to modify node "worker-2"');

    expect((await asAdmin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } })).status).toBe(201);
    for (const name of ['app-config', 'other-config']) {
      expect((await asAdmin('POST', '/api/v1/namespaces/apps/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { k: 'v' } })).status).toBe(201);
    }
    const pod = await asAdmin('POST', '/api/v1/namespaces/apps/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
      spec: { nodeName: 'worker-1', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], volumes: [{ name: 's', secret: { secretName: 'app-config' } }] },
    });
    expect(pod.status, pod.body).toBe(201);
    expect((await asNode('GET', '/api/v1/namespaces/apps/secrets/app-config')).status).toBe(200);
    const other = await asNode('GET', '/api/v1/namespaces/apps/secrets/other-config');
    expect(other.status).toBe(403);
    expect(jsonBody<{ message: string }>(other).message).toContain("no relationship found between node 'worker-1' and this object");
    const status = await asNode('PATCH', '/api/v1/namespaces/apps/pods/web/status', { status: { phase: 'Running' } }, { 'content-type': 'application/merge-patch+json' });
    expect(status.status, status.body).toBe(200);
    const lease = await asNode('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'worker-1' }, spec: { holderIdentity: 'worker-1', leaseDurationSeconds: 40 },
    });
    expect(lease.status, lease.body).toBe(201);
    const foreignLease = await asNode('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'worker-2' }, spec: { holderIdentity: 'worker-2' },
    });
    expect(foreignLease.status).toBe(403);
  });

  it('leaves a bootstrapper\'s CSR for a non-node subject pending', async () => {
    const user = await httpsRequest(admin.server, { ca: admin.ca }, {
      method: 'POST', path: '/apis/certificates.k8s.io/v1/certificatesigningrequests', headers: { authorization: `Bearer ${token}` },
      body: {
        apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'not-a-node' },
        spec: { request: Buffer.from(await userCsrPem()).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
      },
    });
    expect(user.status, user.body).toBe(201);
    // A node's CSR made after it is approved and issued: the approver has looked at both since.
    const { credentials } = await joinAsNode({ server: admin.server, token, caCertHash: caCertHash(admin.ca), nodeName: 'worker-3' });
    expect(credentials.cert).toContain('BEGIN CERTIFICATE');
    const after = jsonBody<{ status: { conditions?: unknown[] } }>(await asAdmin('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/not-a-node'));
    expect(after.status.conditions ?? []).toEqual([]);
  });
});

async function userCsrPem(): Promise<string> {
  const { webcrypto } = await import('node:crypto');
  const x509 = await import('@peculiar/x509');
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'O=devs, CN=mallory', keys, signingAlgorithm: algorithm })).toString('pem');
}
