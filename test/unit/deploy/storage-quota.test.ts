// The data dir's space alarm: raised when the data dir holds more than its quota or its
// filesystem has less free space than the reserve, refusing only commands that grow the store,
// and cleared by itself once back within bounds.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storageCell } from '../../../deploy/roles/cluster.ts';
import { admittedUnderAlarm, alarmReason, parseByteSize, StorageQuota } from '../../../deploy/storage-quota.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

const dirs: TempDir[] = [];
const quotas: StorageQuota[] = [];

afterEach(async () => {
  for (const quota of quotas.splice(0)) quota.stop();
  for (const dir of dirs.splice(0)) await dir.remove();
});

async function quotaOn(options: { quotaBytes: number; reserveBytes: number }): Promise<{ quota: StorageQuota; dataDir: string }> {
  const dir = await makeTempDir('kstore-quota-');
  dirs.push(dir);
  const dataDir = path.join(dir.path, 'raft');
  await mkdir(path.join(dataDir, 'wal'), { recursive: true });
  // A long interval: the test measures when it wants to.
  const quota = await StorageQuota.start({ dataDir, member: 'm1', intervalMs: 60_000, ...options });
  quotas.push(quota);
  return { quota, dataDir };
}

const create = { type: 'create' } as const;

describe('StorageQuota', () => {
  it('raises the alarm over the quota (counting files in subdirectories), refuses creates and updates but not deletes, and clears once under', async () => {
    const { quota, dataDir } = await quotaOn({ quotaBytes: 100_000, reserveBytes: 0 });
    expect(quota.alarm()).toBeUndefined();
    await writeFile(path.join(dataDir, 'wal', 'segment-1'), Buffer.alloc(60_000));
    await writeFile(path.join(dataDir, 'snapshot-1'), Buffer.alloc(30_000));
    expect((await quota.measure()).usedBytes).toBe(90_000);
    expect(quota.alarm()).toBeUndefined();
    await writeFile(path.join(dataDir, 'wal', 'segment-2'), Buffer.alloc(20_000));
    const usage = await quota.measure();
    expect(usage.usedBytes).toBe(110_000);
    expect(usage.alarm).toMatch(/store member m1 holds 0\.1 MiB, over its quota of 0\.1 MiB \(--quota-backend-bytes\)/);
    expect(quota.refusal(create as never)?.name).toBe('StorageAlarmError');
    expect(quota.refusal({ type: 'update' } as never)?.message).toBe(usage.alarm);
    expect(quota.refusal({ type: 'delete' } as never)).toBeUndefined();
    await rm(path.join(dataDir, 'wal', 'segment-1'));
    expect((await quota.measure()).alarm).toBeUndefined();
    expect(quota.refusal(create as never)).toBeUndefined();
  });

  it('raises the alarm when the filesystem has less free space than the reserve', async () => {
    const { quota } = await quotaOn({ quotaBytes: 0, reserveBytes: Number.MAX_SAFE_INTEGER });
    const usage = quota.usage();
    expect(usage.quotaBytes).toBe(2 * 1024 ** 3);
    expect(usage.alarm).toMatch(/free, under its reserve of .* \(--storage-reserve-bytes\)/);
  });

  it('admits only what cannot grow the store while raised', () => {
    expect(['create', 'update', 'delete', 'expireTokens', 'noop'].filter((type) => admittedUnderAlarm({ type } as never))).toEqual(['delete', 'expireTokens', 'noop']);
    expect(alarmReason('m', 10, 10, 5, 5)).toBeUndefined();
  });

  it('parses byte flags with binary suffixes and shows usage in cluster status', () => {
    expect(parseByteSize('0', '--q')).toBe(0);
    expect(parseByteSize('64Mi', '--q')).toBe(64 * 1024 ** 2);
    expect(parseByteSize('2Gi', '--q')).toBe(2 * 1024 ** 3);
    expect(() => parseByteSize('2GB', '--q')).toThrow(/--q must be a byte count/);
    expect(() => parseByteSize('-1', '--q')).toThrow(/--q must be a byte count/);
    expect(storageCell(undefined)).toBe('-');
    expect(storageCell({ usedBytes: 12 * 1024 ** 2, quotaBytes: 2 * 1024 ** 3, freeBytes: 3 * 1024 ** 2, reserveBytes: 64 * 1024 ** 2, alarm: 'under its reserve' }))
      .toBe('12.0MiB/2.0GiB 3.0MiB free ALARM');
  });
});
