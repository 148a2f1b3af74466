// End-to-end: response compression with one `kstore server` (HTTPS) and the real kubectl. A
// namespace of 400 ConfigMaps of 2 KiB each lists at ~900 KiB of JSON: the server gzips it for a
// client that sends `Accept-Encoding: gzip` (as Go's transport does for kubectl), and kubectl —
// `get -o json`, the table, `get --raw` — still reads every item.
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKubeconfig } from '../support/kube-client.ts';
import type { KubeconfigCredentials } from '../support/kube-client.ts';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;
let admin: KubeconfigCredentials;
const ns = 'big';
const itemCount = 400;
const value = 'v'.repeat(2048);
const path = `/api/v1/namespaces/${ns}/configmaps`;

interface ConfigMapList {
  items: { metadata: { name: string }; data?: Record<string, string> }[];
}

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-compression-', ns);
  admin = await readKubeconfig(fixture.server.kubeconfigPath);
  const items = Array.from({ length: itemCount }, (_, index) => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(index).padStart(3, '0')}`, namespace: ns }, data: { value },
  }));
  await fixture.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
}, 120_000);

afterAll(async () => {
  await fixture?.stop();
});

/** One GET with the admin's certificate; the body as received (not decompressed). */
function get(requestPath: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(requestPath, admin.server);
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method: 'GET', headers, ca: admin.ca, cert: admin.cert, key: admin.key, timeout: 30_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${requestPath} timed out`)));
    request.on('error', reject);
    request.end();
  });
}

function expectAllItems(list: ConfigMapList): void {
  const ours = list.items.filter((item) => item.metadata.name.startsWith('cm-'));
  expect(ours).toHaveLength(itemCount);
  expect(ours.every((item) => item.data?.['value'] === value)).toBe(true);
}

describe('response compression', () => {
  it('gzips the list for a client that accepts gzip, and not for one that does not', async () => {
    const gzipped = await get(path, { accept: 'application/json', 'accept-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['vary']).toMatch(/Accept-Encoding/);
    const json = gunzipSync(gzipped.body);
    expect(json.length).toBeGreaterThan(128 * 1024);
    expect(gzipped.body.length).toBeLessThan(json.length / 4);
    expectAllItems(JSON.parse(json.toString('utf8')) as ConfigMapList);

    const plain = await get(path, { accept: 'application/json' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expectAllItems(JSON.parse(plain.body.toString('utf8')) as ConfigMapList);
  });

  it('kubectl get -o json reads every item of the gzipped list', async () => {
    expectAllItems(JSON.parse(await fixture!.ok(['get', 'configmaps', '-n', ns, '-o', 'json'])) as ConfigMapList);
  });

  it('kubectl get --raw reads the gzipped list', async () => {
    expectAllItems(JSON.parse(await fixture!.ok(['get', '--raw', path])) as ConfigMapList);
  });

  it('kubectl get prints a row per item', async () => {
    const { rows } = parseTable(await fixture!.ok(['get', 'configmaps', '-n', ns]));
    expect(rows.filter((row) => row['NAME']?.startsWith('cm-'))).toHaveLength(itemCount);
  });
});
