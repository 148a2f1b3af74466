// Owns: the state service (deploy/state-service.ts) answering a large state over a real
// nats-server without holding its member's event loop for the whole answer: other work of the
// member (here a probe that re-schedules itself every turn) runs while the answer's parts are
// noted and its chunks serialised, and the requester still gets every object at the one applied
// index; parts shared by the member's objects arrive shared; a requester and a member that predate
// parts still understand the other; a requester that nobody serves fails at once (the
// no-responders status) with its connection still reading; and one whose answer stops coming gives
// up after its silence timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createInbox } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { deepFreeze } from '../../actors/json.ts';
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

/**
 * A stand-in for the member's state: `count` objects of ~2 KB, every fifth with the same label set
 * (one object), that count the reads of their `object` (the service reads each once to note the
 * shared parts, once to serialise it).
 */
function countingState(count: number, appliedIndex: number): { state: ClusterState; reads: () => number } {
  let reads = 0;
  const value = 'v'.repeat(2_000);
  const labels = deepFreeze({ app: 'web', tier: 'front' });
  const entries = Array.from({ length: count }, (_, position) => {
    const key = { group: '', resource: 'configmaps', namespace: 'default', name: `cm-${position}` };
    const metadata = { name: key.name, namespace: 'default', resourceVersion: String(position + 1), ...(position % 5 === 0 ? { labels } : {}) };
    const object = deepFreeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { value } });
    return {
      key,
      get object(): unknown {
        reads += 1;
        return object;
      },
    };
  });
  const state = { appliedIndex: () => appliedIndex, allObjects: () => entries } as unknown as ClusterState;
  return { state, reads: () => reads };
}

/**
 * What the member's other work sees of the answer's progress: `progress()` once per turn of the
 * event loop (a probe that re-schedules itself), until stop() returns what it saw.
 */
function probeTurns(progress: () => number): { stop(): number[] } {
  const seen: number[] = [];
  let probing = true;
  const probe = (): void => {
    seen.push(progress());
    if (probing) setImmediate(probe);
  };
  setImmediate(probe);
  return {
    stop(): number[] {
      probing = false;
      return seen;
    },
  };
}

