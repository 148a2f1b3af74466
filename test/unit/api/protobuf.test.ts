// The Kubernetes protobuf wire format: envelope, every supported kind round-tripped through
// protobuf, bytes captured from a real kubectl, Go's zero-value rules, and the typed errors.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  decodeProtobufObject, encodeProtobufObject, isProtobufKind, isProtobufMediaType, protobufKinds,
  ProtobufDecodeError, ProtobufEncodeError,
} from '../../../api/codecs/protobuf.ts';

interface CapturedRequest {
  readonly command: string;
  readonly path: string;
  readonly contentType: string;
  readonly hex: string;
}

const captured = (JSON.parse(readFileSync(new URL('./fixtures/kubectl-protobuf-requests.json', import.meta.url), 'utf8')) as {
  requests: CapturedRequest[];
}).requests;

function capturedBody(commandStart: string): Buffer {
  const request = captured.find((entry) => entry.command.startsWith(commandStart));
  if (request === undefined) throw new Error(`no captured request for ${commandStart}`);
  return Buffer.from(request.hex, 'hex');
}

const prefix = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A runtime.Unknown envelope written with protobufjs' Writer straight from the field numbers. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array, contentEncoding?: string): Buffer {
  const writer = protobuf.Writer.create();
  writer.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string(apiVersion).uint32((2 << 3) | 2).string(kind).ldelim();
  writer.uint32((2 << 3) | 2).bytes(raw);
  if (contentEncoding !== undefined) writer.uint32((3 << 3) | 2).string(contentEncoding);
  return Buffer.concat([prefix, writer.finish()]);
}

function roundTrip(object: Record<string, unknown>): Record<string, unknown> {
  return decodeProtobufObject(encodeProtobufObject(object));
}

const metadata = {
  name: 'demo',
  namespace: 'team-a',
  uid: '6f1c4a52-3b0e-4c1e-9d55-0c6b2f1f7d11',
  resourceVersion: '1234',
  generation: 3,
  creationTimestamp: '2026-11-22T21:00:00Z',
  deletionTimestamp: '2026-11-23T08:30:15Z',
  deletionGracePeriodSeconds: 0,
  labels: { app: 'web', 'kstore.io/tier': 'front' },
  annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"a":1}\n', empty: '' },
  ownerReferences: [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'a1', controller: true, blockOwnerDeletion: false },
  ],
  finalizers: ['kubernetes.io/pv-protection', 'example.com/cleanup'],
  managedFields: [{
    manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: '2026-11-22T21:00:00Z',
    fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
  }],
};
const listMeta = { resourceVersion: '99', continue: 'eyJydiI6OTl9', remainingItemCount: 0 };

