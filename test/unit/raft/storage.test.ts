// WAL durability scenarios on real temp directories: round trip, torn tails, corruption,
// conflicting suffix overwrite.
import { constants } from 'node:fs';
import { mkdtemp, readdir, readFile, readlink, rm, stat, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptLogError, MemoryStorage, Wal } from '../../../raft/storage/index.ts';
import type { Entry } from '../../../raft/core/index.ts';

let dataDir = '';

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-wal-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function makeEntry(index: number, term: number, size = 8): Entry {
  const data = new Uint8Array(size);
  for (let position = 0; position < size; position += 1) data[position] = (index * 31 + position) & 0xff;
  return { index, term, data };
}

async function segmentPath(): Promise<string> {
  const names = (await readdir(path.join(dataDir, 'wal'))).sort();
  expect(names.length).toBeGreaterThan(0);
  return path.join(dataDir, 'wal', names.at(-1)!);
}

async function reopen(): Promise<Wal> {
  return Wal.open(dataDir);
}

describe('raft storage - WAL', () => {
  it('reads back entries byte-identical and the latest hard state (round trip)', async () => {
    const wal = await reopen();
    expect(wal.recovered.entries).toEqual([]);
    const entries = [makeEntry(1, 1, 0), makeEntry(2, 1, 100), makeEntry(3, 2, 70_000)];
    await wal.append(entries.slice(0, 2), { term: 1, vote: 'a', commit: 0 });
    await wal.append(entries.slice(2), { term: 2, vote: undefined, commit: 2 });
    await wal.close();
    const again = await reopen();
    expect(again.recovered.entries).toEqual(entries);
    expect(again.recovered.hardState).toEqual({ term: 2, vote: undefined, commit: 2 });
    await again.close();
  });

  it('keeps its segments open with O_DSYNC, so an append is durable when its one write returns', async () => {
    const dsyncFlags = async (): Promise<number> => {
      const file = await segmentPath();
      for (const fd of await readdir('/proc/self/fd')) {
        const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
        if (target !== file) continue;
        const flags = /^flags:\s+([0-7]+)$/m.exec(await readFile(`/proc/self/fdinfo/${fd}`, 'utf8'));
        return Number.parseInt(flags?.[1] ?? '0', 8);
      }
      throw new Error(`no open descriptor for ${file}`);
    };
    const wal = await reopen();
    await wal.append([makeEntry(1, 1)]);
    expect(await dsyncFlags() & constants.O_DSYNC).toBe(constants.O_DSYNC);
    await wal.close();
    const again = await reopen(); // an existing segment is reopened the same way
    expect(await dsyncFlags() & constants.O_DSYNC).toBe(constants.O_DSYNC);
    await again.close();
  });

  it('truncates a torn tail record and continues appending after the last whole one', async () => {
    const wal = await reopen();
    await wal.append([makeEntry(1, 1), makeEntry(2, 1)]);
    await wal.append([makeEntry(3, 1, 500)]);
    await wal.close();
    const file = await segmentPath();
    const size = (await stat(file)).size;
    await truncate(file, size - 100); // cut entry 3 mid-record, as a crash during write would
    const recovered = await reopen();
    expect(recovered.recovered.entries.map((e) => e.index)).toEqual([1, 2]);
    await recovered.append([makeEntry(3, 2, 20), makeEntry(4, 2)]);
    await recovered.close();
    const final = await reopen();
    expect(final.recovered.entries).toEqual([makeEntry(1, 1), makeEntry(2, 1), makeEntry(3, 2, 20), makeEntry(4, 2)]);
    await final.close();
  });

  it('truncates trailing garbage after the last record', async () => {
    const wal = await reopen();
    await wal.append([makeEntry(1, 1)]);
    await wal.close();
    const file = await segmentPath();
    const contents = await readFile(file);
    await writeFile(file, Buffer.concat([contents, Buffer.alloc(37, 0xab)]));
    const recovered = await reopen();
    expect(recovered.recovered.entries).toEqual([makeEntry(1, 1)]);
    expect((await stat(file)).size).toBe(contents.length);
    await recovered.close();
  });

  it('truncates a checksum-failing last record', async () => {
    const wal = await reopen();
    await wal.append([makeEntry(1, 1), makeEntry(2, 1, 64)]);
    await wal.close();
    const file = await segmentPath();
    const contents = await readFile(file);
    contents[contents.length - 5]! ^= 0xff; // flip a bit in the last record's data
    await writeFile(file, contents);
    const recovered = await reopen();
    expect(recovered.recovered.entries).toEqual([makeEntry(1, 1)]);
    await recovered.close();
  });

  it('refuses a checksum mismatch followed by valid records (CorruptLogError)', async () => {
    const wal = await reopen();
    await wal.append([makeEntry(1, 1, 64)]);
    await wal.append([makeEntry(2, 1, 64), makeEntry(3, 1, 64)]);
    await wal.close();
    const file = await segmentPath();
    const contents = await readFile(file);
    contents[40]! ^= 0x01; // inside entry 1's data; entries 2 and 3 stay valid
    await writeFile(file, contents);
    await expect(reopen()).rejects.toBeInstanceOf(CorruptLogError);
  });

  it('overwrites a conflicting suffix and the overwrite survives reopen', async () => {
    const wal = await reopen();
    await wal.append([makeEntry(1, 1), makeEntry(2, 1), makeEntry(3, 1), makeEntry(4, 1)]);
    await wal.append([makeEntry(3, 2, 3)], { term: 2, vote: 'b', commit: 2 });
    await wal.append([makeEntry(4, 2, 5)]);
    await wal.close();
    const recovered = await reopen();
    expect(recovered.recovered.entries).toEqual([makeEntry(1, 1), makeEntry(2, 1), makeEntry(3, 2, 3), makeEntry(4, 2, 5)]);
    expect(recovered.recovered.hardState.vote).toBe('b');
    await recovered.append([makeEntry(2, 3, 1)]);
    await recovered.close();
    const final = await reopen();
    expect(final.recovered.entries).toEqual([makeEntry(1, 1), makeEntry(2, 3, 1)]);
    await final.close();
  });

  it('rejects an append that would leave a gap', async () => {
    const wal = await reopen();
    await wal.append([makeEntry(1, 1)]);
    await expect(wal.append([makeEntry(3, 1)])).rejects.toThrow(/gap/);
    await wal.close();
  });
});

