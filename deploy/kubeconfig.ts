// Owns: writing <dataDir>/admin.kubeconfig, the kubeconfig that lets kubectl reach this server
// as kstore-admin (system:masters) with the PKI's admin client certificate. Rewritten at every
// start so it always carries the current certificates and server URL. Mode 0600: it holds a key.
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Pki } from './pki.ts';

export const kubeconfigClusterName = 'kstore';
export const kubeconfigUserName = 'kstore-admin';
export const kubeconfigContextName = 'kstore';

const kubeconfigFileMode = 0o600;

function base64(pem: string): string {
  return Buffer.from(pem, 'utf8').toString('base64');
}

/** The kubeconfig document (clientcmd v1 Config). */
export function adminKubeconfig(serverUrl: string, pki: Pick<Pki, 'caCert' | 'adminCert' | 'adminKey'>) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: kubeconfigClusterName, cluster: { server: serverUrl, 'certificate-authority-data': base64(pki.caCert) } }],
    users: [{ name: kubeconfigUserName, user: {
      'client-certificate-data': base64(pki.adminCert), 'client-key-data': base64(pki.adminKey),
    } }],
    contexts: [{ name: kubeconfigContextName, context: { cluster: kubeconfigClusterName, user: kubeconfigUserName } }],
    'current-context': kubeconfigContextName,
    preferences: {},
  };
}

/** Writes <dataDir>/admin.kubeconfig (atomically, mode 0600) and returns its path. */
export async function writeAdminKubeconfig(dataDir: string, serverUrl: string, pki: Pki): Promise<string> {
  const file = path.join(dataDir, 'admin.kubeconfig');
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, stringify(adminKubeconfig(serverUrl, pki)), { mode: kubeconfigFileMode });
  await rename(temporary, file);
  return file;
}
