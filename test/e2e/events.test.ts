// End-to-end with the real kubectl: one set of events under core/v1 and events.k8s.io/v1, as
// kube-apiserver serves them, against both deployments (`kstore server`, and `kstore cluster up`
// with writes through API replica a1 and reads through a2). An event written through one group
// is listed, printed (`kubectl get events`, `kubectl events`, `kubectl get
// events.v1.events.k8s.io -o yaml`), selected, watched, patched and deleted through the other,
// with one resourceVersion; a watch under one group sees a create through the other.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deployments } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import type { KubectlChild } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const ns = 'ev';

/** An events.k8s.io/v1 Event as client-go's new events recorder writes it (the scheduler's). */
function scheduled(name: string): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name, namespace: ns },
    eventTime: new Date().toISOString().replace('Z', '000Z'), reportingController: 'default-scheduler', reportingInstance: 'default-scheduler-node-1',
    action: 'Binding', reason: 'Scheduled', type: 'Normal', regarding: { apiVersion: 'v1', kind: 'Pod', name: 'web-0', namespace: ns },
    note: `Successfully assigned ${ns}/web-0 to node-1`,
  };
}

/** A core/v1 Event as the old recorder (kubelet) writes it. */
function pulled(name: string): Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: ns },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'web-0', namespace: ns, fieldPath: 'spec.containers{web}' },
    reason: 'Pulled', message: 'Container image "nginx:1.27" already present on machine', source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: now, lastTimestamp: now, count: 1, type: 'Normal',
  };
}

interface EventsV1 {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly resourceVersion: string; readonly uid: string; readonly labels?: Record<string, string> };
  readonly regarding?: Record<string, string>;
  readonly note?: string;
  readonly reportingController?: string;
  readonly deprecatedSource?: Record<string, string>;
  readonly deprecatedCount?: number;
}

interface CoreEvent {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly resourceVersion: string; readonly uid: string };
  readonly involvedObject?: Record<string, string>;
  readonly message?: string;
  readonly reportingComponent?: string;
  readonly action?: string;
}

