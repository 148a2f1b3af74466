import { describe, expect, it } from 'vitest';
import { ClusterState, applyCommand, conflictMessage, createStoreState, keyString } from '../../../actors/index.ts';
import type { ChangeEvent, Command, CommandResult, KubeObject } from '../../../actors/index.ts';
import { at, cmKey, copy, create, entry, envelope, nsKey, objectFor, remove, t0, update } from './fixtures.ts';

/** A state plus a log index counter, applying commands at consecutive indexes. */
function harness() {
  const state = createStoreState();
  let index = 0;
  const apply = (command: Command, session?: { id: string; sequence: number }) => {
    index += 1;
    return applyCommand(state, index, envelope(copy(command), session));
  };
  const stored = (key = cm): KubeObject => {
    const record = state.objects.get(keyString(key));
    if (record === undefined) throw new Error('not stored');
    return record.object;
  };
  return { state, apply, stored, index: () => index };
}

const ns = nsKey('default');
const cm = cmKey('default', 'a');

function withNamespace() {
  const h = harness();
  h.apply(create(ns));
  return h;
}

function objectOf(result: CommandResult): KubeObject {
  if (!('object' in result)) throw new Error(`no object in ${result.type}`);
  return result.object;
}

describe('create', () => {
  it('stores with resourceVersion = entry index and emits ADDED', () => {
    const h = withNamespace();
    const { result, events } = h.apply(create(cm, objectFor(cm, { data: { k: 'v' } })));
    expect(result).toMatchObject({ type: 'stored', revision: 2 });
    expect(objectOf(result).metadata.resourceVersion).toBe('2');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'ADDED', revision: 2, key: cm });
    expect(events[0]?.previous).toBeUndefined();
    expect(h.stored()).toBe(objectOf(result));
  });

  it('an unsafe delete (the corrupt-object path) removes whatever the finalizers and preconditions, as UNSAFE_DELETE', () => {
    const h = withNamespace();
    h.apply(create(cm, objectFor(cm, { finalizers: ['example.com/hold'] })));
    h.apply(remove(cm));
    const unsafe = h.apply({ type: 'delete', key: cm, at: at(9), by: 'admin', preconditions: { uid: 'not-the-uid' }, ignoreStoreReadError: true });
    expect(unsafe.result).toMatchObject({ type: 'removed', revision: 4 });
    expect(unsafe.events[0]).toMatchObject({ type: 'DELETED', revision: 4, lifecycle: { state: 'removed' } });
    expect(unsafe.events[0]?.lifecycle?.transitions.at(-1)).toEqual({ event: 'UNSAFE_DELETE', from: 'finalizing', to: 'removed', revision: 4, at: at(9), by: 'admin' });
    // The first delete's time stays the deletion timestamp.
    expect(unsafe.events[0]?.lifecycle?.context.deletionTimestamp).toBe(t0);
    expect(h.apply(update(cm, objectFor(cm))).result).toEqual({ type: 'notFound' });
  });

  it('ADDED carries the lifecycle; transitions name who caused them; a finalizer change carries the new lifecycle', () => {
    const h = withNamespace();
    const added = h.apply({ type: 'create', key: cm, object: objectFor(cm, { finalizers: ['example.com/hold'] }), at: t0, by: 'alice' });
    expect(added.events[0]?.lifecycle).toEqual({
      state: 'live', context: { finalizers: ['example.com/hold'], deletionTimestamp: null },
      transitions: [{ event: 'CREATE', from: null, to: 'live', revision: 2, at: t0, by: 'alice' }],
    });
    const deleted = h.apply({ type: 'delete', key: cm, at: at(5), by: 'bob' });
    expect(deleted.events[0]?.lifecycle?.state).toBe('finalizing');
    expect(deleted.events[0]?.lifecycle?.transitions.at(-1)).toEqual({ event: 'DELETE', from: 'live', to: 'finalizing', revision: 3, at: at(5), by: 'bob' });
    // A command without `by` (older proposers) records no user.
    const released = h.apply(update(cm, objectFor(cm, { finalizers: [] })));
    expect(released.events[0]?.lifecycle?.transitions.at(-1)).toEqual({ event: 'FINALIZERS_CHANGED', from: 'finalizing', to: 'removed', revision: 4, at: t0 });
  });

  it('rejects an existing key with alreadyExists', () => {
    const h = withNamespace();
    h.apply(create(cm));
    expect(h.apply(create(cm))).toEqual({ result: { type: 'alreadyExists' }, events: [] });
  });

  it('rejects a namespaced object whose namespace does not exist', () => {
    const h = harness();
    expect(h.apply(create(cm)).result).toEqual({ type: 'namespaceNotFound', namespace: 'default' });
    expect(h.state.objects.size).toBe(0);
  });

  it('rejects create in a terminating namespace', () => {
    const h = harness();
    h.apply(create(ns, objectFor(ns, { finalizers: ['kubernetes'] })));
    h.apply(remove(ns));
    expect(h.apply(create(cm)).result).toEqual({ type: 'namespaceTerminating', namespace: 'default' });
  });

  it('cluster-scoped objects need no namespace; server-owned deletion fields are dropped', () => {
    const h = harness();
    const object = objectFor(ns);
    object.metadata.deletionTimestamp = t0;
    const { result } = h.apply(create(ns, object));
    expect(result.type).toBe('stored');
    expect(objectOf(result).metadata.deletionTimestamp).toBeUndefined();
  });

  it('stored objects are deep-frozen', () => {
    const h = withNamespace();
    const object = objectOf(h.apply(create(cm, objectFor(cm, { data: { k: 'v' } }))).result);
    expect(Object.isFrozen(object) && Object.isFrozen(object.metadata) && Object.isFrozen(object.data)).toBe(true);
    expect(() => { object.metadata.name = 'x'; }).toThrow(TypeError);
  });
});

