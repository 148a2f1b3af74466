// End-to-end: the official JavaScript client, @kubernetes/client-node (1.x: node-fetch based;
// 2.x needs Node 22), in this process against `kstore server` with its admin kubeconfig: list
// namespaces, VersionApi.getCode (GET /version/), ConfigMap create, read, replace, merge patch,
// delete, its Watch class (watch=true) seeing ADDED, MODIFIED, DELETED for writes made during
// the watch, and a replace of a missing ConfigMap. Every call has a deadline, so a server that
// never answers fails the test instead of hanging it.
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, VersionApi, Watch } from '@kubernetes/client-node';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { waitFor } from '../support/wait-for.ts';
import { clientCalls } from '../support/client-calls.ts';

const namespace = 'nodeclient';
const callTimeoutMs = 15_000;

let fixture: KubectlServer | undefined;
let config: KubeConfig;
let core: CoreV1Api;

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-client-node-', namespace);
  config = new KubeConfig();
  config.loadFromFile(fixture.server.kubeconfigPath);
  core = config.makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await fixture?.stop();
});

function diagnostics(): string {
  return `server output (tail):\n${fixture?.server.output().slice(-4000) ?? ''}`;
}

const { within, apiError } = clientCalls(callTimeoutMs, diagnostics);

function configMap(name: string, data: Record<string, string>, resourceVersion?: string): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(resourceVersion === undefined ? {} : { resourceVersion }) }, data };
}

describe('@kubernetes/client-node against kstore server', () => {
  it('VersionApi.getCode() reads GET /version/', async () => {
    const version = await within('getCode', config.makeApiClient(VersionApi).getCode());
    expect(version).toMatchObject({ major: '1', gitVersion: expect.stringMatching(/^v1\.\d+\./) });
  });

  it('CoreV1Api.listNamespace() lists the system namespaces and the test namespace', async () => {
    const list = await within('listNamespace', core.listNamespace());
    expect(list.items.map((item) => item.metadata?.name)).toEqual(expect.arrayContaining(['default', 'kube-system', namespace]));
  });

  it('creates, reads, replaces, merge patches and deletes a ConfigMap', async () => {
    const name = 'node-crud';
    const created = await within('create', core.createNamespacedConfigMap({ namespace, body: configMap(name, { a: '1' }) }));
    expect(created.metadata).toMatchObject({ name, namespace, uid: expect.any(String) });
    const uid = created.metadata?.uid;
    expect((await within('read', core.readNamespacedConfigMap({ name, namespace }))).data).toEqual({ a: '1' });
    const replaced = await within('replace', core.replaceNamespacedConfigMap({ name, namespace, body: configMap(name, { a: '2' }, created.metadata?.resourceVersion) }));
    expect(replaced.metadata?.uid).toBe(uid);
    expect(replaced.data).toEqual({ a: '2' });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));
    const patched = await within('patch', core.patchNamespacedConfigMap(
      { name, namespace, body: { data: { b: '3' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)));
    expect(patched.data).toEqual({ a: '2', b: '3' });
    const deleted = await within('delete', core.deleteNamespacedConfigMap({ name, namespace }));
    expect(deleted).toMatchObject({ status: 'Success' });
    const missing = await apiError('read after delete', core.readNamespacedConfigMap({ name, namespace }));
    expect(missing.code).toBe(404);
  });

  it('Watch sees ADDED, MODIFIED, DELETED for writes made during the watch', async () => {
    const name = 'node-watched';
    const listed = await within('list', core.listNamespacedConfigMap({ namespace }));
    const events: { type: string; data: unknown }[] = [];
    let ended: unknown;
    const watch = new Watch(config);
    const controller = await within('watch', watch.watch(`/api/v1/namespaces/${namespace}/configmaps`,
      { resourceVersion: listed.metadata?.resourceVersion },
      (type: string, object: V1ConfigMap) => {
        if (object.metadata?.name === name) events.push({ type, data: object.data });
      },
      (error: unknown) => {
        ended = error ?? 'closed';
      }));
    try {
      expect(ended, 'the watch ended before any write').toBeUndefined();
      await within('create', core.createNamespacedConfigMap({ namespace, body: configMap(name, { v: '1' }) }));
      await within('patch', core.patchNamespacedConfigMap({ name, namespace, body: { data: { v: '2' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)));
      await within('delete', core.deleteNamespacedConfigMap({ name, namespace }));
      await waitFor(() => events.length >= 3 || ended !== undefined, {
        timeoutMs: 15_000, description: 'three watch events', diagnostics: () => `events: ${JSON.stringify(events)}\n${diagnostics()}`,
      });
      expect(events, `watch ended: ${String(ended)}`).toEqual([
        { type: 'ADDED', data: { v: '1' } }, { type: 'MODIFIED', data: { v: '2' } }, { type: 'DELETED', data: { v: '2' } },
      ]);
    } finally {
      controller.abort();
    }
  });

  it('replaceNamespacedConfigMap of a missing ConfigMap is an ApiException 404 NotFound', async () => {
    const name = 'node-missing';
    const outcome = await apiError('replace of a missing ConfigMap', core.replaceNamespacedConfigMap({ name, namespace, body: configMap(name, { a: '1' }) })
      .finally(async () => {
        // A server that created it instead: leave nothing behind.
        await core.deleteNamespacedConfigMap({ name, namespace }).catch(() => undefined);
      }));
    expect(outcome).toEqual({ code: 404, body: expect.objectContaining({ kind: 'Status', reason: 'NotFound', message: `configmaps "${name}" not found`, code: 404 }) });
  });
});
