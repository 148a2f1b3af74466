#!/usr/bin/env node
// The `kstore` executable: runs deploy/cli.ts from a bundle of the sources that it builds and
// rebuilds when they change, or from the sources through tsx (deploy/entry-loader.mjs), so there
// is no build step to remember. `kstore supervise` loads only its own module
// (deploy/roles/supervise.ts, also wired in cli.ts): a supervisor lives as long as its child and
// stays small (about 80 MB instead of 130 MB, and starts in a quarter of the time). `kstore server`
// and `kstore store` start reading their newest snapshot (deploy/snapshot-prefetch.ts) and their
// WAL segments (deploy/wal-prefetch.ts) before they load their modules.
import path from 'node:path';
import { kstoreEntryLoader } from './entry-loader.mjs';

/** `--data-dir`'s value among a command's flags, as deploy/cli.ts reads it; undefined if not given. */
function dataDirFlag(args) {
  let dataDir;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at];
    if (arg === '--') break;
    if (arg === '--data-dir' && at + 1 < args.length) dataDir = args[++at];
    else if (arg.startsWith('--data-dir=')) dataDir = arg.slice('--data-dir='.length);
  }
  return dataDir;
}

const entries = kstoreEntryLoader();
if (process.argv[2] === 'server' || process.argv[2] === 'store') {
  // Before the module graph loads: read and inflate the newest snapshot on the thread pool
  // meanwhile (deploy/snapshot-prefetch.ts; the restore uses it only if it is the same file).
  // And its WAL segments on a worker thread (deploy/wal-prefetch.ts), when running from the bundle.
  const { startSnapshotPrefetch, startWalPrefetch } = await entries.load('snapshot-prefetch');
  // kstore server keeps its Raft log under <data dir>/raft; a store member's data dir is its log.
  // (kstore server's default data dir is .kstore; kstore store has none: it refuses to start.)
  const dataDir = dataDirFlag(process.argv.slice(3)) ?? (process.argv[2] === 'server' ? '.kstore' : undefined);
  if (dataDir !== undefined) {
    const raftDir = process.argv[2] === 'server' ? path.join(dataDir, 'raft') : dataDir;
    startSnapshotPrefetch(raftDir);
    const walWorker = await entries.locate('wal-prefetch-worker');
    if (walWorker !== undefined) startWalPrefetch(raftDir, walWorker);
  }
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
