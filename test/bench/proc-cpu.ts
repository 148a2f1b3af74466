// Owns: the benchmarks' CPU accounting from /proc — a process's utime+stime (all its threads),
// per thread kind, the machine's busy and stolen time (/proc/stat), the benchmark process's own
// CPU (the load generator's), finding every process under a set of roots (descendants and the
// members of process groups the roots lead), and CPU snapshots of named process sets taken
// before and after a measured window, whose difference divided by the operations done is the
// CPU milliseconds per operation: a figure that does not depend on how busy the shared machine
// is, unlike throughput. Linux only.
import { readFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';

/**
 * USER_HZ, the unit of the tick counts in /proc/<pid>/stat and /proc/stat: 100 on every Linux
 * architecture node runs on (the kernel's ABI fixes it, whatever CONFIG_HZ is).
 */
const clockTicksPerSecond = 100;

function ticksToMs(ticks: number | undefined): number {
  return ((ticks ?? 0) * 1000) / clockTicksPerSecond;
}

/** The fields of a /proc stat line after "pid (comm) ", which may itself hold spaces and parentheses. */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

// Indexes into statFields (0 = state, the stat file's field 3): ppid 4, pgrp 5, utime 14, stime 15, starttime 22.
const ppidField = 1;
const pgrpField = 2;
const utimeField = 11;
const stimeField = 12;
const startTimeField = 19;

export interface CpuTimes {
  readonly user: number;
  readonly system: number;
}

/** utime and stime of a process (all its threads, living and exited), in milliseconds; rejects when the process is gone. */
export async function processCpuMs(pid: number): Promise<CpuTimes> {
  const fields = statFields(await readFile(`/proc/${pid}/stat`, 'utf8'));
  return { user: ticksToMs(Number(fields[utimeField])), system: ticksToMs(Number(fields[stimeField])) };
}

/**
 * utime+stime per thread kind of a process, in milliseconds: the main (JavaScript) thread as
 * "main", node's other threads (libuv's pool doing fs work such as fsync, V8's GC and compiler
 * helpers, the module loader's worker: all named "node") as "other threads", any other thread
 * by its name. Only living threads count (an exited thread's time is in processCpuMs alone).
 */
export async function threadCpuMs(pid: number): Promise<Map<string, number>> {
  const byKind = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    if (stat === '') continue;
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = statFields(stat);
    const kind = Number(tid) === pid ? 'main' : comm === 'node' ? 'other threads' : comm;
    byKind.set(kind, (byKind.get(kind) ?? 0) + ticksToMs(Number(fields[utimeField])) + ticksToMs(Number(fields[stimeField])));
  }
  return byKind;
}

export interface MachineCpu {
  /** All CPUs' time spent on anything but idle and iowait, in ms. */
  readonly busy: number;
  /** Time the hypervisor gave to other guests, in ms. */
  readonly steal: number;
}

/** The machine's CPU time from /proc/stat's first line, in milliseconds. */
export async function machineCpuMs(): Promise<MachineCpu> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!;
  // cpu user nice system idle iowait irq softirq steal
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return { busy: ticksToMs(user) + ticksToMs(nice) + ticksToMs(system) + ticksToMs(irq) + ticksToMs(softirq), steal: ticksToMs(steal) };
}

/**
 * How long ago `pid` started, in milliseconds (10 ms resolution): its start time and the machine's
 * uptime, both counted from boot. Rejects when the process is gone.
 */
export async function processAgeMs(pid: number): Promise<number> {
  const [stat, uptime] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile('/proc/uptime', 'utf8')]);
  const uptimeMs = Number(uptime.split(' ')[0]) * 1000;
  return uptimeMs - ticksToMs(Number(statFields(stat)[startTimeField]));
}

/** Whether `pid` runs: a zombie (exited, not yet reaped by whoever adopted it) does not. */
export function processRunning(pid: number): boolean {
  try {
    return statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'))[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The pids whose parent is `pid`. */
export async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat !== '' && Number(statFields(stat)[ppidField]) === pid) children.push(Number(entry));
  }
  return children;
}

/** Machine busy CPU below this, ms per second (of 2,000 on two cores), counts as quiet. */
const quietBusyMsPerSecond = 150;
const quietWindowMs = 500;

