// `kstore server` on a small disk (a tmpfs mount as its data dir), as an operator meets it:
//  - the disk fills up: the Raft storage fails; the process stays up, serves every read of what
//    it had acknowledged (a watch opened before goes on), refuses writes with a 503 Status, is
//    not ready; once space is freed it recovers in process — same pid, no restart — and takes
//    writes again, the watch sees them in order, and no acknowledged write is lost;
//  - free space falls under --storage-reserve-bytes before the disk is full: the space alarm
//    refuses creates and updates with kube's "database space exceeded" 500 while deletes and
//    reads go on, /readyz?verbose and /metrics show it, and it clears by itself once space is back.
// Mounting needs root (CI runs as root here); elsewhere the tests are skipped and say why.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KstoreProcess } from '../support/kstore-process.ts';
import { jsonBody, KubeClient, openWatch } from '../support/kube-client.ts';
import type { HttpResponse, WatchEvent } from '../support/kube-client.ts';
import { waitFor } from '../support/wait-for.ts';
import { canMountSmallDisks, fillDisk, SmallDisks } from './small-disk.ts';

const diskBytes = 48 * 1024 * 1024;
const namespace = 'disk';
const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;

const mountable = await canMountSmallDisks();
const servers: KstoreProcess[] = [];
let disks: SmallDisks | undefined;

afterAll(async () => {
  for (const server of servers) await server.kill();
  await disks?.cleanup();
});

async function startOnSmallDisk(name: string, extraArgs: readonly string[]): Promise<{ server: KstoreProcess; client: KubeClient; dataDir: string }> {
  disks ??= await SmallDisks.create('kstore-server-disk-');
  const dataDir = await disks.mount(name, diskBytes);
  const server = await KstoreProcess.start({ dataDir, extraArgs });
  servers.push(server);
  const client = await KubeClient.fromKubeconfig(server.kubeconfigPath);
  const created = await client.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  expect(created.status, created.body).toBe(201);
  return { server, client, dataDir };
}

function configMap(name: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value: name.repeat(20) } };
}

function statusOf(response: HttpResponse): { code?: number; reason?: string; message?: string } {
  return jsonBody(response);
}

async function listedNames(client: KubeClient): Promise<Set<string>> {
  const list = await client.get(configMaps);
  expect(list.status, list.body).toBe(200);
  return new Set(jsonBody<{ items: { metadata: { name: string } }[] }>(list).items.map((item) => item.metadata.name));
}

