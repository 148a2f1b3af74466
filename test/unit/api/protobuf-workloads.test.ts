// Pods, nodes, endpoints and events.k8s.io/v1 events over the API in protobuf, as client-go
// based clients (kube-scheduler, kubelet, controllers, kubectl drain) use them: protobuf request
// bodies for create, update, status and binding; protobuf responses for get and list that equal
// the JSON ones; and protobuf watch streams (length-framed WatchEvents).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject, decodeProtobufWatchEvents, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { admin, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';
import { richEndpoints, richEventsV1Event, richNode, richPod } from './protobuf-kinds-fixtures.ts';

let harness: Harness;
let baseUrl: string;
const protobuf = 'application/vnd.kubernetes.protobuf';
const pods = '/api/v1/namespaces/t/pods';

type Json = Record<string, unknown>;

beforeEach(async () => {
  harness = await startHarness();
  // The rich pod names PriorityClass "high" (value 0, preemption policy Never): the Priority admission plugin resolves it.
  const high = await harness.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 0, preemptionPolicy: 'Never' });
  if (high.statusCode !== 201) throw new Error(high.body);
  baseUrl = await harness.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await harness.close();
});

/** A write with a protobuf body, answered in protobuf (client-go's default for built-in kinds). */
async function sendProtobuf(method: 'POST' | 'PUT', url: string, object: Json): Promise<{ status: number; object: Json; body: string }> {
  const response = await harness.app.inject({
    method, url, payload: encodeProtobufObject(object),
    headers: { ...admin, 'content-type': protobuf, accept: `${protobuf}, application/json` },
  });
  const isProtobuf = response.headers['content-type'] === protobuf;
  return { status: response.statusCode, object: isProtobuf ? decodeProtobufObject(response.rawPayload) : {}, body: isProtobuf ? '' : response.body };
}

/** GET as protobuf and as JSON: both must describe the same object. */
async function getBoth(url: string): Promise<{ protobuf: Json; json: Json }> {
  const pb = await harness.request('GET', url, undefined, { accept: `${protobuf}, application/json` });
  expect(pb.statusCode, pb.body).toBe(200);
  expect(pb.headers['content-type']).toBe(protobuf);
  const json = await harness.request('GET', url);
  expect(json.statusCode).toBe(200);
  return { protobuf: decodeProtobufObject(pb.rawPayload), json: json.json() };
}

/**
 * The rich Pod as a client would create it: no server-set metadata or status, and only values
 * validation accepts (the codec fixture also carries edge values such as containerPort 0).
 */
function withoutServerFields(object: Json, name: string): Json {
  const { metadata: _metadata, status: _status, ...rest } = structuredClone(object);
  if (rest['kind'] === 'Pod') {
    const container = ((rest['spec'] as Json)['containers'] as Json[])[0]!;
    container['ports'] = (container['ports'] as Json[]).filter((port) => port['containerPort'] !== 0);
  }
  return { ...rest, metadata: { name, labels: { app: 'web' } } };
}

const validEndpoints = {
  ...richEndpoints, metadata: { name: 'web', labels: richEndpoints.metadata.labels },
  subsets: richEndpoints.subsets.map((subset) => ({ ...subset, ports: subset.ports.filter((port) => port.port !== 0) })),
};

/** events.k8s.io/v1 validation: series.count ≥ 2 and the deprecated fields unset on create. */
const validEventsV1Event = (() => {
  const { deprecatedSource: _source, deprecatedFirstTimestamp: _first, deprecatedLastTimestamp: _last, deprecatedCount: _count, ...event } = richEventsV1Event;
  return { ...event, metadata: { name: 'web-0.1' }, series: { ...event.series, count: 2 } };
})();

