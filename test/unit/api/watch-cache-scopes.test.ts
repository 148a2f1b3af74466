// The watch cache offers a scoped watcher (WatchFilter.scope: a collection prefix or an object's
// key) only the events under its scope, an unscoped one every event, each in revision order; a
// watcher takes everything that piled up in one batch; an event's shared frame is encoded once.
import { describe, expect, it } from 'vitest';
import type { ChangeEvent, KubeObject } from '../../../actors/index.ts';
import { collectionPrefix, keyString } from '../../../actors/index.ts';
import { httpChunk, SharedWatchFrames } from '../../../api/endpoints/shared-watch-frames.ts';
import { StoreClient } from '../../../api/store-client.ts';
import type { StoreBackend } from '../../../api/store-client.ts';
import type { CacheWatcher, WatcherItem } from '../../../api/watchcache/cache-watcher.ts';
import { WatchCache } from '../../../api/watchcache/watch-cache.ts';

/** A backend whose events the test pushes. */
function pushedEvents(): { backend: StoreBackend; push: (events: readonly ChangeEvent[]) => void } {
  const listeners = new Set<(events: readonly ChangeEvent[]) => void>();
  let revision = 0;
  const backend: StoreBackend = {
    propose: () => Promise.reject(new Error('read-only')),
    readIndex: () => Promise.resolve(revision),
    get: () => undefined,
    lifecycleOf: () => undefined,
    list: () => ({ items: [], revision }),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    currentRevision: () => revision,
    ready: () => true,
  };
  return {
    backend,
    push: (events) => {
      revision = events.at(-1)?.revision ?? revision;
      for (const listener of listeners) listener(events);
    },
  };
}

let nextRevision = 1;

function added(resource: string, namespace: string, name: string): ChangeEvent {
  const revision = nextRevision++;
  return {
    type: 'ADDED', revision,
    key: { group: '', resource, namespace, name },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(namespace === '' ? {} : { namespace }), resourceVersion: String(revision) } },
  } as ChangeEvent;
}

async function drained(watcher: CacheWatcher): Promise<string[]> {
  watcher.terminate(undefined);
  const names: string[] = [];
  for await (const item of watcher) if (item.type !== 'BOOKMARK') names.push(item.key.name);
  return names;
}

describe('watchers indexed by scope', () => {
  it('offers each event to the watchers of its namespace, its resource and its object, and to unscoped ones', async () => {
    const { backend, push } = pushedEvents();
    const cache = new WatchCache(new StoreClient(backend));
    const namespaceA = collectionPrefix({ group: '', resource: 'configmaps', namespace: 'a' });
    const everyNamespace = collectionPrefix({ group: '', resource: 'configmaps', namespace: '' });
    const objectKey = keyString({ group: '', resource: 'configmaps', namespace: 'b', name: 'b1' });
    const prefixMatch = (prefix: string) => ({ scope: prefix, matches: (event: ChangeEvent) => keyString(event.key).startsWith(prefix) });
    const watchers = {
      a: cache.watch(0, prefixMatch(namespaceA)),
      all: cache.watch(0, prefixMatch(everyNamespace)),
      object: cache.watch(0, { scope: objectKey, matches: (event) => keyString(event.key) === objectKey }),
      unscoped: cache.watch(0, { matches: () => true }),
    };
    push([added('configmaps', 'a', 'a1'), added('configmaps', 'b', 'b1'), added('secrets', 'a', 's1')]);
    push([added('configmaps', 'a', 'a2'), added('configmaps', 'b', 'b2')]);
    const names: Record<string, string[]> = {};
    for (const [name, watcher] of Object.entries(watchers)) {
      if (watcher === 'expired') throw new Error(`${name} expired`);
      names[name] = await drained(watcher);
    }
    expect(names).toEqual({
      a: ['a1', 'a2'],
      all: ['a1', 'b1', 'a2', 'b2'],
      object: ['b1'],
      unscoped: ['a1', 'b1', 's1', 'a2', 'b2'],
    });
    expect(cache.watcherCount()).toBe(0);
    cache.close();
  });

  it('never asks a scoped watcher\'s filter about an event outside its scope', async () => {
    const { backend, push } = pushedEvents();
    const cache = new WatchCache(new StoreClient(backend));
    const asked: string[] = [];
    const watcher = cache.watch(0, {
      scope: collectionPrefix({ group: '', resource: 'configmaps', namespace: 'a' }),
      matches: (event) => {
        asked.push(event.key.name);
        return true;
      },
    });
    if (watcher === 'expired') throw new Error('expired');
    push([added('configmaps', 'b', 'b1'), added('configmaps', 'a', 'a1'), added('secrets', 'a', 's1'), added('configmaps', '', 'c1')]);
    expect(asked).toEqual(['a1']);
    expect(await drained(watcher)).toEqual(['a1']);
    cache.close();
  });

  it('still applies the filter to the events of its scope', async () => {
    const { backend, push } = pushedEvents();
    const cache = new WatchCache(new StoreClient(backend));
    const scope = collectionPrefix({ group: '', resource: 'configmaps', namespace: 'a' });
    const watcher = cache.watch(0, { scope, matches: (event) => event.key.name !== 'hidden' });
    if (watcher === 'expired') throw new Error('expired');
    push([added('configmaps', 'a', 'shown'), added('configmaps', 'a', 'hidden')]);
    expect(await drained(watcher)).toEqual(['shown']);
    cache.close();
  });

  it('takes a scoped watcher out of its scope when it ends, and ends every watcher on close', async () => {
    const { backend, push } = pushedEvents();
    const cache = new WatchCache(new StoreClient(backend));
    const scope = collectionPrefix({ group: '', resource: 'configmaps', namespace: 'a' });
    const ended = cache.watch(0, { scope, matches: () => true });
    const open = cache.watch(0, { scope, matches: () => true });
    if (ended === 'expired' || open === 'expired') throw new Error('expired');
    ended.terminate(undefined);
    expect(cache.watcherCount()).toBe(1);
    push([added('configmaps', 'a', 'late')]);
    expect(await drained(ended)).toEqual([]);
    cache.close();
    expect(open.closed).toBe(true);
    expect(cache.watcherCount()).toBe(0);
    expect(await drained(open)).toEqual(['late']);
  });
});

