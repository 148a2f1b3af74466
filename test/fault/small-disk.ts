// Owns: small disks for fault tests: tmpfs mounts of a given size as data dirs (needs root;
// `canMountSmallDisks` says whether this machine allows it), filling one up to a given free
// space, and unmounting them all with their temp dirs at the end.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function canMountSmallDisks(): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  const probe = await mkdtemp(path.join(os.tmpdir(), 'kstore-mount-probe-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
    await run('umount', [probe]);
    return true;
  } catch {
    return false;
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}

/** Free bytes on the filesystem holding `directory`. */
export async function freeBytes(directory: string): Promise<number> {
  const free = await statfs(directory);
  return Number(free.bavail) * Number(free.bsize);
}

/**
 * Writes zeros into `file` until its filesystem has at most `leaveFreeBytes` free (0: full;
 * the write's own ENOSPC then is expected).
 */
export async function fillDisk(file: string, leaveFreeBytes = 0): Promise<void> {
  const bytes = Math.max(0, await freeBytes(path.dirname(file)) - leaveFreeBytes);
  await writeFile(file, Buffer.alloc(bytes)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOSPC') throw error;
  });
}

/** Small tmpfs disks mounted under one temp dir; `cleanup()` unmounts them and removes it. */
export class SmallDisks {
  readonly #parent: string;
  readonly #mounts: string[] = [];

  private constructor(parent: string) {
    this.#parent = parent;
  }

  static async create(prefix: string): Promise<SmallDisks> {
    return new SmallDisks(await mkdtemp(path.join(os.tmpdir(), prefix)));
  }

  /** Mounts a tmpfs of `bytes` at a new directory `name` under the temp dir; returns its path. */
  async mount(name: string, bytes: number): Promise<string> {
    const directory = path.join(this.#parent, name);
    await rm(directory, { recursive: true, force: true });
    await mkdir(directory, { recursive: true });
    await this.mountAt(directory, bytes);
    return directory;
  }

  /** Mounts a tmpfs of `bytes` over the existing directory `directory` (unmounted by cleanup()). */
  async mountAt(directory: string, bytes: number): Promise<void> {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', directory]);
    this.#mounts.push(directory);
  }

  async cleanup(): Promise<void> {
    for (const mount of this.#mounts.splice(0)) await run('umount', ['-l', mount]).catch(() => undefined);
    await rm(this.#parent, { recursive: true, force: true }).catch(() => undefined);
  }
}
