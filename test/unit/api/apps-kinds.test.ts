// apps/v1 ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions through the API: kube's
// discovery entries, the v1 defaults, generation and status rules, the DaemonSet template
// generation annotation, kube's validation messages, the Table columns, the scale subresource
// and the status.replicas field selector.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const apps = '/apis/apps/v1/namespaces/t';
const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const merge = { 'content-type': 'application/merge-patch+json' };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function workload(kind: string, name: string, spec: Json = {}): Json {
  return {
    apiVersion: 'apps/v1', kind, metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } },
      ...spec,
    },
  };
}

async function create(resource: string, object: Json): Promise<Json> {
  const response = await harness.request('POST', `${apps}/${resource}`, object);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

async function table(resource: string): Promise<Json> {
  const response = await harness.request('GET', `${apps}/${resource}`, undefined, tableAccept);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function putStatus(resource: string, name: string, status: Json): Promise<Json> {
  const current = (await harness.request('GET', `${apps}/${resource}/${name}`)).json();
  const response = await harness.request('PUT', `${apps}/${resource}/${name}/status`, { ...current, status });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

describe('apps/v1 discovery', () => {
  it('lists the kinds with kube\'s short names, categories and subresources', async () => {
    const list = (await harness.request('GET', '/apis/apps/v1')).json();
    const byName = new Map<string, Json>(list.resources.map((resource: Json) => [resource.name, resource]));
    expect([...byName.keys()]).toEqual([
      'controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status',
      'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status',
    ]);
    expect(byName.get('replicasets')).toMatchObject({ kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], categories: ['all'] });
    expect(byName.get('statefulsets')).toMatchObject({ kind: 'StatefulSet', shortNames: ['sts'], categories: ['all'] });
    expect(byName.get('daemonsets')).toMatchObject({ kind: 'DaemonSet', shortNames: ['ds'], categories: ['all'] });
    expect(byName.get('controllerrevisions')?.shortNames).toBeUndefined();
    expect(byName.get('controllerrevisions')?.categories).toBeUndefined();
    expect(byName.get('statefulsets/scale')).toMatchObject({ kind: 'Scale', group: 'autoscaling', version: 'v1' });
  });
});

describe('replicasets', () => {
  it('are created with replicas 1, the template defaults, generation 1 and an empty status', async () => {
    const created = await create('replicasets', { ...workload('ReplicaSet', 'web'), status: { replicas: 4 } });
    expect(created.spec.replicas).toBe(1);
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({});
    expect(created.spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' });
    expect(created.spec.template.spec.containers[0].imagePullPolicy).toBe('IfNotPresent');
  });

  it('bump the generation on spec changes only, keep status on PUT and take it through /status', async () => {
    const created = await create('replicasets', workload('ReplicaSet', 'web'));
    const relabelled = await harness.request('PUT', `${apps}/replicasets/web`, { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { replicas: 9 } });
    expect(relabelled.json()).toMatchObject({ metadata: { generation: 1 }, status: {} });
    const status = await putStatus('replicasets', 'web', { replicas: 2, readyReplicas: 1, availableReplicas: 1 });
    expect(status.status).toEqual({ replicas: 2, readyReplicas: 1, availableReplicas: 1 });
    expect(status.metadata.generation).toBe(1);
    const scaled = await harness.request('PATCH', `${apps}/replicasets/web`, { spec: { replicas: 3 } }, merge);
    expect(scaled.json()).toMatchObject({ metadata: { generation: 2 }, status: { replicas: 2 } });
  });

  it('validate as kube-apiserver does, and keep the selector immutable', async () => {
    const noSelector = workload('ReplicaSet', 'bad');
    delete noSelector['spec'].selector;
    const causes = await causesOf('POST', `${apps}/replicasets`, noSelector);
    expect(causes).toContainEqual({ field: 'spec.selector', message: 'Required value' });
    expect(causes).toContainEqual({ field: 'spec.template.metadata.labels', message: 'Invalid value: {"app":"bad"}: `selector` does not match template `labels`' });
    expect(await causesOf('POST', `${apps}/replicasets`, workload('ReplicaSet', 'bad', { selector: {} })))
      .toContainEqual({ field: 'spec.selector', message: 'Invalid value: {}: empty selector is invalid for deployment' });
    expect(await causesOf('POST', `${apps}/replicasets`, workload('ReplicaSet', 'bad', { replicas: -2 })))
      .toContainEqual({ field: 'spec.replicas', message: 'Invalid value: -2: must be greater than or equal to 0' });
    const deadline = workload('ReplicaSet', 'bad');
    deadline['spec'].template.spec.activeDeadlineSeconds = 5;
    expect(await causesOf('POST', `${apps}/replicasets`, deadline))
      .toContainEqual({ field: 'spec.template.spec.activeDeadlineSeconds', message: 'Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported' });
    const created = await create('replicasets', workload('ReplicaSet', 'web'));
    created.spec.selector = { matchLabels: { app: 'web', tier: 'a' } };
    created.spec.template.metadata.labels = { app: 'web', tier: 'a' };
    expect(await causesOf('PUT', `${apps}/replicasets/web`, created))
      .toEqual([{ field: 'spec.selector', message: 'Invalid value: {"matchLabels":{"app":"web","tier":"a"}}: field is immutable' }]);
  });

  it('print Desired, Current, Ready, Age and the wide columns, and filter on status.replicas', async () => {
    await create('replicasets', workload('ReplicaSet', 'web', { replicas: 3 }));
    await create('replicasets', workload('ReplicaSet', 'idle', { replicas: 0 }));
    await putStatus('replicasets', 'web', { replicas: 3, readyReplicas: 2 });
    const printed = await table('replicasets');
    expect(printed.columnDefinitions.map((column: Json) => [column.name, column.type, column.priority])).toEqual([
      ['Name', 'string', 0], ['Desired', 'integer', 0], ['Current', 'integer', 0], ['Ready', 'integer', 0], ['Age', 'string', 0],
      ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1],
    ]);
    const row = printed.rows.find((candidate: Json) => candidate.cells[0] === 'web');
    expect(row.cells.slice(0, 4)).toEqual(['web', 3, 3, 2]);
    expect(row.cells.slice(5)).toEqual(['app', 'nginx:1.27', 'app=web']);
    const filtered = (await harness.request('GET', `${apps}/replicasets?fieldSelector=status.replicas%3D3`)).json();
    expect(filtered.items.map((item: Json) => item.metadata.name)).toEqual(['web']);
    const zero = (await harness.request('GET', `${apps}/replicasets?fieldSelector=status.replicas%3D0`)).json();
    expect(zero.items.map((item: Json) => item.metadata.name)).toEqual(['idle']);
  });

  it('serve a Scale with the set-based selector and change spec.replicas through it', async () => {
    const web = workload('ReplicaSet', 'web', { selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } });
    web['spec'].template.metadata.labels = { app: 'web', tier: 'a' };
    await create('replicasets', web);
    const scale = (await harness.request('GET', `${apps}/replicasets/web/scale`)).json();
    expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 1 }, status: { replicas: 0, selector: 'app=web,tier in (a,b)' } });
    const patched = await harness.request('PATCH', `${apps}/replicasets/web/scale`, { spec: { replicas: 5 } }, merge);
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await harness.request('GET', `${apps}/replicasets/web`)).json()).toMatchObject({ spec: { replicas: 5 }, metadata: { generation: 2 } });
  });
});

