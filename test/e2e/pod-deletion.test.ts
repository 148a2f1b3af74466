// End-to-end: graceful pod deletion with the real kubectl against one `kstore server` (HTTPS).
// A bound pod deleted with `--wait=false` stays Terminating with deletionGracePeriodSeconds (no
// kubelet stops it), a later delete may only shorten the period, `--grace-period=0 --force`
// removes it, a watch sees MODIFIED then DELETED; an unbound pod goes at once; the lifecycle
// inspector shows the terminating state; deleting the node lets PodGC (kube's
// pod-garbage-collector-controller, 40 s quarantine) remove its pods. Waits are conditions with
// deadlines, never sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { Kubectl } from '../support/kubectl.ts';
import type { KubectlResult } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { waitFor } from '../support/wait-for.ts';

let fixture: KubectlServer | undefined;
let kubectl: Kubectl;
const ns = 'graceful';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-pod-deletion-', ns);
  kubectl = fixture.kubectl;
  await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
}, 60_000);

afterAll(async () => {
  await fixture?.stop();
});

function diagnostics(args: readonly string[], result: KubectlResult): string {
  return fixture!.diagnostics(args, result);
}

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

async function createPod(name: string, nodeName?: string): Promise<void> {
  const spec = { ...(nodeName === undefined ? {} : { nodeName }), containers: [{ name: 'c', image: 'busybox' }] };
  await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec }));
}

async function podStatus(name: string): Promise<string | undefined> {
  const result = await kubectl.run(['get', 'pod', name, '-n', ns]);
  return result.code === 0 ? parseTable(result.stdout).rows[0]?.['STATUS'] : undefined;
}

async function gone(name: string): Promise<boolean> {
  const result = await kubectl.run(['get', 'pod', name, '-n', ns, '-o', 'name']);
  return result.code !== 0 && result.stderr.includes('NotFound');
}

describe('graceful pod deletion with kubectl', () => {
  it('delete --wait=false leaves a bound pod Terminating; --grace-period=0 --force removes it; a watch sees MODIFIED then DELETED', async () => {
    await createPod('web', 'n1');
    const watch = kubectl.start(['get', 'pod', 'web', '-n', ns, '--watch', '--output-watch-events']);
    await waitFor(() => watch.stdout().includes('ADDED'), { timeoutMs: 20_000, description: 'the watch to list the pod', diagnostics: watch.stdout });

    expect(await ok(['delete', 'pod', 'web', '-n', ns, '--wait=false'])).toContain('pod "web" deleted');
    expect(await podStatus('web')).toBe('Terminating');
    const grace = await ok(['get', 'pod', 'web', '-n', ns, '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds} {.metadata.deletionTimestamp}']);
    const [seconds, timestamp] = grace.split(' ');
    expect(seconds).toBe('30');
    expect(Date.parse(timestamp ?? '') - Date.now()).toBeGreaterThan(15_000);
    await waitFor(() => /MODIFIED\s+web\s+\S+\s+Terminating/.test(watch.stdout()), { timeoutMs: 20_000, description: 'MODIFIED Terminating in the watch', diagnostics: watch.stdout });

    // The lifecycle inspector's view of it (the API `kstore inspect` and the console read).
    const lifecycle = JSON.parse(await ok(['get', '--raw', `/api/v1/namespaces/${ns}/pods/web/lifecycle`])) as { machines: { state: string; waitingFor: string }[] };
    expect(lifecycle.machines[0]).toMatchObject({ state: 'terminating' });
    expect(lifecycle.machines[0]?.waitingFor).toContain('the kubelet on node n1');

    const forced = await kubectl.run(['delete', 'pod', 'web', '-n', ns, '--grace-period=0', '--force']);
    expect(forced.code, diagnostics(['delete', '--force'], forced)).toBe(0);
    expect(forced.stdout).toContain('pod "web" force deleted');
    expect(await gone('web')).toBe(true);
    await waitFor(() => /DELETED\s+web/.test(watch.stdout()), { timeoutMs: 20_000, description: 'DELETED in the watch', diagnostics: watch.stdout });
    const events = watch.stdout().split('\n').map((line) => line.split(/\s+/)[0]).filter((word) => word === 'ADDED' || word === 'MODIFIED' || word === 'DELETED');
    expect(events).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    await watch.stop();
  });

  it('a later delete shortens the grace period but never lengthens it', async () => {
    await createPod('slow', 'n1');
    await ok(['delete', 'pod', 'slow', '-n', ns, '--grace-period=120', '--wait=false']);
    const period = () => ok(['get', 'pod', 'slow', '-n', ns, '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}']);
    expect(await period()).toBe('120');
    await ok(['delete', 'pod', 'slow', '-n', ns, '--grace-period=10', '--wait=false']);
    expect(await period()).toBe('10');
    await ok(['delete', 'pod', 'slow', '-n', ns, '--grace-period=60', '--wait=false']);
    expect(await period()).toBe('10');
    await ok(['delete', 'pod', 'slow', '-n', ns, '--grace-period=0', '--force']);
    expect(await gone('slow')).toBe(true);
  });

  it('an unbound pod is deleted at once (kubectl delete waits and returns)', async () => {
    await createPod('pending');
    expect(await ok(['delete', 'pod', 'pending', '-n', ns, '--timeout=20s'])).toContain('pod "pending" deleted');
    expect(await gone('pending')).toBe(true);
  });

  it('deleting the node lets PodGC remove its pods after the quarantine, terminating or not', async () => {
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'doomed' } }));
    await createPod('orphan', 'doomed');
    await createPod('stuck', 'doomed');
    await ok(['delete', 'pod', 'stuck', '-n', ns, '--wait=false']);
    expect(await podStatus('stuck')).toBe('Terminating');
    await ok(['delete', 'node', 'doomed']);
    // kube's PodGC quarantines a missing node for 40 s before deleting its pods.
    await waitFor(async () => await gone('orphan') && await gone('stuck'), { timeoutMs: 90_000, intervalMs: 1_000, description: 'PodGC to delete the orphaned pods' });
  }, 120_000);
});
