// End to end against a real `kstore server` with kubectl: a Secret of type
// kubernetes.io/service-account-token naming a ServiceAccount gets its legacy token, ca.crt,
// namespace and uid annotation from the serviceaccount-token-controller (signed with the data
// dir's pki/sa.key); the token authenticates as the account (SelfSubjectReview); once the account
// is deleted the secret is deleted and the token is refused (401). The token never appears in the
// server's output.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsRequest, readKubeconfig } from '../support/kube-client.ts';
import type { KubeconfigCredentials } from '../support/kube-client.ts';
import { KstoreProcess } from '../support/kstore-process.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const namespace = 'legacy-tokens';

const tokenSecret = `apiVersion: v1
kind: Secret
metadata:
  name: legacy-token
  namespace: ${namespace}
  annotations:
    kubernetes.io/service-account.name: legacy
type: kubernetes.io/service-account-token
`;

interface SecretJson {
  readonly metadata: { readonly annotations?: Record<string, string> };
  readonly data?: Record<string, string>;
}

let dir: TempDir | undefined;
let server: KstoreProcess | undefined;
let kubectl: Kubectl;
let admin: KubeconfigCredentials;

beforeAll(async () => {
  dir = await makeTempDir('kstore-e2e-legacy-sa-');
  server = await KstoreProcess.start({ dataDir: dir.path });
  kubectl = new Kubectl({ kubeconfig: server.kubeconfigPath, cacheDir: path.join(dir.path, 'kube-cache') });
  admin = await readKubeconfig(server.kubeconfigPath);
}, 120_000);

afterAll(async () => {
  kubectl?.stopAll();
  await server?.stop();
  await dir?.remove();
}, 60_000);

const ok = async (args: readonly string[], input?: string): Promise<string> => {
  const result = await kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, describeResult(args, result)).toBe(0);
  return result.stdout;
};

async function whoami(token: string): Promise<{ status: number; username?: string; groups?: string[] }> {
  const response = await httpsRequest(admin.server, { ca: admin.ca }, {
    method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers: { authorization: `Bearer ${token}` },
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  if (response.status !== 201) return { status: response.status };
  const userInfo = (JSON.parse(response.body) as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo;
  return { status: response.status, username: userInfo.username, groups: userInfo.groups };
}

describe('legacy service account token secrets on kstore server', () => {
  it('fills the secret, authenticates as the account, and deletes the secret with the account', async () => {
    await ok(['create', 'namespace', namespace]);
    await ok(['create', 'serviceaccount', 'legacy', '-n', namespace]);
    const accountUid = (await ok(['get', 'serviceaccount', 'legacy', '-n', namespace, '-o', 'jsonpath={.metadata.uid}'])).trim();
    expect(await ok(['apply', '-f', '-'], tokenSecret)).toContain('secret/legacy-token created');

    const secret = await waitFor(async () => {
      const result = await kubectl.run(['get', 'secret', 'legacy-token', '-n', namespace, '-o', 'json']);
      if (result.code !== 0) return undefined;
      const parsed = JSON.parse(result.stdout) as SecretJson;
      return parsed.data?.['token'] === undefined ? undefined : parsed;
    }, { timeoutMs: 30_000, description: 'data.token in the legacy token secret', diagnostics: () => server?.output() ?? '' });
    const decoded = (entry: string): string => Buffer.from(secret.data?.[entry] ?? '', 'base64').toString('utf8');
    expect(decoded('namespace')).toBe(namespace);
    expect(decoded('ca.crt').trim()).toBe(admin.ca.trim());
    expect(secret.metadata.annotations?.['kubernetes.io/service-account.uid']).toBe(accountUid);
    const token = decoded('token');

    const review = await whoami(token);
    expect(review).toMatchObject({ status: 201, username: `system:serviceaccount:${namespace}:legacy` });
    expect(review.groups).toEqual(expect.arrayContaining(['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated']));

    await ok(['delete', 'serviceaccount', 'legacy', '-n', namespace]);
    await waitFor(async () => (await kubectl.run(['get', 'secret', 'legacy-token', '-n', namespace])).stderr.includes('(NotFound)'), {
      timeoutMs: 30_000, description: 'the legacy token secret to be deleted with its account', diagnostics: () => server?.output() ?? '',
    });
    expect((await whoami(token)).status).toBe(401);
    expect(server?.output() ?? '').not.toContain(token);
  });
});
