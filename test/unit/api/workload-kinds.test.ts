// Pods, nodes, services, endpoints and events.k8s.io/v1 events over HTTP through the real
// server: defaulting, Table columns, field selectors, the status subresource, eviction, log,
// service cluster IP allocation, discovery.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json' };
const pods = '/api/v1/namespaces/t/pods';
const services = '/api/v1/namespaces/t/services';

function pod(name: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec }, ...extra };
}

function service(name: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } };
}

async function create(url: string, body: unknown) {
  const response = await harness.request('POST', url, body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

function names(list: { items: { metadata: { name: string } }[] }): string[] {
  return list.items.map((item) => item.metadata.name);
}

describe('pods', () => {
  it('defaults probes, handlers, field references and volumes as the v1 SetDefaults functions', async () => {
    const created = await create(pods, pod('probed', {
      containers: [{
        name: 'c', image: 'nginx:1.27',
        livenessProbe: { httpGet: { port: 80 } }, readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
        lifecycle: { preStop: { httpGet: { port: 'http', path: '/stop' } } },
        env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
      }],
      volumes: [
        { name: 'scratch' }, { name: 'cfg', configMap: { name: 'settings' } }, { name: 'key', secret: { secretName: 'k', defaultMode: 256 } },
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
      ],
    }));
    const container = created.spec.containers[0];
    expect(container.livenessProbe).toEqual({ httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    expect(container.readinessProbe).toEqual({ tcpSocket: { port: 80 }, timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3 });
    expect(container.lifecycle.preStop.httpGet).toEqual({ port: 'http', path: '/stop', scheme: 'HTTP' });
    expect(container.env[0].valueFrom.fieldRef).toEqual({ apiVersion: 'v1', fieldPath: 'spec.nodeName' });
    const volumes = Object.fromEntries(created.spec.volumes.map((volume: { name: string }) => [volume.name, volume]));
    expect(volumes['scratch']).toEqual({ name: 'scratch', emptyDir: {} });
    expect(volumes['cfg']).toEqual({ name: 'cfg', configMap: { name: 'settings', defaultMode: 420 } });
    expect(volumes['key']).toEqual({ name: 'key', secret: { secretName: 'k', defaultMode: 256 } });
    expect(volumes['info'].downwardAPI).toEqual({ defaultMode: 420, items: [{ path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } }] });
  });

  it('defaults what kube-apiserver defaults and starts Pending', async () => {
    const created = await create(pods, pod('p', { containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }, { name: 'd', image: 'busybox' }] }));
    expect(created.spec).toMatchObject({
      restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler',
      serviceAccountName: 'default', enableServiceLinks: true, securityContext: {},
    });
    expect(created.spec.containers[0]).toMatchObject({ terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent', ports: [{ containerPort: 80, protocol: 'TCP' }] });
    expect(created.spec.containers[1].imagePullPolicy).toBe('Always');
    expect(created.spec.tolerations).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'node.kubernetes.io/not-ready', tolerationSeconds: 300 })]));
    expect(created.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    const got = (await harness.request('GET', `${pods}/p`)).json();
    expect(got.spec.restartPolicy).toBe('Always');
  });

  it('ignores status sent on create and rejects a pod without containers (422)', async () => {
    const created = await create(pods, pod('p', {}, { status: { phase: 'Running', podIP: '1.2.3.4' } }));
    expect(created.status.phase).toBe('Pending');
    const bad = await harness.request('POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q' }, spec: { containers: [{ name: 'c' }] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().details.causes).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'spec.containers[0].image', reason: 'FieldValueRequired' })]));
    const badName = await harness.request('POST', pods, pod('n', { containers: [{ name: 'Web_1', image: 'x' }] }));
    expect(badName.statusCode).toBe(422);
    expect(badName.json().details.causes[0]).toMatchObject({ field: 'spec.containers[0].name', reason: 'FieldValueInvalid' });
    const none = await harness.request('POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'r' }, spec: {} });
    expect(none.statusCode).toBe(422);
    expect(none.json().message).toContain('spec.containers: Required value');
  });

  it('reports unknown fields and wrong types through fieldValidation', async () => {
    const strict = await harness.request('POST', `${pods}?fieldValidation=Strict`, pod('p', { bogus: 1, containers: [{ name: 'c', image: 'x', imagePullPolcy: 'Always' }] }));
    expect(strict.statusCode).toBe(400);
    expect(strict.json().message).toContain('unknown field "spec.bogus"');
    expect(strict.json().message).toContain('unknown field "spec.containers[0].imagePullPolcy"');
    const warned = await harness.request('POST', pods, pod('w', { containers: [{ name: 'c', image: 'x', imagePullPolcy: 'Always' }] }));
    expect(warned.statusCode).toBe(201);
    expect(String(warned.headers['warning'])).toContain('unknown field \\"spec.containers[0].imagePullPolcy\\"');
    expect(warned.json().spec.containers[0].imagePullPolcy).toBeUndefined();
    const typed = await harness.request('POST', pods, pod('p', { restartPolicy: 3 }));
    expect(typed.statusCode).toBe(400);
  });

  it('keeps status on a main-resource update and spec on a status update', async () => {
    const created = await create(pods, pod('p'));
    const withStatus = { ...created, status: { phase: 'Running', podIP: '10.0.0.9' } };
    const updated = await harness.request('PUT', `${pods}/p`, withStatus);
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().status.phase).toBe('Pending');
    const current = updated.json();
    const statusWrite = await harness.request('PUT', `${pods}/p/status`, {
      ...current, spec: { ...current.spec, activeDeadlineSeconds: 5 }, metadata: { ...current.metadata, labels: { a: 'b' } },
      status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }] },
    });
    expect(statusWrite.statusCode, statusWrite.body).toBe(200);
    expect(statusWrite.json().status.phase).toBe('Running');
    expect(statusWrite.json().spec.activeDeadlineSeconds).toBeUndefined();
    expect(statusWrite.json().metadata.labels).toBeUndefined();
    const patched = await harness.request('PATCH', `${pods}/p/status`, JSON.stringify({ status: { phase: 'Succeeded' }, spec: { nodeName: 'n1' } }), { 'content-type': 'application/merge-patch+json' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().status.phase).toBe('Succeeded');
    expect(patched.json().spec.nodeName).toBeUndefined();
    expect((await harness.request('GET', `${pods}/p/status`)).json().status.phase).toBe('Succeeded');
    const mainPatch = await harness.request('PATCH', `${pods}/p`, JSON.stringify({ status: { phase: 'Failed' } }), { 'content-type': 'application/merge-patch+json' });
    expect(mainPatch.statusCode).toBe(200);
    expect(mainPatch.json().status.phase).toBe('Succeeded');
  });

  it('forbids pod spec changes other than images (422)', async () => {
    const created = await create(pods, pod('p'));
    const changed = await harness.request('PUT', `${pods}/p`, { ...created, spec: { ...created.spec, restartPolicy: 'Never' } });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().message).toContain('pod updates may not change fields other than');
    const image = await harness.request('PUT', `${pods}/p`, { ...created, spec: { ...created.spec, containers: [{ ...created.spec.containers[0], image: 'nginx:2' }] } });
    expect(image.statusCode, image.body).toBe(200);
  });

  it('merges strategic patches by kube\'s merge keys (containers by name, ports by containerPort)', async () => {
    await create(pods, pod('p', { containers: [{ name: 'a', image: 'x:1', ports: [{ containerPort: 80 }] }, { name: 'b', image: 'y:1' }] }));
    const smp = { 'content-type': 'application/strategic-merge-patch+json' };
    const patched = await harness.request('PATCH', `${pods}/p`, JSON.stringify({ spec: { containers: [{ name: 'b', image: 'y:2' }] } }), smp);
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().spec.containers.map((container: { name: string; image: string }) => `${container.name}=${container.image}`)).toEqual(['a=x:1', 'b=y:2']);
    expect(patched.json().spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
    const status = await harness.request('PATCH', `${pods}/p/status`, JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'False' }] } }), smp);
    const again = await harness.request('PATCH', `${pods}/p/status`, JSON.stringify({ status: { conditions: [{ type: 'PodScheduled', status: 'True' }] } }), smp);
    expect(status.statusCode).toBe(200);
    expect(again.json().status.conditions.map((condition: { type: string }) => condition.type)).toEqual(['Ready', 'PodScheduled']);
    await create(services, service('s', { ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] }));
    const svc = await harness.request('PATCH', `${services}/s`, JSON.stringify({ spec: { ports: [{ port: 81, targetPort: 9090 }] } }), smp);
    expect(svc.json().spec.ports.map((port: { port: number; targetPort: number }) => `${port.port}->${port.targetPort}`)).toEqual(['80->80', '81->9090']);
  });

  it('prints the columns kubectl get pods shows', async () => {
    await create(pods, pod('p'));
    const table = (await harness.request('GET', pods, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(table.columnDefinitions.map((column: { priority: number }) => column.priority)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(table.rows[0].cells.slice(0, 4)).toEqual(['p', '0/1', 'Pending', '0']);
    expect(table.rows[0].cells.slice(5)).toEqual(['<none>', '<none>', '<none>', '<none>']);
    const current = (await harness.request('GET', `${pods}/p`)).json();
    await harness.request('PUT', `${pods}/p/status`, {
      ...current, status: {
        phase: 'Running', podIP: '10.0.0.9', conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'c', ready: true, restartCount: 2, state: { running: { startedAt: '2025-01-01T00:00:00Z' } }, image: 'nginx', imageID: '' }],
      },
    });
    const running = (await harness.request('GET', `${pods}/p`, undefined, tableAccept)).json();
    expect(running.rows[0].cells.slice(1, 4)).toEqual(['1/1', 'Running', '2']);
    expect(running.rows[0].cells[5]).toBe('10.0.0.9');
  });

  it('selects by the pod fields kube-apiserver supports and refuses others (400)', async () => {
    await create(pods, pod('a', { nodeName: 'n1', restartPolicy: 'Never', hostNetwork: true }));
    await create('/api/v1/namespaces/t/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
    await create(pods, pod('b', { serviceAccountName: 'builder', schedulerName: 'other' }));
    const select = async (selector: string) => (await harness.request('GET', `${pods}?fieldSelector=${encodeURIComponent(selector)}`)).json();
    expect(names(await select('spec.nodeName=n1'))).toEqual(['a']);
    expect(names(await select('spec.nodeName='))).toEqual(['b']);
    expect(names(await select('spec.restartPolicy=Always'))).toEqual(['b']);
    expect(names(await select('spec.schedulerName=other'))).toEqual(['b']);
    expect(names(await select('spec.serviceAccountName=builder'))).toEqual(['b']);
    expect(names(await select('spec.hostNetwork=false'))).toEqual(['b']);
    expect(names(await select('status.phase=Pending,metadata.name!=a'))).toEqual(['b']);
    expect(names(await select('status.podIP='))).toEqual(['a', 'b']);
    expect(names(await select('status.nominatedNodeName='))).toEqual(['a', 'b']);
    const bad = await harness.request('GET', `${pods}?fieldSelector=spec.containers=x`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('"spec.containers" is not a known field selector');
  });

  it('watches pods through a field selector', async () => {
    const start = (await harness.request('GET', pods)).json().metadata.resourceVersion;
    await create(pods, pod('on-n1', { nodeName: 'n1' }));
    await create(pods, pod('unscheduled'));
    // A bound pod deletes gracefully (MODIFIED: deletionTimestamp set), then goes with grace period 0.
    await harness.request('DELETE', `${pods}/on-n1`);
    await harness.request('DELETE', `${pods}/on-n1?gracePeriodSeconds=0`);
    const watch = await harness.request('GET', `${pods}?watch=1&resourceVersion=${start}&timeoutSeconds=1&fieldSelector=spec.nodeName%3Dn1`);
    const events = watch.body.trim().split('\n').map((line) => JSON.parse(line) as { type: string; object: { metadata: { name: string } } });
    expect(events.map((event) => [event.type, event.object.metadata.name])).toEqual([['ADDED', 'on-n1'], ['MODIFIED', 'on-n1'], ['DELETED', 'on-n1']]);
  });

  it('evicts a pod with the Eviction\'s delete options', async () => {
    const created = await create(pods, pod('p'));
    const wrongUid = await harness.request('POST', `${pods}/p/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' }, deleteOptions: { preconditions: { uid: 'other' } } });
    expect(wrongUid.statusCode).toBe(409);
    const mismatch = await harness.request('POST', `${pods}/p/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'q' } });
    expect(mismatch.statusCode).toBe(400);
    const dry = await harness.request('POST', `${pods}/p/eviction?dryRun=All`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } });
    expect(dry.statusCode).toBe(201);
    expect((await harness.request('GET', `${pods}/p`)).statusCode).toBe(200);
    const evicted = await harness.request('POST', `${pods}/p/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' }, deleteOptions: { preconditions: { uid: created.metadata.uid } } });
    expect(evicted.statusCode, evicted.body).toBe(201);
    expect(evicted.json()).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await harness.request('GET', `${pods}/p`)).statusCode).toBe(404);
    expect((await harness.request('POST', `${pods}/p/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } })).statusCode).toBe(404);
  });

  it('answers log as kube-apiserver does without a kubelet', async () => {
    await create(pods, pod('p'));
    await create(pods, pod('two', { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] }));
    const empty = await harness.request('GET', `${pods}/p/log`);
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toBe('');
    const choose = await harness.request('GET', `${pods}/two/log`);
    expect(choose.statusCode).toBe(400);
    expect(choose.json().message).toBe('a container name must be specified for pod two, choose one of: [a b]');
    const wrong = await harness.request('GET', `${pods}/p/log?container=zz`);
    expect(wrong.json().message).toBe('container zz is not valid for pod p');
    await create(pods, pod('placed', { nodeName: 'n1' }));
    const noNode = await harness.request('GET', `${pods}/placed/log`);
    expect(noNode.statusCode).toBe(404);
    expect(noNode.json().message).toBe('nodes "n1" not found');
    await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const unreachable = await harness.request('GET', `${pods}/placed/log`);
    expect(unreachable.statusCode).toBe(500);
    expect(unreachable.json().message).toContain('no kubelet');
    expect((await harness.request('GET', `${pods}/missing/log`)).statusCode).toBe(404);
  });

  it('binds a pod to a node once, as a scheduler does', async () => {
    await create(pods, pod('p'));
    const binding = (node: string, name = 'p') => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: node } });
    expect((await harness.request('POST', `${pods}/p/binding`, binding('n1', 'q'))).statusCode).toBe(400);
    expect((await harness.request('POST', `${pods}/p/binding`, { kind: 'Binding', metadata: { name: 'p' }, target: {} })).statusCode).toBe(422);
    const bound = await harness.request('POST', `${pods}/p/binding`, binding('n1'));
    expect(bound.statusCode, bound.body).toBe(201);
    const got = (await harness.request('GET', `${pods}/p`)).json();
    expect(got.spec.nodeName).toBe('n1');
    expect(got.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
    const again = await harness.request('POST', `${pods}/p/binding`, binding('n2'));
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toContain('pod p is already assigned to node "n1"');
    expect((await harness.request('POST', `${pods}/missing/binding`, binding('n1', 'missing'))).statusCode).toBe(404);
  });

  it('answers exec, attach and portforward with kube-apiserver\'s checks and no kubelet behind them', async () => {
    await create(pods, pod('p'));
    const exec = await harness.request('POST', `${pods}/p/exec?command=ls&stdout=true`);
    expect(exec.statusCode).toBe(400);
    expect(exec.json().message).toBe('pod p does not have a host assigned');
    expect((await harness.request('POST', `${pods}/p/attach?container=nope`)).json().message).toBe('container nope is not valid for pod p');
    expect((await harness.request('GET', `${pods}/p/portforward?ports=80`)).json().message).toBe('pod p does not have a host assigned');
    await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await create(pods, pod('placed', { nodeName: 'n1' }));
    const placed = await harness.request('POST', `${pods}/placed/exec?command=ls`);
    expect(placed.statusCode).toBe(500);
    expect(placed.json().message).toContain('no kubelet');
    // exec has routes for GET and POST only: another method on its path is go-restful's 405,
    // which kube-apiserver answers as a MethodNotAllowed Status.
    const put = await harness.request('PUT', `${pods}/p/exec`, pod('p'));
    expect(put.statusCode).toBe(405);
    expect(put.json()).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  });
});