describe('update', () => {
  it('notFound for an absent object', () => {
    const h = withNamespace();
    expect(h.apply(update(cm, objectFor(cm))).result).toEqual({ type: 'notFound' });
  });

  it('stores with the new resourceVersion and emits MODIFIED with previous', () => {
    const h = withNamespace();
    const first = objectOf(h.apply(create(cm)).result);
    const { result, events } = h.apply(update(cm, objectFor(cm, { data: { k: 'v2' } }), { resourceVersion: '2' }));
    expect(result).toMatchObject({ type: 'stored', revision: 3 });
    expect(objectOf(result).metadata.resourceVersion).toBe('3');
    // A plain update makes no lifecycle transition: the event carries no lifecycle.
    expect(events).toEqual([{ type: 'MODIFIED', key: cm, object: objectOf(result), previous: first, revision: 3 }]);
  });

  it('resourceVersion precondition mismatch → conflict', () => {
    const h = withNamespace();
    h.apply(create(cm));
    const { result, events } = h.apply(update(cm, objectFor(cm, { data: { k: 'v' } }), { resourceVersion: '1' }));
    expect(result).toEqual({ type: 'conflict', message: conflictMessage });
    expect(conflictMessage).toBe('the object has been modified; please apply your changes to the latest version and try again');
    expect(events).toEqual([]);
  });

  it('uid precondition mismatch → conflict naming both uids', () => {
    const h = withNamespace();
    h.apply(create(cm));
    expect(h.apply(update(cm, objectFor(cm), { uid: 'other' })).result).toEqual({
      type: 'conflict',
      message: 'Precondition failed: UID in precondition: other, UID in object meta: uid-default-a',
    });
  });

  it('keeps uid, creationTimestamp, name and namespace from the stored object', () => {
    const h = withNamespace();
    h.apply(create(cm));
    const object = objectFor(cm, { uid: 'forged', data: { k: 'v' } });
    object.metadata.creationTimestamp = at(99);
    object.metadata.name = 'renamed';
    object.metadata.namespace = 'elsewhere';
    const stored = objectOf(h.apply(update(cm, object)).result);
    expect(stored.metadata).toMatchObject({ uid: 'uid-default-a', creationTimestamp: t0, name: 'a', namespace: 'default' });
  });

  it('an unchanged object is a no-op write: old object, no event, no new resourceVersion', () => {
    const h = withNamespace();
    const first = objectOf(h.apply(create(cm, objectFor(cm, { data: { k: 'v' } }))).result);
    const same = copy(first);
    same.metadata.resourceVersion = '12345';
    const { result, events } = h.apply(update(cm, same));
    expect(result).toEqual({ type: 'stored', object: first, revision: 3 });
    expect(events).toEqual([]);
    expect(h.stored()).toBe(first);
  });

  it('keeps deletionTimestamp from the stored object while finalizing', () => {
    const h = withNamespace();
    h.apply(create(cm, objectFor(cm, { finalizers: ['a', 'b'] })));
    h.apply(remove(cm, undefined, at(10)));
    const stored = objectOf(h.apply(update(cm, objectFor(cm, { finalizers: ['a', 'b'], data: { k: 'v' } }))).result);
    expect(stored.metadata.deletionTimestamp).toBe(at(10));
  });

  it('removing the last finalizer of an object being deleted removes it (DELETED)', () => {
    const h = withNamespace();
    h.apply(create(cm, objectFor(cm, { finalizers: ['f'] })));
    const finalizing = objectOf(h.apply(remove(cm)).result);
    const { result, events } = h.apply(update(cm, objectFor(cm, { finalizers: [] })));
    expect(result).toMatchObject({ type: 'removed', revision: 4 });
    expect(objectOf(result).metadata.resourceVersion).toBe('4');
    expect(events).toEqual([{
      type: 'DELETED', key: cm, object: objectOf(result), previous: finalizing, revision: 4,
      lifecycle: expect.objectContaining({ state: 'removed', transitions: expect.arrayContaining([expect.objectContaining({ event: 'FINALIZERS_CHANGED', from: 'finalizing', to: 'removed', revision: 4 })]) }),
    }]);
    expect(h.state.objects.has(keyString(cm))).toBe(false);
  });

  it('removing one of several finalizers keeps finalizing', () => {
    const h = withNamespace();
    h.apply(create(cm, objectFor(cm, { finalizers: ['f', 'g'] })));
    h.apply(remove(cm));
    const { result, events } = h.apply(update(cm, objectFor(cm, { finalizers: ['g'] })));
    expect(result.type).toBe('stored');
    expect(events[0]?.type).toBe('MODIFIED');
  });

  it('adding a finalizer to an object being deleted is invalid', () => {
    const h = withNamespace();
    h.apply(create(cm, objectFor(cm, { finalizers: ['f'] })));
    h.apply(remove(cm));
    const { result, events } = h.apply(update(cm, objectFor(cm, { finalizers: ['f', 'z', 'y'] })));
    expect(result).toEqual({ type: 'invalid', message: 'no new finalizers can be added if the object is being deleted, found new finalizers ["y","z"]' });
    expect(events).toEqual([]);
  });

  it('adding finalizers to a live object is fine', () => {
    const h = withNamespace();
    h.apply(create(cm));
    expect(h.apply(update(cm, objectFor(cm, { finalizers: ['f'] }))).result.type).toBe('stored');
    expect(h.apply(remove(cm)).result.type).toBe('finalizing');
  });

  it('namespaceNotFound when the namespace is gone, but updates in a terminating namespace pass', () => {
    const h = harness();
    h.apply(create(ns, objectFor(ns, { finalizers: ['kubernetes'] })));
    h.apply(create(cm));
    h.apply(remove(ns));
    expect(h.apply(update(cm, objectFor(cm, { data: { k: 'v' } }))).result.type).toBe('stored');
    h.apply(update(ns, objectFor(ns, { finalizers: [] })));
    expect(h.apply(update(cm, objectFor(cm, { data: { k: 'w' } }))).result).toEqual({ type: 'namespaceNotFound', namespace: 'default' });
    expect(h.apply(remove(cm)).result.type).toBe('removed'); // leftovers stay deletable
  });
});