const namespace = {
  apiVersion: 'v1', kind: 'Namespace', metadata: { name: 't', labels: { 'kubernetes.io/metadata.name': 't' } },
  spec: { finalizers: ['kubernetes'] },
  status: {
    phase: 'Terminating',
    conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: '2026-11-22T21:00:05Z', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' }],
  },
};
const configMap = {
  apiVersion: 'v1', kind: 'ConfigMap', metadata, immutable: false,
  data: { 'app.properties': 'a=b\nc=d\n', empty: '' }, binaryData: { 'blob.bin': Buffer.from([0, 1, 0xfe, 0xff]).toString('base64') },
};
const secret = {
  apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default', creationTimestamp: null }, immutable: true, type: 'kubernetes.io/basic-auth',
  data: { username: Buffer.from('admin').toString('base64'), password: Buffer.from([0x00, 0xc3, 0x28, 0xff]).toString('base64') },
  stringData: { note: 'plain' },
};
const serviceAccount = {
  apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'ci' },
  secrets: [{ kind: 'Secret', namespace: 'ci', name: 'builder-token', uid: 'u2', apiVersion: 'v1', resourceVersion: '5', fieldPath: 'data' }],
  imagePullSecrets: [{ name: 'registry' }], automountServiceAccountToken: false,
};
const event = {
  apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.17a', namespace: 'default' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'p1', apiVersion: 'v1', resourceVersion: '10', fieldPath: 'spec.containers{web}' },
  reason: 'Scheduled', message: 'Successfully assigned default/web to node-1', source: { component: 'default-scheduler', host: 'node-1' },
  firstTimestamp: '2026-11-22T21:00:00Z', lastTimestamp: '2026-11-22T21:05:00Z', count: 4, type: 'Normal',
  eventTime: '2026-11-22T21:00:00.123456Z', series: { count: 2, lastObservedTime: '2026-11-22T21:04:59.000001Z' },
  action: 'Binding', related: { kind: 'Node', name: 'node-1' }, reportingComponent: '', reportingInstance: 'scheduler-0',
};
const lease = {
  apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kube-scheduler', namespace: 'kube-system' },
  spec: {
    holderIdentity: 'node-1_4f2a', leaseDurationSeconds: 15, acquireTime: '2026-11-22T21:00:00.000000Z',
    renewTime: '2026-11-22T21:00:10.654321Z', leaseTransitions: 0, strategy: 'OldestEmulationVersion', preferredHolder: '',
  },
};
const status = {
  apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'configmaps "c" already exists', reason: 'AlreadyExists',
  details: { name: 'c', kind: 'configmaps', uid: 'u3', causes: [{ reason: 'FieldValueDuplicate', message: 'duplicate', field: 'metadata.name' }], retryAfterSeconds: 1 },
  code: 409,
};
const deleteOptions = {
  apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: 'u4', resourceVersion: '' },
  orphanDependents: false, propagationPolicy: 'Foreground', dryRun: ['All'], ignoreStoreReadErrorWithClusterBreakingPotential: false,
};

function list(apiVersion: string, kind: string, items: Record<string, unknown>[]): Record<string, unknown> {
  return { apiVersion, kind, metadata: listMeta, items: items.map(({ apiVersion: _a, kind: _k, ...item }) => item) };
}

describe('isProtobufMediaType', () => {
  it('accepts the protobuf media type with or without parameters', () => {
    expect(isProtobufMediaType('application/vnd.kubernetes.protobuf')).toBe(true);
    expect(isProtobufMediaType('Application/VND.Kubernetes.Protobuf; charset=binary')).toBe(true);
    expect(isProtobufMediaType('application/vnd.kubernetes.protobuf;stream=watch')).toBe(true);
  });

  it('rejects other media types and a missing header', () => {
    expect(isProtobufMediaType('application/json')).toBe(false);
    expect(isProtobufMediaType('application/vnd.kubernetes.protobuf.other')).toBe(false);
    expect(isProtobufMediaType(undefined)).toBe(false);
  });
});

describe('protobufKinds', () => {
  it('lists the supported apiVersion/kind pairs', () => {
    expect(protobufKinds()).toEqual(expect.arrayContaining([
      'v1/Namespace', 'v1/NamespaceList', 'v1/ConfigMap', 'v1/ConfigMapList', 'v1/Secret', 'v1/SecretList',
      'v1/ServiceAccount', 'v1/ServiceAccountList', 'v1/Event', 'v1/EventList', 'v1/Status', 'v1/DeleteOptions',
      'coordination.k8s.io/v1/Lease', 'coordination.k8s.io/v1/LeaseList', 'coordination.k8s.io/v1/DeleteOptions',
    ]));
    expect(isProtobufKind('v1', 'Widget')).toBe(false);
    expect(isProtobufKind('v1', 'Pod')).toBe(true);
    expect(isProtobufKind('coordination.k8s.io/v1', 'Lease')).toBe(true);
  });
});

