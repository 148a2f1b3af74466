// ServiceAccount admission on pod creates over the API harness (whose namespaces have their
// `default` account, as the serviceaccount controller makes): the account must exist (403 as
// kube-apiserver words it), the projected kube-api-access volume is added and mounted unless
// automount is off, imagePullSecrets come from the account, mountable-secret enforcement, and a
// missing namespace still answers 404 first.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness(['default', 'apps']);
});
afterEach(async () => {
  await harness.close();
});

const pods = '/api/v1/namespaces/apps/pods';
const accounts = '/api/v1/namespaces/apps/serviceaccounts';
const mountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

function pod(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], ...spec } };
}

interface PodBody {
  spec: {
    serviceAccountName: string;
    volumes?: { name: string; projected?: { defaultMode: number; sources: unknown[] } }[];
    containers: { name: string; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] }[];
    initContainers?: { name: string; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] }[];
    imagePullSecrets?: { name: string }[];
  };
}

describe('ServiceAccount admission', () => {
  it('mounts the kube-api-access projected volume in every container and init container', async () => {
    const response = await harness.request('POST', pods, pod('web', { initContainers: [{ name: 'init', image: 'busybox:1.36' }] }));
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json<PodBody>();
    expect(body.spec.serviceAccountName).toBe('default');
    const volume = body.spec.volumes?.find((item) => item.name.startsWith('kube-api-access-'));
    expect(volume?.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(volume?.projected).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    for (const container of [...body.spec.containers, ...(body.spec.initContainers ?? [])]) {
      expect(container.volumeMounts).toContainEqual({ name: volume?.name, readOnly: true, mountPath });
    }
  });

  it('a container that mounts something at the path keeps it; automountServiceAccountToken=false on the pod or the account mounts nothing; the pod\'s true wins', async () => {
    const own = await harness.request('POST', pods, pod('own', {
      containers: [{ name: 'main', image: 'nginx:1.27', volumeMounts: [{ name: 'mine', mountPath }] }],
      volumes: [{ name: 'mine', emptyDir: {} }],
    }));
    expect(own.statusCode, own.body).toBe(201);
    expect(own.json<PodBody>().spec.volumes?.map((item) => item.name)).toEqual(['mine']);
    expect(own.json<PodBody>().spec.containers[0]?.volumeMounts).toEqual([{ name: 'mine', mountPath }]);

    const off = await harness.request('POST', pods, pod('off', { automountServiceAccountToken: false }));
    expect(off.statusCode, off.body).toBe(201);
    expect(off.json<PodBody>().spec.volumes).toBeUndefined();

    expect((await harness.request('POST', accounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet' }, automountServiceAccountToken: false })).statusCode).toBe(201);
    const quiet = await harness.request('POST', pods, pod('quiet', { serviceAccountName: 'quiet' }));
    expect(quiet.statusCode, quiet.body).toBe(201);
    expect(quiet.json<PodBody>().spec.volumes).toBeUndefined();
    const insists = await harness.request('POST', pods, pod('insists', { serviceAccountName: 'quiet', automountServiceAccountToken: true }));
    expect(insists.json<PodBody>().spec.volumes?.[0]?.name).toMatch(/^kube-api-access-/);
  });

  it('a missing service account is 403, also for a dry run, and nothing is stored', async () => {
    for (const query of ['', '?dryRun=All']) {
      const response = await harness.request('POST', `${pods}${query}`, pod('orphan', { serviceAccountName: 'ghost' }));
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json()).toMatchObject({
        kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403,
        message: 'pods "orphan" is forbidden: error looking up service account apps/ghost: serviceaccount "ghost" not found',
      });
    }
    expect((await harness.request('GET', `${pods}/orphan`)).statusCode).toBe(404);
  });

  it('without a default account the create waits for it, then fails with 403', async () => {
    expect((await harness.request('DELETE', `${accounts}/default`)).statusCode).toBe(200);
    const refused = await harness.request('POST', pods, pod('early'));
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().message).toBe('pods "early" is forbidden: error looking up service account apps/default: serviceaccount "default" not found');
    // Created while a pod create waits: the create goes through.
    const waiting = harness.request('POST', pods, pod('patient'));
    expect((await harness.request('POST', accounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } })).statusCode).toBe(201);
    expect((await waiting).statusCode).toBe(201);
  });

  it('imagePullSecrets come from the account when the pod has none', async () => {
    expect((await harness.request('POST', accounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'puller' }, imagePullSecrets: [{ name: 'registry' }] })).statusCode).toBe(201);
    const inherited = await harness.request('POST', pods, pod('inherits', { serviceAccountName: 'puller' }));
    expect(inherited.json<PodBody>().spec.imagePullSecrets).toEqual([{ name: 'registry' }]);
    const own = await harness.request('POST', pods, pod('keeps', { serviceAccountName: 'puller', imagePullSecrets: [{ name: 'mine' }] }));
    expect(own.json<PodBody>().spec.imagePullSecrets).toEqual([{ name: 'mine' }]);
  });

  it('kubernetes.io/enforce-mountable-secrets=true limits the secrets a pod may use to the account\'s', async () => {
    expect((await harness.request('POST', accounts, {
      apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'strict', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'allowed' }],
    })).statusCode).toBe(201);
    const allowed = await harness.request('POST', pods, pod('allowed', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }] }));
    expect(allowed.statusCode, allowed.body).toBe(201);
    const volume = await harness.request('POST', pods, pod('volume', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] }));
    expect(volume.statusCode).toBe(403);
    expect(volume.json().message).toBe('pods "volume" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret');
    const env = await harness.request('POST', pods, pod('env', {
      serviceAccountName: 'strict',
      containers: [{ name: 'main', image: 'nginx:1.27', env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'other', key: 'p' } } }] }],
    }));
    expect(env.statusCode).toBe(403);
    expect(env.json().message).toContain('container main with envVar PASSWORD referencing secret.secretName="other" is not allowed');
  });

  it('a missing namespace is still 404 (NamespaceLifecycle comes first); mirror pods are left alone', async () => {
    const missing = await harness.request('POST', '/api/v1/namespaces/nowhere/pods', pod('lost'));
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('namespaces "nowhere" not found');
    const mirror = await harness.request('POST', pods, pod('static', {}, { annotations: { 'kubernetes.io/config.mirror': 'abc' } }));
    expect(mirror.statusCode, mirror.body).toBe(201);
    expect(mirror.json<PodBody>().spec.volumes).toBeUndefined();
  });
});
