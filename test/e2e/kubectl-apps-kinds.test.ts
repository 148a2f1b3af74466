// End-to-end: apps/v1 StatefulSets, DaemonSets, ReplicaSets and core/v1 ReplicationControllers
// through the real kubectl against one kstore server: `api-resources` with kube's short names,
// `create` and `apply` of each kind, `get` with kube's columns (and -o wide), `scale` of sts, rs
// and rc through their scale subresources, `get all` (the 'all' category), kube's StatefulSet
// immutable-field message, and `delete`. No controller acts on them: status stays as stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;
const ns = 'workloads';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-apps-kinds-', ns);
});

afterAll(async () => {
  await fixture?.stop();
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

function template(name: string, image: string): Record<string, unknown> {
  return { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } };
}

function manifest(kind: string, name: string, image: string, spec: Record<string, unknown> = {}): string {
  const selector = kind === 'ReplicationController' ? { app: name } : { matchLabels: { app: name } };
  return JSON.stringify({
    apiVersion: kind === 'ReplicationController' ? 'v1' : 'apps/v1', kind, metadata: { name, namespace: ns },
    spec: { selector, template: template(name, image), ...spec },
  });
}

describe('kubectl with statefulsets, daemonsets, replicasets and replication controllers', () => {
  it('kubectl api-resources lists them with kube\'s short names', async () => {
    const apps = parseTable(await ok(['api-resources', '--api-group=apps']));
    expect(apps.rows).toContainEqual({ NAME: 'statefulsets', SHORTNAMES: 'sts', APIVERSION: 'apps/v1', NAMESPACED: 'true', KIND: 'StatefulSet' });
    expect(apps.rows).toContainEqual({ NAME: 'daemonsets', SHORTNAMES: 'ds', APIVERSION: 'apps/v1', NAMESPACED: 'true', KIND: 'DaemonSet' });
    expect(apps.rows).toContainEqual({ NAME: 'replicasets', SHORTNAMES: 'rs', APIVERSION: 'apps/v1', NAMESPACED: 'true', KIND: 'ReplicaSet' });
    expect(apps.rows).toContainEqual({ NAME: 'controllerrevisions', SHORTNAMES: '', APIVERSION: 'apps/v1', NAMESPACED: 'true', KIND: 'ControllerRevision' });
    const core = parseTable(await ok(['api-resources', '--api-group=']));
    expect(core.rows).toContainEqual({ NAME: 'replicationcontrollers', SHORTNAMES: 'rc', APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'ReplicationController' });
    expect(core.rows).toContainEqual({ NAME: 'podtemplates', SHORTNAMES: '', APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'PodTemplate' });
  });

  it('kubectl create and apply make defaulted objects, and apply again is unchanged', async () => {
    expect(await ok(['create', '-f', '-'], manifest('StatefulSet', 'db', 'postgres:16', { serviceName: 'db', replicas: 2 }))).toContain('statefulset.apps/db created');
    expect(await ok(['apply', '-f', '-'], manifest('DaemonSet', 'agent', 'fluentd'))).toContain('daemonset.apps/agent created');
    expect(await ok(['apply', '-f', '-'], manifest('ReplicaSet', 'web', 'nginx:1.27'))).toContain('replicaset.apps/web created');
    expect(await ok(['apply', '-f', '-'], manifest('ReplicaSet', 'web', 'nginx:1.27'))).toContain('replicaset.apps/web unchanged');
    expect(await ok(['apply', '-f', '-'], manifest('ReplicationController', 'legacy', 'nginx'))).toContain('replicationcontroller/legacy created');
    const sts = parse(await ok(['get', 'sts', 'db', '-n', ns, '-o', 'yaml'])) as { spec: Record<string, unknown> };
    expect(sts.spec).toMatchObject({ podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } });
    const ds = parse(await ok(['get', 'ds', 'agent', '-n', ns, '-o', 'yaml'])) as { metadata: { annotations: Record<string, string> }; spec: Record<string, unknown> };
    expect(ds.spec).toMatchObject({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } });
    expect(ds.metadata.annotations['deprecated.daemonset.template.generation']).toBe('1');
    expect(await ok(['apply', '-f', '-'], manifest('DaemonSet', 'agent', 'fluentd:v2'))).toContain('daemonset.apps/agent configured');
    expect(await ok(['get', 'ds', 'agent', '-n', ns, '-o', 'jsonpath={.metadata.generation} {.metadata.annotations.deprecated\\.daemonset\\.template\\.generation}'])).toBe('2 2');
  });

  it('kubectl get prints kube\'s columns for each kind', async () => {
    const sts = parseTable(await ok(['get', 'statefulsets', '-n', ns, '-o', 'wide']));
    expect(sts.headers).toEqual(['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
    expect(sts.rows[0]).toMatchObject({ NAME: 'db', READY: '0/2', CONTAINERS: 'app', IMAGES: 'postgres:16' });
    // parseTable splits headers at spaces: NODE SELECTOR is one column, checked on the raw line.
    const dsText = await ok(['get', 'daemonsets', '-n', ns]);
    expect(dsText.split('\n')[0]).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE$/);
    expect(dsText.split('\n')[1]).toMatch(/^agent\s+0\s+0\s+0\s+0\s+0\s+<none>\s+\S+$/);
    const rs = parseTable(await ok(['get', 'rs', '-n', ns, '-o', 'wide']));
    expect(rs.headers).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(rs.rows[0]).toMatchObject({ NAME: 'web', DESIRED: '1', CURRENT: '0', READY: '0', SELECTOR: 'app=web' });
    const rc = parseTable(await ok(['get', 'rc', '-n', ns, '-o', 'wide']));
    expect(rc.headers).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(rc.rows[0]).toMatchObject({ NAME: 'legacy', DESIRED: '1', IMAGES: 'nginx', SELECTOR: 'app=legacy' });
  });

  it('kubectl scale changes sts, rs and rc replicas through their scale subresources', async () => {
    expect(await ok(['scale', 'statefulset/db', '--replicas=3', '-n', ns])).toContain('statefulset.apps/db scaled');
    expect(await ok(['scale', 'rs/web', '--replicas=4', '-n', ns])).toContain('replicaset.apps/web scaled');
    expect(await ok(['scale', 'rc/legacy', '--replicas=5', '-n', ns])).toContain('replicationcontroller/legacy scaled');
    expect(parseTable(await ok(['get', 'sts', 'db', '-n', ns])).rows[0]).toMatchObject({ READY: '0/3' });
    expect(parseTable(await ok(['get', 'rs', 'web', '-n', ns])).rows[0]).toMatchObject({ DESIRED: '4' });
    expect(parseTable(await ok(['get', 'rc', 'legacy', '-n', ns])).rows[0]).toMatchObject({ DESIRED: '5' });
    expect(await ok(['get', 'rc', 'legacy', '-n', ns, '-o', 'jsonpath={.metadata.generation}'])).toBe('2');
    const wrongCurrent = await fixture!.kubectl.run(['scale', 'rs/web', '--current-replicas=1', '--replicas=2', '-n', ns]);
    expect(wrongCurrent.code).not.toBe(0);
  });

  it('kubectl get all includes the kinds in the all category', async () => {
    const names = (await ok(['get', 'all', '-n', ns, '-o', 'name'])).trim().split('\n');
    expect(names).toEqual(expect.arrayContaining(['statefulset.apps/db', 'daemonset.apps/agent', 'replicaset.apps/web', 'replicationcontroller/legacy']));
  });

  it('kubectl rejects a change to a StatefulSet\'s immutable spec with kube\'s message', async () => {
    const result = await fixture!.kubectl.run(['apply', '-f', '-'], { input: manifest('StatefulSet', 'db', 'postgres:16', { serviceName: 'other', replicas: 3 }) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden");
  });

  it('kubectl delete removes them', async () => {
    expect(await ok(['delete', 'sts/db', 'ds/agent', 'rs/web', 'rc/legacy', '-n', ns])).toContain('statefulset.apps "db" deleted');
    expect(await ok(['get', 'sts,ds,rs,rc', '-n', ns, '-o', 'name'])).toBe('');
  });
});
