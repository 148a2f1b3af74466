// End-to-end: the corrupt-object path on an HA cluster (`kstore cluster up --feature-gates
// AllowUnsafeMalformedObjectDeletion=true`). A tool with access to NATS proposes an object the
// API would refuse straight to the Raft log (the way a corrupt object gets into kstore); every
// API replica then fails to read it with the storage's 500, a normal delete fails too, and only a
// DELETE with ignoreStoreReadErrorWithClusterBreakingPotential removes it — whatever its
// finalizer — through a replica that did not see it written.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreClient } from '../../deploy/store-client.ts';
import { connectNats } from '../../raft/index.ts';
import { startCluster } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { httpsRequest, jsonBody } from '../support/kube-client.ts';
import type { HttpResponse } from '../support/kube-client.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: TempDir | undefined;
let cluster: Target | undefined;
let connection: NatsConnection | undefined;
let store: StoreClient | undefined;

beforeAll(async () => {
  dir = await makeTempDir('kstore-e2e-corrupt-ha-');
  cluster = await startCluster(dir, ['--feature-gates', 'AllowUnsafeMalformedObjectDeletion=true']);
  const file = JSON.parse(readFileSync(path.join(dir.path, 'ha', 'cluster.json'), 'utf8')) as { natsUrls: string[]; cluster: string; group: string };
  connection = await connectNats(file.natsUrls, 'corrupt-object-test');
  store = new StoreClient({ connection, cluster: file.cluster, group: file.group });
}, 120_000);

afterAll(async () => {
  store?.close();
  await connection?.close().catch(() => undefined);
  await cluster?.stop();
  await dir?.remove();
}, 60_000);

const path1 = '/api/v1/namespaces/default/configmaps/broken';

function request(url: string, method: string, urlPath: string, body?: unknown): Promise<HttpResponse> {
  return httpsRequest(url, cluster!.credentials, { method, path: urlPath, ...(body === undefined ? {} : { body }) });
}

describe('a corrupt object on an HA cluster', () => {
  it('every replica fails to read it with the storage 500; only the unsafe delete removes it', async () => {
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const result = await store!.propose({
      type: 'create', key: { group: '', resource: 'configmaps', namespace: 'default', name: 'broken' }, at, by: 'a-buggy-tool',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'broken', namespace: 'default', uid: 'u-broken', creationTimestamp: at, finalizers: ['example.com/hold'] }, data: { a: 5 } } as never,
    });
    expect(result.type).toBe('stored');
    for (const url of [cluster!.writer, cluster!.reader]) {
      const read = await waitFor(async () => {
        const response = await request(url, 'GET', path1);
        return response.status !== 404 ? response : undefined;
      }, { timeoutMs: 10_000, description: `replica ${url} to hold the object` });
      expect(read.status, read.body).toBe(500);
      expect(jsonBody<{ reason: string; message: string }>(read)).toMatchObject({
        reason: 'InternalError',
        message: 'Internal error occurred: StorageError: corrupt object, Code: 7, Key: /registry/configmaps/default/broken, ResourceVersion: 0, AdditionalErrorMsg: ConfigMap in version "v1" cannot be handled as a ConfigMap: data.a: must be string',
      });
    }
    expect((await request(cluster!.reader, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(500);
    expect((await request(cluster!.reader, 'DELETE', path1)).status).toBe(500);
    const unsafe = await request(cluster!.reader, 'DELETE', path1, { kind: 'DeleteOptions', apiVersion: 'v1', ignoreStoreReadErrorWithClusterBreakingPotential: true });
    expect(unsafe.status, unsafe.body).toBe(200);
    expect(jsonBody(unsafe)).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'broken', kind: 'ConfigMap' } });
    for (const url of [cluster!.writer, cluster!.reader]) {
      await waitFor(async () => (await request(url, 'GET', path1)).status === 404, { timeoutMs: 10_000, description: `replica ${url} to see it removed` });
    }
    expect((await request(cluster!.writer, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
  });
});
