// Owns: ObjectIndex's block layout checked against a plain model (a Map and one sorted array of
// keys) over many seeded random operations: inserts in random, ascending and descending order,
// replacements, deletes (some of missing keys), ranges by prefix, fromSorted, and enough keys that
// blocks split, merge and disappear.
import { describe, expect, it } from 'vitest';
import { ObjectIndex, lowerBound, objectIndexBlockKeysMax } from '../../../actors/mvcc/object-index.ts';
import { createRng } from '../../../raft/stdx/index.ts';

/** A number in [0, 1) from the project's seeded generator: the same seed gives the same operations. */
function seededRandom(seed: number): () => number {
  const rng = createRng(seed);
  return () => rng.nextUint32() / 0x1_0000_0000;
}

/** What ObjectIndex must behave as: a Map and one sorted array, spliced. */
class ModelIndex {
  readonly values = new Map<string, number>();
  readonly sortedKeys: string[] = [];
  version = 0;

  set(key: string, value: number): void {
    this.version++;
    if (!this.values.has(key)) this.sortedKeys.splice(lowerBound(this.sortedKeys, key), 0, key);
    this.values.set(key, value);
  }

  delete(key: string): boolean {
    if (!this.values.delete(key)) return false;
    this.version++;
    this.sortedKeys.splice(lowerBound(this.sortedKeys, key), 1);
    return true;
  }

  range(prefix: string): number[] {
    return this.sortedKeys.filter((key) => key.startsWith(prefix)).map((key) => this.values.get(key) as number);
  }
}

/** Keys shaped like keyString's: a few resources and namespaces, many names (so prefixes group them). */
function keyFrom(random: () => number, names: number): string {
  const resource = ['configmaps', 'secrets', 'pods'][Math.floor(random() * 3)] as string;
  const namespace = ['a', 'a-b', 'b', 'kube-system'][Math.floor(random() * 4)] as string;
  return `/${resource}/${namespace}/n${Math.floor(random() * names)}`;
}

const prefixes = ['', '/configmaps/', '/configmaps/a/', '/configmaps/a', '/pods/b/', '/pods/b/n1', '/secrets/kube-system/n2', '/zzz', '/a'];

function expectSame(index: ObjectIndex<number>, model: ModelIndex, random: () => number): void {
  expect(index.size).toBe(model.sortedKeys.length);
  expect(index.version).toBe(model.version);
  index.checkedBlockSizes();
  for (const prefix of prefixes) expect(index.range(prefix)).toEqual(model.range(prefix));
  expect(index.all()).toEqual(model.range(''));
  for (let probe = 0; probe < 20; probe++) {
    const key = keyFrom(random, 4000);
    expect(index.get(key)).toBe(model.values.get(key));
    expect(index.has(key)).toBe(model.values.has(key));
  }
}

