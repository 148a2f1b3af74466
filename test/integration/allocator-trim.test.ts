// Tests deploy/allocator-trim.ts in child processes of their own (RSS of a shared test worker
// would measure the other tests): glibc keeps the free memory of a fragmented heap resident after
// V8 frees the native buffers, malloc_trim through koffi gives it back, the trimmer does so by
// itself after a full GC (and /metrics' gauges count it), and KSTORE_MALLOC_TRIM=0 turns it off.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/kstore-process.ts';

const run = promisify(execFile);
const mib = 2 ** 20;

interface ChildReport {
  readonly mode: string;
  readonly available: boolean;
  readonly baseline: number;
  readonly beforeTrim: number;
  readonly afterTrim: number;
  readonly trims: number;
  readonly gauges: Readonly<Record<string, number>>;
}

async function child(mode: 'direct' | 'after-gc', env: Record<string, string> = {}): Promise<ChildReport> {
  const script = path.join(repoRoot, 'test', 'support', 'allocator-trim-child.ts');
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', script, mode], {
    cwd: repoRoot, env: { ...process.env, MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '1048576', ...env }, timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ChildReport;
}

describe('allocator trim', () => {
  it('gives back the free pages glibc keeps between live buffers', async () => {
    const report = await child('direct');
    expect(report.available).toBe(true);
    // What the test relies on: with 1 buffer in 8 alive, glibc kept most of the freed ~82 MiB.
    expect(report.beforeTrim - report.baseline).toBeGreaterThan(60 * mib);
    expect(report.beforeTrim - report.afterTrim).toBeGreaterThan(50 * mib);
  }, 90_000);

  it('trims by itself after a full GC', async () => {
    const report = await child('after-gc');
    expect(report.trims).toBeGreaterThanOrEqual(1);
    expect(report.gauges['kstore_allocator_trims_total']).toBe(report.trims);
    expect(report.gauges['kstore_allocator_trim_seconds_total']).toBeGreaterThan(0);
    expect(report.beforeTrim - report.afterTrim).toBeGreaterThan(50 * mib);
  }, 90_000);

  it('does nothing with KSTORE_MALLOC_TRIM=0', async () => {
    const report = await child('after-gc', { KSTORE_MALLOC_TRIM: '0' });
    expect(report.available).toBe(false);
    expect(report.trims).toBe(0);
    expect(report.beforeTrim - report.afterTrim).toBeLessThan(10 * mib);
  }, 90_000);
});
