// Owns: `npm run bench:restore`: what restoring one snapshot costs, by snapshot format. It reads
// the newest snapshot of a data dir (e.g. one `npm run bench:scale -- --data-dir DIR` kept), has
// ClusterState restore it and write it again in today's format, and writes both texts to a temp
// dir; then each round restores each text once in a fresh process (alternating, so the machine's
// drift falls on both) and reports, per format: text bytes, wall and CPU milliseconds of
// ClusterState.restore() alone (the parse included), and heap used after a full GC.
// Flags: --data-dir DIR (required; the dir of `kstore server`, whose snapshots are in raft/snap)
// --rounds N (default 5). Prints JSON on stdout.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ClusterState } from '../../actors/cluster-state.ts';
import { uncompressedSnapshot } from '../../deploy/compressed-snapshots.ts';
import { decodeSnapshot, snapshotFileSuffix } from '../../raft/storage/index.ts';

interface RestoreRun {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly heapUsedMiB: number;
}

function restoreOnce(file: string, index: number): RestoreRun {
  const bytes = new Uint8Array(readFileSync(file));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const state = new ClusterState();
  state.restore(bytes, index);
  const wallMs = performance.now() - wallBefore;
  const cpu = process.cpuUsage(cpuBefore);
  gc?.();
  const heapUsedMiB = process.memoryUsage().heapUsed / 2 ** 20;
  if (state.appliedIndex() !== index) throw new Error('restore did not reach the index');
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, heapUsedMiB };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const { values } = parseArgs({
  options: { 'data-dir': { type: 'string' }, rounds: { type: 'string', default: '5' }, child: { type: 'string' }, index: { type: 'string' } },
});

if (values.child !== undefined) {
  process.stdout.write(`${JSON.stringify(restoreOnce(values.child, Number(values.index)))}\n`);
} else {
  const dataDir = values['data-dir'];
  if (dataDir === undefined) throw new TypeError('--data-dir DIR is required');
  const rounds = Number(values.rounds);
  if (!Number.isSafeInteger(rounds) || rounds <= 0) throw new TypeError(`--rounds takes a positive integer, got ${String(values.rounds)}`);
  const snapDir = path.join(dataDir, 'raft', 'snap');
  const newest = readdirSync(snapDir).filter((name) => name.endsWith(snapshotFileSuffix)).sort().at(-1);
  if (newest === undefined) throw new Error(`no snapshot in ${snapDir}`);
  const snapshot = decodeSnapshot(readFileSync(path.join(snapDir, newest)));
  if (snapshot === undefined) throw new Error(`${newest} does not pass its checks`);
  const index = snapshot.meta.index;
  const original = uncompressedSnapshot(snapshot.data);
  const state = new ClusterState();
  state.restore(original, index);
  const rewritten = state.snapshot();
  const texts = { written: original, today: rewritten };
  const versionOf = (bytes: Uint8Array): number => (JSON.parse(new TextDecoder().decode(bytes.subarray(0, 64)).split(',"appliedIndex"')[0] + '}') as { version: number }).version;
  const work = mkdtempSync(path.join(os.tmpdir(), 'kstore-bench-restore-'));
  try {
    const files = Object.fromEntries(Object.entries(texts).map(([name, bytes]) => {
      const file = path.join(work, `${name}.json`);
      writeFileSync(file, bytes);
      return [name, file];
    })) as Record<keyof typeof texts, string>;
    const runs: Record<keyof typeof texts, RestoreRun[]> = { written: [], today: [] };
    for (let round = 0; round < rounds; round++) {
      const order = (round % 2 === 0 ? ['written', 'today'] : ['today', 'written']) as (keyof typeof texts)[];
      for (const name of order) {
        const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', import.meta.filename, '--child', files[name], '--index', String(index)], { encoding: 'utf8' });
        if (child.status !== 0) throw new Error(`restore of ${name} failed: ${child.stderr}`);
        const run = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '') as RestoreRun;
        runs[name].push(run);
        process.stderr.write(`[bench:restore] round ${round + 1} ${name}: ${JSON.stringify(run)}\n`);
      }
    }
    const summary = Object.fromEntries(Object.entries(texts).map(([name, bytes]) => {
      const list = runs[name as keyof typeof texts];
      return [name, {
        format: versionOf(bytes),
        textBytes: bytes.byteLength,
        wallMsMedian: Math.round(median(list.map((run) => run.wallMs))),
        cpuMsMedian: Math.round(median(list.map((run) => run.cpuMs))),
        wallMs: list.map((run) => Math.round(run.wallMs)),
        heapUsedMiBMedian: Number(median(list.map((run) => run.heapUsedMiB)).toFixed(1)),
      }];
    }));
    process.stdout.write(`${JSON.stringify({ snapshot: newest, index, rounds, ...summary })}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
