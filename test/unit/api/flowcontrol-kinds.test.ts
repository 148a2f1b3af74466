// flowcontrol.apiserver.k8s.io/v1 through the API: FlowSchema and PriorityLevelConfiguration
// v1 defaults, generation and status rules, kube's validation messages (including the fixed
// specs of the mandatory objects), kube's Table columns, and APIService (apiregistration.k8s.io/v1)
// rules: the local Available condition, the name rule and the aggregator's table.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const group = '/apis/flowcontrol.apiserver.k8s.io/v1';
const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const protobuf = 'application/vnd.kubernetes.protobuf';
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function flowSchema(name: string, spec: Json = {}): Json {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: 'workload-low' },
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'team-a' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }],
      ...spec,
    },
  };
}

function priorityLevel(name: string, spec: Json): Json {
  return { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name }, spec };
}

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

describe('flow schemas', () => {
  it('default matchingPrecedence to 1000, start at generation 1 with an empty status and keep the status on a PUT', async () => {
    const created = await harness.request('POST', `${group}/flowschemas`, { ...flowSchema('team-a'), status: { conditions: [{ type: 'Dangling', status: 'True' }] } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().spec.matchingPrecedence).toBe(1000);
    expect(created.json().metadata.generation).toBe(1);
    expect(created.json().status).toEqual({});
    const status = await harness.request('PUT', `${group}/flowschemas/team-a/status`, { ...created.json<Json>(), status: { conditions: [{ type: 'Dangling', status: 'False' }] } });
    expect(status.statusCode, status.body).toBe(200);
    const relabelled = await harness.request('PUT', `${group}/flowschemas/team-a`, { ...status.json<Json>(), metadata: { ...status.json<Json>().metadata, labels: { a: 'b' } }, status: {} });
    expect(relabelled.json().metadata.generation).toBe(1);
    expect(relabelled.json().status.conditions).toEqual([{ type: 'Dangling', status: 'False' }]);
    const changed = await harness.request('PUT', `${group}/flowschemas/team-a`, { ...relabelled.json<Json>(), spec: { ...relabelled.json<Json>().spec, matchingPrecedence: 500 } });
    expect(changed.json().metadata.generation).toBe(2);
  });

  it('reject what kube rejects, in kube\'s words', async () => {
    expect(await causesOf('POST', `${group}/flowschemas`, flowSchema('bad', {
      matchingPrecedence: 1, priorityLevelConfiguration: {}, distinguisherMethod: { type: 'ByHost' },
      rules: [
        { subjects: [], resourceRules: [{ verbs: ['get', '*'], apiGroups: [], resources: ['pods'] }] },
        { subjects: [{ kind: 'User', group: { name: 'g' } }, { kind: 'Robot' }], nonResourceRules: [{ verbs: ['fetch'], nonResourceURLs: ['healthz', '/a/*/b'] }] },
        { subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'x' } }] },
      ],
    }))).toEqual([
      { field: 'spec.matchingPrecedence', message: 'Invalid value: 1: only the schema named \'exempt\' may have matchingPrecedence 1' },
      { field: 'spec.distinguisherMethod.type', message: 'Unsupported value: {"type":"ByHost"}: supported values: "ByNamespace", "ByUser"' },
      { field: 'spec.priorityLevelConfiguration.name', message: 'Required value: must reference a priority level' },
      { field: 'spec.rules[0].subjects', message: 'Required value: subjects must contain at least one value' },
      { field: 'spec.rules[0].resourceRules[0].verbs', message: 'Invalid value: ["get","*"]: if \'*\' is present, must not specify other verbs' },
      { field: 'spec.rules[0].resourceRules[0].apiGroups', message: 'Required value: resource rules must supply at least one api group' },
      { field: 'spec.rules[0].resourceRules[0].namespaces', message: 'Required value: resource rules that are not cluster scoped must supply at least one namespace' },
      { field: 'spec.rules[1].subjects[0].user', message: 'Required value: user is required when subject kind is \'User\'' },
      { field: 'spec.rules[1].subjects[0].group', message: 'Forbidden: group is forbidden when subject kind is not \'Group\'' },
      { field: 'spec.rules[1].subjects[1].kind', message: 'Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"' },
      { field: 'spec.rules[1].nonResourceRules[0].verbs', message: 'Unsupported value: ["fetch"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"' },
      { field: 'spec.rules[1].nonResourceRules[0].nonResourceURLs[0]', message: 'Invalid value: "healthz": must start with slash' },
      { field: 'spec.rules[1].nonResourceRules[0].nonResourceURLs[1]', message: 'Invalid value: "/a/*/b": wildcard can only do suffix matching' },
      { field: 'spec.rules[2].subjects[0].serviceAccount.namespace', message: 'Required value: must specify namespace for service account' },
      { field: 'spec.rules[2]', message: 'Required value: at least one of resourceRules and nonResourceRules has to be non-empty' },
    ]);
    const catchAll = flowSchema('catch-all', { matchingPrecedence: 10000, priorityLevelConfiguration: { name: 'catch-all' } });
    const fixed = await causesOf('POST', `${group}/flowschemas`, catchAll);
    expect(fixed.map((cause) => cause.field)).toEqual(['spec']);
    expect(fixed[0]!.message).toMatch(/: spec of 'catch-all' must equal the fixed value$/);
  });

  it('print PriorityLevel, MatchingPrecedence, DistinguisherMethod, Age and MissingPL', async () => {
    await harness.request('POST', `${group}/flowschemas`, flowSchema('team-a', { distinguisherMethod: { type: 'ByNamespace' } }));
    await harness.request('POST', `${group}/flowschemas`, flowSchema('team-b', { matchingPrecedence: 20 }));
    const current = (await harness.request('GET', `${group}/flowschemas/team-b`)).json();
    await harness.request('PUT', `${group}/flowschemas/team-b/status`, { ...current, status: { conditions: [{ type: 'Dangling', status: 'True', reason: 'NotFound' }] } });
    const body = (await harness.request('GET', `${group}/flowschemas`, undefined, table)).json();
    expect(body.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
    expect(body.rows.map((row: Json) => [...row.cells.slice(0, 4), row.cells[5]])).toEqual([
      ['team-a', 'workload-low', 1000, 'ByNamespace', '?'],
      ['team-b', 'workload-low', 20, '*', 'True'],
    ]);
  });
});