describe('ObjectIndex blocks against a sorted-array model', () => {
  it('random inserts, replacements and deletes, growing then shrinking to empty, agree with the model', () => {
    const random = seededRandom(16);
    const index = new ObjectIndex<number>();
    const model = new ModelIndex();
    let sawSplit = false;
    let mostBlocks = 0;
    const deleteAnswersDiffer: string[] = [];
    const phases = [
      { operations: 12000, deleteShare: 0.2 }, // grows past many blocks
      { operations: 8000, deleteShare: 0.5 }, // churn at a steady size
      { operations: 20000, deleteShare: 0.9 }, // shrinks: blocks merge and disappear
    ];
    for (const [phase, { operations, deleteShare }] of phases.entries()) {
      for (let step = 0; step < operations; step++) {
        const key = keyFrom(random, 4000);
        if (random() < deleteShare) {
          if (index.delete(key) !== model.delete(key)) deleteAnswersDiffer.push(key);
        }
        else {
          index.set(key, step);
          model.set(key, step);
        }
        if (step % 997 === 0) expectSame(index, model, random);
        if (step % 211 === 0) {
          const blocks = index.checkedBlockSizes().length;
          if (blocks > 1) sawSplit = true;
          mostBlocks = Math.max(mostBlocks, blocks);
        }
      }
      expectSame(index, model, random);
      if (phase === 0) expect(index.size).toBeGreaterThan(4 * objectIndexBlockKeysMax);
    }
    expect(sawSplit).toBe(true);
    expect(mostBlocks).toBeGreaterThan(4);
    // Empty every key left, in random order: merges, then the last block goes.
    const left = [...model.sortedKeys];
    for (let at = left.length - 1; at > 0; at--) {
      const other = Math.floor(random() * (at + 1));
      [left[at], left[other]] = [left[other] as string, left[at] as string];
    }
    for (const key of left) if (index.delete(key) !== model.delete(key)) deleteAnswersDiffer.push(key);
    expect(deleteAnswersDiffer).toEqual([]);
    expectSame(index, model, random);
    expect(index.checkedBlockSizes()).toEqual([]);
    expect(index.range('')).toEqual([]);
    index.set('/pods/a/again', 1);
    model.set('/pods/a/again', 1);
    expectSame(index, model, random);
  });

  it('ascending and descending inserts fill blocks from either end, and deletes from either end empty them', () => {
    for (const descending of [false, true]) {
      const index = new ObjectIndex<number>();
      const model = new ModelIndex();
      const keys = Array.from({ length: 5 * objectIndexBlockKeysMax + 7 }, (_, n) => `/configmaps/ns/${String(n).padStart(6, '0')}`);
      const order = descending ? [...keys].reverse() : keys;
      for (const [value, key] of order.entries()) {
        index.set(key, value);
        model.set(key, value);
      }
      const random = seededRandom(descending ? 2 : 1);
      expectSame(index, model, random);
      for (const key of order.slice(0, keys.length - 3)) expect(index.delete(key)).toBe(model.delete(key));
      expectSame(index, model, random);
      expect(index.size).toBe(3);
    }
  });

  it('fromSorted builds full blocks that take inserts, deletes and ranges as the model does', () => {
    const random = seededRandom(7);
    const keys = [...new Set(Array.from({ length: 6000 }, () => keyFrom(random, 100000)))].sort();
    const index = ObjectIndex.fromSorted(keys, keys.map((_, n) => n));
    const model = new ModelIndex();
    for (const [n, key] of keys.entries()) model.set(key, n);
    model.version = keys.length;
    expect(index.checkedBlockSizes().every((size, b, sizes) => size === objectIndexBlockKeysMax || b === sizes.length - 1)).toBe(true);
    expectSame(index, model, random);
    for (let step = 0; step < 6000; step++) {
      const key = random() < 0.5 ? (keys[Math.floor(random() * keys.length)] as string) : keyFrom(random, 100000);
      if (random() < 0.5) expect(index.delete(key)).toBe(model.delete(key));
      else {
        index.set(key, -step);
        model.set(key, -step);
      }
    }
    expectSame(index, model, random);
    expect(ObjectIndex.fromSorted([], []).checkedBlockSizes()).toEqual([]);
    expect(ObjectIndex.fromSorted([], []).range('')).toEqual([]);
  });

  it('a block split or merge keeps a range that crosses block boundaries whole', () => {
    const index = new ObjectIndex<number>();
    const model = new ModelIndex();
    // Two namespaces interleaved with a third so that '/configmaps/m/' spans several blocks.
    for (let n = 0; n < 3 * objectIndexBlockKeysMax; n++) {
      for (const namespace of ['l', 'm', 'n']) {
        const key = `/configmaps/${namespace}/${String(n).padStart(5, '0')}`;
        index.set(key, n);
        model.set(key, n);
      }
    }
    const random = seededRandom(3);
    expect(index.range('/configmaps/m/')).toEqual(model.range('/configmaps/m/'));
    expect(index.range('/configmaps/m/')).toHaveLength(3 * objectIndexBlockKeysMax);
    for (let n = 0; n < 3 * objectIndexBlockKeysMax; n += 2) {
      const key = `/configmaps/l/${String(n).padStart(5, '0')}`;
      expect(index.delete(key)).toBe(model.delete(key));
    }
    expectSame(index, model, random);
  });
});
