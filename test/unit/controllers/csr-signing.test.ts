// csrsigning over an in-memory state: approved requests are signed with the cluster CA (subject,
// issuer, validity, usages and SANs checked by parsing the certificate), a request breaking its
// signer's rules is Failed with kube's reason and message, denied/pending/failed/issued ones are
// left alone; and the approver and signer together take a bootstrapper's node request to issued.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CsrApprovingController, CsrSigningController, certificateTtlMs, certificateValidity, createControllers, enabledControllers, keyUsagesFromStrings,
  parseControllersFlag,
} from '../../../actors/controllers/index.ts';
import type { Controller } from '../../../actors/controllers/index.ts';
import type { TestCa } from './csr-fixtures.ts';
import { at, clusterRole, clusterRoleBinding, conditionsOf, csrKey, csrObject, issued, makeCa, makeRequest, t0Ms, world } from './csr-fixtures.ts';

const approved = [{ type: 'Approved', status: 'True', reason: 'ByHand', message: 'ok', lastUpdateTime: at(0), lastTransitionTime: at(0) }];
const node = { username: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'] };

let ca: TestCa;
beforeAll(async () => {
  ca = await makeCa();
});

const started: Controller[] = [];
afterEach(async () => {
  for (const controller of started.splice(0)) await controller.stop();
});

function signer(w: ReturnType<typeof world>): CsrSigningController {
  const controller = new CsrSigningController(w.context, w.context.clusterSigning!);
  controller.start();
  started.push(controller);
  return controller;
}

function extendedUsages(certificate: x509.X509Certificate): string[] {
  return certificate.getExtension(x509.ExtendedKeyUsageExtension)?.usages.map(String) ?? [];
}

describe('csrsigning', () => {
  it('signs an approved kubelet client request with the cluster CA: subject, issuer, validity, usages', async () => {
    const w = world(ca);
    w.setClock(60);
    w.put({ key: csrKey('kubelet'), object: csrObject('kubelet', { request: await makeRequest('CN=system:node:worker-1, O=system:nodes'), ...node, usages: ['digital signature', 'key encipherment', 'client auth'], conditions: approved }) });
    const before = w.csr('kubelet')!;
    await signer(w).idle();
    const certificate = issued(w.csr('kubelet'));
    expect(certificate).toBeDefined();
    // Go's pkix.Name order: O before CN.
    expect(certificate!.subject).toBe('O=system:nodes, CN=system:node:worker-1');
    expect(certificate!.issuer).toBe(ca.x509.subject);
    expect(await certificate!.verify({ publicKey: ca.x509.publicKey, signatureOnly: true })).toBe(true);
    const now = t0Ms + 60_000;
    expect(certificate!.notBefore.getTime()).toBe(now - 5 * 60_000);
    expect(certificate!.notAfter.getTime()).toBe(now + 8760 * 3600_000 - 5 * 60_000);
    const keyUsage = certificate!.getExtension(x509.KeyUsagesExtension)!;
    expect(keyUsage.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    expect(keyUsage.critical).toBe(true);
    expect(extendedUsages(certificate!)).toEqual([x509.ExtendedKeyUsage.clientAuth]);
    expect(certificate!.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(false);
    const caKeyId = ca.x509.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId;
    expect(certificate!.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(caKeyId);
    // Through the status subresource's write: a resourceVersion precondition, conditions kept.
    expect(w.proposals.at(-1)).toMatchObject({ type: 'update', preconditions: { resourceVersion: before.metadata.resourceVersion }, by: 'system:serviceaccount:kube-system:certificate-controller' });
    expect(conditionsOf(w.csr('kubelet'))).toEqual(approved);
    const pem = Buffer.from((w.csr('kubelet')!['status'] as { certificate: string }).certificate, 'base64').toString('utf8');
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\n(?:[A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/);
  });

  it('honours a shorter spec.expirationSeconds (no end backdating under 8h) and caps at the CA expiry', async () => {
    const w = world(ca);
    w.put({ key: csrKey('short'), object: csrObject('short', { request: await makeRequest('CN=alice, O=devs'), signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice', groups: [], usages: ['client auth'], expirationSeconds: 3600, conditions: approved }) });
    await signer(w).idle();
    const certificate = issued(w.csr('short'))!;
    expect(certificate.subject).toBe('O=devs, CN=alice');
    expect(certificate.notAfter.getTime()).toBe(t0Ms + 3600_000);
    // No key usage bits were asked for, so there is no KeyUsage extension.
    expect(certificate.getExtension(x509.KeyUsagesExtension)).toBeNull();

    const shortCa = await makeCa(30);
    const w2 = world(shortCa);
    w2.put({ key: csrKey('capped'), object: csrObject('capped', { request: await makeRequest('CN=alice'), signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice', groups: [], usages: ['client auth'], conditions: approved }) });
    await signer(w2).idle();
    expect(issued(w2.csr('capped'))!.notAfter.getTime()).toBe(shortCa.x509.notAfter.getTime());
  });

  it('signs a kubelet serving request with its DNS and IP SANs', async () => {
    const w = world(ca);
    const request = await makeRequest('CN=system:node:worker-1, O=system:nodes', [{ type: 'dns', value: 'worker-1.example' }, { type: 'ip', value: '10.0.0.7' }]);
    w.put({ key: csrKey('serving'), object: csrObject('serving', { request, signerName: 'kubernetes.io/kubelet-serving', ...node, usages: ['digital signature', 'server auth'], conditions: approved }) });
    await signer(w).idle();
    const certificate = issued(w.csr('serving'))!;
    const sans = certificate.getExtension(x509.SubjectAlternativeNameExtension)!.names.items.map((name) => `${name.type}:${name.value}`);
    expect(sans).toEqual(['dns:worker-1.example', 'ip:10.0.0.7']);
    expect(extendedUsages(certificate)).toEqual([x509.ExtendedKeyUsage.serverAuth]);
  });

  it('sets Failed with SignerValidationFailure and kube\'s message on a request its signer refuses', async () => {
    const w = world(ca);
    w.setClock(9);
    const cases: [string, ReturnType<typeof csrObject>, string][] = [
      ['wrong-org', csrObject('wrong-org', { request: await makeRequest('CN=system:node:worker-1, O=developers'), ...node, conditions: approved }), 'subject organization is not system:nodes'],
      ['ip-san', csrObject('ip-san', { request: await makeRequest('CN=system:node:w, O=system:nodes', [{ type: 'ip', value: '10.0.0.1' }]), ...node, conditions: approved }), 'IP subjectAltNames are not allowed'],
      ['bad-cn', csrObject('bad-cn', { request: await makeRequest('CN=worker-1, O=system:nodes'), ...node, conditions: approved }), 'subject common name does not begin with system:node:'],
      ['usages', csrObject('usages', { request: await makeRequest('CN=system:node:w, O=system:nodes'), ...node, usages: ['client auth'], conditions: approved }), 'usages did not match [client auth digital signature key encipherment]'],
      ['serving-no-san', csrObject('serving-no-san', { request: await makeRequest('CN=system:node:w, O=system:nodes'), signerName: 'kubernetes.io/kubelet-serving', ...node, usages: ['digital signature', 'server auth'], conditions: approved }), 'DNS or IP subjectAltName is required'],
      ['client-server-usage', csrObject('client-server-usage', { request: await makeRequest('CN=bob'), signerName: 'kubernetes.io/kube-apiserver-client', username: 'bob', groups: [], usages: ['client auth', 'server auth'], conditions: approved }), 'invalid usage for client certificate: server auth'],
      ['client-no-client-auth', csrObject('client-no-client-auth', { request: await makeRequest('CN=bob'), signerName: 'kubernetes.io/kube-apiserver-client', username: 'bob', groups: [], usages: ['digital signature'], conditions: approved }), 'missing required usage for client certificate: client auth'],
    ];
    for (const [name, object] of cases) w.put({ key: csrKey(name), object });
    await signer(w).idle();
    for (const [name, , message] of cases) {
      expect(issued(w.csr(name)), name).toBeUndefined();
      expect(conditionsOf(w.csr(name)), name).toEqual([...approved, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message, lastUpdateTime: at(9), lastTransitionTime: at(9) }]);
    }
  });

  it('does not sign pending, denied, failed, already issued or other signers\' requests', async () => {
    const w = world(ca);
    const request = await makeRequest('CN=system:node:worker-1, O=system:nodes');
    const denied = [...approved, { type: 'Denied', status: 'True', reason: 'No', message: 'no', lastUpdateTime: at(0), lastTransitionTime: at(0) }];
    const failed = [...approved, { type: 'Failed', status: 'True', reason: 'Broken', message: 'x', lastUpdateTime: at(0), lastTransitionTime: at(0) }];
    w.put({ key: csrKey('pending'), object: csrObject('pending', { request, ...node }) });
    w.put({ key: csrKey('denied'), object: csrObject('denied', { request, ...node, conditions: denied }) });
    w.put({ key: csrKey('failed'), object: csrObject('failed', { request, ...node, conditions: failed }) });
    w.put({ key: csrKey('custom'), object: csrObject('custom', { request, ...node, signerName: 'example.com/signer', conditions: approved }) });
    const done = csrObject('done', { request, ...node, conditions: approved });
    (done['status'] as Record<string, unknown>)['certificate'] = Buffer.from('not touched').toString('base64');
    w.put({ key: csrKey('done'), object: done });
    await signer(w).idle();
    expect(w.proposals.filter((command) => command.type === 'update')).toEqual([]);
  });

  it('is not started without a cluster signing CA; csrapproving, csrsigning and csrcleaner are on by default', () => {
    expect(parseControllersFlag('csrapproving,-csrsigning,csrcleaner')).toEqual([
      'certificatesigningrequest-approving-controller', '-certificatesigningrequest-signing-controller', 'certificatesigningrequest-cleaner-controller',
    ]);
    expect(enabledControllers(['*'])).toEqual(expect.arrayContaining([
      'certificatesigningrequest-signing-controller', 'certificatesigningrequest-approving-controller', 'certificatesigningrequest-cleaner-controller',
    ]));
    expect(createControllers(world().context).map((controller) => controller.name)).not.toContain('csrsigning');
    expect(createControllers(world(ca).context).map((controller) => controller.name)).toEqual(expect.arrayContaining(['csrsigning', 'csrapproving', 'csrcleaner']));
  });

  it('computes ttl, validity and usages as kube\'s signer', () => {
    expect(certificateTtlMs(undefined, 3600)).toBe(3600_000);
    expect(certificateTtlMs(7200, 3600)).toBe(3600_000);
    expect(certificateTtlMs(60, 3600)).toBe(600_000);
    expect(() => certificateValidity(t0Ms, 3600_000, new Date(t0Ms))).toThrow('refusing to sign a certificate that expired in the past: NotAfter=2026-01-01 00:00:00 +0000 UTC');
    expect(() => certificateValidity(t0Ms + 600_000, 3600_000, new Date(t0Ms))).toThrow('the signer has expired: NotAfter=2026-01-01 00:00:00 +0000 UTC');
    expect(keyUsagesFromStrings(['client auth', 'signing', 's/mime', 'any']).extended).toEqual(['2.5.29.37.0', '1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.4']);
    expect(() => keyUsagesFromStrings(['bogus'])).toThrow('unrecognized usage values: ["bogus"]');
  });
});

describe('csrapproving and csrsigning together', () => {
  it('take a bootstrapper\'s node client request to an issued certificate, and leave an unbound user\'s pending', async () => {
    const w = world(ca);
    const group = 'system:bootstrappers:kubeadm:default-node-token';
    const role = 'system:certificates.k8s.io:certificatesigningrequests:nodeclient';
    w.put(clusterRole(role, ['certificatesigningrequests/nodeclient']));
    w.put(clusterRoleBinding(role, role, [{ kind: 'Group', name: group }]));
    w.put({ key: csrKey('node-csr-abc'), object: csrObject('node-csr-abc', { request: await makeRequest('CN=system:node:worker-9, O=system:nodes'), username: 'system:bootstrap:abcdef', groups: [group, 'system:authenticated'] }) });
    w.put({ key: csrKey('mallory'), object: csrObject('mallory', { request: await makeRequest('CN=system:node:worker-9, O=system:nodes'), username: 'mallory', groups: ['system:authenticated'] }) });
    const approver = new CsrApprovingController(w.context);
    started.push(approver);
    const signing = signer(w);
    approver.start();
    await approver.idle();
    await signing.idle();
    expect(conditionsOf(w.csr('node-csr-abc')).map((condition) => condition['type'])).toEqual(['Approved']);
    const certificate = issued(w.csr('node-csr-abc'))!;
    expect(certificate.subject).toBe('O=system:nodes, CN=system:node:worker-9');
    expect(extendedUsages(certificate)).toEqual([x509.ExtendedKeyUsage.clientAuth]);
    expect(conditionsOf(w.csr('mallory'))).toEqual([]);
    expect(issued(w.csr('mallory'))).toBeUndefined();
  });
});
