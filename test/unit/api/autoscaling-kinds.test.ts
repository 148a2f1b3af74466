// HorizontalPodAutoscalers through the API: one stored object (autoscaling/v2) served in both
// autoscaling/v2 and autoscaling/v1. The v2 defaults, the v1 view (targetCPUUtilizationPercentage
// and the autoscaling.alpha.kubernetes.io annotations for what v1 cannot express, dropped again
// when a v1 object is written back), status reset on create and kept on writes to the main
// resource, kube's validation messages, the printer columns in both versions and watch events
// converted for each version.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { behaviorAnnotation, conditionsAnnotation, hpaV1ToV2, hpaV2ToV1, metricSpecsAnnotation, metricStatusesAnnotation } from '../../../api/registry/hpa-conversion.ts';
import type { KubeObject } from '../../../actors/index.ts';
import { admin, createdObject, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const v2 = '/apis/autoscaling/v2/namespaces/t/horizontalpodautoscalers';
const v1 = '/apis/autoscaling/v1/namespaces/t/horizontalpodautoscalers';
const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

function hpaV2(name: string, spec: Json = {}): Json {
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name }, spec: { scaleTargetRef: target, maxReplicas: 5, ...spec } };
}

function hpaV1(name: string, spec: Json = {}): Json {
  return { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name }, spec: { scaleTargetRef: target, maxReplicas: 5, ...spec } };
}

const create = (url: string, object: Json): Promise<Json> => createdObject<Json>(harness, url, object);

const memoryMetric = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } };
const cpuMetric = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } };

describe('horizontalpodautoscalers', () => {
  it('are created in v2 with the v2 defaults and a reset status, and have no generation (kube\'s HPA strategy sets none)', async () => {
    const created = await create(v2, { ...hpaV2('web', { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }), status: { currentReplicas: 3 } });
    expect(created.spec.minReplicas).toBe(1);
    expect(created.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    expect(created.spec.behavior).toEqual({
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    expect(created.status).toEqual({ desiredReplicas: 0 });
    expect(created.metadata.generation).toBeUndefined();
  });

  it('are one object in both versions: v1 shows the cpu target and keeps what it cannot express in annotations', async () => {
    const created = await create(v2, hpaV2('web', { metrics: [memoryMetric, cpuMetric], behavior: { scaleUp: { selectPolicy: 'Disabled' } } }));
    const read = await harness.request('GET', `${v1}/web`);
    expect(read.statusCode, read.body).toBe(200);
    const asV1 = read.json();
    expect(asV1.apiVersion).toBe('autoscaling/v1');
    expect(asV1.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(asV1.spec).toEqual({ scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
    expect(asV1.status).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
    expect(JSON.parse(asV1.metadata.annotations[metricSpecsAnnotation] as string)).toEqual([{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } }]);
    expect(JSON.parse(asV1.metadata.annotations[behaviorAnnotation] as string)).toMatchObject({ ScaleUp: { SelectPolicy: 'Disabled' }, ScaleDown: { SelectPolicy: 'Max' } });
    // A v1 client writing the object back loses nothing; the v2 form has no annotations of v1's.
    asV1.spec.maxReplicas = 7;
    const written = await harness.request('PUT', `${v1}/web`, asV1);
    expect(written.statusCode, written.body).toBe(200);
    const back = (await harness.request('GET', `${v2}/web`)).json();
    expect(back.spec.maxReplicas).toBe(7);
    expect(back.spec.metrics).toEqual([memoryMetric, cpuMetric]);
    expect(back.spec.behavior.scaleUp.selectPolicy).toBe('Disabled');
    expect(back.metadata.annotations).toBeUndefined();
  });

  it('created through v1 get the cpu target as a v2 metric, or kube\'s 80% default without one', async () => {
    const created = await create(v1, { ...hpaV1('cpu', { targetCPUUtilizationPercentage: 50 }), status: { currentReplicas: 2 } });
    expect(created.spec).toEqual({ scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 50 });
    expect(created.status).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
    const stored = (await harness.request('GET', `${v2}/cpu`)).json();
    expect(stored.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    await create(v1, hpaV1('plain'));
    const plain = (await harness.request('GET', `${v2}/plain`)).json();
    expect(plain.spec.metrics[0].resource.target.averageUtilization).toBe(80);
    expect((await harness.request('GET', `${v1}/plain`)).json().spec.targetCPUUtilizationPercentage).toBe(80);
  });

  it('keep the stored status on a write to the main resource, in either version; the v1 status annotations come from storage', async () => {
    const created = await create(v2, hpaV2('web'));
    const status = {
      currentReplicas: 2, desiredReplicas: 3,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 90, averageValue: '450m' } } }],
      conditions: [{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', lastTransitionTime: '2024-01-01T00:00:00Z' }],
    };
    const statusWrite = await harness.request('PUT', `${v2}/web/status`, { ...created, status });
    expect(statusWrite.statusCode, statusWrite.body).toBe(200);
    const asV1 = (await harness.request('GET', `${v1}/web`)).json();
    expect(asV1.status).toEqual({ currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 90 });
    expect(JSON.parse(asV1.metadata.annotations[conditionsAnnotation] as string)).toEqual(status.conditions);
    expect(JSON.parse(asV1.metadata.annotations[metricStatusesAnnotation] as string)).toEqual([{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 90, currentAverageValue: '450m' } }]);
    // A v1 client that drops the annotations and sends a status changes neither.
    const { annotations: _dropped, ...metadata } = asV1.metadata;
    const put = await harness.request('PUT', `${v1}/web`, { ...asV1, metadata, status: { currentReplicas: 9, desiredReplicas: 9 } });
    expect(put.statusCode, put.body).toBe(200);
    const stored = (await harness.request('GET', `${v2}/web`)).json();
    expect(stored.status).toEqual(status);
  });

  it('refuse what kube\'s validation refuses', async () => {
    const bounds = await harness.request('POST', v2, hpaV2('bounds', { minReplicas: 4, maxReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: '' } }));
    expect(bounds.statusCode).toBe(422);
    expect(bounds.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 2: must be greater than or equal to `minReplicas`', field: 'spec.maxReplicas' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.scaleTargetRef.name' },
    ]);
    const zero = await harness.request('POST', v1, hpaV1('zero', { minReplicas: 0, maxReplicas: 0 }));
    expect(zero.statusCode).toBe(422);
    expect(zero.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than or equal to 1', field: 'spec.minReplicas' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.maxReplicas' },
    ]);
    const metric = await harness.request('POST', v2, hpaV2('metric', { metrics: [{ type: 'Pods' }], behavior: { scaleUp: { policies: [] } } }));
    expect(metric.statusCode).toBe(422);
    expect(metric.json().details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: must populate information for the given metric source', field: 'spec.metrics[0].pods' },
      { reason: 'FieldValueRequired', message: 'Required value: must specify at least one Policy', field: 'spec.behavior.scaleUp.policies' },
    ]);
  });

  it('print kube\'s HPA columns in both versions', async () => {
    // The cpu utilization metric last: the place a v1 write puts it, so both views list alike.
    await create(v2, hpaV2('web', { metrics: [memoryMetric, { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }, cpuMetric] }));
    for (const url of [v2, v1]) {
      const response = await harness.request('GET', url, undefined, tableAccept);
      expect(response.statusCode, response.body).toBe(200);
      const table = response.json();
      expect(table.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
      expect(table.rows[0].cells.slice(0, 6)).toEqual(['web', 'Deployment/web', 'memory: <unknown>/500Mi, <unknown>/10 + 1 more...', '1', 5, 0]);
    }
  });
});

