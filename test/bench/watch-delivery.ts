// Owns: the watch-delivery measurement shared by `bench:api` and `npm run bench`: W watchers
// watch one namespace from its list resourceVersion while one writer updates a ConfigMap there
// at a steady pace; for each update and watcher, the event's arrival minus the write's start
// (includes the commit: an upper bound of commit -> delivery) and minus the write's
// acknowledgement (negative when the event beat the response), p50/p99, per update its first and
// its last watcher's arrival (how late the event reached the replica's fan-out, and the fan-out
// and reading on top), the event-loop delay of the main thread and of the watcher threads
// meanwhile (the load generator's own share of the arrival times), and how many expected events
// never arrived (10 s after the last write). The watchers are spread over worker threads
// (watch-worker.ts), each reading its streams on its own event loop, so that neither one
// thread's queue of a thousand TLS streams nor the main thread's background clients sit in the
// arrival times.
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { BenchClient } from './https-client.ts';
import { configMap, ensureNamespace, expectStatus } from './https-client.ts';
import { now } from './load.ts';
import type { WatcherThreadCommand, WatcherThreadData, WatcherThreadMessage } from './watch-worker.ts';

export interface WatchDeliveryPlan {
  readonly namespace: string;
  readonly watchers: number;
  readonly updates: number;
  readonly ratePerSecond: number;
  /** The client the updates go through. */
  readonly writer: BenchClient;
  /** The client watcher `position` opens its watch on. */
  readonly watcherClient: (position: number) => BenchClient;
  readonly progress: (message: string) => void;
  /** Runs once every watcher is open, before the first update (e.g. to start a background load). */
  readonly beforeUpdates?: () => Promise<void>;
  /** Worker threads the watchers are spread over (default: the machine's available parallelism). */
  readonly watcherThreads?: number;
}

export interface WatchDeliveryResult {
  readonly watchers: number;
  readonly updates: number;
  readonly deliveries: number;
  readonly missing: number;
  readonly fromWriteStartP50Ms: number | null;
  readonly fromWriteStartP99Ms: number | null;
  readonly afterAckP50Ms: number | null;
  readonly afterAckP99Ms: number | null;
  /**
   * Per update, its first and its last watcher's arrival minus the write's start: the first
   * tells how late the event reached the watched replica's fan-out (the stream and the store
   * before it), the last adds the fan-out to every watcher and the clients' reading.
   */
  readonly firstArrivalP50Ms: number | null;
  readonly firstArrivalP99Ms: number | null;
  readonly lastArrivalP50Ms: number | null;
  readonly lastArrivalP99Ms: number | null;
  readonly writeP99Ms: number | null;
  /**
   * The main thread's event-loop delay from the first update to the last delivery (p50/p99/max):
   * the writer's and the background clients' thread.
   */
  readonly loadGeneratorLoopDelayMs: LoopDelay;
  /**
   * The watcher threads' event-loop delay meanwhile, the worst thread's of each figure: how late
   * a thread got round to reading a stream that had data, i.e. how much of an arrival time is the
   * load generator's own queueing rather than the server's delivery.
   */
  readonly watcherThreads: number;
  readonly watcherThreadLoopDelayMs: LoopDelay;
}

interface LoopDelay { readonly p50: number; readonly p99: number; readonly max: number }

/** A started watcher thread: its watchers are open once `opened` resolves. */
interface WatcherThread {
  readonly worker: Worker;
  readonly watchers: number;
  readonly opened: Promise<void>;
  /** Updates every watcher of this thread has. */
  readonly complete: Set<number>;
  /** Closes the thread's streams and resolves with its arrivals and loop delay. */
  finish(): Promise<{ arrivals: number[][]; loopDelayMs: LoopDelay }>;
}

function startWatcherThread(data: WatcherThreadData): WatcherThread {
  const worker = new Worker(new URL('./watch-worker.mjs', import.meta.url), { workerData: data });
  const complete = new Set<number>();
  let result: ((value: { arrivals: number[][]; loopDelayMs: LoopDelay }) => void) | undefined;
  let failed: ((error: Error) => void) | undefined;
  const finished = new Promise<{ arrivals: number[][]; loopDelayMs: LoopDelay }>((resolve, reject) => {
    result = resolve;
    failed = reject;
  });
  const opened = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: WatcherThreadMessage) => {
      if (message.type === 'open') resolve();
      else if (message.type === 'failed') reject(new Error(`watcher thread: ${message.message}`));
      else if (message.type === 'complete') complete.add(message.sequence);
      else result?.({ arrivals: message.arrivals, loopDelayMs: message.loopDelayMs });
    });
    worker.on('error', (error) => {
      reject(error);
      failed?.(error);
    });
    worker.on('exit', (code) => {
      const error = new Error(`watcher thread exited with code ${code}`);
      reject(error);
      failed?.(error);
    });
  });
  opened.catch(() => undefined);
  finished.catch(() => undefined);
  const command = (message: WatcherThreadCommand): void => worker.postMessage(message);
  return {
    worker, watchers: data.watchers.length, opened, complete,
    finish: () => {
      command({ type: 'finish' });
      return finished;
    },
  };
}

/** Tells every thread to start measuring its loop delay. */
function startMeasuring(threads: readonly WatcherThread[]): void {
  for (const thread of threads) thread.worker.postMessage({ type: 'start' } satisfies WatcherThreadCommand);
}

const openBatch = 50;
const deliveryDeadlineMs = 10_000;

function percentile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]! * 100) / 100;
}

