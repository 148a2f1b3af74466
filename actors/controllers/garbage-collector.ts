// Owns: the garbage collector (kube-controller-manager's garbagecollector) for
// metadata.ownerReferences: it keeps an index from owner uid to dependents and
//  - deletes a dependent once none of its owners exists (Background propagation, and
//    dependents created with a dangling owner reference); a dependent that still has another
//    owner only loses the reference to the gone one;
//  - for an owner finalizing with the `orphan` finalizer, removes the owner's references from
//    its dependents, then the finalizer;
//  - for an owner finalizing with `foregroundDeletion`, deletes its dependents (foreground,
//    recursively) and removes the finalizer once no dependent with blockOwnerDeletion remains.
// Leader-only; acts only by proposing commands (updates carry a resourceVersion precondition,
// so a concurrent writer is never overwritten: the next change brings the object back here).
// Index: every stored object's uid → its key (shared with the stored record), and owner uid →
// dependents for the objects that have owner references; objects themselves are read from the
// state (start() is one pass over the stored records with no allocation per object without
// owner references: at 100,000 objects it runs before the server is ready).
import { foregroundFinalizer, orphanFinalizer } from '../commands.ts';
import { deletionGracePeriod } from '../deletion-grace.ts';
import type { ChangeEvent } from '../events.ts';
import { keyString } from '../object.ts';
import type { JsonValue, KubeObject, ObjectKey } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { KeyQueue } from './serial.ts';

/** Who the collector's commands name as their cause (kube-controller-manager's service account). */
export const garbageCollectorIdentity = 'system:serviceaccount:kube-system:generic-garbage-collector';

interface OwnerReference {
  readonly uid: string;
  readonly blockOwnerDeletion: boolean;
}

function ownerReferencesOf(object: KubeObject): OwnerReference[] {
  const references = object.metadata.ownerReferences ?? [];
  return references.flatMap((reference) => {
    if (reference === null || typeof reference !== 'object' || Array.isArray(reference)) return [];
    const uid = reference['uid'];
    return typeof uid === 'string' && uid !== '' ? [{ uid, blockOwnerDeletion: reference['blockOwnerDeletion'] === true }] : [];
  });
}

function hasFinalizer(object: KubeObject, finalizer: string): boolean {
  return object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers ?? []).includes(finalizer);
}

interface Node {
  readonly key: ObjectKey;
  readonly object: KubeObject;
}

export class GarbageCollector implements Controller {
  readonly name = 'garbage-collector';
  readonly #context: ControllerContext;
  /** uid → the key of the stored object with that uid (every stored object). */
  readonly #keyByUid = new Map<string, ObjectKey>();
  /** owner uid → dependents naming it, keyString → key (the owner need not exist). */
  readonly #dependents = new Map<string, Map<string, ObjectKey>>();
  /** keyString → key of the keys queued and not reconciled yet. */
  readonly #queuedKeys = new Map<string, ObjectKey>();
  /** keyStrings to look at; processed one at a time, in order. */
  readonly #queue: KeyQueue<string>;
  #unsubscribe: (() => void) | undefined;
  #stopped = true;

