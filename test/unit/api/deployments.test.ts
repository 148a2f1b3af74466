// apps/v1 Deployments through the API: the v1 defaults (the pod template defaulted as a
// template, without the pod-only admission defaults), generation (1 on create, bumped by spec
// changes only), status (reset on create, kept on writes to the main resource, replaced through
// /status), kube's validation messages, the Table columns and a protobuf round trip.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { admin, invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const deployments = '/apis/apps/v1/namespaces/t/deployments';
const protobuf = 'application/vnd.kubernetes.protobuf';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function deployment(name: string, spec: Json = {}): Json {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
      ...spec,
    },
  };
}

async function create(object: Json): Promise<Json> {
  const response = await harness.request('POST', deployments, object);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

describe('deployments', () => {
  it('are created with the apps/v1 defaults, generation 1 and an empty status', async () => {
    const created = await create({ ...deployment('web'), status: { replicas: 5 } });
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({});
    expect(created.spec).toMatchObject({
      replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    });
    const podSpec = created.spec.template.spec;
    expect(podSpec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30, securityContext: {} });
    expect(podSpec.containers[0]).toMatchObject({ imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} });
    // The pod-only defaults (admission plugins, SetDefaults_Pod) are not a template's.
    for (const podOnly of ['serviceAccountName', 'tolerations', 'priority', 'enableServiceLinks', 'preemptionPolicy']) expect(podSpec).not.toHaveProperty(podOnly);
  });

  it('keep explicit values and Recreate has no rolling update', async () => {
    const created = await create(deployment('explicit', { replicas: 0, revisionHistoryLimit: 2, strategy: { type: 'Recreate' } }));
    expect(created.spec).toMatchObject({ replicas: 0, revisionHistoryLimit: 2, strategy: { type: 'Recreate' } });
    expect(created.spec.strategy).not.toHaveProperty('rollingUpdate');
  });

  it('bump the generation on a spec change only and keep the stored status on a PUT', async () => {
    const created = await create(deployment('web'));
    const relabelled = { ...created, metadata: { ...created.metadata, labels: { team: 'a' } }, status: { replicas: 9 } };
    const first = await harness.request('PUT', `${deployments}/web`, relabelled);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().metadata.generation).toBe(1);
    expect(first.json().status).toEqual({});
    const scaled = first.json();
    scaled.spec.replicas = 3;
    const second = await harness.request('PUT', `${deployments}/web`, scaled);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().metadata.generation).toBe(2);
    const patched = await harness.request('PATCH', `${deployments}/web`, { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } }, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().metadata.generation).toBe(3);
    expect(patched.json().spec.template.spec.containers[0].imagePullPolicy).toBe('Always');
  });

  it('take status only through the status subresource, which leaves spec and generation alone', async () => {
    const created = await create(deployment('web'));
    const status = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 };
    const put = await harness.request('PUT', `${deployments}/web/status`, { ...created, spec: { ...created.spec, replicas: 7 }, status });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().status).toEqual(status);
    expect(put.json().spec.replicas).toBe(1);
    expect(put.json().metadata.generation).toBe(1);
    const patch = await harness.request('PATCH', `${deployments}/web/status`, { status: { readyReplicas: 0 } }, { 'content-type': 'application/merge-patch+json' });
    expect(patch.statusCode, patch.body).toBe(200);
    expect(patch.json().status.readyReplicas).toBe(0);
    const got = await harness.request('GET', `${deployments}/web/status`);
    expect(got.json().status.readyReplicas).toBe(0);
  });

  it('reject an absent object on PUT (no create on update)', async () => {
    const response = await harness.request('PUT', `${deployments}/missing`, deployment('missing'));
    expect(response.statusCode).toBe(404);
  });

  it('validate as kube-apiserver does', async () => {
    const mismatch = deployment('bad');
    mismatch['spec'].template.metadata.labels = { app: 'other' };
    expect(await causesOf('POST', deployments, mismatch)).toContainEqual({ field: 'spec.template.metadata.labels', message: 'Invalid value: {"app":"other"}: `selector` does not match template `labels`' });

    const noSelector = deployment('bad');
    delete noSelector['spec'].selector;
    expect(await causesOf('POST', deployments, noSelector)).toContainEqual({ field: 'spec.selector', message: 'Required value' });

    expect(await causesOf('POST', deployments, deployment('bad', { replicas: -1 }))).toContainEqual({ field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0' });

    const onFailure = deployment('bad');
    onFailure['spec'].template.spec.restartPolicy = 'OnFailure';
    expect(await causesOf('POST', deployments, onFailure)).toContainEqual({ field: 'spec.template.spec.restartPolicy', message: 'Unsupported value: "OnFailure": supported values: "Always"' });

    const noContainers = deployment('bad');
    noContainers['spec'].template.spec.containers = [{ name: 'Bad_Name' }];
    const containerCauses = await causesOf('POST', deployments, noContainers);
    expect(containerCauses).toContainEqual({ field: 'spec.template.spec.containers[0].image', message: 'Required value' });
    expect(containerCauses.map((cause) => cause.field)).toContain('spec.template.spec.containers[0].name');

    expect(await causesOf('POST', deployments, deployment('bad', { minReadySeconds: -1 }))).toContainEqual({ field: 'spec.minReadySeconds', message: 'Invalid value: -1: must be greater than or equal to 0' });
    expect(await causesOf('POST', deployments, deployment('bad', { minReadySeconds: 700 }))).toContainEqual({ field: 'spec.progressDeadlineSeconds', message: 'Invalid value: 600: must be greater than minReadySeconds' });
    expect(await causesOf('POST', deployments, deployment('bad', { strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } } })))
      .toContainEqual({ field: 'spec.strategy.rollingUpdate.maxUnavailable', message: 'Invalid value: 0: may not be 0 when `maxSurge` is 0' });
    expect(await causesOf('POST', deployments, deployment('bad', { strategy: { rollingUpdate: { maxUnavailable: '110%' } } })))
      .toContainEqual({ field: 'spec.strategy.rollingUpdate.maxUnavailable', message: 'Invalid value: "110%": must not be greater than 100%' });
    const badPercent = await causesOf('POST', deployments, deployment('bad', { strategy: { rollingUpdate: { maxSurge: '20Percent' } } }));
    expect(badPercent[0]?.field).toBe('spec.strategy.rollingUpdate.maxSurge');
    expect(badPercent[0]?.message).toContain('a valid percent string must be a numeric string followed by an ending \'%\'');
    expect(await causesOf('POST', deployments, deployment('bad', { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } })))
      .toContainEqual({ field: 'spec.strategy.rollingUpdate', message: "Forbidden: may not be specified when strategy `type` is 'Recreate'" });
  });

  it('keep the selector immutable', async () => {
    const created = await create(deployment('web'));
    created.spec.selector = { matchLabels: { app: 'web', tier: 'x' } };
    created.spec.template.metadata.labels = { app: 'web', tier: 'x' };
    const causes = await causesOf('PUT', `${deployments}/web`, created);
    expect(causes).toEqual([{ field: 'spec.selector', message: 'Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable' }]);
  });

  it('print kube\'s deployment columns', async () => {
    await create(deployment('web', { replicas: 3 }));
    await harness.request('PUT', `${deployments}/web/status`, { ...((await harness.request('GET', `${deployments}/web`)).json() as Json), status: { replicas: 3, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1 } });
    const response = await harness.request('GET', deployments, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(response.statusCode, response.body).toBe(200);
    const table = response.json();
    expect(table.columnDefinitions.map((column: Json) => [column.name, column.priority])).toEqual([
      ['Name', 0], ['Ready', 0], ['Up-to-date', 0], ['Available', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1],
    ]);
    expect(table.rows[0].cells.slice(0, 4)).toEqual(['web', '1/3', 2, 1]);
    expect(table.rows[0].cells.slice(5)).toEqual(['nginx', 'nginx', 'app=web']);
  });

  it('serve an autoscaling/v1 Scale: GET shows the replicas and selector, PUT and PATCH change spec.replicas only', async () => {
    await create(deployment('web', { replicas: 2, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] } }));
    const got = await harness.request('GET', `${deployments}/web/scale`);
    expect(got.statusCode, got.body).toBe(200);
    const scale = got.json();
    expect(scale).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 't' }, spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=web,tier notin (db)' } });
    const put = await harness.request('PUT', `${deployments}/web/scale`, { ...scale, spec: { replicas: 4 } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ kind: 'Scale', spec: { replicas: 4 } });
    const stale = await harness.request('PUT', `${deployments}/web/scale`, { ...scale, spec: { replicas: 5 } });
    expect(stale.statusCode).toBe(409);
    const patch = await harness.request('PATCH', `${deployments}/web/scale`, { spec: { replicas: 6 } }, { 'content-type': 'application/merge-patch+json' });
    expect(patch.statusCode, patch.body).toBe(200);
    const stored = (await harness.request('GET', `${deployments}/web`)).json();
    expect(stored.spec.replicas).toBe(6);
    expect(stored.metadata.generation).toBe(3);
    expect(stored.metadata.managedFields.map((entry: Json) => entry.subresource ?? '')).toContain('scale');
    const negative = await harness.request('PATCH', `${deployments}/web/scale`, { spec: { replicas: -1 } }, { 'content-type': 'application/merge-patch+json' });
    expect(negative.statusCode).toBe(422);
    expect(negative.json().details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' }]);
    const pb = await harness.request('GET', `${deployments}/web/scale`, undefined, { accept: protobuf });
    expect(pb.headers['content-type']).toBe(protobuf);
    expect(decodeProtobufObject(pb.rawPayload)).toMatchObject({ kind: 'Scale', spec: { replicas: 6 }, status: { selector: 'app=web,tier notin (db)' } });
    expect((await harness.request('GET', `${deployments}/missing/scale`)).statusCode).toBe(404);
  });

  it('round-trip through protobuf', async () => {
    const object = deployment('pb', { strategy: { rollingUpdate: { maxSurge: 2, maxUnavailable: '50%' } } });
    const created = await harness.app.inject({
      method: 'POST', url: deployments, payload: encodeProtobufObject(object),
      headers: { ...admin, 'content-type': protobuf, accept: protobuf },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['content-type']).toBe(protobuf);
    const decoded = decodeProtobufObject(created.rawPayload) as Json;
    expect(decoded).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'pb', generation: 1 } });
    expect(decoded.spec.strategy.rollingUpdate).toEqual({ maxSurge: 2, maxUnavailable: '50%' });
    const json = (await harness.request('GET', `${deployments}/pb`)).json();
    const pb = await harness.request('GET', `${deployments}/pb`, undefined, { accept: protobuf });
    expect(decodeProtobufObject(pb.rawPayload)).toEqual(json);
    const list = await harness.request('GET', deployments, undefined, { accept: protobuf });
    expect((decodeProtobufObject(list.rawPayload) as Json).items[0]).toMatchObject({ metadata: { name: 'pb' } });
  });
});