describe('watching horizontalpodautoscalers', () => {
  let baseUrl: string;
  beforeEach(async () => {
    baseUrl = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterEach(() => {
    // The aborted watch's socket carries nothing more; closing it spares the shutdown grace.
    harness.app.server.closeAllConnections();
  });

  /** The first watch event of `path`, read from the stream as it arrives. */
  async function firstEvent(path: string, afterOpen: () => Promise<void>): Promise<Json> {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}${path}`, { headers: admin, signal: controller.signal });
    expect(response.status).toBe(200);
    await afterOpen();
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    while (!buffer.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`watch ended; buffered: ${buffer}`);
      buffer += value;
    }
    controller.abort();
    return JSON.parse(buffer.slice(0, buffer.indexOf('\n'))) as Json;
  }

  it('send each watcher the events in its own version', async () => {
    const asV1 = await firstEvent(`${v1}?watch=1`, async () => { await create(v2, hpaV2('watched', { metrics: [cpuMetric] })); });
    expect(asV1['type']).toBe('ADDED');
    expect(asV1['object']).toMatchObject({ apiVersion: 'autoscaling/v1', metadata: { name: 'watched' }, spec: { targetCPUUtilizationPercentage: 60 } });
    const since = asV1['object'].metadata.resourceVersion as string;
    const asV2 = await firstEvent(`${v2}?watch=1&resourceVersion=${since}`, async () => { await harness.request('DELETE', `${v1}/watched`); });
    expect(asV2['type']).toBe('DELETED');
    expect(asV2['object']).toMatchObject({ apiVersion: 'autoscaling/v2', spec: { metrics: [cpuMetric] } });
  });
});

describe('the HPA conversion', () => {
  it('round-trips every metric source through the v1 annotations', () => {
    const metrics = [
      { type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'rps' }, target: { type: 'Value', value: '10k' } } },
      { type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '1k' } } },
      { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 70 } } },
      { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
      memoryMetric,
    ];
    const stored = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x', annotations: { keep: 'me' } }, spec: { scaleTargetRef: target, minReplicas: 2, maxReplicas: 9, metrics } } as unknown as KubeObject;
    const asV1 = hpaV2ToV1(stored) as unknown as Json;
    expect(asV1.spec.targetCPUUtilizationPercentage).toBeUndefined();
    expect(asV1.metadata.annotations.keep).toBe('me');
    const back = hpaV1ToV2(asV1 as unknown as KubeObject) as unknown as Json;
    expect(back.spec.metrics).toEqual(metrics);
    expect(back.metadata.annotations).toEqual({ keep: 'me' });
  });
});
