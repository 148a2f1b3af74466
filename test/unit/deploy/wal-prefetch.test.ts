// The read-ahead of a member's WAL segments on a worker thread (deploy/wal-prefetch.ts and
// wal-prefetch-worker.ts): the worker runs from a bundle built here with esbuild, as the kstore
// executable runs it from its own bundle; recovery through it must equal recovery without it, and
// a segment changed after the worker read it is read again.
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { checkSegment, CorruptLogError, Wal } from '../../../raft/storage/index.ts';
import type { SegmentSource } from '../../../raft/storage/index.ts';
import type { Entry } from '../../../raft/core/index.ts';
import { WalPrefetch } from '../../../deploy/wal-prefetch.ts';

let bundleDir = '';
let workerUrl: URL;
let raftDir = '';

beforeAll(async () => {
  bundleDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-wal-prefetch-bundle-'));
  const outfile = path.join(bundleDir, 'wal-prefetch-worker.mjs');
  await build({
    entryPoints: [path.resolve('deploy/wal-prefetch-worker.ts')], outfile, bundle: true, platform: 'node', format: 'esm', logLevel: 'silent',
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
  });
  workerUrl = pathToFileURL(outfile);
});

afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});

beforeEach(async () => {
  raftDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-wal-prefetch-'));
});

afterEach(async () => {
  await rm(raftDir, { recursive: true, force: true });
});

function makeEntry(index: number, term: number, size: number): Entry {
  const data = new Uint8Array(size);
  for (let position = 0; position < size; position += 1) data[position] = (index * 31 + position) & 0xff;
  return { index, term, data };
}

/** A WAL of `count` entries in segments of 8 KiB (several segments), closed. */
async function writeWal(count: number): Promise<Entry[]> {
  const wal = await Wal.open(raftDir, { segmentBytes: 8 * 1024 });
  const entries: Entry[] = [];
  for (let index = 1; index <= count; index++) {
    const entry = makeEntry(index, 1 + Math.floor(index / 50), 200 + (index % 13));
    entries.push(entry);
    await wal.append([entry], { term: entry.term, vote: 'a', commit: index - 1 });
  }
  await wal.close();
  return entries;
}

/** `prefetch.segment`, counting the segments it delivered (not left to recovery to read). */
function counting(prefetch: WalPrefetch): { source: SegmentSource; delivered: () => number } {
  let delivered = 0;
  const source: SegmentSource = async (segmentPath) => {
    const segment = await prefetch.segment(segmentPath);
    if (segment !== undefined) delivered += 1;
    return segment;
  };
  return { source, delivered: () => delivered };
}

async function segmentPaths(): Promise<string[]> {
  const directory = path.join(raftDir, 'wal');
  return (await readdir(directory)).filter((name) => name.endsWith('.wal')).sort().map((name) => path.join(directory, name));
}

describe('WalPrefetch', () => {
  it('hands out each segment as on disk with its check, once', async () => {
    await writeWal(120);
    const paths = await segmentPaths();
    expect(paths.length).toBeGreaterThan(2);
    const prefetch = WalPrefetch.start(raftDir, workerUrl);
    try {
      for (const segmentPath of paths) {
        const segment = await prefetch.segment(segmentPath);
        expect(segment).toBeDefined();
        const onDisk = await readFile(segmentPath);
        expect(Buffer.compare(segment!.buffer, onDisk)).toBe(0);
        expect(segment!.check).toEqual(checkSegment(onDisk));
        expect(segment!.check.validBytes).toBe(onDisk.length);
        expect(await prefetch.segment(segmentPath)).toBeUndefined();
      }
      expect(await prefetch.segment(path.join(raftDir, 'wal', 'not-listed.wal'))).toBeUndefined();
    } finally {
      prefetch.release();
    }
  });

  it('recovery through it equals recovery without it, torn tail included', async () => {
    const entries = await writeWal(150);
    const last = (await segmentPaths()).at(-1)!;
    await appendFile(last, Buffer.from([9, 0, 0, 0, 1, 2, 3])); // a torn record
    const prefetch = WalPrefetch.start(raftDir, workerUrl);
    const { source, delivered } = counting(prefetch);
    const through = await Wal.open(raftDir, { segmentBytes: 8 * 1024, segmentSource: source, coveredThrough: 40 });
    prefetch.release();
    expect(delivered()).toBe((await segmentPaths()).length);
    const recovered = { entries: through.recovered.entries, hardState: through.recovered.hardState };
    await through.close();
    const plain = await Wal.open(raftDir, { segmentBytes: 8 * 1024, coveredThrough: 40 });
    expect(recovered.entries).toEqual(plain.recovered.entries);
    expect(recovered.hardState).toEqual(plain.recovered.hardState);
    expect(recovered.entries.map((entry) => entry.index)).toEqual(entries.map((entry) => entry.index));
    expect(recovered.entries.at(-1)!.data).toEqual(entries.at(-1)!.data);
    await plain.close();
  });

  it('a segment changed after the worker read it is read again from disk', async () => {
    await writeWal(60);
    const last = (await segmentPaths()).at(-1)!;
    const prefetch = WalPrefetch.start(raftDir, workerUrl);
    try {
      // Wait until the worker delivered the first segment (it reads in order), then change the last one.
      const first = (await segmentPaths())[0]!;
      expect(await prefetch.segment(first)).toBeDefined();
      await appendFile(last, Buffer.from([1, 2, 3]));
      expect(await prefetch.segment(last)).toBeUndefined();
    } finally {
      prefetch.release();
    }
  });

  it('a bad record followed by a valid one is still corruption through it', async () => {
    await writeWal(120);
    const first = (await segmentPaths())[0]!;
    const bytes = await readFile(first);
    bytes[20] = bytes[20]! ^ 0xff; // inside the first record's body: its checksum fails
    await writeFile(first, bytes);
    const prefetch = WalPrefetch.start(raftDir, workerUrl);
    const { source, delivered } = counting(prefetch);
    try {
      await expect(Wal.open(raftDir, { segmentBytes: 8 * 1024, segmentSource: source })).rejects.toBeInstanceOf(CorruptLogError);
      expect(delivered()).toBe(1); // the worker's check found it, in the first segment
    } finally {
      prefetch.release();
    }
  });

  it('without a WAL directory it starts no worker and hands out nothing', async () => {
    const prefetch = WalPrefetch.start(path.join(raftDir, 'missing'), workerUrl);
    expect(await prefetch.segment(path.join(raftDir, 'missing', 'wal', '0000000000000001.wal'))).toBeUndefined();
    prefetch.release();
  });
});
