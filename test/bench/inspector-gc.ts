// Owns: the benchmarks' way to read a node process's memory after a forced full garbage
// collection, through the V8 inspector of a process started with `--inspect=127.0.0.1:0` (a
// node flag the benchmark passes; nothing of it is in the product): finds the inspector's port
// from the process's listening sockets (/proc), speaks just enough WebSocket (RFC 6455, client
// frames masked) for the DevTools protocol, calls HeapProfiler.collectGarbage and reads
// process.memoryUsage() in the process, and VmRSS and /proc/<pid>/smaps_rollup beside it.
// Linux only; for benchmarks, not tests.
import { createHash, randomBytes } from 'node:crypto';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';

/** Loopback TCP ports `pid` listens on (from /proc/<pid>/net/tcp and its socket descriptors). */
async function listeningPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1]!);
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address rem_address st ... inode (field 9); st 0A is LISTEN.
      if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
      ports.push(Number.parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

function httpGetJson(port: number, path: string): Promise<unknown> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, timeout: 1_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** The DevTools WebSocket URL of the inspector `pid` listens with. */
export async function inspectorUrlOf(pid: number): Promise<string> {
  for (const port of await listeningPorts(pid)) {
    const targets = await httpGetJson(port, '/json/list');
    if (!Array.isArray(targets)) continue;
    const first = targets[0] as { webSocketDebuggerUrl?: unknown } | undefined;
    if (typeof first?.webSocketDebuggerUrl === 'string') return first.webSocketDebuggerUrl;
  }
  throw new Error(`process ${pid} has no inspector listening (start it with --inspect=127.0.0.1:0)`);
}

/** One DevTools protocol session over a minimal WebSocket client. */
class InspectorSession {
  readonly #socket: Socket;
  #buffer = Buffer.alloc(0);
  #fragments: Buffer[] = [];
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  private constructor(socket: Socket) {
    this.#socket = socket;
  }

  static async connect(url: string): Promise<InspectorSession> {
    const { hostname, port, pathname } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    const key = randomBytes(16).toString('base64');
    const rest = await new Promise<Buffer>((resolve, reject) => {
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer): void => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        const lines = head.subarray(0, end).toString('latin1').split('\r\n');
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        if (!/^HTTP\/1\.1 101/.test(lines[0] ?? '') || !lines.some((line) => line.toLowerCase() === `sec-websocket-accept: ${accept.toLowerCase()}`)) {
          reject(new Error(`inspector WebSocket handshake refused: ${lines[0] ?? ''}`));
          return;
        }
        resolve(head.subarray(end + 4));
      };
      socket.on('data', onData);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
          + `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      });
    });
    const session = new InspectorSession(socket);
    socket.on('data', (chunk: Buffer) => session.#receive(chunk));
    socket.on('close', () => session.#failAll(new Error('inspector connection closed')));
    socket.on('error', (error) => session.#failAll(error));
    if (rest.length > 0) session.#receive(rest);
    return session;
  }

  call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#nextId++;
    const payload = Buffer.from(JSON.stringify({ id, method, params }));
    const mask = randomBytes(4);
    const lengthBytes = payload.length < 126 ? 0 : payload.length < 65_536 ? 2 : 8;
    const header = Buffer.alloc(2 + lengthBytes);
    header[0] = 0x81; // FIN, text
    if (lengthBytes === 0) header[1] = 0x80 | payload.length;
    else if (lengthBytes === 2) {
      header[1] = 0x80 | 126;
      header.writeUInt16BE(payload.length, 2);
    } else {
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(payload.length), 2);
    }
    for (let at = 0; at < payload.length; at++) payload[at]! ^= mask[at % 4]!;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.write(Buffer.concat([header, mask, payload]));
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #receive(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      if (this.#buffer.length < 2) return;
      const fin = (this.#buffer[0]! & 0x80) !== 0;
      const opcode = this.#buffer[0]! & 0x0f;
      let length = this.#buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.#buffer.length < 4) return;
        length = this.#buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.#buffer.length < 10) return;
        length = Number(this.#buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.#buffer.length < offset + length) return;
      const payload = this.#buffer.subarray(offset, offset + length);
      this.#buffer = this.#buffer.subarray(offset + length);
      if (opcode === 0x8) {
        this.#failAll(new Error('inspector closed the WebSocket'));
        return;
      }
      if (opcode !== 0x0 && opcode !== 0x1) continue; // ping/pong/binary: not used by the inspector
      this.#fragments.push(Buffer.from(payload));
      if (!fin) continue;
      const text = Buffer.concat(this.#fragments).toString('utf8');
      this.#fragments = [];
      const message = JSON.parse(text) as { id?: number; result?: unknown; error?: { message?: string } };
      if (message.id === undefined) continue; // an event
      const waiter = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(`inspector: ${message.error.message ?? 'error'}`));
      else waiter?.resolve(message.result);
    }
  }

  #failAll(error: Error): void {
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
  }
}

/**
 * Starts V8's sampling heap profiler in `pid` (through its inspector) keeping the samples of
 * objects that garbage collections freed too: what the process ALLOCATES while it runs, not what
 * it retains. With `survivorsOnly`, the samples of objects a scavenge freed are dropped: what is
 * left outlived the young generation (was promoted to the old one, where only a full GC frees
 * it) or is still alive at the end. `stop` ends it and returns the profile (a DevTools
 * SamplingHeapProfile, the JSON of a .heapprofile file). Needs V8 11 (node 20) for the flags.
 */
export async function startAllocationSampling(pid: number, options: { readonly samplingIntervalBytes?: number; readonly survivorsOnly?: boolean } = {}): Promise<{ stop: () => Promise<unknown> }> {
  const session = await InspectorSession.connect(await inspectorUrlOf(pid));
  await session.call('HeapProfiler.startSampling', { samplingInterval: options.samplingIntervalBytes ?? 32_768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: options.survivorsOnly !== true });
  return {
    stop: async () => {
      try {
        const stopped = await session.call('HeapProfiler.stopSampling') as { profile?: unknown };
        return stopped.profile;
      } finally {
        session.close();
      }
    },
  };
}

/** Memory of one process after a forced full GC, bytes. */
export interface MemoryAfterGc {
  readonly rss: number;
  /** process.memoryUsage() in the process. */
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** /proc/<pid>/smaps_rollup: anonymous memory and file-backed (code, mapped files) pages resident. */
  readonly anonymous: number;
  readonly fileBacked: number;
}

async function vmRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

async function smapsRollup(pid: number): Promise<{ anonymous: number; rss: number }> {
  const text = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kib = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { anonymous: kib('Anonymous'), rss: kib('Rss') };
}

/**
 * Forces full garbage collections in `pid` (through its inspector) and reads its memory right
 * after. Two collections: the first may leave garbage that finalizers and weak callbacks free.
 */
export async function memoryAfterFullGc(pid: number): Promise<MemoryAfterGc> {
  const session = await InspectorSession.connect(await inspectorUrlOf(pid));
  try {
    await session.call('HeapProfiler.collectGarbage');
    await session.call('HeapProfiler.collectGarbage');
    const evaluated = await session.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true }) as { result?: { value?: unknown } };
    const usage = JSON.parse(String(evaluated.result?.value)) as { heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
    const rss = await vmRssBytes(pid);
    const rollup = await smapsRollup(pid);
    return {
      rss, heapTotal: usage.heapTotal, heapUsed: usage.heapUsed, external: usage.external, arrayBuffers: usage.arrayBuffers,
      anonymous: rollup.anonymous, fileBacked: rollup.rss - rollup.anonymous,
    };
  } finally {
    session.close();
  }
}
