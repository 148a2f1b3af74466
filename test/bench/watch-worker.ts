// Owns: one watcher thread of the watch-delivery measurement (watch-delivery.ts starts several):
// it opens its share of the watch streams on its own event loop, records each update's arrival
// times (process.hrtime, the same monotonic clock in every thread), tells the main thread when
// every one of its watchers has an update, and on request closes its streams and hands back the
// arrivals and its own event-loop delay. Spreading 1,000 TLS streams over threads keeps one
// thread's reading queue (and the main thread's background clients) out of the arrival times.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { BenchClient } from './https-client.ts';
import type { WatchStream } from './https-client.ts';

export interface WatcherThreadData {
  /** Per watcher, the API endpoint and credentials it watches through. */
  readonly watchers: readonly { readonly server: string; readonly ca: string; readonly cert?: string; readonly key?: string }[];
  readonly path: string;
  readonly updates: number;
  readonly openBatch: number;
}

export type WatcherThreadCommand = { readonly type: 'start' } | { readonly type: 'finish' };

export type WatcherThreadMessage =
  | { readonly type: 'open' }
  | { readonly type: 'failed'; readonly message: string }
  /** Every watcher of this thread has update `sequence`. */
  | { readonly type: 'complete'; readonly sequence: number }
  | { readonly type: 'result'; readonly arrivals: number[][]; readonly loopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number } };

const data = workerData as WatcherThreadData;
const port = parentPort;
if (port === null) throw new Error('watch-worker.ts runs as a worker thread');
const post = (message: WatcherThreadMessage): void => port.postMessage(message);

const arrivals: number[][] = Array.from({ length: data.updates }, () => []);
const streams: WatchStream[] = [];
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
const clients = new Map<string, BenchClient>();

function clientFor(watcher: WatcherThreadData['watchers'][number]): BenchClient {
  let client = clients.get(watcher.server);
  if (client === undefined) {
    const credentials = { ca: watcher.ca, ...(watcher.cert === undefined ? {} : { cert: watcher.cert }), ...(watcher.key === undefined ? {} : { key: watcher.key }) };
    client = new BenchClient(watcher.server, credentials, 1);
    clients.set(watcher.server, client);
  }
  return client;
}

async function open(): Promise<void> {
  const total = data.watchers.length;
  for (let start = 0; start < total; start += data.openBatch) {
    const opened = await Promise.all(data.watchers.slice(start, start + data.openBatch).map((watcher) =>
      clientFor(watcher).watch(data.path, (event, arrived) => {
        const match = /^u(\d+)$/.exec(event.object.data?.value ?? '');
        if (event.type !== 'MODIFIED' || !match) return;
        const sequence = Number(match[1]);
        const times = arrivals[sequence];
        if (times === undefined) return;
        times.push(arrived);
        if (times.length === total) post({ type: 'complete', sequence });
      })));
    streams.push(...opened);
  }
}

port.on('message', (command: WatcherThreadCommand) => {
  if (command.type === 'start') {
    loopDelay.enable();
    return;
  }
  loopDelay.disable();
  for (const stream of streams) stream.stop();
  for (const client of clients.values()) client.close();
  const delayMs = (nanoseconds: number): number => Math.round(nanoseconds / 1e4) / 100;
  post({ type: 'result', arrivals, loopDelayMs: { p50: delayMs(loopDelay.percentile(50)), p99: delayMs(loopDelay.percentile(99)), max: delayMs(loopDelay.max) } });
  port.close();
});

open().then(() => post({ type: 'open' }), (error: unknown) => {
  for (const stream of streams) stream.stop();
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
});
