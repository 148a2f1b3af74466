// Owns: the service account signing key pair a kstore data dir keeps when the operator names
// none — <dir>/pki/sa.key (RSA 2048 private key, PKCS#8 PEM, mode 0600) and <dir>/pki/sa.pub
// (its public key, SPKI PEM), as kubeadm keeps sa.key and sa.pub — created on first start and
// reused afterwards, so tokens stay valid across restarts and every API replica of a cluster
// signs and verifies with the same key. Also the defaults `kstore server` and `cluster up` fill
// into the service account flags: kubeadm's issuer and this key pair.
import { generateKeyPair } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AuthFlags } from './auth-flags.ts';

/** kubeadm's default --service-account-issuer (the in-cluster API server's DNS name). */
export const serviceAccountIssuerDefault = 'https://kubernetes.default.svc.cluster.local';

export interface ServiceAccountKeyPaths {
  readonly privateKey: string;
  readonly publicKey: string;
}

export function serviceAccountKeyPaths(dataDir: string): ServiceAccountKeyPaths {
  const dir = path.join(dataDir, 'pki');
  return { privateKey: path.join(dir, 'sa.key'), publicKey: path.join(dir, 'sa.pub') };
}

async function exists(file: string): Promise<boolean> {
  return readFile(file).then(() => true, () => false);
}

async function writeAtomically(file: string, content: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, file);
}

/** Creates the key pair when the private key is missing; returns the paths. */
export async function ensureServiceAccountKey(dataDir: string): Promise<ServiceAccountKeyPaths> {
  const paths = serviceAccountKeyPaths(dataDir);
  if (await exists(paths.privateKey)) {
    if (!(await exists(paths.publicKey))) throw new Error(`${paths.publicKey} is missing beside ${paths.privateKey}`);
    return paths;
  }
  await mkdir(path.dirname(paths.privateKey), { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // The public key first: a crash in between leaves no private key without its public half.
  await writeAtomically(paths.publicKey, publicKey, 0o644);
  await writeAtomically(paths.privateKey, privateKey, 0o600);
  return paths;
}

/**
 * The service account flags with the data dir's defaults filled in where the operator gave
 * none: kubeadm's issuer, the data dir's signing key and its public key. Flags the operator
 * gave are kept as they are.
 */
export function withServiceAccountDefaults(flags: AuthFlags, keys: ServiceAccountKeyPaths): AuthFlags {
  const account = flags.serviceAccount;
  const issuers = account.issuers.length > 0 ? account.issuers : [serviceAccountIssuerDefault];
  const signingKeyFile = account.signingKeyFile ?? keys.privateKey;
  const keyFiles = account.keyFiles.length > 0 ? account.keyFiles : [account.signingKeyFile === undefined ? keys.publicKey : signingKeyFile];
  return {
    ...flags,
    serviceAccount: { ...account, issuers, signingKeyFile, keyFiles },
    apiAudiences: flags.apiAudiences.length > 0 ? flags.apiAudiences : issuers,
  };
}
