// End-to-end with real kubectl against `kstore server` and a `kstore cluster up` cluster: a new
// namespace gets its `default` ServiceAccount and the kube-root-ca.crt ConfigMap holding the CA
// the kubeconfig trusts (the serviceaccount and root-ca-cert-publisher controllers); a pod gets
// the kube-api-access projected volume mounted at the service account path (ServiceAccount
// admission); a pod naming a missing account is refused with kube-apiserver's 403 until the
// account exists.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployments } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

interface PodJson {
  readonly spec: {
    readonly serviceAccountName: string;
    readonly volumes?: readonly { readonly name: string; readonly projected?: { readonly sources: readonly Record<string, unknown>[] } }[];
    readonly containers: readonly { readonly volumeMounts?: readonly { readonly name: string; readonly mountPath: string; readonly readOnly?: boolean }[] }[];
  };
}

const ghostPod = `apiVersion: v1
kind: Pod
metadata:
  name: ghost-pod
  namespace: team
spec:
  serviceAccountName: ghost
  containers:
  - name: main
    image: nginx:1.27
`;

for (const { name, start } of deployments) {
  describe(`service accounts with kubectl: ${name}`, () => {
    let dir: TempDir | undefined;
    let target: Target | undefined;
    let kubectl: Kubectl;

    beforeAll(async () => {
      dir = await makeTempDir('kstore-e2e-sa-');
      target = await start(dir);
      kubectl = new Kubectl({ kubeconfig: target.kubeconfig, cacheDir: path.join(dir.path, 'kube-cache') });
    }, 120_000);

    afterAll(async () => {
      kubectl?.stopAll();
      await target?.stop();
      await dir?.remove();
    }, 60_000);

    const ok = async (args: readonly string[], input?: string): Promise<string> => {
      const result = await kubectl.run(args, input === undefined ? {} : { input });
      expect(result.code, describeResult(args, result)).toBe(0);
      return result.stdout;
    };

    it('a new namespace gets the default ServiceAccount and kube-root-ca.crt with the CA the kubeconfig trusts', async () => {
      expect(await ok(['create', 'namespace', 'team'])).toContain('namespace/team created');
      const account = await waitFor(async () => {
        const result = await kubectl.run(['get', 'serviceaccounts', '-n', 'team']);
        return result.code === 0 ? parseTable(result.stdout).rows.find((row) => row['NAME'] === 'default') : undefined;
      }, { timeoutMs: 15_000, description: 'team/default ServiceAccount' });
      expect(account).toBeDefined();
      const ca = await waitFor(async () => {
        const result = await kubectl.run(['get', 'configmap', 'kube-root-ca.crt', '-n', 'team', '-o', 'jsonpath={.data.ca\\.crt}']);
        return result.code === 0 && result.stdout !== '' ? result.stdout : undefined;
      }, { timeoutMs: 15_000, description: 'team/kube-root-ca.crt' });
      expect(ca.trim()).toBe(target!.credentials.ca.trim());
    });

    it('a pod gets the kube-api-access projected volume, mounted read-only at the service account path', async () => {
      expect(await ok(['run', 'web', '-n', 'team', '--image=nginx:1.27'])).toContain('pod/web created');
      const pod = JSON.parse(await ok(['get', 'pod', 'web', '-n', 'team', '-o', 'json'])) as PodJson;
      expect(pod.spec.serviceAccountName).toBe('default');
      const volume = pod.spec.volumes?.find((item) => item.name.startsWith('kube-api-access-'));
      expect(volume?.projected?.sources.map((source) => Object.keys(source)[0])).toEqual(['serviceAccountToken', 'configMap', 'downwardAPI']);
      expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({ name: volume?.name, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true });
    });

    it('a pod naming a missing account is refused with 403 until the account exists', async () => {
      const refused = await kubectl.run(['apply', '-f', '-'], { input: ghostPod });
      expect(refused.code, describeResult(['apply'], refused)).toBe(1);
      expect(refused.stderr).toContain('pods "ghost-pod" is forbidden: error looking up service account team/ghost: serviceaccount "ghost" not found');
      expect((await kubectl.run(['get', 'pod', 'ghost-pod', '-n', 'team'])).code).toBe(1);
      expect(await ok(['create', 'serviceaccount', 'ghost', '-n', 'team'])).toContain('serviceaccount/ghost created');
      expect(await ok(['apply', '-f', '-'], ghostPod)).toContain('pod/ghost-pod created');
    });
  });
}
