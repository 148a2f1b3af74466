// core/v1 ReplicationControllers and PodTemplates through the API: discovery entries, the v1
// defaults (an RC's selector and labels from its template's labels), generation and status,
// kube's validation messages, the Table columns, the RC's Scale (its map selector as a selector
// string) and the status.replicas field selector.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const core = '/api/v1/namespaces/t';
const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const merge = { 'content-type': 'application/merge-patch+json' };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function controller(name: string, spec: Json = {}): Json {
  return {
    apiVersion: 'v1', kind: 'ReplicationController', metadata: { name },
    spec: { template: { metadata: { labels: { app: name, tier: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } }, ...spec },
  };
}

async function create(resource: string, object: Json): Promise<Json> {
  const response = await harness.request('POST', `${core}/${resource}`, object);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

describe('core/v1 discovery', () => {
  it('lists replicationcontrollers (rc, all, status and scale) and podtemplates', async () => {
    const list = (await harness.request('GET', '/api/v1')).json();
    const byName = new Map<string, Json>(list.resources.map((resource: Json) => [resource.name, resource]));
    expect(byName.get('replicationcontrollers')).toMatchObject({ kind: 'ReplicationController', namespaced: true, shortNames: ['rc'], categories: ['all'] });
    expect(byName.get('replicationcontrollers/scale')).toMatchObject({ kind: 'Scale', group: 'autoscaling', version: 'v1' });
    expect(byName.get('replicationcontrollers/status')).toBeDefined();
    expect(byName.get('podtemplates')).toMatchObject({ kind: 'PodTemplate', namespaced: true });
    expect(byName.get('podtemplates')?.shortNames).toBeUndefined();
  });
});

describe('replicationcontrollers', () => {
  it('take their selector and labels from the template, replicas 1, generation 1 and an empty status', async () => {
    const created = await create('replicationcontrollers', { ...controller('web'), status: { replicas: 3 } });
    expect(created.spec.selector).toEqual({ app: 'web', tier: 'web' });
    expect(created.metadata.labels).toEqual({ app: 'web', tier: 'web' });
    expect(created.spec.replicas).toBe(1);
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({});
    expect(created.spec.template.spec.containers[0].imagePullPolicy).toBe('Always');
    const explicit = await create('replicationcontrollers', { ...controller('api', { selector: { app: 'api' }, replicas: 0 }), metadata: { name: 'api', labels: { team: 'x' } } });
    expect(explicit.spec).toMatchObject({ selector: { app: 'api' }, replicas: 0 });
    expect(explicit.metadata.labels).toEqual({ team: 'x' });
  });

  it('bump the generation on spec changes, keep status on PUT, and let the selector change', async () => {
    const created = await create('replicationcontrollers', controller('web'));
    const status = await harness.request('PUT', `${core}/replicationcontrollers/web/status`, { ...created, status: { replicas: 1, readyReplicas: 1 } });
    expect(status.json()).toMatchObject({ status: { replicas: 1, readyReplicas: 1 }, metadata: { generation: 1 } });
    const relabelled = await harness.request('PUT', `${core}/replicationcontrollers/web`, { ...(status.json() as Json), status: {} });
    expect(relabelled.json()).toMatchObject({ status: { replicas: 1 }, metadata: { generation: 1 } });
    const reselected = await harness.request('PATCH', `${core}/replicationcontrollers/web`, { spec: { selector: { tier: null } } }, merge);
    expect(reselected.statusCode, reselected.body).toBe(200);
    expect(reselected.json()).toMatchObject({ spec: { selector: { app: 'web' } }, metadata: { generation: 2 } });
  });

  it('validate as kube-apiserver does', async () => {
    const url = `${core}/replicationcontrollers`;
    expect(await causesOf('POST', url, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'bad' }, spec: {} })).toEqual([
      { field: 'spec.selector', message: 'Required value' },
      { field: 'spec.template', message: 'Required value' },
    ]);
    expect(await causesOf('POST', url, controller('bad', { selector: { app: 'other' } })))
      .toContainEqual({ field: 'spec.template.metadata.labels', message: 'Invalid value: {"app":"bad","tier":"web"}: `selector` does not match template `labels`' });
    expect(await causesOf('POST', url, controller('bad', { replicas: -1, minReadySeconds: -1 }))).toEqual([
      { field: 'spec.minReadySeconds', message: 'Invalid value: -1: must be greater than or equal to 0' },
      { field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0' },
    ]);
    const never = controller('bad');
    never['spec'].template.spec.restartPolicy = 'Never';
    never['spec'].template.spec.activeDeadlineSeconds = 3;
    expect(await causesOf('POST', url, never)).toEqual([
      { field: 'spec.template.spec.restartPolicy', message: 'Unsupported value: "Never": supported values: "Always"' },
      { field: 'spec.template.spec.activeDeadlineSeconds', message: 'Forbidden: activeDeadlineSeconds in ReplicationController is not Supported' },
    ]);
    expect((await harness.request('PUT', `${url}/missing`, controller('missing'))).statusCode).toBe(404);
  });

  it('print Desired, Current, Ready, Age and the wide columns, and filter on status.replicas', async () => {
    const created = await create('replicationcontrollers', controller('web', { replicas: 2 }));
    await harness.request('PUT', `${core}/replicationcontrollers/web/status`, { ...created, status: { replicas: 2, readyReplicas: 1 } });
    await create('replicationcontrollers', controller('idle', { replicas: 0 }));
    const table = (await harness.request('GET', `${core}/replicationcontrollers`, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: Json) => [column.name, column.type, column.priority])).toEqual([
      ['Name', 'string', 0], ['Desired', 'integer', 0], ['Current', 'integer', 0], ['Ready', 'integer', 0], ['Age', 'string', 0],
      ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1],
    ]);
    const row = table.rows.find((candidate: Json) => candidate.cells[0] === 'web');
    expect(row.cells.slice(0, 4)).toEqual(['web', 2, 2, 1]);
    expect(row.cells.slice(5)).toEqual(['app', 'nginx', 'app=web,tier=web']);
    const filtered = (await harness.request('GET', `${core}/replicationcontrollers?fieldSelector=status.replicas%3D2`)).json();
    expect(filtered.items.map((item: Json) => item.metadata.name)).toEqual(['web']);
  });

  it('serve a Scale whose selector is the label map as a selector string', async () => {
    await create('replicationcontrollers', controller('web'));
    const scale = (await harness.request('GET', `${core}/replicationcontrollers/web/scale`)).json();
    expect(scale).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 }, status: { replicas: 0, selector: 'app=web,tier=web' } });
    const put = await harness.request('PUT', `${core}/replicationcontrollers/web/scale`, { ...scale, spec: { replicas: 3 } });
    expect(put.statusCode, put.body).toBe(200);
    expect((await harness.request('GET', `${core}/replicationcontrollers/web`)).json()).toMatchObject({ spec: { replicas: 3 }, metadata: { generation: 2 } });
  });
});

