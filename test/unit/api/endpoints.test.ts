// API tests over fastify.inject: every verb, every error kube-apiserver gives for bad input,
// and the rule that a rejected request changes nothing stored.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const cms = '/api/v1/namespaces/t/configmaps';

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function json(response: { body: string }): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return JSON.parse(response.body) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function expectStatus(response: { statusCode: number; body: string }, code: number, reason: string): Record<string, unknown> {
  expect(response.statusCode, response.body).toBe(code);
  const body = json(response);
  expect(body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  expect(typeof body['message']).toBe('string');
  return body;
}

describe('create', () => {
  it('stores the object with server-set uid, creationTimestamp and a numeric resourceVersion', async () => {
    const response = await harness.request('POST', cms, configMap('c'));
    expect(response.statusCode).toBe(201);
    const created = json(response);
    expect(created.metadata).toMatchObject({ name: 'c', namespace: 't' });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
    const fetched = json(await harness.request('GET', `${cms}/c`));
    expect(fetched).toEqual(created);
  });

  it('generates a unique name from generateName', async () => {
    const first = json(await harness.request('POST', cms, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { generateName: 'gen-' } }));
    const second = json(await harness.request('POST', cms, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { generateName: 'gen-' } }));
    expect(first.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(second.metadata.name).not.toBe(first.metadata.name);
  });

  it('refuses a duplicate name with 409 AlreadyExists', async () => {
    await harness.request('POST', cms, configMap('c'));
    const body = expectStatus(await harness.request('POST', cms, configMap('c')), 409, 'AlreadyExists');
    expect(body['message']).toBe('configmaps "c" already exists');
  });

  it('refuses an object in a namespace that does not exist with 404', async () => {
    const body = expectStatus(await harness.request('POST', '/api/v1/namespaces/nope/configmaps', configMap('c')), 404, 'NotFound');
    expect(body['message']).toBe('namespaces "nope" not found');
  });

  it('answers 422 Invalid with a field cause for a bad name', async () => {
    const body = expectStatus(await harness.request('POST', cms, configMap('Bad_Name')), 422, 'Invalid');
    expect(body['details']).toMatchObject({ name: 'Bad_Name', kind: 'ConfigMap', causes: [{ field: 'metadata.name', reason: 'FieldValueInvalid' }] });
  });

  it('answers 422 when neither name nor generateName is given', async () => {
    const body = expectStatus(await harness.request('POST', cms, { kind: 'ConfigMap', apiVersion: 'v1', metadata: {} }), 422, 'Invalid');
    expect(JSON.stringify(body['details'])).toContain('name or generateName is required');
  });

  it('merges secret stringData into base64 data and defaults the type', async () => {
    const secret = json(await harness.request('POST', '/api/v1/namespaces/t/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } }));
    expect(secret.data).toEqual({ k: Buffer.from('v').toString('base64') });
    expect(secret.stringData).toBeUndefined();
    expect(secret.type).toBe('Opaque');
  });

  it('serves a named group kind (leases.coordination.k8s.io)', async () => {
    const response = await harness.request('POST', '/apis/coordination.k8s.io/v1/namespaces/t/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } });
    expect(response.statusCode, response.body).toBe(201);
    expect(json(response).spec.holderIdentity).toBe('me');
  });

  it('dry run returns the object without storing it', async () => {
    const response = await harness.request('POST', `${cms}?dryRun=All`, configMap('dry'));
    expect(response.statusCode).toBe(201);
    expectStatus(await harness.request('GET', `${cms}/dry`), 404, 'NotFound');
    expectStatus(await harness.request('POST', `${cms}?dryRun=Yes`, configMap('dry')), 422, 'Invalid');
  });
});

describe('bad input changes nothing stored', () => {
  const cases: [string, () => Promise<{ statusCode: number; body: string }>, number, string][] = [
    ['malformed JSON', () => harness.request('POST', cms, '{"kind": "ConfigMap", ', { 'content-type': 'application/json' }), 400, 'BadRequest'],
    ['an array body', () => harness.request('POST', cms, [1, 2]), 400, 'BadRequest'],
    ['a wrong field type', () => harness.request('POST', cms, { ...configMap('c'), data: { a: 5 } }), 400, 'BadRequest'],
    ['a kind that disagrees with the URL', () => harness.request('POST', cms, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c' } }), 400, 'BadRequest'],
    ['an apiVersion that disagrees with the URL', () => harness.request('POST', cms, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'c' } }), 400, 'BadRequest'],
    ['a namespace that disagrees with the URL', () => harness.request('POST', cms, configMap('c', {}, { namespace: 'other' })), 400, 'BadRequest'],
    ['an oversized body', () => harness.request('POST', cms, configMap('c', { big: 'x'.repeat(4 * 1024 * 1024) })), 413, 'RequestEntityTooLarge'],
    ['an unsupported content type', () => harness.request('POST', cms, 'name: c', { 'content-type': 'text/plain' }), 415, 'UnsupportedMediaType'],
    ['an unknown field under Strict validation', () => harness.request('POST', `${cms}?fieldValidation=Strict`, { ...configMap('c'), spec: { x: 1 } }), 400, 'BadRequest'],
    ['a path naming no resource', () => harness.request('GET', '/api/v1/widgets'), 404, 'NotFound'],
    ['POST to an item path', () => harness.request('POST', `${cms}/c`, configMap('c')), 405, 'MethodNotAllowed'],
    ['an unacceptable Accept header', () => harness.request('GET', cms, undefined, { accept: 'application/xml' }), 406, 'NotAcceptable'],
    ['an invalid label selector', () => harness.request('GET', `${cms}?labelSelector=a%20in%20(b`, undefined), 400, 'BadRequest'],
    ['an invalid continue token', () => harness.request('GET', `${cms}?limit=1&continue=garbage`), 400, 'BadRequest'],
    ['a continue token with a resourceVersion', () => harness.request('GET', `${cms}?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIifQ&resourceVersion=5`), 400, 'BadRequest'],
    ['resourceVersionMatch without resourceVersion', () => harness.request('GET', `${cms}?resourceVersionMatch=Exact`), 400, 'BadRequest'],
  ];
  for (const [name, send, code, reason] of cases) {
    it(`${name} → ${code} ${reason}`, async () => {
      const before = harness.backend.currentRevision();
      expectStatus(await send(), code, reason);
      expect(harness.backend.currentRevision()).toBe(before);
      expect(json(await harness.request('GET', cms)).items).toEqual([]);
    });
  }

  it('without credentials → 401 Unauthorized', async () => {
    const response = await harness.app.inject({ method: 'GET', url: cms });
    expectStatus(response, 401, 'Unauthorized');
  });

  it('a user outside system:masters → 403 Forbidden in kube-apiserver wording', async () => {
    const body = expectStatus(await harness.request('GET', cms, undefined, { 'x-test-user': 'bob;dev' }), 403, 'Forbidden');
    expect(body['message']).toBe('configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "t"');
  });
});

describe('duplicate fields', () => {
  const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","name":"c"},"data":{"a":"1"},"bogus":1}';
  it('are all reported at once in a 400 under Strict, with unknown fields, and nothing is stored', async () => {
    const response = await harness.request('POST', `${cms}?fieldValidation=Strict`, body, { 'content-type': 'application/json' });
    const status = expectStatus(response, 400, 'BadRequest');
    expect(status['message']).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "bogus"');
    expectStatus(await harness.request('GET', `${cms}/c`), 404, 'NotFound');
  });

  it('are Warning headers under Warn and silent under Ignore', async () => {
    const warned = await harness.request('POST', cms, body, { 'content-type': 'application/json' });
    expect(warned.statusCode).toBe(201);
    expect(String(warned.headers['warning'])).toContain('duplicate field \\"metadata.name\\"');
    await harness.request('DELETE', `${cms}/c`);
    const ignored = await harness.request('POST', `${cms}?fieldValidation=Ignore`, body, { 'content-type': 'application/json' });
    expect(ignored.statusCode).toBe(201);
    expect(ignored.headers['warning']).toBeUndefined();
  });
});

describe('unknown fields', () => {
  it('are dropped with a Warning header under the default Warn level', async () => {
    const response = await harness.request('POST', cms, { ...configMap('c'), spec: { x: 1 } });
    expect(response.statusCode).toBe(201);
    expect(String(response.headers['warning'])).toContain('unknown field \\"spec\\"');
    expect(json(response).spec).toBeUndefined();
  });
});

describe('update', () => {
  it('replaces the object and advances resourceVersion; a stale resourceVersion is 409 Conflict', async () => {
    const created = json(await harness.request('POST', cms, configMap('c')));
    const updated = await harness.request('PUT', `${cms}/c`, { ...created, data: { a: 'z' } });
    expect(updated.statusCode).toBe(200);
    expect(Number(json(updated).metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    expect(json(updated).metadata.uid).toBe(created.metadata.uid);
    const stale = expectStatus(await harness.request('PUT', `${cms}/c`, { ...created, data: { a: 'y' } }), 409, 'Conflict');
    expect(stale['message']).toBe('Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again');
    expect(json(await harness.request('GET', `${cms}/c`)).data).toEqual({ a: 'z' });
  });

  it('a PUT of an absent object creates it only where the kind allows create on update (Lease 201; ConfigMap 404, nothing stored)', async () => {
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'fresh' }, spec: { holderIdentity: 'x' } };
    const created = await harness.request('PUT', '/apis/coordination.k8s.io/v1/namespaces/t/leases/fresh', lease);
    expect(created.statusCode, created.body).toBe(201);
    const proposals = harness.backend.proposals;
    const refused = await harness.request('PUT', `${cms}/fresh`, configMap('fresh'));
    expectStatus(refused, 404, 'NotFound');
    expect(refused.json().message).toBe('configmaps "fresh" not found');
    expect(harness.backend.proposals).toBe(proposals);
    expect((await harness.request('GET', `${cms}/fresh`)).statusCode).toBe(404);
  });

  it('a name that disagrees with the URL is 400', async () => {
    await harness.request('POST', cms, configMap('c'));
    expectStatus(await harness.request('PUT', `${cms}/c`, configMap('d')), 400, 'BadRequest');
  });

  it('an unchanged object keeps its resourceVersion', async () => {
    const created = json(await harness.request('POST', cms, configMap('c')));
    const same = json(await harness.request('PUT', `${cms}/c`, created));
    expect(same.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('an immutable configmap refuses data changes with 422', async () => {
    const created = json(await harness.request('POST', cms, { ...configMap('c'), immutable: true }));
    expectStatus(await harness.request('PUT', `${cms}/c`, { ...created, data: { a: 'other' } }), 422, 'Invalid');
  });
});

describe('patch', () => {
  it('applies merge, JSON and strategic merge patches', async () => {
    await harness.request('POST', cms, configMap('c', { a: 'b', x: 'y' }));
    const merged = await harness.request('PATCH', `${cms}/c`, JSON.stringify({ data: { a: 'c', x: null } }), { 'content-type': 'application/merge-patch+json' });
    expect(json(merged).data).toEqual({ a: 'c' });
    const patched = await harness.request('PATCH', `${cms}/c`, JSON.stringify([{ op: 'add', path: '/data/n', value: '1' }]), { 'content-type': 'application/json-patch+json' });
    expect(json(patched).data).toEqual({ a: 'c', n: '1' });
    const strategic = await harness.request('PATCH', `${cms}/c`, JSON.stringify({ metadata: { labels: { app: 'web' } } }), { 'content-type': 'application/strategic-merge-patch+json' });
    expect(json(strategic).metadata.labels).toEqual({ app: 'web' });
  });

  it('a failing JSON patch test operation is 422 and changes nothing', async () => {
    const created = json(await harness.request('POST', cms, configMap('c')));
    expectStatus(await harness.request('PATCH', `${cms}/c`, JSON.stringify([{ op: 'test', path: '/data/a', value: 'nope' }]), { 'content-type': 'application/json-patch+json' }), 422, 'Invalid');
    expect(json(await harness.request('GET', `${cms}/c`)).metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });
});

describe('delete', () => {
  it('removes an object without finalizers at once and answers a Success Status', async () => {
    const created = json(await harness.request('POST', cms, configMap('c')));
    const response = await harness.request('DELETE', `${cms}/c`);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'c', kind: 'configmaps', uid: created.metadata.uid } });
    expectStatus(await harness.request('GET', `${cms}/c`), 404, 'NotFound');
    expectStatus(await harness.request('DELETE', `${cms}/c`), 404, 'NotFound');
  });

  it('with finalizers sets deletionTimestamp, and removing the last finalizer removes the object', async () => {
    await harness.request('POST', cms, configMap('c', {}, { finalizers: ['example.com/hold'] }));
    const finalizing = json(await harness.request('DELETE', `${cms}/c`));
    expect(finalizing.metadata.deletionTimestamp).toMatch(/Z$/);
    const current = json(await harness.request('GET', `${cms}/c`));
    expect(current.metadata.deletionTimestamp).toBe(finalizing.metadata.deletionTimestamp);
    const released = await harness.request('PUT', `${cms}/c`, { ...current, metadata: { ...current.metadata, finalizers: [] } });
    expect(released.statusCode).toBe(200);
    expectStatus(await harness.request('GET', `${cms}/c`), 404, 'NotFound');
  });

  it('a precondition that does not match is 409 and keeps the object', async () => {
    await harness.request('POST', cms, configMap('c'));
    expectStatus(await harness.request('DELETE', `${cms}/c`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } }), 409, 'Conflict');
    expect((await harness.request('GET', `${cms}/c`)).statusCode).toBe(200);
  });

  it('deletecollection deletes what the label selector matches', async () => {
    await harness.request('POST', cms, configMap('a', {}, { labels: { app: 'x' } }));
    await harness.request('POST', cms, configMap('b', {}, { labels: { app: 'y' } }));
    const response = await harness.request('DELETE', `${cms}?labelSelector=app%3Dx`);
    expect(response.statusCode).toBe(200);
    expect(json(response).items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['a']);
    expect(json(await harness.request('GET', cms)).items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['b']);
  });
});

describe('list', () => {
  it('returns a typed list with the collection resourceVersion, across namespaces too', async () => {
    await harness.request('POST', cms, configMap('c'));
    await harness.request('POST', '/api/v1/namespaces/default/configmaps', configMap('d'));
    const inNamespace = json(await harness.request('GET', cms));
    expect(inNamespace).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(inNamespace.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['c']);
    const all = json(await harness.request('GET', '/api/v1/configmaps'));
    expect(all.items.map((item: { metadata: { namespace: string } }) => item.metadata.namespace)).toEqual(['default', 't']);
    expect(Number(all.metadata.resourceVersion)).toBe(harness.backend.currentRevision());
  });

  it('chunks with limit and continue from one snapshot with a constant resourceVersion', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) await harness.request('POST', cms, configMap(name));
    const first = json(await harness.request('GET', `${cms}?limit=2`));
    expect(first.items).toHaveLength(2);
    expect(first.metadata.remainingItemCount).toBe(3);
    await harness.request('POST', cms, configMap('f'));
    await harness.request('DELETE', `${cms}/d`);
    const second = json(await harness.request('GET', `${cms}?limit=2&continue=${first.metadata.continue}`));
    const third = json(await harness.request('GET', `${cms}?limit=2&continue=${second.metadata.continue}`));
    expect([...first.items, ...second.items, ...third.items].map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(third.metadata.continue).toBeUndefined();
  });

  it('filters by label and field selectors', async () => {
    await harness.request('POST', cms, configMap('a', {}, { labels: { tier: 'web' } }));
    await harness.request('POST', cms, configMap('b', {}, { labels: { tier: 'db' } }));
    const names = async (query: string) => json(await harness.request('GET', `${cms}?${query}`)).items.map((item: { metadata: { name: string } }) => item.metadata.name);
    expect(await names('labelSelector=tier%20in%20(web)')).toEqual(['a']);
    expect(await names('labelSelector=tier!%3Dweb')).toEqual(['b']);
    expect(await names('labelSelector=!tier')).toEqual([]);
    expect(await names('fieldSelector=metadata.name%3Db')).toEqual(['b']);
  });

  it('supports per-kind field selectors (secret type) and refuses unknown fields with 400', async () => {
    await harness.request('POST', '/api/v1/namespaces/t/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'o' }, type: 'Opaque' });
    await harness.request('POST', '/api/v1/namespaces/t/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'd' }, type: 'kubernetes.io/dockercfg', data: { '.dockercfg': 'e30=' } });
    const list = await harness.request('GET', '/api/v1/namespaces/t/secrets?fieldSelector=type%3Dkubernetes.io%2Fdockercfg');
    expect(list.json().items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['d']);
    expectStatus(await harness.request('GET', `${cms}?fieldSelector=data.a%3Db`), 400, 'BadRequest');
  });

  it('a resourceVersion the store has not reached is 504 Too large resource version with Retry-After', async () => {
    const response = await harness.request('GET', `${cms}?resourceVersion=999999`);
    const body = expectStatus(response, 504, 'Timeout');
    expect(body['message']).toBe(`Timeout: Too large resource version: 999999, current: ${harness.backend.currentRevision()}`);
    // The cause client-go's IsTooLargeResourceVersion looks for.
    expect(body['details']).toEqual({ retryAfterSeconds: 1, causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] });
    expect(response.headers['retry-after']).toBe('1');
  });

  it('reads YAML bodies with YAML 1.1 scalars, as kube\'s go-yaml: an unquoted yes is a boolean', async () => {
    const quoted = await harness.request('POST', cms, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: quoted\ndata:\n  enabled: "yes"\n', { 'content-type': 'application/yaml' });
    expect(quoted.statusCode, quoted.body).toBe(201);
    const bare = await harness.request('POST', cms, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bare\ndata:\n  enabled: yes\n', { 'content-type': 'application/yaml' });
    expect(bare.statusCode).toBe(400);
    expect(json(bare).message).toMatch(/^ConfigMap in version "v1" cannot be handled as a ConfigMap: .*data\.enabled/);
  });

  it('serves YAML and the Table form on request', async () => {
    await harness.request('POST', cms, configMap('c'));
    const yaml = await harness.request('GET', `${cms}/c`, undefined, { accept: 'application/yaml' });
    expect(yaml.headers['content-type']).toContain('application/yaml');
    expect((parseYaml(yaml.body) as { data: unknown }).data).toEqual({ a: 'b' });
    const table = json(await harness.request('GET', cms, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json' }));
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(expect.arrayContaining(['Name', 'Data']));
    expect(table.rows[0].cells[0]).toBe('c');
  });
});
