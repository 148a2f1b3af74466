// The pod garbage collector (kube-controller-manager's podgc) with fake timers: pods bound to a
// node that does not exist are marked Failed and force-deleted (grace period 0) once the
// quarantine ran out; a node that comes back cancels it; a terminating pod bound to no node is
// force-deleted at once; pods on existing nodes are left alone. No sleeps: the quarantine is a
// fake timer fired by hand.
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterState, commandVersion, encodeCommand } from '../../../actors/index.ts';
import type { Command, CommandResult, KubeObject, ObjectKey } from '../../../actors/index.ts';
import { createControllers, enabledControllers, parseControllersFlag, PodGarbageCollector, podGcIdentity, podGcQuarantineMsDefault } from '../../../actors/controllers/index.ts';
import type { ControllerContext, ControllerTimers } from '../../../actors/controllers/index.ts';
import { at, create, nsKey, t0 } from './fixtures.ts';

function podKey(name: string): ObjectKey {
  return { group: '', resource: 'pods', namespace: 'work', name };
}

function nodeKey(name: string): ObjectKey {
  return { group: '', resource: 'nodes', namespace: '', name };
}

function pod(name: string, nodeName?: string, finalizers?: string[]): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'work', uid: `uid-${name}`, creationTimestamp: t0, ...(finalizers ? { finalizers } : {}) },
    spec: { ...(nodeName ? { nodeName } : {}), terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Running' },
  };
}

function node(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `uid-${name}`, creationTimestamp: t0 } };
}

/** A state applying proposals at once, a clock, and timers fired by hand. */
function world() {
  const state = new ClusterState();
  let index = 0;
  const proposals: Command[] = [];
  const apply = (command: Command): CommandResult => state.apply({ index: ++index, term: 1, data: encodeCommand({ version: commandVersion, command }) });
  const timers: { delayMs: number; callback: () => void; cancelled: boolean }[] = [];
  const fakeTimers: ControllerTimers = {
    set(delayMs, callback) {
      const timer = { delayMs, callback, cancelled: false };
      timers.push(timer);
      return () => { timer.cancelled = true; };
    },
  };
  const context: ControllerContext = {
    state,
    propose: async (command) => {
      proposals.push(command);
      return apply(command);
    },
    now: () => at(100),
    log: () => undefined,
  };
  apply(create(nsKey('work')));
  return {
    state, apply, context, proposals, fakeTimers,
    pending: () => timers.filter((timer) => !timer.cancelled),
    fire: () => {
      const due = timers.filter((timer) => !timer.cancelled);
      for (const timer of due) timer.cancelled = true;
      for (const timer of due) timer.callback();
    },
    get: (name: string) => state.get(podKey(name)),
  };
}

const started: PodGarbageCollector[] = [];
afterEach(async () => {
  for (const controller of started.splice(0)) await controller.stop();
});

function startGc(w: ReturnType<typeof world>): PodGarbageCollector {
  const gc = new PodGarbageCollector(w.context, { timers: w.fakeTimers });
  gc.start();
  started.push(gc);
  return gc;
}

