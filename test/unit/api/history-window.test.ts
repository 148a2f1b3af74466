// The edge of the watch cache's window (configured tiny here): a watch, an Exact list or a
// continue token from a revision that has left the window gets 410 Expired, as in
// kube-apiserver; inside the window they are served.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configMap, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const cms = '/api/v1/namespaces/t/configmaps';
const windowEvents = 3;

beforeEach(async () => {
  harness = await startHarness(['default', 't'], { watchCacheEventsMax: windowEvents });
});
afterEach(async () => {
  await harness.close();
});

async function createMany(count: number): Promise<string[]> {
  const versions: string[] = [];
  for (let position = 0; position < count; position++) {
    versions.push((await harness.request('POST', cms, configMap(`c${position}`))).json().metadata.resourceVersion);
  }
  return versions;
}

describe(`watch cache window (${windowEvents} events)`, () => {
  it('a watch from an evicted revision gets an ERROR event with a 410 Expired Status', async () => {
    const versions = await createMany(6);
    const response = await harness.request('GET', `${cms}?watch=1&resourceVersion=${versions[0]}`);
    expect(response.statusCode).toBe(200);
    const event = JSON.parse(response.body.trim()) as { type: string; object: { code: number; reason: string; message: string } };
    expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(event.object.message).toContain('too old resource version');
  });

  it('an Exact list inside the window shows the collection as it was', async () => {
    const versions = await createMany(5);
    const response = await harness.request('GET', `${cms}?resourceVersion=${versions[3]}&resourceVersionMatch=Exact`);
    expect(response.statusCode).toBe(200);
    expect(response.json().items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(response.json().metadata.resourceVersion).toBe(versions[3]);
  });

  it('an Exact list and a continue token outside the window are 410 Expired', async () => {
    const versions = await createMany(3);
    const first = (await harness.request('GET', `${cms}?limit=1`)).json();
    await createMany(0);
    for (let position = 0; position < 4; position++) await harness.request('POST', cms, configMap(`later${position}`));
    const exact = await harness.request('GET', `${cms}?resourceVersion=${versions[0]}&resourceVersionMatch=Exact`);
    expect(exact.statusCode).toBe(410);
    expect(exact.json()).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    const next = await harness.request('GET', `${cms}?limit=1&continue=${first.metadata.continue}`);
    expect(next.statusCode).toBe(410);
    expect(next.json()).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
  });
});