/** Opens the watchers, writes the updates at the plan's pace, waits for delivery, closes the watchers. */
export async function measureWatchDelivery(plan: WatchDeliveryPlan): Promise<WatchDeliveryResult> {
  const { namespace, watchers, updates, writer } = plan;
  await ensureNamespace(writer, namespace);
  await expectStatus(writer.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, configMap('probe', 'start')), [201, 409], 'create probe');
  const listed = await expectStatus(writer.request('GET', `/api/v1/namespaces/${namespace}/configmaps`), [200], 'list probe namespace');
  const resourceVersion = String((listed.metadata as { resourceVersion?: string } | undefined)?.resourceVersion ?? '');
  const path = `/api/v1/namespaces/${namespace}/configmaps?watch=1&resourceVersion=${resourceVersion}`;
  const threadCount = Math.max(1, Math.min(watchers, plan.watcherThreads ?? os.availableParallelism()));
  const shares: WatcherThreadData['watchers'][number][][] = Array.from({ length: threadCount }, () => []);
  for (let position = 0; position < watchers; position++) {
    const client = plan.watcherClient(position);
    shares[position % threadCount]!.push({ server: client.server, ...client.credentials });
  }
  plan.progress(`watch: opening ${watchers} watchers on ${threadCount} threads`);
  const threads = shares.filter((share) => share.length > 0).map((share) => startWatcherThread({ watchers: share, path, updates, openBatch }));
  /** arrivals[seq] = arrival times of the update carrying value `u<seq>` (filled from the threads at the end). */
  const arrivals: number[][] = Array.from({ length: updates }, () => []);
  let finished = false;
  const finishThreads = async (): Promise<{ arrivals: number[][]; loopDelayMs: LoopDelay }[]> => {
    finished = true;
    return Promise.all(threads.map((thread) => thread.finish()));
  };
  try {
    await Promise.all(threads.map((thread) => thread.opened));
    await plan.beforeUpdates?.();
    plan.progress(`watch: ${watchers} watchers open; ${updates} updates at ${plan.ratePerSecond}/s`);
    const started: number[] = [];
    const acked: number[] = [];
    const writeLatencies: number[] = [];
    const interval = 1000 / plan.ratePerSecond;
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    startMeasuring(threads);
    const origin = now();
    for (let sequence = 0; sequence < updates; sequence++) {
      const due = origin + sequence * interval;
      const wait = due - now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      started[sequence] = now();
      await expectStatus(writer.request('PUT', `/api/v1/namespaces/${namespace}/configmaps/probe`, configMap('probe', `u${sequence}`)), [200], 'update probe');
      acked[sequence] = now();
      writeLatencies.push(acked[sequence]! - started[sequence]!);
    }
    const deadline = now() + deliveryDeadlineMs;
    const allComplete = (): boolean => threads.every((thread) => thread.complete.size === updates);
    while (now() < deadline && !allComplete()) await new Promise((resolve) => setTimeout(resolve, 50));
    loopDelay.disable();
    const results = await finishThreads();
    for (const result of results) result.arrivals.forEach((times, sequence) => arrivals[sequence]?.push(...times));
    const worst = (pick: (delay: LoopDelay) => number): number => Math.max(0, ...results.map((result) => pick(result.loopDelayMs)));
    const delayMs = (nanoseconds: number): number => Math.round(nanoseconds / 1e4) / 100;
    const fromStart: number[] = [];
    const afterAck: number[] = [];
    const firstArrivals: number[] = [];
    const lastArrivals: number[] = [];
    let deliveries = 0;
    for (let sequence = 0; sequence < updates; sequence++) {
      const times = arrivals[sequence]!;
      for (const arrived of times) {
        deliveries += 1;
        fromStart.push(arrived - started[sequence]!);
        afterAck.push(arrived - acked[sequence]!);
      }
      if (times.length > 0) {
        firstArrivals.push(Math.min(...times) - started[sequence]!);
        lastArrivals.push(Math.max(...times) - started[sequence]!);
      }
    }
    const tenth = Math.max(1, Math.floor(updates / 10));
    const trend = arrivals.filter((_, sequence) => sequence % tenth === 0).map((times, index) =>
      times.length === 0 ? 'none' : `${Math.round(Math.min(...times) - started[index * tenth]!)}/${Math.round(Math.max(...times) - started[index * tenth]!)}`);
    plan.progress(`watch: first/last arrival (ms after the write's start) of every ${tenth}th update: ${trend.join(' ')}`);
    for (const figures of [fromStart, afterAck, firstArrivals, lastArrivals]) figures.sort((a, b) => a - b);
    writeLatencies.sort((a, b) => a - b);
    return {
      watchers, updates, deliveries, missing: watchers * updates - deliveries,
      fromWriteStartP50Ms: percentile(fromStart, 0.5), fromWriteStartP99Ms: percentile(fromStart, 0.99),
      afterAckP50Ms: percentile(afterAck, 0.5), afterAckP99Ms: percentile(afterAck, 0.99),
      firstArrivalP50Ms: percentile(firstArrivals, 0.5), firstArrivalP99Ms: percentile(firstArrivals, 0.99),
      lastArrivalP50Ms: percentile(lastArrivals, 0.5), lastArrivalP99Ms: percentile(lastArrivals, 0.99),
      writeP99Ms: percentile(writeLatencies, 0.99),
      loadGeneratorLoopDelayMs: { p50: delayMs(loopDelay.percentile(50)), p99: delayMs(loopDelay.percentile(99)), max: delayMs(loopDelay.max) },
      watcherThreads: threads.length,
      watcherThreadLoopDelayMs: { p50: worst((delay) => delay.p50), p99: worst((delay) => delay.p99), max: worst((delay) => delay.max) },
    };
  } finally {
    if (!finished) await finishThreads().catch(() => undefined);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }
}
