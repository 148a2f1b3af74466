// Response compression as kube-apiserver's APIResponseCompression: a 10,000-item list asked for
// with `Accept-Encoding: gzip` comes gzipped (and decompresses to the very JSON sent without
// it); a small list, a client that does not ask, or one that refuses gzip (q=0) get it as it is;
// a protobuf list is compressed too; a watch stream never is.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptsGzip, compressionThresholdBytes } from '../../../api/compression.ts';
import { admin, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const big = '/api/v1/namespaces/big/configmaps';
const small = '/api/v1/namespaces/small/configmaps';
const itemCount = 10_000;

interface List {
  items: unknown[];
}

beforeAll(async () => {
  harness = await startHarness(['big', 'small']);
  // Straight to the store: 10,000 creates through HTTP would make the test slow, not better.
  for (let index = 0; index < itemCount; index++) {
    const name = `cm-${String(index).padStart(5, '0')}`;
    await harness.backend.propose({
      type: 'create', key: { group: '', resource: 'configmaps', namespace: 'big', name },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'big', uid: `uid-${index}`, creationTimestamp: '2025-01-01T00:00:00Z' }, data: { key: `value-${index}` } },
      at: '2025-01-01T00:00:00Z',
    });
  }
  const one = await harness.request('POST', small, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: 'b' } });
  expect(one.statusCode).toBe(201);
}, 120_000);
afterAll(async () => {
  await harness.close();
});

describe('response compression', () => {
  it('gzips a 10,000-item list for a client that accepts gzip, to the same JSON', async () => {
    const plain = await harness.request('GET', big);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(compressionThresholdBytes);
    // Nothing is written between the two lists: the same state, the same JSON.
    const gzipped = await harness.request('GET', big, undefined, { 'accept-encoding': 'gzip, deflate, br' });
    expect(gzipped.statusCode).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(String(gzipped.headers['vary'])).toMatch(/accept-encoding/i);
    expect(gzipped.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(gzipped.headers['content-length'])).toBe(gzipped.rawPayload.length);
    expect(gzipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    const body = gunzipSync(gzipped.rawPayload).toString('utf8');
    expect(body).toBe(plain.body);
    expect((JSON.parse(body) as List).items).toHaveLength(itemCount);
  });

  it('gzips a large protobuf list too', async () => {
    const response = await harness.request('GET', big, undefined, { accept: 'application/vnd.kubernetes.protobuf', 'accept-encoding': 'gzip' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/protobuf/);
    expect(response.headers['content-encoding']).toBe('gzip');
    // kube's protobuf envelope starts with the magic k8s\0.
    expect(gunzipSync(response.rawPayload).subarray(0, 4)).toEqual(Buffer.from([0x6b, 0x38, 0x73, 0x00]));
  });

  it('sends a small list as it is even to a client that accepts gzip', async () => {
    const response = await harness.request('GET', small, undefined, { 'accept-encoding': 'gzip' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(String(response.headers['vary'] ?? '')).not.toMatch(/accept-encoding/i);
    expect((JSON.parse(response.body) as List).items).toHaveLength(1);
  });

  it('sends a large list as it is to a client that does not ask for gzip, or refuses it', async () => {
    const refusals: Record<string, string>[] = [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'gzip;q=0, identity' }, { 'accept-encoding': 'deflate' }];
    for (const headers of refusals) {
      const response = await harness.request('GET', big, undefined, headers);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect((JSON.parse(response.body) as List).items).toHaveLength(itemCount);
    }
  });

  it('never compresses a watch stream', async () => {
    const address = await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const controller = new AbortController();
    try {
      // Initial events for 10,000 objects: far more than the threshold in one response.
      const response = await fetch(`${address}${big}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, {
        headers: { ...admin, 'accept-encoding': 'gzip' }, signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-encoding')).toBeNull();
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
      expect(JSON.parse(text.slice(0, text.indexOf('\n')))).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap' } });
    } finally {
      controller.abort();
    }
  });

  it('reads Accept-Encoding as kube does, honouring q=0', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('deflate, gzip')).toBe(true);
    expect(acceptsGzip(' GZIP ;q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0.0')).toBe(false);
    expect(acceptsGzip('x-gzip, br')).toBe(false);
    expect(acceptsGzip('*')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip(['br', 'gzip'])).toBe(true);
  });
});
