// Owns: `kstore kubeconfig --user NAME [--group G]... [--expiration D] [--data-dir DIR]
// [--server URL] [--out FILE]`: a kubeconfig for another user, in the manner of `kubeadm kubeconfig
// user`: a fresh ECDSA P-256 key and a client certificate for it (CN=user, O=each group; usages
// digital signature, key encipherment, client auth) signed by the cluster CA of the data dir
// (deploy/pki.ts), with the validity csrsigning would give (NotBefore now-5m, NotAfter now+D-5m,
// now+D under 8h, capped at the CA's NotAfter). The server URL and cluster name come from the
// data dir's admin.kubeconfig unless --server is given. Written to --out (mode 0600, atomically)
// or to stdout. Must not: print the key anywhere but the kubeconfig it writes.
import { webcrypto } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';
import { certificateValidity, issueCertificate, loadCertificateAuthority } from '../../actors/controllers/index.ts';
import { parseGoDuration } from '../../api/index.ts';
import { kubeconfigClusterName } from '../kubeconfig.ts';
import { pkiPaths } from '../pki.ts';

export const kubeconfigUsage = `Usage: kstore kubeconfig --user <name> [flags]

Writes a kubeconfig for another user: a new key and a client certificate for it (CN=<name>,
O=<group>...) signed by the cluster CA in the data dir, like kubeadm kubeconfig user.

Flags:
  --user <name>          the user name (the certificate's CN; required)
  --group <group>        a group the user is in (the certificate's O; repeatable)
  --expiration <d>       how long the certificate is valid, e.g. 24h, 720h (default 8760h)
  --data-dir <dir>       the server's data dir, with pki/ca.crt, pki/ca.key and admin.kubeconfig
                         (default .kstore)
  --server <url>         the API server URL (default: the one in the data dir's admin.kubeconfig)
  --out <file>           write the kubeconfig here, mode 0600 (default: stdout)
  -h, --help             show this help

Examples:
  kstore kubeconfig --user alice --group developers --out alice.kubeconfig
  kstore kubeconfig --user ci --expiration 24h --server https://10.0.0.5:6443 > ci.kubeconfig
`;

export interface KubeconfigFlags {
  readonly user: string;
  readonly groups: readonly string[];
  /** Validity in milliseconds. */
  readonly expirationMs: number;
  readonly dataDir: string;
  readonly server?: string;
  readonly out?: string;
}

const defaultExpiration = '8760h';
const clientUsages = ['digital signature', 'key encipherment', 'client auth'];
const kubeconfigFileMode = 0o600;

/** Parses the command's flags; undefined for --help. Throws on a missing --user or a bad value. */
export function parseKubeconfigFlags(argv: readonly string[]): KubeconfigFlags | undefined {
  const { values, positionals } = parseArgs({
    args: [...argv], allowPositionals: true, strict: true,
    options: {
      user: { type: 'string' }, group: { type: 'string', multiple: true, default: [] }, expiration: { type: 'string', default: defaultExpiration },
      'data-dir': { type: 'string', default: '.kstore' }, server: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  if (positionals.length > 0) throw new Error(`kubeconfig: unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.user === undefined || values.user === '') throw new Error('kubeconfig: --user is required');
  const expirationMs = parseGoDuration(values.expiration);
  if (expirationMs <= 0) throw new Error(`kubeconfig: --expiration must be positive, got ${values.expiration}`);
  if (values.server !== undefined && !/^https?:\/\//.test(values.server)) throw new Error(`kubeconfig: --server must be an http(s) URL, got ${values.server}`);
  return {
    user: values.user, groups: values.group, expirationMs, dataDir: values['data-dir'],
    ...(values.server === undefined ? {} : { server: values.server }), ...(values.out === undefined ? {} : { out: values.out }),
  };
}

interface AdminCluster {
  readonly name: string;
  readonly server: string;
}

/** The current context's cluster of the data dir's admin.kubeconfig. */
async function adminCluster(dataDir: string): Promise<AdminCluster> {
  const file = path.join(dataDir, 'admin.kubeconfig');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`kubeconfig: no ${file}: give --server, or start kstore server with --data-dir ${dataDir} first`);
    throw error;
  }
  const document = (parse(text) ?? {}) as { 'current-context'?: string; contexts?: { name: string; context?: { cluster?: string } }[]; clusters?: { name: string; cluster?: { server?: string } }[] };
  const contextName = document['current-context'];
  const clusterName = document.contexts?.find((entry) => entry.name === contextName)?.context?.cluster ?? document.clusters?.[0]?.name;
  const cluster = document.clusters?.find((entry) => entry.name === clusterName);
  if (cluster?.cluster?.server === undefined) throw new Error(`kubeconfig: ${file} names no server`);
  return { name: cluster.name, server: cluster.cluster.server };
}

async function readPki(dataDir: string): Promise<{ certificate: string; key: string }> {
  const paths = pkiPaths(dataDir);
  try {
    const [certificate, key] = await Promise.all([readFile(paths.caCert, 'utf8'), readFile(paths.caKey, 'utf8')]);
    return { certificate, key };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`kubeconfig: no cluster CA in ${paths.dir}: start kstore server with --data-dir ${dataDir} first`);
    throw error;
  }
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** The kubeconfig (clientcmd v1 Config) for the flags, as YAML text. */
export async function userKubeconfig(flags: KubeconfigFlags, nowMs: number = Date.now()): Promise<string> {
  const ca = await readPki(flags.dataDir);
  const cluster = flags.server === undefined ? await adminCluster(flags.dataDir) : { name: kubeconfigClusterName, server: flags.server };
  const authority = await loadCertificateAuthority(ca.certificate, ca.key);
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const publicKey = await webcrypto.subtle.exportKey('spki', keys.publicKey);
  const privateKey = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64').match(/.{1,64}/g)!.join('\n');
  // The subject as Go's pkix.Name writes CN and O: the organizations' RDN first, then the common name.
  const subject: Record<string, string[]>[] = [...(flags.groups.length > 0 ? [{ '2.5.4.10': [...flags.groups] }] : []), { '2.5.4.3': [flags.user] }];
  const certificate = await issueCertificate(authority, {
    subject, publicKey, usages: clientUsages, ...certificateValidity(nowMs, flags.expirationMs, authority.certificate.notAfter),
  });
  const contextName = `${flags.user}@${cluster.name}`;
  return stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: cluster.name, cluster: { server: cluster.server, 'certificate-authority-data': base64(ca.certificate) } }],
    users: [{ name: flags.user, user: { 'client-certificate-data': base64(certificate), 'client-key-data': base64(`-----BEGIN PRIVATE KEY-----\n${privateKey}\n-----END PRIVATE KEY-----\n`) } }],
    contexts: [{ name: contextName, context: { cluster: cluster.name, user: flags.user } }],
    'current-context': contextName,
    preferences: {},
  });
}

/** Runs the command: the kubeconfig to --out (mode 0600) or stdout. */
export async function runKubeconfig(flags: KubeconfigFlags, stdout: NodeJS.WritableStream = process.stdout): Promise<void> {
  const text = await userKubeconfig(flags);
  if (flags.out === undefined) {
    stdout.write(text);
    return;
  }
  const temporary = `${flags.out}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: kubeconfigFileMode });
  await rename(temporary, flags.out);
}
