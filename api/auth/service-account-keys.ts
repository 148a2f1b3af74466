// Owns: the keys of service account tokens, read from PEM files as kube-apiserver reads them.
// --service-account-key-file (repeatable) holds verification keys: each PEM block of each file
// is tried, whatever its type line says, as kube's keyutil.ParsePublicKeysPEM does — an RSA
// private key (PKCS#1 or PKCS#8), an RSA public key (PKIX) or certificate, an ECDSA private key
// (SEC1 only: kube does not take a PKCS#8 EC key here) and an ECDSA public key (PKIX) or
// certificate; other blocks are passed over, and a file without any key is an error naming it.
// --service-account-signing-key-file holds one private key, found as keyutil.ParsePrivateKeyPEM
// finds it: the first "RSA PRIVATE KEY" (PKCS#1), "EC PRIVATE KEY" (SEC1) or "PRIVATE KEY"
// (PKCS#8) block that parses. Every key gets kube's key id (keyIDFromPublicKey: unpadded
// base64url of the SHA-256 of its DER PKIX public key) and its JWS algorithm (RS256 for RSA,
// ES256/ES384/ES512 by curve), so tokens, verification and the JWKS agree. Parsing DER is left
// to node:crypto; signing and verifying to jose (service-account-token.ts).
import { createHash, createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The JWS algorithms kube signs service account tokens with. */
export type ServiceAccountSigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

/** One verification key: the public half only, with kube's key id and algorithm. */
export interface ServiceAccountPublicKey {
  readonly keyId: string;
  readonly algorithm: ServiceAccountSigningAlgorithm;
  readonly publicKey: KeyObject;
}

/** The key tokens are signed with; its public half verifies them. */
export interface ServiceAccountSigningKey extends ServiceAccountPublicKey {
  readonly privateKey: KeyObject;
}

/** ECDSA curves kube signs with (node's names), by JWS algorithm. */
const curveAlgorithms: Readonly<Record<string, ServiceAccountSigningAlgorithm>> = {
  prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512',
};

/** The JWS algorithm kube uses for a public or private key, or undefined for other keys. */
export function algorithmOf(key: KeyObject): ServiceAccountSigningAlgorithm | undefined {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') return curveAlgorithms[key.asymmetricKeyDetails?.namedCurve ?? ''];
  return undefined;
}

/** kube's keyIDFromPublicKey: base64url (no padding) of SHA-256 over the DER PKIX public key. */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

interface PemBlock {
  readonly type: string;
  readonly bytes: Buffer;
}

/** The PEM blocks of `data` in order (headers such as Proc-Type are skipped, as encoding/pem does). */
export function pemBlocks(data: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  const pattern = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (const match of data.matchAll(pattern)) {
    const lines = (match[2] ?? '').split(/\r?\n/).filter((line) => !line.includes(':'));
    blocks.push({ type: match[1] ?? '', bytes: Buffer.from(lines.join('').replace(/\s+/g, ''), 'base64') });
  }
  return blocks;
}

function attempt<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}

/** The length of the DER element at `at` (header and contents), or undefined when malformed. */
function derElementLength(der: Buffer, at: number): number | undefined {
  const first = der[at + 1];
  if (first === undefined) return undefined;
  if (first < 0x80) return 2 + first;
  const octets = first & 0x7f;
  if (octets === 0 || octets > 4 || at + 2 + octets > der.length) return undefined;
  let length = 0;
  for (let index = 0; index < octets; index++) length = length * 256 + der[at + 2 + index]!;
  return 2 + octets + length;
}

/**
 * Which private key syntax a DER SEQUENCE is, told by its second element: an INTEGER (PKCS#1's
 * modulus), an OCTET STRING (SEC1's private key) or a SEQUENCE (PKCS#8's algorithm). OpenSSL's
 * decoder takes PKCS#8 for either of the others; Go's parsers, which kube uses, do not.
 */
function privateKeySyntax(der: Buffer): 'pkcs1' | 'pkcs8' | 'sec1' | undefined {
  if (der[0] !== 0x30) return undefined;
  if (derElementLength(der, 0) === undefined) return undefined;
  const contentStart = 2 + (der[1]! < 0x80 ? 0 : der[1]! & 0x7f);
  const version = derElementLength(der, contentStart);
  if (der[contentStart] !== 0x02 || version === undefined) return undefined;
  const second = der[contentStart + version];
  return second === 0x02 ? 'pkcs1' : second === 0x04 ? 'sec1' : second === 0x30 ? 'pkcs8' : undefined;
}

function privateDer(bytes: Buffer, type: 'pkcs1' | 'pkcs8' | 'sec1'): KeyObject | undefined {
  if (privateKeySyntax(bytes) !== type) return undefined;
  return attempt(() => createPrivateKey({ key: bytes, format: 'der', type }));
}

/** A PKIX public key, else the public key of a certificate (keyutil's parseRSAPublicKey/parseECPublicKey). */
function pkixOrCertificateKey(bytes: Buffer): KeyObject | undefined {
  return attempt(() => createPublicKey({ key: bytes, format: 'der', type: 'spki' })) ?? attempt(() => new X509Certificate(bytes).publicKey);
}

