// Snapshot files, WAL snapshot markers and segment release, and recovery that combines them
// (DiskStorage), on real temp directories.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Entry, HardState, Snapshot } from '../../../raft/core/index.ts';
import { DiskStorage, MemoryStorage, SnapshotMissingError, SnapshotStore, Wal } from '../../../raft/storage/index.ts';

let dataDir = '';
const configuration = { voters: ['a', 'b', 'c'], learners: ['d'] };
const hardState: HardState = { term: 2, vote: 'a', commit: 0 };

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-snap-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function entries(from: number, to: number, term = 1): Entry[] {
  return Array.from({ length: to - from + 1 }, (_, offset) => ({ index: from + offset, term, data: new Uint8Array(200).fill((from + offset) & 0xff) }));
}

function snapshotAt(index: number, term = 1): Snapshot {
  return { meta: { index, term, configuration }, data: new TextEncoder().encode(`state@${index}`) };
}

async function listDir(name: string): Promise<string[]> {
  return (await readdir(path.join(dataDir, name))).sort();
}

describe('raft storage - snapshot store', () => {
  it('round-trips a snapshot with its configuration and keeps only the newest two', async () => {
    const { store } = await SnapshotStore.open(dataDir);
    for (const index of [10, 20, 30]) await store.save(snapshotAt(index));
    expect(store.retainedIndexes()).toEqual([20, 30]);
    expect(await listDir('snap')).toHaveLength(2);
    const { loaded } = await SnapshotStore.open(dataDir);
    expect(loaded.newest).toEqual(snapshotAt(30));
  });

  it('quarantines a corrupt newest snapshot and loads the previous one', async () => {
    const { store } = await SnapshotStore.open(dataDir);
    await store.save(snapshotAt(10));
    await store.save(snapshotAt(20));
    const newest = path.join(dataDir, 'snap', (await listDir('snap')).at(-1)!);
    const bytes = await readFile(newest);
    bytes[bytes.length - 2]! ^= 0x40;
    await writeFile(newest, bytes);
    const { store: reopened, loaded } = await SnapshotStore.open(dataDir);
    expect(loaded.newest?.meta.index).toBe(10);
    expect(loaded.quarantined).toEqual([newest]);
    expect(reopened.retainedIndexes()).toEqual([10]);
    expect((await listDir('snap')).some((name) => name.endsWith('.corrupt'))).toBe(true);
  });
});

