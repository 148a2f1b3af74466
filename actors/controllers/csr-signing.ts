// Owns: kube-controller-manager's `csrsigning` (pkg/controller/certificates/signer) and the
// request helpers the CSR controllers share (pkg/apis/certificates helpers: ParseCSR,
// ValidateKubeletClientCSR, ValidateKubeletServingCSR; the approval conditions). A CSR that is
// approved, not denied, not failed and not yet issued, for one of the signers
// kubernetes.io/kube-apiserver-client-kubelet, kubernetes.io/kube-apiserver-client or
// kubernetes.io/kubelet-serving, is checked against that signer's rules (a breach sets the
// Failed condition, reason SignerValidationFailure), then signed with the cluster CA
// (--cluster-signing-cert-file / --cluster-signing-key-file): random 128-bit serial, NotBefore
// now-5m, NotAfter now+ttl-5m (now+ttl under 8h), capped at the CA's NotAfter, ttl the
// requested spec.expirationSeconds bounded by --cluster-signing-duration and 10 minutes; the
// subject and the DNS/email/IP/URI SANs of the request, the key usages of spec.usages, no other
// extension. The certificate goes into status.certificate as the status subresource would
// write it. Leader-only; acts only by proposing updates with a resourceVersion precondition.
// The certificate is built with @peculiar/x509 (node:crypto parses certificates but cannot
// issue them); the subject is re-encoded in Go's pkix.Name order, as kube's signer does.
import 'reflect-metadata';
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { JsonValue, KubeObject, ObjectKey } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { PassController, WatchedPasses } from './serial.ts';

// @peculiar/x509 is typed against the DOM's Crypto; node's webcrypto implements the same API.
const crypto = webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0];

/** Who the CSR controllers' commands name as their cause (kube-controller-manager's service account). */
export const certificateControllerIdentity = 'system:serviceaccount:kube-system:certificate-controller';

export const csrGroup = 'certificates.k8s.io';
export const csrCollection = { group: csrGroup, resource: 'certificatesigningrequests', namespace: '' } as const;

export const kubeletClientSignerName = 'kubernetes.io/kube-apiserver-client-kubelet';
export const kubeApiServerClientSignerName = 'kubernetes.io/kube-apiserver-client';
export const kubeletServingSignerName = 'kubernetes.io/kubelet-serving';

/** kube-controller-manager's --cluster-signing-duration default (8760h). */
export const clusterSigningDurationDefaultSeconds = 8760 * 3600;

/** The cluster CA the signer uses (kube-controller-manager's --cluster-signing-* flags). */
export interface ClusterSigning {
  /** The CA certificate, PEM. */
  readonly certificate: string;
  /** The CA private key, PEM (PKCS#8, SEC 1 or PKCS#1). */
  readonly key: string;
  /** The longest validity a signed certificate gets, in seconds. */
  readonly durationSeconds: number;
}

type Fields = Record<string, JsonValue | undefined>;

