// End-to-end: networking.k8s.io Ingresses and IngressClasses, the default ServiceCIDR and
// certificates.k8s.io CertificateSigningRequests through the real kubectl against one kstore
// server: `create ingress --rule`, `get ing` with kube's columns, an IngressClass marked default
// giving its name to an Ingress created without a class, `get servicecidr kubernetes`, and
// `certificate approve` of a CSR that `get csr` then prints Approved, and csrsigning issues.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';
import { waitFor } from '../support/wait-for.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

let fixture: KubectlServer | undefined;
const ns = 'net';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-networking-', ns);
});

afterAll(async () => {
  await fixture?.stop();
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

async function certificateRequestPem(): Promise<string> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=bob', keys, signingAlgorithm: algorithm })).toString('pem');
}

describe('kubectl with networking and certificates', () => {
  it('kubectl api-resources lists the kinds with their short names', async () => {
    const networking = parseTable(await ok(['api-resources', '--api-group=networking.k8s.io'])).rows;
    expect(networking).toContainEqual({ NAME: 'ingresses', SHORTNAMES: 'ing', APIVERSION: 'networking.k8s.io/v1', NAMESPACED: 'true', KIND: 'Ingress' });
    expect(networking).toContainEqual({ NAME: 'networkpolicies', SHORTNAMES: 'netpol', APIVERSION: 'networking.k8s.io/v1', NAMESPACED: 'true', KIND: 'NetworkPolicy' });
    expect(networking).toContainEqual({ NAME: 'ipaddresses', SHORTNAMES: 'ip', APIVERSION: 'networking.k8s.io/v1', NAMESPACED: 'false', KIND: 'IPAddress' });
    const certificates = parseTable(await ok(['api-resources', '--api-group=certificates.k8s.io'])).rows;
    expect(certificates).toContainEqual({ NAME: 'certificatesigningrequests', SHORTNAMES: 'csr', APIVERSION: 'certificates.k8s.io/v1', NAMESPACED: 'false', KIND: 'CertificateSigningRequest' });
  });

  it('kubectl create ingress --rule makes an Ingress that get ing prints with kube\'s columns', async () => {
    expect(await ok(['create', 'ingress', 'web', '-n', ns, '--rule=foo.example.com/=web:80', '--rule=bar.example.com/api*=api:http,tls=bar-tls'])).toContain('ingress.networking.k8s.io/web created');
    const table = parseTable(await ok(['get', 'ing', '-n', ns]));
    expect(table.headers).toEqual(['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    expect(table.rows[0]).toMatchObject({ NAME: 'web', CLASS: '<none>', HOSTS: 'foo.example.com,bar.example.com', ADDRESS: '', PORTS: '80, 443' });
    const paths = await ok(['get', 'ingress', 'web', '-n', ns, '-o', 'jsonpath={range .spec.rules[*].http.paths[*]}{.path} {.pathType};{end}']);
    expect(paths).toBe('/ Exact;/api Prefix;');
  });

  it('an IngressClass marked default names the class of an Ingress created without one', async () => {
    const ingressClass = {
      apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass',
      metadata: { name: 'house', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
      spec: { controller: 'example.com/ingress-controller' },
    };
    expect(await ok(['create', '-f', '-'], JSON.stringify(ingressClass))).toContain('ingressclass.networking.k8s.io/house created');
    const classes = parseTable(await ok(['get', 'ingressclasses']));
    expect(classes.headers).toEqual(['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE']);
    expect(classes.rows[0]).toMatchObject({ NAME: 'house', CONTROLLER: 'example.com/ingress-controller', PARAMETERS: '<none>' });
    const ingress = {
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'classless', namespace: ns },
      spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    };
    expect(await ok(['create', '-f', '-'], JSON.stringify(ingress))).toContain('ingress.networking.k8s.io/classless created');
    const table = parseTable(await ok(['get', 'ing', 'classless', '-n', ns]));
    expect(table.rows[0]).toMatchObject({ NAME: 'classless', CLASS: 'house', HOSTS: '*', PORTS: '80' });
  });

  it('the default ServiceCIDR kubernetes holds the service range and is Ready', async () => {
    const table = parseTable(await ok(['get', 'servicecidrs']));
    expect(table.headers).toEqual(['NAME', 'CIDRS', 'AGE']);
    expect(table.rows).toContainEqual(expect.objectContaining({ NAME: 'kubernetes', CIDRS: '10.96.0.0/12' }));
    expect(await ok(['get', 'servicecidr', 'kubernetes', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).toBe('True');
  });

  it('kubectl certificate approve approves a CSR, which csrsigning then issues (Approved,Issued)', async () => {
    const request = {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'bob' },
      spec: { request: Buffer.from(await certificateRequestPem()).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 86400 },
    };
    expect(await ok(['create', '-f', '-'], JSON.stringify(request))).toContain('certificatesigningrequest.certificates.k8s.io/bob created');
    const pending = parseTable(await ok(['get', 'csr']));
    expect(pending.headers).toEqual(['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    expect(pending.rows[0]).toMatchObject({ NAME: 'bob', SIGNERNAME: 'kubernetes.io/kube-apiserver-client', REQUESTOR: 'kstore-admin', REQUESTEDDURATION: '24h', CONDITION: 'Pending' });
    expect(await ok(['certificate', 'approve', 'bob'])).toContain('certificatesigningrequest.certificates.k8s.io/bob approved');
    expect(await ok(['get', 'csr', 'bob', '-o', 'jsonpath={.status.conditions[0].reason}'])).toBe('KubectlApprove');
    // csrsigning (on by default, with the data dir's CA) then issues the certificate.
    await waitFor(async () => parseTable(await ok(['get', 'csr', 'bob'])).rows[0]?.['CONDITION'] === 'Approved,Issued', { timeoutMs: 30_000, description: 'the approved CSR to be issued' });
    const issued = Buffer.from(await ok(['get', 'csr', 'bob', '-o', 'jsonpath={.status.certificate}']), 'base64').toString('utf8');
    expect(issued).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
  });
});
