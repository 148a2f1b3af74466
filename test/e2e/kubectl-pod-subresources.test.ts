// End-to-end: the pod subresources kube-apiserver 1.33 serves beyond status and the streaming
// ones, through the real kubectl against one kstore server: `kubectl debug` (a patch of
// pods/ephemeralcontainers; without -it it does not wait for a kubelet), `kubectl patch
// --subresource resize`, and `kubectl get --raw` through services/<name>:<port>/proxy/ and
// pods/<name>/proxy/ to a real HTTP server bound on this machine's non-loopback IPv4 address.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';

let fixture: KubectlServer | undefined;
const ns = 'podsub';
const upstreamIp = Object.values(networkInterfaces()).flat().find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;
let upstream: Server | undefined;
let upstreamPort = 0;

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-podsub-', ns);
  if (upstreamIp !== undefined) {
    upstream = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`upstream saw ${request.method ?? ''} ${request.url ?? ''}`);
    });
    await new Promise<void>((resolve) => upstream!.listen(0, upstreamIp, resolve));
    upstreamPort = (upstream.address() as AddressInfo).port;
  }
});

afterAll(async () => {
  await fixture?.stop();
  if (upstream !== undefined) await new Promise((resolve) => upstream!.close(resolve));
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

function pod(name: string, resources?: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: name } },
    spec: { containers: [{ name: 'app', image: 'nginx', ...(resources === undefined ? {} : { resources }) }] },
  });
}

describe('kubectl with pod subresources', () => {
  it('kubectl debug adds an ephemeral container through pods/ephemeralcontainers', async () => {
    await ok(['apply', '-f', '-'], pod('dbg'));
    await ok(['debug', 'pod/dbg', '-n', ns, '--image=busybox', '--target=app', '-c', 'debugger']);
    const containers = JSON.parse(await ok(['get', 'pod', 'dbg', '-n', ns, '-o', 'jsonpath={.spec.ephemeralContainers}'])) as Record<string, unknown>[];
    expect(containers).toHaveLength(1);
    expect(containers[0]).toMatchObject({ name: 'debugger', image: 'busybox', targetContainerName: 'app', terminationMessagePolicy: 'File' });
    // A second debug container with a generated name joins the first.
    await ok(['debug', 'pod/dbg', '-n', ns, '--image=busybox']);
    const names = (await ok(['get', 'pod', 'dbg', '-n', ns, '-o', 'jsonpath={.spec.ephemeralContainers[*].name}'])).split(' ');
    expect(names).toHaveLength(2);
    expect(names[0]).toBe('debugger');
    expect(names[1]).toMatch(/^debugger-[a-z0-9]{5}$/);
    // A target that is not one of the pod's containers is refused with kube's message.
    const refused = await fixture!.kubectl.run(['debug', 'pod/dbg', '-n', ns, '--image=busybox', '--target=nope', '-c', 'other']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec.ephemeralContainers[2].targetContainerName: Not found: "nope"');
  });

  it('kubectl patch --subresource resize changes cpu and memory, and refuses other resources', async () => {
    await ok(['apply', '-f', '-'], pod('rsz', { requests: { cpu: '100m', memory: '64Mi' } }));
    const patched = await ok(['patch', 'pod', 'rsz', '-n', ns, '--subresource', 'resize', '-p', '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"}}}]}}']);
    expect(patched).toContain('pod/rsz patched');
    expect(await ok(['get', 'pod', 'rsz', '-n', ns, '-o', 'jsonpath={.spec.containers[0].resources.requests.cpu}'])).toBe('250m');
    const refused = await fixture!.kubectl.run(['patch', 'pod', 'rsz', '-n', ns, '--subresource', 'resize', '-p', '{"spec":{"containers":[{"name":"app","resources":{"requests":{"ephemeral-storage":"1Gi"}}}]}}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec: Forbidden: only cpu and memory resources are mutable');
  });

  it.skipIf(upstreamIp === undefined)('kubectl get --raw goes through services/<name>:<port>/proxy/ and pods/<name>/proxy/ to the upstream', async () => {
    await ok(['apply', '-f', '-'], pod('backend'));
    await ok(['patch', 'pod', 'backend', '-n', ns, '--subresource', 'status', '--type', 'merge', '-p', JSON.stringify({ status: { podIP: upstreamIp, podIPs: [{ ip: upstreamIp }] } })]);
    // A service without a selector: its Endpoints are the user's to write.
    await ok(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { ports: [{ name: 'http', port: 80, targetPort: upstreamPort }] } },
        {
          apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: ns },
          subsets: [{ addresses: [{ ip: upstreamIp, targetRef: { kind: 'Pod', namespace: ns, name: 'backend' } }], ports: [{ name: 'http', port: upstreamPort }] }],
        },
      ],
    }));
    expect(await ok(['get', '--raw', `/api/v1/namespaces/${ns}/services/web:http/proxy/`])).toBe('upstream saw GET /');
    expect(await ok(['get', '--raw', `/api/v1/namespaces/${ns}/services/web:80/proxy/some/path?x=1`])).toBe('upstream saw GET /some/path?x=1');
    expect(await ok(['get', '--raw', `/api/v1/namespaces/${ns}/pods/backend:${upstreamPort}/proxy/healthz`])).toBe('upstream saw GET /healthz');
    const none = await fixture!.kubectl.run(['get', '--raw', `/api/v1/namespaces/${ns}/services/web:metrics/proxy/`]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('no endpoints available for service');
  });
});
