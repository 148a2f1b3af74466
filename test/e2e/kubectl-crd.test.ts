// End-to-end: CustomResourceDefinitions through the real kubectl against one kstore server. A CRD
// with two versions, CEL rules (messageExpression, a transition rule), printer columns, status and
// scale subresources is applied and becomes Established; CronTabs are created, read through both
// versions, listed with the CRD's columns (wide ones only with -o wide), selected by a selectable
// field, scaled, applied server-side, explained from the schema and listed by `get all`; a rule
// violation, a schema violation and a too-expensive rule give kube's messages; strategic merge is
// refused as kube refuses it; `kstore inspect` shows a CronTab's lifecycle; deleting the CRD deletes its CronTabs, then the CRD.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';
import { cronTab, cronTabCrd, cronTabCrdName, expensiveCrd } from '../support/crd-fixtures.ts';
import { waitFor } from '../support/wait-for.ts';
import { runKstoreCli } from '../support/kstore-cli.ts';

let fixture: KubectlServer | undefined;
const namespace = 'crd';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-crd-', namespace);
});

afterAll(async () => {
  await fixture?.stop();
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

async function fails(args: readonly string[], input?: string): Promise<string> {
  const result = await fixture!.kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, fixture!.diagnostics(args, result)).not.toBe(0);
  return result.stderr;
}

describe('kubectl with CustomResourceDefinitions', () => {
  it('applies a CRD, which becomes Established with its accepted names and stored version', async () => {
    expect(await ok(['apply', '-f', '-'], JSON.stringify(cronTabCrd()))).toContain(`customresourcedefinition.apiextensions.k8s.io/${cronTabCrdName} created`);
    expect(await ok(['wait', '--for', 'condition=Established', `crd/${cronTabCrdName}`, '--timeout', '30s'])).toContain('condition met');
    const crd = parse(await ok(['get', 'crd', cronTabCrdName, '-o', 'yaml'])) as { metadata: { finalizers?: string[] }; status: { acceptedNames: Record<string, unknown>; storedVersions: string[]; conditions: { type: string; status: string; reason: string }[] } };
    expect(crd.metadata.finalizers).toBeUndefined();
    expect(crd.status.acceptedNames).toMatchObject({ plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] });
    expect(crd.status.storedVersions).toEqual(['v1']);
    expect(crd.status.conditions).toEqual(expect.arrayContaining([
      expect.objectContaining({ type: 'NamesAccepted', status: 'True', reason: 'NoConflicts' }),
      expect.objectContaining({ type: 'Established', status: 'True', reason: 'InitialNamesAccepted' }),
    ]));
    const printed = await ok(['get', 'crd']);
    expect(printed.split('\n')[0]).toMatch(/^NAME\s+CREATED AT$/);
    expect(printed).toMatch(new RegExp(`^${cronTabCrdName.replaceAll('.', '\\.')}\\s+\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`, 'm'));
  });

  it('creates CronTabs with the schema defaults, prints the CRD columns, and reads them through both versions', async () => {
    await waitFor(async () => (await fixture!.kubectl.run(['get', 'crontabs', '-n', namespace])).code === 0, { timeoutMs: 30_000, description: 'crontabs served' });
    expect(await ok(['apply', '-n', namespace, '-f', '-'], JSON.stringify(cronTab('nightly', { cronSpec: '0 3 * * *', image: 'backup:1', replicas: 2, tier: 'gold' })))).toContain('crontab.stable.example.com/nightly created');
    expect(await ok(['create', '-n', namespace, '-f', '-'], JSON.stringify(cronTab('hourly', { cronSpec: '0 * * * *', image: 'report:2', color: 'red' }, 'stable.example.com/v1beta1')))).toContain('crontab.stable.example.com/hourly created');
    const nightly = parse(await ok(['get', 'crontab', 'nightly', '-n', namespace, '-o', 'yaml'])) as { apiVersion: string; metadata: { generation: number }; spec: Record<string, unknown> };
    expect(nightly.apiVersion).toBe('stable.example.com/v1');
    expect(nightly.metadata.generation).toBe(1);
    expect(nightly.spec).toMatchObject({ color: 'blue', replicas: 2, maxReplicas: 10 });
    expect(await ok(['get', 'crontabs.v1beta1.stable.example.com', 'nightly', '-n', namespace, '-o', 'jsonpath={.apiVersion}'])).toBe('stable.example.com/v1beta1');
    const table = parseTable(await ok(['get', 'ct', '-n', namespace]));
    expect(table.headers).toEqual(['NAME', 'SPEC', 'REPLICAS', 'AGE']);
    expect(table.rows).toContainEqual(expect.objectContaining({ NAME: 'nightly', SPEC: '0 3 * * *', REPLICAS: '2' }));
    expect(table.rows).toContainEqual(expect.objectContaining({ NAME: 'hourly', REPLICAS: '1' }));
    const wide = parseTable(await ok(['get', 'crontabs', '-n', namespace, '-o', 'wide']));
    expect(wide.headers).toEqual(['NAME', 'SPEC', 'REPLICAS', 'IMAGE', 'AGE']);
    expect(wide.rows).toContainEqual(expect.objectContaining({ NAME: 'nightly', IMAGE: 'backup:1' }));
    const red = parseTable(await ok(['get', 'crontabs', '-n', namespace, '--field-selector', 'spec.color=red']));
    expect(red.rows.map((row) => row['NAME'])).toEqual(['hourly']);
    expect(await ok(['get', 'all', '-n', namespace, '-o', 'name'])).toContain('crontab.stable.example.com/nightly');
  });

  it('gives kube\'s messages for a rule with messageExpression, a transition rule and a schema violation', async () => {
    expect(await fails(['create', '-n', namespace, '-f', '-'], JSON.stringify(cronTab('too-many', { cronSpec: '* * * * *', image: 'web:2', replicas: 20, maxReplicas: 10 }))))
      .toContain('The CronTab "too-many" is invalid: spec: Invalid value: "object": replicas exceed maxReplicas for image web:2');
    expect(await fails(['patch', 'crontab', 'nightly', '-n', namespace, '--type', 'merge', '-p', '{"spec":{"tier":"silver"}}']))
      .toContain('spec.tier: Invalid value: "string": tier is immutable');
    const typed = await fails(['create', '-n', namespace, '-f', '-'], JSON.stringify(cronTab('typed', { cronSpec: 'nope', replicas: 'three' })));
    expect(typed).toContain('The CronTab "typed" is invalid');
    expect(typed).toContain('spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"');
    expect(await ok(['get', 'crontabs', '-n', namespace, '-o', 'name'])).not.toContain('too-many');
  });

  it('refuses unknown fields under --validate=strict and strategic merge patches, as kube does', async () => {
    expect(await fails(['create', '-n', namespace, '--validate=strict', '-f', '-'], JSON.stringify(cronTab('strict', { cronSpec: '* * * * *', colour: 'red' }))))
      .toContain('unknown field "spec.colour"');
    expect(await fails(['patch', 'crontab', 'nightly', '-n', namespace, '--type', 'strategic', '-p', '{"spec":{"image":"x"}}']))
      .toContain('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it('scales a CronTab through its scale subresource and bumps the generation on spec changes only', async () => {
    expect(await ok(['scale', 'crontab', 'nightly', '-n', namespace, '--replicas', '5'])).toContain('crontab.stable.example.com/nightly scaled');
    expect(await ok(['get', 'crontab', 'nightly', '-n', namespace, '-o', 'jsonpath={.spec.replicas} {.metadata.generation}'])).toBe('5 2');
    await ok(['patch', 'crontab', 'nightly', '-n', namespace, '--subresource', 'status', '--type', 'merge', '-p', '{"status":{"replicas":5,"selector":"app=nightly"}}']);
    expect(await ok(['get', 'crontab', 'nightly', '-n', namespace, '-o', 'jsonpath={.status.replicas} {.metadata.generation}'])).toBe('5 2');
    expect(await ok(['get', '--raw', `/apis/stable.example.com/v1/namespaces/${namespace}/crontabs/nightly/scale`])).toContain('"selector":"app=nightly"');
  });

  it('applies server-side with list-map merging by key, and explains the schema', async () => {
    const manifest = (ports: { name: string; port: number }[]) => JSON.stringify(cronTab('served', { cronSpec: '*/5 * * * *', image: 'web:1', ports }));
    expect(await ok(['apply', '--server-side', '-n', namespace, '-f', '-'], manifest([{ name: 'http', port: 80 }]))).toContain('crontab.stable.example.com/served serverside-applied');
    await ok(['apply', '--server-side', '--field-manager', 'other', '-n', namespace, '-f', '-'], manifest([{ name: 'metrics', port: 9090 }]));
    const ports = JSON.parse(await ok(['get', 'crontab', 'served', '-n', namespace, '-o', 'jsonpath={.spec.ports}'])) as { name: string }[];
    expect(ports.map((port) => port.name).sort()).toEqual(['http', 'metrics']);
    const explained = await ok(['explain', 'crontabs.spec']);
    expect(explained).toContain('KIND:       CronTab');
    expect(explained).toContain('What the CronTab runs and how many copies.');
    expect(explained).toContain('cronSpec\t<string>');
  });

  it('kstore inspect shows a CronTab\'s lifecycle, found through discovery by its short name', async () => {
    const run = await runKstoreCli(['inspect', 'ct', 'nightly', '-n', namespace, '--kubeconfig', fixture!.server.kubeconfigPath]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`CronTab ${namespace}/nightly (stable.example.com/v1, uid `);
    expect(run.stdout).toMatch(/deletion machine: live/);
  });

  it('refuses a CRD whose rule is too expensive with kube\'s message, and stores nothing', async () => {
    const stderr = await fails(['apply', '-f', '-'], JSON.stringify(expensiveCrd()));
    expect(stderr).toContain('The CustomResourceDefinition "expensives.stable.example.com" is invalid');
    expect(stderr).toMatch(/spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[items\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of (more than 100x|[0-9.]+x)/);
    expect(await ok(['get', 'crd', '-o', 'name'])).not.toContain('expensives');
  });

  it('deleting the CRD deletes its CronTabs, then the CRD', async () => {
    expect(await ok(['delete', 'crd', cronTabCrdName, '--timeout', '60s'])).toContain(`customresourcedefinition.apiextensions.k8s.io "${cronTabCrdName}" deleted`);
    expect(await ok(['get', 'crd', '-o', 'name'])).not.toContain(cronTabCrdName);
    const after = await fixture!.kubectl.run(['get', 'crontabs', '-n', namespace]);
    expect(after.code).not.toBe(0);
    // kubectl's discovery cache may still name the resource: then the list itself is the 404.
    expect(after.stderr).toMatch(/the server doesn't have a resource type "crontabs"|Unable to list "stable.example.com\/v1, Resource=crontabs": the server could not find the requested resource/);
  });
});