function ofType(key: KeyObject | undefined, type: 'rsa' | 'ec'): KeyObject | undefined {
  return key !== undefined && key.asymmetricKeyType === type ? key : undefined;
}

/** The public key one PEM block yields as a verification key, in keyutil's order of attempts. */
function blockPublicKey(bytes: Buffer): KeyObject | undefined {
  const rsaPrivate = ofType(privateDer(bytes, 'pkcs1') ?? privateDer(bytes, 'pkcs8'), 'rsa');
  if (rsaPrivate !== undefined) return createPublicKey(rsaPrivate);
  const pkix = pkixOrCertificateKey(bytes);
  if (ofType(pkix, 'rsa') !== undefined) return pkix;
  const ecPrivate = ofType(privateDer(bytes, 'sec1'), 'ec');
  if (ecPrivate !== undefined) return createPublicKey(ecPrivate);
  return ofType(pkix, 'ec');
}

function publicKeyEntry(publicKey: KeyObject): ServiceAccountPublicKey | undefined {
  const algorithm = algorithmOf(publicKey);
  // An ECDSA key on a curve kube cannot sign or verify with (P-224) verifies nothing.
  return algorithm === undefined ? undefined : { keyId: keyIdOf(publicKey), algorithm, publicKey };
}

/** keyutil.ParsePublicKeysPEM: every RSA/ECDSA key of the PEM data; throws when there is none. */
export function parsePublicKeysPem(data: string | Buffer): ServiceAccountPublicKey[] {
  const keys: ServiceAccountPublicKey[] = [];
  for (const block of pemBlocks(data.toString())) {
    const publicKey = blockPublicKey(block.bytes);
    const entry = publicKey === undefined ? undefined : publicKeyEntry(publicKey);
    if (entry !== undefined) keys.push(entry);
  }
  if (keys.length === 0) throw new Error('data does not contain any valid RSA or ECDSA public keys');
  return keys;
}

const privateBlockTypes: Readonly<Record<string, 'pkcs1' | 'pkcs8' | 'sec1'>> = {
  'RSA PRIVATE KEY': 'pkcs1', 'EC PRIVATE KEY': 'sec1', 'PRIVATE KEY': 'pkcs8',
};

/** keyutil.ParsePrivateKeyPEM, then kube's signer: the first private key block that parses, RSA or ECDSA on P-256/384/521. */
export function parseSigningKeyPem(data: string | Buffer): ServiceAccountSigningKey {
  for (const block of pemBlocks(data.toString())) {
    const type = privateBlockTypes[block.type];
    const privateKey = type === undefined ? undefined : privateDer(block.bytes, type);
    if (privateKey === undefined) continue;
    const kind = privateKey.asymmetricKeyType;
    if (kind !== 'rsa' && kind !== 'ec') throw new Error(`unknown private key type ${kind ?? 'unknown'}, must be RSA or ECDSA`);
    const algorithm = algorithmOf(privateKey);
    if (algorithm === undefined) throw new Error('could not generate signer for ECDSA keypair: unknown private key curve, must be 256, 384, or 521');
    const publicKey = createPublicKey(privateKey);
    return { keyId: keyIdOf(publicKey), algorithm, publicKey, privateKey };
  }
  throw new Error('data does not contain a valid RSA or ECDSA private key');
}

/** What reading a file failed with, worded as Go's os.ReadFile words it. */
function readFailure(file: string, error: unknown): Error {
  const code = (error as { code?: string }).code;
  if (code === 'ENOENT') return new Error(`open ${file}: no such file or directory`);
  if (code === 'EACCES') return new Error(`open ${file}: permission denied`);
  if (code === 'EISDIR') return new Error(`read ${file}: is a directory`);
  return new Error(`open ${file}: ${error instanceof Error ? error.message : String(error)}`);
}

function readKeyFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw readFailure(file, error);
  }
}

/** --service-account-key-file (each file in order, keys in file order); errors name the file. */
export function loadPublicKeyFiles(files: readonly string[]): ServiceAccountPublicKey[] {
  return files.flatMap((file) => {
    const data = readKeyFile(file);
    try {
      return parsePublicKeysPem(data);
    } catch (error) {
      throw new Error(`error reading public key file ${file}: ${(error as Error).message}`);
    }
  });
}

/** --service-account-signing-key-file; errors name the file. */
export function loadSigningKeyFile(file: string): ServiceAccountSigningKey {
  const data = readKeyFile(file);
  try {
    return parseSigningKeyPem(data);
  } catch (error) {
    throw new Error(`error reading private key file ${file}: ${(error as Error).message}`);
  }
}

/** The verification key of a signing key (what a key file holding the same key would give). */
export function publicKeyOf(key: ServiceAccountSigningKey): ServiceAccountPublicKey {
  return { keyId: key.keyId, algorithm: key.algorithm, publicKey: key.publicKey };
}
