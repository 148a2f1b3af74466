// The storage kinds through the API: core/v1 PersistentVolumes and PersistentVolumeClaims
// (defaults, status reset and kept, kube's validation and claim immutability, printers, the
// legacy `name` field selector), storage.k8s.io/v1 StorageClasses, CSIDrivers, CSINodes,
// VolumeAttachments and CSIStorageCapacities, quantities stored in canonical form, and the
// computed componentstatuses with their deprecation warning.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { formatQuantity, parseQuantity } from '../../../api/registry/strategy-quota.ts';
import { createdObject, invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let harness: Harness;
const pvs = '/api/v1/persistentvolumes';
const pvcs = '/api/v1/namespaces/t/persistentvolumeclaims';
const classes = '/apis/storage.k8s.io/v1/storageclasses';
const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const create = (url: string, object: Json): Promise<Json> => createdObject<Json>(harness, url, object);

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

async function table(url: string): Promise<Json> {
  const response = await harness.request('GET', url, undefined, tableAccept);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

function volume(name: string, spec: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, ...spec } };
}

function claim(name: string, spec: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } };
}

describe('quantities', () => {
  it('are parsed and written in kube\'s canonical form', () => {
    const canonical = (text: string): string => formatQuantity(parseQuantity(text)!);
    expect(canonical('1Gi')).toBe('1Gi');
    expect(canonical('2048Mi')).toBe('2Gi');
    expect(canonical('1.5Gi')).toBe('1536Mi');
    expect(canonical('0.5')).toBe('500m');
    expect(canonical('1000m')).toBe('1');
    expect(canonical('1500')).toBe('1500');
    expect(canonical('10000')).toBe('10k');
    expect(canonical('100Ki')).toBe('100Ki');
    expect(canonical('512')).toBe('512');
    expect(canonical('1e3')).toBe('1e3');
    expect(canonical('0')).toBe('0');
    expect(canonical('-1')).toBe('-1');
    for (const bad of ['', 'abc', '1Gib', '1.2.3', '1e', '1 Gi']) expect(parseQuantity(bad), bad).toBeUndefined();
  });
});