describe('raft storage - WAL compaction and recovery from snapshot + WAL', () => {
  it('releases segments wholly below the older retained snapshot and recovers snapshot + later entries', async () => {
    const storage = await DiskStorage.open(dataDir, { segmentBytes: 2048 });
    for (let first = 1; first <= 91; first += 10) await storage.append(entries(first, first + 9), hardState);
    const segmentsBefore = (await listDir('wal')).length;
    expect(segmentsBefore).toBeGreaterThan(5);
    await storage.saveSnapshot(snapshotAt(40), { ...hardState, commit: 100 });
    await storage.saveSnapshot(snapshotAt(80), { ...hardState, commit: 100 });
    const segmentsAfter = await listDir('wal');
    expect(segmentsAfter.length).toBeLessThan(segmentsBefore);
    expect(storage.wal.segmentCount()).toBe(segmentsAfter.length);
    await storage.close();
    const reopened = await DiskStorage.open(dataDir, { segmentBytes: 2048 });
    expect(reopened.recovered.snapshot).toEqual(snapshotAt(80));
    expect(reopened.recovered.entries.map((entry) => entry.index)).toEqual(entries(81, 100).map((entry) => entry.index));
    expect(reopened.recovered.hardState).toEqual({ ...hardState, commit: 100 });
    await reopened.close();
  });

  it('falls back to the previous snapshot when the newest is corrupt, replaying the WAL from there', async () => {
    const storage = await DiskStorage.open(dataDir, { segmentBytes: 2048 });
    for (let first = 1; first <= 91; first += 10) await storage.append(entries(first, first + 9), hardState);
    await storage.saveSnapshot(snapshotAt(40), hardState);
    await storage.saveSnapshot(snapshotAt(80), hardState);
    await storage.close();
    const newest = path.join(dataDir, 'snap', (await listDir('snap')).at(-1)!);
    await writeFile(newest, Buffer.from('not a snapshot'));
    const quarantined: string[] = [];
    const reopened = await DiskStorage.open(dataDir, { segmentBytes: 2048, onCorruptSnapshot: (file) => quarantined.push(file) });
    expect(quarantined).toEqual([newest]);
    expect(reopened.recovered.snapshot?.meta.index).toBe(40);
    expect(reopened.recovered.entries[0]?.index).toBe(41);
    expect(reopened.recovered.entries.at(-1)?.index).toBe(100);
    await reopened.close();
  });

  it('an installed snapshot marker discards a stale divergent suffix on replay', async () => {
    const storage = await DiskStorage.open(dataDir);
    await storage.append(entries(1, 30, 1), hardState);
    await storage.saveSnapshot(snapshotAt(50, 3), { term: 3, vote: undefined, commit: 50 });
    await storage.append(entries(51, 52, 3));
    await storage.close();
    const reopened = await DiskStorage.open(dataDir);
    expect(reopened.recovered.snapshot?.meta).toMatchObject({ index: 50, term: 3 });
    expect(reopened.recovered.entries.map((entry) => [entry.index, entry.term])).toEqual([[51, 3], [52, 3]]);
    await reopened.close();
  });

  it('refuses a log that continues a snapshot no valid file holds (SnapshotMissingError)', async () => {
    const storage = await DiskStorage.open(dataDir);
    await storage.append(entries(1, 5), hardState);
    await storage.saveSnapshot(snapshotAt(50, 3), { term: 3, vote: undefined, commit: 50 });
    await storage.close();
    await rm(path.join(dataDir, 'snap'), { recursive: true });
    await expect(DiskStorage.open(dataDir)).rejects.toBeInstanceOf(SnapshotMissingError);
  });

  it('drops a stale log left by a crash between an installed snapshot\'s file and its WAL marker', async () => {
    const wal = await Wal.open(dataDir);
    await wal.append(entries(1, 30, 1), hardState);
    await wal.close();
    const { store } = await SnapshotStore.open(dataDir);
    await store.save(snapshotAt(20, 3)); // crash here: no marker was written
    const reopened = await DiskStorage.open(dataDir);
    expect(reopened.recovered.snapshot?.meta).toMatchObject({ index: 20, term: 3 });
    expect(reopened.recovered.entries).toEqual([]);
    await reopened.append(entries(21, 21, 3));
    await reopened.close();
    const again = await DiskStorage.open(dataDir); // the repair marker keeps the stale log out
    expect(again.recovered.entries.map((entry) => [entry.index, entry.term])).toEqual([[21, 3]]);
    await again.close();
  });

  it('continues after an installed snapshot beyond a shorter log whose marker a crash lost', async () => {
    const wal = await Wal.open(dataDir);
    await wal.append(entries(1, 5, 1), hardState);
    await wal.close();
    const { store } = await SnapshotStore.open(dataDir);
    await store.save(snapshotAt(20, 3));
    const reopened = await DiskStorage.open(dataDir);
    expect(reopened.recovered.entries).toEqual([]);
    await reopened.append(entries(21, 22, 3));
    await reopened.close();
    const again = await DiskStorage.open(dataDir);
    expect(again.recovered.entries.map((entry) => entry.index)).toEqual([21, 22]);
    await again.close();
  });

  it('reads the entries a snapshot covers without copying their data; the entries kept are copies', async () => {
    const wal = await Wal.open(dataDir);
    await wal.append(entries(1, 30, 1), hardState);
    await wal.close();
    const reopened = await Wal.open(dataDir, { coveredThrough: 20 });
    const recovered = reopened.recovered.entries;
    expect(recovered.map((entry) => entry.index)).toEqual(entries(1, 30).map((entry) => entry.index));
    for (const [at, entry] of recovered.entries()) expect(Buffer.from(entry.data).equals(Buffer.from(entries(1, 30)[at]!.data))).toBe(true);
    const segmentBuffer = recovered[0]!.data.buffer;
    expect(recovered.slice(0, 20).every((entry) => entry.data.buffer === segmentBuffer)).toBe(true);
    expect(recovered.slice(20).every((entry) => entry.data.buffer !== segmentBuffer && entry.data.byteOffset === 0 && entry.data.buffer.byteLength === entry.data.byteLength)).toBe(true);
    await reopened.close();
    const storage = await DiskStorage.open(dataDir);
    await storage.saveSnapshot(snapshotAt(20, 1), hardState);
    await storage.close();
    const restarted = await DiskStorage.open(dataDir);
    // What the member keeps past its snapshot owns its bytes (no segment buffer pinned).
    expect(restarted.recovered.entries.map((entry) => entry.index)).toEqual(entries(21, 30).map((entry) => entry.index));
    expect(restarted.recovered.entries.every((entry) => entry.data.buffer.byteLength === entry.data.byteLength)).toBe(true);
    const held = restarted.wal.recovered.entries;
    expect(held[0]!.index).toBe(1);
    expect(held[0]!.data.buffer.byteLength).toBeGreaterThan(held[0]!.data.byteLength);
    await restarted.close();
  });

  it('keeps the configuration-entry flag of logged entries', async () => {
    const wal = await Wal.open(dataDir);
    const data = new TextEncoder().encode('{"voters":["a"],"learners":[]}');
    await wal.append([{ index: 1, term: 1, data }, { index: 2, term: 1, data, type: 'configuration' }]);
    await wal.close();
    const reopened = await Wal.open(dataDir);
    expect(reopened.recovered.entries.map((entry) => entry.type)).toEqual([undefined, 'configuration']);
    await reopened.close();
  });
});

describe('raft storage - memory snapshots', () => {
  it('keeps the log after a matching snapshot and drops a non-matching one', async () => {
    const storage = new MemoryStorage();
    await storage.append(entries(1, 10), hardState);
    await storage.saveSnapshot(snapshotAt(6), hardState);
    expect(storage.durableState().entries.map((entry) => entry.index)).toEqual([7, 8, 9, 10]);
    await storage.saveSnapshot(snapshotAt(8, 5), hardState);
    expect(storage.durableState().entries).toEqual([]);
    expect(storage.durableState().snapshot?.meta.index).toBe(8);
    await storage.append(entries(9, 9, 5));
    expect(new MemoryStorage(storage.durableState()).recovered.entries.map((entry) => entry.index)).toEqual([9]);
  });
});
