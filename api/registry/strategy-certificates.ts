// Owns: the create/update behaviour of certificates.k8s.io/v1 CertificateSigningRequests as
// kube-apiserver 1.33 has it: on create the requesting user's name, uid, groups and extra are
// written into spec (whatever the client sent) and status is emptied; the spec never changes
// afterwards; a write to the main resource keeps the stored status; the `approval` subresource
// changes only status.conditions (the only way to add Approved or Denied), the `status`
// subresource everything in status but those conditions (the only way to set
// status.certificate); conditions get their timestamps. Validation as kube's: spec.request must
// be a PEM CERTIFICATE REQUEST whose signature verifies, usages and signerName as kube checks
// them, expirationSeconds >= 600, the condition rules and status.certificate's PEM.
// The signing controllers are not here.
import 'reflect-metadata';
import { X509Certificate, constants, createPublicKey, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { dns1123LabelProblems, duplicate, fields, forbidden, invalid, invalidRendered, isFields, notSupported, records, required, tooLong } from './strategy-networking.ts';
import { sameJson, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

const legacyUnknownSigner = 'kubernetes.io/legacy-unknown';

/** Every KeyUsage value certificates.k8s.io/v1 accepts, sorted as kube lists them. */
export const keyUsages: readonly string[] = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature',
  'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc',
  'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];

/** Condition types that may only have status True. */
const trueOnlyConditions = new Set(['Approved', 'Denied', 'Failed']);

// --- PEM and the request's signature ---------------------------------------------------------------

interface PemBlock {
  readonly type: string;
  readonly headers: boolean;
  readonly der: Buffer;
  readonly rest: string;
}

/** Go's pem.Decode: the first well-formed block (text before it skipped), or undefined. */
function decodePem(text: string): PemBlock | undefined {
  const begin = /-----BEGIN ([^\n-]*)-----\r?\n/g;
  for (let match = begin.exec(text); match !== null; match = begin.exec(text)) {
    const type = match[1]!;
    const endMarker = `-----END ${type}-----`;
    const bodyStart = match.index + match[0].length;
    const end = text.indexOf(endMarker, bodyStart);
    if (end < 0) continue;
    const lines = text.slice(bodyStart, end).split(/\r?\n/);
    const headers = lines.some((line) => line.includes(':'));
    const body = lines.filter((line) => !line.includes(':')).join('').trim();
    if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) continue;
    return { type, headers, der: Buffer.from(body, 'base64'), rest: text.slice(end + endMarker.length) };
  }
  return undefined;
}

/** The request's certification request info, for its signature (a protected part of the parsed request). */
class ParsedRequest extends x509.Pkcs10CertificateRequest {
  get signedPart(): ArrayBuffer | undefined {
    return this.asn.certificationRequestInfoRaw;
  }
}

function hashName(algorithm: { readonly name: string; readonly hash?: { readonly name: string } }): string | null {
  return algorithm.hash === undefined ? null : algorithm.hash.name.replace('-', '').toLowerCase();
}

/** certificates.ParseCSR and CheckSignature: the problem, or undefined when the request is good. */
export function certificateRequestProblem(request: Buffer): string | undefined {
  const block = decodePem(request.toString('latin1'));
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  let parsed: ParsedRequest;
  try {
    parsed = new ParsedRequest(new Uint8Array(block.der));
  } catch {
    return 'asn1: structure error: the certificate request does not parse';
  }
  const signed = parsed.signedPart;
  const algorithm = parsed.signatureAlgorithm as unknown as { readonly name: string; readonly hash?: { readonly name: string }; readonly saltLength?: number };
  if (signed === undefined) return 'x509: cannot verify signature: the certificate request does not parse';
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(parsed.publicKey.rawData), format: 'der', type: 'spki' });
  } catch {
    return 'x509: unsupported public key algorithm';
  }
  const data = Buffer.from(signed);
  const signature = Buffer.from(parsed.signature);
  try {
    const good = algorithm.name === 'RSA-PSS'
      ? verify(hashName(algorithm), data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: algorithm.saltLength ?? constants.RSA_PSS_SALTLEN_AUTO }, signature)
      : verify(hashName(algorithm), data, key, signature);
    if (good) return undefined;
  } catch {
    return 'x509: cannot verify signature: algorithm unimplemented';
  }
  if (algorithm.name === 'ECDSA') return 'x509: ECDSA verification failure';
  if (algorithm.name === 'Ed25519') return 'x509: Ed25519 verification failure';
  return 'crypto/rsa: verification error';
}