describe('priority level configurations', () => {
  it('take the v1 defaults for limited and exempt levels', async () => {
    const limited = await harness.request('POST', `${group}/prioritylevelconfigurations`, priorityLevel('batch', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }));
    expect(limited.statusCode, limited.body).toBe(201);
    expect(limited.json().spec.limited).toEqual({ nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } });
    expect(limited.json().metadata.generation).toBe(1);
    const zero = await harness.request('POST', `${group}/prioritylevelconfigurations`, priorityLevel('zero', { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }));
    expect(zero.statusCode, zero.body).toBe(201);
    expect(zero.json().spec.limited.nominalConcurrencyShares).toBe(0);
    const exempt = await harness.request('POST', `${group}/prioritylevelconfigurations`, priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 3 } }));
    expect(exempt.statusCode, exempt.body).toBe(201);
    expect(exempt.json().spec.exempt).toEqual({ nominalConcurrencyShares: 3, lendablePercent: 0 });
  });

  it('reject what kube rejects, in kube\'s words', async () => {
    const url = `${group}/prioritylevelconfigurations`;
    expect(await causesOf('POST', url, priorityLevel('a', { type: 'Exempt', limited: { limitResponse: { type: 'Reject' } } }))).toEqual([
      { field: 'spec.type', message: 'Invalid value: "Exempt": type must be \'Exempt\' if and only if name is \'exempt\'' },
      { field: 'spec.limited', message: 'Forbidden: must be nil if the type is not Limited' },
    ]);
    expect(await causesOf('POST', url, priorityLevel('b', { type: 'Limited', exempt: {}, limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -2, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: -1 } } } }))).toEqual([
      { field: 'spec.exempt', message: 'Forbidden: must be nil if the type is Limited' },
      { field: 'spec.limited.nominalConcurrencyShares', message: 'Invalid value: -1: must be a non-negative integer' },
      { field: 'spec.limited.limitResponse.queuing.queueLengthLimit', message: 'Invalid value: -1: must be positive' },
      { field: 'spec.limited.limitResponse.queuing.handSize', message: 'Invalid value: 5: should not be greater than queues (4)' },
      { field: 'spec.limited.lendablePercent', message: 'Invalid value: 101: must be between 0 and 100, inclusive' },
      { field: 'spec.limited.borrowingLimitPercent', message: 'Invalid value: -2: if specified, must be a non-negative integer' },
    ]);
    expect(await causesOf('POST', url, priorityLevel('c', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 1000000, handSize: 6 } } } }))).toEqual([
      { field: 'spec.limited.limitResponse.queuing.handSize', message: 'Invalid value: 6: required entropy bits of deckSize 1000000 and handSize 6 should not be greater than 60' },
    ]);
    expect(await causesOf('POST', url, priorityLevel('d', { type: 'Sometimes' }))).toEqual([
      { field: 'spec.type', message: 'Unsupported value: "Sometimes": supported values: "Exempt", "Limited"' },
    ]);
    const catchAll = await causesOf('POST', url, priorityLevel('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 6, limitResponse: { type: 'Reject' } } }));
    expect(catchAll.map((cause) => cause.field)).toEqual(['spec']);
  });

  it('print Type, NominalConcurrencyShares, Queues, HandSize, QueueLengthLimit and Age', async () => {
    await harness.request('POST', `${group}/prioritylevelconfigurations`, priorityLevel('exempt', { type: 'Exempt', exempt: {} }));
    await harness.request('POST', `${group}/prioritylevelconfigurations`, priorityLevel('queued', { type: 'Limited', limited: { nominalConcurrencyShares: 7, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4 } } } }));
    await harness.request('POST', `${group}/prioritylevelconfigurations`, priorityLevel('rejecting', { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } }));
    const body = (await harness.request('GET', `${group}/prioritylevelconfigurations`, undefined, table)).json();
    expect(body.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']);
    expect(body.rows.map((row: Json) => row.cells.slice(0, 6))).toEqual([
      ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>'],
      ['queued', 'Limited', 7, 16, 4, 50],
      ['rejecting', 'Limited', 30, '<none>', '<none>', '<none>'],
    ]);
    const pb = await harness.request('GET', `${group}/prioritylevelconfigurations/queued`, undefined, { accept: protobuf });
    expect(decodeProtobufObject(pb.rawPayload)).toMatchObject({ kind: 'PriorityLevelConfiguration', spec: { limited: { nominalConcurrencyShares: 7 } } });
  });
});

