// RaftNode with the real replicated state machine (actors' ClusterState), as `kstore server`
// runs it: periodic snapshots, restart from snapshot + WAL, and a follower catching up by
// InstallSnapshot, each ending in byte-identical state machine snapshots.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterState, encodeCommand } from '../../../actors/index.ts';
import type { CommandResult } from '../../../actors/index.ts';
import { isNotLeader, isProposalDropped, MemoryHub, RaftNode } from '../../../raft/index.ts';
import { at, cmKey, create, envelope, nsKey, objectFor, remove, update } from '../actors/fixtures.ts';
import { waitFor } from './wait-for.ts';

let baseDir = '';
const openNodes = new Set<RaftNode<CommandResult>>();

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-raft-actors-'));
});

afterEach(async () => {
  await Promise.all([...openNodes].map((node) => node.close()));
  openNodes.clear();
  await rm(baseDir, { recursive: true, force: true });
});

/**
 * Proposes on whichever member leads now. A proposal dropped by a leadership change (a slow
 * fsync on a loaded machine can outlast an election timeout) is proposed again: commands carry a
 * session and sequence, so a retried one is applied at most once.
 */
async function proposeOnLeader(members: () => readonly RaftNode<CommandResult>[], data: Uint8Array): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await waitFor(() => members().some((member) => member.status().role === 'leader'), Math.max(0, deadline - Date.now()), 'a leader');
    const leader = members().find((member) => member.status().role === 'leader')!;
    try {
      await leader.propose(data);
      return;
    } catch (error) {
      if (!isProposalDropped(error) && !isNotLeader(error)) throw error;
      if (Date.now() > deadline) throw error;
    }
  }
}

async function runWorkload(members: () => readonly RaftNode<CommandResult>[], count: number): Promise<void> {
  await proposeOnLeader(members, encodeCommand(envelope(create(nsKey('default')), { id: 'session', sequence: 1 })));
  for (let position = 0; position < count; position += 1) {
    const key = cmKey('default', `c${position % 7}`);
    const object = objectFor(key, { data: { position: String(position) } });
    const command = position % 3 === 0 ? create(key, object, at(position)) : position % 3 === 1 ? update(key, object, undefined, at(position)) : remove(key, undefined, at(position));
    await proposeOnLeader(members, encodeCommand(envelope(command, { id: 'session', sequence: position + 2 })));
  }
}

const snapshotBytes = (state: ClusterState): string => Buffer.from(state.snapshot()).toString('base64');

describe('raft node with ClusterState', () => {
  it('restarts from snapshot + WAL to a byte-identical state', async () => {
    const first = new ClusterState();
    const options = { id: 'a', peers: ['a'], dataDir: path.join(baseDir, 'a'), snapshotEveryEntries: 25, walSegmentBytes: 4096 };
    const node = await RaftNode.open<CommandResult>({ ...options, stateMachine: first });
    await runWorkload(() => [node], 90);
    const before = snapshotBytes(first);
    await node.close();
    const second = new ClusterState();
    const reopened = await RaftNode.open<CommandResult>({ ...options, stateMachine: second });
    openNodes.add(reopened);
    // The reopened member appended and applied its own no-op on election: apply the same to
    // the state as it was before the restart, and the two must be byte-identical.
    const expected = new ClusterState();
    expected.restore(Buffer.from(before, 'base64'), first.appliedIndex());
    expected.apply({ index: first.appliedIndex() + 1, term: reopened.status().term, data: new Uint8Array(0) });
    expect(snapshotBytes(second)).toBe(snapshotBytes(expected));
  });

  it('a follower with an empty disk catches up by InstallSnapshot to the leader\'s state', async () => {
    const hub = new MemoryHub();
    const ids = ['a', 'b', 'c'];
    const states = new Map(ids.map((id) => [id, new ClusterState()]));
    const open = async (id: string): Promise<RaftNode<CommandResult>> => {
      const node = await RaftNode.open<CommandResult>({
        id, peers: ids, dataDir: path.join(baseDir, id), stateMachine: states.get(id)!, transport: hub.connect(id),
        tickIntervalMs: 5, electionTicks: 10, heartbeatTicks: 1, snapshotEveryEntries: 30, snapshotChunkBytes: 2048,
      });
      openNodes.add(node);
      return node;
    };
    const nodes = await Promise.all(ids.map(open));
    await waitFor(() => nodes.some((node) => node.status().role === 'leader'), 5_000, 'a leader');
    const leader = nodes.find((node) => node.status().role === 'leader')!;
    const lagging = nodes.find((node) => node !== leader)!;
    const laggingId = lagging.status().id;
    openNodes.delete(lagging);
    await lagging.close();
    await rm(path.join(baseDir, laggingId), { recursive: true, force: true });
    const running = nodes.filter((node) => node !== lagging);
    await runWorkload(() => running, 1_200); // beyond the leader's retained log after compaction
    states.set(laggingId, new ClusterState());
    await open(laggingId);
    await waitFor(() => running.some((node) => node.status().role === 'leader'), 10_000, 'a leader');
    const leaderState = states.get(running.find((node) => node.status().role === 'leader')!.status().id)!;
    await waitFor(() => states.get(laggingId)!.appliedIndex() === leaderState.appliedIndex(), 10_000, 'catch-up');
    expect(snapshotBytes(states.get(laggingId)!)).toBe(snapshotBytes(leaderState));
  });
});
