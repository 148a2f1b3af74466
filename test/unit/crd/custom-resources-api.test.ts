// Custom resources through the API tier (the real buildServer over a real ClusterState): a CRD
// becomes Established and its kinds are served at once — discovery (legacy and aggregated) and
// OpenAPI list them, every verb works with defaults, pruning, both versions (conversion None),
// label and field selectors (metadata.name and a selectable field), list chunking and dry run;
// protobuf alone is 406 (custom resources have no protobuf), strategic merge is 415; the status
// subresource resets status on create; deleting the CRD deletes its objects and then the CRD,
// and its kinds are no longer served; a conversion webhook behind a service serves the storage version only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from '../api/harness.ts';
import type { Harness } from '../api/harness.ts';
import { cronTab, cronTabCrd, cronTabCrdName } from '../../support/crd-fixtures.ts';
import { waitFor } from '../../support/wait-for.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let harness: Harness;
const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const cronTabs = '/apis/stable.example.com/v1/namespaces/t/crontabs';

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

async function established(): Promise<void> {
  const created = await harness.request('POST', crds, cronTabCrd());
  expect(created.statusCode, created.body).toBe(201);
  await waitFor(async () => (await harness.request('GET', cronTabs)).statusCode === 200, { timeoutMs: 10_000, description: 'crontabs served' });
}

