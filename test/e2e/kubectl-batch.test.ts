// End-to-end: batch/v1 Jobs and CronJobs, autoscaling HorizontalPodAutoscalers (one object in
// v2 and v1) and policy/v1 PodDisruptionBudgets through the real kubectl against one kstore
// server: `api-resources`, `create job`, `create cronjob --schedule` (and kube's refusal of a
// bad schedule), `autoscale deployment`, `get hpa` in both versions, `create pdb
// --min-available`, and an eviction the budget refuses (`kubectl drain`). No controller acts on
// these objects: their status stays as stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;
const ns = 'batch';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-batch-', ns);
});

afterAll(async () => {
  await fixture?.stop();
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function getJson(args: readonly string[]): Promise<Json> {
  return JSON.parse(await ok([...args, '-n', ns, '-o', 'json'])) as Json;
}

describe('kubectl with jobs, cronjobs, horizontalpodautoscalers and poddisruptionbudgets', () => {
  it('kubectl api-resources lists the kinds with kube\'s short names', async () => {
    const rows = parseTable(await ok(['api-resources'])).rows;
    expect(rows).toContainEqual({ NAME: 'jobs', SHORTNAMES: '', APIVERSION: 'batch/v1', NAMESPACED: 'true', KIND: 'Job' });
    expect(rows).toContainEqual({ NAME: 'cronjobs', SHORTNAMES: 'cj', APIVERSION: 'batch/v1', NAMESPACED: 'true', KIND: 'CronJob' });
    expect(rows).toContainEqual({ NAME: 'horizontalpodautoscalers', SHORTNAMES: 'hpa', APIVERSION: 'autoscaling/v2', NAMESPACED: 'true', KIND: 'HorizontalPodAutoscaler' });
    expect(rows).toContainEqual({ NAME: 'poddisruptionbudgets', SHORTNAMES: 'pdb', APIVERSION: 'policy/v1', NAMESPACED: 'true', KIND: 'PodDisruptionBudget' });
  });

  it('kubectl create job makes a defaulted Job with the generated selector, printed with kube\'s columns', async () => {
    expect(await ok(['create', 'job', 'pi', '--image=busybox', '-n', ns, '--', 'echo', 'hi'])).toContain('job.batch/pi created');
    const table = parseTable(await ok(['get', 'jobs', '-n', ns]));
    expect(table.headers).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(table.rows[0]).toMatchObject({ NAME: 'pi', STATUS: 'Running', COMPLETIONS: '0/1', DURATION: '' });
    const job = await getJson(['get', 'job', 'pi']);
    const uid = job['metadata'].uid as string;
    expect(job['spec']).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } } });
    expect(job['spec'].template.metadata.labels).toMatchObject({ 'job-name': 'pi', 'controller-uid': uid });
    expect(job['spec'].template.spec.restartPolicy).toBe('Never');
    const wide = parseTable(await ok(['get', 'job', 'pi', '-n', ns, '-o', 'wide']));
    expect(wide.headers).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(wide.rows[0]).toMatchObject({ CONTAINERS: 'pi', IMAGES: 'busybox', SELECTOR: `batch.kubernetes.io/controller-uid=${uid}` });
  });

  it('kubectl create cronjob --schedule makes a defaulted CronJob; kube\'s message refuses a bad schedule', async () => {
    expect(await ok(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *', '-n', ns])).toContain('cronjob.batch/tick created');
    const lines = (await ok(['get', 'cj', '-n', ns])).split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/);
    expect(lines[1]).toMatch(/^tick\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+$/);
    const cronJob = await getJson(['get', 'cronjob', 'tick']);
    expect(cronJob['spec']).toMatchObject({ schedule: '*/5 * * * *', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(cronJob['spec'].jobTemplate.spec.template.spec.restartPolicy).toBe('OnFailure');
    const bad = await fixture!.kubectl.run(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=61 * * * *', '-n', ns]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61');
  });

  it('kubectl autoscale deployment makes an HPA that get shows in autoscaling/v2 and autoscaling/v1', async () => {
    await ok(['create', 'deployment', 'web', '--image=nginx', '-n', ns]);
    expect(await ok(['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=60', '-n', ns])).toContain('horizontalpodautoscaler.autoscaling/web autoscaled');
    const table = parseTable(await ok(['get', 'hpa', '-n', ns]));
    expect(table.headers).toEqual(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    expect(table.rows[0]).toMatchObject({ NAME: 'web', REFERENCE: 'Deployment/web', TARGETS: 'cpu: <unknown>/60%', MINPODS: '2', MAXPODS: '5', REPLICAS: '0' });
    const asV2 = await getJson(['get', 'horizontalpodautoscalers.v2.autoscaling', 'web']);
    expect(asV2['apiVersion']).toBe('autoscaling/v2');
    expect(asV2['spec'].metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    const asV1 = await getJson(['get', 'horizontalpodautoscalers.v1.autoscaling', 'web']);
    expect(asV1['apiVersion']).toBe('autoscaling/v1');
    expect(asV1['spec']).toEqual({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
    const v1Table = parseTable(await ok(['get', 'horizontalpodautoscalers.v1.autoscaling', '-n', ns]));
    expect(v1Table.rows[0]).toMatchObject({ NAME: 'web', TARGETS: 'cpu: <unknown>/60%' });
  });

  it('kubectl create pdb --min-available makes a budget; an eviction it forbids is refused with kube\'s message', async () => {
    expect(await ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1', '-n', ns])).toContain('poddisruptionbudget.policy/web created');
    const text = await ok(['get', 'pdb', '-n', ns]);
    expect(text.split('\n')[0]).toMatch(/^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/);
    expect(text.split('\n')[1]).toMatch(/^web\s+1\s+N\/A\s+0\s+\S+$/);
    const budget = await getJson(['get', 'pdb', 'web']);
    expect(budget['status']).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    // A running, ready pod on a node, guarded by the budget, whose status says (as the
    // disruption controller would) that no disruption is allowed: kube's eviction refuses, and
    // kubectl drain reports it and retries until its timeout.
    await ok(['replace', '--subresource=status', '-f', '-'], JSON.stringify({ ...budget, status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } }));
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
    await ok(['run', 'guarded', '--image=nginx', '--labels=app=web', '-n', ns, '--overrides={"spec":{"nodeName":"n1"}}']);
    const pod = await getJson(['get', 'pod', 'guarded']);
    const status = { ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
    await ok(['replace', '--subresource=status', '-f', '-'], JSON.stringify(status));
    const drain = await fixture!.kubectl.run(['drain', 'n1', '--pod-selector=app=web', '--force', '--timeout=1s']);
    expect(drain.code).not.toBe(0);
    expect(drain.stderr).toContain(`error when evicting pods/"guarded" -n "${ns}" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`);
    expect(drain.stderr).toContain('global timeout reached: 1s');
    const still = await getJson(['get', 'pod', 'guarded']);
    expect(still['metadata'].deletionTimestamp).toBeUndefined();
  });

  it('kubectl delete removes them all', async () => {
    await ok(['delete', 'job', 'pi', '-n', ns]);
    await ok(['delete', 'cronjob', 'tick', '-n', ns]);
    await ok(['delete', 'hpa', 'web', '-n', ns]);
    await ok(['delete', 'pdb', 'web', '-n', ns]);
    expect(await ok(['get', 'jobs,cronjobs,hpa,pdb', '-n', ns, '-o', 'name'])).toBe('');
  });
});
