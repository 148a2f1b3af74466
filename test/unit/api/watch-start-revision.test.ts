// A watch from a resourceVersion the API replica's copy has not reached yet (the write came
// through another replica): the events up to that version reach the cache after the watch is
// registered, and must not be sent — the watch starts after its resourceVersion. Nor may a
// bookmark behind it be sent.
import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../actors/index.ts';
import { CacheWatcher } from '../../../api/watchcache/cache-watcher.ts';

function event(revision: number, type: ChangeEvent['type'] = 'ADDED'): ChangeEvent {
  return {
    type, revision,
    key: { group: '', resource: 'configmaps', namespace: 'default', name: `c${revision}` },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${revision}`, namespace: 'default', resourceVersion: String(revision) } },
  } as ChangeEvent;
}

describe('a watcher that starts after a revision', () => {
  it('takes only later events and bookmarks, whenever they are offered', async () => {
    const watcher = new CacheWatcher({ matches: () => true }, () => {}, 8);
    for (const revision of [6, 7, 8, 9]) watcher.offer(event(revision));
    watcher.offerBookmark(7);
    watcher.offerBookmark(9);
    watcher.terminate(undefined);
    const items: { type: string; revision: number }[] = [];
    for await (const item of watcher) items.push({ type: item.type, revision: item.revision });
    expect(items).toEqual([{ type: 'ADDED', revision: 9 }, { type: 'BOOKMARK', revision: 9 }]);
  });
});