// gogo-protobuf writes every non-pointer field, so creationTimestamp arrives as an empty Time:
// Go's zero time, which kube's JSON shows as null.
describe('bodies sent by a real kubectl (v1.32, captured verbatim)', () => {
  it('kubectl create namespace t', () => {
    expect(decodeProtobufObject(capturedBody('kubectl create namespace t')))
      .toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 't', creationTimestamp: null }, spec: {}, status: {} });
  });

  it('kubectl create configmap --from-literal', () => {
    expect(decodeProtobufObject(capturedBody('kubectl create configmap c ')))
      .toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', creationTimestamp: null }, data: { a: 'b' } });
  });

  it('kubectl create configmap --from-file with a binary file fills binaryData', () => {
    expect(decodeProtobufObject(capturedBody('kubectl create configmap bin '))).toEqual({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bin', namespace: 'default', creationTimestamp: null },
      data: { 'text.txt': 'hello' }, binaryData: { 'blob.bin': Buffer.from([0, 1, 0xfe, 0xff, 0x62, 0x69, 0x6e]).toString('base64') },
    });
  });

  it('kubectl create secret generic: data as base64, empty type omitted', () => {
    expect(decodeProtobufObject(capturedBody('kubectl create secret generic'))).toEqual({
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default', creationTimestamp: null },
      data: { password: Buffer.from('hunter2').toString('base64') },
    });
  });

  it('kubectl create serviceaccount', () => {
    expect(decodeProtobufObject(capturedBody('kubectl create serviceaccount')))
      .toEqual({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'default', creationTimestamp: null } });
  });

  it('every captured request used the protobuf media type', () => {
    expect(captured.length).toBeGreaterThanOrEqual(5);
    for (const request of captured) expect(isProtobufMediaType(request.contentType)).toBe(true);
  });
});

describe('round trips: JSON → protobuf → JSON', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['Namespace', namespace],
    ['NamespaceList', list('v1', 'NamespaceList', [namespace, { ...namespace, metadata: { name: 'u' } }])],
    ['ConfigMap', configMap],
    ['ConfigMapList', list('v1', 'ConfigMapList', [configMap])],
    ['Secret', secret],
    ['SecretList', list('v1', 'SecretList', [secret])],
    ['ServiceAccount', serviceAccount],
    ['ServiceAccountList', list('v1', 'ServiceAccountList', [serviceAccount])],
    ['Event', event],
    ['EventList', list('v1', 'EventList', [event])],
    ['Lease', lease],
    ['LeaseList', list('coordination.k8s.io/v1', 'LeaseList', [lease])],
    ['Status', status],
    ['DeleteOptions', deleteOptions],
    ['DeleteOptions in coordination.k8s.io/v1', { ...deleteOptions, apiVersion: 'coordination.k8s.io/v1' }],
    ['DeleteOptions in meta.k8s.io/v1', { ...deleteOptions, apiVersion: 'meta.k8s.io/v1' }],
    ['empty list', { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' } }],
  ];

  it.each(cases)('%s', (_name, object) => {
    expect(roundTrip(object)).toEqual(object);
  });

  it('keeps Secret bytes exact, including invalid UTF-8', () => {
    const decoded = roundTrip(secret) as { data: Record<string, string> };
    expect(Buffer.from(decoded.data['password'] ?? '', 'base64')).toEqual(Buffer.from([0x00, 0xc3, 0x28, 0xff]));
  });
});

describe('JSON shape rules', () => {
  it('writes metav1.Time in whole seconds and MicroTime with 6 fractional digits, in UTC', () => {
    const decoded = roundTrip({
      ...event, firstTimestamp: '2026-11-22T22:00:00.987+01:00', eventTime: '2026-11-22T21:00:00.123456789Z',
    });
    expect(decoded['firstTimestamp']).toBe('2026-11-22T21:00:00Z');
    expect(decoded['eventTime']).toBe('2026-11-22T21:00:00.123456Z');
  });

  it('drops empty maps and lists and null fields', () => {
    const decoded = roundTrip({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: {}, finalizers: [], annotations: null }, data: {},
    });
    expect(decoded).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  });

  it('drops zero scalars Go omits but keeps pointer and non-omitempty ones', () => {
    const decoded = roundTrip({
      apiVersion: 'v1', kind: 'Event', metadata: { name: '', generation: 0 }, involvedObject: { kind: '' }, count: 0,
      reportingComponent: '', reportingInstance: '',
    });
    expect(decoded).toEqual({ apiVersion: 'v1', kind: 'Event', metadata: {}, involvedObject: {}, reportingComponent: '', reportingInstance: '' });
  });

  it('encodes map entries in key order, so output does not depend on insertion order', () => {
    const a = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { b: '2', a: '1' } });
    const b = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', b: '2' } });
    expect(a).toEqual(b);
  });
});