describe('PodGC: orphaned pods', () => {
  it('force-deletes the pods of a missing node once its 40 s quarantine ran out, marking them Failed first', async () => {
    const w = world();
    w.apply(create(nodeKey('n1'), node('n1')));
    w.apply(create(podKey('orphan'), pod('orphan', 'gone')));
    w.apply({ type: 'delete', key: podKey('terminating'), at: t0 }); // nothing yet: absent pod
    w.apply(create(podKey('terminating'), pod('terminating', 'gone')));
    w.apply({ type: 'delete', key: podKey('terminating'), at: t0, gracePeriodSeconds: 30 });
    w.apply(create(podKey('kept'), pod('kept', 'n1')));
    const gc = startGc(w);
    await gc.idle();
    expect(w.proposals).toEqual([]);
    expect(gc.quarantinedNodes()).toEqual(['gone']);
    expect(w.pending().map((timer) => timer.delayMs)).toEqual([podGcQuarantineMsDefault]);
    expect(podGcQuarantineMsDefault).toBe(40_000);

    w.fire();
    await gc.idle();
    expect(w.get('orphan')).toBeUndefined();
    expect(w.get('terminating')).toBeUndefined();
    expect(w.get('kept')).toBeDefined();
    const updates = w.proposals.filter((command) => command.type === 'update');
    expect(updates).toHaveLength(2);
    expect(updates[0]).toMatchObject({
      by: podGcIdentity,
      object: { status: { phase: 'Failed', conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' }] } },
    });
    const deletes = w.proposals.filter((command) => command.type === 'delete');
    expect(deletes.map((command) => command.type === 'delete' && [command.key.name, command.gracePeriodSeconds, command.preconditions?.uid])).toEqual([
      ['orphan', 0, 'uid-orphan'], ['terminating', 0, 'uid-terminating'],
    ]);
    expect(gc.quarantinedNodes()).toEqual([]);
  });

  it('a node that comes back cancels the quarantine; its pods stay', async () => {
    const w = world();
    w.apply(create(podKey('p'), pod('p', 'n2')));
    const gc = startGc(w);
    await gc.idle();
    expect(gc.quarantinedNodes()).toEqual(['n2']);
    w.apply(create(nodeKey('n2'), node('n2')));
    await gc.idle();
    expect(gc.quarantinedNodes()).toEqual([]);
    expect(w.pending()).toEqual([]);
    w.fire();
    await gc.idle();
    expect(w.get('p')).toBeDefined();
    expect(w.proposals).toEqual([]);
  });

  it('a node deleted while its pods run starts the quarantine then; the pods go after it', async () => {
    const w = world();
    w.apply(create(nodeKey('n3'), node('n3')));
    w.apply(create(podKey('p'), pod('p', 'n3')));
    const gc = startGc(w);
    await gc.idle();
    expect(w.pending()).toEqual([]);
    w.apply({ type: 'delete', key: nodeKey('n3'), at: at(1) });
    await gc.idle();
    expect(gc.quarantinedNodes()).toEqual(['n3']);
    expect(w.get('p')).toBeDefined();
    w.fire();
    await gc.idle();
    expect(w.get('p')).toBeUndefined();
  });

  it('a finalizer-held orphan is force-deleted once and then left to its finalizers', async () => {
    const w = world();
    w.apply(create(podKey('held'), pod('held', 'gone', ['example.com/hold'])));
    const gc = startGc(w);
    await gc.idle();
    w.fire();
    await gc.idle();
    expect(w.get('held')?.metadata).toMatchObject({ deletionGracePeriodSeconds: 0, finalizers: ['example.com/hold'] });
    const count = w.proposals.length;
    w.apply(create(podKey('other'), pod('other')));
    await gc.idle();
    expect(w.proposals).toHaveLength(count);
  });
});

describe('PodGC: unscheduled terminating pods', () => {
  it('force-deletes a terminating pod bound to no node at once', async () => {
    const w = world();
    w.apply(create(podKey('u'), pod('u')));
    // Only a race makes this (the API tier deletes unbound pods at once); apply is generic.
    w.apply({ type: 'delete', key: podKey('u'), at: t0, gracePeriodSeconds: 30 });
    expect(w.get('u')?.metadata.deletionGracePeriodSeconds).toBe(30);
    const gc = startGc(w);
    await gc.idle();
    expect(w.get('u')).toBeUndefined();
    expect(w.proposals.find((command) => command.type === 'update')).toMatchObject({ object: { status: { phase: 'Failed' } } });
  });
});

describe('PodGC registration', () => {
  it('runs by default as kube\'s pod-garbage-collector-controller, alias podgc, with the given timers', () => {
    expect(enabledControllers()).toContain('pod-garbage-collector-controller');
    expect(enabledControllers(parseControllersFlag('podgc'))).toEqual(['pod-garbage-collector-controller']);
    expect(enabledControllers(parseControllersFlag('*,-podgc'))).not.toContain('pod-garbage-collector-controller');
    const w = world();
    const controllers = createControllers(w.context, parseControllersFlag('podgc'), w.fakeTimers);
    expect(controllers.map((controller) => controller.name)).toEqual(['token-expiry', 'pod-garbage-collector']);
  });
});
