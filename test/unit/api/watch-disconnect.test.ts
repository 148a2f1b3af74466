// Watches whose clients go away abruptly, over a real listener: every watcher leaves the watch
// cache and every socket is closed, whether the client resets the connection in the same tick
// as the request, while the read barrier is pending, after the headers, or after events
// started to flow; and a watcher whose backlog overflows its queue at registration is not kept.
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/wait-for.ts';
import { watcherQueueMax } from '../../../api/watchcache/cache-watcher.ts';
import { admin, configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
let port: number;

beforeEach(async () => {
  harness = await startHarness(['default', 'x']);
  const address = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
afterEach(async () => {
  await harness.close();
});

/**
 * A read barrier that takes a moment (as a Raft ReadIndex does): a client can reset its
 * connection while the handler waits on it, before the watcher is registered.
 */
function slowReadBarrier(): void {
  const readIndex = harness.backend.readIndex.bind(harness.backend);
  harness.backend.readIndex = async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    return readIndex();
  };
}

function openConnections(): Promise<number> {
  return new Promise((resolve, reject) => harness.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

const watchRequest = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: kstore\r\nx-test-user: ${admin['x-test-user']}\r\n\r\n`;

type Moment = 'same tick' | 'next tick' | 'after a few ms' | 'on the headers' | 'on the first event' | 'closing politely';
const moments: readonly Moment[] = ['same tick', 'next tick', 'after a few ms', 'on the headers', 'on the first event', 'closing politely'];

/** Opens a watch on a raw socket and tears it down at `moment`; resolves once the socket closed. */
function abruptWatch(path: string, moment: Moment, index: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('close', () => resolve());
    let received = '';
    socket.on('connect', () => {
      socket.write(watchRequest(path));
      switch (moment) {
        case 'same tick': socket.resetAndDestroy(); break;
        case 'next tick': setImmediate(() => socket.resetAndDestroy()); break;
        case 'after a few ms': setTimeout(() => socket.resetAndDestroy(), index % 5); break;
        case 'on the headers': socket.once('data', () => socket.resetAndDestroy()); break;
        case 'on the first event':
          socket.on('data', (chunk: Buffer) => {
            received += chunk.toString('latin1');
            if (received.includes('"type":"ADDED"')) socket.resetAndDestroy();
          });
          break;
        case 'closing politely': socket.once('data', () => socket.end()); break;
      }
    });
  });
}

describe('watches of clients that go away', () => {
  it('release every watcher and socket when 500 watches are reset at different moments', async () => {
    await harness.request('POST', '/api/v1/namespaces/default/configmaps', configMap('present'));
    slowReadBarrier();
    const watches = Array.from({ length: 500 }, (_, index) => {
      const moment = moments[index % moments.length]!;
      // Watches that wait for an event watch a namespace that has one; the others an empty one.
      const path = moment === 'on the first event' ? '/api/v1/namespaces/default/configmaps?watch=1' : '/api/v1/namespaces/x/configmaps?watch=1';
      return abruptWatch(path, moment, index);
    });
    // Writes while the watches come and go: events are fanned out to watchers whose clients
    // are leaving. Not in x: there no event comes to reveal a lost client to its handler.
    for (let index = 0; index < 20; index++) {
      const response = await harness.request('POST', '/api/v1/namespaces/default/configmaps', configMap(`during-${index}`));
      expect(response.statusCode).toBe(201);
    }
    await Promise.all(watches);
    await waitFor(async () => harness.cache.watcherCount() === 0 && (await openConnections()) === 0, {
      timeoutMs: 10_000, description: 'no watcher and no connection left',
      diagnostics: () => `watchers: ${harness.cache.watcherCount()}`,
    });
  });

  it('a watch whose client is gone before its watcher is registered answers nothing and keeps nothing', async () => {
    let release: () => void = () => {};
    const barrier = new Promise<void>((resolve) => {
      release = resolve;
    });
    const readIndex = harness.backend.readIndex.bind(harness.backend);
    let waiting = 0;
    harness.backend.readIndex = async () => {
      waiting++;
      await barrier;
      return readIndex();
    };
    const closed = new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(watchRequest('/api/v1/namespaces/x/configmaps?watch=1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve());
      // Reset once the handler waits on the read barrier.
      void waitFor(() => waiting > 0, { timeoutMs: 5_000, description: 'the watch waiting on the read barrier' }).then(() => socket.resetAndDestroy());
    });
    const cache = harness.cache;
    const watch = cache.watch.bind(cache);
    let registered = 0;
    cache.watch = (revision, filter) => {
      registered++;
      return watch(revision, filter);
    };
    await closed;
    await waitFor(async () => (await openConnections()) === 0, { timeoutMs: 5_000, description: 'the connection closed on the server' });
    release();
    // The watcher is registered once the barrier passes, and released at once.
    await waitFor(() => registered === 1, { timeoutMs: 5_000, description: 'the watcher registered after the barrier' });
    await waitFor(() => cache.watcherCount() === 0, { timeoutMs: 5_000, description: 'the watcher of the gone client released' });
  });

  it('a watcher whose backlog overflows its queue at registration leaves the cache', async () => {
    const start = harness.backend.currentRevision();
    // Straight to the store (a burst of writes the watch cache keeps in its window).
    for (let index = 0; index <= watcherQueueMax; index++) {
      const name = `burst-${index}`;
      await harness.backend.propose({
        type: 'create', key: { group: '', resource: 'configmaps', namespace: 'x', name },
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'x', uid: `uid-${index}` }, data: { a: 'b' } },
        at: new Date().toISOString(),
      });
    }
    const watcher = harness.cache.watch(start, { matches: () => true });
    expect(watcher).not.toBe('expired');
    if (watcher === 'expired') return;
    expect(watcher.closed).toBe(true);
    expect(harness.cache.watcherCount()).toBe(0);
  });
});
