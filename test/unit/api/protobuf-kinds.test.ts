// The protobuf wire format of Pod, Node, Endpoints, Binding, events.k8s.io/v1 and core/v1 Event
// and their lists: rich objects (every field family filled) survive JSON → protobuf → JSON,
// Go's zero-value rules per field, embedded (inline) structs, Quantity, and watch framing.
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  decodeProtobufObject, decodeProtobufWatchEvents, encodeProtobufObject, encodeProtobufWatchEvent, isProtobufKind,
} from '../../../api/codecs/protobuf.ts';
import { container, richCoreEvent, richEndpoints, richEventsV1Event, richNode, richPod, volumes } from './protobuf-kinds-fixtures.ts';

function roundTrip(object: Record<string, unknown>): Record<string, unknown> {
  return decodeProtobufObject(encodeProtobufObject(object));
}

/** Drops apiVersion/kind, as list items are served. */
function item(object: Record<string, unknown>): Record<string, unknown> {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest;
}

describe('protobuf kinds: every served kind has a message', () => {
  it.each([
    ['v1', 'Pod'], ['v1', 'PodList'], ['v1', 'Node'], ['v1', 'NodeList'], ['v1', 'Endpoints'], ['v1', 'EndpointsList'],
    ['v1', 'Binding'], ['v1', 'Event'], ['v1', 'EventList'], ['events.k8s.io/v1', 'Event'], ['events.k8s.io/v1', 'EventList'],
    ['v1', 'Service'], ['v1', 'ServiceList'], ['v1', 'Namespace'], ['v1', 'ConfigMap'], ['v1', 'Secret'], ['v1', 'ServiceAccount'],
    ['coordination.k8s.io/v1', 'Lease'], ['policy/v1', 'Eviction'],
    ['events.k8s.io/v1', 'DeleteOptions'], ['policy/v1', 'DeleteOptions'], ['events.k8s.io/v1', 'Status'],
  ])('%s %s', (apiVersion, kind) => {
    expect(isProtobufKind(apiVersion, kind)).toBe(true);
  });
});

describe('protobuf kinds: rich objects round-trip equal to their JSON', () => {
  it('Pod: spec (containers, init and ephemeral containers, every volume source, probes, lifecycle, security, affinity, ...) and status', () => {
    expect(roundTrip(richPod)).toEqual(richPod);
  });

  it('Node: spec with taints and config source, status with capacity, conditions, addresses, nodeInfo, images, ...', () => {
    expect(roundTrip(richNode)).toEqual(richNode);
  });

  it('Endpoints: subsets with ready and not-ready addresses, target refs and ports', () => {
    expect(roundTrip(richEndpoints)).toEqual(richEndpoints);
  });

  it('events.k8s.io/v1 Event: MicroTime eventTime and series, regarding/related, deprecated fields', () => {
    expect(roundTrip(richEventsV1Event)).toEqual(richEventsV1Event);
  });

  it('core/v1 Event', () => {
    expect(roundTrip(richCoreEvent)).toEqual(richCoreEvent);
  });

  it('Binding (kube-scheduler\'s pods/binding body)', () => {
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web-0', namespace: 't', uid: 'u-1' }, target: { kind: 'Node', name: 'n1', apiVersion: 'v1' } };
    expect(roundTrip(binding)).toEqual(binding);
  });

  it.each([
    ['PodList', 'v1', richPod], ['NodeList', 'v1', richNode], ['EndpointsList', 'v1', richEndpoints],
    ['EventList', 'events.k8s.io/v1', richEventsV1Event], ['EventList', 'v1', richCoreEvent],
  ])('%s (%s) with list metadata', (kind, apiVersion, object) => {
    const list = { apiVersion, kind, metadata: { resourceVersion: '99', continue: 'c', remainingItemCount: 0 }, items: [item(object), item(object)] };
    expect(roundTrip(list)).toEqual(list);
  });

  it('every volume source survives on its own (one volume per source kind)', () => {
    for (const volume of volumes) {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { volumes: [volume], containers: [{ name: 'c' }] } };
      expect(roundTrip(pod), volume.name).toEqual(pod);
    }
  });
});

