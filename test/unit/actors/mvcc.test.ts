import { describe, expect, it } from 'vitest';
import { History, historyWindowMillis } from '../../../actors/mvcc/history.ts';
import { ObjectIndex, lowerBound } from '../../../actors/mvcc/object-index.ts';
import { ClusterState, collectionPrefix, keyString } from '../../../actors/index.ts';
import type { ChangeEvent } from '../../../actors/index.ts';
import { rfc3339ToMillis } from '../../../actors/time.ts';
import { at, cmKey, create, entry, nsKey, objectFor } from './fixtures.ts';

describe('ObjectIndex', () => {
  it('keeps keys sorted whatever the insertion order, and point reads work', () => {
    const index = new ObjectIndex<string>();
    for (const k of ['c', 'a', 'b', 'aa', 'a']) index.set(k, k.toUpperCase());
    expect(index.all()).toEqual(['A', 'AA', 'B', 'C']);
    expect(index.get('aa')).toBe('AA');
    expect(index.delete('aa')).toBe(true);
    expect(index.delete('aa')).toBe(false);
    expect(index.all()).toEqual(['A', 'B', 'C']);
    expect(index.size).toBe(3);
  });

  it('fromSorted builds the same index as inserting the keys one by one, and refuses keys out of order', () => {
    const keys = ['a', 'a-b', 'a/x', 'b', 'c'];
    const built = ObjectIndex.fromSorted(keys, keys.map((k) => k.toUpperCase()));
    const inserted = new ObjectIndex<string>();
    for (const k of [...keys].reverse()) inserted.set(k, k.toUpperCase());
    expect(built.all()).toEqual(inserted.all());
    expect(built.range('a')).toEqual(inserted.range('a'));
    expect(built.get('a/x')).toBe('A/X');
    built.set('aa', 'AA');
    expect(built.all()).toEqual(['A', 'A-B', 'A/X', 'AA', 'B', 'C']);
    expect(ObjectIndex.strictlyIncreasing(keys)).toBe(true);
    expect(ObjectIndex.strictlyIncreasing(['a', 'a'])).toBe(false);
    expect(ObjectIndex.strictlyIncreasing(['b', 'a'])).toBe(false);
    expect(() => ObjectIndex.fromSorted(['b', 'a'], [1, 2])).toThrow(/strictly increasing/);
  });

  it('a collection is one contiguous range, per namespace or across all namespaces', () => {
    const index = new ObjectIndex<string>();
    const keys = [cmKey('a', 'x'), cmKey('a-b', 'y'), cmKey('a', 'w'), cmKey('b', 'z'), nsKey('a'), { group: 'apps', resource: 'deployments', namespace: 'a', name: 'd' }];
    for (const key of keys) index.set(keyString(key), `${key.namespace}/${key.name}`);
    expect(index.range(collectionPrefix({ group: '', resource: 'configmaps', namespace: 'a' }))).toEqual(['a/w', 'a/x']);
    expect(index.range(collectionPrefix({ group: '', resource: 'configmaps', namespace: '' }))).toEqual(['a-b/y', 'a/w', 'a/x', 'b/z']); // byte order of the key, as etcd: '-' < '/'
    expect(index.range(collectionPrefix({ group: '', resource: 'namespaces', namespace: '' }))).toEqual(['/a']);
    expect(index.range(collectionPrefix({ group: 'apps', resource: 'deployments', namespace: '' }))).toEqual(['a/d']);
    expect(index.range(collectionPrefix({ group: '', resource: 'secrets', namespace: '' }))).toEqual([]);
  });

  it('lowerBound finds the first key >= the probe', () => {
    expect([lowerBound([], 'a'), lowerBound(['a', 'c'], 'b'), lowerBound(['a', 'c'], 'c'), lowerBound(['a', 'c'], 'd')]).toEqual([0, 1, 1, 2]);
  });
});

function event(revision: number): ChangeEvent {
  const key = cmKey('ns', `o${revision}`);
  return { type: 'ADDED', key, object: objectFor(key), revision };
}

