// certificates.k8s.io/v1 CertificateSigningRequests through the API: the requesting user written
// into spec on create, status emptied, spec immutable, the approval subresource the only way to
// add Approved/Denied, the status subresource the only way to set status.certificate, kube's
// validation messages (the request must be a PEM CERTIFICATE REQUEST whose signature verifies),
// the Table columns and the spec.signerName field selector.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

let harness: Harness;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const signer = 'kubernetes.io/kube-apiserver-client';
let requestPem = '';
let certificatePem = '';

beforeAll(async () => {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  requestPem = (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice,O=dev', keys, signingAlgorithm: algorithm })).toString('pem');
  certificatePem = (await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01', name: 'CN=alice', notBefore: new Date(), notAfter: new Date(Date.now() + 3_600_000), keys, signingAlgorithm: algorithm,
  })).toString('pem');
});

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function csr(name: string, spec: Json = {}): Json {
  return {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
    spec: { request: Buffer.from(requestPem).toString('base64'), signerName: signer, usages: ['client auth'], ...spec },
  };
}

async function create(object: Json, headers: Record<string, string> = {}): Promise<Json> {
  const response = await harness.request('POST', csrs, object, headers);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

const approved = { type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' };

describe('certificatesigningrequests', () => {
  it('are served cluster-scoped as csr with the approval and status subresources', async () => {
    const list = (await harness.request('GET', '/apis/certificates.k8s.io/v1')).json();
    const byName = Object.fromEntries(list.resources.map((resource: Json) => [resource.name, resource]));
    expect(Object.keys(byName).sort()).toEqual(['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status']);
    expect(byName['certificatesigningrequests']).toMatchObject({ namespaced: false, shortNames: ['csr'], kind: 'CertificateSigningRequest' });
    expect(byName['certificatesigningrequests/approval'].verbs.sort()).toEqual(['get', 'patch', 'update']);
  });

  it('record the requesting user and empty the status on create', async () => {
    const created = await create({ ...csr('alice', { username: 'mallory', groups: ['system:masters'], uid: 'x', extra: { a: ['b'] } }), status: { conditions: [approved] } }, { 'x-test-user': 'alice;dev,system:masters' });
    expect(created.spec).toMatchObject({ username: 'alice', groups: ['dev', 'system:masters', 'system:authenticated'], signerName: signer, usages: ['client auth'] });
    expect(created.spec).not.toHaveProperty('uid');
    expect(created.spec).not.toHaveProperty('extra');
    expect(created.status).toEqual({});
  });

  it('keep spec and status on a write to the main resource', async () => {
    const created = await create(csr('keep'));
    const updated = await harness.request('PUT', `${csrs}/keep`, {
      ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, spec: { ...created.spec, usages: ['server auth'], username: 'other' }, status: { conditions: [approved] },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().metadata.labels).toEqual({ a: 'b' });
    expect(updated.json().spec).toEqual(created.spec);
    expect(updated.json().status).toEqual({});
  });

  it('are approved through the approval subresource only, which changes only the conditions', async () => {
    const created = await create(csr('approve'));
    const viaStatus = await causesOf('PUT', `${csrs}/approve/status`, { ...created, status: { conditions: [approved] } });
    expect(viaStatus).toEqual([{ field: 'status.conditions', message: 'Forbidden: updates may not add a condition of type "Approved"' }]);
    const response = await harness.request('PUT', `${csrs}/approve/approval`, {
      ...created, spec: { ...created.spec, usages: ['server auth'] }, status: { conditions: [{ type: 'Approved', reason: 'Test' }], certificate: Buffer.from(certificatePem).toString('base64') },
    });
    expect(response.statusCode, response.body).toBe(200);
    const stored = response.json();
    expect(stored.spec).toEqual(created.spec);
    expect(stored.status).not.toHaveProperty('certificate');
    expect(stored.status.conditions).toHaveLength(1);
    expect(stored.status.conditions[0]).toMatchObject({ type: 'Approved', status: 'True', reason: 'Test' });
    expect(stored.status.conditions[0].lastUpdateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(stored.status.conditions[0].lastTransitionTime).toBe(stored.status.conditions[0].lastUpdateTime);
    // Approved and Denied exclude each other; a condition cannot be removed.
    expect(await causesOf('PUT', `${csrs}/approve/approval`, { ...stored, status: { conditions: [...stored.status.conditions, { type: 'Denied', status: 'True' }] } })).toEqual([
      { field: 'status.conditions[1].type', message: 'Invalid value: "Denied": Approved and Denied conditions are mutually exclusive' },
    ]);
    expect(await causesOf('PUT', `${csrs}/approve/approval`, { ...stored, status: { conditions: [] } })).toEqual([
      { field: 'status.conditions', message: 'Forbidden: updates may not remove a condition of type "Approved"' },
    ]);
  });

  it('take the certificate through the status subresource only, once, keeping the approval conditions', async () => {
    const created = await create(csr('issue'));
    const certificate = Buffer.from(certificatePem).toString('base64');
    const approvedCsr = (await harness.request('PUT', `${csrs}/issue/approval`, { ...created, status: { conditions: [approved] } })).json();
    const issued = await harness.request('PUT', `${csrs}/issue/status`, {
      ...approvedCsr, status: { conditions: [{ ...approved, message: 'rewritten' }, { type: 'Failed', status: 'True', reason: 'Nope' }].slice(0, 1), certificate },
    });
    expect(issued.statusCode, issued.body).toBe(200);
    expect(issued.json().status.certificate).toBe(certificate);
    expect(issued.json().status.conditions).toEqual(approvedCsr.status.conditions);
    expect(await causesOf('PUT', `${csrs}/issue/status`, { ...issued.json(), status: { ...issued.json().status, certificate: Buffer.from(`${certificatePem}${certificatePem}`).toString('base64') } })).toEqual([
      { field: 'status.certificate', message: 'Forbidden: updates may not modify existing certificate content' },
    ]);
    const other = await create(csr('garbage'));
    expect(await causesOf('PUT', `${csrs}/garbage/status`, { ...other, status: { certificate: Buffer.from('not a certificate').toString('base64') } })).toEqual([
      { field: 'status.certificate', message: 'Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block' },
    ]);
    // Kube's printer reads Approved and Issued from the stored object.
    const table = (await harness.request('GET', csrs, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json();
    expect(table.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    expect(table.rows.map((row: Json) => [row.cells[0], ...row.cells.slice(2)])).toEqual([
      ['garbage', signer, 'admin', '<none>', 'Pending'],
      ['issue', signer, 'admin', '<none>', 'Approved,Issued'],
    ]);
  });

  it('validate the request, usages, signer name and duration as kube does', async () => {
    const garbage = Buffer.from('hello');
    expect(await causesOf('POST', csrs, csr('bad', {
      request: garbage.toString('base64'), usages: ['client auth', 'flying', 'client auth'], signerName: 'example', expirationSeconds: 599,
    }))).toEqual([
      { field: 'spec.request', message: 'Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: PEM block type must be CERTIFICATE REQUEST' },
      { field: 'spec.usages[1]', message: expect.stringMatching(/^Unsupported value: "flying": supported values: "any", "cert sign", "client auth", .*"timestamping"$/) },
      { field: 'spec.usages[2]', message: 'Duplicate value: "client auth"' },
      { field: 'spec.signerName', message: "Invalid value: \"example\": must be a fully qualified domain and path of the form 'example.com/signer-name'" },
      { field: 'spec.expirationSeconds', message: 'Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)' },
    ]);
    expect(await causesOf('POST', csrs, csr('nousage', { usages: [], signerName: 'kubernetes.io/legacy-unknown' }))).toEqual([
      { field: 'spec.usages', message: 'Required value' },
      { field: 'spec.signerName', message: 'Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version' },
    ]);
    // A request whose signature does not verify: one byte of the signature changed.
    const der = Buffer.from(requestPem.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
    der[der.length - 5] = der[der.length - 5]! ^ 0x01;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const causes = await causesOf('POST', csrs, csr('tampered', { request: Buffer.from(tampered).toString('base64') }));
    expect(causes.map((cause) => cause.field)).toEqual(['spec.request']);
    expect(causes[0]!.message).toMatch(/: x509: ECDSA verification failure$/);
  });

  it('select by spec.signerName and print the requested duration', async () => {
    await create(csr('one', { expirationSeconds: 3600 }));
    await create(csr('two', { signerName: 'example.com/other' }));
    const selected = (await harness.request('GET', `${csrs}?fieldSelector=spec.signerName=example.com/other`)).json();
    expect(selected.items.map((item: Json) => item.metadata.name)).toEqual(['two']);
    const table = (await harness.request('GET', `${csrs}/one`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json();
    expect(table.rows[0].cells[4]).toBe('60m');
  });
});
