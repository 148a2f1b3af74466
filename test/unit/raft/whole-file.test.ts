// Tests raft/storage/whole-file.ts: a whole file read back byte for byte (empty, small, and larger
// than readFile's 512 KiB pieces), and a missing file refused as readFile refuses it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWholeFile } from '../../../raft/storage/index.ts';

describe('readWholeFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kstore-whole-file-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns every byte of files of any size', async () => {
    for (const size of [0, 1, 4096, 3 * 1024 * 1024 + 17]) {
      const file = path.join(dir, `f${size}`);
      const bytes = randomBytes(size);
      await writeFile(file, bytes);
      const read = await readWholeFile(file);
      expect(read.length).toBe(size);
      expect(read.equals(bytes)).toBe(true);
      expect(read.equals(await readFile(file))).toBe(true);
    }
  });

  it('refuses a missing file with the error readFile gives', async () => {
    await expect(readWholeFile(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