describe('delete', () => {
  it('notFound for an absent object', () => {
    const h = withNamespace();
    expect(h.apply(remove(cm)).result).toEqual({ type: 'notFound' });
  });

  it('checks preconditions', () => {
    const h = withNamespace();
    h.apply(create(cm));
    expect(h.apply(remove(cm, { resourceVersion: '9' })).result).toEqual({ type: 'conflict', message: conflictMessage });
    expect(h.apply(remove(cm, { uid: 'x' })).result.type).toBe('conflict');
    expect(h.apply(remove(cm, { uid: 'uid-default-a', resourceVersion: '2' })).result.type).toBe('removed');
  });

  it('without finalizers removes at once; DELETED carries resourceVersion = this entry', () => {
    const h = withNamespace();
    const first = objectOf(h.apply(create(cm)).result);
    const { result, events } = h.apply(remove(cm));
    expect(result).toMatchObject({ type: 'removed', revision: 3 });
    expect(objectOf(result).metadata.resourceVersion).toBe('3');
    expect(events).toEqual([{
      type: 'DELETED', key: cm, object: objectOf(result), previous: first, revision: 3,
      lifecycle: expect.objectContaining({ state: 'removed', transitions: [expect.objectContaining({ event: 'CREATE' }), expect.objectContaining({ event: 'DELETE', from: 'live', to: 'removed', revision: 3 })] }),
    }]);
    expect(h.state.objects.size).toBe(1);
  });

  it('with finalizers sets deletionTimestamp = command.at and emits MODIFIED', () => {
    const h = withNamespace();
    h.apply(create(cm, objectFor(cm, { finalizers: ['f'] })));
    const { result, events } = h.apply(remove(cm, undefined, at(5)));
    expect(result).toMatchObject({ type: 'finalizing', revision: 3 });
    expect(objectOf(result).metadata).toMatchObject({ deletionTimestamp: at(5), deletionGracePeriodSeconds: 0, resourceVersion: '3' });
    expect(events.map((e: ChangeEvent) => e.type)).toEqual(['MODIFIED']);
  });

  it('a second delete of a finalizing object changes nothing', () => {
    const h = withNamespace();
    h.apply(create(cm, objectFor(cm, { finalizers: ['f'] })));
    const first = objectOf(h.apply(remove(cm, undefined, at(5))).result);
    const { result, events } = h.apply(remove(cm, undefined, at(50)));
    expect(result).toEqual({ type: 'finalizing', object: first, revision: 4 });
    expect(events).toEqual([]);
    expect(h.stored()).toBe(first);
  });

  it('records lifecycle transitions, bounded to 32', () => {
    const h = withNamespace();
    h.apply(create(cm, objectFor(cm, { finalizers: ['f0'] })));
    for (let i = 1; i <= 40; i++) h.apply(update(cm, objectFor(cm, { finalizers: [`f${i}`] })));
    h.apply(remove(cm));
    const record = h.state.objects.get(keyString(cm));
    expect(record?.transitions).toHaveLength(32);
    expect(record?.transitions.at(-1)).toMatchObject({ event: 'DELETE', from: 'live', to: 'finalizing', revision: h.index() });
    expect(record?.lifecycle.value).toBe('finalizing');
  });
});

