// Temporary directories of a test, removed when the test is done.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface TempDir {
  readonly path: string;
  /** Removes the directory and everything in it; safe to call twice. */
  remove(): Promise<void>;
}

export async function makeTempDir(prefix = 'kstore-test-'): Promise<TempDir> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return {
    path: dir,
    remove: () => rm(dir, { recursive: true, force: true, maxRetries: 3 }),
  };
}
