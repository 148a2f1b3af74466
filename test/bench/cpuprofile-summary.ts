// Owns: a breakdown of one V8 .cpuprofile (as `node --cpu-prof` writes it, e.g. the cluster's
// processes under `npm run bench:ha-write -- --cpu-prof DIR`) for "where does a write's CPU
// go": busy time split into GC, program and the rest; self time by function; self time by
// module file (the repository's files by path, dependencies by package); inclusive time of the
// functions with the most of it (self plus callees, each function counted once per stack); and
// the heaviest call paths (self time grouped by the innermost frames of its stack). A reading
// aid, not a test. A profile covers a process's whole life (start-up: module loading and
// compiling, which is seconds of CPU for a kstore process); --busiest-ms N keeps only the N ms
// stretch of the profile with the most busy (non-idle) time, i.e. the load window.
//
//   node --import tsx test/bench/cpuprofile-summary.ts FILE_OR_DIR... [--top N] [--depth N]
//     [--busiest-ms N] [--json]
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { frameName, moduleOf } from './profile-frames.ts';
import type { CallFrame } from './profile-frames.ts';

interface ProfileNode { readonly id: number; readonly callFrame: CallFrame; readonly children?: readonly number[] }
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const { values, positionals } = parseArgs({
  options: {
    top: { type: 'string', default: '20' }, depth: { type: 'string', default: '5' },
    'busiest-ms': { type: 'string' }, json: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
const top = Number(values.top);
const pathDepth = Number(values.depth);
const busiestMs = values['busiest-ms'] === undefined ? undefined : Number(values['busiest-ms']);

async function profileFiles(inputs: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const input of inputs) {
    if ((await stat(input)).isDirectory()) {
      for (const name of (await readdir(input)).sort()) if (name.endsWith('.cpuprofile')) files.push(path.join(input, name));
    } else {
      files.push(input);
    }
  }
  return files;
}

const special = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

export interface Breakdown {
  readonly file: string;
  readonly sampledMs: number;
  readonly busyMs: number;
  readonly gcMs: number;
  readonly programMs: number;
  readonly byFunction: readonly (readonly [string, number])[];
  readonly byModule: readonly (readonly [string, number])[];
  readonly inclusive: readonly (readonly [string, number])[];
  readonly paths: readonly (readonly [string, number])[];
}

function sorted(map: Map<string, number>): [string, number][] {
  return [...map.entries()].sort((left, right) => right[1] - left[1]).slice(0, top).map(([name, micros]) => [name, Math.round(micros / 100) / 10]);
}

/**
 * The sample positions [from, to) of the `windowMs` stretch with the most non-idle time (a
 * sliding window over the samples' timestamps); all samples when windowMs is undefined.
 */
export function busiestWindow(profile: CpuProfile, idleIds: ReadonlySet<number>, windowMs: number | undefined): [number, number] {
  const count = profile.samples.length;
  if (windowMs === undefined) return [0, count];
  const times: number[] = [];
  let clock = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((clock += delta));
  let best: [number, number] = [0, 0];
  let bestBusy = -1;
  let busy = 0;
  let from = 0;
  for (let to = 0; to < count; to++) {
    if (!idleIds.has(profile.samples[to]!)) busy += profile.timeDeltas[to] ?? 0;
    while (times[to]! - times[from]! > windowMs * 1000) {
      if (!idleIds.has(profile.samples[from]!)) busy -= profile.timeDeltas[from] ?? 0;
      from += 1;
    }
    if (busy > bestBusy) {
      bestBusy = busy;
      best = [from, to + 1];
    }
  }
  return best;
}

export function breakdown(file: string, profile: CpuProfile): Breakdown {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const idleIds = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
  const [from, to] = busiestWindow(profile, idleIds, busiestMs);
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfMicros = new Map<number, number>();
  for (let position = from; position < to; position++) {
    const nodeId = profile.samples[position]!;
    selfMicros.set(nodeId, (selfMicros.get(nodeId) ?? 0) + (profile.timeDeltas[position] ?? 0));
  }
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const paths = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let gc = 0;
  let program = 0;
  const add = (map: Map<string, number>, key: string, micros: number): void => { map.set(key, (map.get(key) ?? 0) + micros); };
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (node === undefined) continue;
    total += micros;
    const name = node.callFrame.functionName;
    if (name === '(idle)') { idle += micros; continue; }
    if (name === '(garbage collector)') gc += micros;
    if (name === '(program)') program += micros;
    add(byFunction, frameName(node.callFrame), micros);
    add(byModule, special.has(name) ? name : moduleOf(node.callFrame.url), micros);
    // The stack, innermost first, without (root).
    const stack: CallFrame[] = [];
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)!.callFrame;
      if (frame.functionName !== '(root)') stack.push(frame);
    }
    const seen = new Set<string>();
    for (const frame of stack) {
      const key = frameName(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, micros);
    }
    add(paths, stack.slice(0, pathDepth).map(frameName).join(' < '), micros);
  }
  return {
    file, sampledMs: Math.round(total / 1000), busyMs: Math.round((total - idle) / 1000), gcMs: Math.round(gc / 1000), programMs: Math.round(program / 1000),
    byFunction: sorted(byFunction), byModule: sorted(byModule), inclusive: sorted(inclusive), paths: sorted(paths),
  };
}

function render(result: Breakdown): string {
  const share = (ms: number): string => `${((100 * ms) / Math.max(1, result.busyMs)).toFixed(1).padStart(5)}%`;
  const section = (title: string, rows: readonly (readonly [string, number])[]): string[] =>
    [`  ${title} (share of busy time):`, ...rows.map(([name, ms]) => `    ${share(ms)} ${ms.toFixed(0).padStart(7)} ms  ${name}`)];
  return [
    `${path.basename(result.file)}: ${result.sampledMs} ms sampled, ${result.busyMs} ms busy (GC ${share(result.gcMs).trim()}, (program) ${share(result.programMs).trim()})`,
    ...section('self time by module', result.byModule),
    ...section('self time by function', result.byFunction),
    ...section('inclusive time by function', result.inclusive),
    ...section(`heaviest call paths (innermost ${pathDepth} frames, self time)`, result.paths),
  ].join('\n');
}

const results: Breakdown[] = [];
for (const file of await profileFiles(positionals)) results.push(breakdown(file, JSON.parse(await readFile(file, 'utf8')) as CpuProfile));
process.stdout.write(values.json === true ? `${JSON.stringify(results, null, 2)}\n` : `${results.map(render).join('\n\n')}\n`);
