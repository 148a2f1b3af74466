// The space alarm in HA: three `kstore store` members, each on its own small disk (a tmpfs
// mount) with --storage-reserve-bytes, and a `kstore api` replica. When a follower's free space
// falls under the reserve, the API replica refuses creates and updates with kube's "database
// space exceeded" 500 naming that member (the follower would otherwise fail on its next append)
// while reads and deletes go on, and shows the alarm in /readyz?verbose, /metrics and
// /kstore/cluster. When the leader's falls under it, the leader itself refuses such proposals,
// whoever sends them. Once space is back the alarm clears without a restart and writes resume.
// Mounting needs root (CI runs as root here); elsewhere the test is skipped and says why.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageAlarmError } from '../../deploy/storage-quota.ts';
import { httpsRequest, jsonBody } from '../support/kube-client.ts';
import type { HttpResponse } from '../support/kube-client.ts';
import { waitFor } from '../support/wait-for.ts';
import { createRegisterCommand } from './configmap-register.ts';
import { HaCluster } from './ha-cluster.ts';
import { canMountSmallDisks, fillDisk, SmallDisks } from './small-disk.ts';

const diskBytes = 48 * 1024 * 1024;
const reserveBytes = 8 * 1024 * 1024;
const namespace = 'space';
const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;

const mountable = await canMountSmallDisks();
let cluster: HaCluster | undefined;
let disks: SmallDisks | undefined;
/** The store cluster's temp dirs holding the mount points: its close() cannot remove a mounted dir. */
const dataRoots = new Set<string>();

afterAll(async () => {
  await cluster?.close();
  await disks?.cleanup();
  for (const root of dataRoots) await rm(root, { recursive: true, force: true }).catch(() => undefined);
});

describe('the space alarm of an HA store', () => {
  it.skipIf(!mountable)('refuses growing writes cluster-wide while any member is under its reserve, serves reads and deletes, and clears once space is back', async () => {
    disks = await SmallDisks.create('kstore-ha-space-');
    const smallDisks = disks;
    cluster = await HaCluster.start({
      cluster: 'haspace', apis: 1,
      stores: {
        // The store cluster creates each member's data dir; a small disk is mounted over it.
        prepareDataDir: async (dataDir) => {
          dataRoots.add(path.dirname(dataDir));
          await smallDisks.mountAt(dataDir, diskBytes);
        },
        storeArgs: ['--storage-reserve-bytes', String(reserveBytes)],
      },
    });
    const ha = cluster;
    const api = ha.apis[0]!.url;
    const request = (method: string, requestPath: string, body?: unknown): Promise<HttpResponse> =>
      httpsRequest(api, ha.credentials, { method, path: requestPath, ...(body === undefined ? {} : { body }) });
    const configMap = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value: name } });
    expect((await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })).status).toBe(201);
    for (let index = 0; index < 5; index++) expect((await request('POST', configMaps, configMap(`kept-${index}`))).status).toBe(201);

    // A follower's disk falls under its reserve.
    const leader = await ha.stores.leader();
    const follower = ha.stores.members.find((member) => member.id !== leader.id)!;
    const filler = path.join(follower.options.dataDir, 'filler');
    await fillDisk(filler, reserveBytes / 2);
    let refused: HttpResponse | undefined;
    let attempt = 0;
    await waitFor(async () => {
      const name = `probe-${attempt++}`;
      const response = await request('POST', configMaps, configMap(name));
      if (response.status === 201) expect((await request('DELETE', `${configMaps}/${name}`)).status).toBe(200);
      else refused = response;
      return refused !== undefined;
    }, { timeoutMs: 20_000, description: 'the API replica to refuse a create while a follower is under its reserve', diagnostics: () => ha.diagnostics() });
    expect(refused?.status, refused?.body).toBe(500);
    const status = jsonBody<{ message?: string; reason?: string }>(refused!);
    expect(status.message).toMatch(new RegExp(`^database space exceeded: .*store member ${follower.id}.*--storage-reserve-bytes`));
    expect(status.reason).toBeUndefined();
    expect((await request('PUT', `${configMaps}/kept-0`, configMap('kept-0'))).status).toBe(500);
    // Reads and deletes go on.
    expect((await request('GET', `${configMaps}/kept-1`)).status).toBe(200);
    expect((await request('DELETE', `${configMaps}/kept-4`)).status).toBe(200);
    const readyz = await request('GET', '/readyz?verbose');
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain('[-]storage-quota failed');
    const metrics = (await request('GET', '/metrics')).body;
    expect(metrics).toContain(`kstore_storage_alarm{member="${follower.id}"} 1`);
    expect(metrics).toContain(`kstore_storage_alarm{member="${leader.id}"} 0`);
    const view = jsonBody<{ members: { id: string; storage?: { alarm?: string } }[] }>(await request('GET', '/kstore/cluster'));
    expect(view.members.find((member) => member.id === follower.id)?.storage?.alarm).toMatch(/--storage-reserve-bytes/);
    // Nobody failed: the alarm came before the disk was full.
    expect(follower.running).toBe(true);

    // Space comes back on the follower: creates are taken again, without a restart.
    await rm(filler);
    await waitFor(async () => (await request('POST', configMaps, configMap('after-follower'))).status === 201,
      { timeoutMs: 20_000, description: 'a create taken once the follower has space again', diagnostics: () => ha.diagnostics() });

    // The leader's disk falls under its reserve: the leader itself refuses what would grow the
    // store, also from a client that is not an API replica.
    const leaderFiller = path.join(ha.stores.member(leader.id).options.dataDir, 'filler');
    await fillDisk(leaderFiller, reserveBytes / 2);
    const refusal = await waitFor(async () => {
      const outcome = await ha.stores.admin.propose(createRegisterCommand(`direct-${attempt++}`)).then(() => undefined, (error: unknown) => error);
      return outcome instanceof StorageAlarmError ? outcome : undefined;
    }, { timeoutMs: 20_000, description: 'the leader to refuse a proposal while under its reserve', diagnostics: () => ha.diagnostics() });
    expect(refusal.message).toMatch(new RegExp(`store member ${leader.id}`));
    await rm(leaderFiller);
    await waitFor(async () => (await request('POST', configMaps, configMap('after-leader'))).status === 201,
      { timeoutMs: 20_000, description: 'a create taken once the leader has space again', diagnostics: () => ha.diagnostics() });
    expect(ha.stores.members.every((member) => member.running)).toBe(true);
    const statuses = await ha.stores.admin.clusterStatus(300);
    expect(statuses.filter((member) => member.role === 'leader')).toHaveLength(1);
    expect(statuses.every((member) => member.failure === undefined && member.storage?.alarm === undefined)).toBe(true);
  }, 180_000);
});
