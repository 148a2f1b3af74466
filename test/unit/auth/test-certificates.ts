// Test certificates for the TLS authentication tests: CAs, intermediates and leaves with the
// subject, validity and extended key usage a test needs (@peculiar/x509 over node's webcrypto,
// as deploy/pki.ts issues kstore's own; that module has no knob for intermediates or dates).
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const dayMs = 24 * 3600 * 1000;

export interface Issued {
  readonly certificate: x509.X509Certificate;
  readonly keys: webcrypto.CryptoKeyPair;
  /** PEM of the certificate. */
  readonly cert: string;
  /** PEM (PKCS#8) of the private key. */
  readonly key: string;
}

export interface IssueOptions {
  readonly subject: string;
  readonly ca?: boolean;
  readonly usage?: x509.ExtendedKeyUsage;
  readonly sans?: readonly string[];
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

async function finish(certificate: x509.X509Certificate, keys: webcrypto.CryptoKeyPair): Promise<Issued> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certificate, keys, cert: certificate.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
}

/** A self-signed root CA. */
export async function createCa(subject: string): Promise<Issued> {
  const keys = await generateKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(), name: subject, keys, signingAlgorithm: algorithm,
    notBefore: new Date(Date.now() - dayMs), notAfter: new Date(Date.now() + 30 * dayMs),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return finish(certificate, keys);
}

/** A certificate `issuer` signs: an intermediate CA (`ca: true`) or a leaf (client auth unless `usage` says otherwise). */
export async function issue(issuer: Issued, options: IssueOptions): Promise<Issued> {
  const keys = await generateKeys();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(options.ca === true, undefined, true),
    await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  if (options.ca === true) {
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true));
  } else {
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true));
    extensions.push(new x509.ExtendedKeyUsageExtension([options.usage ?? x509.ExtendedKeyUsage.clientAuth]));
  }
  if (options.sans !== undefined) {
    extensions.push(new x509.SubjectAlternativeNameExtension(options.sans.map((value) => ({ type: /^[\d.]+$/.test(value) ? 'ip' : 'dns', value }))));
  }
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(), subject: options.subject, issuer: issuer.certificate.subject,
    publicKey: keys.publicKey, signingKey: issuer.keys.privateKey, signingAlgorithm: algorithm,
    notBefore: options.notBefore ?? new Date(Date.now() - dayMs), notAfter: options.notAfter ?? new Date(Date.now() + 10 * dayMs),
    extensions,
  });
  return finish(certificate, keys);
}

export { x509 };
