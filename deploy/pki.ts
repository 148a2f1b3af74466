// Owns: the server's PKI on disk under <dataDir>/pki: a CA, the HTTPS serving certificate it
// signs, and the admin client certificate (CN kstore-admin, O system:masters). Created on first
// start and reused afterwards; a leaf certificate is re-issued when it was not signed by the
// current CA, is about to expire, or (serving) its SANs differ from the ones requested.
// Keys are ECDSA P-256 in PKCS#8 PEM, mode 0600. Uses @peculiar/x509 over node's webcrypto,
// because node:crypto can parse certificates but not issue them. @peculiar/x509's dependency
// tsyringe needs the Reflect metadata polyfill, so `reflect-metadata` is imported first.
import 'reflect-metadata';
import { webcrypto, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import * as x509 from '@peculiar/x509';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

// @peculiar/x509 is typed against the DOM's Crypto; node's webcrypto implements the same API.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export interface PkiPaths {
  readonly dir: string;
  readonly caCert: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
}

export interface Pki {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly paths: PkiPaths;
}

/** ECDSA P-256: small keys, fast handshakes, supported by Go's crypto/tls (kubectl) and node. */
const keyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;

const dayMs = 24 * 60 * 60 * 1000;
/** The CA outlives many leaf renewals; kubeadm uses 10 years too. */
const caValidityDays = 3650;
/** Leaf certificates last a year (kubeadm's default) and are re-issued on a start near expiry. */
const leafValidityDays = 365;
/** A leaf certificate that expires within this window is re-issued at start. */
const renewBeforeDays = 30;
/** notBefore is backdated so a client whose clock lags a little still accepts the certificate. */
const clockSkewAllowanceMs = 60 * 60 * 1000;

export const adminUser = 'kstore-admin';
export const adminGroup = 'system:masters';
export const defaultSans: readonly string[] = ['127.0.0.1', '::1', 'localhost'];

const keyFileMode = 0o600;
const certificateFileMode = 0o644;
const pkiDirMode = 0o700;

export function pkiPaths(dataDir: string): PkiPaths {
  const dir = path.join(dataDir, 'pki');
  return {
    dir, caCert: path.join(dir, 'ca.crt'), caKey: path.join(dir, 'ca.key'),
    serverCert: path.join(dir, 'server.crt'), serverKey: path.join(dir, 'server.key'),
    adminCert: path.join(dir, 'admin.crt'), adminKey: path.join(dir, 'admin.key'),
  };
}

interface Issued {
  readonly certificate: x509.X509Certificate;
  readonly keys: CryptoKeyPair;
}

/** A positive random 128-bit serial number (RFC 5280 4.1.2.2: unique per CA, at most 20 octets). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - clockSkewAllowanceMs), notAfter: new Date(now + days * dayMs) };
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(keyAlgorithm, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

async function createCa(): Promise<Issued> {
  const keys = await generateKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(), name: 'CN=kstore-ca', keys, signingAlgorithm, ...validity(caValidityDays),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificate, keys };
}

interface LeafRequest {
  readonly subject: string;
  readonly usage: x509.ExtendedKeyUsage;
  readonly sans?: readonly string[];
}

/** IP addresses become IP SANs, everything else DNS SANs. */
function generalNames(sans: readonly string[]): x509.JsonGeneralName[] {
  return sans.map((san) => ({ type: isIP(san) === 0 ? 'dns' : 'ip', value: san }));
}

async function issueLeaf(ca: Issued, request: LeafRequest): Promise<Issued> {
  const keys = await generateKeys();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([request.usage]),
    await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
  ];
  if (request.sans !== undefined) extensions.push(new x509.SubjectAlternativeNameExtension(generalNames(request.sans)));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(), subject: request.subject, issuer: ca.certificate.subject,
    publicKey: keys.publicKey, signingKey: ca.keys.privateKey, signingAlgorithm, ...validity(leafValidityDays), extensions,
  });
  return { certificate, keys };
}

async function privateKeyPem(keys: CryptoKeyPair): Promise<string> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
}

async function importKeys(certificate: x509.X509Certificate, keyPem: string): Promise<CryptoKeyPair> {
  const privateKey = await webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPem), keyAlgorithm, true, ['sign']);
  const publicKey = await certificate.publicKey.export(keyAlgorithm, ['verify']);
  return { privateKey, publicKey } as CryptoKeyPair;
}