for (const { name, start } of deployments) {
  describe(`events under core/v1 and events.k8s.io/v1 with kubectl: ${name}`, () => {
    let dir: TempDir | undefined;
    let target: Target | undefined;
    let kubectl: Kubectl;
    // On the cluster the kubeconfig has a context per API replica: write through a1, read through a2.
    let write: string[] = [];
    let read: string[] = [];

    beforeAll(async () => {
      dir = await makeTempDir('kstore-e2e-events-');
      target = await start(dir);
      kubectl = new Kubectl({ kubeconfig: target.kubeconfig, cacheDir: path.join(dir.path, 'kube-cache') });
      const cluster = target.writer !== target.reader;
      write = cluster ? ['--context', 'kstore-a1'] : [];
      read = cluster ? ['--context', 'kstore-a2'] : [];
      await ok([...write, 'create', 'namespace', ns]);
      await ok([...write, 'create', '-f', '-'], JSON.stringify(scheduled('web-0.sched')));
      await ok([...write, 'create', '-f', '-'], JSON.stringify(pulled('web-0.pulled')));
    }, 180_000);

    afterAll(async () => {
      kubectl?.stopAll();
      await target?.stop();
      await dir?.remove();
    }, 60_000);

    async function ok(args: readonly string[], input?: string): Promise<string> {
      const result = await kubectl.run(args, input === undefined ? {} : { input });
      expect(result.code, describeResult(args, result)).toBe(0);
      return result.stdout;
    }

    /** A read that must see a write made through the other replica: Most Recent reads are consistent, so one try. */
    async function yaml<T>(args: readonly string[]): Promise<T> {
      return parse(await ok([...read, ...args, '-o', 'yaml'])) as T;
    }

    it('kubectl get events and kubectl events print both, as kube-apiserver does', async () => {
      const table = parseTable(await ok([...read, 'get', 'events', '-n', ns]));
      // "LAST SEEN" is one column: the parser splits headers at spaces.
      expect(table.headers).toEqual(['LAST', 'SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
      expect(table.rows.map((row) => [row['REASON'], row['OBJECT'], row['MESSAGE']]).sort()).toEqual([
        ['Pulled', 'pod/web-0', 'Container image "nginx:1.27" already present on machine'],
        ['Scheduled', 'pod/web-0', `Successfully assigned ${ns}/web-0 to node-1`],
      ]);
      const wide = parseTable(await ok([...read, 'get', 'events.v1.events.k8s.io', '-n', ns, '-o', 'wide']));
      expect(wide.rows.find((row) => row['REASON'] === 'Scheduled')).toMatchObject({ OBJECT: 'pod/web-0', SOURCE: 'default-scheduler, default-scheduler-node-1', NAME: 'web-0.sched' });
      expect(wide.rows.find((row) => row['REASON'] === 'Pulled')).toMatchObject({ SUBOBJECT: 'spec.containers{web}', SOURCE: 'kubelet, node-1', NAME: 'web-0.pulled' });

      const events = await ok([...read, 'events', '-n', ns]);
      expect(events).toMatch(/Normal\s+Scheduled\s+Pod\/web-0\s+Successfully assigned ev\/web-0 to node-1/);
      expect(events).toMatch(/Normal\s+Pulled\s+Pod\/web-0\s+Container image "nginx:1.27" already present on machine/);
      const forPod = await ok([...read, 'events', '-n', ns, '--for', 'pod/web-0', '--types', 'Normal']);
      expect(forPod).toContain('Scheduled');
      expect(forPod).toContain('Pulled');
      expect(await ok([...read, 'events', '-n', ns, '--for', 'pod/other'])).not.toContain('Scheduled');
    });

    it('kubectl get events.v1.events.k8s.io -o yaml converts core events, and core shows events.k8s.io ones', async () => {
      const list = await yaml<{ apiVersion: string; kind: string; items: EventsV1[] }>(['get', 'events.v1.events.k8s.io', '-n', ns]);
      const byName = Object.fromEntries(list.items.map((item) => [item.metadata.name, item]));
      expect(byName['web-0.pulled']).toMatchObject({
        apiVersion: 'events.k8s.io/v1', kind: 'Event', regarding: { kind: 'Pod', name: 'web-0', fieldPath: 'spec.containers{web}' },
        note: 'Container image "nginx:1.27" already present on machine', deprecatedSource: { component: 'kubelet', host: 'node-1' }, deprecatedCount: 1,
      });
      expect(byName['web-0.sched']).toMatchObject({ apiVersion: 'events.k8s.io/v1', reportingController: 'default-scheduler', note: `Successfully assigned ${ns}/web-0 to node-1` });

      const asCore = await yaml<CoreEvent>(['get', 'event', 'web-0.sched', '-n', ns]);
      expect(asCore).toMatchObject({
        apiVersion: 'v1', kind: 'Event', involvedObject: { kind: 'Pod', name: 'web-0' }, message: `Successfully assigned ${ns}/web-0 to node-1`,
        reportingComponent: 'default-scheduler', action: 'Binding',
      });
      expect(asCore).not.toHaveProperty('regarding');
      // One object: the same uid and resourceVersion under both groups.
      expect(asCore.metadata).toMatchObject({ uid: byName['web-0.sched']!.metadata.uid, resourceVersion: byName['web-0.sched']!.metadata.resourceVersion });
    });

    it('field selectors use each group’s names', async () => {
      const names = async (args: readonly string[]) => (await ok([...read, ...args, '-n', ns, '-o', 'name'])).trim().split('\n').filter((line) => line !== '').sort();
      expect(await names(['get', 'events', '--field-selector', 'involvedObject.kind=Pod,reason=Pulled'])).toEqual(['event/web-0.pulled']);
      expect(await names(['get', 'events', '--field-selector', 'source=default-scheduler'])).toEqual(['event/web-0.sched']);
      expect(await names(['get', 'events.v1.events.k8s.io', '--field-selector', 'regarding.name=web-0,reportingController=default-scheduler'])).toEqual(['event.events.k8s.io/web-0.sched']);
      const refused = await kubectl.run([...read, 'get', 'events.v1.events.k8s.io', '-n', ns, '--field-selector', 'involvedObject.kind=Pod']);
      expect(refused.code, describeResult(['get', 'events.v1.events.k8s.io'], refused)).not.toBe(0);
      expect(refused.stderr).toMatch(/BadRequest.*"involvedObject\.kind" is not a known field selector/);
    });

    it('a watch under one group sees creates through the other, in its own group', async () => {
      const watchers: KubectlChild[] = [];
      try {
        // -w lists first and watches from the list's resourceVersion: a create after the list is seen.
        const columns = 'custom-columns=VERSION:.apiVersion,NAME:.metadata.name,TEXT:.note,MESSAGE:.message';
        const newGroup = kubectl.start([...read, 'get', 'events.v1.events.k8s.io', '-n', ns, '-w', '-o', columns]);
        const core = kubectl.start([...read, 'get', 'events', '-n', ns, '-w', '-o', columns]);
        watchers.push(newGroup, core);
        for (const watcher of watchers) {
          await waitFor(() => watcher.stdout().includes('web-0.sched'), { timeoutMs: 30_000, description: 'the watch to list the existing events', diagnostics: () => watcher.stderr() });
        }
        await ok([...write, 'create', '-f', '-'], JSON.stringify(pulled('web-0.pulled-again')));
        await ok([...write, 'create', '-f', '-'], JSON.stringify(scheduled('web-0.sched-again')));
        const line = (output: string, eventName: string) => output.split('\n').find((row) => row.includes(` ${eventName} `)) ?? '';
        await waitFor(() => line(newGroup.stdout(), 'web-0.pulled-again') && line(newGroup.stdout(), 'web-0.sched-again'), { timeoutMs: 30_000, description: 'the events.k8s.io watch to see both creates', diagnostics: () => newGroup.stdout() + newGroup.stderr() });
        await waitFor(() => line(core.stdout(), 'web-0.pulled-again') && line(core.stdout(), 'web-0.sched-again'), { timeoutMs: 30_000, description: 'the core watch to see both creates', diagnostics: () => core.stdout() + core.stderr() });
        // Each watch answers in its own group: events.k8s.io has the note, core the message.
        expect(line(newGroup.stdout(), 'web-0.pulled-again')).toMatch(/^events\.k8s\.io\/v1\s+web-0\.pulled-again\s+Container image "nginx:1\.27" already present on machine\s+<none>/);
        expect(line(core.stdout(), 'web-0.sched-again')).toMatch(/^v1\s+web-0\.sched-again\s+<none>\s+Successfully assigned ev\/web-0 to node-1/);
      } finally {
        for (const watcher of watchers) await watcher.stop();
      }
    });

    it('patches, updates and deletes through the other group', async () => {
      await ok([...write, 'patch', 'events.v1.events.k8s.io', 'web-0.pulled', '-n', ns, '--type', 'merge', '-p', '{"metadata":{"labels":{"seen":"yes"}}}']);
      expect((await ok([...read, 'get', 'events', '-n', ns, '-l', 'seen=yes', '-o', 'name'])).trim()).toBe('event/web-0.pulled');
      // The old recorder's update (count, lastTimestamp) through core is seen through events.k8s.io.
      await ok([...write, 'patch', 'event', 'web-0.pulled', '-n', ns, '--type', 'merge', '-p', '{"count":2}']);
      expect((await yaml<EventsV1>(['get', 'events.v1.events.k8s.io', 'web-0.pulled', '-n', ns])).deprecatedCount).toBe(2);
      // What an event says cannot change through events.k8s.io (ValidateEventUpdate): 422.
      const immutable = await kubectl.run([...write, 'patch', 'events.v1.events.k8s.io', 'web-0.pulled', '-n', ns, '--type', 'merge', '-p', '{"note":"rewritten"}']);
      expect(immutable.code).not.toBe(0);
      expect(immutable.stderr).toMatch(/is invalid: message: Invalid value: "rewritten": field is immutable/);
      // Creating through events.k8s.io asks for what the new API requires.
      const invalid = await kubectl.run([...write, 'create', '-f', '-'], { input: JSON.stringify({ ...scheduled('bad'), eventTime: undefined, action: undefined }) });
      expect(invalid.code).not.toBe(0);
      expect(invalid.stderr).toMatch(/"bad" is invalid: .*eventTime: Required value/);

      await ok([...write, 'delete', 'event', 'web-0.sched', '-n', ns]);
      const gone = await kubectl.run([...read, 'get', 'events.v1.events.k8s.io', 'web-0.sched', '-n', ns]);
      expect(gone.code).not.toBe(0);
      expect(gone.stderr).toContain('events.events.k8s.io "web-0.sched" not found');
      await ok([...write, 'delete', 'events.v1.events.k8s.io', 'web-0.pulled', '-n', ns]);
      expect((await kubectl.run([...read, 'get', 'event', 'web-0.pulled', '-n', ns])).stderr).toContain('events "web-0.pulled" not found');
    });
  });
}
