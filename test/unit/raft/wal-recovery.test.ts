// WAL recovery over several segments (raft/storage/wal-recovery.ts reads the next segment while
// it scans the current one): entries come back in order from every segment, covered or not, and
// a bad record in a sealed segment is still refused while the next segment's read is under way.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptLogError, Wal } from '../../../raft/storage/index.ts';
import type { Entry } from '../../../raft/core/index.ts';

const segmentBytes = 1024;
let dataDir = '';

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-wal-recovery-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function makeEntry(index: number): Entry {
  const data = new Uint8Array(100);
  for (let position = 0; position < data.length; position += 1) data[position] = (index * 31 + position) & 0xff;
  return { index, term: 1, data };
}

async function segments(): Promise<string[]> {
  return (await readdir(path.join(dataDir, 'wal'))).sort().map((name) => path.join(dataDir, 'wal', name));
}

async function writeEntries(count: number): Promise<Entry[]> {
  const wal = await Wal.open(dataDir, { segmentBytes });
  const entries = Array.from({ length: count }, (_, at) => makeEntry(at + 1));
  for (let at = 0; at < entries.length; at += 3) await wal.append(entries.slice(at, at + 3));
  await wal.close();
  return entries;
}

describe('raft storage - WAL recovery over segments', () => {
  it('reads back every segment in order, with and without covered entries', async () => {
    const entries = await writeEntries(40);
    expect((await segments()).length).toBeGreaterThanOrEqual(3);
    for (const coveredThrough of [0, 20]) {
      const wal = await Wal.open(dataDir, { segmentBytes, coveredThrough });
      expect(wal.recovered.entries.map((entry) => ({ ...entry, data: Uint8Array.from(entry.data) }))).toEqual(entries);
      await wal.close();
    }
  });

  it('refuses a bad record in the first sealed segment while later segments are read ahead', async () => {
    await writeEntries(40);
    const [first] = await segments();
    const contents = await readFile(first!);
    contents[40]! ^= 0x01; // inside the first entry's data: valid records follow it
    await writeFile(first!, contents);
    await expect(Wal.open(dataDir, { segmentBytes })).rejects.toBeInstanceOf(CorruptLogError);
  });
});