/**
 * Waits (up to `deadlineMs`) for a window of 500 ms in which the machine was quiet (busy below
 * 150 ms per second): a step timed in wall clock, such as a restart, should not share the cores
 * with work an earlier step left behind (a GC of a large list, a member catching up). Returns how
 * long it waited and whether the machine was quiet.
 */
export async function waitForQuietMachine(deadlineMs = 15_000): Promise<{ waitedMs: number; quiet: boolean }> {
  const started = performance.now();
  for (;;) {
    const before = await machineCpuMs();
    await new Promise((resolve) => setTimeout(resolve, quietWindowMs));
    const after = await machineCpuMs();
    const busyPerSecond = ((after.busy - before.busy) * 1000) / quietWindowMs;
    const waitedMs = Math.round(performance.now() - started);
    if (busyPerSecond < quietBusyMsPerSecond) return { waitedMs, quiet: true };
    if (waitedMs >= deadlineMs) return { waitedMs, quiet: false };
  }
}

/** This process's CPU (user+system, all threads), in milliseconds: the load generator's own cost. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * The pids of `roots`, of all their descendants, and of every process in a process group that a
 * root leads (a detached child that outlived its parent, such as a store whose supervisor was
 * SIGKILLed). Roots that are gone are left out.
 */
export async function processesUnder(roots: readonly number[]): Promise<number[]> {
  const parentOf = new Map<number, { ppid: number; pgrp: number }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat === '') continue;
    const fields = statFields(stat);
    parentOf.set(Number(entry), { ppid: Number(fields[ppidField]), pgrp: Number(fields[pgrpField]) });
  }
  const rootSet = new Set(roots.filter((pid) => parentOf.has(pid)));
  const under = (pid: number): boolean => {
    for (let current: number | undefined = pid, depth = 0; current !== undefined && current > 1 && depth < 64; depth++) {
      if (rootSet.has(current)) return true;
      const links = parentOf.get(current);
      if (links === undefined) return false;
      if (rootSet.has(links.pgrp)) return true;
      current = links.ppid;
    }
    return false;
  };
  return [...parentOf.keys()].filter(under).sort((left, right) => left - right);
}

/** A named set of processes whose CPU counts as one (e.g. a store and its supervisor). */
export interface MeasuredProcess {
  readonly name: string;
  readonly pids: readonly number[];
}

export interface CpuSnapshot {
  readonly machine: MachineCpu;
  /** ms of utime+stime per process name; a pid gone by then is missing from the sum and listed in `gone`. */
  readonly byName: ReadonlyMap<string, number>;
  readonly gone: readonly string[];
  readonly ownMs: number;
}

/** Reads the CPU of every named process, the machine's and this process's, at one instant. */
export async function cpuSnapshot(processes: readonly MeasuredProcess[]): Promise<CpuSnapshot> {
  const ownMs = ownCpuMs();
  const machine = await machineCpuMs();
  const byName = new Map<string, number>();
  const gone: string[] = [];
  await Promise.all(processes.map(async (entry) => {
    let total = 0;
    for (const pid of entry.pids) {
      try {
        const times = await processCpuMs(pid);
        total += times.user + times.system;
      } catch {
        gone.push(`${entry.name} (pid ${pid})`);
      }
    }
    byName.set(entry.name, total);
  }));
  return { machine, byName, gone, ownMs };
}

export interface CpuWindow {
  readonly windowMs: number;
  /** CPU ms per process name over the window. */
  readonly byName: ReadonlyMap<string, number>;
  /** The sum over all named processes. */
  readonly processesMs: number;
  readonly ownMs: number;
  readonly machineBusyMs: number;
  readonly stealMs: number;
  /** Processes that ended before the window's end (their CPU in the window is not counted whole). */
  readonly gone: readonly string[];
}

/** The CPU spent between two snapshots (after taken `windowMs` after before). */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot, windowMs: number): CpuWindow {
  const byName = new Map<string, number>();
  for (const [name, ms] of after.byName) byName.set(name, ms - (before.byName.get(name) ?? 0));
  const gone = [...new Set([...before.gone, ...after.gone])];
  return {
    windowMs, byName, processesMs: [...byName.values()].reduce((sum, ms) => sum + ms, 0), ownMs: after.ownMs - before.ownMs,
    machineBusyMs: after.machine.busy - before.machine.busy, stealMs: after.machine.steal - before.machine.steal, gone,
  };
}
