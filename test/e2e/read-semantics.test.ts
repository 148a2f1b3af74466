// End-to-end over HTTPS: the spec's resourceVersion tables for get, list and watch, row by row,
// against both deployments — an all-in-one `kstore server` and an HA cluster started with
// `kstore cluster up` (3 nats-servers, 3 stores, 2 API replicas). On the cluster, writes go
// through replica a1 and reads through replica a2, so "Most Recent" must really be a consistent
// read (the leader's ReadIndex) and "Not older than"/"Exact"/continuation must be served by a
// replica that did not take the write. Each row is named by its semantic in the spec's table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployments } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { httpsRequest, jsonBody, openWatch } from '../support/kube-client.ts';
import type { HttpResponse, WatchEvent } from '../support/kube-client.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';

interface ListBody {
  readonly metadata: { readonly resourceVersion: string; readonly continue?: string; readonly remainingItemCount?: number };
  readonly items: readonly { readonly metadata: { readonly name: string; readonly resourceVersion: string } }[];
}

interface StatusBody {
  readonly kind: string;
  readonly code: number;
  readonly reason: string;
  readonly message: string;
}

for (const { name, start } of deployments) {
  describe(`resourceVersion semantics over HTTPS: ${name}`, () => {
    let dir: TempDir | undefined;
    let target: Target;
    const namespace = 'rv';
    const collection = `/api/v1/namespaces/${namespace}/configmaps`;

    const write = (method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse> =>
      httpsRequest(target.writer, target.credentials, { method, path: urlPath, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) });
    const read = (urlPath: string): Promise<HttpResponse> => httpsRequest(target.reader, target.credentials, { path: urlPath });
    const watch = (urlPath: string) => openWatch(target.reader, target.credentials, urlPath);
    const create = async (item: string): Promise<number> => {
      const response = await write('POST', collection, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: item }, data: { a: 'b' } });
      expect(response.status, response.body).toBe(201);
      return Number(jsonBody<{ metadata: { resourceVersion: string } }>(response).metadata.resourceVersion);
    };
    const list = async (query: string): Promise<ListBody> => {
      const response = await read(`${collection}?${query}`);
      expect(response.status, `${query}: ${response.body}`).toBe(200);
      return jsonBody<ListBody>(response);
    };
    // The test's own configmaps: kube-root-ca.crt is the root CA publisher's, in every namespace as on kube.
    const names = (body: ListBody): string[] => body.items.map((item) => item.metadata.name).filter((item) => item !== 'kube-root-ca.crt');
    const expectStatus = async (urlPath: string, code: number, reason: string, message: RegExp): Promise<HttpResponse> => {
      const response = await read(urlPath);
      expect(response.status, `${urlPath}: ${response.body}`).toBe(code);
      const status = jsonBody<StatusBody>(response);
      expect(status).toMatchObject({ kind: 'Status', code, reason });
      expect(status.message).toMatch(message);
      return response;
    };
    const nextEvents = async (reader: { next(): Promise<WatchEvent> }, count: number): Promise<WatchEvent[]> => {
      const events: WatchEvent[] = [];
      for (let position = 0; position < count; position++) events.push(await reader.next());
      return events;
    };

    // a at revisionA, then b at revisionB: the state "as of revisionA" has only a.
    let revisionA = 0;
    let revisionB = 0;

    beforeAll(async () => {
      dir = await makeTempDir('kstore-e2e-rv-');
      // Periodic bookmarks every second, so the allowWatchBookmarks row needs no minute-long wait.
      target = await start(dir, ['--watch-bookmark-interval', '1s']);
      expect((await write('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })).status).toBe(201);
      revisionA = await create('a');
      revisionB = await create('b');
    }, 120_000);

    afterAll(async () => {
      await target?.stop();
      await dir?.remove();
    }, 60_000);

    describe('get', () => {
      it('unset: Most Recent — a write through one endpoint is read at once through the other', async () => {
        for (let round = 0; round < 5; round++) {
          const revision = await create(`get-${round}`);
          const response = await read(`${collection}/get-${round}`);
          expect(response.status, response.body).toBe(200);
          expect(jsonBody<{ metadata: { resourceVersion: string } }>(response).metadata.resourceVersion).toBe(String(revision));
        }
      });

      it('0: Any — served from the cache, which never goes back behind a read it served', async () => {
        const revision = await create('any');
        expect((await read(`${collection}/any`)).status).toBe(200);
        const response = await read(`${collection}/any?resourceVersion=0`);
        expect(response.status, response.body).toBe(200);
        expect(jsonBody<{ metadata: { resourceVersion: string } }>(response).metadata.resourceVersion).toBe(String(revision));
      });

      it('non-zero: Not older than — at least that version; a version not reached yet is 504 Too large resource version with Retry-After', async () => {
        const response = await read(`${collection}/b?resourceVersion=${revisionB}`);
        expect(response.status, response.body).toBe(200);
        const future = await expectStatus(`${collection}/b?resourceVersion=${revisionB + 1_000_000}`, 504, 'Timeout', /Too large resource version/);
        expect(future.headers['retry-after']).toMatch(/^\d+$/);
      });
    });

    describe('list', () => {
      it('limit unset — unset: Most Recent; 0: Any; non-zero: Not older than', async () => {
        const revision = await create('list-newest');
        const mostRecent = await list('');
        expect(names(mostRecent)).toContain('list-newest');
        expect(Number(mostRecent.metadata.resourceVersion)).toBeGreaterThanOrEqual(revision);
        const any = await list('resourceVersion=0');
        expect(names(any)).toEqual(expect.arrayContaining(['a', 'b']));
        const notOlder = await list(`resourceVersion=${revisionA}`);
        expect(Number(notOlder.metadata.resourceVersion)).toBeGreaterThanOrEqual(revision);
        expect(names(notOlder)).toContain('list-newest');
      });

      it('limit set, continue unset, non-zero: Exact — the collection as of that version', async () => {
        const exact = await list(`limit=500&resourceVersion=${revisionA}`);
        expect(exact.metadata.resourceVersion).toBe(String(revisionA));
        expect(names(exact)).toEqual(['a']);
        expect(exact.metadata.continue ?? '').toBe('');
      });

      it('resourceVersionMatch=Exact: the collection as of that version, with or without a limit', async () => {
        for (const query of [`resourceVersionMatch=Exact&resourceVersion=${revisionA}`, `resourceVersionMatch=Exact&resourceVersion=${revisionA}&limit=500`]) {
          const exact = await list(query);
          expect(exact.metadata.resourceVersion, query).toBe(String(revisionA));
          expect(names(exact), query).toEqual(['a']);
        }
      });

      it('resourceVersionMatch=NotOlderThan: non-zero is Not older than (with or without a limit), 0 is Any', async () => {
        for (const query of [`resourceVersionMatch=NotOlderThan&resourceVersion=${revisionA}`, `resourceVersionMatch=NotOlderThan&resourceVersion=${revisionA}&limit=500`]) {
          const body = await list(query);
          expect(Number(body.metadata.resourceVersion), query).toBeGreaterThanOrEqual(revisionB);
          expect(names(body), query).toEqual(expect.arrayContaining(['a', 'b']));
        }
        expect(names(await list('resourceVersionMatch=NotOlderThan&resourceVersion=0'))).toEqual(expect.arrayContaining(['a', 'b']));
      });

      it('limit and continue: Continuation — every chunk at one resourceVersion, remainingItemCount counting down, later writes not mixed in', async () => {
        const before = await list('');
        // Every item counts here, kube-root-ca.crt included: remainingItemCount counts it too.
        const allNames = (body: ListBody): string[] => body.items.map((item) => item.metadata.name);
        const expected = allNames(before);
        const seen: string[] = [];
        let page = await list('limit=2');
        const snapshot = page.metadata.resourceVersion;
        await create('after-the-first-chunk');
        for (;;) {
          expect(page.metadata.resourceVersion).toBe(snapshot);
          seen.push(...allNames(page));
          const token = page.metadata.continue ?? '';
          if (token === '') {
            expect(page.metadata.remainingItemCount).toBeUndefined();
            break;
          }
          expect(page.metadata.remainingItemCount).toBe(expected.length - seen.length);
          // rv 0 (or unset) is allowed next to a continue token.
          page = await list(`limit=2&continue=${encodeURIComponent(token)}${seen.length === 2 ? '&resourceVersion=0' : ''}`);
        }
        expect(seen).toEqual(expected);
        expect(seen).not.toContain('after-the-first-chunk');
      });

      it('Exact at a version older than the window is 410 Expired', async () => {
        // The window starts where this API server's cache started (after the system namespaces).
        await expectStatus(`${collection}?limit=10&resourceVersion=1`, 410, 'Expired', /^too old resource version: 1 \(\d+\)$/);
      });

      it('the invalid combinations of the table are 400 BadRequest', async () => {
        const first = await list('limit=1');
        const token = encodeURIComponent(first.metadata.continue ?? '');
        expect(token).not.toBe('');
        for (const query of [
          `limit=1&continue=${token}&resourceVersion=${revisionA}`,
          `continue=${token}&resourceVersionMatch=Exact&resourceVersion=${revisionA}`,
          'resourceVersionMatch=Exact',
          'resourceVersionMatch=Exact&resourceVersion=0',
          'resourceVersionMatch=NotOlderThan',
          'resourceVersionMatch=Sometime&resourceVersion=1',
          'resourceVersion=abc',
          'continue=not-a-token',
        ]) {
          await expectStatus(`${collection}?${query}`, 400, 'BadRequest', /./);
        }
      });
    });

    describe('watch', () => {
      it('unset: Get State and Start at Most Recent — synthetic ADDED for every item, then changes', async () => {
        const reader = await watch(`${collection}?watch=1`);
        try {
          expect(reader.status).toBe(200);
          const listed = await list('');
          const events = await nextEvents(reader, listed.items.length);
          expect(events.every((event) => event.type === 'ADDED')).toBe(true);
          expect(events.map((event) => event.object.metadata?.name).sort()).toEqual(listed.items.map((item) => item.metadata.name).sort());
          await create('watched-change');
          expect(await reader.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'watched-change' } } });
        } finally {
          reader.close();
        }
      });

      it('0: Get State and Start at Any — synthetic ADDED events', async () => {
        const reader = await watch(`${collection}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Da`);
        try {
          expect(await reader.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: String(revisionA) } } });
        } finally {
          reader.close();
        }
      });

      it('non-zero: Start at Exact — no synthetic events, every change after that version', async () => {
        const reader = await watch(`${collection}?watch=1&resourceVersion=${revisionA}`);
        try {
          const first = await reader.next();
          expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b', resourceVersion: String(revisionB) } } });
        } finally {
          reader.close();
        }
      });

      it('a start version older than the window: one ERROR event with a 410 Expired Status, then the end', async () => {
        const reader = await watch(`${collection}?watch=1&resourceVersion=1`);
        try {
          const event = await reader.next();
          expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
          expect(await reader.ended()).toBe(true);
        } finally {
          reader.close();
        }
      });

      it('sendInitialEvents=true with NotOlderThan: the state as ADDED events, then a BOOKMARK annotated initial-events-end', async () => {
        const reader = await watch(`${collection}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
        try {
          const listed = await list('');
          const events = await nextEvents(reader, listed.items.length + 1);
          const initial = events.slice(0, listed.items.length);
          expect(initial.every((event) => event.type === 'ADDED')).toBe(true);
          const bookmark = events.at(-1)!;
          expect(bookmark.type).toBe('BOOKMARK');
          expect(bookmark.object.metadata?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
          expect(Number(bookmark.object.metadata?.resourceVersion)).toBeGreaterThanOrEqual(Number(listed.metadata.resourceVersion));
        } finally {
          reader.close();
        }
      });

      it('allowWatchBookmarks=true: periodic BOOKMARKs holding only metadata.resourceVersion, never behind an event sent; none without it', async () => {
        const from = (await list('')).metadata.resourceVersion;
        const bookmarked = await watch(`${collection}?watch=1&resourceVersion=${from}&allowWatchBookmarks=true`);
        const plain = await watch(`${collection}?watch=1&resourceVersion=${from}`);
        try {
          const revision = await create('bookmarked');
          const added = await bookmarked.next();
          expect(added).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'bookmarked' } } });
          // Two periods pass on the bookmarked watch while the plain one gets nothing but the next change.
          for (let period = 0; period < 2; period++) {
            const bookmark = await bookmarked.next();
            expect(bookmark.type).toBe('BOOKMARK');
            expect(bookmark.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: bookmark.object.metadata?.resourceVersion } });
            expect(Number(bookmark.object.metadata?.resourceVersion)).toBeGreaterThanOrEqual(revision);
          }
          await create('after-bookmarks');
          expect(await plain.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'bookmarked' } } });
          expect(await plain.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'after-bookmarks' } } });
        } finally {
          bookmarked.close();
          plain.close();
        }
      });

      it('a delete streams DELETED with the object\'s last state', async () => {
        const revision = await create('to-delete');
        const reader = await watch(`${collection}?watch=1&resourceVersion=${revision}&fieldSelector=metadata.name%3Dto-delete`);
        try {
          const deleted = await write('DELETE', `${collection}/to-delete`);
          expect(deleted.status, deleted.body).toBe(200);
          const event = await reader.next();
          expect(event).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'to-delete' } } });
          expect(Number(event.object.metadata?.resourceVersion)).toBeGreaterThan(revision);
        } finally {
          reader.close();
        }
      });

      it('a single item watched through its path (/watch/…/<name>): only that item\'s changes; timeoutSeconds ends the stream', async () => {
        await create('single');
        // An item's watch has kube's legacy /watch/ path (a GET of the item with ?watch=1 is a get).
        const itemWatch = `/api/v1/watch/namespaces/${namespace}/configmaps/single`;
        // The events, on a watch without a short timeout (the server's default is many minutes).
        const reader = await watch(itemWatch);
        try {
          expect(await reader.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'single' } } });
          await create('other');
          const patched = await write('PATCH', `${collection}/single`, { data: { changed: 'yes' } }, { 'content-type': 'application/merge-patch+json' });
          expect(patched.status, patched.body).toBe(200);
          expect(await reader.next()).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'single' } } });
        } finally {
          reader.close();
        }
        // The timeout, on an idle watch: it ends by itself, not before timeoutSeconds have passed.
        const timeoutSeconds = 2;
        const opened = Date.now();
        const idle = await watch(`${itemWatch}?timeoutSeconds=${timeoutSeconds}`);
        try {
          expect(await idle.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'single' } } });
          expect(await idle.ended(timeoutSeconds * 1000 + 30_000)).toBe(true);
          expect(Date.now() - opened).toBeGreaterThanOrEqual(timeoutSeconds * 1000 - 50);
        } finally {
          idle.close();
        }
      });
    });
  });
}
