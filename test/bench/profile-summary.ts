// Owns: a summary of V8 .cpuprofile files (as written by `node --cpu-prof`, e.g. by
// `npm run bench:raft -- --cpu-prof DIR`): the functions with the most self time, with their
// file and line, and the share of idle, GC and program time. A reading aid for "where does
// the time go", not a test.
//
//   node --import tsx test/bench/profile-summary.ts DIR_OR_FILE... [--top N]
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true });
const top = Number(values.top);

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

function shortUrl(url: string): string {
  const marker = url.indexOf('/node_modules/');
  if (marker >= 0) return url.slice(marker + 1);
  const repo = url.lastIndexOf('/main/');
  return repo >= 0 ? url.slice(repo + 6) : url.replace(/^file:\/\//, '');
}

function summarise(file: string, profile: CpuProfile): string {
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((nodeId, position) => {
    selfMicros.set(nodeId, (selfMicros.get(nodeId) ?? 0) + (profile.timeDeltas[position] ?? 0));
  });
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const micros = selfMicros.get(node.id) ?? 0;
    total += micros;
    const frame = node.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url === '' ? '' : `:${frame.lineNumber + 1}`}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  const idle = [...byFunction.entries()].filter(([name]) => name.startsWith('(idle)')).reduce((sum, [, micros]) => sum + micros, 0);
  const lines = [`${path.basename(file)}: ${(total / 1e6).toFixed(1)} s sampled, ${((100 * (total - idle)) / Math.max(1, total)).toFixed(0)}% busy`];
  for (const [name, micros] of [...byFunction.entries()].sort((left, right) => right[1] - left[1]).slice(0, top)) {
    lines.push(`  ${((100 * micros) / Math.max(1, total)).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
  return lines.join('\n');
}

for (const file of await profileFiles(positionals)) {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${summarise(file, profile)}\n\n`);
}