describe('statefulsets', () => {
  it('are created with SetDefaults_StatefulSet\'s values', async () => {
    const created = await create('statefulsets', workload('StatefulSet', 'db', { serviceName: 'db' }));
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({});
    expect(created.spec).toMatchObject({
      replicas: 1, revisionHistoryLimit: 10, podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    });
    expect(created.spec.template.spec.terminationGracePeriodSeconds).toBe(30);
  });

  it('keep an explicit RollingUpdate without rollingUpdate, and drop maxUnavailable (its feature gate is off)', async () => {
    const plain = await create('statefulsets', workload('StatefulSet', 'plain', { updateStrategy: { type: 'RollingUpdate' } }));
    expect(plain.spec.updateStrategy).toEqual({ type: 'RollingUpdate' });
    const capped = await create('statefulsets', workload('StatefulSet', 'capped', { updateStrategy: { rollingUpdate: { partition: 2, maxUnavailable: 2 } } }));
    expect(capped.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 2 } });
    const onDelete = await create('statefulsets', workload('StatefulSet', 'manual', { updateStrategy: { type: 'OnDelete' } }));
    expect(onDelete.spec.updateStrategy).toEqual({ type: 'OnDelete' });
  });

  it('validate as kube-apiserver does', async () => {
    const url = `${apps}/statefulsets`;
    expect(await causesOf('POST', url, workload('StatefulSet', 'dotted.name'))).toContainEqual({
      field: 'metadata.name',
      message: 'Invalid value: "dotted.name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    });
    expect(await causesOf('POST', url, workload('StatefulSet', 'bad', { podManagementPolicy: 'Random' })))
      .toContainEqual({ field: 'spec.podManagementPolicy', message: 'Invalid value: "Random": must be \'OrderedReady\' or \'Parallel\'' });
    expect(await causesOf('POST', url, workload('StatefulSet', 'bad', { updateStrategy: { type: 'Sometimes' } })))
      .toContainEqual({ field: 'spec.updateStrategy', message: 'Invalid value: {"type":"Sometimes"}: must be \'RollingUpdate\' or \'OnDelete\'' });
    expect(await causesOf('POST', url, workload('StatefulSet', 'bad', { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } })))
      .toContainEqual({ field: 'spec.updateStrategy.rollingUpdate', message: 'Invalid value: {"partition":1}: only allowed for updateStrategy \'RollingUpdate\'' });
    expect(await causesOf('POST', url, workload('StatefulSet', 'bad', { updateStrategy: { rollingUpdate: { partition: -1 } } })))
      .toContainEqual({ field: 'spec.updateStrategy.rollingUpdate.partition', message: 'Invalid value: -1: must be greater than or equal to 0' });
    expect(await causesOf('POST', url, workload('StatefulSet', 'bad', { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' } })))
      .toContainEqual({ field: 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted', message: 'Unsupported value: "Keep": supported values: "Retain", "Delete"' });
    expect(await causesOf('POST', url, workload('StatefulSet', 'bad', { ordinals: { start: -1 } })))
      .toContainEqual({ field: 'spec.ordinals.start', message: 'Invalid value: -1: must be greater than or equal to 0' });
    const serviceName = await causesOf('POST', url, workload('StatefulSet', 'bad', { serviceName: 'Not_A_Label' }));
    expect(serviceName[0]?.field).toBe('spec.serviceName');
    expect(serviceName[0]?.message).toContain('a lowercase RFC 1123 label must consist of');
    expect(await causesOf('POST', url, workload('StatefulSet', 'bad', { selector: {} })))
      .toContainEqual({ field: 'spec.selector', message: 'Invalid value: {}: empty selector is invalid for statefulset' });
    const deadline = workload('StatefulSet', 'bad');
    deadline['spec'].template.spec.activeDeadlineSeconds = 5;
    deadline['spec'].template.metadata.labels = { app: 'other' };
    const deadlineCauses = await causesOf('POST', url, deadline);
    expect(deadlineCauses).toContainEqual({ field: 'spec.template.spec.activeDeadlineSeconds', message: 'Forbidden: activeDeadlineSeconds in StatefulSet is not Supported' });
    expect(deadlineCauses).toContainEqual({ field: 'spec.template.metadata.labels', message: 'Invalid value: {"app":"other"}: `selector` does not match template `labels`' });
  });

  it('forbid updates to spec fields other than kube\'s mutable ones', async () => {
    const created = await create('statefulsets', workload('StatefulSet', 'db', { serviceName: 'db' }));
    const changed = structuredClone(created);
    changed.spec.replicas = 3;
    changed.spec.minReadySeconds = 5;
    changed.spec.updateStrategy = { type: 'OnDelete' };
    changed.spec.template.spec.containers[0].image = 'nginx:1.28';
    const allowed = await harness.request('PUT', `${apps}/statefulsets/db`, changed);
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.json().metadata.generation).toBe(2);
    for (const change of [{ serviceName: 'other' }, { podManagementPolicy: 'Parallel' }, { revisionHistoryLimit: 3 }]) {
      const stored = (await harness.request('GET', `${apps}/statefulsets/db`)).json();
      expect(await causesOf('PUT', `${apps}/statefulsets/db`, { ...stored, spec: { ...stored.spec, ...change } })).toEqual([{
        field: 'spec',
        message: 'Forbidden: updates to statefulset spec for fields other than \'replicas\', \'ordinals\', \'template\', \'updateStrategy\', \'persistentVolumeClaimRetentionPolicy\' and \'minReadySeconds\' are forbidden',
      }]);
    }
  });

  it('round-trip through protobuf', async () => {
    await create('statefulsets', workload('StatefulSet', 'db', { serviceName: 'db' }));
    const json = (await harness.request('GET', `${apps}/statefulsets/db`)).json();
    const pb = await harness.request('GET', `${apps}/statefulsets/db`, undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(pb.statusCode).toBe(200);
    expect(decodeProtobufObject(pb.rawPayload)).toEqual(json);
  });

  it('print Ready and Age with the wide Containers and Images, and scale', async () => {
    await create('statefulsets', workload('StatefulSet', 'db', { replicas: 2 }));
    await putStatus('statefulsets', 'db', { replicas: 2, readyReplicas: 1, availableReplicas: 1 });
    const printed = await table('statefulsets');
    expect(printed.columnDefinitions.map((column: Json) => [column.name, column.priority])).toEqual([['Name', 0], ['Ready', 0], ['Age', 0], ['Containers', 1], ['Images', 1]]);
    expect(printed.rows[0].cells[1]).toBe('1/2');
    expect(printed.rows[0].cells.slice(3)).toEqual(['app', 'nginx:1.27']);
    const scaled = await harness.request('PATCH', `${apps}/statefulsets/db/scale`, { spec: { replicas: 4 } }, merge);
    expect(scaled.json()).toMatchObject({ spec: { replicas: 4 }, status: { replicas: 2, selector: 'app=db' } });
    expect((await table('statefulsets')).rows[0].cells[1]).toBe('1/4');
  });
});

describe('daemonsets', () => {
  it('are created with the RollingUpdate defaults and template generation 1', async () => {
    const created = await create('daemonsets', workload('DaemonSet', 'agent'));
    expect(created.spec).toMatchObject({ revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } });
    expect(created.metadata).toMatchObject({ generation: 1, annotations: { 'deprecated.daemonset.template.generation': '1' } });
    expect(created.status).toEqual({});
    const onDelete = await create('daemonsets', workload('DaemonSet', 'manual', { updateStrategy: { type: 'OnDelete' } }));
    expect(onDelete.spec.updateStrategy).toEqual({ type: 'OnDelete' });
  });

  it('count template generations apart from other spec changes', async () => {
    const created = await create('daemonsets', workload('DaemonSet', 'agent'));
    const minReady = await harness.request('PATCH', `${apps}/daemonsets/agent`, { spec: { minReadySeconds: 5 } }, merge);
    expect(minReady.json().metadata).toMatchObject({ generation: 2, annotations: { 'deprecated.daemonset.template.generation': '1' } });
    const image = structuredClone(minReady.json());
    image.spec.template.spec.containers[0].image = 'nginx:1.28';
    image.metadata.annotations['deprecated.daemonset.template.generation'] = '40';
    const retemplated = await harness.request('PUT', `${apps}/daemonsets/agent`, image);
    expect(retemplated.statusCode, retemplated.body).toBe(200);
    expect(retemplated.json().metadata).toMatchObject({ generation: 3, annotations: { 'deprecated.daemonset.template.generation': '2' } });
    expect(created.metadata.uid).toBe(retemplated.json().metadata.uid);
  });

  it('validate as kube-apiserver does, and keep the selector immutable', async () => {
    const url = `${apps}/daemonsets`;
    const noSelector = workload('DaemonSet', 'bad');
    delete noSelector['spec'].selector;
    expect(await causesOf('POST', url, noSelector)).toEqual([
      { field: 'spec.template.metadata.labels', message: 'Invalid value: {"app":"bad"}: `selector` does not match template `labels`' },
    ]);
    expect(await causesOf('POST', url, workload('DaemonSet', 'bad', { selector: {} })))
      .toContainEqual({ field: 'spec.selector', message: 'Invalid value: {}: empty selector is invalid for daemonset' });
    expect(await causesOf('POST', url, workload('DaemonSet', 'bad', { updateStrategy: { rollingUpdate: { maxUnavailable: 0 } } })))
      .toContainEqual({ field: 'spec.updateStrategy.rollingUpdate.maxUnavailable', message: 'Required value: cannot be 0 when maxSurge is 0' });
    expect(await causesOf('POST', url, workload('DaemonSet', 'bad', { updateStrategy: { rollingUpdate: { maxSurge: '10%' } } })))
      .toContainEqual({ field: 'spec.updateStrategy.rollingUpdate.maxSurge', message: 'Invalid value: "10%": may not be set when maxUnavailable is non-zero' });
    expect(await causesOf('POST', url, workload('DaemonSet', 'bad', { updateStrategy: { type: 'Never' } })))
      .toContainEqual({ field: 'spec.updateStrategy', message: 'Unsupported value: {"type":"Never"}: supported values: "RollingUpdate", "OnDelete"' });
    const noImage = workload('DaemonSet', 'bad');
    noImage['spec'].template.spec.containers = [{ name: 'app' }];
    expect(await causesOf('POST', url, noImage)).toContainEqual({ field: 'spec.template.spec.containers[0].image', message: 'Required value' });
    const created = await create('daemonsets', workload('DaemonSet', 'agent'));
    created.spec.selector = { matchLabels: { app: 'agent', x: 'y' } };
    created.spec.template.metadata.labels = { app: 'agent', x: 'y' };
    expect(await causesOf('PUT', `${url}/agent`, created)).toContainEqual({ field: 'spec.selector', message: 'Invalid value: {"matchLabels":{"app":"agent","x":"y"}}: field is immutable' });
    expect((await harness.request('GET', `${url}/agent/scale`)).statusCode).toBe(404);
  });

  it('print kube\'s daemon set columns', async () => {
    const agent = workload('DaemonSet', 'agent');
    agent['spec'].template.spec.nodeSelector = { 'kubernetes.io/os': 'linux', disk: 'ssd' };
    await create('daemonsets', agent);
    await putStatus('daemonsets', 'agent', { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 1, numberAvailable: 2, numberMisscheduled: 0 });
    const printed = await table('daemonsets');
    expect(printed.columnDefinitions.map((column: Json) => [column.name, column.priority])).toEqual([
      ['Name', 0], ['Desired', 0], ['Current', 0], ['Ready', 0], ['Up-to-date', 0], ['Available', 0], ['Node Selector', 0], ['Age', 0],
      ['Containers', 1], ['Images', 1], ['Selector', 1],
    ]);
    expect(printed.rows[0].cells.slice(0, 7)).toEqual(['agent', 3, 3, 2, 1, 2, 'disk=ssd,kubernetes.io/os=linux']);
    expect(printed.rows[0].cells.slice(8)).toEqual(['app', 'nginx:1.27', 'app=agent']);
  });
});

describe('controllerrevisions', () => {
  const revision = (name: string, extra: Json = {}): Json => ({
    apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name }, data: { spec: { template: { metadata: { labels: { app: 'db' } } } } }, revision: 1, ...extra,
  });

  it('require data, a non-negative revision, and keep data immutable while revision may change', async () => {
    const missing = revision('bad');
    delete missing['data'];
    expect(await causesOf('POST', `${apps}/controllerrevisions`, missing)).toEqual([{ field: 'data', message: 'Required value: data is mandatory' }]);
    expect(await causesOf('POST', `${apps}/controllerrevisions`, revision('bad', { revision: -1 })))
      .toEqual([{ field: 'revision', message: 'Invalid value: -1: must be greater than or equal to 0' }]);
    const created = await create('controllerrevisions', revision('db-1'));
    expect(created.metadata.generation).toBeUndefined();
    const renumbered = await harness.request('PUT', `${apps}/controllerrevisions/db-1`, { ...created, revision: 2 });
    expect(renumbered.statusCode, renumbered.body).toBe(200);
    expect(await causesOf('PUT', `${apps}/controllerrevisions/db-1`, { ...renumbered.json(), data: { other: true } }))
      .toEqual([{ field: 'data', message: 'Invalid value: {"other":true}: field is immutable' }]);
  });

  it('print the controlling owner and the revision', async () => {
    await create('controllerrevisions', revision('db-1', {
      revision: 7,
      metadata: { name: 'db-1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u1', controller: true }] },
    }));
    await create('controllerrevisions', revision('orphan-1'));
    const printed = await table('controllerrevisions');
    expect(printed.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Controller', 'Revision', 'Age']);
    expect(printed.rows.map((row: Json) => row.cells.slice(0, 3))).toEqual([['db-1', 'statefulset.apps/db', 7], ['orphan-1', '<none>', 1]]);
  });
});
