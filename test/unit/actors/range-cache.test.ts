import { describe, expect, it } from 'vitest';
import { ObjectIndex } from '../../../actors/index.ts';
import { RangeCache } from '../../../actors/mvcc/range-cache.ts';

describe('RangeCache', () => {
  it('answers a repeated range with the same frozen array until the index changes', () => {
    const index = new ObjectIndex<{ n: number }>();
    index.set('a/1', { n: 1 });
    index.set('a/2', { n: 2 });
    index.set('b/1', { n: 3 });
    const cache = new RangeCache<{ n: number }, number>((value) => value.n);
    const first = cache.items(index, 'a/');
    expect(first).toEqual([1, 2]);
    expect(Object.isFrozen(first)).toBe(true);
    expect(cache.items(index, 'a/')).toBe(first);
    index.set('a/3', { n: 4 });
    expect(cache.items(index, 'a/')).toEqual([1, 2, 4]);
    index.delete('a/1');
    expect(cache.items(index, 'a/')).toEqual([2, 4]);
  });

  it('does not answer for another index at the same version', () => {
    const one = new ObjectIndex<number>();
    one.set('a/1', 1);
    const other = new ObjectIndex<number>();
    other.set('a/1', 2);
    const cache = new RangeCache<number, number>((value) => value);
    expect(cache.items(one, 'a/')).toEqual([1]);
    expect(cache.items(other, 'a/')).toEqual([2]);
  });

  it('keeps a bounded number of prefixes', () => {
    const index = new ObjectIndex<number>();
    for (let n = 0; n < 20; n++) index.set(`p${n}/x`, n);
    const cache = new RangeCache<number, number>((value) => value);
    const arrays = Array.from({ length: 20 }, (_, n) => cache.items(index, `p${n}/`));
    expect(cache.items(index, 'p19/')).toBe(arrays[19]);
    expect(cache.items(index, 'p0/')).not.toBe(arrays[0]);
    expect(cache.items(index, 'p0/')).toEqual([0]);
  });
});