describe('persistentvolumes', () => {
  it('are created with kube\'s defaults and a Pending status stamped at creation, whatever status was sent', async () => {
    const created = await create(pvs, { ...volume('pv1', { capacity: { storage: '2048Mi' } }), status: { phase: 'Bound' } });
    expect(created.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/data', type: '' }, capacity: { storage: '2Gi' } });
    expect(created.status).toEqual({ phase: 'Pending', lastPhaseTransitionTime: created.metadata.creationTimestamp });
    expect(created.metadata).not.toHaveProperty('namespace');
  });

  it('keep status on writes to the main resource and take it through /status', async () => {
    const created = await create(pvs, volume('pv1'));
    const status = await harness.request('PUT', `${pvs}/pv1/status`, { ...created, status: { phase: 'Available' } });
    expect(status.statusCode, status.body).toBe(200);
    const updated = await harness.request('PUT', `${pvs}/pv1`, { ...(status.json() as Json), metadata: { ...status.json().metadata, labels: { a: 'b' } }, status: { phase: 'Failed' } });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().status.phase).toBe('Available');
    expect(updated.json().metadata.labels).toEqual({ a: 'b' });
  });

  it('validate as kube-apiserver does', async () => {
    const none = await causesOf('POST', pvs, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'bad' }, spec: {} });
    expect(none).toEqual(expect.arrayContaining([
      { field: 'spec.accessModes', message: 'Required value' },
      { field: 'spec.capacity', message: 'Required value' },
      { field: 'spec.capacity', message: 'Unsupported value: {}: supported values: "storage"' },
      { field: 'spec', message: 'Required value: must specify a volume type' },
    ]));
    expect(await causesOf('POST', pvs, volume('bad', { nfs: { server: 'nfs', path: '/x' } }))).toEqual([{ field: 'spec.nfs', message: 'Forbidden: may not specify more than 1 volume type' }]);
    expect(await causesOf('POST', pvs, volume('bad', { accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] }))).toEqual([{ field: 'spec.accessModes', message: 'Forbidden: may not use ReadWriteOncePod with other access modes' }]);
    expect(await causesOf('POST', pvs, volume('bad', { accessModes: ['Sometimes'] }))).toEqual([{ field: 'spec.accessModes', message: 'Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"' }]);
    expect(await causesOf('POST', pvs, volume('bad', { capacity: { storage: '0' } }))).toEqual([{ field: 'spec.capacity[storage]', message: 'Invalid value: "0": must be greater than zero' }]);
    // A value that is no quantity fails the decode (resource.Quantity's UnmarshalJSON), before validation.
    const notQuantity = await harness.request('POST', pvs, volume('bad', { capacity: { storage: 'lots' } }));
    expect(notQuantity.statusCode).toBe(400);
    expect(notQuantity.json().message).toBe('PersistentVolume in version "v1" cannot be handled as a PersistentVolume: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
    expect(await causesOf('POST', pvs, volume('bad', { persistentVolumeReclaimPolicy: 'Keep' }))).toEqual([{ field: 'spec.persistentVolumeReclaimPolicy', message: 'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"' }]);
    expect(await causesOf('POST', pvs, volume('bad', { hostPath: undefined, local: { path: '/mnt' } }))).toEqual([{ field: 'spec.nodeAffinity', message: 'Required value: Local volume requires node affinity' }]);
  });

  it('keep the volume source immutable', async () => {
    const created = await create(pvs, volume('pv1'));
    const causes = await causesOf('PUT', `${pvs}/pv1`, { ...created, spec: { ...created.spec, hostPath: { path: '/other', type: '' } } });
    expect(causes).toEqual([{ field: 'spec.persistentvolumesource', message: 'Forbidden: spec.persistentvolumesource is immutable after creation' }]);
  });

  it('print kube\'s columns and answer the legacy name field selector', async () => {
    await create(pvs, volume('pv1', { claimRef: { namespace: 't', name: 'data' }, storageClassName: 'fast', accessModes: ['ReadOnlyMany', 'ReadWriteOnce'] }));
    await create(pvs, volume('pv2'));
    const printed = await table(pvs);
    expect(printed.columnDefinitions.map((column: Json) => [column.name, column.priority])).toEqual([
      ['Name', 0], ['Capacity', 0], ['Access Modes', 0], ['Reclaim Policy', 0], ['Status', 0], ['Claim', 0], ['StorageClass', 0],
      ['VolumeAttributesClass', 0], ['Reason', 0], ['Age', 0], ['VolumeMode', 1],
    ]);
    const row = printed.rows[0].cells;
    expect([...row.slice(0, 9), row[10]]).toEqual(['pv1', '1Gi', 'RWO,ROX', 'Retain', 'Pending', 't/data', 'fast', '<unset>', '', 'Filesystem']);
    const selected = await harness.request('GET', `${pvs}?fieldSelector=name%3Dpv2`);
    expect(selected.json().items.map((item: Json) => item.metadata.name)).toEqual(['pv2']);
  });
});