describe('nodes', () => {
  const node = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, ...extra });

  it('is cluster-scoped, keeps status on create, and has a status subresource', async () => {
    const created = await create('/api/v1/nodes', node('n1', {
      metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '' } },
      status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.0' }, addresses: [{ type: 'InternalIP', address: '192.168.1.5' }] },
    }));
    expect(created.metadata.namespace).toBeUndefined();
    expect(created.status.nodeInfo.kubeletVersion).toBe('v1.32.0');
    const cordoned = await harness.request('PUT', '/api/v1/nodes/n1', { ...created, spec: { unschedulable: true }, status: { conditions: [] } });
    expect(cordoned.statusCode, cordoned.body).toBe(200);
    expect(cordoned.json().status.conditions).toEqual([{ type: 'Ready', status: 'True' }]);
    const table = (await harness.request('GET', '/api/v1/nodes', undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime']);
    expect(table.rows[0].cells).toEqual(['n1', 'Ready,SchedulingDisabled', 'control-plane', expect.any(String), 'v1.32.0', '192.168.1.5', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    const status = await harness.request('PATCH', '/api/v1/nodes/n1/status', JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'False' }] }, spec: { unschedulable: false } }), { 'content-type': 'application/merge-patch+json' });
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json().spec.unschedulable).toBe(true);
    expect(status.json().status.conditions[0].status).toBe('False');
    await create('/api/v1/nodes', node('n2'));
    const select = async (selector: string) => names((await harness.request('GET', `/api/v1/nodes?fieldSelector=${selector}`)).json());
    expect(await select('spec.unschedulable=true')).toEqual(['n1']);
    expect(await select('spec.unschedulable=false')).toEqual(['n2']);
    expect((await harness.request('GET', '/api/v1/nodes?fieldSelector=status.phase=x')).statusCode).toBe(400);
    expect((await harness.request('GET', '/api/v1/namespaces/t/nodes')).statusCode).toBe(404);
  });
});

