// core/v1 ResourceQuotas and LimitRanges through the API: quantity and resource-name
// validation in kube's words, quantities stored canonical, the quota status reset on create
// and kept on writes to the main resource, the Container limit defaults, and kube's printers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createdObject, invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let harness: Harness;
const quotas = '/api/v1/namespaces/t/resourcequotas';
const limits = '/api/v1/namespaces/t/limitranges';
const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const create = (url: string, object: Json): Promise<Json> => createdObject<Json>(harness, url, object);

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

function quota(name: string, spec: Json): Json {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec };
}

function limitRange(name: string, items: Json[]): Json {
  return { apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits: items } };
}

describe('resourcequotas', () => {
  it('store quantities canonical, reset status on create and keep it on main-resource writes', async () => {
    const created = await create(quotas, { ...quota('q', { hard: { pods: '10', 'requests.cpu': '0.5', 'limits.memory': '2048Mi' } }), status: { used: { pods: '3' } } });
    expect(created.spec.hard).toEqual({ pods: '10', 'requests.cpu': '500m', 'limits.memory': '2Gi' });
    expect(created.status).toEqual({});
    const status = await harness.request('PUT', `${quotas}/q/status`, { ...created, status: { hard: created.spec.hard, used: { pods: '3', 'requests.cpu': '100m', 'limits.memory': '512Mi' } } });
    expect(status.statusCode, status.body).toBe(200);
    const updated = await harness.request('PUT', `${quotas}/q`, { ...(status.json() as Json), spec: { hard: { ...created.spec.hard, pods: '20' } }, status: {} });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().status.used.pods).toBe('3');
    const table = (await harness.request('GET', quotas, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Age', 'Request', 'Limit']);
    const cells = table.rows[0].cells;
    expect([cells[0], cells[2], cells[3]]).toEqual(['q', 'pods: 3/10, requests.cpu: 100m/500m', 'limits.memory: 512Mi/2Gi']);
  });

  it('validate names and quantities as kube-apiserver does', async () => {
    expect(await causesOf('POST', quotas, quota('bad', { hard: { pods: '1.5' } }))).toEqual([{ field: 'spec.hard[pods]', message: 'Invalid value: "1500m": must be an integer' }]);
    expect(await causesOf('POST', quotas, quota('bad', { hard: { cpu: '-1' } }))).toEqual([{ field: 'spec.hard[cpu]', message: 'Invalid value: "-1": must be greater than or equal to 0' }]);
    expect(await causesOf('POST', quotas, quota('bad', { hard: { widgets: '1' } }))).toEqual([
      { field: 'spec.hard[widgets]', message: 'Invalid value: "widgets": must be a standard resource type or fully qualified' },
      { field: 'spec.hard[widgets]', message: 'Invalid value: "widgets": must be a standard resource for quota' },
    ]);
    // A value that is no quantity fails the decode (resource.Quantity's UnmarshalJSON), before validation.
    const notQuantity = await harness.request('POST', quotas, quota('bad', { hard: { memory: 'much' } }));
    expect(notQuantity.statusCode).toBe(400);
    expect(notQuantity.json().message).toBe('ResourceQuota in version "v1" cannot be handled as a ResourceQuota: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
    expect(await causesOf('POST', quotas, quota('bad', { hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] })))
      .toEqual([{ field: 'spec.scopes', message: 'Invalid value: ["Terminating","NotTerminating"]: conflicting scopes' }]);
    expect(await causesOf('POST', quotas, quota('bad', { hard: { secrets: '1' }, scopes: ['BestEffort'] })))
      .toEqual([{ field: 'spec.hard', message: 'Invalid value: ["secrets"]: unsupported scope applied to resource' }]);
    await create(quotas, quota('counts', { hard: { 'count/deployments.apps': '4', 'example.com/gpu': '2' } }));
  });

  it('keep scopes immutable', async () => {
    const created = await create(quotas, quota('q', { hard: { pods: '1' }, scopes: ['NotTerminating'] }));
    expect(await causesOf('PUT', `${quotas}/q`, { ...created, spec: { ...created.spec, scopes: ['Terminating'] } }))
      .toEqual([{ field: 'spec.scopes', message: 'Invalid value: ["Terminating"]: field is immutable' }]);
  });
});

describe('limitranges', () => {
  it('default a Container item\'s limit to max and its request to the limit, then min', async () => {
    const created = await create(limits, limitRange('l', [
      { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m', memory: '1024Mi' }, default: { cpu: '1' } },
      { type: 'Pod', max: { cpu: '4' } },
    ]));
    expect(created.spec.limits[0]).toEqual({
      type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m', memory: '1Gi' },
      default: { cpu: '1', memory: '1Gi' }, defaultRequest: { cpu: '1', memory: '1Gi' },
    });
    expect(created.spec.limits[1]).toEqual({ type: 'Pod', max: { cpu: '4' } });
    const table = (await harness.request('GET', limits, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: Json) => [column.name, column.type])).toEqual([['Name', 'string'], ['Created At', 'date']]);
    expect(table.rows[0].cells).toEqual(['l', created.metadata.creationTimestamp]);
  });

  it('validate as kube-apiserver does', async () => {
    expect(await causesOf('POST', limits, limitRange('bad', [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }]))).toEqual([
      { field: 'spec.limits[0].min[cpu]', message: 'Invalid value: "2": min value 2 is greater than max value 1' },
      { field: 'spec.limits[0].defaultRequest[cpu]', message: 'Invalid value: "1": min value 2 is greater than default request value 1' },
      { field: 'spec.limits[0].default[cpu]', message: 'Invalid value: "2": min value 2 is greater than default value 1' },
    ]);
    expect(await causesOf('POST', limits, limitRange('bad', [{ type: 'Pod', max: { cpu: '1' }, default: { cpu: '1' } }])))
      .toEqual([{ field: 'spec.limits[0].default', message: "Forbidden: may not be specified when `type` is 'Pod'" }]);
    expect(await causesOf('POST', limits, limitRange('bad', [{ type: 'PersistentVolumeClaim', max: { cpu: '1' } }])))
      .toEqual([{ field: 'spec.limits[0].limits', message: 'Required value: either minimum or maximum storage value is required, but neither was provided' }]);
    // The defaults copy max into default and defaultRequest first, so each is reported.
    expect(await causesOf('POST', limits, limitRange('bad', [{ type: 'Container', max: { pods: '1' } }]))).toEqual(['max', 'default', 'defaultRequest'].map((list) => (
      { field: `spec.limits[0].${list}[pods]`, message: 'Invalid value: "pods": must be a standard resource for containers' })));
    expect(await causesOf('POST', limits, limitRange('bad', [{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }])))
      .toEqual([{ field: 'spec.limits[0].maxLimitRequestRatio[cpu]', message: 'Invalid value: "500m": ratio 500m is less than 1' }]);
    expect(await causesOf('POST', limits, limitRange('bad', [{ type: 'Container' }, { type: 'Container' }])))
      .toEqual([{ field: 'spec.limits[1].type', message: 'Duplicate value: "Container"' }]);
    expect(await causesOf('POST', limits, limitRange('bad', [{ type: 'Node' }])))
      .toEqual([{ field: 'spec.limits[0].type', message: 'Invalid value: "Node": must be a standard limit type or fully qualified' }]);
  });
});
