// resource.Quantity fields of built-in kinds are decoded as kube-apiserver decodes them: a value
// that is not a quantity fails the write (400 for a body, 422 on "patch" for a patch's result)
// with apimachinery's message and stores nothing; a valid one is stored and returned in its
// canonical form, wherever the schema places a Quantity (container resources, a pod's overhead,
// a PVC's requests, a quota's hard limits); and a quantity with a huge exponent stays short and
// cheap instead of being written out digit by digit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function pod(name: string, resources: unknown): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i', resources }] } };
}

describe('resource.Quantity at decode', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startHarness();
    expect((await harness.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'q' } })).statusCode).toBe(201);
    // No controller runs here to create the namespace's default service account, which pods need.
    expect((await harness.request('POST', '/api/v1/namespaces/q/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } })).statusCode).toBe(201);
  });
  afterEach(async () => { await harness.close(); });

  it('stores and returns canonical quantities', async () => {
    const created = await harness.request('POST', '/api/v1/namespaces/q/pods', pod('canonical', {
      limits: { cpu: 0.5, memory: '1024Mi', 'example.com/widgets': '1000m' },
      requests: { cpu: ' 100m ', memory: '1.5Gi', 'example.com/widgets': '2000m' },
    }));
    expect(created.statusCode).toBe(201);
    const expected = { limits: { cpu: '500m', memory: '1Gi', 'example.com/widgets': '1' }, requests: { cpu: '100m', memory: '1536Mi', 'example.com/widgets': '2' } };
    expect(created.json().spec.containers[0].resources).toEqual(expected);
    const read = await harness.request('GET', '/api/v1/namespaces/q/pods/canonical');
    expect(read.json().spec.containers[0].resources).toEqual(expected);
  });

  it('refuses a body whose quantity does not parse, with apimachinery\'s message, and stores nothing', async () => {
    for (const [value, message] of [['abc', formatWrong], ['1e', "unable to parse quantity's suffix"], [true, formatWrong], [{ n: 1 }, formatWrong], ['', formatWrong]] as const) {
      const response = await harness.request('POST', '/api/v1/namespaces/q/pods', pod('bad', { limits: { cpu: value } }));
      expect(response.statusCode, JSON.stringify(value)).toBe(400);
      expect(response.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: `Pod in version "v1" cannot be handled as a Pod: ${message}` });
    }
    expect((await harness.request('GET', '/api/v1/namespaces/q/pods/bad')).statusCode).toBe(404);
  });

  it('checks quantities deep in other kinds: a pod template, a PVC, a quota', async () => {
    const deployment = await harness.request('POST', '/apis/apps/v1/namespaces/q/deployments', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: 'lots' } } }] } } },
    });
    expect(deployment.statusCode).toBe(400);
    expect(deployment.json().message).toBe(`Deployment in version "v1" cannot be handled as a Deployment: ${formatWrong}`);
    const claim = await harness.request('POST', '/api/v1/namespaces/q/persistentvolumeclaims', {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2048Mi' } } },
    });
    expect(claim.statusCode).toBe(201);
    expect(claim.json().spec.resources.requests.storage).toBe('2Gi');
    const quota = await harness.request('POST', '/api/v1/namespaces/q/resourcequotas', {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'r' }, spec: { hard: { 'requests.cpu': 'x1' } },
    });
    expect(quota.statusCode).toBe(400);
    expect(quota.json().message).toBe(`ResourceQuota in version "v1" cannot be handled as a ResourceQuota: ${formatWrong}`);
  });

  it('keeps a huge exponent short: no value is written out digit by digit', async () => {
    const started = performance.now();
    const response = await harness.request('POST', '/api/v1/namespaces/q/persistentvolumeclaims', {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'huge' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1e999999999' } } },
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(response.statusCode).toBe(201);
    expect(JSON.stringify(response.json().spec.resources.requests).length).toBeLessThan(60);
  });

  it('reports a patch that produces a bad quantity on "patch" (422) and leaves the object as it was', async () => {
    expect((await harness.request('POST', '/api/v1/namespaces/q/pods', pod('patched', { limits: { cpu: '1' } }))).statusCode).toBe(201);
    const patched = await harness.request('PATCH', '/api/v1/namespaces/q/pods/patched', [{ op: 'replace', path: '/spec/containers/0/resources/limits/cpu', value: 'one' }],
      { 'content-type': 'application/json-patch+json' });
    expect(patched.statusCode).toBe(422);
    const status = patched.json();
    expect(status.reason).toBe('Invalid');
    expect(status.details.causes[0].field).toBe('patch');
    // The cause carries the patched object as JSON text (escaped inside the message).
    expect(status.details.causes[0].message).toContain('\\"cpu\\":\\"one\\"');
    expect(status.details.causes[0].message).toContain(formatWrong);
    const read = await harness.request('GET', '/api/v1/namespaces/q/pods/patched');
    expect(read.json().spec.containers[0].resources.limits.cpu).toBe('1');
    const merged = await harness.request('PATCH', '/api/v1/namespaces/q/pods/patched', { metadata: { labels: { a: 'b' } } },
      { 'content-type': 'application/merge-patch+json' });
    expect(merged.statusCode).toBe(200);
  });
});
