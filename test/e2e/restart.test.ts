// End-to-end durability: acknowledged writes survive a clean restart (SIGTERM) and a crash
// (SIGKILL while writes are in flight), and a restarted server keeps its CA and admin
// credentials. Each test starts its own server(s) on its own data directory; writes go over
// HTTPS with the admin client certificate from the kubeconfig.
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KstoreProcess } from '../support/kstore-process.ts';
import { jsonBody, KubeClient, readKubeconfig } from '../support/kube-client.ts';
import type { HttpResponse } from '../support/kube-client.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const namespace = 'durable';
const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;
/** Configmaps created concurrently before the clean restart. */
const concurrentCreates = 50;
/** Concurrent writers in the crash test, and how many acknowledged writes to see before the kill. */
const crashWriters = 8;
const acknowledgedBeforeKill = 40;

interface StoredObject {
  metadata?: { name?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

interface ObjectList {
  items?: StoredObject[];
}

const servers: KstoreProcess[] = [];
const dirs: TempDir[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.kill();
  for (const dir of dirs.splice(0)) await dir.remove();
});

async function newDataDir(): Promise<string> {
  const dir = await makeTempDir('kstore-e2e-restart-');
  dirs.push(dir);
  return path.join(dir.path, 'data');
}

async function start(dataDir: string, port?: number): Promise<KstoreProcess> {
  const server = await KstoreProcess.start(port === undefined ? { dataDir } : { dataDir, port });
  servers.push(server);
  return server;
}

function describeResponse(response: HttpResponse): string {
  return `HTTP ${response.status}\n${response.body.slice(0, 2000)}`;
}

function configMap(name: string, value: string): StoredObject & Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } };
}

async function createNamespace(client: KubeClient): Promise<void> {
  const response = await client.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  expect(response.status, describeResponse(response)).toBe(201);
}

/** name → resourceVersion of every configmap the test wrote in the namespace, and name → data (kube-root-ca.crt is the root CA publisher's). */
async function storedConfigMaps(client: KubeClient): Promise<{ versions: Map<string, string>; data: Map<string, Record<string, string>> }> {
  const response = await client.get(configMaps);
  expect(response.status, describeResponse(response)).toBe(200);
  const versions = new Map<string, string>();
  const data = new Map<string, Record<string, string>>();
  for (const item of jsonBody<ObjectList>(response).items ?? []) {
    const name = item.metadata?.name ?? '';
    if (name === 'kube-root-ca.crt') continue;
    versions.set(name, item.metadata?.resourceVersion ?? '');
    data.set(name, item.data ?? {});
  }
  return { versions, data };
}

/** Asserts that every acknowledged name is stored with the acknowledged resourceVersion. */
function expectAcknowledgedPresent(acknowledged: ReadonlyMap<string, string>, stored: ReadonlyMap<string, string>): void {
  const missing = [...acknowledged.keys()].filter((name) => !stored.has(name));
  expect(missing, `acknowledged writes missing after restart`).toEqual([]);
  const changed = [...acknowledged].filter(([name, version]) => stored.get(name) !== version)
    .map(([name, version]) => `${name}: acknowledged ${version}, stored ${stored.get(name) ?? '-'}`);
  expect(changed, 'resourceVersions changed by the restart').toEqual([]);
}

function numericVersions(versions: Iterable<string>): bigint[] {
  return [...versions].map((version) => {
    expect(version).toMatch(/^\d+$/);
    return BigInt(version);
  });
}