/** validateCertificate: status.certificate holds only CERTIFICATE PEM blocks that parse, at least one. */
export function certificateProblem(certificate: Buffer): string | undefined {
  if (certificate.length === 0) return undefined;
  let text = certificate.toString('latin1');
  let blocks = 0;
  for (let block = decodePem(text); block !== undefined; block = decodePem(text)) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.headers) return 'no PEM block headers are permitted';
    blocks++;
    try {
      new X509Certificate(block.der);
    } catch (error) {
      return `x509: malformed certificate: ${error instanceof Error ? error.message : String(error)}`;
    }
    text = block.rest;
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

// --- the object's parts -------------------------------------------------------------------------------

function bytesOf(value: JsonValue | undefined): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
}

/** Go's %#v of a []byte. */
function goBytes(bytes: Buffer): string {
  return `[]byte{${[...bytes].map((byte) => `0x${byte.toString(16)}`).join(', ')}}`;
}

function statusOf(object: KubeObject): Fields {
  return fields(object['status'] as JsonValue | undefined);
}

function conditionsOf(object: KubeObject): Fields[] {
  return records(statusOf(object)['conditions']);
}

function conditionsOfType(object: KubeObject, type: string): Fields[] {
  return conditionsOf(object).filter((condition) => condition['type'] === type);
}

// --- validation -----------------------------------------------------------------------------------------

