// /metrics: Prometheus text with kube-apiserver's request metrics labelled by verb, resource
// and code, the watch gauges, and gauges supplied by the caller; behind authentication.
import { Counter, Histogram, Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiMetrics } from '../../../api/metrics.ts';
import type { RequestLabelValues } from '../../../api/metrics.ts';
import { configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

describe('/metrics', () => {
  it('counts requests by verb, resource and code, and exposes the store revision', async () => {
    await harness.request('POST', '/api/v1/namespaces/t/configmaps', configMap('c'));
    await harness.request('GET', '/api/v1/namespaces/t/configmaps/missing');
    const applied = await harness.request('PATCH', '/api/v1/namespaces/t/configmaps/applied?fieldManager=me', configMap('applied'), { 'content-type': 'application/apply-patch+yaml' });
    expect(applied.statusCode, applied.body).toBe(201);
    const response = await harness.request('GET', '/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.body).toMatch(/apiserver_request_total\{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="201"\} 1/);
    expect(response.body).toMatch(/apiserver_request_total\{verb="GET",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="404"\} 1/);
    // A server-side apply counts as APPLY, as kube's CleanVerb has it.
    expect(response.body).toMatch(/apiserver_request_total\{verb="APPLY",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="201"\} 1/);
    expect(response.body).toMatch(/apiserver_request_duration_seconds_bucket\{le="0.005",verb="POST"/);
    expect(response.body).toContain(`kstore_store_revision ${harness.backend.currentRevision()}`);
    expect(response.body).toContain('kstore_watchers 0');
  });

  it('needs credentials like every other path', async () => {
    expect((await harness.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
  });

  it('exposes the request series exactly as prom-client\'s Counter and Histogram would (text and JSON)', async () => {
    const metrics = new ApiMetrics();
    const reference = new Registry();
    const labelNames = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
    const requests = new Counter({ name: 'apiserver_request_total', help: 'h', labelNames: [...labelNames, 'code'], registers: [reference] });
    const durations = new Histogram({
      name: 'apiserver_request_duration_seconds', help: 'h', labelNames, registers: [reference],
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    });
    const seen: [RequestLabelValues, number][] = [
      [{ verb: 'POST', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', code: 201 }, 0.003],
      [{ verb: 'POST', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', code: 201 }, 0.005],
      [{ verb: 'POST', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', code: 409 }, 0.3],
      [{ verb: 'GET', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'status', scope: 'resource', code: 404 }, 75],
      [{ verb: 'WATCH', group: '', version: 'v1', resource: 'pods', subresource: '', scope: 'cluster', code: 200 }, 12],
      [{ verb: 'GET', group: '', version: '', resource: '', subresource: '', scope: '', code: 200 }, 0.0001],
    ];
    for (const [labels, seconds] of seen) {
      metrics.recordRequest(labels, seconds);
      const { code, ...rest } = labels;
      const common = { ...rest, component: 'apiserver' };
      requests.inc({ ...common, code: String(code) });
      if (labels.verb !== 'WATCH') durations.observe(common, seconds);
    }
    for (const name of ['apiserver_request_total', 'apiserver_request_duration_seconds']) {
      const ours = (await metrics.registry.getSingleMetricAsString(name)).replace(/^# HELP .*$/m, '');
      expect(ours).toBe((await reference.getSingleMetricAsString(name)).replace(/^# HELP .*$/m, ''));
    }
    const json = (await metrics.registry.getMetricsAsJSON()).filter((metric) => metric.name.startsWith('apiserver_request'));
    const referenceJson = await reference.getMetricsAsJSON();
    expect(json.map((metric) => ({ ...metric, help: '' }))).toEqual(referenceJson.map((metric) => ({ ...metric, help: '' })));
  });
});
