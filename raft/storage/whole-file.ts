// Owns: reading a whole file into one buffer with as few thread-pool round trips as the kernel
// allows. fs.promises.readFile reads in 512 KiB pieces, each a round trip through libuv's thread
// pool and back to the event loop: a 64 MiB WAL segment was 128 of them, and while the pool was
// busy (the snapshot's gunzip at start-up) the main thread sat idle between them (~0.3 s per
// segment in a restart's profile). Here a file is read with one positional read of its size
// (more only if the kernel returns less).
// Must not: return fewer bytes than the file holds when nothing changes it meanwhile.
import { open } from 'node:fs/promises';

/** The file's bytes. A file that grows meanwhile is read to its size at open; one that shrinks, to its end. */
export async function readWholeFile(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === size ? buffer : buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
