// Owns: the state service (deploy/state-service.ts) answering a large state over a real
// nats-server without holding its member's event loop for the whole answer: other work of the
// member (here a probe that re-schedules itself every turn) runs while the answer is serialised,
// and the requester still gets every object at the one applied index; a requester that nobody
// serves fails at once (the no-responders status) with its connection still reading; and one
// whose answer stops coming gives up after its silence timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ClusterState } from '../../actors/index.ts';
import { fetchStoreObjects, startStateService } from '../../deploy/state-service.ts';
import { NatsCluster } from '../support/nats-server.ts';

let nats: NatsCluster;
let memberConnection: NatsConnection;
let requesterConnection: NatsConnection;

beforeAll(async () => {
  nats = await NatsCluster.start(1);
  memberConnection = await connect({ servers: nats.urls });
  requesterConnection = await connect({ servers: nats.urls });
}, 60_000);

afterAll(async () => {
  await requesterConnection?.close();
  await memberConnection?.close();
  await nats?.stopAll();
});

/** A stand-in for the member's state: `count` objects of ~2 KB that count their serialisations. */
function countingState(count: number, appliedIndex: number): { state: ClusterState; serialised: () => number } {
  let serialised = 0;
  const value = 'v'.repeat(2_000);
  const entries = Array.from({ length: count }, (_, position) => {
    const key = { group: '', resource: 'configmaps', namespace: 'default', name: `cm-${position}` };
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key.name, namespace: 'default', resourceVersion: String(position + 1) }, data: { value } };
    return {
      key, object,
      toJSON(): unknown {
        serialised += 1;
        return { key, object };
      },
    };
  });
  const state = { appliedIndex: () => appliedIndex, allObjects: () => entries } as unknown as ClusterState;
  return { state, serialised: () => serialised };
}

describe('state service turns', () => {
  it('lets the member run other work while it serialises a large answer, and the answer is whole', async () => {
    const count = 10_000; // ~20 MB of JSON: about 40 chunks
    const { state, serialised } = countingState(count, 4242);
    const service = startStateService({ connection: memberConnection, state, cluster: 'turns', group: 'g1' });
    await memberConnection.flush(); // the service's subscription is on the server
    try {
      // What the member's other work sees of the answer's progress, once per turn of the loop.
      const seen: number[] = [];
      let probing = true;
      const probe = (): void => {
        seen.push(serialised());
        if (probing) setImmediate(probe);
      };
      setImmediate(probe);
      const answer = await fetchStoreObjects(requesterConnection, 'turns', 'g1');
      probing = false;
      expect(answer.appliedIndex).toBe(4242);
      expect(answer.objects).toHaveLength(count);
      expect(new Set(answer.objects.map((entry) => entry.key.name)).size).toBe(count);
      expect(answer.objects[count - 1]!.object.metadata.name).toBe(`cm-${count - 1}`);
      // An answer serialised in one turn shows the probe only 0 and then `count`.
      const between = seen.filter((progress) => progress > 0 && progress < count);
      expect(between.length).toBeGreaterThanOrEqual(10);
      expect(serialised()).toBe(count);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('fails at once when no member serves the state, and the connection goes on reading', async () => {
    // The nats-server answers a request nobody subscribes to with a no-responders status.
    await expect(fetchStoreObjects(requesterConnection, 'turns', 'nobody', 5_000)).rejects.toThrow(/state request failed: status 503 \(no store member answers\)/);
    const echo = memberConnection.subscribe('turns.echo', { callback: (_error, message) => { message.respond(message.data); } });
    try {
      expect((await requesterConnection.request('turns.echo', 'still reading', { timeout: 5_000 })).string()).toBe('still reading');
    } finally {
      echo.unsubscribe();
    }
  }, 20_000);

  it('gives up when an answer stops coming for the silence timeout', async () => {
    // A member that takes the request and never answers it.
    const mute = memberConnection.subscribe('kstore.store.turns.mute.objects', { queue: 'kstore-state-service', callback: () => {} });
    try {
      await memberConnection.flush();
      await expect(fetchStoreObjects(requesterConnection, 'turns', 'mute', 300)).rejects.toThrow(/no state from the store for 300 ms \(0 objects received\)/);
    } finally {
      mute.unsubscribe();
    }
  }, 10_000);
});
