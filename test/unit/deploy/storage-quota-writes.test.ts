// The space alarm given the member's count of storage writes (as kstore store wires it to
// RaftNode.storageWrites): a measurement walks the data dir again only when the count moved or
// the last walk is usedBytesMaxAgeMs old, and reads the free space every time. The fake clock
// stands in for the age; the files are real.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StorageQuota, usedBytesMaxAgeMs } from '../../../deploy/storage-quota.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

const dirs: TempDir[] = [];
const quotas: StorageQuota[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance', 'setInterval', 'clearInterval'] });
});
afterEach(async () => {
  vi.useRealTimers();
  for (const quota of quotas.splice(0)) quota.stop();
  for (const dir of dirs.splice(0)) await dir.remove();
});

describe('StorageQuota with a writes count', () => {
  it('walks the data dir only after a write or when the last walk is too old; the alarm follows', async () => {
    const dir = await makeTempDir('kstore-quota-writes-');
    dirs.push(dir);
    const dataDir = path.join(dir.path, 'raft');
    await mkdir(path.join(dataDir, 'wal'), { recursive: true });
    await writeFile(path.join(dataDir, 'wal', 'segment-1'), Buffer.alloc(40_000));
    let writes = 0;
    const quota = await StorageQuota.start({ dataDir, member: 'm1', intervalMs: 60_000, quotaBytes: 100_000, reserveBytes: 0, writes: () => writes });
    quotas.push(quota);
    expect(quota.usage().usedBytes).toBe(40_000);

    // A file the member did not write (its count stayed): not walked yet; the free space is read.
    await writeFile(path.join(dataDir, 'wal', 'segment-2'), Buffer.alloc(30_000));
    expect((await quota.measure()).usedBytes).toBe(40_000);

    // The member wrote: the next measurement walks.
    writes += 1;
    expect((await quota.measure()).usedBytes).toBe(70_000);

    // Nothing written, but the last walk grows old: walked again, and over the quota the alarm rises.
    await writeFile(path.join(dataDir, 'wal', 'segment-3'), Buffer.alloc(40_000));
    expect((await quota.measure()).usedBytes).toBe(70_000);
    vi.advanceTimersByTime(usedBytesMaxAgeMs);
    const usage = await quota.measure();
    expect(usage.usedBytes).toBe(110_000);
    expect(usage.alarm).toMatch(/over its quota/);
  });

  it('without a writes count, every measurement walks', async () => {
    const dir = await makeTempDir('kstore-quota-writes-');
    dirs.push(dir);
    const dataDir = path.join(dir.path, 'raft');
    await mkdir(dataDir, { recursive: true });
    const quota = await StorageQuota.start({ dataDir, member: 'm1', intervalMs: 60_000 });
    quotas.push(quota);
    await writeFile(path.join(dataDir, 'file'), Buffer.alloc(1_000));
    expect((await quota.measure()).usedBytes).toBe(1_000);
  });
});
