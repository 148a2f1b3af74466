// Owns: the change events apply emits, one per stored change, in revision order. The API tier's
// watch cache is built from these (in-process now; from JetStream in the HA tiers).
import type { KubeObject, ObjectKey } from './object.ts';
import type { ObjectLifecycle } from './resource-actor.ts';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ChangeEvent {
  readonly type: ChangeType;
  readonly key: ObjectKey;
  /** The object after the change; for DELETED its last state, resourceVersion = revision. */
  readonly object: KubeObject;
  /** The object before the change (absent for ADDED); used for selector transitions later. */
  readonly previous?: KubeObject;
  /** Raft index of the entry that made the change. */
  readonly revision: number;
  /**
   * The object's lifecycle after the change, present when the change made a lifecycle
   * transition (every ADDED and DELETED, a delete that starts finalizing, a finalizer change);
   * absent when the lifecycle stayed as the object's previous event (or the initial state sync)
   * left it. Keeps history and snapshots lean: most changes are plain updates.
   */
  readonly lifecycle?: ObjectLifecycle;
}
