// Owns: a breakdown of one V8 sampling heap profile (.heapprofile: `bench:ha-write --alloc-prof`
// writes one per kstore process, sampling what it allocated over the measured window, freed
// objects included) for "who allocates per write": bytes by function where allocated (self),
// bytes under each function (inclusive, counted once per call path even when recursive) and the
// heaviest allocating call paths. Sampled bytes are estimates (V8 records one sample per
// `samplingInterval` bytes on average, each weighing its interval). A measurement aid.
//   node --import tsx test/bench/heapprofile-summary.ts FILE... [--top N] [--depth N] [--writes N]
// --writes: divide by the window's writes (bench:ha-write's "writes") to print bytes per write.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { frameName } from './profile-frames.ts';
import type { CallFrame } from './profile-frames.ts';

interface ProfileNode {
  readonly callFrame: CallFrame;
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

interface SamplingHeapProfile {
  readonly head: ProfileNode;
}

const { values: flags, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '30' },
    depth: { type: 'string', default: '5' },
    writes: { type: 'string' },
  },
});

function summarize(profile: SamplingHeapProfile, top: number, depth: number, writes: number | undefined): string {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const paths = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, stack: string[]): number => {
    const name = frameName(node.callFrame);
    stack.push(name);
    let subtree = node.selfSize;
    for (const child of node.children) subtree += walk(child, stack);
    stack.pop();
    if (node.selfSize > 0) {
      total += node.selfSize;
      self.set(name, (self.get(name) ?? 0) + node.selfSize);
      const key = [name, ...stack.slice(-(depth - 1)).reverse()].join(' < ');
      paths.set(key, (paths.get(key) ?? 0) + node.selfSize);
    }
    // Count a function once per path: only where it is not also an ancestor.
    if (!stack.includes(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + subtree);
    return subtree;
  };
  walk(profile.head, []);
  const unit = (bytes: number): string => (writes === undefined ? `${(bytes / 1_048_576).toFixed(1).padStart(8)} MiB` : `${Math.round(bytes / writes).toString().padStart(8)} B/write`);
  const share = (bytes: number): string => `${((100 * bytes) / Math.max(total, 1)).toFixed(1).padStart(5)}%`;
  const table = (title: string, entries: Map<string, number>): string[] => [
    `  ${title}:`,
    ...[...entries].sort((left, right) => right[1] - left[1]).slice(0, top).map(([name, bytes]) => `    ${share(bytes)} ${unit(bytes)}  ${name}`),
  ];
  return [
    `  sampled allocations: ${unit(total)}`,
    ...table('allocated in (self)', self),
    ...table('allocated under (inclusive)', inclusive),
    ...table(`heaviest allocating paths (innermost ${depth} frames)`, paths),
  ].join('\n');
}

const top = Number(flags.top);
const depth = Number(flags.depth);
const writes = flags.writes === undefined ? undefined : Number(flags.writes);
for (const file of files) {
  const profile = JSON.parse(await readFile(file, 'utf8')) as SamplingHeapProfile;
  process.stdout.write(`${path.basename(file)}\n${summarize(profile, top, depth, writes)}\n`);
}