describe('state service turns', () => {
  it('lets the member run other work while it answers a large state, and the answer is whole and shares what the member shared', async () => {
    const count = 10_000; // ~20 MB of JSON: about 40 chunks
    const { state, reads } = countingState(count, 4242);
    const service = startStateService({ connection: memberConnection, state, cluster: 'turns', group: 'g1' });
    await memberConnection.flush(); // the service's subscription is on the server
    try {
      const turns = probeTurns(reads);
      const answer = await fetchStoreObjects(requesterConnection, 'turns', 'g1');
      const seen = turns.stop();
      expect(answer.appliedIndex).toBe(4242);
      expect(answer.objects).toHaveLength(count);
      expect(new Set(answer.objects.map((entry) => entry.key.name)).size).toBe(count);
      const last = answer.objects[count - 1]!;
      expect(last.object.metadata.name).toBe(`cm-${count - 1}`);
      expect(Object.isFrozen(last.object.data)).toBe(true);
      // Sent once, in the first chunk, and one object again at the requester.
      expect(answer.objects[count - 5]!.object.metadata.labels).toEqual({ app: 'web', tier: 'front' });
      expect(answer.objects[count - 5]!.object.metadata.labels).toBe(answer.objects[0]!.object.metadata.labels);
      // Noting the parts, then serialising: each object read twice. Serialised in one turn, the
      // probe would see only `count` and then all of them. (The next test sees the noting's turns.)
      expect(reads()).toBe(2 * count);
      expect(seen.filter((progress) => progress > count && progress < 2 * count).length).toBeGreaterThanOrEqual(10);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('keeps a requester that gives up after a short silence listening while the member notes the shared parts', async () => {
    // Objects slow to read (0.6 ms each): noting the parts of 5,000 takes ~3 s, twice the
    // requester's 1,500 ms of patience; the member's empty chunks in between keep it waiting. The
    // member's other work (the probe) runs between slices of the noting too.
    const count = 5_000;
    const { state, reads } = countingState(count, 11);
    const slow = state.allObjects().map((entry) => ({
      key: entry.key,
      get object(): unknown {
        const until = performance.now() + 0.6;
        while (performance.now() < until) { /* a slow read */ }
        return entry.object;
      },
    }));
    const slowState = { appliedIndex: () => 11, allObjects: () => slow } as unknown as ClusterState;
    const service = startStateService({ connection: memberConnection, state: slowState, cluster: 'turns', group: 'slow' });
    await memberConnection.flush();
    try {
      const turns = probeTurns(reads);
      const started = performance.now();
      const answer = await fetchStoreObjects(requesterConnection, 'turns', 'slow', 1_500);
      const seen = turns.stop();
      expect(performance.now() - started).toBeGreaterThan(3_000);
      expect(answer.objects).toHaveLength(count);
      expect(answer.appliedIndex).toBe(11);
      expect(reads()).toBe(2 * count);
      expect(seen.filter((progress) => progress > 0 && progress < count).length).toBeGreaterThanOrEqual(10);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('answers a request for parts with the shared label set once, and one with an empty body (a replica that predates parts) in full', async () => {
    const { state } = countingState(3_000, 77);
    const service = startStateService({ connection: memberConnection, state, cluster: 'turns', group: 'raw' });
    await memberConnection.flush();
    type Message = { type: string; parts?: unknown[]; objects?: { object: { metadata: { labels?: unknown } } }[]; count?: number };
    const ask = (body: string): Promise<Message[]> => new Promise((resolve) => {
      const inbox = createInbox();
      const messages: Message[] = [];
      const subscription = requesterConnection.subscribe(inbox, {
        callback: (_error, message) => {
          messages.push(message.json());
          if (messages.at(-1)?.type === 'end') { subscription.unsubscribe(); resolve(messages); }
        },
      });
      requesterConnection.publish('kstore.store.turns.raw.objects', body, { reply: inbox });
    });
    try {
      const withParts = await ask('{"parts":true}');
      const partChunks = withParts.filter((message) => message.type === 'chunk');
      expect(partChunks.map((chunk) => chunk.parts?.length)).toEqual([1, ...partChunks.slice(1).map(() => 0)]);
      expect(partChunks[0]!.parts![0]).toEqual({ app: 'web', tier: 'front' });
      expect(partChunks.at(-1)!.objects!.at(-5)!.object.metadata.labels).toEqual({ $: 0 });
      expect(withParts.at(-1)).toEqual({ type: 'end', appliedIndex: 77, count: 3_000 });

      const inFull = await ask('');
      const chunks = inFull.filter((message) => message.type === 'chunk');
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.every((chunk) => chunk.parts === undefined)).toBe(true);
      const objects = chunks.flatMap((chunk) => chunk.objects ?? []);
      expect(objects).toHaveLength(3_000);
      expect(objects[2_995]!.object.metadata.labels).toEqual({ app: 'web', tier: 'front' });
      expect(inFull.at(-1)).toEqual({ type: 'end', appliedIndex: 77, count: 3_000 });
    } finally {
      await service.stop();
    }
  }, 20_000);

  it('takes an answer in full from a member that predates parts, and shares its equal parts itself', async () => {
    const labels = { app: 'web' };
    const objects = Array.from({ length: 50 }, (_, at) => ({
      key: { group: '', resource: 'configmaps', namespace: 'default', name: `cm-${at}` },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${at}`, namespace: 'default', labels } },
    }));
    // Such a member ignores the request's body.
    const old = memberConnection.subscribe('kstore.store.turns.old-member.objects', {
      queue: 'kstore-state-service',
      callback: (_error, message) => {
        message.respond(JSON.stringify({ type: 'chunk', objects: objects.slice(0, 25) }));
        message.respond(JSON.stringify({ type: 'chunk', objects: objects.slice(25) }));
        message.respond(JSON.stringify({ type: 'end', appliedIndex: 9, count: 50 }));
      },
    });
    try {
      await memberConnection.flush();
      const answer = await fetchStoreObjects(requesterConnection, 'turns', 'old-member');
      expect(answer.appliedIndex).toBe(9);
      expect(answer.objects.map((entry) => entry.object.metadata.name)).toEqual(objects.map((entry) => entry.key.name));
      expect(Object.isFrozen(answer.objects[49]!.object)).toBe(true);
      expect(answer.objects[49]!.object.metadata.labels).toBe(answer.objects[0]!.object.metadata.labels);
    } finally {
      old.unsubscribe();
    }
  }, 20_000);

  it('fails at once when no member serves the state, and the connection goes on reading', async () => {
    // The nats-server answers a request nobody subscribes to with a no-responders status.
    await expect(fetchStoreObjects(requesterConnection, 'turns', 'nobody', 5_000)).rejects.toThrow(/state request failed: status 503 \(no store member answers\)/);
    const echo = memberConnection.subscribe('turns.echo', { callback: (_error, message) => { message.respond(message.data); } });
    try {
      await memberConnection.flush(); // the echo's subscription is on the server before the request
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
