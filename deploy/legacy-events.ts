// Owns: carrying events.k8s.io/v1 Events written by kstore versions that stored them apart
// (under the events.k8s.io/events keys) over to the one events collection kube-apiserver keeps
// (core/v1 Event under the core events keys), so an upgrade loses none: each is created under
// the core key in core form (unless an event of that name already exists there) and the old
// record deleted (uid precondition). Run by `kstore server` at start and by the HA store leader;
// idempotent, and a no-op once nothing is left under the old keys.
import type { Command, CommandResult, CollectionKey, KubeObject, ObjectKey } from '../actors/index.ts';
import { eventsV1ToCore, formatTime } from '../api/index.ts';

export const legacyEventsCollection: CollectionKey = { group: 'events.k8s.io', resource: 'events', namespace: '' };

export interface LegacyEventsStore {
  get(key: ObjectKey): KubeObject | undefined;
  list(collection: CollectionKey): { readonly items: readonly KubeObject[] };
}

/** Moves every legacy event; returns how many were moved. */
export async function migrateLegacyEvents(store: LegacyEventsStore, propose: (command: Command) => Promise<CommandResult>): Promise<number> {
  let moved = 0;
  for (const legacy of store.list(legacyEventsCollection).items) {
    const namespace = legacy.metadata.namespace ?? '';
    const name = legacy.metadata.name ?? '';
    const coreKey: ObjectKey = { group: '', resource: 'events', namespace, name };
    const at = formatTime(new Date());
    if (store.get(coreKey) === undefined) {
      const core = eventsV1ToCore(legacy);
      delete core.metadata.resourceVersion;
      const created = await propose({ type: 'create', key: coreKey, object: core, at, by: 'system:apiserver' });
      if (created.type !== 'stored' && created.type !== 'alreadyExists') throw new Error(`could not carry event ${namespace}/${name} over: ${created.type}`);
    }
    const removed = await propose({ type: 'delete', key: { ...legacyEventsCollection, namespace, name }, preconditions: { uid: legacy.metadata.uid ?? '' }, at, by: 'system:apiserver' });
    if (removed.type !== 'removed' && removed.type !== 'notFound' && removed.type !== 'finalizing') throw new Error(`could not remove the old record of event ${namespace}/${name}: ${removed.type}`);
    moved++;
  }
  return moved;
}