describe('protobuf kinds: JSON shape rules', () => {
  it('drops omitempty zero values, keeps pointer and non-omitempty ones (Go\'s protobuf → struct → JSON)', () => {
    const pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: {
        containers: [{ name: '', image: '', ports: [{ containerPort: 0, hostPort: 0 }], stdin: false }],
        hostNetwork: false, nodeName: '', priority: 0, automountServiceAccountToken: false, enableServiceLinks: false,
      },
      status: { phase: '', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: '', imageID: '', containerID: '', started: false, state: {} }] },
    };
    expect(roundTrip(pod)).toEqual({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: { containers: [{ name: '', ports: [{ containerPort: 0 }] }], priority: 0, automountServiceAccountToken: false, enableServiceLinks: false },
      status: { containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: '', imageID: '', started: false, state: {} }] },
    });
  });

  it('fields absent in JSON stay absent (no zero values appear)', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } };
    expect(roundTrip(pod)).toEqual(pod);
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } };
    expect(roundTrip(node)).toEqual(node);
  });

  it('inline structs: VolumeSource in Volume, ProbeHandler in Probe, LocalObjectReference in selectors, the common part of an ephemeral container', () => {
    const pod = decodeProtobufObject(encodeProtobufObject(richPod)) as typeof richPod;
    expect(pod.spec.volumes.find((volume) => volume.name === 'cm')).toEqual({ name: 'cm', configMap: { name: 'settings', items: [{ key: 'a', path: 'a.txt' }], defaultMode: 0, optional: true } });
    expect(pod.spec.containers[0]!.livenessProbe.httpGet.port).toBe('http');
    expect(pod.spec.ephemeralContainers[0]).toMatchObject({ name: 'debugger', targetContainerName: 'app' });
    expect(container.envFrom[0]).toEqual(pod.spec.containers[0]!.envFrom[0]);
  });

  it('Quantity is its string; a number in JSON is written as its text; Go\'s empty Quantity reads as "0"', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { limits: { cpu: 2, memory: '1Gi' } } }] } };
    expect(roundTrip(pod)).toEqual({ ...pod, spec: { containers: [{ name: 'c', resources: { limits: { cpu: '2', memory: '1Gi' } } }] } });
    expect(() => encodeProtobufObject({ ...pod, spec: { containers: [{ name: 'c', resources: { limits: { cpu: true } } }] } })).toThrow(/not a quantity/);
  });

  it('targetPort-style IntOrString: a named port and port 0 both survive in probes', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', readinessProbe: { tcpSocket: { port: 0 } }, livenessProbe: { httpGet: { port: 'web' } } }] } };
    expect(roundTrip(pod)).toEqual(pod);
  });
});

describe('protobuf kinds: watch framing', () => {
  it('frames each event as a 4-byte big-endian length and a WatchEvent whose object is the prefixed envelope', () => {
    const frame = encodeProtobufWatchEvent('ADDED', richNode);
    const length = frame.readUInt32BE(0);
    expect(length).toBe(frame.length - 4);
    const reader = protobuf.Reader.create(frame.subarray(4));
    expect(reader.uint32()).toBe((1 << 3) | 2);
    expect(reader.string()).toBe('ADDED');
    expect(reader.uint32()).toBe((2 << 3) | 2);
    const rawExtension = protobuf.Reader.create(reader.bytes());
    expect(rawExtension.uint32()).toBe((1 << 3) | 2);
    const raw = Buffer.from(rawExtension.bytes());
    expect(raw.subarray(0, 4)).toEqual(Buffer.from('k8s\0', 'latin1'));
    expect(decodeProtobufObject(raw)).toEqual(richNode);
  });

  it('a stream of several events splits back into them', () => {
    const status = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'too old', reason: 'Expired', code: 410 };
    const stream = Buffer.concat([encodeProtobufWatchEvent('ADDED', richPod), encodeProtobufWatchEvent('DELETED', richEndpoints), encodeProtobufWatchEvent('ERROR', status)]);
    expect(decodeProtobufWatchEvents(stream)).toEqual([
      { type: 'ADDED', object: richPod }, { type: 'DELETED', object: richEndpoints }, { type: 'ERROR', object: status },
    ]);
    expect(() => decodeProtobufWatchEvents(stream.subarray(0, stream.length - 1))).toThrow(/truncated/);
  });
});