/** Writes through a temporary file and a rename, so a crash never leaves half a key. */
async function writeAtomically(file: string, content: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, file);
}

async function saveIssued(issued: Issued, certFile: string, keyFile: string): Promise<void> {
  await writeAtomically(keyFile, await privateKeyPem(issued.keys), keyFileMode);
  await writeAtomically(certFile, issued.certificate.toString('pem'), certificateFileMode);
}

async function loadIssued(certFile: string, keyFile: string): Promise<Issued | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    const certificate = new x509.X509Certificate(certPem);
    return { certificate, keys: await importKeys(certificate, keyPem) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The SANs a certificate holds, normalised for comparison. */
export function certificateSans(certificate: x509.X509Certificate): string[] {
  const extension = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  return normaliseSans(extension?.names.items.map((name) => name.value) ?? []);
}

function normaliseSans(sans: readonly string[]): string[] {
  return [...new Set(sans.map((san) => san.trim().toLowerCase()).filter((san) => san !== ''))].sort();
}

async function isUsableLeaf(leaf: Issued, ca: Issued, sans: readonly string[] | undefined): Promise<boolean> {
  if (leaf.certificate.issuer !== ca.certificate.subject) return false;
  if (!(await leaf.certificate.verify({ publicKey: ca.certificate.publicKey, signatureOnly: true }))) return false;
  if (leaf.certificate.notAfter.getTime() - Date.now() < renewBeforeDays * dayMs) return false;
  if (sans === undefined) return true;
  return JSON.stringify(certificateSans(leaf.certificate)) === JSON.stringify(normaliseSans(sans));
}

async function ensureCa(paths: PkiPaths): Promise<Issued> {
  const existing = await loadIssued(paths.caCert, paths.caKey);
  if (existing !== undefined && existing.certificate.notAfter.getTime() > Date.now()) return existing;
  const ca = await createCa();
  await saveIssued(ca, paths.caCert, paths.caKey);
  return ca;
}

async function ensureLeaf(ca: Issued, request: LeafRequest, certFile: string, keyFile: string): Promise<Issued> {
  const existing = await loadIssued(certFile, keyFile);
  if (existing !== undefined && await isUsableLeaf(existing, ca, request.sans)) return existing;
  const leaf = await issueLeaf(ca, request);
  await saveIssued(leaf, certFile, keyFile);
  return leaf;
}

/**
 * Creates (first start) or loads (later starts) the PKI. `extraSans` are added to 127.0.0.1,
 * ::1 and localhost; IP addresses become IP SANs, other names DNS SANs.
 */
export async function ensurePki(dataDir: string, extraSans: readonly string[]): Promise<Pki> {
  const paths = pkiPaths(dataDir);
  await mkdir(paths.dir, { recursive: true, mode: pkiDirMode });
  const ca = await ensureCa(paths);
  const sans = normaliseSans([...defaultSans, ...extraSans]);
  const server = await ensureLeaf(ca, { subject: 'CN=kstore', usage: x509.ExtendedKeyUsage.serverAuth, sans },
    paths.serverCert, paths.serverKey);
  const admin = await ensureLeaf(ca, { subject: `CN=${adminUser}, O=${adminGroup}`, usage: x509.ExtendedKeyUsage.clientAuth },
    paths.adminCert, paths.adminKey);
  return {
    caCert: ca.certificate.toString('pem'),
    serverCert: server.certificate.toString('pem'), serverKey: await privateKeyPem(server.keys),
    adminCert: admin.certificate.toString('pem'), adminKey: await privateKeyPem(admin.keys),
    paths,
  };
}

/** Issues a client certificate from the PKI's CA (tests and future CSR signing); not saved. */
export async function issueClientCertificate(
  dataDir: string, user: string, groups: readonly string[],
): Promise<{ readonly cert: string; readonly key: string }> {
  const paths = pkiPaths(dataDir);
  const ca = await loadIssued(paths.caCert, paths.caKey);
  if (ca === undefined) throw new Error(`no CA in ${paths.dir}: run ensurePki first`);
  const subject = [`CN=${user}`, ...groups.map((group) => `O=${group}`)].join(', ');
  const leaf = await issueLeaf(ca, { subject, usage: x509.ExtendedKeyUsage.clientAuth });
  return { cert: leaf.certificate.toString('pem'), key: await privateKeyPem(leaf.keys) };
}