describe('History', () => {
  const base = rfc3339ToMillis(at(0)) as number;

  it('eventsSince returns the events after a revision, in order', () => {
    const h = new History();
    for (const r of [2, 3, 5]) h.append([event(r)], base);
    expect(h.eventsSince(0)).toEqual({ type: 'events', events: [event(2), event(3), event(5)] });
    expect(h.eventsSince(3)).toEqual({ type: 'events', events: [event(5)] });
    expect(h.eventsSince(4)).toEqual({ type: 'events', events: [event(5)] });
    expect(h.eventsSince(5)).toEqual({ type: 'events', events: [] });
    expect(h.eventsSince(99)).toEqual({ type: 'events', events: [] });
  });

  it('keeps events within 5 minutes of the newest command time', () => {
    const h = new History();
    h.append([event(1)], base);
    h.append([event(2)], base + 1000);
    h.append([event(3)], base + historyWindowMillis); // event 1 is exactly 5 min old: kept
    expect(h.length).toBe(3);
    h.append([event(4)], base + historyWindowMillis + 1); // event 1 leaves
    expect(h.length).toBe(3);
    expect(h.compactedThrough()).toBe(1);
  });

  it('a clock that goes back delays compaction but never drops a non-prefix', () => {
    const h = new History();
    h.append([event(1)], base + 10 * 60_000);
    h.append([event(2)], base); // an earlier proposer clock: kept behind event 1 (only a prefix may go)
    expect(h.length).toBe(2);
    expect(h.compactedThrough()).toBe(0);
    h.append([event(3)], base + 16 * 60_000); // now both are out of the window
    expect(h.compactedThrough()).toBe(2);
    expect(h.eventsSince(2)).toEqual({ type: 'events', events: [event(3)] });
  });

  it('is capped at historyEventsMax, oldest first', () => {
    const h = new History(3);
    for (let r = 1; r <= 5; r++) h.append([event(r)], base);
    expect(h.length).toBe(3);
    expect(h.compactedThrough()).toBe(2);
  });

  it('too old exactly below the compaction boundary', () => {
    const h = new History(2);
    for (const r of [3, 4, 7]) h.append([event(r)], base); // evicts revision 3
    expect(h.compactedThrough()).toBe(3);
    expect(h.eventsSince(2)).toEqual({ type: 'tooOld', compactedRevision: 3 });
    expect(h.eventsSince(3)).toEqual({ type: 'events', events: [event(4), event(7)] });
  });

  it('survives a long run with compaction of its backing array', () => {
    const h = new History(10);
    for (let r = 1; r <= 5000; r++) h.append([event(r)], base + r);
    expect(h.length).toBe(10);
    const since = h.eventsSince(4995);
    expect(since.type === 'events' && since.events.map((e) => e.revision)).toEqual([4996, 4997, 4998, 4999, 5000]);
    expect(h.eventsSince(4989).type).toBe('tooOld');
    expect(h.eventsSince(4990).type).toBe('events');
    const restored = History.fromJson(JSON.parse(JSON.stringify(h.toJson())), 10);
    expect(restored.eventsSince(4990)).toEqual(h.eventsSince(4990));
  });

  it('ClusterState history windows by command time', () => {
    const s = new ClusterState();
    s.apply(entry(1, create(nsKey('ns'), objectFor(nsKey('ns')), at(0))));
    s.apply(entry(2, create(cmKey('ns', 'a'), objectFor(cmKey('ns', 'a')), at(60))));
    s.apply(entry(3, create(cmKey('ns', 'b'), objectFor(cmKey('ns', 'b')), at(301))));
    expect(s.eventsSince(0)).toEqual({ type: 'tooOld', compactedRevision: 1 });
    const since = s.eventsSince(1);
    expect(since.type === 'events' && since.events.map((e) => e.revision)).toEqual([2, 3]);
  });
});

describe('rfc3339ToMillis', () => {
  it('agrees with Date.parse on valid times and rejects invalid ones', () => {
    for (const text of ['2026-01-01T00:00:00Z', '2024-02-29T23:59:59.123Z', '1999-12-31T23:00:00+05:30', '2000-03-01T00:00:00-08:00', '1970-01-01T00:00:00Z', '1969-07-20T20:17:40Z']) {
      expect(rfc3339ToMillis(text)).toBe(Date.parse(text));
    }
    for (const text of ['2025-02-29T00:00:00Z', '2026-01-01', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', 'yesterday', '2026-01-01T00:00:00']) {
      expect(rfc3339ToMillis(text)).toBeUndefined();
    }
  });
});
