// Builders shared by the CSR controller tests: a state that applies proposals at once, a cluster
// CA, certificate requests made with @peculiar/x509, and CSR objects as the API tier stores them.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { ClusterState, commandVersion, encodeCommand } from '../../../actors/index.ts';
import type { Command, CommandResult, KubeObject, ObjectKey } from '../../../actors/index.ts';
import type { ClusterSigning, ControllerContext } from '../../../actors/controllers/index.ts';
import { manualTimers } from '../../support/manual-timers.ts';

const crypto = webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0];
const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const sha256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

export const t0Ms = Date.UTC(2026, 0, 1);
export function at(seconds: number): string {
  return new Date(t0Ms + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface TestCa extends ClusterSigning {
  readonly x509: x509.X509Certificate;
}

/** A self-signed ECDSA CA valid from t0-1d for `days`, as deploy/pki.ts makes one. */
export async function makeCa(days = 3650): Promise<TestCa> {
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01', name: 'CN=test-ca', keys, signingAlgorithm: sha256,
    notBefore: new Date(t0Ms - 86_400_000), notAfter: new Date(t0Ms + days * 86_400_000),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
    ],
  }, crypto);
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certificate: certificate.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'), durationSeconds: 8760 * 3600, x509: certificate };
}

/** A PEM certificate request for `subject` with optional SANs, signed by a fresh P-256 key. */
export async function makeRequest(subject: string, sans: x509.JsonGeneralName[] = []): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const extensions = sans.length === 0 ? [] : [new x509.SubjectAlternativeNameExtension(sans)];
  const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: sha256, extensions }, crypto);
  return request.toString('pem');
}

export function csrKey(name: string): ObjectKey {
  return { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', namespace: '', name };
}

export interface CsrParams {
  readonly request: string;
  readonly signerName?: string;
  readonly usages?: string[];
  readonly username: string;
  readonly groups: string[];
  readonly expirationSeconds?: number;
  readonly conditions?: Record<string, string>[];
}

/** A CertificateSigningRequest as the API tier stores it (spec.request base64 of the PEM). */
export function csrObject(name: string, params: CsrParams): KubeObject {
  const spec: Record<string, unknown> = {
    request: Buffer.from(params.request, 'utf8').toString('base64'),
    signerName: params.signerName ?? 'kubernetes.io/kube-apiserver-client-kubelet',
    usages: params.usages ?? ['digital signature', 'client auth'],
    username: params.username, groups: params.groups,
  };
  if (params.expirationSeconds !== undefined) spec['expirationSeconds'] = params.expirationSeconds;
  return {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
    metadata: { name, uid: `uid-${name}`, creationTimestamp: at(0) },
    spec: spec as never,
    status: (params.conditions === undefined ? {} : { conditions: params.conditions }) as never,
  };
}

export function clusterRole(name: string, resources: string[], verbs = ['create']): { key: ObjectKey; object: KubeObject } {
  return {
    key: { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '', name },
    object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, uid: `uid-${name}` }, rules: [{ apiGroups: ['certificates.k8s.io'], resources, verbs }] as never },
  };
}

export function clusterRoleBinding(name: string, role: string, subjects: { kind: string; name: string }[]): { key: ObjectKey; object: KubeObject } {
  return {
    key: { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings', namespace: '', name },
    object: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name, uid: `uid-${name}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: subjects.map((subject) => ({ apiGroup: 'rbac.authorization.k8s.io', ...subject })) as never,
    },
  };
}

/** A state applying proposals at once, a settable clock, and timers fired by hand. */
export function world(clusterSigning?: ClusterSigning) {
  const state = new ClusterState();
  let index = 0;
  let clock = 0;
  const proposals: Command[] = [];
  const apply = (command: Command): CommandResult => state.apply({ index: ++index, term: 1, data: encodeCommand({ version: commandVersion, command }) });
  const { fakeTimers, pending, fire } = manualTimers();
  const logs: string[] = [];
  const context: ControllerContext = {
    state,
    propose: async (command) => {
      proposals.push(command);
      return apply(command);
    },
    now: () => at(clock),
    log: (message, fields) => logs.push(JSON.stringify({ message, ...fields })),
    ...(clusterSigning === undefined ? {} : { clusterSigning }),
  };
  const put = ({ key, object }: { key: ObjectKey; object: KubeObject }): CommandResult => apply({ type: 'create', key, object, at: at(clock) });
  return {
    state, apply, put, context, proposals, logs, fakeTimers,
    setClock: (seconds: number) => { clock = seconds; },
    pending,
    fire,
    csr: (name: string) => state.get(csrKey(name)),
  };
}

export function conditionsOf(object: KubeObject | undefined): Record<string, unknown>[] {
  const status = (object?.['status'] ?? {}) as { conditions?: Record<string, unknown>[] };
  return status.conditions ?? [];
}

/** The issued certificate of a CSR, parsed. */
export function issued(object: KubeObject | undefined): x509.X509Certificate | undefined {
  const status = (object?.['status'] ?? {}) as { certificate?: string };
  if (status.certificate === undefined) return undefined;
  return new x509.X509Certificate(Buffer.from(status.certificate, 'base64').toString('utf8'));
}
