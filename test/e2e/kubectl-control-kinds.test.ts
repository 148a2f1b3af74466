// End-to-end: the control-plane configuration kinds through the real kubectl against one kstore
// server: apply a ValidatingWebhookConfiguration (defaulted, printed with Webhooks, "configured" on
// a second apply as with kube, rejected in kube's words when invalid), `get flowschemas` and
// `get prioritylevelconfigurations` list kube's bootstrap objects with kube's columns, a
// ValidatingAdmissionPolicy applied server-side with its binding, and
// `get apiservices` lists one local APIService per served group/version as Local/True.
// Webhooks are stored only: kstore does not call them yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-control-kinds-', 'control');
});

afterAll(async () => {
  await fixture?.stop();
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

function webhookConfiguration(timeoutSeconds?: number): string {
  return JSON.stringify({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'deny-pods' },
    webhooks: [{
      name: 'deny-pods.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'],
      clientConfig: { service: { namespace: 'default', name: 'webhooks', path: '/validate' } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    }],
  });
}

describe('kubectl with the control-plane configuration kinds', () => {
  it('kubectl apply stores a ValidatingWebhookConfiguration with the v1 defaults; get prints Webhooks', async () => {
    expect(await ok(['apply', '-f', '-'], webhookConfiguration())).toContain('validatingwebhookconfiguration.admissionregistration.k8s.io/deny-pods created');
    // As with kube, the live rules carry the defaulted scope the file lacks, so kubectl sends them again (an atomic list): "configured", no generation bump.
    expect(await ok(['apply', '-f', '-'], webhookConfiguration())).toContain('validatingwebhookconfiguration.admissionregistration.k8s.io/deny-pods configured');
    const table = parseTable(await ok(['get', 'validatingwebhookconfigurations']));
    expect(table.headers).toEqual(['NAME', 'WEBHOOKS', 'AGE']);
    expect(table.rows).toContainEqual(expect.objectContaining({ NAME: 'deny-pods', WEBHOOKS: '1' }));
    const object = parse(await ok(['get', 'validatingwebhookconfiguration', 'deny-pods', '-o', 'yaml'])) as { metadata: { generation: number }; webhooks: Record<string, unknown>[] };
    expect(object.metadata.generation).toBe(1);
    expect(object.webhooks[0]).toMatchObject({
      failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {},
      clientConfig: { service: { port: 443 } }, rules: [{ scope: '*' }],
    });
    expect(await ok(['apply', '-f', '-'], webhookConfiguration(5))).toContain('deny-pods configured');
    expect(await ok(['get', 'validatingwebhookconfiguration', 'deny-pods', '-o', 'jsonpath={.webhooks[0].timeoutSeconds} {.metadata.generation}'])).toBe('5 2');
  });

  it('kubectl apply --server-side creates and updates a ValidatingAdmissionPolicy and its binding', async () => {
    const policy = (maxReplicas: number) => JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'max-replicas' },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] },
        validations: [{ expression: `object.spec.replicas <= ${maxReplicas}` }],
      },
    });
    expect(await ok(['apply', '--server-side', '-f', '-'], policy(5))).toContain('validatingadmissionpolicy.admissionregistration.k8s.io/max-replicas serverside-applied');
    expect(await ok(['apply', '--server-side', '-f', '-'], policy(3))).toContain('serverside-applied');
    expect(await ok(['get', 'validatingadmissionpolicy', 'max-replicas', '-o', 'jsonpath={.spec.validations[0].expression} {.spec.failurePolicy} {.metadata.generation}'])).toBe('object.spec.replicas <= 3 Fail 2');
    const binding = JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'max-replicas' }, spec: { policyName: 'max-replicas', validationActions: ['Deny'] } });
    expect(await ok(['apply', '-f', '-'], binding)).toContain('validatingadmissionpolicybinding.admissionregistration.k8s.io/max-replicas created');
    const table = parseTable(await ok(['get', 'validatingadmissionpolicybindings']));
    expect(table.headers).toEqual(['NAME', 'POLICYNAME', 'PARAMREF', 'AGE']);
    expect(table.rows[0]).toMatchObject({ NAME: 'max-replicas', POLICYNAME: 'max-replicas', PARAMREF: '<unset>' });
  });

  it('kubectl shows kube\'s validation message for an invalid webhook', async () => {
    const result = await fixture!.kubectl.run(['apply', '-f', '-'], { input: webhookConfiguration(45) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('webhooks[0].timeoutSeconds: Invalid value: 45: the timeout value must be between 1 and 30 seconds');
  });

  it('kubectl get flowschemas and prioritylevelconfigurations list kube\'s bootstrap configuration', async () => {
    const schemas = parseTable(await ok(['get', 'flowschemas']));
    expect(schemas.headers).toEqual(['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    expect(schemas.rows.map((row) => row['NAME']).sort()).toEqual([
      'catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts',
      'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election',
    ]);
    expect(schemas.rows).toContainEqual(expect.objectContaining({ NAME: 'exempt', PRIORITYLEVEL: 'exempt', MATCHINGPRECEDENCE: '1', DISTINGUISHERMETHOD: '*', MISSINGPL: 'False' }));
    expect(schemas.rows).toContainEqual(expect.objectContaining({ NAME: 'global-default', PRIORITYLEVEL: 'global-default', MATCHINGPRECEDENCE: '9900', DISTINGUISHERMETHOD: 'ByUser', MISSINGPL: 'False' }));
    const levels = parseTable(await ok(['get', 'prioritylevelconfigurations']));
    expect(levels.headers).toEqual(['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
    expect(levels.rows).toContainEqual(expect.objectContaining({ NAME: 'exempt', TYPE: 'Exempt', NOMINALCONCURRENCYSHARES: '<none>', QUEUES: '<none>' }));
    expect(levels.rows).toContainEqual(expect.objectContaining({ NAME: 'catch-all', TYPE: 'Limited', NOMINALCONCURRENCYSHARES: '5', QUEUES: '<none>' }));
    expect(levels.rows).toContainEqual(expect.objectContaining({ NAME: 'workload-high', TYPE: 'Limited', NOMINALCONCURRENCYSHARES: '40', QUEUES: '128', HANDSIZE: '6', QUEUELENGTHLIMIT: '50' }));
    expect(await ok(['get', 'flowschema', 'probes', '-o', 'jsonpath={.metadata.annotations.apf\\.kubernetes\\.io/autoupdate-spec}'])).toBe('true');
  });

  it('kubectl get apiservices lists one local APIService per served group/version as Local/True', async () => {
    const table = parseTable(await ok(['get', 'apiservices']));
    expect(table.headers).toEqual(['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const names = table.rows.map((row) => row['NAME']);
    expect(names).toEqual(expect.arrayContaining(['v1.', 'v1.apps', 'v1.rbac.authorization.k8s.io', 'v1.admissionregistration.k8s.io', 'v1.flowcontrol.apiserver.k8s.io', 'v1.coordination.k8s.io']));
    expect(new Set(names).size).toBe(names.length);
    for (const row of table.rows) expect(row).toMatchObject({ SERVICE: 'Local', AVAILABLE: 'True' });
    const resources = parseTable(await ok(['api-resources', '--api-group=apiregistration.k8s.io']));
    expect(resources.rows).toContainEqual({ NAME: 'apiservices', SHORTNAMES: '', APIVERSION: 'apiregistration.k8s.io/v1', NAMESPACED: 'false', KIND: 'APIService' });
    const explained = await ok(['explain', 'apiservice.spec.groupPriorityMinimum']);
    expect(explained).toContain('GROUP:      apiregistration.k8s.io');
    expect(explained).toMatch(/FIELD: +groupPriorityMinimum <integer>/);
    expect(explained).toContain('higher groups are listed first');
    const groups = (await ok(['api-versions'])).trim().split('\n');
    const served = groups.filter((version) => version !== 'apiregistration.k8s.io/v1').map((version) => (version.includes('/') ? `${version.split('/')[1]}.${version.split('/')[0]}` : `${version}.`));
    expect(names.sort()).toEqual(served.sort());
  });
});
