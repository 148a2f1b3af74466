// `kstore kubeconfig`: flags as documented, and a kubeconfig whose client certificate (parsed) has
// the user as CN and the groups as O, is signed by the data dir's CA, lasts --expiration, and
// matches the key beside it; the server comes from admin.kubeconfig unless --server is given.
import 'reflect-metadata';
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeAdminKubeconfig } from '../../../deploy/kubeconfig.ts';
import { ensurePki } from '../../../deploy/pki.ts';
import type { Pki } from '../../../deploy/pki.ts';
import { parseKubeconfigFlags, runKubeconfig, userKubeconfig } from '../../../deploy/roles/kubeconfig.ts';

let dataDir: string;
let pki: Pki;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'kstore-kubeconfig-'));
  pki = await ensurePki(dataDir, []);
  await writeAdminKubeconfig(dataDir, 'https://127.0.0.1:7443', pki);
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

interface Document {
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { name: string; user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  'current-context': string;
}

const decode = (data: string): string => Buffer.from(data, 'base64').toString('utf8');

describe('kstore kubeconfig flags', () => {
  it('reads --user, repeated --group, --expiration, --data-dir, --server, --out, and --help', () => {
    expect(parseKubeconfigFlags(['--user', 'alice', '--group', 'devs', '--group', 'ops', '--expiration', '24h', '--data-dir', '/d', '--server', 'https://h:6443', '--out', 'a.kubeconfig']))
      .toEqual({ user: 'alice', groups: ['devs', 'ops'], expirationMs: 86_400_000, dataDir: '/d', server: 'https://h:6443', out: 'a.kubeconfig' });
    expect(parseKubeconfigFlags(['--user', 'bob'])).toEqual({ user: 'bob', groups: [], expirationMs: 8760 * 3_600_000, dataDir: '.kstore' });
    expect(parseKubeconfigFlags(['--help'])).toBeUndefined();
    expect(() => parseKubeconfigFlags([])).toThrow('kubeconfig: --user is required');
    expect(() => parseKubeconfigFlags(['--user', 'a', '--expiration', '10'])).toThrow('time: missing unit in duration "10"');
    expect(() => parseKubeconfigFlags(['--user', 'a', '--expiration=-1h'])).toThrow('--expiration must be positive');
    expect(() => parseKubeconfigFlags(['--user', 'a', '--server', 'h:6443'])).toThrow('--server must be an http(s) URL');
  });
});

describe('kstore kubeconfig', () => {
  it('writes a kubeconfig whose client certificate is the user\'s, signed by the cluster CA, for --expiration', async () => {
    const out = path.join(dataDir, 'alice.kubeconfig');
    const before = Date.now();
    await runKubeconfig({ user: 'alice', groups: ['devs', 'ops'], expirationMs: 24 * 3_600_000, dataDir, out });
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const document = parse(await readFile(out, 'utf8')) as Document;
    expect(document.clusters).toEqual([{ name: 'kstore', cluster: { server: 'https://127.0.0.1:7443', 'certificate-authority-data': Buffer.from(pki.caCert).toString('base64') } }]);
    expect(document.contexts).toEqual([{ name: 'alice@kstore', context: { cluster: 'kstore', user: 'alice' } }]);
    expect(document['current-context']).toBe('alice@kstore');
    const user = document.users[0]!;
    expect(user.name).toBe('alice');
    const certificate = new x509.X509Certificate(decode(user.user['client-certificate-data']));
    const ca = new x509.X509Certificate(pki.caCert);
    expect(certificate.subjectName.getField('CN')).toEqual(['alice']);
    expect(certificate.subjectName.getField('O')).toEqual(['devs', 'ops']);
    expect(certificate.issuer).toBe(ca.subject);
    expect(await certificate.verify({ publicKey: ca.publicKey, signatureOnly: true })).toBe(true);
    expect(certificate.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.clientAuth]);
    expect(certificate.getExtension(x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    // 24h: NotBefore backdated 5 minutes, NotAfter 24h-5m from the time of signing (whole seconds).
    const lifetime = certificate.notAfter.getTime() - certificate.notBefore.getTime();
    expect(lifetime).toBe(24 * 3_600_000);
    expect(certificate.notBefore.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 5 * 60_000);
    // The key beside it is the certificate's.
    const key = createPrivateKey(decode(user.user['client-key-data']));
    const fromKey = createPublicKey(key).export({ type: 'spki', format: 'der' });
    expect(Buffer.from(new X509Certificate(decode(user.user['client-certificate-data'])).publicKey.export({ type: 'spki', format: 'der' }))).toEqual(fromKey);
  });

  it('takes --server over admin.kubeconfig, writes to stdout without --out, and a short validity is not backdated at the end', async () => {
    const chunks: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _encoding, done) { chunks.push(chunk.toString('utf8')); done(); } });
    await runKubeconfig({ user: 'ci', groups: [], expirationMs: 3_600_000, dataDir, server: 'https://10.0.0.5:6443' }, sink);
    const document = parse(chunks.join('')) as Document;
    expect(document.clusters[0]!.cluster.server).toBe('https://10.0.0.5:6443');
    const certificate = new x509.X509Certificate(decode(document.users[0]!.user['client-certificate-data']));
    expect(certificate.subject).toBe('CN=ci');
    expect(certificate.notAfter.getTime() - certificate.notBefore.getTime()).toBe(3_600_000 + 5 * 60_000);
  });

  it('says what is missing in a data dir without a CA', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'kstore-kubeconfig-empty-'));
    try {
      await expect(userKubeconfig({ user: 'a', groups: [], expirationMs: 3_600_000, dataDir: empty })).rejects.toThrow(`kubeconfig: no cluster CA in ${path.join(empty, 'pki')}`);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
