// End-to-end: apps/v1 Deployments through the real kubectl against one kstore server:
// `create deployment`, `get` with kube's deployment columns (and the `deploy` short name),
// `set image`, `scale`, `apply` twice (the second is unchanged), `apply --server-side`, `explain` down to
// the template's container resources, `api-resources`, and `delete`. No controller acts on
// them yet: the status stays as stored (empty until written through /status).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;
const ns = 'apps';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-deployments-', ns);
});

afterAll(async () => {
  await fixture?.stop();
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

function manifest(name: string, image: string): string {
  return JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns, labels: { app: name } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image, ports: [{ containerPort: 80 }] }] } },
    },
  });
}

describe('kubectl with deployments', () => {
  it('kubectl api-resources lists deployments with the deploy short name', async () => {
    const table = parseTable(await ok(['api-resources', '--api-group=apps']));
    expect(table.rows).toContainEqual({ NAME: 'deployments', SHORTNAMES: 'deploy', APIVERSION: 'apps/v1', NAMESPACED: 'true', KIND: 'Deployment' });
  });

  it('kubectl create deployment makes a defaulted Deployment that get prints with kube\'s columns', async () => {
    expect(await ok(['create', 'deployment', 'web', '--image=nginx', '-n', ns])).toContain('deployment.apps/web created');
    const table = parseTable(await ok(['get', 'deployments', '-n', ns]));
    expect(table.headers).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(table.rows.find((row) => row['NAME'] === 'web')).toMatchObject({ READY: '0/1', 'UP-TO-DATE': '0', AVAILABLE: '0' });
    const short = parseTable(await ok(['get', 'deploy', 'web', '-n', ns, '-o', 'wide']));
    expect(short.headers).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(short.rows[0]).toMatchObject({ NAME: 'web', CONTAINERS: 'nginx', IMAGES: 'nginx', SELECTOR: 'app=web' });
    const object = parse(await ok(['get', 'deployment', 'web', '-n', ns, '-o', 'yaml'])) as { metadata: { generation: number }; spec: Record<string, unknown> };
    expect(object.metadata.generation).toBe(1);
    expect(object.spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });
  });

  it('kubectl set image changes the template and bumps the generation', async () => {
    expect(await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27', '-n', ns])).toContain('deployment.apps/web image updated');
    expect(await ok(['get', 'deployment', 'web', '-n', ns, '-o', 'jsonpath={.spec.template.spec.containers[0].image} {.metadata.generation}'])).toBe('nginx:1.27 2');
  });

  it('kubectl scale changes the replicas through the scale subresource', async () => {
    expect(await ok(['scale', 'deployment/web', '--replicas=3', '-n', ns])).toContain('deployment.apps/web scaled');
    const table = parseTable(await ok(['get', 'deployment', 'web', '-n', ns]));
    expect(table.rows[0]).toMatchObject({ NAME: 'web', READY: '0/3' });
    expect(await ok(['get', 'deployment', 'web', '-n', ns, '-o', 'jsonpath={.metadata.generation}'])).toBe('3');
  });

  it('kubectl apply creates, then says unchanged, then configures a change', async () => {
    expect(await ok(['apply', '-f', '-'], manifest('api', 'nginx:1.27'))).toContain('deployment.apps/api created');
    expect(await ok(['apply', '-f', '-'], manifest('api', 'nginx:1.27'))).toContain('deployment.apps/api unchanged');
    expect(await ok(['apply', '-f', '-'], manifest('api', 'nginx:1.28'))).toContain('deployment.apps/api configured');
    const table = parseTable(await ok(['get', 'deployment', 'api', '-n', ns]));
    expect(table.rows[0]).toMatchObject({ NAME: 'api', READY: '0/2' });
    expect(await ok(['get', 'deployment', 'api', '-n', ns, '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).toBe('nginx:1.28');
  });

  it('kubectl apply --server-side creates and updates a Deployment', async () => {
    expect(await ok(['apply', '--server-side', '-f', '-'], manifest('ssa', 'nginx:1.27'))).toContain('deployment.apps/ssa serverside-applied');
    expect(await ok(['apply', '--server-side', '-f', '-'], manifest('ssa', 'nginx:1.28'))).toContain('deployment.apps/ssa serverside-applied');
    const object = parse(await ok(['get', 'deployment', 'ssa', '-n', ns, '-o', 'yaml', '--show-managed-fields'])) as { metadata: { generation: number; managedFields: { manager: string; operation: string }[] }; spec: { template: { spec: { containers: { image: string }[] } } } };
    expect(object.spec.template.spec.containers[0]!.image).toBe('nginx:1.28');
    expect(object.metadata.generation).toBe(2);
    expect(object.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'kubectl', operation: 'Apply' }));
  });

  it('kubectl explain reaches the template\'s container resources', async () => {
    const text = await ok(['explain', 'deployment.spec.template.spec.containers.resources']);
    expect(text).toMatch(/GROUP:\s+apps/);
    expect(text).toMatch(/KIND:\s+Deployment/);
    expect(text).toMatch(/FIELD:\s+resources <ResourceRequirements>/);
    expect(text).toMatch(/limits\s+<map\[string\]Quantity>/);
    expect(text).toMatch(/requests\s+<map\[string\]Quantity>/);
  });

  it('kubectl rejects a selector that does not match the template with kube\'s message', async () => {
    const bad = JSON.parse(manifest('bad', 'nginx')) as { spec: { template: { metadata: { labels: Record<string, string> } } } };
    bad.spec.template.metadata.labels = { app: 'other' };
    const result = await fixture!.kubectl.run(['create', '-f', '-'], { input: JSON.stringify(bad) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`');
  });

  it('kubectl delete removes deployments', async () => {
    expect(await ok(['delete', 'deployment', 'web', 'api', 'ssa', '-n', ns])).toContain('deployment.apps "web" deleted');
    expect(await ok(['get', 'deployments', '-n', ns, '-o', 'name'])).toBe('');
  });
});