describe('raft storage - memory', () => {
  it('keeps copies and replaces a conflicting suffix', async () => {
    const storage = new MemoryStorage();
    const data = new Uint8Array([1, 2, 3]);
    await storage.append([{ index: 1, term: 1, data }, makeEntry(2, 1)], { term: 1, vote: 'a', commit: 1 });
    data[0] = 9;
    await storage.append([makeEntry(2, 2)]);
    const durable = storage.durableState();
    expect(durable.entries).toEqual([{ index: 1, term: 1, data: new Uint8Array([1, 2, 3]) }, makeEntry(2, 2)]);
    expect(new MemoryStorage(durable).recovered.hardState).toEqual({ term: 1, vote: 'a', commit: 1 });
  });
});

describe('raft storage - WAL record order under torn writes', () => {
  // Found by the simulator (torn writes that keep a prefix of a batch's records): with the hard
  // state written before the entries, a crash could keep a commit index that covers entries of
  // the batch, which replaced a divergent suffix, while losing those entries. Recovery then
  // clamped the commit to the stale suffix and applied it as committed.
  it('a torn batch never keeps a hard state whose commit covers entries it lost', async () => {
    const wal = await reopen();
    await wal.append([makeEntry(1, 1), makeEntry(2, 1), makeEntry(3, 1)], { term: 1, vote: 'a', commit: 1 });
    // A new leader's entry 3 of term 2 replaces the uncommitted 3/1, and commits through 3.
    await wal.append([makeEntry(3, 2, 200)], { term: 2, vote: undefined, commit: 3 });
    await wal.close();
    const file = await segmentPath();
    const whole = await readFile(file);
    for (let cut = 1; cut <= 240; cut += 7) {
      await writeFile(file, whole.subarray(0, whole.byteLength - cut)); // a crash anywhere in the last batch
      const recovered = await reopen();
      const { entries, hardState } = recovered.recovered;
      await recovered.close();
      const third = entries.find((entry) => entry.index === 3);
      if (hardState.commit >= 3) expect(third?.term).toBe(2);
    }
  });
});
