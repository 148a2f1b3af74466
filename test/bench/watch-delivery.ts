// Owns: the watch-delivery measurement shared by `bench:api` and `npm run bench`: W watchers
// watch one namespace from its list resourceVersion while one writer updates a ConfigMap there
// at a steady pace; for each update and watcher, the event's arrival minus the write's start
// (includes the commit: an upper bound of commit -> delivery) and minus the write's
// acknowledgement (negative when the event beat the response), p50/p99, per update its first and
// its last watcher's arrival (how late the event reached the replica's fan-out, and the fan-out
// and reading on top), this process's event-loop delay meanwhile (its own share of the arrival
// times), and how many expected events never arrived (10 s after the last write).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { BenchClient, WatchStream } from './https-client.ts';
import { configMap, ensureNamespace, expectStatus } from './https-client.ts';
import { now } from './load.ts';

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
   * This process's event-loop delay from the first update to the last delivery (p50/p99/max):
   * how late it got round to reading a stream that had data, i.e. how much of an arrival time is
   * the load generator's own queueing rather than the server's delivery.
   */
  readonly loadGeneratorLoopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
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
  /** arrivals[seq] = arrival times of the update carrying value `u<seq>`. */
  const arrivals: number[][] = Array.from({ length: updates }, () => []);
  const streams: WatchStream[] = [];
  plan.progress(`watch: opening ${watchers} watchers`);
  try {
    for (let start = 0; start < watchers; start += openBatch) {
      const opened = await Promise.all(Array.from({ length: Math.min(openBatch, watchers - start) }, (_, offset) =>
        plan.watcherClient(start + offset).watch(`/api/v1/namespaces/${namespace}/configmaps?watch=1&resourceVersion=${resourceVersion}`, (event, arrived) => {
          const match = /^u(\d+)$/.exec(event.object.data?.value ?? '');
          if (event.type === 'MODIFIED' && match) arrivals[Number(match[1])]?.push(arrived);
        })));
      streams.push(...opened);
    }
    await plan.beforeUpdates?.();
    plan.progress(`watch: ${watchers} watchers open; ${updates} updates at ${plan.ratePerSecond}/s`);
    const started: number[] = [];
    const acked: number[] = [];
    const writeLatencies: number[] = [];
    const interval = 1000 / plan.ratePerSecond;
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
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
    while (now() < deadline && arrivals.some((times) => times.length < watchers)) await new Promise((resolve) => setTimeout(resolve, 50));
    loopDelay.disable();
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
    };
  } finally {
    for (const stream of streams) stream.stop();
  }
}
