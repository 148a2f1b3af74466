// Owns: the worker thread of the start-up WAL read-ahead (wal-prefetch.ts): reads each segment
// file it is given, in order, checks its records (framing and CRC-32: raft/storage checkSegment)
// and posts the bytes to the main thread (their ArrayBuffer transferred, not copied) with the
// check and the file's identity as read. Runs as its own bundled entry (deploy/entry-loader.mjs).
// Why a thread: at start-up the main thread loads modules, then restores the snapshot; reading
// and checking ~130 MB of WAL there took about a second of it (the first touch of freshly read
// memory is slow on the VMs measured), and here it runs on the other core meanwhile.
// Must not: write to the files, or decide anything about recovery (the main thread does, and
// uses these bytes only while the file is unchanged).
import { open } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { checkSegment } from '../raft/storage/index.ts';
import type { WalPrefetchJob, WalPrefetchMessage } from './wal-prefetch.ts';

async function readChecked(path: string): Promise<WalPrefetchMessage> {
  const handle = await open(path, 'r');
  try {
    const stat = await handle.stat({ bigint: true });
    // An ArrayBuffer of its own (never the shared pool a small Buffer comes from), to transfer.
    const bytes = new ArrayBuffer(Number(stat.size));
    const buffer = Buffer.from(bytes);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled < buffer.length) return { path, failed: 'the file shrank while it was read' };
    const identity = { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs };
    return { path, identity, bytes, check: checkSegment(buffer) };
  } finally {
    await handle.close();
  }
}

async function run(job: WalPrefetchJob): Promise<void> {
  for (const path of job.paths) {
    const message = await readChecked(path).catch((error: unknown): WalPrefetchMessage => ({ path, failed: error instanceof Error ? error.message : String(error) }));
    parentPort!.postMessage(message, 'bytes' in message ? [message.bytes] : []);
  }
}

if (parentPort !== null) await run(workerData as WalPrefetchJob);
