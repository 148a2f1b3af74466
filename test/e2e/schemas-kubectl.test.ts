// End-to-end: the complete workload schemas with the real kubectl against `kstore server`:
// `kubectl explain` walks the pod schema down to a probe's httpGet (OpenAPI v3), `kubectl apply
// --validate=strict` of a pod with a typo deep inside is refused naming the field (and
// --validate=warn stores it with kube's warning), a realistic manifest applies cleanly, and a
// re-apply that drops a list entry removes it (kubectl builds its patch from the published
// x-kubernetes-patch-merge-key; a dropped finalizer likewise).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startServer } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { describeResult, Kubectl, versionedKubectls } from '../support/kubectl.ts';
import type { KubectlResult } from '../support/kubectl.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import path from 'node:path';

let dir: TempDir | undefined;
let target: Target | undefined;
let kubectl: Kubectl;
const ns = 'schemas';

async function ok(args: readonly string[], input?: string): Promise<KubectlResult> {
  const result = await kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, describeResult(args, result)).toBe(0);
  return result;
}

beforeAll(async () => {
  dir = await makeTempDir('kstore-e2e-schemas-');
  target = await startServer(dir);
  kubectl = new Kubectl({ kubeconfig: target.kubeconfig, cacheDir: path.join(dir.path, 'kube-cache') });
  await ok(['create', 'namespace', ns]);
  // Pods need the namespace's default ServiceAccount (the serviceaccount controller adds it).
  await waitFor(async () => (await kubectl.run(['get', 'serviceaccount', 'default', '-n', ns, '-o', 'name'])).code === 0,
    { timeoutMs: 20_000, description: `serviceaccount ${ns}/default` });
});

afterAll(async () => {
  kubectl?.stopAll();
  await target?.stop();
  await dir?.remove();
});

function podManifest(name: string, probe: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: name } },
    spec: {
      containers: [{
        name: 'web', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 8080 }],
        livenessProbe: probe, resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: 0.5 } },
        securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
      }],
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: name } } } }] } },
      volumes: [{ name: 'cfg', configMap: { name: 'settings', optional: true } }],
    },
  });
}