function fields(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Fields : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function csrKey(name: string): ObjectKey {
  return { ...csrCollection, name };
}

export function isCsrKey(key: ObjectKey): boolean {
  return key.group === csrGroup && key.resource === csrCollection.resource;
}

export function csrSpec(csr: KubeObject): Fields {
  return fields(csr['spec']);
}

export function csrConditions(csr: KubeObject): Fields[] {
  const conditions = fields(csr['status'])['conditions'];
  return Array.isArray(conditions) ? conditions.map(fields) : [];
}

/** GetCertApprovalCondition: whether an Approved and whether a Denied condition is present. */
export function approvalOf(csr: KubeObject): { readonly approved: boolean; readonly denied: boolean } {
  const types = csrConditions(csr).map((condition) => condition['type']);
  return { approved: types.includes('Approved'), denied: types.includes('Denied') };
}

/** HasTrueCondition: a condition of the type whose status is True (or empty). */
export function hasTrueCondition(csr: KubeObject, type: string): boolean {
  return csrConditions(csr).some((condition) => condition['type'] === type && (condition['status'] === undefined || condition['status'] === '' || condition['status'] === 'True'));
}

/** status.certificate as stored (base64 of the PEM), '' when not issued. */
export function issuedCertificate(csr: KubeObject): string {
  const certificate = fields(csr['status'])['certificate'];
  return typeof certificate === 'string' ? certificate : '';
}

/** The CSR with one more status condition (the time set as the API server sets it on an absent one). */
export function withCondition(csr: KubeObject, condition: { type: string; reason: string; message: string }, now: string): KubeObject {
  const object = structuredClone(csr) as KubeObject;
  const status = { ...fields(object['status']) };
  const conditions = Array.isArray(status['conditions']) ? [...status['conditions']] : [];
  conditions.push({ type: condition.type, status: 'True', reason: condition.reason, message: condition.message, lastUpdateTime: now, lastTransitionTime: now });
  status['conditions'] = conditions;
  object['status'] = status as JsonValue;
  return object;
}

// --- the request -------------------------------------------------------------------------------------------

/** What a signer reads from a certificate request (Go's x509.CertificateRequest fields). */
export interface CertificateRequestInfo {
  readonly commonName: string;
  readonly organization: readonly string[];
  /** The subject as Go's pkix.Name re-encodes it: one RDN per attribute type, in Go's order. */
  readonly subject: x509.JsonName;
  readonly dnsNames: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly uris: readonly string[];
  /** The request's SubjectPublicKeyInfo, DER. */
  readonly publicKey: ArrayBuffer;
}

const shortNameOids: Readonly<Record<string, string>> = {
  CN: '2.5.4.3', L: '2.5.4.7', ST: '2.5.4.8', O: '2.5.4.10', OU: '2.5.4.11', C: '2.5.4.6',
  DC: '0.9.2342.19200300.100.1.25', E: '1.2.840.113549.1.9.1', G: '2.5.4.42', I: '2.5.4.43', SN: '2.5.4.4', T: '2.5.4.12',
};

const oid = { country: '2.5.4.6', province: '2.5.4.8', locality: '2.5.4.7', street: '2.5.4.9', postalCode: '2.5.4.17', organization: '2.5.4.10', organizationalUnit: '2.5.4.11', commonName: '2.5.4.3', serialNumber: '2.5.4.5' };

/** Go's pkix.Name.ToRDNSequence order; each type's values form one RDN; CN and serialNumber keep their last value. */
const goNameOrder = [oid.country, oid.province, oid.locality, oid.street, oid.postalCode, oid.organization, oid.organizationalUnit, oid.commonName, oid.serialNumber];

function pemBlock(text: string): { type: string; der: Buffer } | undefined {
  const match = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (match === null) return undefined;
  const body = match[2]!.split(/\r?\n/).filter((line) => !line.includes(':')).join('');
  return { type: match[1]!, der: Buffer.from(body, 'base64') };
}

/** ParseCSR over spec.request (base64 of the PEM as stored); throws kube's error on a bad one. */
export function parseCertificateRequest(request: string): CertificateRequestInfo {
  const block = pemBlock(Buffer.from(request, 'base64').toString('latin1'));
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let parsed: x509.Pkcs10CertificateRequest;
  try {
    parsed = new x509.Pkcs10CertificateRequest(new Uint8Array(block.der));
  } catch (error) {
    throw new Error(`asn1: structure error: ${error instanceof Error ? error.message : String(error)}`);
  }
  const values = new Map<string, string[]>();
  for (const rdn of parsed.subjectName.toJSON()) {
    for (const [type, entries] of Object.entries(rdn)) {
      const id = shortNameOids[type] ?? type;
      values.set(id, [...(values.get(id) ?? []), ...entries]);
    }
  }
  const subject: x509.JsonName = [];
  for (const id of goNameOrder) {
    const entries = values.get(id) ?? [];
    if (entries.length === 0) continue;
    subject.push({ [id]: id === oid.commonName || id === oid.serialNumber ? [entries.at(-1)!] : entries });
  }
  const san = parsed.getExtension('2.5.29.17');
  const names = san instanceof x509.SubjectAlternativeNameExtension ? san.names.items : [];
  const ofType = (type: string): string[] => names.filter((name) => name.type === type).map((name) => name.value);
  return {
    commonName: values.get(oid.commonName)?.at(-1) ?? '',
    organization: values.get(oid.organization) ?? [],
    subject,
    dnsNames: ofType('dns'), emailAddresses: ofType('email'), ipAddresses: ofType('ip'), uris: ofType('url'),
    publicKey: parsed.publicKey.rawData,
  };
}

function sameSet(usages: readonly string[], wanted: readonly string[]): boolean {
  const set = new Set(usages);
  return set.size === wanted.length && wanted.every((usage) => set.has(usage));
}

/** Go's %v of a sorted []string. */
function goList(values: readonly string[]): string {
  return `[${[...values].sort().join(' ')}]`;
}

const kubeletClientUsages = ['digital signature', 'key encipherment', 'client auth'];
const kubeletClientUsagesNoRsa = ['digital signature', 'client auth'];
const kubeletServingUsages = ['digital signature', 'key encipherment', 'server auth'];
const kubeletServingUsagesNoRsa = ['digital signature', 'server auth'];
const systemNodesGroup = 'system:nodes';
const nodeUserPrefix = 'system:node:';

function isOnlySystemNodes(organization: readonly string[]): boolean {
  return organization.length === 1 && organization[0] === systemNodesGroup;
}

/** ValidateKubeletClientCSR: the problem, or undefined for a node client request. */
export function kubeletClientProblem(request: CertificateRequestInfo, usages: readonly string[]): string | undefined {
  if (!isOnlySystemNodes(request.organization)) return 'subject organization is not system:nodes';
  if (request.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (request.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (request.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (request.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!request.commonName.startsWith(nodeUserPrefix)) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, kubeletClientUsages) && !sameSet(usages, kubeletClientUsagesNoRsa)) return `usages did not match ${goList(kubeletClientUsages)}`;
  return undefined;
}

/** ValidateKubeletServingCSR: the problem, or undefined for a node serving request. */
export function kubeletServingProblem(request: CertificateRequestInfo, usages: readonly string[]): string | undefined {
  if (!isOnlySystemNodes(request.organization)) return 'subject organization is not system:nodes';
  if (request.dnsNames.length === 0 && request.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (request.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (request.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, kubeletServingUsages) && !sameSet(usages, kubeletServingUsagesNoRsa)) return `usages did not match ${goList(kubeletServingUsages)}`;
  if (!request.commonName.startsWith(nodeUserPrefix)) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** validAPIServerClientUsages: only digital signature, key encipherment and (required) client auth. */
export function apiServerClientProblem(usages: readonly string[]): string | undefined {
  for (const usage of usages) {
    if (usage !== 'digital signature' && usage !== 'key encipherment' && usage !== 'client auth') return `invalid usage for client certificate: ${usage}`;
  }
  return usages.includes('client auth') ? undefined : 'missing required usage for client certificate: client auth';
}

/** The signer's check (getCSRVerificationFuncForSignerName); undefined when the signer is not one signed here. */
export function signerProblem(signerName: string, request: CertificateRequestInfo, usages: readonly string[]): { readonly problem: string | undefined } | undefined {
  if (signerName === kubeletClientSignerName) return { problem: kubeletClientProblem(request, usages) };
  if (signerName === kubeletServingSignerName) return { problem: kubeletServingProblem(request, usages) };
  if (signerName === kubeApiServerClientSignerName) return { problem: apiServerClientProblem(usages) };
  return undefined;
}

// --- issuing -------------------------------------------------------------------------------------------------

const keyUsageFlags: Readonly<Record<string, number>> = {
  signing: x509.KeyUsageFlags.digitalSignature, 'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation, 'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement, 'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign, 'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly, 'decipher only': x509.KeyUsageFlags.decipherOnly,
};

/** Extended key usages in Go's x509.ExtKeyUsage order (the order kube's signer writes them). */
const extendedKeyUsages: readonly (readonly [readonly string[], string])[] = [
  [['any'], '2.5.29.37.0'],
  [['server auth'], '1.3.6.1.5.5.7.3.1'],
  [['client auth'], '1.3.6.1.5.5.7.3.2'],
  [['code signing'], '1.3.6.1.5.5.7.3.3'],
  [['email protection', 's/mime'], '1.3.6.1.5.5.7.3.4'],
  [['ipsec end system'], '1.3.6.1.5.5.7.3.5'],
  [['ipsec tunnel'], '1.3.6.1.5.5.7.3.6'],
  [['ipsec user'], '1.3.6.1.5.5.7.3.7'],
  [['timestamping'], '1.3.6.1.5.5.7.3.8'],
  [['ocsp signing'], '1.3.6.1.5.5.7.3.9'],
  [['microsoft sgc'], '1.3.6.1.4.1.311.10.3.3'],
  [['netscape sgc'], '2.16.840.1.113730.4.1'],
];

/** keyUsagesFromStrings: the KeyUsage bits and the ordered extended usages; throws on an unknown usage. */
export function keyUsagesFromStrings(usages: readonly string[]): { readonly keyUsage: number; readonly extended: readonly string[] } {
  let keyUsage = 0;
  const unrecognized: string[] = [];
  for (const usage of usages) {
    const flag = keyUsageFlags[usage];
    if (flag !== undefined) keyUsage |= flag;
    else if (!extendedKeyUsages.some(([names]) => names.includes(usage))) unrecognized.push(usage);
  }
  if (unrecognized.length > 0) throw new Error(`unrecognized usage values: [${unrecognized.map((usage) => JSON.stringify(usage)).join(' ')}]`);
  const extended = extendedKeyUsages.filter(([names]) => names.some((name) => usages.includes(name))).map(([, id]) => id);
  return { keyUsage, extended };
}

const backdateMs = 5 * 60 * 1000;
const shortMs = 8 * 3600 * 1000;
const minimumDurationMs = 10 * 60 * 1000;

/** signer.duration: the requested validity bounded by the signing duration and 10 minutes. */
export function certificateTtlMs(expirationSeconds: number | undefined, durationSeconds: number): number {
  const maximum = durationSeconds * 1000;
  if (expirationSeconds === undefined) return maximum;
  const requested = expirationSeconds * 1000;
  if (requested > maximum) return maximum;
  return Math.max(requested, minimumDurationMs);
}

/** Go's time.Time %v (UTC): 2026-01-01 00:00:00 +0000 UTC. */
function goTime(date: Date): string {
  return `${date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, '')} +0000 UTC`;
}

/** The validity PermissiveSigningPolicy gives; throws kube's errors when the CA has expired. */
export function certificateValidity(nowMs: number, ttlMs: number, caNotAfter: Date): { readonly notBefore: Date; readonly notAfter: Date } {
  const notBefore = new Date(nowMs - backdateMs);
  let notAfter = new Date(ttlMs < shortMs ? nowMs + ttlMs : nowMs + ttlMs - backdateMs);
  if (notAfter.getTime() >= caNotAfter.getTime()) notAfter = caNotAfter;
  if (notBefore.getTime() >= caNotAfter.getTime()) throw new Error(`the signer has expired: NotAfter=${goTime(caNotAfter)}`);
  if (nowMs >= caNotAfter.getTime()) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(caNotAfter)}`);
  return { notBefore, notAfter };
}

/** A loaded CA: its certificate and a webcrypto signing key with the algorithm Go would sign with. */
export interface CertificateAuthority {
  readonly certificate: x509.X509Certificate;
  readonly signingKey: webcrypto.CryptoKey;
  readonly signingAlgorithm: webcrypto.Algorithm | webcrypto.EcdsaParams;
}

const curves: Readonly<Record<string, { readonly namedCurve: string; readonly hash: string }>> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
  secp521r1: { namedCurve: 'P-521', hash: 'SHA-512' },
};

/** Loads a CA from PEM: ECDSA (P-256/384/521), RSA (PKCS#1 v1.5 with SHA-256) or Ed25519 keys, as Go signs with them. */
export async function loadCertificateAuthority(certificatePem: string, keyPem: string): Promise<CertificateAuthority> {
  const certificate = new x509.X509Certificate(certificatePem);
  const keyObject = createPrivateKey(keyPem);
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  let importAlgorithm: webcrypto.Algorithm | webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
  let signingAlgorithm: webcrypto.Algorithm | webcrypto.EcdsaParams;
  if (keyObject.asymmetricKeyType === 'ec') {
    const curve = curves[keyObject.asymmetricKeyDetails?.namedCurve ?? ''];
    if (curve === undefined) throw new Error(`unsupported CA key curve ${keyObject.asymmetricKeyDetails?.namedCurve ?? '(none)'}`);
    importAlgorithm = { name: 'ECDSA', namedCurve: curve.namedCurve } as webcrypto.EcKeyImportParams;
    signingAlgorithm = { name: 'ECDSA', hash: curve.hash } as webcrypto.EcdsaParams;
  } else if (keyObject.asymmetricKeyType === 'rsa') {
    importAlgorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as webcrypto.RsaHashedImportParams;
    signingAlgorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as webcrypto.Algorithm;
  } else if (keyObject.asymmetricKeyType === 'ed25519') {
    importAlgorithm = { name: 'Ed25519' };
    signingAlgorithm = { name: 'Ed25519' };
  } else {
    throw new Error(`unsupported CA key type ${keyObject.asymmetricKeyType ?? '(none)'}`);
  }
  const signingKey = await webcrypto.subtle.importKey('pkcs8', der, importAlgorithm, false, ['sign']);
  return { certificate, signingKey, signingAlgorithm };
}

/** What a certificate is issued for: a request's subject, SANs and key, with usages and validity. */
export interface IssueParams {
  readonly subject: x509.JsonName;
  readonly dnsNames?: readonly string[];
  readonly emailAddresses?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly uris?: readonly string[];
  /** SubjectPublicKeyInfo, DER. */
  readonly publicKey: ArrayBuffer;
  readonly usages: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** A positive random serial below 2^128 (kube's serialNumberLimit). */
function serialNumber(): string {
  return randomBytes(16).toString('hex');
}

/** PEM as Go's pem.EncodeToMemory writes it: 64-column base64, a final newline. */
export function certificatePem(der: ArrayBuffer): string {
  const body = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${body.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** CertificateAuthority.Sign with PermissiveSigningPolicy: the certificate's PEM. */
export async function issueCertificate(ca: CertificateAuthority, params: IssueParams): Promise<string> {
  const { keyUsage, extended } = keyUsagesFromStrings(params.usages);
  const extensions: x509.Extension[] = [];
  if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (extended.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension([...extended], false));
  extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
  const caKeyId = ca.certificate.getExtension('2.5.29.14');
  if (caKeyId instanceof x509.SubjectKeyIdentifierExtension) extensions.push(new x509.AuthorityKeyIdentifierExtension(caKeyId.keyId, false));
  const sans: x509.JsonGeneralName[] = [
    ...(params.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(params.emailAddresses ?? []).map((value) => ({ type: 'email' as const, value })),
    ...(params.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(params.uris ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
  // Go marks the SAN extension critical when the subject is empty (RFC 5280 4.2.1.6).
  if (sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(sans, params.subject.length === 0));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(), subject: params.subject, issuer: ca.certificate.subjectName,
    publicKey: params.publicKey, signingKey: ca.signingKey, signingAlgorithm: ca.signingAlgorithm,
    notBefore: params.notBefore, notAfter: params.notAfter, extensions,
  }, crypto);
  return certificatePem(certificate.rawData);
}

// --- the controller ------------------------------------------------------------------------------------------

function millisOf(time: string): number {
  const millis = Date.parse(time);
  if (Number.isNaN(millis)) throw new Error(`the controller clock gave ${time}, not RFC 3339`);
  return millis;
}

/**
 * One pass of a CSR controller: `handle` each request in turn until the controller stops; a
 * request that fails is logged and left for the next pass, the others go on.
 */
export async function eachCsr(context: ControllerContext, passes: WatchedPasses, handle: (csr: KubeObject) => Promise<void>, failure: string): Promise<void> {
  for (const csr of context.state.list(csrCollection).items) {
    if (passes.stopped) return;
    try {
      await handle(csr);
    } catch (error) {
      context.log(failure, { csr: csr.metadata.name, error: (error as Error).message });
    }
  }
}

export class CsrSigningController extends PassController implements Controller {
  readonly name = 'csrsigning';
  readonly #context: ControllerContext;
  protected readonly passes: WatchedPasses;
  readonly #signing: ClusterSigning;
  #authority: Promise<CertificateAuthority> | undefined;

  constructor(context: ControllerContext, signing: ClusterSigning) {
    super();
    this.#context = context;
    this.#signing = signing;
    this.passes = new WatchedPasses(context, (events) => events.some((event) => isCsrKey(event.key) && event.type !== 'DELETED'), () => this.#pass(), 'csrsigning failed; retried on the next change');
  }

  async #pass(): Promise<void> {
    await eachCsr(this.#context, this.passes, (csr) => this.#handle(csr), 'csrsigning: could not sign; retried on the next change');
  }

  async #handle(csr: KubeObject): Promise<void> {
    if (issuedCertificate(csr) !== '') return;
    const { approved, denied } = approvalOf(csr);
    if (!approved || denied || hasTrueCondition(csr, 'Failed')) return;
    const spec = csrSpec(csr);
    const signerName = typeof spec['signerName'] === 'string' ? spec['signerName'] : '';
    if (![kubeletClientSignerName, kubeletServingSignerName, kubeApiServerClientSignerName].includes(signerName)) return;
    const name = csr.metadata.name ?? '';
    let request: CertificateRequestInfo;
    try {
      request = parseCertificateRequest(typeof spec['request'] === 'string' ? spec['request'] : '');
    } catch (error) {
      throw new Error(`unable to parse csr ${JSON.stringify(name)}: ${(error as Error).message}`);
    }
    const usages = strings(spec['usages']);
    const now = this.#context.now();
    const check = signerProblem(signerName, request, usages);
    if (check === undefined) return;
    if (check.problem !== undefined) {
      const object = withCondition(csr, { type: 'Failed', reason: 'SignerValidationFailure', message: check.problem }, now);
      const result = await this.#propose(csr, object, now);
      this.#context.log('csrsigning: request failed the signer\'s validation', { csr: name, signerName, result: result.type });
      return;
    }
    this.#authority ??= loadCertificateAuthority(this.#signing.certificate, this.#signing.key);
    const authority = await this.#authority.catch((error: unknown) => {
      this.#authority = undefined;
      throw new Error(`error auto signing csr: ${(error as Error).message}`);
    });
    const expirationSeconds = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : undefined;
    const ttlMs = certificateTtlMs(expirationSeconds, this.#signing.durationSeconds);
    const validity = certificateValidity(millisOf(now), ttlMs, authority.certificate.notAfter);
    const pem = await issueCertificate(authority, { ...request, usages, ...validity });
    if (this.passes.stopped) return;
    const object = structuredClone(csr) as KubeObject;
    object['status'] = { ...fields(object['status']), certificate: Buffer.from(pem, 'utf8').toString('base64') } as JsonValue;
    const result = await this.#propose(csr, object, now);
    this.#context.log('csrsigning: issued a certificate', { csr: name, signerName, result: result.type });
  }

  #propose(csr: KubeObject, object: KubeObject, now: string) {
    return this.#context.propose({
      type: 'update', key: csrKey(csr.metadata.name ?? ''), object, at: now, by: certificateControllerIdentity,
      preconditions: { resourceVersion: csr.metadata.resourceVersion ?? '' },
    });
  }
}
