// admissionregistration.k8s.io/v1 through the API: webhook configurations (v1 defaults,
// generation on webhook changes, kube's validation messages), ValidatingAdmissionPolicies
// (defaults, status reset/kept/replaced through /status, required fields) and their bindings
// (policyName, validationActions, paramRef), kube's Table columns, discovery and protobuf.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const group = '/apis/admissionregistration.k8s.io/v1';
const protobuf = 'application/vnd.kubernetes.protobuf';
const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function webhook(name: string, extra: Json = {}): Json {
  return {
    name, sideEffects: 'None', admissionReviewVersions: ['v1'],
    clientConfig: { service: { namespace: 'default', name: 'hooks' } },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    ...extra,
  };
}

function configuration(kind: string, name: string, webhooks: Json[]): Json {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks };
}

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

function policy(name: string, spec: Json = {}): Json {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
      ...spec,
    },
  };
}

function binding(name: string, spec: Json): Json {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec };
}

describe('webhook configurations', () => {
  it('are created with the v1 webhook defaults and generation 1', async () => {
    const created = await harness.request('POST', `${group}/mutatingwebhookconfigurations`, configuration('MutatingWebhookConfiguration', 'm', [webhook('a.example.com')]));
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body.metadata.generation).toBe(1);
    expect(body.webhooks[0]).toMatchObject({
      failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, reinvocationPolicy: 'Never',
      clientConfig: { service: { namespace: 'default', name: 'hooks', port: 443 } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
    });
    const validating = await harness.request('POST', `${group}/validatingwebhookconfigurations`, configuration('ValidatingWebhookConfiguration', 'v', [webhook('a.example.com')]));
    expect(validating.statusCode, validating.body).toBe(201);
    expect(validating.json().webhooks[0]).not.toHaveProperty('reinvocationPolicy');
    expect(validating.json().webhooks[0].timeoutSeconds).toBe(10);
  });

  it('bump the generation when the webhooks change, not on a label change', async () => {
    const url = `${group}/validatingwebhookconfigurations`;
    const created = (await harness.request('POST', url, configuration('ValidatingWebhookConfiguration', 'v', [webhook('a.example.com')]))).json();
    const relabelled = await harness.request('PUT', `${url}/v`, { ...created, metadata: { ...created.metadata, labels: { team: 'a' } } });
    expect(relabelled.json().metadata.generation).toBe(1);
    const changed = await harness.request('PUT', `${url}/v`, { ...relabelled.json<Json>(), webhooks: [webhook('a.example.com', { timeoutSeconds: 5 })] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().metadata.generation).toBe(2);
  });

  it('merge webhooks by name in a strategic merge patch (kubectl apply)', async () => {
    const url = `${group}/mutatingwebhookconfigurations`;
    await harness.request('POST', url, configuration('MutatingWebhookConfiguration', 'm', [webhook('a.example.com'), webhook('b.example.com')]));
    const patch = { '$setElementOrder/webhooks': [{ name: 'a.example.com' }, { name: 'b.example.com' }], webhooks: [{ name: 'b.example.com', timeoutSeconds: 3 }] };
    const patched = await harness.request('PATCH', `${url}/m`, patch, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().webhooks.map((hook: Json) => [hook.name, hook.timeoutSeconds, hook.sideEffects])).toEqual([['a.example.com', 10, 'None'], ['b.example.com', 3, 'None']]);
    expect(patched.json().metadata.generation).toBe(2);
  });

  it('reject what kube rejects, in kube\'s words', async () => {
    const causes = await causesOf('POST', `${group}/mutatingwebhookconfigurations`, configuration('MutatingWebhookConfiguration', 'm', [
      { name: 'short', clientConfig: {}, rules: [{ operations: ['CREATE', '*'], apiGroups: [], apiVersions: ['v1'], resources: ['pods'], scope: 'Everywhere' }], timeoutSeconds: 31, failurePolicy: 'Sometimes', reinvocationPolicy: 'Always' },
      webhook('a.example.com', { sideEffects: 'Some', clientConfig: { url: 'http://hooks.example.com/x?y=1' }, admissionReviewVersions: ['v2'] }),
      webhook('a.example.com'),
    ]));
    expect(causes).toEqual([
      { field: 'webhooks[0].name', message: 'Invalid value: "short": should be a domain with at least three segments separated by dots' },
      { field: 'webhooks[0].rules[0].operations', message: 'Invalid value: ["CREATE","*"]: if \'*\' is present, must not specify other operations' },
      { field: 'webhooks[0].rules[0].apiGroups', message: 'Required value' },
      { field: 'webhooks[0].rules[0].scope', message: 'Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"' },
      { field: 'webhooks[0].failurePolicy', message: 'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"' },
      { field: 'webhooks[0].sideEffects', message: 'Required value: must specify one of None, NoneOnDryRun' },
      { field: 'webhooks[0].timeoutSeconds', message: 'Invalid value: 31: the timeout value must be between 1 and 30 seconds' },
      { field: 'webhooks[0].reinvocationPolicy', message: 'Unsupported value: "Always": supported values: "IfNeeded", "Never"' },
      { field: 'webhooks[0].clientConfig', message: 'Required value: exactly one of url or service is required' },
      { field: 'webhooks[0].admissionReviewVersions', message: 'Required value: must specify one of v1, v1beta1' },
      { field: 'webhooks[1].sideEffects', message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"' },
      { field: 'webhooks[1].clientConfig.url', message: 'Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]' },
      { field: 'webhooks[1].clientConfig.url', message: 'Invalid value: "y=1": query parameters are not permitted in the URL' },
      { field: 'webhooks[1].admissionReviewVersions', message: 'Invalid value: ["v2"]: must include at least one of v1, v1beta1' },
      { field: 'webhooks[2].name', message: 'Duplicate value: "a.example.com"' },
    ]);
    const service = await causesOf('POST', `${group}/validatingwebhookconfigurations`, configuration('ValidatingWebhookConfiguration', 'v', [
      webhook('a.example.com', { clientConfig: { service: { name: '', namespace: 'default', port: 70000, path: 'hook' } } }),
    ]));
    expect(service).toEqual([
      { field: 'webhooks[0].clientConfig.service.name', message: 'Required value: service name is required' },
      { field: 'webhooks[0].clientConfig.service.port', message: 'Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive' },
      { field: 'webhooks[0].clientConfig.service.path', message: 'Invalid value: "hook": must start with a \'/\'' },
    ]);
  });

  it('print Webhooks and Age, are cluster-scoped in category api-extensions, and round-trip protobuf', async () => {
    await harness.request('POST', `${group}/validatingwebhookconfigurations`, configuration('ValidatingWebhookConfiguration', 'v', [webhook('a.example.com'), webhook('b.example.com')]));
    const response = await harness.request('GET', `${group}/validatingwebhookconfigurations`, undefined, table);
    const body = response.json();
    expect(body.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Webhooks', 'Age']);
    expect(body.rows[0].cells.slice(0, 2)).toEqual(['v', 2]);
    const resources = (await harness.request('GET', group)).json().resources as Json[];
    expect(resources.map((resource) => resource.name).sort()).toEqual([
      'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicies/status', 'validatingadmissionpolicybindings', 'validatingwebhookconfigurations',
    ]);
    expect(resources.find((resource) => resource.name === 'validatingwebhookconfigurations')).toMatchObject({ namespaced: false, categories: ['api-extensions'] });
    const pb = await harness.request('GET', `${group}/validatingwebhookconfigurations/v`, undefined, { accept: protobuf });
    expect(pb.headers['content-type']).toBe(protobuf);
    expect(decodeProtobufObject(pb.rawPayload)).toMatchObject({ kind: 'ValidatingWebhookConfiguration', webhooks: [{ name: 'a.example.com', timeoutSeconds: 10 }, { name: 'b.example.com' }] });
    const posted = await harness.app.inject({
      method: 'POST', url: `${group}/mutatingwebhookconfigurations`,
      payload: encodeProtobufObject(configuration('MutatingWebhookConfiguration', 'pb', [webhook('c.example.com')])),
      headers: { 'x-test-user': 'admin;system:masters', 'content-type': protobuf, accept: 'application/json' },
    });
    expect(posted.statusCode, posted.body).toBe(201);
    expect(posted.json().webhooks[0].reinvocationPolicy).toBe('Never');
  });
});

describe('validating admission policies', () => {
  it('are created with failurePolicy Fail, the match defaults, generation 1 and an empty status; /status replaces the status only', async () => {
    const created = await harness.request('POST', `${group}/validatingadmissionpolicies`, { ...policy('max-replicas'), status: { observedGeneration: 9 } });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body.metadata.generation).toBe(1);
    expect(body.status).toEqual({});
    expect(body.spec).toMatchObject({
      failurePolicy: 'Fail',
      matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: '*' }] },
    });
    const status = await harness.request('PUT', `${group}/validatingadmissionpolicies/max-replicas/status`, { ...body, status: { observedGeneration: 1, typeChecking: {} } });
    expect(status.statusCode, status.body).toBe(200);
    const changed = await harness.request('PUT', `${group}/validatingadmissionpolicies/max-replicas`, { ...status.json<Json>(), spec: { ...body.spec, validations: [{ expression: 'true' }] }, status: {} });
    expect(changed.json().metadata.generation).toBe(2);
    expect(changed.json().status).toEqual({ observedGeneration: 1, typeChecking: {} });
  });

  it('require matchConstraints and validations or auditAnnotations, and check their fields', async () => {
    const url = `${group}/validatingadmissionpolicies`;
    expect(await causesOf('POST', url, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec: {} })).toEqual([
      { field: 'spec.matchConstraints', message: 'Required value' },
      { field: 'spec.validations', message: 'Required value: validations or auditAnnotations must contain at least one item' },
      { field: 'spec.auditAnnotations', message: 'Required value: validations or auditAnnotations must contain at least one item' },
    ]);
    expect(await causesOf('POST', url, policy('p', {
      failurePolicy: 'Never', paramKind: { apiVersion: 'v1' },
      matchConstraints: { resourceRules: [] },
      validations: [{ expression: ' ', reason: 'Teapot' }],
      variables: [{ name: 'in', expression: 'x' }],
    }))).toEqual([
      { field: 'spec.failurePolicy', message: 'Unsupported value: "Never": supported values: "Fail", "Ignore"' },
      { field: 'spec.paramKind.kind', message: 'Required value' },
      { field: 'spec.matchConstraints.resourceRules', message: 'Required value' },
      { field: 'spec.variables[0].name', message: 'Invalid value: "in": name is not a valid CEL identifier' },
      { field: 'spec.validations[0].expression', message: 'Required value: expression is not specified' },
      { field: 'spec.validations[0].reason', message: 'Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"' },
    ]);
  });

  it('print Validations and ParamKind', async () => {
    await harness.request('POST', `${group}/validatingadmissionpolicies`, policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }));
    await harness.request('POST', `${group}/validatingadmissionpolicies`, policy('q'));
    const body = (await harness.request('GET', `${group}/validatingadmissionpolicies`, undefined, table)).json();
    expect(body.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Validations', 'ParamKind', 'Age']);
    expect(body.rows.map((row: Json) => row.cells.slice(0, 3))).toEqual([['p', 1, 'v1/ConfigMap'], ['q', 1, '<unset>']]);
  });
});