describe('wire bytes', () => {
  it('encodes the envelope like kube-apiserver: prefix, typeMeta, raw, empty contentEncoding and contentType', () => {
    const bytes = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', creationTimestamp: null }, data: { a: 'b' } });
    expect(bytes.toString('hex')).toBe([
      '6b387300', // "k8s\0"
      '0a0f', '0a027631', '1209436f6e6669674d6170', // typeMeta(1){apiVersion(1) "v1", kind(2) "ConfigMap"}
      '1218', // raw(2), 24 bytes: ConfigMap
      '0a0e', '0a0163', '1a0764656661756c74', // metadata(1){name(1) "c", namespace(3) "default",
      '4200', //   creationTimestamp(8) null: Go's zero Time, an empty message as gogo writes it}
      '1206', '0a0161', '120162', // data(2) entry {key(1) "a", value(2) "b"}
      '1a00', '2200', // contentEncoding(3) "", contentType(4) ""
    ].join(''));
  });

  it('decodes a Lease written field by field (spec.acquireTime is a MicroTime)', () => {
    const writer = protobuf.Writer.create();
    writer.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string('l').uint32((3 << 3) | 2).string('kube-node-lease').ldelim();
    writer.uint32((2 << 3) | 2).fork()
      .uint32((1 << 3) | 2).string('node-1')
      .uint32(2 << 3).int32(40)
      .uint32((3 << 3) | 2).fork().uint32(1 << 3).int64(1795381200).uint32(2 << 3).int32(123456789).ldelim()
      .ldelim();
    expect(decodeProtobufObject(envelope('coordination.k8s.io/v1', 'Lease', writer.finish()))).toEqual({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'kube-node-lease' },
      spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, acquireTime: '2026-11-22T21:00:00.123456Z' },
    });
  });
});

describe('errors', () => {
  const validBody = capturedBody('kubectl create configmap c ');

  it('rejects a wrong prefix', () => {
    const body = Buffer.from(validBody);
    body[3] = 0x01;
    expect(() => decodeProtobufObject(body)).toThrow(ProtobufDecodeError);
    expect(() => decodeProtobufObject(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(/prefix/);
    expect(() => decodeProtobufObject(Buffer.from([0x6b, 0x38]))).toThrow(ProtobufDecodeError);
  });

  it('rejects a truncated body', () => {
    expect(() => decodeProtobufObject(validBody.subarray(0, validBody.length - 10))).toThrow(ProtobufDecodeError);
    expect(() => decodeProtobufObject(validBody.subarray(0, 12))).toThrow(ProtobufDecodeError);
  });

  it('rejects a truncated object inside a complete envelope', () => {
    const raw = Buffer.from('0a0c0a0163', 'hex'); // metadata claims 12 bytes, holds 3
    expect(() => decodeProtobufObject(envelope('v1', 'ConfigMap', raw))).toThrow(ProtobufDecodeError);
  });

  it('names an unknown kind', () => {
    expect(() => decodeProtobufObject(envelope('v1', 'Widget', new Uint8Array()))).toThrow(/kind "Widget" in version "v1"/);
    expect(() => decodeProtobufObject(envelope('v1', 'Widget', new Uint8Array()))).toThrow(ProtobufDecodeError);
  });

  it('rejects a missing kind and an encoded payload', () => {
    expect(() => decodeProtobufObject(envelope('v1', '', new Uint8Array()))).toThrow(ProtobufDecodeError);
    expect(() => decodeProtobufObject(envelope('v1', 'ConfigMap', new Uint8Array(), 'gzip'))).toThrow(/gzip/);
  });

  it('refuses to encode unsupported kinds and malformed times', () => {
    expect(() => encodeProtobufObject({ apiVersion: 'example.com/v1', kind: 'Widget' })).toThrow(ProtobufEncodeError);
    expect(() => encodeProtobufObject({ ...lease, spec: { renewTime: 'yesterday' } })).toThrow(ProtobufEncodeError);
    expect(() => encodeProtobufObject({ ...configMap, data: ['a'] })).toThrow(ProtobufEncodeError);
  });
});
