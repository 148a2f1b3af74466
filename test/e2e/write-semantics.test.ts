// End-to-end over HTTPS, against both deployments (kstore server; kstore cluster up with writes
// through one API replica and reads through the other): the spec's write-side rules — field
// validation levels (unknown and duplicate fields under Strict, Warn, Ignore), dry run on
// create, update, patch and delete, delete preconditions and options in the body or the query,
// deletecollection with a label selector, and namespace deletion (Terminating, content removed,
// creates refused with 403 meanwhile, 404 into a missing namespace). On the cluster the
// namespace lifecycle runs on the store leader, so the same tests prove it there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployments } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { httpsRequest, jsonBody } from '../support/kube-client.ts';
import type { HttpResponse } from '../support/kube-client.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

interface StatusBody {
  readonly kind: string;
  readonly code: number;
  readonly reason: string;
  readonly message: string;
}

interface ObjectBody {
  readonly metadata: { readonly name: string; readonly uid: string; readonly resourceVersion: string; readonly labels?: Record<string, string> };
  readonly data?: Record<string, string>;
  readonly status?: { readonly phase?: string };
}

for (const { name, start } of deployments) {
  describe(`write semantics over HTTPS: ${name}`, () => {
    let dir: TempDir | undefined;
    let target: Target;
    const collection = (namespace: string): string => `/api/v1/namespaces/${namespace}/configmaps`;

    const write = (method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse> =>
      httpsRequest(target.writer, target.credentials, { method, path: urlPath, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) });
    const read = (urlPath: string): Promise<HttpResponse> => httpsRequest(target.reader, target.credentials, { path: urlPath });
    const expectStatus = (response: HttpResponse, code: number, reason: string): StatusBody => {
      expect(response.status, response.body).toBe(code);
      const status = jsonBody<StatusBody>(response);
      expect(status).toMatchObject({ kind: 'Status', code, reason });
      return status;
    };
    const createNamespace = async (namespace: string): Promise<void> => {
      const response = await write('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      expect(response.status, response.body).toBe(201);
    };
    const createConfigMap = async (namespace: string, item: string, extra: Record<string, unknown> = {}): Promise<ObjectBody> => {
      const response = await write('POST', collection(namespace), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: item, ...extra }, data: { a: 'b' } });
      expect(response.status, response.body).toBe(201);
      return jsonBody<ObjectBody>(response);
    };

    beforeAll(async () => {
      dir = await makeTempDir('kstore-e2e-writes-');
      target = await start(dir);
      await createNamespace('w');
    }, 120_000);

    afterAll(async () => {
      await target?.stop();
      await dir?.remove();
    }, 60_000);

    describe('field validation', () => {
      const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":"dup"},"data":{"a":"1"},"bogus":1}';
      const json = { 'content-type': 'application/json' };

      it('Strict: every unknown and duplicate field in one 400, nothing stored', async () => {
        const status = expectStatus(await write('POST', `${collection('w')}?fieldValidation=Strict`, body, json), 400, 'BadRequest');
        expect(status.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "bogus"');
        expectStatus(await read(`${collection('w')}/dup`), 404, 'NotFound');
      });

      it('Strict on a PATCH: 422 Invalid on the field "patch", as kube-apiserver words it; nothing changes', async () => {
        const created = await write('POST', collection('w'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict-patch' }, data: { a: '1' } });
        expect(created.status, created.body).toBe(201);
        const status = expectStatus(await write('PATCH', `${collection('w')}/strict-patch?fieldValidation=Strict`, { data: { a: '2' }, bogus: 1 }, { 'content-type': 'application/merge-patch+json' }), 422, 'Invalid');
        expect(status.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: unknown field "bogus"$/);
        const stored = await read(`${collection('w')}/strict-patch`);
        expect(JSON.parse(stored.body).data).toEqual({ a: '1' });
      });

      it('Warn (the default): stored, each problem in a Warning header; Ignore: stored silently', async () => {
        const warned = await write('POST', collection('w'), body, json);
        expect(warned.status, warned.body).toBe(201);
        expect(String(warned.headers.warning)).toContain('duplicate field \\"metadata.name\\"');
        expect(String(warned.headers.warning)).toContain('unknown field \\"bogus\\"');
        expect(jsonBody<Record<string, unknown>>(warned).bogus).toBeUndefined();
        expect((await write('DELETE', `${collection('w')}/dup`)).status).toBe(200);
        const ignored = await write('POST', `${collection('w')}?fieldValidation=Ignore`, body, json);
        expect(ignored.status, ignored.body).toBe(201);
        expect(ignored.headers.warning).toBeUndefined();
      });

      it('a wrong type is a 400 decoding error naming the field (as kube-apiserver); an unknown level is 400', async () => {
        const wrong = await write('POST', collection('w'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' }, data: { a: 5 } });
        const status = expectStatus(wrong, 400, 'BadRequest');
        expect(status.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: data.a: must be string');
        expectStatus(await read(`${collection('w')}/typed`), 404, 'NotFound');
        expectStatus(await write('POST', `${collection('w')}?fieldValidation=Sometimes`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), 400, 'BadRequest');
      });
    });

    describe('dry run', () => {
      it('dryRun=All on create, update, patch and delete answers what would be stored and stores nothing', async () => {
        const dryCreate = await write('POST', `${collection('w')}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { a: 'b' } });
        expect(dryCreate.status, dryCreate.body).toBe(201);
        expect(jsonBody<ObjectBody>(dryCreate).metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
        expectStatus(await read(`${collection('w')}/dry`), 404, 'NotFound');

        const stored = await createConfigMap('w', 'kept');
        const dryUpdate = await write('PUT', `${collection('w')}/kept?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', resourceVersion: stored.metadata.resourceVersion }, data: { a: 'updated' } });
        expect(dryUpdate.status, dryUpdate.body).toBe(200);
        expect(jsonBody<ObjectBody>(dryUpdate).data).toEqual({ a: 'updated' });
        const dryPatch = await write('PATCH', `${collection('w')}/kept?dryRun=All`, { data: { a: 'patched' } }, { 'content-type': 'application/merge-patch+json' });
        expect(dryPatch.status, dryPatch.body).toBe(200);
        expect(jsonBody<ObjectBody>(dryPatch).data).toEqual({ a: 'patched' });
        const dryDelete = await write('DELETE', `${collection('w')}/kept?dryRun=All`);
        expect(dryDelete.status, dryDelete.body).toBe(200);
        const after = jsonBody<ObjectBody>(await read(`${collection('w')}/kept`));
        expect(after.data).toEqual({ a: 'b' });
        expect(after.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
      });
    });

    describe('delete', () => {
      it('preconditions in the body (uid) or the query are checked: a mismatch is 409 and nothing changes', async () => {
        const stored = await createConfigMap('w', 'guarded');
        const wrongUid = await write('DELETE', `${collection('w')}/guarded`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } });
        expect(expectStatus(wrongUid, 409, 'Conflict').message).toContain('Precondition failed: UID in precondition: not-the-uid');
        const wrongVersion = await write('DELETE', `${collection('w')}/guarded`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } });
        expectStatus(wrongVersion, 409, 'Conflict');
        expect((await read(`${collection('w')}/guarded`)).status).toBe(200);
        const right = await write('DELETE', `${collection('w')}/guarded?propagationPolicy=Background`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: stored.metadata.uid, resourceVersion: stored.metadata.resourceVersion } });
        expect(right.status, right.body).toBe(200);
        expectStatus(await read(`${collection('w')}/guarded`), 404, 'NotFound');
      });

      it('deletecollection deletes what the label selector matches and answers the deleted items', async () => {
        await createConfigMap('w', 'red-1', { labels: { color: 'red' } });
        await createConfigMap('w', 'red-2', { labels: { color: 'red' } });
        await createConfigMap('w', 'blue-1', { labels: { color: 'blue' } });
        const response = await write('DELETE', `${collection('w')}?labelSelector=${encodeURIComponent('color=red')}`);
        expect(response.status, response.body).toBe(200);
        const list = jsonBody<{ kind: string; items: ObjectBody[] }>(response);
        expect(list.kind).toBe('ConfigMapList');
        expect(list.items.map((item) => item.metadata.name).sort()).toEqual(['red-1', 'red-2']);
        const remaining = jsonBody<{ items: ObjectBody[] }>(await read(`${collection('w')}?labelSelector=color`)).items.map((item) => item.metadata.name);
        expect(remaining).toEqual(['blue-1']);
        expectStatus(await write('DELETE', `${collection('w')}?labelSelector=${encodeURIComponent('color in red')}`), 400, 'BadRequest');
      });
    });

    describe('namespaces', () => {
      it('deleting one: Terminating, creates in it refused with 403, its content deleted, then it is gone; 404 into a missing namespace', async () => {
        await createNamespace('doomed');
        await createConfigMap('doomed', 'held', { finalizers: ['example.com/hold'] });
        await createConfigMap('doomed', 'free');
        const deleted = await write('DELETE', '/api/v1/namespaces/doomed');
        expect(deleted.status, deleted.body).toBe(200);
        expect(jsonBody<ObjectBody>(deleted).status?.phase).toBe('Terminating');
        const refused = expectStatus(await write('POST', collection('doomed'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }), 403, 'Forbidden');
        expect(refused.message).toContain('because it is being terminated');
        // The namespace controller deletes the content; the held object waits for its finalizer.
        await waitFor(async () => (await read(`${collection('doomed')}/free`)).status === 404, { timeoutMs: 30_000, intervalMs: 200, description: 'the namespace content to be deleted' });
        expect((await read('/api/v1/namespaces/doomed')).status).toBe(200);
        const release = await write('PATCH', `${collection('doomed')}/held`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
        expect(release.status, release.body).toBe(200);
        await waitFor(async () => (await read('/api/v1/namespaces/doomed')).status === 404, { timeoutMs: 30_000, intervalMs: 200, description: 'the namespace to be removed' });
        const missing = expectStatus(await write('POST', collection('doomed'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }), 404, 'NotFound');
        expect(missing.message).toBe('namespaces "doomed" not found');
      });
    });
  });
}
