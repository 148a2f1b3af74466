// Values of built-in kinds whose Go types decode their own JSON are decoded as kube-apiserver
// decodes them. resource.Quantity: a value that is not a quantity fails the write (400 for a
// body, 422 on "patch" for a patch's result) with apimachinery's message and stores nothing; a
// valid one is stored and returned in its canonical form, wherever the schema places a Quantity
// (container resources, a PVC's requests, a quota's hard limits); a huge exponent stays short
// and cheap instead of being written out digit by digit. metav1.Time and MicroTime: stored in
// UTC to the second or microsecond whatever offset and fraction the client wrote; a timestamp
// Go's parser refuses, or a number where a timestamp goes, fails with Go's message.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function pod(name: string, resources: unknown): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i', resources }] } };
}

describe('self-decoding values at decode', () => {
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

  it('stores timestamps in UTC to the second (Time) and to the microsecond (MicroTime)', async () => {
    const created = await harness.request('POST', '/api/v1/namespaces/q/events', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'q' }, reason: 'R', message: 'm',
      firstTimestamp: '2026-01-01T01:00:00.123+01:00', lastTimestamp: '2026-01-01T00:00:05,9Z', count: 1, type: 'Normal', source: { component: 'c' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:05Z' });
    const read = await harness.request('GET', '/api/v1/namespaces/q/events/e');
    expect(read.json()).toMatchObject({ firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:05Z' });
    const lease = await harness.request('POST', '/apis/coordination.k8s.io/v1/namespaces/q/leases', {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'a', renewTime: '2026-01-01T02:00:00.000001+02:00' },
    });
    expect(lease.statusCode, lease.body).toBe(201);
    expect(lease.json().spec.renewTime).toBe('2026-01-01T00:00:00.000001Z');
  });

  it('refuses a timestamp Go cannot parse, or a number for one, with Go\'s message', async () => {
    const event = (extra: Record<string, unknown>) => ({
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'bad' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'q' }, reason: 'R', message: 'm', ...extra,
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ firstTimestamp: '2026-02-30T00:00:00Z' }, 'parsing time "2026-02-30T00:00:00Z": day out of range'],
      [{ lastTimestamp: 'now' }, 'parsing time "now" as "2006-01-02T15:04:05Z07:00": cannot parse "now" as "2006"'],
      [{ firstTimestamp: 1_767_225_600 }, 'json: cannot unmarshal number into Go struct field Event.firstTimestamp of type string'],
      [{ metadata: { name: 'bad', creationTimestamp: true } }, 'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.creationTimestamp of type string'],
      [{ eventTime: '2026-01-01T00:00:00Z' }, 'parsing time "2026-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'],
    ];
    for (const [extra, message] of cases) {
      const response = await harness.request('POST', '/api/v1/namespaces/q/events', event(extra));
      expect(response.statusCode, JSON.stringify(extra)).toBe(400);
      expect(response.json().message).toBe(`Event in version "v1" cannot be handled as a Event: ${message}`);
    }
    expect((await harness.request('GET', '/api/v1/namespaces/q/events/bad')).statusCode).toBe(404);
  });
});
