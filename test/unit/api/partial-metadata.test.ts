// The metadata-only representations client-go's metadata client and metadata informers ask for
// (Accept ...;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1|v1beta1): get, list (chunked),
// watch, in JSON and protobuf; the item/list mismatch is 406 as kube-apiserver answers; an
// unknown version falls through to the next acceptable type.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject, decodeProtobufWatchEvents } from '../../../api/codecs/protobuf.ts';
import { admin, configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
let baseUrl: string;
const configMaps = '/api/v1/namespaces/t/configmaps';
const protobuf = 'application/vnd.kubernetes.protobuf';
const metadataJson = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const metadataListJson = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

beforeEach(async () => {
  harness = await startHarness(['default', 't']);
  baseUrl = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  for (const name of ['a', 'b', 'c']) {
    const created = await harness.request('POST', configMaps, configMap(name, { secret: 'payload' }, { labels: { app: name } }));
    expect(created.statusCode).toBe(201);
  }
});
afterEach(async () => {
  // Aborted watches: drop their connections rather than wait out the close grace period.
  harness.app.server.closeAllConnections();
  await harness.close();
});

interface Partial {
  kind: string;
  apiVersion: string;
  metadata: { name?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string>; continue?: string; remainingItemCount?: number };
  items?: Partial[];
}

describe('PartialObjectMetadata', () => {
  it('get: the object\'s metadata only, under meta.k8s.io v1 or v1beta1', async () => {
    const full = (await harness.request('GET', `${configMaps}/a`)).json<{ metadata: Record<string, unknown> }>();
    for (const version of ['v1', 'v1beta1']) {
      const response = await harness.request('GET', `${configMaps}/a`, undefined, { accept: `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=${version}, application/json` });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: full.metadata });
    }
  });

  it('list: PartialObjectMetadataList with each item as PartialObjectMetadata, chunked with continue and remainingItemCount', async () => {
    const first = await harness.request('GET', `${configMaps}?limit=2`, undefined, { accept: `${metadataListJson}, application/json` });
    expect(first.statusCode, first.body).toBe(200);
    const page = first.json<Partial>();
    expect(page).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { remainingItemCount: 1 } });
    expect(page.metadata.continue).toBeTruthy();
    expect(page.items?.map((item) => [item.kind, item.apiVersion, item.metadata.name, item.metadata.labels?.['app']])).toEqual([
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'a', 'a'], ['PartialObjectMetadata', 'meta.k8s.io/v1', 'b', 'b'],
    ]);
    expect(JSON.stringify(page)).not.toContain('payload');
    const rest = await harness.request('GET', `${configMaps}?limit=2&continue=${encodeURIComponent(page.metadata.continue!)}`, undefined, { accept: metadataListJson });
    expect(rest.json<Partial>().items?.map((item) => item.metadata.name)).toEqual(['c']);
  });

  it('protobuf: PartialObjectMetadata and both list versions decode to the same metadata', async () => {
    const item = await harness.request('GET', `${configMaps}/b`, undefined, { accept: `${protobuf};as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json` });
    expect(item.statusCode).toBe(200);
    expect(item.headers['content-type']).toBe(protobuf);
    const decoded = decodeProtobufObject(item.rawPayload) as unknown as Partial;
    expect(decoded).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'b', labels: { app: 'b' } } });
    const json = (await harness.request('GET', configMaps, undefined, { accept: metadataListJson })).json<Partial>();
    for (const version of ['v1', 'v1beta1']) {
      const list = await harness.request('GET', configMaps, undefined, { accept: `${protobuf};as=PartialObjectMetadataList;g=meta.k8s.io;v=${version}` });
      expect(list.statusCode, list.body).toBe(200);
      const decodedList = decodeProtobufObject(list.rawPayload) as unknown as Partial;
      expect(decodedList.kind).toBe('PartialObjectMetadataList');
      expect(decodedList.apiVersion).toBe(`meta.k8s.io/${version}`);
      expect(decodedList.metadata.resourceVersion).toBe(json.metadata.resourceVersion);
      expect(decodedList.items?.map((entry) => [entry.metadata.name, entry.metadata.uid])).toEqual(json.items?.map((entry) => [entry.metadata.name, entry.metadata.uid]));
    }
  });

  it('the item form of a list and the list form of an item are 406; an unknown version falls through', async () => {
    const list = await harness.request('GET', configMaps, undefined, { accept: metadataJson });
    expect(list.statusCode).toBe(406);
    expect(list.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406, message: 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)' });
    const item = await harness.request('GET', `${configMaps}/a`, undefined, { accept: metadataListJson });
    expect(item.statusCode).toBe(406);
    expect(item.json().message).toBe('you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)');
    const watch = await harness.request('GET', `${configMaps}?watch=1`, undefined, { accept: metadataListJson });
    expect(watch.statusCode).toBe(406);
    const fallback = await harness.request('GET', `${configMaps}/a`, undefined, { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2, application/json' });
    expect(fallback.json()).toMatchObject({ kind: 'ConfigMap', data: { secret: 'payload' } });
  });

  it('watch: every event\'s object as PartialObjectMetadata, in JSON and in protobuf', async () => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}${configMaps}?watch=1&fieldSelector=metadata.name%3Da`, { headers: { ...admin, accept: metadataJson }, signal: controller.signal });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ type: 'ADDED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a' } } });
    expect(text).not.toContain('payload');

    const protobufController = new AbortController();
    const protobufResponse = await fetch(`${baseUrl}${configMaps}?watch=1&fieldSelector=metadata.name%3Db`, { headers: { ...admin, accept: `${protobuf};as=PartialObjectMetadata;g=meta.k8s.io;v=v1` }, signal: protobufController.signal });
    expect(protobufResponse.headers.get('content-type')).toBe(`${protobuf};stream=watch`);
    const protobufReader = protobufResponse.body!.getReader();
    let buffer = Buffer.alloc(0);
    while (buffer.length < 4 || buffer.length < 4 + buffer.readUInt32BE(0)) buffer = Buffer.concat([buffer, Buffer.from((await protobufReader.read()).value!)]);
    protobufController.abort();
    const [event] = decodeProtobufWatchEvents(buffer.subarray(0, 4 + buffer.readUInt32BE(0)));
    expect(event).toMatchObject({ type: 'ADDED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'b' } } });
  });
});
