// Owner references and the garbage collector over the API: Background (dependents deleted
// after the owner), Orphan (references removed, dependents kept), Foreground (the owner waits,
// with deletionTimestamp and the foregroundDeletion finalizer, until blocking dependents are
// gone), several owners, and dangling references.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GarbageCollector } from '../../../actors/controllers/index.ts';
import { formatTime } from '../../../api/index.ts';
import { waitFor } from '../../support/wait-for.ts';
import { configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
let collector: GarbageCollector;
const cms = '/api/v1/namespaces/t/configmaps';

beforeEach(async () => {
  harness = await startHarness();
  collector = new GarbageCollector({
    state: harness.backend.state, propose: (command) => harness.backend.propose(command),
    now: () => formatTime(new Date()), log: () => undefined,
  });
  collector.start();
});
afterEach(async () => {
  await collector.stop();
  await harness.close();
});

async function create(name: string, owners: { name: string; uid: string }[] = [], block = false): Promise<{ metadata: { uid: string; name: string } }> {
  const ownerReferences = owners.map((owner) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: owner.name, uid: owner.uid, blockOwnerDeletion: block }));
  const response = await harness.request('POST', cms, configMap(name, {}, ownerReferences.length ? { ownerReferences } : {}));
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const exists = async (name: string) => (await harness.request('GET', `${cms}/${name}`)).statusCode === 200;
const deadline = { timeoutMs: 10_000 };

describe('garbage collector', () => {
  it('Background: deletes dependents after their owner is deleted', async () => {
    const owner = await create('owner');
    await create('child', [{ name: 'owner', uid: owner.metadata.uid }]);
    expect((await harness.request('DELETE', `${cms}/owner`)).statusCode).toBe(200);
    await waitFor(async () => !(await exists('child')), { ...deadline, description: 'child collected' });
  });

  it('Background: a bound dependent pod gets its grace period (Terminating), an unbound one goes at once', async () => {
    const owner = await create('pod-owner');
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'pod-owner', uid: owner.metadata.uid }];
    const pods = '/api/v1/namespaces/t/pods';
    for (const [name, nodeName] of [['bound', 'n1'], ['pending', '']] as const) {
      const created = await harness.request('POST', pods, {
        apiVersion: 'v1', kind: 'Pod', metadata: { name, ownerReferences },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], terminationGracePeriodSeconds: 45, ...(nodeName === '' ? {} : { nodeName }) },
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    expect((await harness.request('DELETE', `${cms}/pod-owner`)).statusCode).toBe(200);
    await waitFor(async () => (await harness.request('GET', `${pods}/pending`)).statusCode === 404, { ...deadline, description: 'unbound pod collected' });
    const bound = await waitFor(async () => {
      const pod = (await harness.request('GET', `${pods}/bound`)).json<{ metadata: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number } }>();
      return pod.metadata.deletionTimestamp === undefined ? undefined : pod;
    }, { ...deadline, description: 'bound pod terminating' });
    expect(bound.metadata.deletionGracePeriodSeconds).toBe(45);
  });

  it('Orphan: removes the owner reference from dependents and keeps them', async () => {
    const owner = await create('owner');
    await create('child', [{ name: 'owner', uid: owner.metadata.uid }]);
    const response = await harness.request('DELETE', `${cms}/owner?propagationPolicy=Orphan`);
    expect(response.json().metadata.finalizers).toEqual(['orphan']);
    await waitFor(async () => !(await exists('owner')), { ...deadline, description: 'owner removed' });
    const child = (await harness.request('GET', `${cms}/child`)).json();
    expect(child.metadata.ownerReferences).toBeUndefined();
  });

  it('Foreground: the owner waits with foregroundDeletion until blocking dependents are gone', async () => {
    const owner = await create('owner');
    await create('child', [{ name: 'owner', uid: owner.metadata.uid }], true);
    const fresh = (await harness.request('GET', `${cms}/child`)).json<{ metadata: Record<string, unknown> }>();
    await harness.request('PUT', `${cms}/child`, { ...fresh, metadata: { ...fresh.metadata, finalizers: ['example.com/hold'] } });
    const response = await harness.request('DELETE', `${cms}/owner`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
    expect(response.json().metadata.finalizers).toEqual(['foregroundDeletion']);
    await waitFor(async () => (await harness.request('GET', `${cms}/child`)).json().metadata.deletionTimestamp !== undefined, { ...deadline, description: 'child deleting' });
    expect(await exists('owner')).toBe(true);
    const child = (await harness.request('GET', `${cms}/child`)).json();
    await harness.request('PUT', `${cms}/child`, { ...child, metadata: { ...child.metadata, finalizers: [] } });
    await waitFor(async () => !(await exists('owner')), { ...deadline, description: 'owner removed after its dependent' });
  });

  it('a dependent with another live owner only loses the reference to the deleted one', async () => {
    const first = await create('first');
    const second = await create('second');
    await create('child', [{ name: 'first', uid: first.metadata.uid }, { name: 'second', uid: second.metadata.uid }]);
    await harness.request('DELETE', `${cms}/first`);
    await waitFor(async () => (await harness.request('GET', `${cms}/child`)).json().metadata.ownerReferences?.length === 1, { ...deadline, description: 'reference removed' });
    expect(await exists('child')).toBe(true);
  });

  it('deletes a dependent whose owner never existed', async () => {
    await create('dangling', [{ name: 'ghost', uid: '00000000-0000-0000-0000-000000000000' }]);
    await waitFor(async () => !(await exists('dangling')), { ...deadline, description: 'dangling collected' });
  });

  it('orphanDependents=false answers 202 when deletion is not immediate; with propagationPolicy it is 422', async () => {
    await create('holder');
    const held = (await harness.request('GET', `${cms}/holder`)).json();
    await harness.request('PUT', `${cms}/holder`, { ...held, metadata: { ...held.metadata, finalizers: ['example.com/hold'] } });
    expect((await harness.request('DELETE', `${cms}/holder?orphanDependents=false`)).statusCode).toBe(202);
    expect((await harness.request('DELETE', `${cms}/holder?orphanDependents=false&propagationPolicy=Orphan`)).statusCode).toBe(422);
  });
});
