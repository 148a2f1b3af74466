// Owns: the conversion hook for a kind served over another kind's storage (registry/kinds.ts
// StoredAs: events.k8s.io/v1 Events are stored as core/v1 Events, as kube-apiserver stores one
// `events` resource). The router hands such a request's handlers a context whose store and watch
// cache speak the requested group/version: objects read (get, list, the read before a write, the
// result of a write) are converted from the stored form, objects proposed are converted to it,
// and each watch event is converted for its watcher. Keys are the stored resource's
// (target.ts objectKey/collectionKey), so both kinds name the same objects, share
// resourceVersions and one watch stream, and every verb handler stays generic. The cache
// filters by the stored key, so a watch under either group sees writes made through the other.
import type { ChangeEvent, Command, CommandResult, KubeObject } from '../../actors/index.ts';
import type { StoredAs } from '../registry/kinds.ts';
import { StoreClient } from '../store-client.ts';
import type { WatchCacheReader } from '../watchcache/watch-cache.ts';
import type { EndpointContext } from './context.ts';
import type { Target } from './target.ts';

/** The context the target's handlers use: the shared one, or a converting view of its store and cache. */
export function servedContext(target: Target, context: EndpointContext): EndpointContext {
  const storage = target.kind.storage;
  if (storage === undefined) return context;
  return { ...context, store: servedStore(context.store, storage), cache: servedCache(context.cache, storage) };
}

export function servedEvent(event: ChangeEvent, storage: StoredAs): ChangeEvent {
  return {
    ...event,
    object: storage.fromStored(event.object),
    ...(event.previous === undefined ? {} : { previous: storage.fromStored(event.previous) }),
  };
}

async function storedCommand(command: Command, storage: StoredAs): Promise<Command> {
  if (command.type !== 'create' && command.type !== 'update') return command;
  return { ...command, object: storage.toStoredAsync === undefined ? storage.toStored(command.object) : await storage.toStoredAsync(command.object) };
}

/** Converts ahead what a conversion with I/O needs (StoredAs.prepare); nothing for the others. */
async function prepared(storage: StoredAs, objects: readonly (KubeObject | undefined)[]): Promise<void> {
  if (storage.prepare === undefined) return;
  await storage.prepare(objects.filter((object): object is KubeObject => object !== undefined));
}

/** Every stored object of the storage's resource, converted ahead (before a request's synchronous reads). */
export async function prepareStoredObjects(store: StoreClient, storage: StoredAs | undefined): Promise<void> {
  if (storage?.prepare === undefined) return;
  await storage.prepare(store.list({ group: storage.group, resource: storage.resource, namespace: '' }).items);
}

function servedResult(result: CommandResult, storage: StoredAs): CommandResult {
  return result.type === 'stored' || result.type === 'finalizing' || result.type === 'removed'
    ? { ...result, object: storage.fromStored(result.object) }
    : result;
}

function servedStore(store: StoreClient, storage: StoredAs): StoreClient {
  const served = (object: KubeObject | undefined): KubeObject | undefined => (object === undefined ? undefined : storage.fromStored(object));
  return new StoreClient({
    propose: async (command) => {
      const result = await store.propose(await storedCommand(command, storage));
      if (result.type === 'stored' || result.type === 'finalizing' || result.type === 'removed') await prepared(storage, [result.object]);
      return servedResult(result, storage);
    },
    readIndex: async () => {
      const revision = await store.readIndex();
      await prepareStoredObjects(store, storage);
      return revision;
    },
    get: (key) => served(store.get(key)),
    lifecycleOf: (key) => store.lifecycleOf(key),
    list: (collection) => {
      const { items, revision } = store.list(collection);
      return { items: items.map((item) => storage.fromStored(item)), revision };
    },
    subscribe: (listener) => store.subscribe((events) => listener(events.map((event) => servedEvent(event, storage)))),
    currentRevision: () => store.currentRevision(),
    subscribeResyncs: (listener) => store.subscribeResyncs(listener),
    ready: () => store.ready(),
  });
}

function servedCache(cache: WatchCacheReader, storage: StoredAs): WatchCacheReader {
  return {
    revision: () => cache.revision(),
    oldestResumableRevision: () => cache.oldestResumableRevision(),
    listAt: (collection, revision) => {
      const items = cache.listAt(collection, revision);
      return items === 'expired' ? items : items.map((item) => storage.fromStored(item));
    },
    watch: (revision, filter) => cache.watch(revision, {
      ...(filter.scope === undefined ? {} : { scope: filter.scope }),
      matches: (event) => filter.matches(event),
      convert: storage.prepare === undefined
        ? (event) => servedEvent(filter.convert === undefined ? event : filter.convert(event) as ChangeEvent, storage)
        : async (event) => {
          const own = filter.convert === undefined ? event : await filter.convert(event);
          await prepared(storage, [own.object, own.previous]);
          return servedEvent(own, storage);
        },
    }),
  };
}