async function metric(client: KubeClient, name: string): Promise<number | undefined> {
  const response = await client.get('/metrics');
  const line = response.body.split('\n').find((text) => text.startsWith(`${name} `) || text.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('kstore server on a disk that fills up', () => {
  it.skipIf(!mountable)('serves reads and refuses writes while its storage is down, and recovers in process once space is freed', async () => {
    const { server, client, dataDir } = await startOnSmallDisk('full', ['--storage-reserve-bytes', '0']);
    const acknowledged: string[] = [];
    for (let index = 0; index < 20; index++) {
      const response = await client.post(configMaps, configMap(`before-${index}`));
      expect(response.status, response.body).toBe(201);
      acknowledged.push(`before-${index}`);
    }
    const start = jsonBody<{ metadata: { resourceVersion: string } }>(await client.get(configMaps)).metadata.resourceVersion;
    const watch = await openWatch(client.server, client.credentials, `${configMaps}?watch=1&resourceVersion=${start}`);
    expect(watch.status).toBe(200);

    // Fill the disk; the next append fails and the member's storage is down.
    await fillDisk(path.join(dataDir, 'filler'));
    let refused: HttpResponse | undefined;
    let next = 0;
    await waitFor(async () => {
      const name = `during-${next++}`;
      const response = await client.post(configMaps, configMap(name));
      if (response.status === 201) acknowledged.push(name);
      else refused = response;
      return refused !== undefined;
    }, { timeoutMs: 30_000, description: 'a write refused after the disk filled', diagnostics: () => server.output().slice(-3000) });
    expect(refused?.status, refused?.body).toBe(503);
    expect(statusOf(refused!)).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    expect(statusOf(refused!).message).toMatch(/ENOSPC/);
    expect(refused?.headers['retry-after']).toBeDefined();

    // Still down (the disk is still full): reads of everything acknowledged are served.
    expect(server.exit).toBeUndefined();
    const whileDown = await listedNames(client);
    for (const name of acknowledged) expect(whileDown.has(name), name).toBe(true);
    expect((await client.get(`${configMaps}/before-0`)).status).toBe(200);
    const readyz = await client.get('/readyz?verbose');
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain('[-]raft-log failed');
    expect((await client.get('/livez')).status).toBe(200);
    expect(await metric(client, 'kstore_raft_storage_failed')).toBe(1);
    const again = await client.post(configMaps, configMap('refused-again'));
    expect(again.status).toBe(503);

    // Space comes back: the same process takes writes again, without a restart.
    await rm(path.join(dataDir, 'filler'));
    await waitFor(async () => {
      const response = await client.post(configMaps, configMap('after-0'));
      if (response.status === 201) acknowledged.push('after-0');
      return response.status === 201;
    }, { timeoutMs: 30_000, description: 'a write acknowledged after space was freed', diagnostics: () => server.output().slice(-3000) });
    expect(server.exit).toBeUndefined();
    expect(server.output()).toContain('raft storage recovered');
    expect(await metric(client, 'kstore_raft_storage_recoveries_total')).toBe(1);
    expect(await metric(client, 'kstore_raft_storage_failed')).toBe(0);
    await waitFor(async () => (await client.get('/readyz')).status === 200, { timeoutMs: 10_000, description: '/readyz ok after recovery' });
    for (let index = 1; index < 10; index++) {
      const response = await client.post(configMaps, configMap(`after-${index}`));
      expect(response.status, response.body).toBe(201);
      acknowledged.push(`after-${index}`);
    }
    const afterRecovery = await listedNames(client);
    for (const name of acknowledged) expect(afterRecovery.has(name), name).toBe(true);

    // The watch opened before the failure went on: every acknowledged write since, once, in order.
    const seen: WatchEvent[] = [];
    const expected = acknowledged.filter((name) => !name.startsWith('before-'));
    await waitFor(async () => {
      seen.push(await watch.next(10_000));
      return seen.filter((event) => event.type === 'ADDED').length >= expected.length;
    }, { timeoutMs: 30_000, description: `the watch to deliver ${expected.length} ADDED events` });
    watch.close();
    const added = seen.filter((event) => event.type === 'ADDED').map((event) => event.object.metadata?.name);
    expect(added).toEqual(expected);
    const revisions = seen.map((event) => Number(event.object.metadata?.resourceVersion));
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(new Set(revisions).size).toBe(revisions.length);
  }, 120_000);

  it.skipIf(!mountable)('raises the space alarm before the disk is full: creates refused as "database space exceeded", deletes and reads served, cleared once space is back', async () => {
    const reserveBytes = 8 * 1024 * 1024;
    const { server, client, dataDir } = await startOnSmallDisk('alarm', ['--storage-reserve-bytes', String(reserveBytes)]);
    for (let index = 0; index < 5; index++) expect((await client.post(configMaps, configMap(`kept-${index}`))).status).toBe(201);

    // Leave half the reserve free: under the reserve, far from full.
    await fillDisk(path.join(dataDir, 'filler'), reserveBytes / 2);
    let refused: HttpResponse | undefined;
    await waitFor(async () => {
      const response = await client.post(configMaps, configMap('while-alarmed'));
      if (response.status !== 201) refused = response;
      else expect((await client.delete(`${configMaps}/while-alarmed`)).status).toBe(200);
      return refused !== undefined;
    }, { timeoutMs: 15_000, description: 'the space alarm to refuse a create', diagnostics: () => server.output().slice(-3000) });
    expect(refused?.status, refused?.body).toBe(500);
    expect(statusOf(refused!).message).toMatch(/^database space exceeded: .*--storage-reserve-bytes/);
    expect(statusOf(refused!).reason).toBeUndefined();
    const update = await client.put(`${configMaps}/kept-0`, configMap('kept-0'));
    expect(update.status).toBe(500);

    // Deletes free space and are taken; reads are served; the member's storage itself is fine.
    expect((await client.delete(`${configMaps}/kept-4`)).status).toBe(200);
    const names = await listedNames(client);
    for (const name of ['kept-0', 'kept-1', 'kept-2', 'kept-3']) expect(names.has(name), name).toBe(true);
    expect(names.has('kept-4')).toBe(false);
    const readyz = await client.get('/readyz?verbose');
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain('[-]storage-quota failed');
    expect(readyz.body).toContain('[+]raft-log ok');
    expect(await metric(client, 'kstore_storage_alarm')).toBe(1);
    const cluster = jsonBody<{ members: { storage?: { alarm?: string } }[] }>(await client.get('/kstore/cluster'));
    expect(cluster.members[0]?.storage?.alarm).toMatch(/--storage-reserve-bytes/);

    // Space comes back: the alarm clears by itself and creates are taken again.
    await rm(path.join(dataDir, 'filler'));
    await waitFor(async () => (await client.post(configMaps, configMap('after-alarm'))).status === 201,
      { timeoutMs: 15_000, description: 'a create taken after space came back', diagnostics: () => server.output().slice(-3000) });
    expect(await metric(client, 'kstore_storage_alarm')).toBe(0);
    expect((await client.get('/readyz')).status).toBe(200);
    expect(server.exit).toBeUndefined();
    expect(server.output()).not.toContain('raft node failed');
  }, 120_000);
});