describe('kubectl with the complete workload schemas', () => {
  it('kubectl explain walks the pod schema down to a probe\'s httpGet', async () => {
    const { stdout } = await ok(['explain', 'pod.spec.containers.livenessProbe.httpGet']);
    expect(stdout).toMatch(/KIND:\s+Pod/);
    expect(stdout).toMatch(/FIELD:\s+httpGet\s+<HTTPGetAction>/);
    expect(stdout).toContain('Sends an HTTP GET to the container; a 2xx or 3xx response is success.');
    for (const field of ['host', 'httpHeaders', 'path', 'port', 'scheme']) expect(stdout).toMatch(new RegExp(`^\\s+${field}\\s`, 'm'));
    expect(stdout).toMatch(/^\s+port\s+<IntOrString>\s+-required-/m);
    expect(stdout).toMatch(/^\s+httpHeaders\s+<\[\]HTTPHeader>/m);
    const limits = await ok(['explain', 'pod.spec.containers.resources.limits']);
    expect(limits.stdout).toMatch(/FIELD:\s+limits\s+<map\[string\]Quantity>/);
    const spec = await ok(['explain', 'pod.spec']);
    expect(spec.stdout).toMatch(/^\s+containers\s+<\[\]Container>\s+-required-/m);
    expect(spec.stdout).toMatch(/^\s+affinity\s+<Affinity>/m);
    const node = await ok(['explain', 'node.status.runtimeHandlers']);
    expect(node.stdout).toMatch(/FIELD:\s+runtimeHandlers\s+<\[\]NodeRuntimeHandler>/);
  });

  it('kubectl apply --validate=strict refuses a typo deep in a probe, naming it; --validate=warn stores the pod without it', async () => {
    const typo = podManifest('typo', { httpGett: { path: '/healthz', port: 8080 }, periodSeconds: 10 });
    const refused = await kubectl.run(['apply', '--validate=strict', '-f', '-'], { input: typo });
    expect(refused.code, describeResult(['apply', '--validate=strict'], refused)).not.toBe(0);
    expect(refused.stderr).toContain('Error from server (BadRequest)');
    expect(refused.stderr).toContain('strict decoding error: unknown field "spec.containers[0].livenessProbe.httpGett"');
    expect((await kubectl.run(['get', 'pod', 'typo', '-n', ns])).code).not.toBe(0);
    const warned = await ok(['apply', '--validate=warn', '-f', '-'], typo);
    expect(warned.stdout).toContain('pod/typo created');
    expect(warned.stderr).toContain('Warning: unknown field "spec.containers[0].livenessProbe.httpGett"');
    const stored = parse((await ok(['get', 'pod', 'typo', '-n', ns, '-o', 'yaml'])).stdout) as { spec: { containers: { livenessProbe: Record<string, unknown> }[] } };
    expect(stored.spec.containers[0]!.livenessProbe).toMatchObject({ periodSeconds: 10 });
    expect(stored.spec.containers[0]!.livenessProbe['httpGett']).toBeUndefined();
  });

  it('a correct manifest applies under --validate=strict with no warning', async () => {
    const result = await ok(['apply', '--validate=strict', '-f', '-'], podManifest('good', { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 }));
    expect(result.stdout).toContain('pod/good created');
    expect(result.stderr).not.toContain('Warning');
    const probe = (await ok(['get', 'pod', 'good', '-n', ns, '-o', 'jsonpath={.spec.containers[0].livenessProbe.httpGet.port}'])).stdout;
    expect(probe).toBe('http');
  });

  it('a re-apply that drops a service port removes it (kubectl merges ports by the published patch merge key)', async () => {
    const service = (ports: { name: string; port: number }[]) => JSON.stringify({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { selector: { app: 'web' }, ports },
    });
    expect((await ok(['apply', '--validate=strict', '-f', '-'], service([{ name: 'http', port: 80 }, { name: 'https', port: 443 }]))).stdout).toContain('service/web created');
    expect((await ok(['apply', '--validate=strict', '-f', '-'], service([{ name: 'http', port: 80 }]))).stdout).toContain('service/web configured');
    const ports = (await ok(['get', 'service', 'web', '-n', ns, '-o', 'jsonpath={.spec.ports[*].port}'])).stdout;
    expect(ports).toBe('80');
  });

  it('a re-apply that drops a finalizer removes it (ObjectMeta publishes finalizers as a merged set)', async () => {
    const configMap = (finalizers: string[]) => JSON.stringify({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', namespace: ns, finalizers }, data: { a: 'b' },
    });
    await ok(['apply', '--validate=strict', '-f', '-'], configMap(['example.com/a', 'example.com/b']));
    await ok(['apply', '--validate=strict', '-f', '-'], configMap(['example.com/a']));
    expect((await ok(['get', 'configmap', 'held', '-n', ns, '-o', 'jsonpath={.metadata.finalizers}'])).stdout).toBe('["example.com/a"]');
    await ok(['patch', 'configmap', 'held', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  });
});

describe('older and newer kubectl releases with the deep schemas', () => {
  // 1.27 and 1.28 also read OpenAPI v2 as protobuf; every release explains and delegates strict validation.
  for (const versioned of versionedKubectls(['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'])) {
    if (!versioned.present) {
      it.skip(`kubectl ${versioned.version}: skipped because ${versioned.path} is not on this machine`, () => undefined);
      continue;
    }
    it(`kubectl ${versioned.version}: explain a probe's httpGet; apply --validate=strict refuses a deep typo`, async () => {
      const versionedKubectl = new Kubectl({ kubeconfig: target!.kubeconfig, binary: versioned.path, cacheDir: path.join(dir!.path, `kube-cache-${versioned.version}`) });
      const explain = await versionedKubectl.run(['explain', 'pod.spec.containers.livenessProbe.httpGet']);
      expect(explain.code, describeResult(['explain'], explain)).toBe(0);
      expect(explain.stdout).toMatch(/^\s+port\s/m);
      const name = `typo-${versioned.version.replace('.', '-')}`;
      const refused = await versionedKubectl.run(['apply', '--validate=strict', '-f', '-'], { input: podManifest(name, { tcpSocket: { prot: 80 } }) });
      expect(refused.code, describeResult(['apply', '--validate=strict'], refused)).not.toBe(0);
      expect(refused.stderr).toContain('unknown field "spec.containers[0].livenessProbe.tcpSocket.prot"');
    });
  }
});
