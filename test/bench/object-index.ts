// Owns: a micro-benchmark of actors/mvcc/object-index.ts (ObjectIndex): CPU nanoseconds per
// insert of a new key and per delete at 10k/100k/200k keys, per range(prefix) of 500 keys, per
// fromSorted key, and the V8 heap per key of the index; beside them, what a Map.set of the same
// new keys costs alone. A warm-up run at 10k keys comes first and is not reported. A benchmark,
// not a test: one JSON document on stdout.
//
// Run: node --expose-gc --import tsx test/bench/object-index.ts [--module PATH] [--sizes 10000,100000,200000]
// --module names another copy of object-index.ts (e.g. a worktree of an earlier commit) to compare
// old and new with the same driver.
// Keys are shaped as the write bench's creates (keyString of ConfigMaps named
// <label>-<client>-<sequence> for 64 clients in one namespace, with a few other namespaces around
// it): each new key lands inside the namespace, not at its end.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface IndexLike {
  set(key: string, value: number): void;
  delete(key: string): boolean;
  range(prefix: string): number[];
  readonly size: number;
}
interface IndexModule {
  ObjectIndex: { new (): IndexLike; fromSorted(keys: readonly string[], values: readonly number[]): IndexLike };
}

const { values: flags } = parseArgs({
  options: {
    module: { type: 'string', default: path.join(import.meta.dirname, '../../actors/mvcc/object-index.ts') },
    sizes: { type: 'string', default: '10000,100000,200000' },
  },
});
const { ObjectIndex } = (await import(pathToFileURL(path.resolve(flags.module)).href)) as IndexModule;
const sizes = flags.sizes.split(',').map(Number);
const clients = 64;

function keyOf(namespace: string, sequence: number): string {
  return `/configmaps/${namespace}/bench-${sequence % clients}-${Math.floor(sequence / clients)}`;
}

/** An index of n keys: most in namespace 'bench', some around it. */
function keysOf(n: number): string[] {
  const keys: string[] = [];
  for (let s = 0; s < n; s++) keys.push(keyOf(s % 10 === 0 ? `other-${s % 7}` : 'bench', s));
  return keys.sort();
}

/** CPU time (user + system) per operation, in ns: time spent descheduled on a shared machine is not counted. */
function nanosPer(operations: number, run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / operations;
}

const gc = (globalThis as { gc?: () => void }).gc;
function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const results: Record<string, unknown>[] = [];
for (const [run, n] of [10000, ...sizes].entries()) {
  const keys = keysOf(n);
  const values = keys.map((_, at) => at);
  const fromSortedNs = Math.min(...[0, 1, 2].map(() => nanosPer(n, () => ObjectIndex.fromSorted(keys, values))));
  const heapBefore = heapUsed();
  const index = ObjectIndex.fromSorted(keys, values);
  const heapPerKey = (heapUsed() - heapBefore) / n;
  const batch = 5000;
  const insertNs: number[] = [];
  const deleteNs: number[] = [];
  for (let round = 0; round < 6; round++) {
    const fresh = Array.from({ length: batch }, (_, at) => keyOf('bench', n + round * batch + at));
    insertNs.push(nanosPer(batch, () => { for (const key of fresh) index.set(key, 0); }));
    deleteNs.push(nanosPer(batch, () => { for (const key of fresh) index.delete(key); }));
  }
  // What the same keys cost a Map alone (the floor under any ordered index holding a Map).
  const mapNs: number[] = [];
  const map = new Map(keys.map((key) => [key, 0]));
  for (let round = 0; round < 6; round++) {
    const fresh = Array.from({ length: batch }, (_, at) => keyOf('bench', n + round * batch + at));
    mapNs.push(nanosPer(batch, () => { for (const key of fresh) map.set(key, 0); }));
    for (const key of fresh) map.delete(key);
  }
  // One namespace of 500 among the rest.
  const small = Array.from({ length: 500 }, (_, at) => keyOf('small', at));
  for (const key of small) index.set(key, 1);
  let sink = 0;
  const rangeNs = Math.min(...[0, 1, 2].map(() => nanosPer(2000, () => { for (let r = 0; r < 2000; r++) sink += index.range('/configmaps/small/').length; })));
  if (sink !== 3 * 500 * 2000) throw new Error(`range returned ${sink / 6000} keys`);
  const median = (list: number[]): number => [...list].sort((a, b) => a - b)[list.length >> 1] as number;
  if (run === 0) continue; // warm-up
  results.push({
    keys: n,
    insertNsMedian: Math.round(median(insertNs)),
    deleteNsMedian: Math.round(median(deleteNs)),
    mapOnlySetNsMedian: Math.round(median(mapNs)),
    range500Ns: Math.round(rangeNs),
    fromSortedNsPerKey: Math.round(fromSortedNs),
    heapBytesPerKey: gc === undefined ? null : Math.round(heapPerKey),
  });
}
process.stdout.write(`${JSON.stringify({ module: flags.module, results }, null, 1)}\n`);