describe('validating admission policy bindings', () => {
  it('require policyName and validationActions, each action known and once, not Deny with Warn', async () => {
    const url = `${group}/validatingadmissionpolicybindings`;
    expect(await causesOf('POST', url, binding('b', {}))).toEqual([
      { field: 'spec.policyName', message: 'Required value' },
      { field: 'spec.validationActions', message: 'Required value: at least one validation action is required' },
    ]);
    expect(await causesOf('POST', url, binding('b', { policyName: 'p', validationActions: ['Deny', 'Deny', 'Warn', 'Log'], paramRef: { name: 'x', selector: {} } }))).toEqual([
      { field: 'spec.paramRef.name', message: 'Forbidden: name and selector are mutually exclusive' },
      { field: 'spec.paramRef.selector', message: 'Forbidden: name and selector are mutually exclusive' },
      { field: 'spec.paramRef.parameterNotFoundAction', message: 'Required value' },
      { field: 'spec.validationActions[1]', message: 'Duplicate value: "Deny"' },
      { field: 'spec.validationActions[3]', message: 'Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"' },
      { field: 'spec.validationActions', message: 'Invalid value: ["Deny","Deny","Warn","Log"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)' },
    ]);
  });

  it('are stored with generation 1, bumped on a spec change, and print PolicyName and ParamRef', async () => {
    const url = `${group}/validatingadmissionpolicybindings`;
    const created = await harness.request('POST', url, binding('b', { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' }, matchResources: {} }));
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().metadata.generation).toBe(1);
    expect(created.json().spec.matchResources).toEqual({ matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
    const updated = await harness.request('PUT', `${url}/b`, { ...created.json<Json>(), spec: { ...created.json<Json>().spec, validationActions: ['Warn', 'Audit'] } });
    expect(updated.json().metadata.generation).toBe(2);
    await harness.request('POST', url, binding('c', { policyName: 'p', validationActions: ['Audit'], paramRef: { selector: { matchLabels: { env: 'prod' } }, parameterNotFoundAction: 'Allow' } }));
    await harness.request('POST', url, binding('d', { policyName: 'q', validationActions: ['Audit'] }));
    const body = (await harness.request('GET', url, undefined, table)).json();
    expect(body.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'PolicyName', 'ParamRef', 'Age']);
    expect(body.rows.map((row: Json) => row.cells.slice(0, 3))).toEqual([
      ['b', 'p', 'default/limits'],
      ['c', 'p', '&LabelSelector{MatchLabels:map[string]string{env: prod,},MatchExpressions:[]LabelSelectorRequirement{},}'],
      ['d', 'q', '<unset>'],
    ]);
  });
});