describe('durability across restarts', () => {
  it('keeps every acknowledged configmap with its resourceVersion across a SIGTERM restart on the same data dir', async () => {
    const dataDir = await newDataDir();
    const first = await start(dataDir);
    const client = await KubeClient.fromKubeconfig(first.kubeconfigPath);
    await createNamespace(client);

    const responses = await Promise.all(Array.from({ length: concurrentCreates }, (_, index) =>
      client.post(configMaps, configMap(`cm-${index}`, `value-${index}`))));
    const acknowledged = new Map<string, string>();
    for (const response of responses) {
      expect(response.status, describeResponse(response)).toBe(201);
      const object = jsonBody<StoredObject>(response);
      acknowledged.set(object.metadata?.name ?? '', object.metadata?.resourceVersion ?? '');
    }
    expect(acknowledged.size).toBe(concurrentCreates);
    expect(new Set(acknowledged.values()).size, 'every create has its own resourceVersion').toBe(concurrentCreates);

    const exit = await first.stop({ signal: 'SIGTERM' });
    expect(exit, first.output()).toEqual({ code: 0, signal: null });
    expect(first.stdout()).toMatch(/^kstore stopped$/m);

    const second = await start(dataDir);
    const restartedClient = await KubeClient.fromKubeconfig(second.kubeconfigPath);
    const stored = await storedConfigMaps(restartedClient);
    expectAcknowledgedPresent(acknowledged, stored.versions);
    expect(stored.versions.size).toBe(concurrentCreates);
    for (let index = 0; index < concurrentCreates; index++) expect(stored.data.get(`cm-${index}`)).toEqual({ value: `value-${index}` });

    // The revision continues after the restart: a new write is newer than every earlier one.
    const after = await restartedClient.post(configMaps, configMap('after-restart', 'x'));
    expect(after.status, describeResponse(after)).toBe(201);
    const newest = numericVersions([jsonBody<StoredObject>(after).metadata?.resourceVersion ?? ''])[0] ?? 0n;
    for (const version of numericVersions(acknowledged.values())) expect(newest).toBeGreaterThan(version);
  });

  it('keeps every write that got a 2xx response across a SIGKILL in the middle of a stream of writes', async () => {
    const dataDir = await newDataDir();
    const first = await start(dataDir);
    const client = await KubeClient.fromKubeconfig(first.kubeconfigPath);
    await createNamespace(client);

    const acknowledged = new Map<string, string>();
    const unexpected: string[] = [];
    let killed = false;
    let unanswered = 0;
    const writer = async (worker: number): Promise<void> => {
      for (let sequence = 0; ; sequence++) {
        const name = `inflight-${worker}-${sequence}`;
        let response: HttpResponse;
        try {
          response = await client.post(configMaps, configMap(name, `${worker}/${sequence}`));
        } catch (error) {
          // Once the server is killed, requests fail without an answer: the stream ends.
          unanswered++;
          if (killed) return;
          throw error;
        }
        if (response.status >= 200 && response.status < 300) {
          acknowledged.set(name, jsonBody<StoredObject>(response).metadata?.resourceVersion ?? '');
        } else if (!killed) {
          unexpected.push(`${name}: ${describeResponse(response)}`);
        }
        if (killed) return;
      }
    };
    const writers = Array.from({ length: crashWriters }, (_, worker) => writer(worker));
    const writersDone = Promise.allSettled(writers);

    await waitFor(() => acknowledged.size >= acknowledgedBeforeKill || unexpected.length > 0, {
      timeoutMs: 60_000, description: `${acknowledgedBeforeKill} acknowledged writes`, diagnostics: () => first.output().slice(-4000),
    });
    killed = true;
    const exit = await first.stop({ signal: 'SIGKILL' });
    expect(exit.signal).toBe('SIGKILL');
    const outcomes = await writersDone;
    const writerErrors = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String(outcome.reason));
    expect(writerErrors, 'writers failed before the kill').toEqual([]);
    expect(unexpected, 'non-2xx answers before the kill').toEqual([]);
    // Snapshot: answers that arrive after this point cannot exist, the process is gone.
    const acknowledgedAtKill = new Map(acknowledged);
    expect(acknowledgedAtKill.size).toBeGreaterThanOrEqual(acknowledgedBeforeKill);

    const second = await start(dataDir);
    const restartedClient = await KubeClient.fromKubeconfig(second.kubeconfigPath);
    const stored = await storedConfigMaps(restartedClient);
    expectAcknowledgedPresent(acknowledgedAtKill, stored.versions);
    // Anything else stored is a write that was in flight (no answer) when the server died.
    const extra = [...stored.versions.keys()].filter((name) => !acknowledgedAtKill.has(name));
    expect(extra.length, `unacknowledged writes stored: ${extra.join(', ')}`).toBeLessThanOrEqual(unanswered);
    for (const name of extra) expect(name).toMatch(/^inflight-\d+-\d+$/);

    // The restarted server accepts writes again.
    const after = await restartedClient.post(configMaps, configMap('after-crash', 'x'));
    expect(after.status, describeResponse(after)).toBe(201);
  });

  it('reuses its CA and admin certificate on the second start, so the earlier kubeconfig still works', async () => {
    const dataDir = await newDataDir();
    const first = await start(dataDir);
    const savedKubeconfig = path.join(path.dirname(dataDir), 'saved.kubeconfig');
    await copyFile(first.kubeconfigPath, savedKubeconfig);
    const before = await readKubeconfig(savedKubeconfig);
    const caFileBefore = await readFile(path.join(dataDir, 'pki', 'ca.crt'), 'utf8');
    const exit = await first.stop({ signal: 'SIGTERM' });
    expect(exit, first.output()).toEqual({ code: 0, signal: null });

    // Same port, so the saved kubeconfig's server URL points at the restarted server.
    const second = await start(dataDir, first.port);
    const after = await readKubeconfig(second.kubeconfigPath);
    expect(after.ca).toBe(before.ca);
    expect(await readFile(path.join(dataDir, 'pki', 'ca.crt'), 'utf8')).toBe(caFileBefore);
    expect(after.server).toBe(before.server);

    const oldCredentials = new KubeClient(before.server, before);
    const response = await oldCredentials.get('/api/v1/namespaces/default');
    expect(response.status, describeResponse(response)).toBe(200);

    const kubectl = new Kubectl({ kubeconfig: savedKubeconfig, cacheDir: path.join(path.dirname(dataDir), 'kube-cache') });
    const args = ['get', 'namespaces'];
    const result = await kubectl.run(args);
    expect(result.code, describeResult(args, result)).toBe(0);
    expect(parseTable(result.stdout).rows).toContainEqual(expect.objectContaining({ NAME: 'default', STATUS: 'Active' }));
  });
});
