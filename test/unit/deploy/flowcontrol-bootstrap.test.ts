// The control-plane configuration each API server keeps: kube's APF bootstrap FlowSchemas and
// PriorityLevelConfigurations (created with their exact specs; mandatory ones stomped back;
// suggested ones updated only while their autoupdate-spec annotation allows; stale autoupdate
// objects removed; Dangling conditions), and the local APIServices of the served
// group/versions (one each, Local/True; stale automanaged ones deleted, the user's left alone).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { ensureLocalApiServices, servedGroupVersions } from '../../../deploy/apiservice-bootstrap.ts';
import { ensureFlowcontrolBootstrap } from '../../../deploy/flowcontrol-bootstrap.ts';
import { startHarness } from '../api/harness.ts';
import type { Harness } from '../api/harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const group = '/apis/flowcontrol.apiserver.k8s.io/v1';
const apiservices = '/apis/apiregistration.k8s.io/v1/apiservices';
const merge = { 'content-type': 'application/merge-patch+json' };
let harness: Harness;
let client: StoreClient;

beforeEach(async () => {
  harness = await startHarness(['default']);
  client = new StoreClient(harness.backend);
});
afterEach(async () => {
  await harness.close();
});

async function get(url: string): Promise<Json> {
  const response = await harness.request('GET', url);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

function names(list: Json): string[] {
  return list.items.map((item: Json) => item.metadata.name);
}

describe('APF bootstrap configuration', () => {
  it('creates kube\'s mandatory and suggested objects with their exact specs and the autoupdate annotation', async () => {
    await ensureFlowcontrolBootstrap(client);
    expect(names(await get(`${group}/prioritylevelconfigurations`))).toEqual(['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    expect(names(await get(`${group}/flowschemas`))).toEqual([
      'catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts',
      'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election',
    ]);
    const exempt = await get(`${group}/prioritylevelconfigurations/exempt`);
    expect(exempt.metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'true' });
    expect(exempt.spec).toEqual({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
    expect((await get(`${group}/prioritylevelconfigurations/catch-all`)).spec).toEqual({ type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } });
    expect((await get(`${group}/prioritylevelconfigurations/workload-low`)).spec.limited).toEqual({
      nominalConcurrencyShares: 100, lendablePercent: 90, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
    });
    expect((await get(`${group}/flowschemas/probes`)).spec).toEqual({
      priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 2,
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }],
    });
    const leaderElection = await get(`${group}/flowschemas/system-leader-election`);
    expect(leaderElection.spec.distinguisherMethod).toEqual({ type: 'ByUser' });
    expect(leaderElection.spec.rules[0].subjects).toEqual([
      { kind: 'User', user: { name: 'system:kube-controller-manager' } }, { kind: 'User', user: { name: 'system:kube-scheduler' } },
      { kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } },
    ]);
    const catchAll = await get(`${group}/flowschemas/catch-all`);
    expect(catchAll.spec).toMatchObject({ matchingPrecedence: 10000, distinguisherMethod: { type: 'ByUser' } });
    expect(catchAll.status.conditions).toEqual([expect.objectContaining({ type: 'Dangling', status: 'False', reason: 'Found' })]);
    const printed = (await harness.request('GET', `${group}/flowschemas`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json();
    expect(printed.rows.find((row: Json) => row.cells[0] === 'exempt').cells).toEqual(['exempt', 'exempt', 1, '*', expect.any(String), 'False']);
  });

  it('puts back mandatory specs, updates suggested ones while autoupdate allows, and removes stale autoupdate objects', async () => {
    await ensureFlowcontrolBootstrap(client);
    // The exempt level's shares are the operator's; the catch-all FlowSchema cannot change through the API at all.
    const tuned = await harness.request('PATCH', `${group}/prioritylevelconfigurations/exempt`, { spec: { exempt: { nominalConcurrencyShares: 4 } } }, merge);
    expect(tuned.statusCode, tuned.body).toBe(200);
    expect((await harness.request('PATCH', `${group}/flowschemas/catch-all`, { spec: { matchingPrecedence: 9999 } }, merge)).statusCode).toBe(422);
    // A suggested object edited with autoupdate on is put back; with autoupdate off it is kept.
    await harness.request('PATCH', `${group}/flowschemas/global-default`, { spec: { matchingPrecedence: 9800 } }, merge);
    await harness.request('PATCH', `${group}/flowschemas/service-accounts`, { metadata: { annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } }, spec: { matchingPrecedence: 8000 } }, merge);
    // A deleted suggested object comes back; an extra one marked for auto-update is removed; the user's own stays.
    await harness.request('DELETE', `${group}/prioritylevelconfigurations/workload-high`);
    const extra = (name: string, annotations: Json) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name, annotations }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } });
    expect((await harness.request('POST', `${group}/prioritylevelconfigurations`, extra('retired', { 'apf.kubernetes.io/autoupdate-spec': 'true' }))).statusCode).toBe(201);
    expect((await harness.request('POST', `${group}/prioritylevelconfigurations`, extra('mine', {}))).statusCode).toBe(201);
    const orphan = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'orphan' }, spec: { priorityLevelConfiguration: { name: 'nowhere' }, rules: [] } };
    expect((await harness.request('POST', `${group}/flowschemas`, orphan)).statusCode).toBe(201);

    await ensureFlowcontrolBootstrap(client);
    expect((await get(`${group}/prioritylevelconfigurations/exempt`)).spec.exempt).toEqual({ nominalConcurrencyShares: 4, lendablePercent: 0 });
    const globalDefault = await get(`${group}/flowschemas/global-default`);
    expect(globalDefault.spec.matchingPrecedence).toBe(9900);
    expect(globalDefault.metadata.generation).toBe(3);
    expect((await get(`${group}/flowschemas/service-accounts`)).spec.matchingPrecedence).toBe(8000);
    expect(names(await get(`${group}/prioritylevelconfigurations`))).toEqual(expect.arrayContaining(['workload-high', 'mine']));
    expect(names(await get(`${group}/prioritylevelconfigurations`))).not.toContain('retired');
    expect((await get(`${group}/flowschemas/orphan`)).status.conditions).toEqual([expect.objectContaining({
      type: 'Dangling', status: 'True', reason: 'NotFound', message: 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object',
    })]);
  });

  it('writes the annotation on a suggested object that lacks it: true while generation is 1, false once edited', async () => {
    await ensureFlowcontrolBootstrap(client);
    for (const name of ['system', 'node-high']) {
      const current = await get(`${group}/prioritylevelconfigurations/${name}`);
      const bare: Json = { ...current, metadata: { ...current.metadata, annotations: {} } };
      if (name === 'node-high') bare.spec = { ...current.spec, limited: { ...current.spec.limited, nominalConcurrencyShares: 41 } };
      expect((await harness.request('PUT', `${group}/prioritylevelconfigurations/${name}`, bare)).statusCode).toBe(200);
    }
    await ensureFlowcontrolBootstrap(client);
    expect((await get(`${group}/prioritylevelconfigurations/system`)).metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'true' });
    const nodeHigh = await get(`${group}/prioritylevelconfigurations/node-high`);
    expect(nodeHigh.metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'false' });
    expect(nodeHigh.spec.limited.nominalConcurrencyShares).toBe(41);
  });
});