describe('services', () => {
  it('defaults and allocates the lowest free cluster IP after the kubernetes Service\'s', async () => {
    const created = await create(services, service('web', { selector: { app: 'web' } }));
    expect(created.spec).toMatchObject({
      type: 'ClusterIP', sessionAffinity: 'None', clusterIP: '10.96.0.2', clusterIPs: ['10.96.0.2'],
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
    });
    expect(created.status).toEqual({ loadBalancer: {} });
    const second = await create('/api/v1/namespaces/default/services', service('api'));
    expect(second.spec.clusterIP).toBe('10.96.0.3');
    const kubernetes = await create('/api/v1/namespaces/default/services', service('kubernetes', { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, targetPort: 6443 }] }));
    expect(kubernetes.spec.clusterIP).toBe('10.96.0.1');
  });

  it('hands out distinct IPs to concurrent creates and refuses a taken or out-of-range one', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, (_, index) => harness.request('POST', services, service(`s${index}`))));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(201));
    const ips = responses.map((response) => response.json().spec.clusterIP);
    expect(new Set(ips).size).toBe(20);
    const taken = await harness.request('POST', services, service('dup', { clusterIP: ips[0] }));
    expect(taken.statusCode).toBe(422);
    expect(taken.json().message).toContain('provided IP is already allocated');
    const outside = await harness.request('POST', services, service('out', { clusterIP: '192.168.0.1' }));
    expect(outside.statusCode).toBe(422);
    expect(outside.json().message).toContain('The range of valid IPs is 10.96.0.0/12');
    // A deleted service's IP is free again, and the lowest free one is chosen.
    expect((await harness.request('DELETE', `${services}/s0`)).statusCode).toBe(200);
    const reused = await create(services, service('again'));
    expect(reused.spec.clusterIP).toBe(ips[0]);
  });

  it('allows headless services and keeps spec.clusterIP immutable (422)', async () => {
    const headless = await create(services, service('db', { clusterIP: 'None' }));
    expect(headless.spec.clusterIP).toBe('None');
    expect(headless.spec.clusterIPs).toEqual(['None']);
    const noPorts = await create(services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bare' }, spec: { clusterIP: 'None' } });
    expect(noPorts.spec.ports).toEqual([]);
    const web = await create(services, service('web'));
    const changed = await harness.request('PUT', `${services}/web`, { ...web, spec: { ...web.spec, clusterIP: '10.96.0.200', clusterIPs: ['10.96.0.200'] } });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().message).toContain('may not change once set');
    const left = await harness.request('PUT', `${services}/web`, { ...web, spec: { ports: [{ port: 8080 }] } });
    expect(left.statusCode, left.body).toBe(200);
    expect(left.json().spec.clusterIP).toBe(web.spec.clusterIP);
    expect(left.json().spec.ports[0].targetPort).toBe(8080);
    const digit = await harness.request('POST', services, service('1web'));
    expect(digit.statusCode).toBe(422);
    expect(digit.json().message).toContain('a DNS-1035 label must consist of lower case alphanumeric characters');
    const missingPorts = await harness.request('POST', services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' }, spec: {} });
    expect(missingPorts.statusCode).toBe(422);
    expect(missingPorts.json().message).toContain('spec.ports: Required value');
  });

  it('allocates node ports and prints the columns kubectl get svc shows', async () => {
    const nodePort = await create(services, service('np', { type: 'NodePort', selector: { b: '2', a: '1' } }));
    expect(nodePort.spec.ports[0].nodePort).toBe(30000);
    expect(nodePort.spec.externalTrafficPolicy).toBe('Cluster');
    const external = await create(services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
    expect(external.spec.clusterIP).toBeUndefined();
    const table = (await harness.request('GET', services, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector']);
    const rows = Object.fromEntries(table.rows.map((row: { cells: unknown[] }) => [row.cells[0], row.cells]));
    expect(rows['np']).toEqual(['np', 'NodePort', nodePort.spec.clusterIP, '<none>', '80:30000/TCP', expect.any(String), 'a=1,b=2']);
    expect(rows['ext']).toEqual(['ext', 'ExternalName', '<none>', 'example.com', '<none>', expect.any(String), '<none>']);
    const select = async (selector: string) => names((await harness.request('GET', `${services}?fieldSelector=${selector}`)).json());
    expect(await select('spec.type=ExternalName')).toEqual(['ext']);
    expect(await select(`spec.clusterIP=${nodePort.spec.clusterIP}`)).toEqual(['np']);
  });
});

describe('endpoints', () => {
  it('stores endpoints, defaults port protocols and prints the Endpoints column', async () => {
    const url = '/api/v1/namespaces/t/endpoints';
    const created = await create(url, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }], ports: [{ port: 80 }, { name: 'x', port: 81 }] }],
    });
    expect(created.subsets[0].ports[0].protocol).toBe('TCP');
    const table = (await harness.request('GET', url, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Endpoints', 'Age']);
    expect(table.rows[0].cells.slice(0, 2)).toEqual(['web', '10.1.0.1:80,10.1.0.2:80,10.1.0.1:81 + 1 more...']);
    const invalid = await harness.request('POST', url, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'bad' }, subsets: [{ addresses: [{}] }] });
    expect(invalid.statusCode).toBe(422);
    const updated = await harness.request('PUT', `${url}/web`, { ...created, subsets: [] });
    expect(updated.statusCode).toBe(200);
    expect((await harness.request('GET', `${url}/web`, undefined, tableAccept)).json().rows[0].cells[1]).toBe('<none>');
  });
});

