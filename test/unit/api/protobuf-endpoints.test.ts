// The protobuf representation over the API: request bodies as kubectl's typed clients send
// them, responses for clients that accept protobuf first, and 400 for a body that is not a
// Kubernetes protobuf message.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const cms = '/api/v1/namespaces/t/configmaps';
const protobuf = 'application/vnd.kubernetes.protobuf';

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

describe('protobuf over HTTP', () => {
  it('decodes a protobuf request body and answers in protobuf when the client prefers it', async () => {
    const body = encodeProtobufObject(configMap('pb', { a: 'b' }));
    const response = await harness.app.inject({
      method: 'POST', url: cms, payload: body,
      headers: { 'x-test-user': 'admin;system:masters', 'content-type': protobuf, accept: `${protobuf},application/json` },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.headers['content-type']).toBe(protobuf);
    const created = decodeProtobufObject(response.rawPayload);
    expect(created).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'pb', namespace: 't' }, data: { a: 'b' } });
    const json = (await harness.request('GET', `${cms}/pb`)).json();
    expect(json.metadata.uid).toBe((created['metadata'] as { uid: string }).uid);
  });

  it('serves lists in protobuf', async () => {
    await harness.request('POST', cms, configMap('a'));
    const response = await harness.request('GET', cms, undefined, { accept: protobuf });
    expect(response.headers['content-type']).toBe(protobuf);
    const list = decodeProtobufObject(response.rawPayload) as { kind: string; items: { metadata: { name: string } }[] };
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((item) => item.metadata.name)).toEqual(['a']);
  });

  it('a body that is not a Kubernetes protobuf message is 400 and stores nothing', async () => {
    const before = harness.backend.currentRevision();
    const response = await harness.app.inject({
      method: 'POST', url: cms, payload: Buffer.from('not protobuf at all'),
      headers: { 'x-test-user': 'admin;system:masters', 'content-type': protobuf },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect(harness.backend.currentRevision()).toBe(before);
  });
});
