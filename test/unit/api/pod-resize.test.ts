// pods/resize through the API: GET answers the Pod; a patch or PUT changes the cpu and memory
// of the pod's containers and nothing else of the request is kept; kube's ValidatePodResize
// refusals with its messages (QoS class, removed requests, other resources, memory limit
// decrease, reordered containers, static pods, a node without resize support); the main
// resource still refuses a resources change.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let harness: Harness;
const pods = '/api/v1/namespaces/t/pods';
const strategic = { 'content-type': 'application/strategic-merge-patch+json' };

function resources(requests: Json, limits?: Json): Json {
  return { requests, ...(limits === undefined ? {} : { limits }) };
}

async function createPod(name: string, containers: Json[], metadata: Json = {}): Promise<Json> {
  const response = await harness.request('POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

function resize(name: string, containers: Json[]) {
  return harness.request('PATCH', `${pods}/${name}/resize`, JSON.stringify({ spec: { containers } }), strategic);
}

async function causes(response: { statusCode: number; json(): Json; body: string }): Promise<{ field?: string; message: string }[]> {
  expect(response.statusCode, response.body).toBe(422);
  return (response.json().details.causes as Json[]).map((cause) => ({ field: cause['field'], message: cause['message'] }));
}

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

describe('pods/resize', () => {
  it('GET answers the Pod; a patch changes the container resources and keeps nothing else', async () => {
    await createPod('web', [{ name: 'app', image: 'nginx', resources: resources({ cpu: '100m', memory: '64Mi' }, { cpu: '200m', memory: '128Mi' }) }]);
    const got = await harness.request('GET', `${pods}/web/resize`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ kind: 'Pod', metadata: { name: 'web' } });
    const patch = JSON.stringify({
      metadata: { labels: { changed: 'yes' } },
      spec: { containers: [{ name: 'app', image: 'other', resources: resources({ cpu: '300m', memory: '64Mi' }, { cpu: '400m', memory: '256Mi' }) }] },
    });
    const response = await harness.request('PATCH', `${pods}/web/resize`, patch, strategic);
    expect(response.statusCode, response.body).toBe(200);
    const pod = response.json();
    expect(pod.kind).toBe('Pod');
    expect(pod.spec.containers[0].resources).toEqual(resources({ cpu: '300m', memory: '64Mi' }, { cpu: '400m', memory: '256Mi' }));
    expect(pod.spec.containers[0].image).toBe('nginx');
    expect(pod.metadata.labels).toBeUndefined();
    expect((pod.metadata.managedFields as Json[]).some((entry) => entry['subresource'] === 'resize')).toBe(true);
    expect((await harness.request('GET', `${pods}/web`)).json().spec.containers[0].resources.requests.cpu).toBe('300m');
  });

  it('a PUT takes the resources of the body', async () => {
    const pod = await createPod('put', [{ name: 'app', image: 'nginx', resources: resources({ cpu: '100m' }) }]);
    pod.spec.containers[0].resources = resources({ cpu: '150m' });
    pod.spec.containers[0].image = 'ignored';
    const response = await harness.request('PUT', `${pods}/put/resize`, pod);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().spec.containers[0]).toMatchObject({ image: 'nginx', resources: resources({ cpu: '150m' }) });
  });

  it('refuses what kube refuses, with its messages', async () => {
    await createPod('g', [{ name: 'app', image: 'nginx', resources: resources({ cpu: '100m', memory: '64Mi' }, { cpu: '100m', memory: '64Mi' }) }]);
    // Guaranteed → Burstable.
    expect(await causes(await resize('g', [{ name: 'app', resources: resources({ cpu: '50m', memory: '64Mi' }, { cpu: '100m', memory: '64Mi' }) }]))).toEqual([
      { field: 'spec', message: 'Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing' },
    ]);
    // A memory limit decrease without RestartContainer.
    expect(await causes(await resize('g', [{ name: 'app', resources: resources({ cpu: '100m', memory: '32Mi' }, { cpu: '100m', memory: '32Mi' }) }]))).toEqual([
      { field: 'spec.containers[0].resources.limits[memory]', message: 'Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer' },
    ]);

    await createPod('b', [{ name: 'app', image: 'nginx', resources: resources({ cpu: '100m', memory: '64Mi' }) }]);
    const removed = harness.request('PATCH', `${pods}/b/resize`, JSON.stringify({ spec: { containers: [{ name: 'app', resources: { requests: { memory: null } } }] } }), strategic);
    expect(await causes(await removed)).toEqual([{ field: 'spec.containers[0].resources.requests', message: 'Forbidden: resource requests cannot be removed' }]);
    expect(await causes(await resize('b', [{ name: 'app', resources: { requests: { 'ephemeral-storage': '1Gi' } } }]))).toEqual([
      { field: 'spec', message: 'Forbidden: only cpu and memory resources are mutable' },
    ]);
    expect(await causes(await resize('b', [{ name: 'app', resources: { limits: { memory: '1Gi' } } }]))).toEqual([
      { field: 'spec.containers[0].resources.limits[memory]', message: 'Forbidden: memory limits cannot be added unless resizePolicy is RestartContainer' },
    ]);
    // The resize policy itself is not changed through resize (ValidatePodResize compares it with the stored one).
    expect(await causes(await resize('b', [{ name: 'app', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }]))).toEqual([
      { field: 'spec', message: 'Forbidden: only cpu and memory resources are mutable' },
    ]);
    // With RestartContainer for memory, a limit can be added and decreased.
    await createPod('r', [{ name: 'app', image: 'nginx', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }], resources: resources({ cpu: '100m', memory: '64Mi' }) }]);
    const added = await resize('r', [{ name: 'app', resources: { limits: { memory: '1Gi' } } }]);
    expect(added.statusCode, added.body).toBe(200);
    const decreased = await resize('r', [{ name: 'app', resources: { limits: { memory: '512Mi' } } }]);
    expect(decreased.statusCode, decreased.body).toBe(200);
    expect(decreased.json().spec.containers[0].resources).toEqual(resources({ cpu: '100m', memory: '64Mi' }, { memory: '512Mi' }));
  });

  it('refuses reordered containers, static pods and pods on a node that does not report resources', async () => {
    const two = await createPod('two', [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx' }]);
    two.spec.containers = [two.spec.containers[1], two.spec.containers[0]];
    expect(await causes(await harness.request('PUT', `${pods}/two/resize`, two))).toEqual([
      { field: 'spec.containers[0].name', message: 'Forbidden: containers may not be renamed or reordered on resize' },
      { field: 'spec.containers[1].name', message: 'Forbidden: containers may not be renamed or reordered on resize' },
    ]);
    await createPod('static', [{ name: 'app', image: 'nginx' }], { annotations: { 'kubernetes.io/config.mirror': 'abc' } });
    const staticPod = await causes(await resize('static', [{ name: 'app', resources: resources({ cpu: '1' }) }]));
    expect(staticPod.map((cause) => cause.message)).toEqual(['Forbidden: static pods cannot be resized']);

    await createPod('old-node', [{ name: 'app', image: 'nginx', resources: resources({ cpu: '100m' }) }]);
    const status = { status: { containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: '2025-01-01T00:00:00Z' } } }] } };
    const written = await harness.request('PATCH', `${pods}/old-node/status`, JSON.stringify(status), { 'content-type': 'application/merge-patch+json' });
    expect(written.statusCode, written.body).toBe(200);
    expect(await causes(await resize('old-node', [{ name: 'app', resources: resources({ cpu: '200m' }) }]))).toEqual([
      { field: 'spec', message: 'Forbidden: Pod running on node without support for resize' },
    ]);
  });

  it('the pod itself cannot change resources', async () => {
    await createPod('main', [{ name: 'app', image: 'nginx', resources: resources({ cpu: '100m' }) }]);
    const response = await harness.request('PATCH', `${pods}/main`, JSON.stringify({ spec: { containers: [{ name: 'app', resources: resources({ cpu: '200m' }) }] } }), strategic);
    expect(response.statusCode).toBe(422);
    expect((await harness.request('PATCH', `${pods}/nope/resize`, JSON.stringify({ spec: {} }), strategic)).statusCode).toBe(404);
  });
});