describe('events.k8s.io/v1', () => {
  const url = '/apis/events.k8s.io/v1/namespaces/t/events';
  const event = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name },
    eventTime: '2025-01-01T00:00:00.000000Z', reportingController: 'kstore/test', reportingInstance: 'i1', action: 'Test', reason: 'Tested', type: 'Normal',
    regarding: { kind: 'Pod', name: 'p', namespace: 't' }, note: 'hello', ...extra,
  });

  it('validates, selects by its own field names and prints the event columns', async () => {
    await create(url, event('e1'));
    await create(url, event('e2', { type: 'Warning', reason: 'Other', regarding: { kind: 'Service', name: 's', namespace: 't' }, reportingController: 'x' }));
    const missing = await harness.request('POST', url, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bad' } });
    expect(missing.statusCode).toBe(422);
    // kube's ValidateEventCreate: without eventTime the legacy rules ask only that the namespaces agree.
    expect(missing.json().details.causes.map((cause: { field: string }) => cause.field)).toEqual(['involvedObject.namespace', 'eventTime', 'type']);
    const select = async (selector: string) => names((await harness.request('GET', `${url}?fieldSelector=${encodeURIComponent(selector)}`)).json());
    expect(await select('regarding.kind=Pod')).toEqual(['e1']);
    expect(await select('reportingController=x')).toEqual(['e2']);
    expect(await select('type=Warning,reason=Other')).toEqual(['e2']);
    expect((await harness.request('GET', `${url}?fieldSelector=involvedObject.kind=Pod`)).statusCode).toBe(400);
    const table = (await harness.request('GET', `${url}/e1`, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
    expect(table.rows[0].cells.slice(1, 7)).toEqual(['Normal', 'Tested', 'pod/p', '', 'kstore/test, i1', 'hello']);
  });
});

describe('discovery', () => {
  it('lists the new resources with verbs, short names and subresources', async () => {
    const core = (await harness.request('GET', '/api/v1')).json();
    const byName = Object.fromEntries(core.resources.map((resource: { name: string }) => [resource.name, resource]));
    expect(byName['pods']).toMatchObject({ namespaced: true, kind: 'Pod', shortNames: ['po'], categories: ['all'] });
    expect(byName['pods'].verbs).toEqual(expect.arrayContaining(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']));
    expect(byName['pods/eviction']).toMatchObject({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    expect(byName['pods/log']).toMatchObject({ kind: 'Pod', verbs: ['get'] });
    expect(byName['pods/exec']).toEqual({ name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(byName['pods/status']).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    expect(byName['nodes']).toMatchObject({ namespaced: false, shortNames: ['no'] });
    expect(byName['services']).toMatchObject({ namespaced: true, shortNames: ['svc'] });
    expect(byName['endpoints']).toMatchObject({ namespaced: true, shortNames: ['ep'], kind: 'Endpoints' });
    const events = (await harness.request('GET', '/apis/events.k8s.io/v1')).json();
    expect(events.resources.map((resource: { name: string }) => resource.name)).toEqual(['events']);
    const aggregated = (await harness.request('GET', '/api', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).json();
    const podsEntry = aggregated.items[0].versions[0].resources.find((resource: { resource: string }) => resource.resource === 'pods');
    expect(podsEntry.subresources.find((sub: { subresource: string }) => sub.subresource === 'eviction').responseKind).toEqual({ group: 'policy', version: 'v1', kind: 'Eviction' });
  });

  it('publishes the schemas in OpenAPI', async () => {
    const v2 = (await harness.request('GET', '/openapi/v2')).json();
    expect(v2.definitions['io.k8s.api.core.v1.Pod']).toBeDefined();
    expect(v2.definitions['io.k8s.api.events.v1.Event'].properties.regarding).toBeDefined();
    // Nested types are definitions of their own, referred to by name as in kube's documents.
    expect(v2.definitions['io.k8s.api.core.v1.Service'].properties.spec).toEqual({ $ref: '#/definitions/io.k8s.api.core.v1.ServiceSpec' });
    expect(v2.definitions['io.k8s.api.core.v1.ServiceSpec'].properties.ports.items).toEqual({ $ref: '#/definitions/io.k8s.api.core.v1.ServicePort' });
    expect(v2.definitions['io.k8s.api.core.v1.ServicePort'].properties.targetPort).toEqual({ $ref: '#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString' });
    expect(v2.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toEqual({ type: 'string', format: 'int-or-string' });
  });
});
