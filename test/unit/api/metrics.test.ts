// /metrics: Prometheus text with kube-apiserver's request metrics labelled by verb, resource
// and code, the watch gauges, and gauges supplied by the caller; behind authentication.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
});