describe('local APIServices', () => {
  it('are one per served group/version with kube\'s priorities, Local and Available', async () => {
    await ensureLocalApiServices(client);
    const list = await get(apiservices);
    const discovered = [
      ...(await get('/api')).versions.map((version: string) => `${version}.`),
      ...(await get('/apis')).groups.flatMap((entry: Json) => entry.versions.map((version: Json) => `${version.version}.${entry.name}`)),
    ];
    // kube registers none for apiregistration.k8s.io itself (its group/version has no priority in the table).
    expect(names(list).sort()).toEqual(discovered.filter((name) => name !== 'v1.apiregistration.k8s.io').sort());
    expect(servedGroupVersions().flatMap((entry) => entry.versions.map((version) => `${version}.${entry.group}`)).sort()).toEqual(discovered.sort());
    expect(names(list)).toEqual(expect.arrayContaining(['v1.', 'v1.apps', 'v1.authorization.k8s.io', 'v1.authentication.k8s.io', 'v1.flowcontrol.apiserver.k8s.io', 'v1.admissionregistration.k8s.io']));
    const core = await get(`${apiservices}/v1.`);
    expect(core.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    expect(core.spec).toEqual({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    expect((await get(`${apiservices}/v1.flowcontrol.apiserver.k8s.io`)).spec).toMatchObject({ groupPriorityMinimum: 16100, versionPriority: 21 });
    const printed = (await harness.request('GET', apiservices, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json();
    for (const row of printed.rows) expect(row.cells.slice(1, 3)).toEqual(['Local', 'True']);
  });

  it('correct an automanaged spec, delete a stale automanaged one, and leave the user\'s alone', async () => {
    await ensureLocalApiServices(client);
    await harness.request('PATCH', `${apiservices}/v1.apps`, { spec: { versionPriority: 3 } }, merge);
    const stale = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.gone.example.com', labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } }, spec: { group: 'gone.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10 } };
    expect((await harness.request('POST', apiservices, stale)).statusCode).toBe(201);
    const mine = { ...stale, metadata: { name: 'v1.mine.example.com' }, spec: { ...stale.spec, group: 'mine.example.com' } };
    expect((await harness.request('POST', apiservices, mine)).statusCode).toBe(201);
    await ensureLocalApiServices(client);
    expect((await get(`${apiservices}/v1.apps`)).spec.versionPriority).toBe(15);
    expect((await harness.request('GET', `${apiservices}/v1.gone.example.com`)).statusCode).toBe(404);
    expect((await harness.request('GET', `${apiservices}/v1.mine.example.com`)).statusCode).toBe(200);
  });
});
