// Owns: the state service (deploy/state-service.ts) over a real nats-server and three store
// members: a requester gets every object at one applied index, split over several messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { StoreClient } from '../../deploy/store-client.ts';
import { fetchStoreObjects } from '../../deploy/state-service.ts';
import { waitFor } from '../support/wait-for.ts';
import { createConfigMap, createNamespace, runConcurrently } from './fixtures.ts';
import { Members, stampedNow, openStoreGroup } from './event-stream-support.ts';
import type { StoreGroup } from './event-stream-support.ts';

let members: Members;
let connection: NatsConnection;
let client: StoreClient;

let group: StoreGroup | undefined;

beforeAll(async () => {
  group = await openStoreGroup({ natsServers: 1, tempPrefix: 'kstore-state-service-', clientName: 'state-service-test', deadlineMs: 20_000 });
  ({ members, connection, client } = group);
});

afterAll(async () => {
  await group?.close();
});

describe('state service', () => {
  it('returns every object at one applied index in chunks', async () => {
    await members.leader();
    expect((await client.propose(stampedNow(createNamespace()))).type).toBe('stored');
    let last = 0;
    await runConcurrently(300, 16, async (position) => {
      const result = await client.propose(stampedNow(createConfigMap(`state-${position}`, 8 * 1024)));
      if (result.type !== 'stored') throw new Error(JSON.stringify(result));
      last = Math.max(last, Number(result.object.metadata.resourceVersion));
    });
    // Any member answers (a queue group): a follower may not have applied the last write yet,
    // but whatever it answers is one consistent state at its applied index.
    const { objects, appliedIndex } = await waitFor(async () => {
      const answer = await fetchStoreObjects(connection, 'it', 'ev');
      for (const entry of answer.objects) expect(Number(entry.object.metadata.resourceVersion)).toBeLessThanOrEqual(answer.appliedIndex);
      return answer.appliedIndex >= last ? answer : undefined;
    }, { timeoutMs: 10_000, intervalMs: 50, description: `a member's state at an applied index >= ${last}` });
    const names = new Set(objects.map((entry) => entry.key.name));
    for (let position = 0; position < 300; position += 1) expect(names.has(`state-${position}`)).toBe(true);
    for (const entry of objects) expect(Number(entry.object.metadata.resourceVersion)).toBeLessThanOrEqual(appliedIndex);
  }, 60_000);
});
