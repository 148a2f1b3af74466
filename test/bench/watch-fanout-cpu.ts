// Owns: the CPU one watch delivery costs, in isolation: `kstore server` (started here in a
// temporary directory), W watchers of one namespace over TLS (each on its own connection, read
// in this process), U updates of one ConfigMap (~700 bytes) paced so that no two events share a
// write; the server's CPU (utime/stime from /proc) and this process's from the first update to
// the last delivery, divided by the deliveries. A figure that does not depend on how busy the
// shared machine is, unlike the watch step of `npm run bench`. Prints one JSON line.
//
//   node --import tsx test/bench/watch-fanout-cpu.ts [--watchers 1000] [--updates 200] [--gap-ms 25]
import { parseArgs } from 'node:util';
import { readKubeconfig } from '../support/kube-client.ts';
import { KstoreProcess } from '../support/kstore-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { BenchClient, configMap, ensureNamespace, expectStatus } from './https-client.ts';
import type { WatchStream } from './https-client.ts';
import { processCpuMs } from './proc-cpu.ts';

const { values: flags } = parseArgs({
  options: { watchers: { type: 'string', default: '1000' }, updates: { type: 'string', default: '200' }, 'gap-ms': { type: 'string', default: '25' } },
});
const watchers = Number(flags.watchers);
const updates = Number(flags.updates);
const gapMs = Number(flags['gap-ms']);
const deliveryDeadlineMs = 20_000;
const openBatch = 50;
const namespace = 'fanout';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const round = (figure: number): number => Math.round(figure * 100) / 100;

const dir = await makeTempDir('kstore-watch-fanout-');
const server = await KstoreProcess.start({ dataDir: dir.path });
const streams: WatchStream[] = [];
try {
  const pid = server.pid;
  if (pid === undefined) throw new Error('kstore server has no pid');
  const client = new BenchClient(server.url, await readKubeconfig(server.kubeconfigPath), 4);
  await ensureNamespace(client, namespace);
  await expectStatus(client.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, configMap('probe', 'start')), [201, 409], 'create probe');
  const listed = await expectStatus(client.request('GET', `/api/v1/namespaces/${namespace}/configmaps`), [200], 'list');
  const resourceVersion = String((listed.metadata as { resourceVersion?: string } | undefined)?.resourceVersion ?? '');
  let delivered = 0;
  for (let start = 0; start < watchers; start += openBatch) {
    streams.push(...await Promise.all(Array.from({ length: Math.min(openBatch, watchers - start) }, () =>
      client.watch(`/api/v1/namespaces/${namespace}/configmaps?watch=1&resourceVersion=${resourceVersion}`, (event) => {
        if (event.type === 'MODIFIED') delivered += 1;
      }))));
  }
  const before = await processCpuMs(pid);
  const ownBefore = process.cpuUsage();
  const value = 'x'.repeat(700);
  for (let sequence = 0; sequence < updates; sequence++) {
    await expectStatus(client.request('PUT', `/api/v1/namespaces/${namespace}/configmaps/probe`, configMap('probe', `${value}${sequence}`)), [200], 'update probe');
    await sleep(gapMs);
  }
  const deadline = Date.now() + deliveryDeadlineMs;
  while (delivered < watchers * updates && Date.now() < deadline) await sleep(20);
  const after = await processCpuMs(pid);
  const own = process.cpuUsage(ownBefore);
  const perDeliveryUs = (ms: number): number => (delivered === 0 ? 0 : round((ms * 1000) / delivered));
  process.stdout.write(`${JSON.stringify({
    watchers, updates, delivered, missing: watchers * updates - delivered,
    serverCpuUsPerDelivery: perDeliveryUs(after.user + after.system - before.user - before.system),
    serverUserUsPerDelivery: perDeliveryUs(after.user - before.user),
    serverSystemUsPerDelivery: perDeliveryUs(after.system - before.system),
    readerCpuUsPerDelivery: perDeliveryUs((own.user + own.system) / 1000),
  })}\n`);
  client.close();
} finally {
  for (const stream of streams) stream.stop();
  await server.stop().catch(() => server.kill());
  await dir.remove();
}