describe('noop', () => {
  it('returns its revision and changes nothing', () => {
    const h = harness();
    expect(h.apply({ type: 'noop' })).toEqual({ result: { type: 'noop', revision: 1 }, events: [] });
  });
});

describe('session dedupe', () => {
  it('a retried (id, sequence) returns the cached result and applies nothing', () => {
    const h = withNamespace();
    const first = h.apply(create(cm), { id: 's', sequence: 1 });
    const retry = h.apply(create(cm), { id: 's', sequence: 1 });
    expect(retry.result).toEqual(first.result);
    expect(retry.events).toEqual([]);
    expect(h.apply(create(cm), { id: 's', sequence: 2 }).result).toEqual({ type: 'alreadyExists' });
  });

  it('caches failures too, and rejects older sequences whose results are gone', () => {
    const h = withNamespace();
    expect(h.apply(update(cm, objectFor(cm)), { id: 's', sequence: 5 }).result).toEqual({ type: 'notFound' });
    h.apply(create(cm));
    expect(h.apply(update(cm, objectFor(cm)), { id: 's', sequence: 5 }).result).toEqual({ type: 'notFound' });
    expect(h.apply(create(cm), { id: 's', sequence: 4 }).result.type).toBe('invalid');
  });

  it('evicts the least recently used session beyond the limit', () => {
    const state = createStoreState({ historyEventsMax: 100, sessionsMax: 2 });
    const noop = envelope({ type: 'noop' });
    applyCommand(state, 1, { ...noop, session: { id: 'a', sequence: 1 } });
    applyCommand(state, 2, { ...noop, session: { id: 'b', sequence: 1 } });
    applyCommand(state, 3, { ...noop, session: { id: 'a', sequence: 1 } }); // touch a
    applyCommand(state, 4, { ...noop, session: { id: 'c', sequence: 1 } }); // evicts b
    expect(state.sessions.toJson().map((s) => s.id)).toEqual(['a', 'c']);
    expect(applyCommand(state, 5, { ...noop, session: { id: 'a', sequence: 1 } }).result).toEqual({ type: 'noop', revision: 1 });
    expect(applyCommand(state, 6, { ...noop, session: { id: 'b', sequence: 1 } }).result).toEqual({ type: 'noop', revision: 6 });
  });
});

describe('determinism', () => {
  it('the same entries on two fresh states give identical results and snapshots', () => {
    const script: Command[] = [create(ns)];
    for (let i = 0; i < 50; i++) {
      const key = cmKey('default', `o${i % 7}`);
      const object = objectFor(key, { data: { i: String(i) }, finalizers: i % 3 === 0 ? ['f'] : [] });
      script.push(i % 4 === 0 ? create(key, object, at(i)) : i % 4 === 1 ? update(key, object, undefined, at(i)) : i % 4 === 2 ? remove(key, undefined, at(i)) : { type: 'noop' });
    }
    const [a, b] = [new ClusterState(), new ClusterState()];
    const results = script.map((command, i) => [a.apply(entry(i + 1, command, { id: 'x', sequence: i })), b.apply(entry(i + 1, command, { id: 'x', sequence: i }))]);
    for (const [ra, rb] of results) expect(JSON.stringify(ra)).toBe(JSON.stringify(rb));
    expect(Buffer.from(a.snapshot()).equals(Buffer.from(b.snapshot()))).toBe(true);
  });
});