/** Reads a protobuf watch until `count` events have arrived. */
async function readWatch(url: string, count: number, afterOpen: () => Promise<void>): Promise<{ contentType: string | null; events: { type: string; object: Json }[] }> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}${url}`, { headers: { ...admin, accept: `${protobuf}, application/json` }, signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  await afterOpen();
  let buffer = Buffer.alloc(0);
  for (;;) {
    const events = completeFrames(buffer);
    if (events.length >= count) {
      controller.abort();
      return { contentType: response.headers.get('content-type'), events: decodeProtobufWatchEvents(buffer.subarray(0, events[count - 1]!)) };
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`watch ended after ${events.length} events`);
    buffer = Buffer.concat([buffer, Buffer.from(value)]);
  }
}

/** End offsets of the complete length-prefixed frames in a buffer. */
function completeFrames(buffer: Buffer): number[] {
  const ends: number[] = [];
  let offset = 0;
  while (buffer.length - offset >= 4 && buffer.length >= offset + 4 + buffer.readUInt32BE(offset)) {
    offset += 4 + buffer.readUInt32BE(offset);
    ends.push(offset);
  }
  return ends;
}

describe('protobuf pods over HTTP', () => {
  it('POST a rich Pod in protobuf; GET it as protobuf and JSON alike; its spec survives whole', async () => {
    const pod = withoutServerFields(richPod, 'web-0');
    const created = await sendProtobuf('POST', pods, pod);
    expect(created.status, created.body).toBe(201);
    expect(created.object).toMatchObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 't' } });
    const { protobuf: viaProtobuf, json } = await getBoth(`${pods}/web-0`);
    expect(viaProtobuf).toEqual(json);
    expect(viaProtobuf).toEqual(created.object);
    expect((json['spec'] as Json)['volumes']).toEqual((richPod.spec as Json)['volumes']);
    expect((json['spec'] as Json)['affinity']).toEqual(richPod.spec.affinity);
    // What was sent, plus the v1 defaults (probe thresholds, handler scheme) the server fills in.
    expect((json['spec'] as Json)['containers']).toMatchObject((pod['spec'] as Json)['containers'] as Json[]);
  });

  it('PUT pods/status in protobuf sets the status; the answer is protobuf', async () => {
    const created = await sendProtobuf('POST', pods, withoutServerFields(richPod, 'web-1'));
    expect(created.status, created.body).toBe(201);
    const updated = await sendProtobuf('PUT', `${pods}/web-1/status`, { ...created.object, status: richPod.status });
    expect(updated.status, updated.body).toBe(200);
    const { protobuf: viaProtobuf, json } = await getBoth(`${pods}/web-1`);
    expect(viaProtobuf).toEqual(json);
    expect(json['status']).toMatchObject({ phase: 'Running', podIPs: richPod.status.podIPs, containerStatuses: richPod.status.containerStatuses });
  });

  it('POST pods/<name>/binding with a protobuf Binding, as kube-scheduler does', async () => {
    const created = await sendProtobuf('POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    expect(created.status, created.body).toBe(201);
    const bound = await sendProtobuf('POST', `${pods}/b/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'b', namespace: 't' }, target: { apiVersion: 'v1', kind: 'Node', name: 'n1' } });
    expect(bound.status, bound.body).toBe(201);
    const { json } = await getBoth(`${pods}/b`);
    expect((json['spec'] as Json)['nodeName']).toBe('n1');
  });

  it('lists pods as a protobuf PodList equal to the JSON list', async () => {
    for (const name of ['a', 'b']) expect((await sendProtobuf('POST', pods, withoutServerFields(richPod, name))).status).toBe(201);
    const { protobuf: list, json } = await getBoth(pods);
    expect(list).toEqual(json);
    expect(list['kind']).toBe('PodList');
    expect((list['items'] as Json[]).map((item) => (item['metadata'] as Json)['name'])).toEqual(['a', 'b']);
    const all = await getBoth('/api/v1/pods');
    expect(all.protobuf).toEqual(all.json);
  });

  it('watches pods as a protobuf stream: initial ADDED, then changes, each object whole', async () => {
    expect((await sendProtobuf('POST', pods, withoutServerFields(richPod, 'first'))).status).toBe(201);
    const watch = await readWatch(`${pods}?watch=1`, 3, async () => {
      expect((await sendProtobuf('POST', pods, withoutServerFields(richPod, 'second'))).status).toBe(201);
      expect((await harness.request('DELETE', `${pods}/first?gracePeriodSeconds=0`)).statusCode).toBe(200);
    });
    expect(watch.contentType).toBe(`${protobuf};stream=watch`);
    expect(watch.events.map((event) => [event.type, (event.object['metadata'] as Json)['name']])).toEqual([['ADDED', 'first'], ['ADDED', 'second'], ['DELETED', 'first']]);
    const second = (await harness.request('GET', `${pods}/second`)).json() as Json;
    expect(watch.events[1]!.object).toEqual(second);
  });

  it('a watch that accepts JSON first still answers JSON lines', async () => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}${pods}?watch=1`, { headers: { ...admin, accept: `application/json, ${protobuf}` }, signal: controller.signal });
    expect(response.headers.get('content-type')).toBe('application/json');
    controller.abort();
  });
});

describe('protobuf nodes, endpoints and events over HTTP', () => {
  it('Node: POST, PUT nodes/status and GET in protobuf; list and watch as protobuf', async () => {
    const { status: _status, ...node } = richNode;
    const created = await sendProtobuf('POST', '/api/v1/nodes', { ...node, metadata: { name: 'n1', labels: richNode.metadata.labels } });
    expect(created.status, created.body).toBe(201);
    const updated = await sendProtobuf('PUT', '/api/v1/nodes/n1/status', { ...created.object, status: richNode.status });
    expect(updated.status, updated.body).toBe(200);
    const { protobuf: viaProtobuf, json } = await getBoth('/api/v1/nodes/n1');
    expect(viaProtobuf).toEqual(json);
    // status.declaredFeatures and spec.podPreemptionPolicy are in the node schema: nothing is pruned.
    expect(json['status']).toEqual(richNode.status);
    expect(json['spec']).toEqual(richNode.spec);
    const list = await getBoth('/api/v1/nodes');
    expect(list.protobuf).toEqual(list.json);
    const watch = await readWatch('/api/v1/nodes?watch=1', 1, async () => {});
    expect(watch.events[0]).toEqual({ type: 'ADDED', object: json });
  });

  it('Endpoints: POST and PUT in protobuf, GET and list as protobuf equal to JSON', async () => {
    const url = '/api/v1/namespaces/t/endpoints';
    const created = await sendProtobuf('POST', url, validEndpoints);
    expect(created.status, created.body).toBe(201);
    const updated = await sendProtobuf('PUT', `${url}/web`, { ...created.object, subsets: validEndpoints.subsets.slice(0, 1) });
    expect(updated.status, updated.body).toBe(200);
    const { protobuf: viaProtobuf, json } = await getBoth(`${url}/web`);
    expect(viaProtobuf).toEqual(json);
    expect(json['subsets']).toEqual(validEndpoints.subsets.slice(0, 1));
    const list = await getBoth(url);
    expect(list.protobuf).toEqual(list.json);
  });

  it('events.k8s.io/v1 Event: POST in protobuf, GET and list as protobuf equal to JSON', async () => {
    const url = '/apis/events.k8s.io/v1/namespaces/t/events';
    const created = await sendProtobuf('POST', url, validEventsV1Event);
    expect(created.status, created.body).toBe(201);
    const { protobuf: viaProtobuf, json } = await getBoth(`${url}/web-0.1`);
    expect(viaProtobuf).toEqual(json);
    expect(json).toMatchObject({ eventTime: validEventsV1Event.eventTime, series: validEventsV1Event.series, regarding: validEventsV1Event.regarding });
    const list = await getBoth(url);
    expect(list.protobuf).toEqual(list.json);
  });
});
