// Owns: what `kubeadm join` does before a kubelet runs, as a test client: with only a bootstrap
// token and the cluster CA's public key hash, it reads the kube-public cluster-info ConfigMap
// anonymously over unverified TLS, checks the bootstrap signer's detached JWS of its kubeconfig
// with the token and the CA against the pin, then (as system:bootstrap:<id>) posts a kubelet
// client CertificateSigningRequest for system:node:<name>, waits for csrapproving and csrsigning
// to issue it, and returns the node's credentials: a kubeconfig's worth of CA, certificate, key.
import 'reflect-metadata';
import { createHash, createHmac, timingSafeEqual, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { parse } from 'yaml';
import { httpsRequest, jsonBody } from './kube-client.ts';
import type { Credentials } from './kube-client.ts';
import { waitFor } from './wait-for.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export interface JoinOptions {
  /** The API server URL the joining node was told (kubeadm join <endpoint>). */
  readonly server: string;
  /** The bootstrap token <id>.<secret>. */
  readonly token: string;
  /** kubeadm's --discovery-token-ca-cert-hash: sha256:<hex of the CA's SubjectPublicKeyInfo>. */
  readonly caCertHash: string;
  readonly nodeName: string;
  /** How long to wait for the certificate (approval and signing run on the store leader). */
  readonly timeoutMs?: number;
}

export interface JoinedNode {
  /** Credentials of system:node:<name>. */
  readonly credentials: Required<Credentials>;
  /** The CSR's name. */
  readonly csrName: string;
  /** The issued certificate (PEM). */
  readonly certificate: string;
}

/** kubeadm's CA pin: sha256 of the DER SubjectPublicKeyInfo of the CA certificate. */
export function caCertHash(caPem: string): string {
  const certificate = new x509.X509Certificate(caPem);
  return `sha256:${createHash('sha256').update(Buffer.from(certificate.publicKey.rawData)).digest('hex')}`;
}

function verifyDetachedJws(detached: string, content: string, key: string): boolean {
  const [header = '', payload, signature = ''] = detached.split('.');
  if (payload !== '') return false;
  const expected = createHmac('sha256', key).update(`${header}.${Buffer.from(content).toString('base64url')}`).digest();
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface ClusterInfoKubeconfig {
  readonly clusters: readonly { readonly cluster: { readonly server: string; readonly 'certificate-authority-data': string } }[];
}

export async function joinAsNode(options: JoinOptions): Promise<JoinedNode> {
  const [tokenId = ''] = options.token.split('.');
  // Discovery: the CA is not known yet, so TLS is unverified; the JWS and the pin make it safe.
  const insecure = await httpsRequest(options.server, { ca: '' }, { path: '/api/v1/namespaces/kube-public/configmaps/cluster-info', insecure: true });
  if (insecure.status !== 200) throw new Error(`cluster-info: HTTP ${insecure.status}: ${insecure.body}`);
  const data = jsonBody<{ data: Record<string, string> }>(insecure).data;
  const kubeconfig = data['kubeconfig'] ?? '';
  const signature = data[`jws-kubeconfig-${tokenId}`];
  if (signature === undefined) throw new Error(`cluster-info has no signature for token id ${tokenId}`);
  if (!verifyDetachedJws(signature, kubeconfig, options.token)) throw new Error('cluster-info signature does not verify with the token');
  const cluster = (parse(kubeconfig) as ClusterInfoKubeconfig).clusters[0]?.cluster;
  if (cluster === undefined) throw new Error('cluster-info kubeconfig names no cluster');
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  if (caCertHash(ca) !== options.caCertHash) throw new Error(`cluster CA does not match the pin ${options.caCertHash}`);

  // TLS bootstrap: a key pair and a kubelet client CSR, sent as the bootstrap token's user.
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `O=system:nodes, CN=system:node:${options.nodeName}`, keys, signingAlgorithm: algorithm,
  });
  const key = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n?$/, '\n')}-----END PRIVATE KEY-----\n`;
  const bearer = { authorization: `Bearer ${options.token}` };
  const csrName = `node-csr-${options.nodeName}`;
  const created = await httpsRequest(options.server, { ca }, {
    method: 'POST', path: '/apis/certificates.k8s.io/v1/certificatesigningrequests', headers: bearer,
    body: {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: csrName },
      spec: { request: Buffer.from(request.toString('pem')).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
    },
  });
  if (created.status !== 201) throw new Error(`creating the CSR: HTTP ${created.status}: ${created.body}`);
  const certificate = await waitFor(async () => {
    const response = await httpsRequest(options.server, { ca }, { path: `/apis/certificates.k8s.io/v1/certificatesigningrequests/${csrName}`, headers: bearer });
    const issued = response.status === 200 ? jsonBody<{ status?: { certificate?: string } }>(response).status?.certificate : undefined;
    return issued === undefined || issued === '' ? undefined : Buffer.from(issued, 'base64').toString('utf8');
  }, { timeoutMs: options.timeoutMs ?? 30_000, description: `the CSR ${csrName} to be approved and issued` });
  return { credentials: { ca, cert: certificate, key }, csrName, certificate };
}
