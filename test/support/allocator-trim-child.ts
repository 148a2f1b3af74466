// Owns: the child process of test/integration/allocator-trim.test.ts (run with --expose-gc): it
// leaves glibc's main arena fragmented (many small native buffers, one in eight kept alive), lets
// V8 free the rest, and reports its RSS before and after deploy/allocator-trim.ts gives the free
// pages back: directly (mode "direct"), or by itself after a full GC (mode "after-gc", with
// KSTORE_MALLOC_TRIM as the environment says; with what /metrics would show). Prints one JSON line.
import { allocatorTrimGauges, loadMallocTrim, startAllocatorTrim } from '../../deploy/allocator-trim.ts';

const bufferBytes = 4_096;
const buffers = 24_000; // ~94 MiB of native memory, 7/8 of it freed
const mode = process.argv[2];
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const rss = (): number => process.memoryUsage.rss();
const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

async function until(condition: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await turn();
  }
}

const baseline = rss();
let all: Buffer[] | undefined = Array.from({ length: buffers }, () => Buffer.allocUnsafeSlow(bufferBytes).fill(1));
const kept = all.filter((_, at) => at % 8 === 0);
all = undefined;
const keptBytes = kept.length * bufferBytes;
gc();
gc();
// V8 frees the dead buffers' memory as it sweeps; wait until it has.
await until(() => { gc(); return process.memoryUsage().arrayBuffers < keptBytes + 8 * 2 ** 20; }, 'the dead buffers to be freed');
const beforeTrim = rss();
let afterTrim: number;
let trims = 0;
let gauges: Record<string, number> = {};
let available: boolean;
if (mode === 'direct') {
  const trim = loadMallocTrim();
  available = trim !== null;
  trim?.(0);
  afterTrim = rss();
} else {
  const trimmer = startAllocatorTrim({ intervalMs: 50 });
  available = trimmer.stats().available;
  gc();
  if (available) await until(() => trimmer.stats().trims >= 1, 'a trim after the full GC');
  else for (let at = 0; at < 20; at++) await turn();
  trims = trimmer.stats().trims;
  gauges = Object.fromEntries(allocatorTrimGauges(trimmer).map((gauge) => [gauge.name, gauge.read()]));
  trimmer.stop();
  afterTrim = rss();
}
process.stdout.write(`${JSON.stringify({ mode, available, baseline, beforeTrim, afterTrim, trims, gauges, kept: kept.length })}\n`);
