#!/usr/bin/env node
// The `kstore` executable: runs deploy/cli.ts from a bundle of the sources that it builds and
// rebuilds when they change, or from the sources through tsx (deploy/entry-loader.mjs), so there
// is no build step to remember. `kstore supervise` loads only its own module
// (deploy/roles/supervise.ts, also wired in cli.ts): a supervisor lives as long as its child and
// stays small (about 80 MB instead of 130 MB, and starts in a quarter of the time). `kstore server`
// starts reading its newest snapshot (deploy/snapshot-prefetch.ts) and its WAL segments
// (deploy/wal-prefetch.ts) before it loads its modules.
import path from 'node:path';
import { kstoreEntryLoader } from './entry-loader.mjs';

/** `--data-dir`'s value among `kstore server`'s flags, as deploy/cli.ts reads it (default .kstore). */
function serverDataDir(args) {
  let dataDir = '.kstore';
  for (let at = 0; at < args.length; at++) {
    const arg = args[at];
    if (arg === '--') break;
    if (arg === '--data-dir' && at + 1 < args.length) dataDir = args[++at];
    else if (arg.startsWith('--data-dir=')) dataDir = arg.slice('--data-dir='.length);
  }
  return dataDir;
}

const entries = kstoreEntryLoader();
if (process.argv[2] === 'server') {
  // Before the module graph loads: read and inflate the newest snapshot on the thread pool
  // meanwhile (deploy/snapshot-prefetch.ts; the restore uses it only if it is the same file).
  // And its WAL segments on a worker thread (deploy/wal-prefetch.ts), when running from the bundle.
  const { startSnapshotPrefetch, startWalPrefetch } = await entries.load('snapshot-prefetch');
  const raftDir = path.join(serverDataDir(process.argv.slice(3)), 'raft');
  startSnapshotPrefetch(raftDir);
  const walWorker = await entries.locate('wal-prefetch-worker');
  if (walWorker !== undefined) startWalPrefetch(raftDir, walWorker);
}
if (process.argv[2] === 'supervise') {
  const { runSuperviseCommand } = await entries.load('supervise');
  try {
    process.exitCode = await runSuperviseCommand(process.argv.slice(3));
  } catch (error) {
    process.stderr.write(`kstore: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
} else {
  const { main } = await entries.load('cli');
  process.exitCode = await main(process.argv.slice(2));
}