  constructor(context: ControllerContext) {
    this.#context = context;
    this.#queue = new KeyQueue((key) => this.#reconcileKey(key), (key, error) => {
      this.#context.log('garbage collection failed; retried on the next change', { key, error: (error as Error).message });
    });
  }

  start(): void {
    this.#stopped = false;
    this.#queue.resume();
    this.#unsubscribe = this.#context.state.subscribe((events) => this.#onEvents(events));
    const attention: ObjectKey[] = [];
    for (const { key, object } of this.#context.state.keyedObjects()) {
      this.#index(key, object);
      if (this.#needsAttention(object)) attention.push(key);
    }
    for (const key of attention) this.#markDirty(key);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    await this.#queue.stop();
  }

  #needsAttention(object: KubeObject): boolean {
    const { metadata } = object;
    if (metadata.ownerReferences === undefined && metadata.deletionTimestamp === undefined) return false;
    return ownerReferencesOf(object).length > 0 || hasFinalizer(object, orphanFinalizer) || hasFinalizer(object, foregroundFinalizer);
  }

  #index(key: ObjectKey, object: KubeObject): void {
    const { uid, ownerReferences } = object.metadata;
    if (uid) this.#keyByUid.set(uid, key);
    if (ownerReferences === undefined) return;
    const text = keyString(key);
    for (const reference of ownerReferencesOf(object)) {
      let dependents = this.#dependents.get(reference.uid);
      if (dependents === undefined) {
        dependents = new Map();
        this.#dependents.set(reference.uid, dependents);
      }
      dependents.set(text, key);
    }
  }

  #unindex(key: ObjectKey, object: KubeObject): void {
    const { uid, ownerReferences } = object.metadata;
    if (uid) this.#keyByUid.delete(uid);
    if (ownerReferences === undefined) return;
    const text = keyString(key);
    for (const reference of ownerReferencesOf(object)) {
      const dependents = this.#dependents.get(reference.uid);
      dependents?.delete(text);
      if (dependents?.size === 0) this.#dependents.delete(reference.uid);
    }
  }

  /** The stored object at `key` with the key, or undefined once it is gone. */
  #node(key: ObjectKey): Node | undefined {
    const object = this.#context.state.get(key);
    return object === undefined ? undefined : { key, object };
  }

  #onEvents(events: readonly ChangeEvent[]): void {
    for (const event of events) {
      if (event.previous) this.#unindex(event.key, event.previous);
      if (event.type === 'DELETED') this.#unindex(event.key, event.object);
      else this.#index(event.key, event.object);
      if (event.type !== 'DELETED' && this.#needsAttention(event.object)) this.#markDirty(event.key);
      // An owner that changed or went away: its dependents and its own owners need a look.
      for (const uid of [event.object.metadata.uid, event.previous?.metadata.uid]) {
        for (const dependent of uid ? this.#dependents.get(uid)?.values() ?? [] : []) this.#markDirty(dependent);
      }
      for (const reference of ownerReferencesOf(event.object)) {
        const owner = this.#keyByUid.get(reference.uid);
        if (owner) this.#markDirty(owner);
      }
    }
  }

  #markDirty(key: ObjectKey): void {
    const text = keyString(key);
    this.#queuedKeys.set(text, key);
    this.#queue.mark(text);
  }

  async #reconcileKey(text: string): Promise<void> {
    const key = this.#queuedKeys.get(text);
    this.#queuedKeys.delete(text);
    const node = key === undefined ? undefined : this.#node(key);
    if (node) await this.#reconcile(node);
  }


  async #reconcile(node: Node): Promise<void> {
    if (hasFinalizer(node.object, orphanFinalizer)) await this.#orphanDependents(node);
    else if (hasFinalizer(node.object, foregroundFinalizer)) await this.#deleteDependentsFirst(node);
    await this.#collectIfOwnersGone(node);
  }

  /** Background propagation and dangling references: delete when no owner exists. */
  async #collectIfOwnersGone(node: Node): Promise<void> {
    const references = ownerReferencesOf(node.object);
    if (references.length === 0) return;
    const gone = references.filter((reference) => !this.#keyByUid.has(reference.uid));
    if (gone.length === 0) return;
    if (gone.length === references.length) {
      if (node.object.metadata.deletionTimestamp === undefined) await this.#delete(node, 'Background');
      return;
    }
    await this.#removeOwnerReferences(node, new Set(gone.map((reference) => reference.uid)));
  }

  async #orphanDependents(owner: Node): Promise<void> {
    const uid = owner.object.metadata.uid ?? '';
    for (const dependentKey of [...(this.#dependents.get(uid)?.values() ?? [])]) {
      const dependent = this.#node(dependentKey);
      if (dependent) await this.#removeOwnerReferences(dependent, new Set([uid]));
    }
    if ((this.#dependents.get(uid)?.size ?? 0) === 0) await this.#removeFinalizer(owner, orphanFinalizer);
  }

  async #deleteDependentsFirst(owner: Node): Promise<void> {
    const uid = owner.object.metadata.uid ?? '';
    const dependents = [...(this.#dependents.get(uid)?.values() ?? [])].flatMap((key) => this.#node(key) ?? []);
    for (const dependent of dependents) {
      if (dependent.object.metadata.deletionTimestamp === undefined) await this.#delete(dependent, 'Foreground');
    }
    const blocking = dependents.filter((dependent) => this.#context.state.get(dependent.key) !== undefined
      && ownerReferencesOf(dependent.object).some((reference) => reference.uid === uid && reference.blockOwnerDeletion));
    if (blocking.length === 0) await this.#removeFinalizer(owner, foregroundFinalizer);
  }

  async #delete(node: Node, propagationPolicy: 'Background' | 'Foreground'): Promise<void> {
    if (this.#stopped) return;
    // As kube's collector, which deletes through the API: a bound pod gets its default grace period.
    const gracePeriodSeconds = deletionGracePeriod(node.key, node.object, undefined);
    await this.#context.propose({
      type: 'delete', key: node.key, at: this.#context.now(), by: garbageCollectorIdentity, propagationPolicy,
      preconditions: { uid: node.object.metadata.uid ?? '' }, ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
    });
  }

  async #removeOwnerReferences(node: Node, uids: ReadonlySet<string>): Promise<void> {
    const kept = (node.object.metadata.ownerReferences ?? []).filter((reference) =>
      !(reference !== null && typeof reference === 'object' && !Array.isArray(reference) && uids.has(String(reference['uid']))));
    const metadata = { ...node.object.metadata } as KubeObject['metadata'];
    if (kept.length > 0) metadata.ownerReferences = kept as JsonValue[];
    else delete metadata.ownerReferences;
    await this.#update(node, metadata);
  }

  async #removeFinalizer(node: Node, finalizer: string): Promise<void> {
    const metadata = { ...node.object.metadata, finalizers: (node.object.metadata.finalizers ?? []).filter((item) => item !== finalizer) };
    await this.#update(node, metadata);
  }

  async #update(node: Node, metadata: KubeObject['metadata']): Promise<void> {
    if (this.#stopped) return;
    const object = structuredClone({ ...node.object, metadata }) as KubeObject;
    await this.#context.propose({
      type: 'update', key: node.key, object, at: this.#context.now(), by: garbageCollectorIdentity,
      preconditions: { resourceVersion: node.object.metadata.resourceVersion ?? '' },
    });
  }
}