describe('a watcher batch', () => {
  it('holds everything queued, in order, and ends after the last', async () => {
    const { backend, push } = pushedEvents();
    const cache = new WatchCache(new StoreClient(backend));
    const watcher = cache.watch(0, { matches: () => true });
    if (watcher === 'expired') throw new Error('expired');
    push([added('configmaps', 'a', 'x1'), added('configmaps', 'a', 'x2')]);
    push([added('configmaps', 'a', 'x3')]);
    watcher.offerBookmark(backend.currentRevision());
    const batch = await watcher.nextBatch();
    expect(batch?.map((item: WatcherItem) => (item.type === 'BOOKMARK' ? 'bookmark' : item.key.name))).toEqual(['x1', 'x2', 'x3', 'bookmark']);
    const waiting = watcher.nextBatch();
    push([added('configmaps', 'a', 'x4')]);
    expect((await waiting)?.map((item) => item.revision)).toEqual([backend.currentRevision()]);
    watcher.terminate(undefined);
    expect(await watcher.nextBatch()).toBeUndefined();
    cache.close();
  });

  it('takes the events offered later in the same tick (before the event loop moves on)', async () => {
    const { backend, push } = pushedEvents();
    const cache = new WatchCache(new StoreClient(backend));
    const watcher = cache.watch(0, { matches: () => true });
    if (watcher === 'expired') throw new Error('expired');
    const waiting = watcher.nextBatch();
    push([added('configmaps', 'a', 'y1')]);
    // Microtasks of the same tick: the waiting batch has been woken by y1 but is not cut yet.
    await Promise.resolve();
    await Promise.resolve();
    push([added('configmaps', 'a', 'y2')]);
    expect((await waiting)?.map((item) => (item.type === 'BOOKMARK' ? 'bookmark' : item.key.name))).toEqual(['y1', 'y2']);
    cache.close();
  });
});

describe('shared watch frames', () => {
  const object = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

  it('encodes an object once per variant and again after it left the bound', () => {
    const frames = new SharedWatchFrames(2);
    const encodings: string[] = [];
    const encode = (text: string) => () => {
      encodings.push(text);
      return text;
    };
    const first = object('first');
    expect(frames.frame(first, 'MODIFIED json', encode('m1')).toString()).toBe('m1');
    expect(frames.frame(first, 'MODIFIED json', encode('again')).toString()).toBe('m1');
    expect(frames.frame(first, 'DELETED json', encode('d1')).toString()).toBe('d1');
    frames.frame(object('second'), 'MODIFIED json', encode('m2'));
    frames.frame(object('third'), 'MODIFIED json', encode('m3'));
    expect(frames.size).toBe(2);
    expect(frames.frame(first, 'MODIFIED json', encode('m1 again')).toString()).toBe('m1 again');
    expect(encodings).toEqual(['m1', 'd1', 'm2', 'm3', 'm1 again']);
  });

  it('frames a kept frame once as an HTTP/1.1 chunk, and frames parts in order', () => {
    const frames = new SharedWatchFrames(2);
    const first = object('first');
    let encodings = 0;
    const encode = (): string => {
      encodings += 1;
      return '{"type":"MODIFIED"}\n';
    };
    const chunk = frames.chunk(first, 'MODIFIED json', encode);
    expect(chunk.toString('latin1')).toBe('14\r\n{"type":"MODIFIED"}\n\r\n');
    expect(frames.chunk(first, 'MODIFIED json', encode)).toBe(chunk);
    expect(frames.frame(first, 'MODIFIED json', encode).toString()).toBe('{"type":"MODIFIED"}\n');
    expect(encodings).toBe(1);
    expect(httpChunk(['é', Buffer.from('ab')]).toString('utf8')).toBe('4\r\néab\r\n');
    expect(() => httpChunk([''])).toThrow(RangeError);
  });
});
