// Service account key files read as kube-apiserver reads them: which PEM blocks
// --service-account-key-file takes (RSA PKCS#1/PKCS#8 private, PKIX public, certificates, SEC1 EC
// private, PKIX EC public; not a PKCS#8 EC private key, not an RSA PKCS#1 public key), which
// --service-account-signing-key-file takes, kube's key ids and algorithms, and errors that name
// the file.
import 'reflect-metadata';
import { createHash, generateKeyPairSync, webcrypto } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  keyIdOf, loadPublicKeyFiles, loadSigningKeyFile, parsePublicKeysPem, parseSigningKeyPem,
} from '../../../api/auth/service-account-keys.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const p521 = generateKeyPairSync('ec', { namedCurve: 'P-521' });

const pem = (key: KeyObject, type: 'pkcs1' | 'pkcs8' | 'sec1' | 'spki'): string => key.export({ type, format: 'pem' } as never).toString();
/** What Go computes: base64url(SHA-256(DER PKIX)) without padding. */
const expectedKid = (publicKey: KeyObject): string => createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');

let rsaCertificate = '';
beforeAll(async () => {
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  rsaCertificate = (await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01', name: 'CN=sa', notBefore: new Date(), notAfter: new Date(Date.now() + 3_600_000), keys, signingAlgorithm: algorithm,
  })).toString('pem');
});

let dir: TempDir | undefined;
afterEach(async () => {
  await dir?.remove();
  dir = undefined;
});

async function file(name: string, content: string): Promise<string> {
  dir ??= await makeTempDir('kstore-sa-keys-');
  const where = path.join(dir.path, name);
  writeFileSync(where, content);
  return where;
}

describe('key ids and algorithms', () => {
  it('computes kube keyIDFromPublicKey and the algorithm of each key type', () => {
    expect(keyIdOf(rsa.publicKey)).toBe(expectedKid(rsa.publicKey));
    expect(keyIdOf(rsa.publicKey)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const keys = parsePublicKeysPem(pem(rsa.publicKey, 'spki') + pem(p256.publicKey, 'spki') + pem(p384.publicKey, 'spki') + pem(p521.publicKey, 'spki'));
    expect(keys.map((key) => key.algorithm)).toEqual(['RS256', 'ES256', 'ES384', 'ES512']);
    expect(keys.map((key) => key.keyId)).toEqual([rsa, p256, p384, p521].map((pair) => expectedKid(pair.publicKey)));
  });
});

describe('--service-account-key-file (keyutil.ParsePublicKeysPEM)', () => {
  it('takes RSA private keys (PKCS#1, PKCS#8), PKIX public keys, SEC1 EC private keys and certificates, in file order', () => {
    const keys = parsePublicKeysPem([
      pem(rsa.privateKey, 'pkcs1'), pem(rsa.privateKey, 'pkcs8'), pem(rsa.publicKey, 'spki'),
      pem(p256.privateKey, 'sec1'), pem(p384.publicKey, 'spki'), rsaCertificate,
    ].join(''));
    expect(keys).toHaveLength(6);
    expect(keys.slice(0, 3).map((key) => key.keyId)).toEqual(Array(3).fill(expectedKid(rsa.publicKey)));
    expect(keys[3]!.keyId).toBe(expectedKid(p256.publicKey));
    expect(keys[4]!.algorithm).toBe('ES384');
    expect(keys[5]!.algorithm).toBe('RS256');
    // No private half ever leaves the parser.
    expect(keys.every((key) => key.publicKey.type === 'public')).toBe(true);
  });

  it('ignores the block type line, as kube does, and passes over blocks that hold no usable key', () => {
    const relabelled = pem(p256.publicKey, 'spki').replace(/PUBLIC KEY/g, 'SOMETHING ELSE');
    const parameters = '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n';
    const keys = parsePublicKeysPem(parameters + relabelled);
    expect(keys.map((key) => key.keyId)).toEqual([expectedKid(p256.publicKey)]);
  });

  it('refuses a PKCS#8 EC private key and an RSA PKCS#1 public key, like kube 1.33', () => {
    expect(() => parsePublicKeysPem(pem(p256.privateKey, 'pkcs8'))).toThrow('data does not contain any valid RSA or ECDSA public keys');
    expect(() => parsePublicKeysPem(pem(rsa.publicKey, 'pkcs1'))).toThrow('data does not contain any valid RSA or ECDSA public keys');
    const ed = generateKeyPairSync('ed25519');
    expect(() => parsePublicKeysPem(pem(ed.publicKey, 'spki'))).toThrow('data does not contain any valid RSA or ECDSA public keys');
  });

  it('reads several files and names the file that fails', async () => {
    const first = await file('a.pem', pem(rsa.publicKey, 'spki'));
    const second = await file('b.pem', pem(p256.privateKey, 'sec1') + pem(p521.publicKey, 'spki'));
    expect(loadPublicKeyFiles([first, second]).map((key) => key.algorithm)).toEqual(['RS256', 'ES256', 'ES512']);
    const empty = await file('empty.pem', 'no keys here\n');
    expect(() => loadPublicKeyFiles([first, empty])).toThrow(`error reading public key file ${empty}: data does not contain any valid RSA or ECDSA public keys`);
    const missing = path.join(dir!.path, 'missing.pem');
    expect(() => loadPublicKeyFiles([missing])).toThrow(`open ${missing}: no such file or directory`);
  });
});

describe('--service-account-signing-key-file (keyutil.ParsePrivateKeyPEM)', () => {
  it('takes RSA PKCS#1 and PKCS#8, EC SEC1 and PKCS#8 private keys with their kid and algorithm', () => {
    for (const [text, kid, algorithm] of [
      [pem(rsa.privateKey, 'pkcs1'), expectedKid(rsa.publicKey), 'RS256'],
      [pem(rsa.privateKey, 'pkcs8'), expectedKid(rsa.publicKey), 'RS256'],
      [pem(p256.privateKey, 'sec1'), expectedKid(p256.publicKey), 'ES256'],
      [pem(p384.privateKey, 'pkcs8'), expectedKid(p384.publicKey), 'ES384'],
      [pem(p521.privateKey, 'sec1'), expectedKid(p521.publicKey), 'ES512'],
    ] as const) {
      const key = parseSigningKeyPem(text);
      expect({ kid: key.keyId, algorithm: key.algorithm, type: key.privateKey.type }).toEqual({ kid, algorithm, type: 'private' });
    }
  });

  it('goes by the block type: a public key, or a private key under the wrong label, is no signing key', async () => {
    expect(() => parseSigningKeyPem(pem(rsa.publicKey, 'spki'))).toThrow('data does not contain a valid RSA or ECDSA private key');
    expect(() => parseSigningKeyPem(pem(rsa.privateKey, 'pkcs8').replace(/PRIVATE KEY/g, 'EC PRIVATE KEY'))).toThrow('data does not contain a valid RSA or ECDSA private key');
    const ed = generateKeyPairSync('ed25519');
    expect(() => parseSigningKeyPem(pem(ed.privateKey, 'pkcs8'))).toThrow(/unknown private key type/);
    const where = await file('public.pem', pem(rsa.publicKey, 'spki'));
    expect(() => loadSigningKeyFile(where)).toThrow(`error reading private key file ${where}: data does not contain a valid RSA or ECDSA private key`);
  });
});
