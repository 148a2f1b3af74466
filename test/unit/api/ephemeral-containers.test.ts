// pods/ephemeralcontainers through the API: GET answers the Pod; a strategic merge patch (what
// `kubectl debug` sends) or a PUT adds an ephemeral container, defaulted, and only that part of
// the request is kept; existing ephemeral containers can be neither changed nor removed, each is
// validated as an ephemeral container (kube's messages), and the main resource still refuses
// any ephemeral container change.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let harness: Harness;
const pods = '/api/v1/namespaces/t/pods';
const strategic = { 'content-type': 'application/strategic-merge-patch+json' };

beforeEach(async () => {
  harness = await startHarness();
  const created = await harness.request('POST', pods, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'nginx' }], initContainers: [{ name: 'init', image: 'busybox' }] },
  });
  expect(created.statusCode, created.body).toBe(201);
});
afterEach(async () => {
  await harness.close();
});

function debugPatch(container: Json): string {
  return JSON.stringify({ spec: { ephemeralContainers: [container] } });
}

async function causes(response: { statusCode: number; json(): Json; body: string }): Promise<{ field?: string; message: string }[]> {
  expect(response.statusCode, response.body).toBe(422);
  return (response.json().details.causes as Json[]).map((cause) => ({ field: cause['field'], message: cause['message'] }));
}

describe('pods/ephemeralcontainers', () => {
  it('GET answers the Pod', async () => {
    const response = await harness.request('GET', `${pods}/web/ephemeralcontainers`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'web' } });
  });

  it('a strategic merge patch adds a defaulted ephemeral container and keeps nothing else of the request', async () => {
    const patch = JSON.stringify({
      metadata: { labels: { app: 'changed' } },
      spec: { activeDeadlineSeconds: 5, ephemeralContainers: [{ name: 'debugger', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }] },
      status: { phase: 'Running' },
    });
    const response = await harness.request('PATCH', `${pods}/web/ephemeralcontainers`, patch, strategic);
    expect(response.statusCode, response.body).toBe(200);
    const pod = response.json();
    expect(pod.kind).toBe('Pod');
    expect(pod.spec.ephemeralContainers).toEqual([{
      name: 'debugger', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true,
      imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {},
    }]);
    expect(pod.metadata.labels).toEqual({ app: 'web' });
    expect(pod.spec.activeDeadlineSeconds).toBeUndefined();
    expect(pod.status.phase).toBe('Pending');
    const managers = (pod.metadata.managedFields as Json[]).map((entry) => entry['subresource']);
    expect(managers).toContain('ephemeralcontainers');
    const stored = (await harness.request('GET', `${pods}/web`)).json();
    expect(stored.spec.ephemeralContainers).toHaveLength(1);
  });

  it('a second container is added next to the first; changing or removing one is forbidden', async () => {
    expect((await harness.request('PATCH', `${pods}/web/ephemeralcontainers`, debugPatch({ name: 'one', image: 'busybox' }), strategic)).statusCode).toBe(200);
    const second = await harness.request('PATCH', `${pods}/web/ephemeralcontainers`, debugPatch({ name: 'two', image: 'alpine' }), strategic);
    expect(second.statusCode, second.body).toBe(200);
    expect((second.json().spec.ephemeralContainers as Json[]).map((container) => container['name'])).toEqual(['one', 'two']);

    const changed = await causes(await harness.request('PATCH', `${pods}/web/ephemeralcontainers`, debugPatch({ name: 'one', image: 'alpine' }), strategic));
    expect(changed).toHaveLength(1);
    expect(changed[0]!.field).toBe('spec.ephemeralContainers');
    expect(changed[0]!.message).toMatch(/^Forbidden: existing ephemeral containers "one" may not be changed\n/);

    const current = (await harness.request('GET', `${pods}/web/ephemeralcontainers`)).json();
    current.spec.ephemeralContainers = [current.spec.ephemeralContainers[1]];
    const removed = await causes(await harness.request('PUT', `${pods}/web/ephemeralcontainers`, current));
    expect(removed).toEqual([{ field: 'spec.ephemeralContainers', message: 'Forbidden: existing ephemeral containers "one" may not be removed\n' }]);
  });

  it('validates each as an ephemeral container with kube\'s messages', async () => {
    const found = await causes(await harness.request('PATCH', `${pods}/web/ephemeralcontainers`, debugPatch({
      name: 'app', image: 'busybox', targetContainerName: 'nope', ports: [{ containerPort: 80 }],
      resources: { limits: { cpu: '1' } }, readinessProbe: { exec: { command: ['true'] } }, lifecycle: { preStop: { exec: { command: ['true'] } } },
      volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }],
    }), strategic));
    expect(found).toEqual([
      { field: 'spec.ephemeralContainers[0].name', message: 'Duplicate value: "app"' },
      { field: 'spec.ephemeralContainers[0].targetContainerName', message: 'Not found: "nope"' },
      { field: 'spec.ephemeralContainers[0].ports', message: 'Forbidden: cannot be set for an Ephemeral Container' },
      { field: 'spec.ephemeralContainers[0].resources', message: 'Forbidden: cannot be set for an Ephemeral Container' },
      { field: 'spec.ephemeralContainers[0].readinessProbe', message: 'Forbidden: cannot be set for an Ephemeral Container' },
      { field: 'spec.ephemeralContainers[0].lifecycle', message: 'Forbidden: cannot be set for an Ephemeral Container' },
      { field: 'spec.ephemeralContainers[0].volumeMounts[0].subPath', message: 'Forbidden: cannot be set for an Ephemeral Container' },
    ]);
    // The name is unique among init containers too, and an image is required.
    const init = await causes(await harness.request('PATCH', `${pods}/web/ephemeralcontainers`, debugPatch({ name: 'init' }), strategic));
    expect(init).toEqual([
      { field: 'spec.ephemeralContainers[0].image', message: 'Required value' },
      { field: 'spec.ephemeralContainers[0].name', message: 'Duplicate value: "init"' },
    ]);
    // Nothing was stored.
    expect((await harness.request('GET', `${pods}/web`)).json().spec.ephemeralContainers).toBeUndefined();
  });

  it('the pod itself cannot change its ephemeral containers; a missing pod is 404', async () => {
    const response = await harness.request('PATCH', `${pods}/web`, debugPatch({ name: 'debugger', image: 'busybox' }), strategic);
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().message).toContain('pod updates may not change fields other than');
    const missing = await harness.request('PATCH', `${pods}/nope/ephemeralcontainers`, debugPatch({ name: 'd', image: 'busybox' }), strategic);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('pods "nope" not found');
  });

  it('a PUT with a stale resourceVersion conflicts; the verbs kube lacks are refused', async () => {
    const current = (await harness.request('GET', `${pods}/web`)).json();
    const touched = await harness.request('PATCH', `${pods}/web`, JSON.stringify({ metadata: { labels: { touched: 'yes' } } }), strategic);
    expect(touched.statusCode).toBe(200);
    current.spec.ephemeralContainers = [{ name: 'late', image: 'busybox' }];
    expect((await harness.request('PUT', `${pods}/web/ephemeralcontainers`, current)).statusCode).toBe(409);
    expect((await harness.request('POST', `${pods}/web/ephemeralcontainers`, current)).statusCode).toBe(405);
  });
});
