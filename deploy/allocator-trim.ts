// Owns: handing the C allocator's free pages back to the operating system after V8's full
// garbage collections (glibc's malloc_trim(0), called through koffi, an FFI library with prebuilt
// binaries), at most once per interval.
// Why: a kstore process frees much of what it allocates natively soon after (NATS payloads,
// socket reads, WAL and snapshot buffers: array buffers V8 frees when it collects them, and V8's
// own bookkeeping). glibc keeps freed memory in its arenas and gives back only what is free at the
// top of the heap; the free chunks between live ones stay resident. With 100,000 objects the Raft
// leader of `kstore cluster up` held 50 MiB in its main arena, of which malloc_trim(0) gave back
// 36 MiB at once (14 MiB left; the followers 30–50 → 13–14 MiB): about 360 bytes per object of
// resident memory that was free (docs/memory-and-restart.md, "What glibc keeps").
// When: after a full (mark-compact) GC, when array buffers have just been freed; if the last trim is
// more recent than the interval, once the interval has passed, so a burst of GCs costs one trim
// and the memory of the last GC is still given back. Idle processes that do no full GC do not trim.
// Where it does nothing: off Linux, where libc is not glibc (musl has no malloc_trim), where koffi
// cannot load, or with KSTORE_MALLOC_TRIM=0 (a developer knob for measuring with and without).
import { createRequire } from 'node:module';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import type { PerformanceEntry } from 'node:perf_hooks';
import type { GaugeSource } from '../api/index.ts';

/**
 * At most one trim per this many ms. A trim holds the loop: giving back 79 MB from ~21,000 free
 * chunks took 10.6 ms in the test's child process.
 */
export const trimIntervalDefaultMs = 5_000;

export interface AllocatorTrimStats {
  /** Whether malloc_trim could be loaded (glibc on Linux, koffi present). */
  readonly available: boolean;
  readonly trims: number;
  /** Time spent in malloc_trim, in total and the longest one. */
  readonly totalMs: number;
  readonly longestMs: number;
}

export interface AllocatorTrim {
  stats(): AllocatorTrimStats;
  stop(): void;
}

type TrimFunction = (pad: number) => number;

let loadedTrim: TrimFunction | null | undefined;

/** glibc's malloc_trim through koffi, loaded once; null where it is not to be had. */
export function loadMallocTrim(): TrimFunction | null {
  if (loadedTrim !== undefined) return loadedTrim;
  loadedTrim = null;
  if (process.platform !== 'linux') return loadedTrim;
  // Where libc.so.6 is not glibc's (musl, or its glibc shim without malloc_trim), load or func throws.
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    loadedTrim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as TrimFunction;
  } catch {
    // stays null
  }
  return loadedTrim;
}

/** What /metrics shows of a trimmer (kstore api and kstore server). */
export function allocatorTrimGauges(trimmer: AllocatorTrim): readonly GaugeSource[] {
  return [
    { name: 'kstore_allocator_trims_total', help: 'Times this process gave the C allocator\'s free pages back to the OS after a full GC (malloc_trim).', read: () => trimmer.stats().trims },
    { name: 'kstore_allocator_trim_seconds_total', help: 'Time this process spent in malloc_trim.', read: () => trimmer.stats().totalMs / 1000 },
  ];
}

/** Starts trimming after full GCs; with KSTORE_MALLOC_TRIM=0 in the environment, one that never trims. */
export function startAllocatorTrim(options: { readonly intervalMs?: number } = {}): AllocatorTrim {
  const intervalMs = options.intervalMs ?? trimIntervalDefaultMs;
  const trim = process.env.KSTORE_MALLOC_TRIM === '0' ? null : loadMallocTrim();
  let trims = 0;
  let totalMs = 0;
  let longestMs = 0;
  let lastTrimAt = Number.NEGATIVE_INFINITY;
  let pending: NodeJS.Timeout | undefined;
  let stopped = false;
  const stats = (): AllocatorTrimStats => ({ available: trim !== null, trims, totalMs, longestMs });
  if (trim === null) return { stats, stop: () => {} };

  const run = (): void => {
    pending = undefined;
    if (stopped) return;
    const started = performance.now();
    trim(0);
    lastTrimAt = performance.now();
    const took = lastTrimAt - started;
    trims += 1;
    totalMs += took;
    longestMs = Math.max(longestMs, took);
  };
  const afterFullGc = (): void => {
    if (pending !== undefined || stopped) return;
    // After the GC's own turn (when the buffers it freed are back with the allocator), and not
    // before the interval since the last trim has passed.
    pending = setTimeout(run, Math.max(0, lastTrimAt + intervalMs - performance.now()));
    pending.unref();
  };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
      if (entry.detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) {
        afterFullGc();
        return;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stats,
    stop(): void {
      stopped = true;
      observer.disconnect();
      if (pending !== undefined) clearTimeout(pending);
      pending = undefined;
    },
  };
}
