// Owns: tests of the corrupt-object path (api/endpoints/corrupt.ts) through the real server: a
// stored object that cannot be decoded as its kind (written past the API's validation, here by
// proposing the command directly) fails every read with kube's 500; only a DELETE with
// ignoreStoreReadErrorWithClusterBreakingPotential behind AllowUnsafeMalformedObjectDeletion,
// with no other option and the unsafe-delete-ignore-read-errors permission, removes it.
import { afterEach, describe, expect, it } from 'vitest';
import { parseFeatureGates } from '../../../api/index.ts';
import type { Authorizer } from '../../../api/index.ts';
import { admin, configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const cms = '/api/v1/namespaces/t/configmaps';
const corruptKey = { group: '', resource: 'configmaps', namespace: 't', name: 'broken' };
const corruptMessage = 'Internal error occurred: StorageError: corrupt object, Code: 7, Key: /registry/configmaps/t/broken, ResourceVersion: 0, AdditionalErrorMsg: ConfigMap in version "v1" cannot be handled as a ConfigMap: data.a: must be string';
const unsafe = { kind: 'DeleteOptions', apiVersion: 'v1', ignoreStoreReadErrorWithClusterBreakingPotential: true };

let harness: Harness;
afterEach(async () => {
  await harness?.close();
});

/** Writes an object the API would refuse (data.a a number) straight into the store, with a finalizer. */
async function storeCorruptObject(h: Harness): Promise<void> {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'broken', namespace: 't', uid: 'u-broken', creationTimestamp: '2026-01-01T00:00:00Z', finalizers: ['example.com/hold'] }, data: { a: 5 } };
  const result = await h.backend.propose({ type: 'create', key: corruptKey, object: object as never, at: '2026-01-01T00:00:00Z', by: 'a-buggy-tool' });
  expect(result.type).toBe('stored');
}

function status(response: { statusCode: number; json<T>(): T }): { code: number; reason: string; message: string } {
  return response.json<{ code: number; reason: string; message: string }>();
}

describe('a corrupt object', () => {
  it('fails get, list, update, patch and a normal delete with the storage\'s corrupt-object 500; the gate off ignores the unsafe option', async () => {
    harness = await startHarness(['default', 't']);
    await storeCorruptObject(harness);
    for (const [method, path, body, headers] of [
      ['GET', `${cms}/broken`, undefined, {}],
      ['GET', cms, undefined, {}],
      ['PUT', `${cms}/broken`, configMap('broken'), {}],
      ['PATCH', `${cms}/broken`, '{"data":{"a":"x"}}', { 'content-type': 'application/merge-patch+json' }],
      ['DELETE', `${cms}/broken`, undefined, {}],
      // AllowUnsafeMalformedObjectDeletion is off: the option is dropped, the normal delete fails.
      ['DELETE', `${cms}/broken`, unsafe, {}],
    ] as const) {
      const response = await harness.request(method, path, body, headers);
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(500);
      expect(status(response)).toMatchObject({ code: 500, reason: 'InternalError', message: corruptMessage });
    }
    expect(harness.backend.state.get(corruptKey)).toBeDefined();
  });

  it('with the gate on, an unsafe delete removes it whatever its finalizers, recorded as UNSAFE_DELETE', async () => {
    harness = await startHarness(['default', 't'], { featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    await storeCorruptObject(harness);
    const response = await harness.request('DELETE', `${cms}/broken`, unsafe);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ kind: 'Status', status: 'Success', code: 200, details: { name: 'broken', kind: 'ConfigMap' } });
    expect(harness.backend.state.get(corruptKey)).toBeUndefined();
    const removal = harness.backend.state.eventsSince(0);
    expect(removal.type).toBe('events');
    const deleted = removal.type === 'events' ? removal.events.at(-1) : undefined;
    expect(deleted?.type).toBe('DELETED');
    expect(deleted?.lifecycle?.transitions.at(-1)).toMatchObject({ event: 'UNSAFE_DELETE', from: 'live', to: 'removed', by: 'admin' });
    expect((await harness.request('GET', `${cms}/broken`)).statusCode).toBe(404);
  });

  it('with the gate on, the option is refused on a readable object, with other options, on deletecollection, and without the permission', async () => {
    const denyUnsafe: Authorizer = {
      name: 'deny-unsafe',
      authorize: (attributes) => (attributes.verb === 'unsafe-delete-ignore-read-errors' ? { decision: 'deny', reason: 'no unsafe deletes here' } : { decision: 'noOpinion', reason: '' }),
    };
    harness = await startHarness(['default', 't'], { featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    await harness.request('POST', cms, configMap('fine'));
    const readable = await harness.request('DELETE', `${cms}/fine`, unsafe);
    expect(readable.statusCode).toBe(422);
    expect(status(readable).message).toBe('configmaps "fine" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option');
    expect(harness.backend.state.get({ ...corruptKey, name: 'fine' })).toBeDefined();

    await storeCorruptObject(harness);
    const withOthers = await harness.request('DELETE', `${cms}/broken?dryRun=All`, { ...unsafe, preconditions: { uid: 'u-broken' } });
    expect(withOthers.statusCode).toBe(422);
    expect(status(withOthers).message).toBe('DeleteOptions.meta.k8s.io "" is invalid: [dryRun: Forbidden: may not be set when ignoreStoreReadErrorWithClusterBreakingPotential is true, preconditions: Forbidden: may not be set when ignoreStoreReadErrorWithClusterBreakingPotential is true]');
    const collection = await harness.request('DELETE', cms, unsafe);
    expect(collection.statusCode).toBe(422);
    expect(status(collection).message).toContain('is not allowed with DELETECOLLECTION');
    expect(harness.backend.state.get(corruptKey)).toBeDefined();

    await harness.close();
    harness = await startHarness(['default', 't'], { featureGates: { AllowUnsafeMalformedObjectDeletion: true }, authorizers: [denyUnsafe, { name: 'allow-all', authorize: () => ({ decision: 'allow', reason: '' }) }] });
    await storeCorruptObject(harness);
    const forbidden = await harness.request('DELETE', `${cms}/broken`, unsafe, admin);
    expect(forbidden.statusCode).toBe(403);
    expect(status(forbidden).message).toContain('not permitted to do "unsafe-delete-ignore-read-errors", reason: no unsafe deletes here');
    expect(harness.backend.state.get(corruptKey)).toBeDefined();
  });
});

describe('--feature-gates', () => {
  it('parses kube\'s syntax and refuses unknown gates and non-booleans', () => {
    expect(parseFeatureGates(undefined)).toEqual({ AllowUnsafeMalformedObjectDeletion: false });
    expect(parseFeatureGates('AllowUnsafeMalformedObjectDeletion=true')).toEqual({ AllowUnsafeMalformedObjectDeletion: true });
    expect(() => parseFeatureGates('NoSuchGate=true')).toThrow('unrecognized feature gate: NoSuchGate');
    expect(() => parseFeatureGates('AllowUnsafeMalformedObjectDeletion=yes')).toThrow(/invalid value of AllowUnsafeMalformedObjectDeletion=yes/);
  });
});
