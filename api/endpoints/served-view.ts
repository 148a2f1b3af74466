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

function storedCommand(command: Command, storage: StoredAs): Command {
  return command.type === 'create' || command.type === 'update' ? { ...command, object: storage.toStored(command.object) } : command;
}

function servedResult(result: CommandResult, storage: StoredAs): CommandResult {
  return result.type === 'stored' || result.type === 'finalizing' || result.type === 'removed'
    ? { ...result, object: storage.fromStored(result.object) }
    : result;
}

function servedStore(store: StoreClient, storage: StoredAs): StoreClient {
  const served = (object: KubeObject | undefined): KubeObject | undefined => (object === undefined ? undefined : storage.fromStored(object));
  return new StoreClient({
    propose: async (command) => servedResult(await store.propose(storedCommand(command, storage)), storage),
    readIndex: () => store.readIndex(),
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
      matches: (event) => filter.matches(event),
      convert: (event) => servedEvent(filter.convert === undefined ? event : filter.convert(event), storage),
    }),
  };
}
