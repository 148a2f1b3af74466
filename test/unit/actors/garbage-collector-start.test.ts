// The garbage collector's index built at start from the stored objects (no events seen yet):
// dependents whose owners are all gone are deleted, a dependent that still has an owner only
// loses the reference to the gone one, a dependent of a live owner is kept and is deleted once
// the owner's deletion arrives as an event. No sleeps: proposals apply at once and the queue is
// drained by running the event loop's pending callbacks.
import { describe, expect, it } from 'vitest';
import { ClusterState, commandVersion, encodeCommand } from '../../../actors/index.ts';
import type { Command, CommandResult, KubeObject } from '../../../actors/index.ts';
import { GarbageCollector, garbageCollectorIdentity } from '../../../actors/controllers/garbage-collector.ts';
import type { ControllerContext } from '../../../actors/controllers/index.ts';
import { at, cmKey, create, nsKey, objectFor, remove } from './fixtures.ts';

function dependent(name: string, ownerUids: readonly string[]): KubeObject {
  const object = objectFor(cmKey('work', name));
  object.metadata.ownerReferences = ownerUids.map((uid) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `owner-of-${uid}`, uid }));
  return object;
}

/** Runs queued reconciles to the end (they only chain microtasks: proposals apply synchronously). */
async function drained(): Promise<void> {
  for (let round = 0; round < 5; round++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('garbage collector start', () => {
  it('indexes the stored objects: collects orphans, trims gone owners, keeps live ones until their owner goes', async () => {
    const state = new ClusterState();
    let index = 0;
    const proposals: Command[] = [];
    const apply = (command: Command): CommandResult => state.apply({ index: ++index, term: 1, data: encodeCommand({ version: commandVersion, command }) });
    apply(create(nsKey('work')));
    apply(create(cmKey('work', 'owner'), objectFor(cmKey('work', 'owner'), { uid: 'uid-owner' })));
    apply(create(cmKey('work', 'kept'), dependent('kept', ['uid-owner'])));
    apply(create(cmKey('work', 'orphan'), dependent('orphan', ['uid-gone'])));
    apply(create(cmKey('work', 'shared'), dependent('shared', ['uid-owner', 'uid-gone'])));
    const context: ControllerContext = {
      state, propose: async (command) => { proposals.push(command); return apply(command); }, now: () => at(10), log: () => undefined,
    };
    const collector = new GarbageCollector(context);
    collector.start();
    await drained();
    expect(state.get(cmKey('work', 'orphan'))).toBeUndefined();
    expect(state.get(cmKey('work', 'kept'))?.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: 'uid-owner' })]);
    expect(state.get(cmKey('work', 'shared'))?.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: 'uid-owner' })]);
    expect(proposals.map((command) => (command.type === 'delete' || command.type === 'update' ? `${command.type} ${command.key.name} by ${command.by ?? ''}` : command.type)).sort())
      .toEqual([`delete orphan by ${garbageCollectorIdentity}`, `update shared by ${garbageCollectorIdentity}`]);

    apply(remove(cmKey('work', 'owner')));
    await drained();
    expect(state.get(cmKey('work', 'kept'))).toBeUndefined();
    expect(state.get(cmKey('work', 'shared'))).toBeUndefined();
    await collector.stop();
  });
});
