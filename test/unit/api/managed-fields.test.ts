// metadata.managedFields over HTTP (the real server on the in-memory harness): Update entries
// after create, PUT, JSON/merge/strategic patches and status writes with two managers, the
// `[{}]` reset, fieldManager validation, and server-side apply (application/apply-patch+yaml):
// create, update, conflicts with causes, force, removal of fields dropped from the applied
// configuration, dry run, field validation, preconditions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, configMap } from './harness.ts';
import type { Harness } from './harness.ts';

const cms = '/api/v1/namespaces/t/configmaps';
const pods = '/api/v1/namespaces/t/pods';
const apply = { 'content-type': 'application/apply-patch+yaml' };

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

function managed(body: string): Entry[] {
  return ((JSON.parse(body) as { metadata: { managedFields?: Entry[] } }).metadata.managedFields ?? []);
}

function summary(body: string): [string, string, Record<string, unknown>][] {
  return managed(body).map((entry) => [entry.manager, entry.operation, entry.fieldsV1]);
}

/** By manager: entries written within one second sort by manager, across seconds by time. */
function byManager(body: string): [string, string, Record<string, unknown>][] {
  return summary(body).sort(([a], [b]) => a.localeCompare(b));
}

describe('managedFields over HTTP', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startHarness();
  });
  afterEach(async () => harness.close());

  it('a create records an Update entry for the User-Agent prefix or the fieldManager', async () => {
    const byAgent = await harness.request('POST', cms, configMap('a', { x: '1' }, { labels: { app: 'web' } }), { 'user-agent': 'kubectl-create/v1.31.0 (linux/amd64) kubernetes/abc' });
    expect(byAgent.statusCode).toBe(201);
    const [entry] = managed(byAgent.body);
    expect(entry).toEqual({
      manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as unknown,
      fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:x': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
    });
    const named = await harness.request('POST', `${cms}?fieldManager=mine`, configMap('b'));
    expect(managed(named.body).map((item) => item.manager)).toEqual(['mine']);
    const stored = await harness.request('GET', `${cms}/a`);
    expect(managed(stored.body)).toEqual(managed(byAgent.body));
  });

  it('PUT and patches move ownership between two managers', async () => {
    await harness.request('POST', `${cms}?fieldManager=one`, configMap('c', { a: '1', b: '2' }));
    const put = await harness.request('GET', `${cms}/c`);
    const object = JSON.parse(put.body) as Record<string, unknown>;
    object['data'] = { a: '1', b: '9' };
    const updated = await harness.request('PUT', `${cms}/c?fieldManager=two`, object);
    expect(updated.statusCode).toBe(200);
    expect(byManager(updated.body)).toEqual([
      ['one', 'Update', { 'f:data': { '.': {}, 'f:a': {} } }],
      ['two', 'Update', { 'f:data': { 'f:b': {} } }],
    ]);
    const merge = await harness.request('PATCH', `${cms}/c?fieldManager=three`, JSON.stringify({ data: { a: 'x' } }), { 'content-type': 'application/merge-patch+json' });
    expect(byManager(merge.body)).toEqual([
      ['one', 'Update', { 'f:data': {} }],
      ['three', 'Update', { 'f:data': { 'f:a': {} } }],
      ['two', 'Update', { 'f:data': { 'f:b': {} } }],
    ]);
    const strategic = await harness.request('PATCH', `${cms}/c`, JSON.stringify({ metadata: { labels: { l: 'v' } } }),
      { 'content-type': 'application/strategic-merge-patch+json', 'user-agent': 'kubectl/v1.31.0' });
    expect(byManager(strategic.body)[0]).toEqual(['kubectl', 'Update', { 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } }]);
    const json = await harness.request('PATCH', `${cms}/c?fieldManager=two`, JSON.stringify([{ op: 'remove', path: '/data/b' }]), { 'content-type': 'application/json-patch+json' });
    expect(byManager(json.body).map(([manager]) => manager)).toEqual(['kubectl', 'one', 'three']);
  });

  it('a write that changes nothing keeps the object (no new resourceVersion)', async () => {
    const created = await harness.request('POST', `${cms}?fieldManager=one`, configMap('same'));
    const again = await harness.request('PATCH', `${cms}/same?fieldManager=two`, JSON.stringify({ data: { a: 'b' } }), { 'content-type': 'application/merge-patch+json' });
    expect(JSON.parse(again.body).metadata.resourceVersion).toBe(JSON.parse(created.body).metadata.resourceVersion);
    expect(managed(again.body)).toEqual(managed(created.body));
  });

  it('a JSON patch replacing managedFields with [{}] resets it; [] leaves it', async () => {
    await harness.request('POST', `${cms}?fieldManager=one`, configMap('r'));
    const empty = await harness.request('PATCH', `${cms}/r`, JSON.stringify([{ op: 'replace', path: '/metadata/managedFields', value: [] }]), { 'content-type': 'application/json-patch+json' });
    expect(summary(empty.body).map(([manager]) => manager)).toEqual(['one']);
    const reset = await harness.request('PATCH', `${cms}/r`, JSON.stringify([{ op: 'replace', path: '/metadata/managedFields', value: [{}] }]), { 'content-type': 'application/json-patch+json' });
    expect(reset.statusCode).toBe(200);
    expect(JSON.parse(reset.body).metadata.managedFields).toBeUndefined();
    await harness.request('POST', `${cms}?fieldManager=one`, configMap('r2'));
    const resetAndChange = await harness.request('PATCH', `${cms}/r2?fieldManager=two`, JSON.stringify([
      { op: 'replace', path: '/metadata/managedFields', value: [{}] }, { op: 'add', path: '/data/z', value: 'z' },
    ]), { 'content-type': 'application/json-patch+json' });
    expect(summary(resetAndChange.body)).toEqual([['two', 'Update', { 'f:data': { 'f:z': {} } }]]);
  });

  it('status writes are entries of their own with subresource status', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const created = await harness.request('POST', `${pods}?fieldManager=creator`, pod);
    expect(created.statusCode).toBe(201);
    const [entry] = managed(created.body);
    expect(entry!.fieldsV1['f:status']).toBeUndefined();
    expect(entry!.fieldsV1['f:spec']).toMatchObject({ 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:restartPolicy': {} });
    const status = await harness.request('PATCH', `${pods}/p/status?fieldManager=kubelet`, JSON.stringify({ status: { phase: 'Running' } }), { 'content-type': 'application/merge-patch+json' });
    expect(status.statusCode).toBe(200);
    const kubelet = managed(status.body).find((item) => item.manager === 'kubelet')!;
    expect(kubelet).toMatchObject({ operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {} } } });
    const current = JSON.parse(status.body) as Record<string, unknown>;
    (current['status'] as Record<string, unknown>)['message'] = 'hi';
    const put = await harness.request('PUT', `${pods}/p/status?fieldManager=other`, current);
    expect(managed(put.body).find((item) => item.manager === 'other')).toMatchObject({ subresource: 'status', fieldsV1: { 'f:status': { 'f:message': {} } } });
  });

  it('a create owns its body and the defaults, not what kube sets after the field manager (admission, allocation)', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const createdPod = managed((await harness.request('POST', `${pods}?fieldManager=m`, pod)).body)[0]!.fieldsV1['f:spec'] as Record<string, unknown>;
    expect(Object.keys(createdPod).sort()).toEqual([
      'f:containers', 'f:dnsPolicy', 'f:enableServiceLinks', 'f:restartPolicy', 'f:schedulerName', 'f:securityContext', 'f:terminationGracePeriodSeconds',
    ]);
    const withAccount = { ...pod, metadata: { name: 'q' }, spec: { ...pod.spec, serviceAccountName: 'default' } };
    const ownedAccount = managed((await harness.request('POST', `${pods}?fieldManager=m`, withAccount)).body)[0]!.fieldsV1['f:spec'] as Record<string, unknown>;
    expect(ownedAccount['f:serviceAccountName']).toEqual({});
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }], selector: { app: 'x' } } };
    const createdService = managed((await harness.request('POST', `/api/v1/namespaces/t/services?fieldManager=m`, service)).body)[0]!.fieldsV1['f:spec'] as Record<string, unknown>;
    expect(createdService['f:clusterIP']).toBeUndefined();
    expect(createdService['f:ports']).toEqual({ '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} } });
    const namespace = await harness.request('POST', '/api/v1/namespaces?fieldManager=m', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh', labels: { a: 'b' } } });
    expect(managed(namespace.body)[0]!.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
  });

  it('rejects an invalid fieldManager (422) and force on a non-apply patch', async () => {
    const long = await harness.request('POST', `${cms}?fieldManager=${'x'.repeat(129)}`, configMap('l'));
    expect(long.statusCode).toBe(422);
    expect(JSON.parse(long.body).message).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
    const force = await harness.request('PATCH', `${cms}/l?force=true`, JSON.stringify({}), { 'content-type': 'application/merge-patch+json' });
    expect(force.statusCode).toBe(422);
    expect(JSON.parse(force.body).message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });
});

describe('server-side apply over HTTP', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startHarness();
  });
  afterEach(async () => harness.close());

  const yaml = (data: Record<string, string>, name = 's', extra = ''): string =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}data:\n${Object.entries(data).map(([key, value]) => `  ${key}: "${value}"`).join('\n')}\n`;

  it('creates (201), then updates (200) with an Apply entry', async () => {
    const created = await harness.request('PATCH', `${cms}/s?fieldManager=alice`, yaml({ a: '1', b: '2' }), apply);
    expect(created.statusCode).toBe(201);
    expect(summary(created.body)).toEqual([['alice', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } }]]);
    expect(JSON.parse(created.body).metadata.uid).toBeTruthy();
    const updated = await harness.request('PATCH', `${cms}/s?fieldManager=alice`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's', labels: { x: 'y' } }, data: { a: '1', b: '3' } }), apply);
    expect(updated.statusCode).toBe(200);
    expect(JSON.parse(updated.body).data).toEqual({ a: '1', b: '3' });
    expect(summary(updated.body)).toEqual([['alice', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } }]]);
  });

  it('a conflict is 409 with FieldManagerConflict causes; force takes ownership', async () => {
    await harness.request('PATCH', `${cms}/s?fieldManager=alice`, yaml({ a: '1', b: '2' }), apply);
    const conflicting = await harness.request('PATCH', `${cms}/s?fieldManager=bob`, yaml({ a: '1', b: 'x' }), apply);
    expect(conflicting.statusCode).toBe(409);
    expect(JSON.parse(conflicting.body)).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Conflict', code: 409,
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.b',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.b' }] },
    });
    await harness.request('PATCH', `${cms}/s?fieldManager=editor`, JSON.stringify({ data: { a: 'edited' } }), { 'content-type': 'application/merge-patch+json' });
    const withUpdater = await harness.request('PATCH', `${cms}/s?fieldManager=bob`, yaml({ a: 'bob', b: 'bob' }), apply);
    expect(JSON.parse(withUpdater.body).message).toBe('Apply failed with 2 conflicts: conflicts with "alice":\n- .data.b\nconflicts with "editor" using v1:\n- .data.a');
    const forced = await harness.request('PATCH', `${cms}/s?fieldManager=bob&force=true`, yaml({ a: 'bob', b: 'bob' }), apply);
    expect(forced.statusCode).toBe(200);
    expect(JSON.parse(forced.body).data).toEqual({ a: 'bob', b: 'bob' });
    expect(summary(forced.body)).toEqual([['bob', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } }]]);
  });

  it('kubectl\'s server-side apply takes over what its client-side apply set (last-applied annotation) and keeps the annotation in step', async () => {
    const lastApplied = '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"csa","namespace":"t"}}\n';
    await harness.request('POST', cms, configMap('csa', { a: '1' }, { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } }),
      { 'user-agent': 'kubectl-client-side-apply/v1.32.4 (linux/amd64) kubernetes/abc' });
    const other = await harness.request('PATCH', `${cms}/csa?fieldManager=other`, yaml({ a: '2' }, 'csa'), apply);
    expect(other.statusCode).toBe(409);
    expect(JSON.parse(other.body).message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a');
    const upgraded = await harness.request('PATCH', `${cms}/csa?fieldManager=kubectl`, yaml({ a: '2' }, 'csa'), apply);
    expect(upgraded.statusCode).toBe(200);
    const object = JSON.parse(upgraded.body) as { data: Record<string, string>; metadata: { annotations: Record<string, string> } };
    expect(object.data).toEqual({ a: '2' });
    expect(object.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toBe('{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"csa"}}\n');
    expect(byManager(upgraded.body)).toEqual([
      ['kubectl', 'Apply', { 'f:data': { 'f:a': {} } }],
      ['kubectl-client-side-apply', 'Update', { 'f:data': {}, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }],
    ]);
  });

  it('an object nobody manages yet is owned by before-first-apply when an apply comes', async () => {
    await harness.request('POST', `${cms}?fieldManager=one`, configMap('unmanaged', { a: '1', b: '2' }));
    await harness.request('PATCH', `${cms}/unmanaged`, JSON.stringify([{ op: 'replace', path: '/metadata/managedFields', value: [{}] }]), { 'content-type': 'application/json-patch+json' });
    const conflicting = await harness.request('PATCH', `${cms}/unmanaged?fieldManager=alice`, yaml({ a: 'x' }, 'unmanaged'), apply);
    expect(conflicting.statusCode).toBe(409);
    expect(JSON.parse(conflicting.body).message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
    const same = await harness.request('PATCH', `${cms}/unmanaged?fieldManager=alice`, yaml({ a: '1' }, 'unmanaged'), apply);
    expect(byManager(same.body)).toEqual([
      ['alice', 'Apply', { 'f:data': { 'f:a': {} } }],
      ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }],
    ]);
  });

  it('fields dropped from the configuration are removed unless another manager owns them', async () => {
    await harness.request('PATCH', `${cms}/s?fieldManager=alice`, yaml({ a: '1', b: '2', c: '3' }), apply);
    await harness.request('PATCH', `${cms}/s?fieldManager=bob`, yaml({ c: '3' }), apply);
    const dropped = await harness.request('PATCH', `${cms}/s?fieldManager=alice`, yaml({ a: '1' }), apply);
    expect(dropped.statusCode).toBe(200);
    expect(JSON.parse(dropped.body).data).toEqual({ a: '1', c: '3' });
  });

  it('merges containers by name and applies status through the subresource', async () => {
    const podYaml = (image: string): string => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: ${image}\n`;
    const created = await harness.request('PATCH', `${pods}/p?fieldManager=alice`, podYaml('nginx:1'), apply);
    expect(created.statusCode).toBe(201);
    expect(summary(created.body)).toEqual([['alice', 'Apply', { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }]]);
    const updated = await harness.request('PATCH', `${pods}/p?fieldManager=alice`, podYaml('nginx:2'), apply);
    expect(JSON.parse(updated.body).spec.containers[0].image).toBe('nginx:2');
    const status = await harness.request('PATCH', `${pods}/p/status?fieldManager=kubelet`, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nstatus:\n  phase: Running\n', apply);
    expect(status.statusCode).toBe(200);
    expect(JSON.parse(status.body).status.phase).toBe('Running');
    expect(managed(status.body).find((entry) => entry.manager === 'kubelet')).toMatchObject({ operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {} } } });
  });

  it('validates options and body as kube', async () => {
    const noManager = await harness.request('PATCH', `${cms}/s`, yaml({ a: '1' }), apply);
    expect(noManager.statusCode).toBe(422);
    expect(JSON.parse(noManager.body).message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const withManagedFields = await harness.request('PATCH', `${cms}/s?fieldManager=a`, yaml({ a: '1' }, 's', '  managedFields:\n  - manager: x\n'), apply);
    expect(withManagedFields.statusCode).toBe(400);
    expect(JSON.parse(withManagedFields.body).message).toBe('metadata.managedFields must be nil');
    const wrongVersion = await harness.request('PATCH', `${cms}/s?fieldManager=a`, 'apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: s\n', apply);
    expect(JSON.parse(wrongVersion.body).message).toBe('Incorrect version specified in apply patch. Specified patch version: v2, expected: v1');
    for (const level of ['Strict', 'Warn', 'Ignore']) {
      const unknown = await harness.request('PATCH', `${cms}/s?fieldManager=a&fieldValidation=${level}`, yaml({ a: '1' }, 's', '  bogus: 1\n'), apply);
      expect(unknown.statusCode).toBe(500);
      expect(JSON.parse(unknown.body).message).toBe('failed to create typed patch object (/s; /v1, Kind=ConfigMap): .metadata.bogus: field not declared in schema');
    }
    const duplicateKey = await harness.request('PATCH', `${cms}/s?fieldManager=a`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  a: "1"\n  a: "2"\n', apply);
    expect(duplicateKey.statusCode).toBe(400);
    const wrongType = await harness.request('PATCH', `${cms}/s?fieldManager=a`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata: [1]\n', apply);
    expect(wrongType.statusCode).toBe(400);
    const createdWithVersion = await harness.request('PATCH', `${cms}/v?fieldManager=a`, yaml({ a: '1' }, 'v', '  resourceVersion: "12345"\n'), apply);
    expect(createdWithVersion.statusCode).toBe(201);
    const createdWithUid = await harness.request('PATCH', `${cms}/u?fieldManager=a`, yaml({ a: '1' }, 'u', '  uid: abc\n'), apply);
    expect(createdWithUid.statusCode).toBe(409);
    expect(JSON.parse(createdWithUid.body).message).toContain('uid mismatch: the provided object specified uid abc, and no existing object was found');
    const dryRun = await harness.request('PATCH', `${cms}/s?fieldManager=a&dryRun=All`, yaml({ a: '1' }), apply);
    expect(dryRun.statusCode).toBe(201);
    expect((await harness.request('GET', `${cms}/s`)).statusCode).toBe(404);
    await harness.request('PATCH', `${cms}/s?fieldManager=a`, yaml({ a: '1' }), apply);
    const stale = await harness.request('PATCH', `${cms}/s?fieldManager=a`, yaml({ a: '2' }, 's', '  resourceVersion: "1"\n'), apply);
    expect(stale.statusCode).toBe(409);
    const cbor = await harness.request('PATCH', `${cms}/s?fieldManager=a`, 'x', { 'content-type': 'application/apply-patch+cbor' });
    expect(cbor.statusCode).toBe(415);
  });
});