/** ValidateSignerName. */
function signerNameCauses(signerName: string): StatusCause[] {
  const at = 'spec.signerName';
  if (signerName === '') return [required(at)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalid(at, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, path] = segments as [string, string];
  const causes: StatusCause[] = [];
  if (domain.length > 253) causes.push(tooLong(at, 253));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const problems = dns1123LabelProblems(label);
    if (problems.length === 0) continue;
    causes.push(...problems.map((problem) => invalid(at, domain, `validating label ${JSON.stringify(label)}: ${problem}`)));
    break;
  }
  if (domainLabels.length < 2) causes.push(invalid(at, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of path.split('.')) {
    const problems = dns1123LabelProblems(label);
    if (problems.length === 0) continue;
    causes.push(...problems.map((problem) => invalid(at, path, `validating label ${JSON.stringify(label)}: ${problem}`)));
    break;
  }
  const pathMax = 253 - domain.length - 1;
  if (path.length > pathMax) causes.push(tooLong(at, pathMax));
  return causes;
}

/** What a stored object's existing problems allow an update to keep (kube's getValidationOptions). */
interface Allowances {
  readonly bothApprovedAndDenied: boolean;
  readonly legacySigner: boolean;
  readonly duplicateConditionTypes: boolean;
  readonly emptyConditionType: boolean;
  readonly arbitraryCertificate: boolean;
  readonly unknownUsages: boolean;
  readonly duplicateUsages: boolean;
}

function allowancesFor(object: KubeObject, old: KubeObject | undefined): Allowances {
  if (old === undefined) {
    return { bothApprovedAndDenied: false, legacySigner: false, duplicateConditionTypes: false, emptyConditionType: false, arbitraryCertificate: false, unknownUsages: false, duplicateUsages: false };
  }
  const types = conditionsOf(old).map((condition) => String(condition['type'] ?? ''));
  const usages = (Array.isArray(specOf(old)['usages']) ? specOf(old)['usages'] as JsonValue[] : []).map(String);
  const oldCertificate = bytesOf(statusOf(old)['certificate']);
  return {
    bothApprovedAndDenied: types.includes('Approved') && types.includes('Denied'),
    legacySigner: specOf(old)['signerName'] === legacyUnknownSigner,
    duplicateConditionTypes: new Set(types).size !== types.length,
    emptyConditionType: types.includes(''),
    arbitraryCertificate: bytesOf(statusOf(object)['certificate']).equals(oldCertificate) || certificateProblem(oldCertificate) !== undefined,
    unknownUsages: usages.some((usage) => !keyUsages.includes(usage)),
    duplicateUsages: new Set(usages).size !== usages.length,
  };
}

function conditionCauses(object: KubeObject, allow: Allowances): StatusCause[] {
  const at = 'status.conditions';
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(object).forEach((condition, index) => {
    const type = typeof condition['type'] === 'string' ? condition['type'] : '';
    const status = typeof condition['status'] === 'string' ? condition['status'] : '';
    if (!allow.emptyConditionType && type === '') causes.push(required(`${at}[${index}].type`));
    const allowed = trueOnlyConditions.has(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (status === '') causes.push(required(`${at}[${index}].status`));
    else if (!allowed.includes(status)) causes.push(notSupported(`${at}[${index}].status`, status, allowed));
    if (!allow.bothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) causes.push(invalid(`${at}[${index}].type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) causes.push(invalid(`${at}[${index}].type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!allow.duplicateConditionTypes) {
      if (seen.has(type)) causes.push(duplicate(`${at}[${index}].type`, type));
      seen.add(type);
    }
  });
  return causes;
}

/** validateCertificateSigningRequest. */
function requestCauses(object: KubeObject, allow: Allowances): StatusCause[] {
  const spec = specOf(object);
  const causes: StatusCause[] = [];
  const request = bytesOf(spec['request']);
  const problem = certificateRequestProblem(request);
  if (problem !== undefined) causes.push(invalidRendered('spec.request', goBytes(request), problem));
  const usages = Array.isArray(spec['usages']) ? spec['usages'].map(String) : [];
  if (usages.length === 0) causes.push(required('spec.usages'));
  if (!allow.unknownUsages) {
    usages.forEach((usage, index) => { if (!keyUsages.includes(usage)) causes.push(notSupported(`spec.usages[${index}]`, usage, keyUsages)); });
  }
  if (!allow.duplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((usage, index) => {
      if (seen.has(usage)) causes.push(duplicate(`spec.usages[${index}]`, usage));
      seen.add(usage);
    });
  }
  const signerName = typeof spec['signerName'] === 'string' ? spec['signerName'] : '';
  if (!allow.legacySigner && signerName === legacyUnknownSigner) causes.push(invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  else causes.push(...signerNameCauses(signerName));
  const expiration = spec['expirationSeconds'];
  if (typeof expiration === 'number' && expiration < 600) causes.push(invalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  causes.push(...conditionCauses(object, allow));
  if (!allow.arbitraryCertificate) {
    const certificate = certificateProblem(bytesOf(statusOf(object)['certificate']));
    if (certificate !== undefined) causes.push(invalid('status.certificate', '<certificate data>', certificate));
  }
  return causes;
}

/**
 * validateCertificateSigningRequestUpdate with the options of the path the write took: approval
 * may change Approved/Denied conditions, status may set status.certificate (once). kube appends a
 * go-cmp diff to "updates may not modify a condition"; kstore names the type only.
 */
function updateCauses(object: KubeObject, old: KubeObject, subresource: string | undefined): StatusCause[] {
  const causes = requestCauses(object, allowancesFor(object, old));
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOfType(object, type).length < conditionsOfType(old, type).length) {
      causes.push(forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
  }
  if (subresource !== 'approval') {
    for (const type of ['Approved', 'Denied']) {
      const now = conditionsOfType(object, type);
      const before = conditionsOfType(old, type);
      if (now.length > before.length) causes.push(forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(type)}`));
      else if (now.length === before.length && !sameJson(now, before)) causes.push(forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(type)}`));
    }
  }
  const certificate = bytesOf(statusOf(object)['certificate']);
  const oldCertificate = bytesOf(statusOf(old)['certificate']);
  if (!certificate.equals(oldCertificate)) {
    if (subresource !== 'status') causes.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCertificate.length > 0) causes.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return causes;
}

// --- the strategy ------------------------------------------------------------------------------------------

function formatNow(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** SetDefaults_CertificateSigningRequestCondition (status True), then populateConditionTimestamps. */
function settleConditions(object: KubeObject, old: KubeObject): void {
  const status = statusOf(object);
  if (!Array.isArray(status['conditions'])) return;
  const now = formatNow();
  const oldConditions = conditionsOf(old);
  status['conditions'] = status['conditions'].map((entry) => {
    if (!isFields(entry)) return entry;
    const condition: Fields = { ...entry };
    if (condition['status'] === undefined || condition['status'] === null || condition['status'] === '') condition['status'] = 'True';
    if (condition['lastUpdateTime'] === undefined || condition['lastUpdateTime'] === null) condition['lastUpdateTime'] = now;
    if (condition['lastTransitionTime'] === undefined || condition['lastTransitionTime'] === null) {
      const previous = oldConditions.find((candidate) => candidate['type'] === condition['type'] && candidate['status'] === condition['status']
        && candidate['lastTransitionTime'] !== undefined && candidate['lastTransitionTime'] !== null);
      condition['lastTransitionTime'] = previous?.['lastTransitionTime'] ?? now;
    }
    return condition;
  });
  object['status'] = status;
}

/** preserveConditionInstances: Approved/Denied entries keep their stored values when their count did not change. */
function preserveApprovalConditions(object: KubeObject, old: KubeObject): void {
  const conditions = conditionsOf(object);
  for (const type of ['Approved', 'Denied']) {
    const oldOnes = conditionsOfType(old, type);
    const positions = conditions.flatMap((condition, index) => (condition['type'] === type ? [index] : []));
    if (positions.length !== oldOnes.length) continue;
    positions.forEach((position, index) => { conditions[position] = oldOnes[index]!; });
  }
  if (Array.isArray(statusOf(object)['conditions'])) object['status'] = { ...statusOf(object), conditions };
}

export const certificateSigningRequestStrategy: Strategy = {
  // kube: PUT of an absent CertificateSigningRequest is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object, request) {
    const spec: Fields = { ...specOf(object) };
    delete spec['username'];
    delete spec['uid'];
    delete spec['groups'];
    delete spec['extra'];
    const user = request.user;
    if (user.name !== '') spec['username'] = user.name;
    if (user.uid !== '') spec['uid'] = user.uid;
    if (user.groups.length > 0) spec['groups'] = [...user.groups];
    if (Object.keys(user.extra).length > 0) spec['extra'] = Object.fromEntries(Object.entries(user.extra).map(([key, values]) => [key, [...values]]));
    object['spec'] = spec;
    // Users cannot create pre-approved (or issued) requests.
    object['status'] = {};
  },
  prepareForUpdate(object, old) {
    if (old['spec'] !== undefined) object['spec'] = old['spec'];
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
  },
  prepareForSubresourceUpdate(subresource, object, old) {
    if (subresource === 'approval') {
      // Only the conditions come from the request; the rest of status stays as stored.
      settleConditions(object, old);
      const conditions = statusOf(object)['conditions'];
      const status: Fields = { ...statusOf(old) };
      if (conditions === undefined) delete status['conditions'];
      else status['conditions'] = conditions;
      object['status'] = status;
    } else if (subresource === 'status') {
      preserveApprovalConditions(object, old);
      settleConditions(object, old);
    }
  },
  validateCreate: (object) => requestCauses(object, allowancesFor(object, undefined)),
  validateUpdate: updateCauses,
};