describe('podtemplates', () => {
  const template = (name: string, containers: Json[] = [{ name: 'app', image: 'nginx:1.27' }, { name: 'side', image: 'busybox' }]): Json => ({
    apiVersion: 'v1', kind: 'PodTemplate', metadata: { name }, template: { metadata: { labels: { app: name, b: '2' } }, spec: { containers } },
  });

  it('are stored with the pod template defaults, without generation or status', async () => {
    const created = await create('podtemplates', template('web'));
    expect(created.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' });
    expect(created.metadata.generation).toBeUndefined();
    expect(created).not.toHaveProperty('status');
  });

  it('validate the template and print Containers, Images and Pod Labels without Age', async () => {
    expect(await causesOf('POST', `${core}/podtemplates`, template('bad', []))).toEqual([{ field: 'template.spec.containers', message: 'Required value' }]);
    expect(await causesOf('POST', `${core}/podtemplates`, template('bad', [{ name: 'app' }]))).toEqual([{ field: 'template.spec.containers[0].image', message: 'Required value' }]);
    await create('podtemplates', template('web'));
    const table = (await harness.request('GET', `${core}/podtemplates`, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Containers', 'Images', 'Pod Labels']);
    expect(table.rows[0].cells).toEqual(['web', 'app,side', 'nginx:1.27,busybox', 'app=web,b=2']);
  });
});