describe('persistentvolumeclaims', () => {
  it('are created Pending with volumeMode Filesystem and a canonical request', async () => {
    const created = await create(pvcs, { ...claim('data', { resources: { requests: { storage: '1536Mi' } } }), status: { phase: 'Bound' } });
    expect(created.status).toEqual({ phase: 'Pending' });
    expect(created.spec).toMatchObject({ volumeMode: 'Filesystem', resources: { requests: { storage: '1536Mi' } } });
    // kube 1.33 serves VolumeAttributesClass off: the field is dropped.
    const vac = await create(pvcs, claim('vac', { volumeAttributesClassName: 'gold' }));
    expect(vac.spec).not.toHaveProperty('volumeAttributesClassName');
    // The two data source fields are filled from each other.
    const cloned = await create(pvcs, claim('clone', { dataSource: { kind: 'PersistentVolumeClaim', name: 'data' } }));
    expect(cloned.spec.dataSourceRef).toEqual({ kind: 'PersistentVolumeClaim', name: 'data' });
    const restored = await create(pvcs, claim('restore', { dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' } }));
    expect(restored.spec.dataSource).toEqual({ apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' });
  });

  it('validate as kube-apiserver does', async () => {
    expect(await causesOf('POST', pvcs, claim('bad', { accessModes: [], resources: {} }))).toEqual([
      { field: 'spec.accessModes', message: 'Required value: at least 1 access mode is required' },
      { field: 'spec.resources[storage]', message: 'Required value' },
    ]);
    expect(await causesOf('POST', pvcs, claim('bad', { resources: { requests: { storage: '-1Gi' } } }))).toEqual([{ field: 'spec.resources[storage]', message: 'Invalid value: "-1Gi": must be greater than zero' }]);
    expect(await causesOf('POST', pvcs, claim('bad', { volumeMode: 'Raw' }))).toEqual([{ field: 'spec.volumeMode', message: 'Unsupported value: "Raw": supported values: "Block", "Filesystem"' }]);
    expect(await causesOf('POST', pvcs, claim('bad', { storageClassName: 'Fast_SSD' }))).toEqual([expect.objectContaining({ field: 'spec.storageClassName' })]);
    // dataSourceRef is filled from dataSource first, so both are reported.
    expect(await causesOf('POST', pvcs, claim('bad', { dataSource: { kind: 'Snapshot', name: 's' } }))).toEqual(['spec.dataSource', 'spec.dataSourceRef'].map((field) => (
      { field, message: 'Invalid value: "Snapshot": must be \'PersistentVolumeClaim\' when referencing the default apiGroup' })));
  });

  it('keep the spec immutable except volumeName once and, bound, a larger request', async () => {
    const created = await create(pvcs, claim('data'));
    const immutable = await causesOf('PUT', `${pvcs}/data`, { ...created, spec: { ...created.spec, accessModes: ['ReadWriteMany'] } });
    expect(immutable).toEqual([{ field: 'spec', message: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' }]);
    // An unbound claim may not grow.
    expect(await causesOf('PUT', `${pvcs}/data`, { ...created, spec: { ...created.spec, resources: { requests: { storage: '2Gi' } } } }))
      .toEqual([{ field: 'spec', message: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' }]);
    const named = await harness.request('PUT', `${pvcs}/data`, { ...created, spec: { ...created.spec, volumeName: 'pv1' } });
    expect(named.statusCode, named.body).toBe(200);
    expect(await causesOf('PUT', `${pvcs}/data`, { ...(named.json() as Json), spec: { ...named.json().spec, volumeName: 'pv2' } }))
      .toEqual([{ field: 'spec', message: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' }]);
    const bound = await harness.request('PUT', `${pvcs}/data/status`, { ...(named.json() as Json), status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } });
    expect(bound.statusCode, bound.body).toBe(200);
    const grown = await harness.request('PUT', `${pvcs}/data`, { ...(bound.json() as Json), spec: { ...bound.json().spec, resources: { requests: { storage: '2Gi' } } } });
    expect(grown.statusCode, grown.body).toBe(200);
    expect(grown.json().status.phase).toBe('Bound');
    expect(await causesOf('PUT', `${pvcs}/data`, { ...grown.json(), spec: { ...grown.json().spec, resources: { requests: { storage: '1Gi' } } } }))
      .toEqual([{ field: 'spec.resources.requests.storage', message: 'Forbidden: field can not be less than status.capacity' }]);
  });

  it('print kube\'s columns: capacity and access modes once a volume is named', async () => {
    const created = await create(pvcs, claim('data', { storageClassName: 'fast' }));
    let printed = await table(pvcs);
    expect(printed.columnDefinitions.map((column: Json) => [column.name, column.priority])).toEqual([
      ['Name', 0], ['Status', 0], ['Volume', 0], ['Capacity', 0], ['Access Modes', 0], ['StorageClass', 0], ['VolumeAttributesClass', 0], ['Age', 0], ['VolumeMode', 1],
    ]);
    expect(printed.rows[0].cells.slice(0, 7)).toEqual(['data', 'Pending', '', '', '', 'fast', '<unset>']);
    const named = (await harness.request('PUT', `${pvcs}/data`, { ...created, spec: { ...created.spec, volumeName: 'pv1' } })).json();
    await harness.request('PUT', `${pvcs}/data/status`, { ...named, status: { phase: 'Bound', capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce', 'ReadWriteMany'] } });
    printed = await table(pvcs);
    expect(printed.rows[0].cells.slice(0, 5)).toEqual(['data', 'Bound', 'pv1', '5Gi', 'RWO,RWX']);
  });
});

describe('storageclasses', () => {
  const storageClass = (name: string, extra: Json = {}): Json => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/nfs', ...extra });

  it('are defaulted, keep provisioner and parameters immutable, and print "(default)"', async () => {
    const created = await create(classes, storageClass('fast', { parameters: { type: 'ssd' }, metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } }));
    expect(created).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const causes = await causesOf('PUT', `${classes}/fast`, { ...created, provisioner: 'example.com/other', parameters: { type: 'hdd' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' });
    expect(causes).toEqual([
      { field: 'parameters', message: 'Forbidden: updates to parameters are forbidden.' },
      { field: 'provisioner', message: 'Forbidden: updates to provisioner are forbidden.' },
      { field: 'reclaimPolicy', message: 'Forbidden: updates to reclaimPolicy are forbidden.' },
      { field: 'volumeBindingMode', message: 'Invalid value: "WaitForFirstConsumer": field is immutable' },
    ]);
    const expanded = await harness.request('PUT', `${classes}/fast`, { ...created, allowVolumeExpansion: true });
    expect(expanded.statusCode, expanded.body).toBe(200);
    const printed = await table(classes);
    expect(printed.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    expect(printed.rows[0].cells.slice(0, 5)).toEqual(['fast (default)', 'example.com/nfs', 'Delete', 'Immediate', true]);
  });

  it('validate as kube-apiserver does', async () => {
    expect(await causesOf('POST', classes, storageClass('bad', { provisioner: '' }))).toEqual([{ field: 'provisioner', message: 'Required value' }]);
    expect(await causesOf('POST', classes, storageClass('bad', { reclaimPolicy: 'Recycle' }))).toEqual([{ field: 'reclaimPolicy', message: 'Unsupported value: "Recycle": supported values: "Delete", "Retain"' }]);
    expect(await causesOf('POST', classes, storageClass('bad', { volumeBindingMode: 'Later' }))).toEqual([{ field: 'volumeBindingMode', message: 'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"' }]);
  });

  it('are served in protobuf', async () => {
    const created = await create(classes, storageClass('fast'));
    const bytes = encodeProtobufObject(created);
    expect(decodeProtobufObject(bytes)).toMatchObject({ kind: 'StorageClass', provisioner: 'example.com/nfs', reclaimPolicy: 'Delete' });
  });
});

describe('csi kinds and volume attachments', () => {
  const group = '/apis/storage.k8s.io/v1';

  it('default a CSIDriver as kube does and print its columns', async () => {
    const created = await create(`${group}/csidrivers`, { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: {} });
    expect(created.spec).toEqual({
      attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'],
      requiresRepublish: false, seLinuxMount: false,
    });
    const immutable = await causesOf('PUT', `${group}/csidrivers/csi.example.com`, { ...created, spec: { ...created.spec, attachRequired: false } });
    expect(immutable).toEqual([{ field: 'spec.attachRequired', message: 'Invalid value: false: field is immutable' }]);
    const printed = await table(`${group}/csidrivers`);
    expect(printed.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age']);
    expect(printed.rows[0].cells.slice(0, 7)).toEqual(['csi.example.com', true, false, false, '<unset>', false, 'Persistent']);
  });

  it('count a CSINode\'s drivers and reject one without a node ID', async () => {
    await create(`${group}/csinodes`, { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-1' }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1' }] } });
    expect((await table(`${group}/csinodes`)).rows[0].cells.slice(0, 2)).toEqual(['node-1', 1]);
    expect(await causesOf('POST', `${group}/csinodes`, { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-2' }, spec: { drivers: [{ name: 'csi.example.com' }] } }))
      .toEqual([{ field: 'spec.drivers[0].nodeID', message: 'Required value' }]);
  });

  it('keep a VolumeAttachment\'s spec immutable, its status reset on create and written through /status', async () => {
    const url = `${group}/volumeattachments`;
    const attachment = { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va1' }, spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv1' } }, status: { attached: true } };
    const created = await create(url, attachment);
    expect(created).not.toHaveProperty('status');
    expect(await causesOf('POST', url, { ...attachment, metadata: { name: 'va2' }, spec: { attacher: '', nodeName: 'node-1', source: {} } })).toEqual([
      { field: 'spec.attacher', message: 'Required value' },
      { field: 'spec.source', message: 'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName' },
    ]);
    const changed = await causesOf('PUT', `${url}/va1`, { ...created, spec: { ...created.spec, nodeName: 'node-2' } });
    expect(changed.map((cause) => cause.field)).toEqual(['spec']);
    const status = await harness.request('PUT', `${url}/va1/status`, { ...created, status: { attached: true } });
    expect(status.statusCode, status.body).toBe(200);
    expect((await table(url)).rows[0].cells.slice(0, 5)).toEqual(['va1', 'csi.example.com', 'pv1', 'node-1', true]);
  });

  it('store a CSIStorageCapacity\'s capacity canonical and print it', async () => {
    const url = '/apis/storage.k8s.io/v1/namespaces/t/csistoragecapacities';
    await create(url, { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'cap' }, storageClassName: 'fast', capacity: '1024Mi' });
    const printed = await table(url);
    expect(printed.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'StorageClassName', 'Capacity']);
    expect(printed.rows[0].cells).toEqual(['cap', 'fast', '1Gi']);
    expect(await causesOf('POST', url, { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'bad' }, storageClassName: 'fast', capacity: '-1' }))
      .toEqual([{ field: 'capacity', message: 'Invalid value: "-1": must be greater than or equal to 0' }]);
  });
});

describe('componentstatuses', () => {
  it('report the store as etcd-0 with kube\'s deprecation warning, get and list only', async () => {
    const list = await harness.request('GET', '/api/v1/componentstatuses');
    expect(list.statusCode, list.body).toBe(200);
    expect([list.headers['warning']].flat()).toEqual(['299 - "v1 ComponentStatus is deprecated in v1.19+"']);
    expect(list.json()).toMatchObject({ kind: 'ComponentStatusList', apiVersion: 'v1', items: [{ metadata: { name: 'etcd-0' }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] }] });
    const one = await harness.request('GET', '/api/v1/componentstatuses/etcd-0');
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({ kind: 'ComponentStatus', metadata: { name: 'etcd-0' } });
    expect((await harness.request('GET', '/api/v1/componentstatuses/scheduler')).statusCode).toBe(404);
    expect((await harness.request('POST', '/api/v1/componentstatuses', { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } })).statusCode).toBe(405);
    const printed = await table('/api/v1/componentstatuses');
    expect(printed.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Status', 'Message', 'Error']);
    expect(printed.rows[0].cells).toEqual(['etcd-0', 'Healthy', 'ok', '']);
    const selected = await harness.request('GET', '/api/v1/componentstatuses?fieldSelector=metadata.name%3Dother');
    expect(selected.json().items).toEqual([]);
  });

  it('report the store Unhealthy when it has no leader', async () => {
    harness.backend.ready = () => false;
    const printed = await table('/api/v1/componentstatuses');
    expect(printed.rows[0].cells).toEqual(['etcd-0', 'Unhealthy', '', 'the store has no leader']);
  });
});