describe('apiservices', () => {
  const url = '/apis/apiregistration.k8s.io/v1/apiservices';
  const local = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.example.com' }, spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } };

  it('a local one is Available (reason Local) from its creation; status is kept on a PUT and has its own subresource', async () => {
    const created = await harness.request('POST', url, { ...local, status: { conditions: [] } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().status.conditions).toEqual([expect.objectContaining({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' })]);
    expect(created.json().metadata).not.toHaveProperty('generation');
    const kept = await harness.request('PUT', `${url}/v1.example.com`, { ...created.json<Json>(), spec: { ...local.spec, versionPriority: 11 }, status: {} });
    expect(kept.json().status.conditions[0].reason).toBe('Local');
    const remote = await harness.request('POST', url, { ...local, metadata: { name: 'v1beta1.metrics.k8s.io' }, spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics-server' } } });
    expect(remote.statusCode, remote.body).toBe(201);
    expect(remote.json().spec.service.port).toBe(443);
    expect(remote.json().status).toEqual({});
    const body = (await harness.request('GET', url, undefined, table)).json();
    expect(body.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Service', 'Available', 'Age']);
    expect(body.rows.map((row: Json) => row.cells.slice(0, 3))).toEqual([['v1.example.com', 'Local', 'True'], ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'Unknown']]);
  });

  it('reject what kube-aggregator rejects, in its words', async () => {
    expect(await causesOf('POST', url, { ...local, metadata: { name: 'v2.example.com' }, spec: { group: 'Example', version: '1', groupPriorityMinimum: 0, versionPriority: 1001, insecureSkipTLSVerify: true } })).toEqual([
      { field: 'metadata.name', message: 'Invalid value: "v2.example.com": must be `spec.version+"."+spec.group`: "1.Example"' },
      { field: 'spec.group', message: 'Invalid value: "Example": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')' },
      { field: 'spec.version', message: 'Invalid value: "1": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')' },
      { field: 'spec.groupPriorityMinimum', message: 'Invalid value: 0: must be positive and less than 20000' },
      { field: 'spec.versionPriority', message: 'Invalid value: 1001: must be positive and less than 1000' },
      { field: 'spec.insecureSkipTLSVerify', message: 'Invalid value: true: local APIServices may not have insecureSkipTLSVerify' },
    ]);
    expect(await causesOf('POST', url, { ...local, metadata: { name: 'v2.' }, spec: { group: '', version: 'v2', groupPriorityMinimum: 1, versionPriority: 1 } })).toEqual([
      { field: 'spec.group', message: 'Required value: only v1 may have an empty group and it better be legacy kube' },
    ]);
  });
});