async function create(object: Json, url = cronTabs): Promise<Json> {
  const response = await harness.request('POST', url, object);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

describe('a CustomResourceDefinition', () => {
  it('is Established with its accepted names and stored versions', async () => {
    await established();
    const crd = (await harness.request('GET', `${crds}/${cronTabCrdName}`)).json();
    // As kube: the cleanup finalizer comes with the first delete, not before.
    expect(crd.metadata.finalizers).toBeUndefined();
    expect(crd.status.storedVersions).toEqual(['v1']);
    expect(crd.status.acceptedNames).toMatchObject({ plural: 'crontabs', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] });
    const types = (crd.status.conditions as Json[]).map((condition) => `${condition.type}=${condition.status}`);
    expect(types).toEqual(expect.arrayContaining(['NamesAccepted=True', 'Established=True']));
  });

  it('is listed by discovery and OpenAPI while it exists', async () => {
    await established();
    const list = (await harness.request('GET', '/apis/stable.example.com/v1')).json();
    expect(list.resources.map((resource: Json) => resource.name)).toEqual(['crontabs', 'crontabs/status', 'crontabs/scale']);
    expect(list.resources[0]).toMatchObject({ kind: 'CronTab', namespaced: true, shortNames: ['ct'], categories: ['all'], singularName: 'crontab' });
    const group = (await harness.request('GET', '/apis/stable.example.com')).json();
    expect(group.preferredVersion.version).toBe('v1');
    expect(group.versions.map((version: Json) => version.version)).toEqual(['v1', 'v1beta1']);
    const groups = (await harness.request('GET', '/apis')).json();
    expect(groups.groups.at(-1).name).toBe('stable.example.com');
    const aggregated = await harness.request('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    expect(aggregated.body).toContain('"crontabs"');
    const openapi = await harness.request('GET', '/openapi/v3/apis/stable.example.com/v1');
    expect(openapi.statusCode).toBe(200);
    expect(Object.keys(openapi.json().components.schemas)).toContain('com.example.stable.v1.CronTab');
    // kube's CRD registration controller: one local APIService per served version.
    const apiServices = '/apis/apiregistration.k8s.io/v1/apiservices';
    await waitFor(async () => (await harness.request('GET', `${apiServices}/v1beta1.stable.example.com`)).statusCode === 200, { timeoutMs: 10_000, description: 'the APIServices of the CRD group' });
    const apiService = (await harness.request('GET', `${apiServices}/v1.stable.example.com`)).json();
    expect(apiService.spec).toEqual({ group: 'stable.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(apiService.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    const v2 = (await harness.request('GET', '/openapi/v2')).json();
    expect(v2.definitions['com.example.stable.v1.CronTab'].properties.spec.properties.cronSpec.type).toBe('string');
  });

  it('serves CronTabs with defaults, pruning, both versions, selectors, chunks and dry run', async () => {
    await established();
    const created = await create(cronTab('a', { cronSpec: '* * * * *', unknown: 1, extra: { kept: true } }));
    expect(created.spec).toEqual({ cronSpec: '* * * * *', extra: { kept: true }, color: 'blue', replicas: 1, maxReplicas: 10 });
    expect(created.metadata.generation).toBe(1);
    await create({ ...cronTab('b', { cronSpec: '* * * * *', color: 'red' }), metadata: { name: 'b', labels: { tier: 'x' } } });
    await create(cronTab('c', { cronSpec: '* * * * *' }, 'stable.example.com/v1beta1'), '/apis/stable.example.com/v1beta1/namespaces/t/crontabs');
    expect((await harness.request('GET', `${cronTabs}/c`)).json().apiVersion).toBe('stable.example.com/v1');
    expect((await harness.request('GET', '/apis/stable.example.com/v1beta1/namespaces/t/crontabs/a')).json().apiVersion).toBe('stable.example.com/v1beta1');
    const names = async (query: string) => ((await harness.request('GET', `${cronTabs}?${query}`)).json().items as Json[]).map((item) => item.metadata.name);
    expect(await names('labelSelector=tier%3Dx')).toEqual(['b']);
    expect(await names('fieldSelector=spec.color%3Dred')).toEqual(['b']);
    expect(await names('fieldSelector=metadata.name%3Dc')).toEqual(['c']);
    const unknownField = await harness.request('GET', `${cronTabs}?fieldSelector=spec.image%3Dx`);
    expect(unknownField.statusCode).toBe(400);
    const first = (await harness.request('GET', `${cronTabs}?limit=2`)).json();
    expect(first.items).toHaveLength(2);
    const rest = (await harness.request('GET', `${cronTabs}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)).json();
    expect(rest.items.map((item: Json) => item.metadata.name)).toEqual(['c']);
    const dry = await harness.request('POST', `${cronTabs}?dryRun=All`, cronTab('dry', { cronSpec: '* * * * *' }));
    expect(dry.statusCode).toBe(201);
    expect((await harness.request('GET', `${cronTabs}/dry`)).statusCode).toBe(404);
  });

  it('refuses protobuf alone (406), serves JSON when it is a fallback, and refuses strategic merge (415)', async () => {
    await established();
    await create(cronTab('a', { cronSpec: '* * * * *' }));
    const protobuf = await harness.request('GET', `${cronTabs}/a`, undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(protobuf.statusCode).toBe(406);
    const fallback = await harness.request('GET', `${cronTabs}/a`, undefined, { accept: 'application/vnd.kubernetes.protobuf, application/json' });
    expect(fallback.statusCode).toBe(200);
    expect(fallback.headers['content-type']).toContain('application/json');
    const strategic = await harness.request('PATCH', `${cronTabs}/a`, JSON.stringify({ spec: { image: 'x' } }), { 'content-type': 'application/strategic-merge-patch+json' });
    expect(strategic.statusCode).toBe(415);
    expect(strategic.json().message).toBe('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
    const merge = await harness.request('PATCH', `${cronTabs}/a`, JSON.stringify({ spec: { image: 'x' } }), { 'content-type': 'application/merge-patch+json' });
    expect(merge.statusCode, merge.body).toBe(200);
    expect(merge.json().metadata.generation).toBe(2);
  });

  it('keeps status out of creates and main-resource updates when status is a subresource', async () => {
    await established();
    const created = await create({ ...cronTab('a', { cronSpec: '* * * * *' }), status: { replicas: 3 } });
    expect(created.status).toBeUndefined();
    const status = await harness.request('PUT', `${cronTabs}/a/status`, { ...created, status: { replicas: 3 } });
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json().metadata.generation).toBe(1);
    const updated = await harness.request('PUT', `${cronTabs}/a`, { ...(status.json() as Json), status: { replicas: 9 } });
    expect(updated.json().status).toEqual({ replicas: 3 });
    expect(updated.json().metadata.generation).toBe(1);
  });

  it('deleting the CRD deletes its CronTabs, then the CRD, and stops serving them', async () => {
    await established();
    await create(cronTab('a', { cronSpec: '* * * * *' }));
    await create(cronTab('b', { cronSpec: '* * * * *' }));
    const deleted = await harness.request('DELETE', `${crds}/${cronTabCrdName}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json().metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(deleted.json().status.conditions).toContainEqual(expect.objectContaining({ type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending' }));
    await waitFor(async () => (await harness.request('GET', `${crds}/${cronTabCrdName}`)).statusCode === 404, { timeoutMs: 10_000, description: 'the CRD gone' });
    expect(harness.backend.state.list({ group: 'stable.example.com', resource: 'crontabs', namespace: '' }).items).toEqual([]);
    expect((await harness.request('GET', cronTabs)).statusCode).toBe(404);
    expect((await harness.request('GET', '/apis/stable.example.com/v1')).statusCode).toBe(404);
    await waitFor(async () => (await harness.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.stable.example.com')).statusCode === 404, { timeoutMs: 10_000, description: 'the APIService gone' });
  });

  it('with a conversion webhook behind a service (kstore runs no service proxy) serves its storage version only, never a wrong conversion', async () => {
    const crd = cronTabCrd() as Json;
    crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 't', name: 'converter', path: '/convert' } } } };
    const created = await harness.request('POST', crds, crd);
    expect(created.statusCode, created.body).toBe(201);
    await waitFor(async () => (await harness.request('GET', cronTabs)).statusCode === 200, { timeoutMs: 10_000, description: 'crontabs served' });
    expect((await harness.request('GET', '/apis/stable.example.com/v1beta1/namespaces/t/crontabs')).statusCode).toBe(404);
    const group = (await harness.request('GET', '/apis/stable.example.com')).json();
    expect(group.versions.map((version: Json) => version.version)).toEqual(['v1']);
  });
});
