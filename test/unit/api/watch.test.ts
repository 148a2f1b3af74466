// Watch over a real socket (fastify listening on an ephemeral loopback port): the chunked
// stream of one JSON event per line, where a watch starts, resumption without replay,
// selectors turning into ADDED/DELETED, and sendInitialEvents with its closing bookmark.
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/wait-for.ts';
import { admin, configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
let baseUrl: string;
const cms = '/api/v1/namespaces/t/configmaps';

interface WatchEvent {
  type: string;
  object: { kind?: string; metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; data?: Record<string, string>; code?: number; reason?: string };
}

beforeEach(async () => {
  harness = await startHarness(['default', 't'], { bookmarkIntervalMs: 20 });
  baseUrl = await harness.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await harness.close();
});

/** Opens a watch and returns a reader that yields parsed events as they arrive. */
async function openWatch(path: string) {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, { headers: admin, signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    async next(): Promise<WatchEvent> {
      while (!buffer.includes('\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`watch ended; buffered: ${buffer}`);
        buffer += value;
      }
      const newline = buffer.indexOf('\n');
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      return JSON.parse(line) as WatchEvent;
    },
    async ended(): Promise<boolean> {
      const { done } = await reader.read();
      return done;
    },
    close: () => controller.abort(),
  };
}

describe('watch', () => {
  it('without resourceVersion starts with ADDED for existing objects, then streams changes', async () => {
    await harness.request('POST', cms, configMap('existing'));
    const watch = await openWatch(`${cms}?watch=1`);
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'existing' } } });
    await harness.request('POST', cms, configMap('new'));
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'new' } } });
    const current = (await harness.request('GET', `${cms}/new`)).json();
    await harness.request('PUT', `${cms}/new`, { ...current, data: { a: 'changed' } });
    expect(await watch.next()).toMatchObject({ type: 'MODIFIED', object: { data: { a: 'changed' } } });
    await harness.request('DELETE', `${cms}/new`);
    expect(await watch.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'new' } } });
    watch.close();
  });

  it('a re-sync of the store copy ends every watch with a 410 ERROR and restarts the window at the new revision', async () => {
    const first = (await harness.request('POST', cms, configMap('one'))).json();
    const watch = await openWatch(`${cms}?watch=1&resourceVersion=${first.metadata.resourceVersion}`);
    await harness.request('POST', cms, configMap('two'));
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'two' } } });
    harness.backend.simulateResync('stream recreated');
    expect(await watch.next()).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(await watch.ended()).toBe(true);
    expect(harness.cache.watcherCount()).toBe(0);
    // Resuming from before the re-sync is refused; from the re-synced revision it works.
    const stale = await openWatch(`${cms}?watch=1&resourceVersion=${first.metadata.resourceVersion}`);
    expect(await stale.next()).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    stale.close();
    const resumed = await openWatch(`${cms}?watch=1&resourceVersion=${harness.backend.currentRevision()}`);
    await harness.request('POST', cms, configMap('three'));
    expect(await resumed.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'three' } } });
    resumed.close();
  });

  it('resuming from a resourceVersion does not replay that version but sends everything after it', async () => {
    const first = (await harness.request('POST', cms, configMap('one'))).json();
    await harness.request('POST', cms, configMap('two'));
    const watch = await openWatch(`${cms}?watch=1&resourceVersion=${first.metadata.resourceVersion}`);
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'two' } } });
    await harness.request('POST', cms, configMap('three'));
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'three' } } });
    watch.close();
  });

  it('a GET of an item with ?watch=1 is a get (kube serves no item watch there), authorized and answered as one', async () => {
    await harness.request('POST', cms, configMap('a'));
    const response = await harness.request('GET', `${cms}/a?watch=1`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'a' } });
  });

  it('watches one item through the legacy /watch/ path and ignores others', async () => {
    await harness.request('POST', cms, configMap('a'));
    const watch = await openWatch(cms.replace('/api/v1/', '/api/v1/watch/') + '/a');
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    await harness.request('POST', cms, configMap('b'));
    await harness.request('DELETE', `${cms}/a`);
    expect(await watch.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'a' } } });
    watch.close();
  });

  it('reports an object that stops matching the label selector as DELETED', async () => {
    const created = (await harness.request('POST', cms, configMap('a', {}, { labels: { app: 'x' } }))).json();
    const watch = await openWatch(`${cms}?watch=1&labelSelector=app%3Dx`);
    expect((await watch.next()).type).toBe('ADDED');
    await harness.request('PUT', `${cms}/a`, { ...created, metadata: { ...created.metadata, labels: { app: 'y' } } });
    expect(await watch.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'a' } } });
    watch.close();
  });

  it('sendInitialEvents ends the initial state with an annotated BOOKMARK', async () => {
    await harness.request('POST', cms, configMap('a'));
    const watch = await openWatch(`${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    expect((await watch.next()).type).toBe('ADDED');
    const bookmark = await watch.next();
    expect(bookmark.type).toBe('BOOKMARK');
    expect(bookmark.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(Number(bookmark.object.metadata.resourceVersion)).toBe(harness.backend.currentRevision());
    watch.close();
  });

  it('allowWatchBookmarks brings BOOKMARK events carrying only the current resourceVersion', async () => {
    const watch = await openWatch(`${cms}?watch=1&resourceVersion=0&allowWatchBookmarks=true`);
    const created = (await harness.request('POST', cms, configMap('b'))).json();
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });
    let bookmark = await watch.next();
    while (bookmark.type !== 'BOOKMARK') bookmark = await watch.next();
    expect(bookmark.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: bookmark.object.metadata.resourceVersion } });
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(created.metadata.resourceVersion));
    watch.close();
  });

  it('does not send bookmarks unless asked', async () => {
    const watch = await openWatch(`${cms}?watch=1&resourceVersion=0&timeoutSeconds=1`);
    await harness.request('POST', cms, configMap('quiet'));
    expect((await watch.next()).type).toBe('ADDED');
    expect(await watch.ended()).toBe(true);
  });

  it('a client that disconnects frees its watcher', async () => {
    const socket = await new Promise<import('node:net').Socket>((resolve) => {
      const request = http.get(`${baseUrl}${cms}?watch=1&resourceVersion=0`, { headers: admin }, (response) => resolve(response.socket));
      request.end();
    });
    expect(harness.cache.watcherCount()).toBe(1);
    socket.destroy();
    await waitFor(() => harness.cache.watcherCount() === 0, { timeoutMs: 5_000, description: 'watcher released' });
  });

  it('timeoutSeconds ends the stream', async () => {
    const watch = await openWatch(`${cms}?watch=1&timeoutSeconds=1`);
    expect(await watch.ended()).toBe(true);
  });

  it('serves Table rows to kubectl get -w', async () => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}${cms}?watch=1`, { headers: { ...admin, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, signal: controller.signal });
    await harness.request('POST', cms, configMap('row'));
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n')) text += (await reader.read()).value ?? '';
    const event = JSON.parse(text.split('\n')[0]!) as { type: string; object: { kind: string; rows: { cells: unknown[] }[] } };
    expect(event).toMatchObject({ type: 'ADDED', object: { kind: 'Table' } });
    expect(event.object.rows[0]!.cells[0]).toBe('row');
    controller.abort();
  });
});
