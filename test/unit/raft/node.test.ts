// RaftNode driver scenarios on temp directories with real files, timers and the memory hub.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryHub, NotLeaderError, ProposalDroppedError, RaftNode } from '../../../raft/index.ts';
import { DiskStorage, Wal } from '../../../raft/storage/index.ts';
import { RecordingStateMachine } from './recording-state-machine.ts';
import { waitFor } from './wait-for.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);
let baseDir = '';
const openNodes: RaftNode<string>[] = [];

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-raft-node-'));
});

afterEach(async () => {
  await Promise.all(openNodes.splice(0).map((node) => node.close()));
  await rm(baseDir, { recursive: true, force: true });
});

async function openSingle(stateMachine = new RecordingStateMachine()): Promise<RaftNode<string>> {
  const node = await RaftNode.open({ id: 'a', peers: ['a'], dataDir: path.join(baseDir, 'a'), stateMachine });
  openNodes.push(node);
  return node;
}

describe('raft node - single member (R=1)', () => {
  it('is leader once open and answers proposals with apply results', async () => {
    const stateMachine = new RecordingStateMachine();
    const node = await openSingle(stateMachine);
    await node.waitForLeader(1_000);
    expect(node.status()).toMatchObject({ id: 'a', role: 'leader', term: 1, leaderId: 'a', commitIndex: 1, appliedIndex: 1 });
    const outcome = await node.propose(encode('hello'));
    expect(outcome).toEqual({ index: 2, result: 'applied:hello' });
    expect(await node.readIndex()).toBeGreaterThanOrEqual(2);
  });

  it('recovers every acknowledged entry in order, exactly once, after close and reopen', async () => {
    const node = await openSingle();
    const values = Array.from({ length: 300 }, (_, position) => `v${position}`);
    const outcomes = await Promise.all(values.map((value) => node.propose(encode(value))));
    const indices = outcomes.map((outcome) => outcome.index);
    expect(indices).toEqual([...indices].sort((left, right) => left - right));
    expect(new Set(indices).size).toBe(values.length);
    expect(outcomes.map((outcome) => outcome.result)).toEqual(values.map((value) => `applied:${value}`));
    await node.close();
    openNodes.pop();

    const replayed = new RecordingStateMachine();
    const reopened = await openSingle(replayed);
    expect(replayed.payloads()).toEqual(values);
    expect(reopened.status().role).toBe('leader');
    expect(reopened.status().term).toBe(2);
    expect(reopened.status().appliedIndex).toBe(reopened.status().lastIndex);
    const later = await reopened.propose(encode('after-restart'));
    expect(later.index).toBe(reopened.status().lastIndex);
  });

  it('forgets the log and snapshot read at start once it is restored from them', async () => {
    const node = await openSingle();
    await Promise.all(['x', 'y'].map((value) => node.propose(encode(value))));
    await node.close();
    openNodes.pop();
    let disk: DiskStorage | undefined;
    const replayed = new RecordingStateMachine();
    const reopened = await RaftNode.open({
      id: 'a', peers: ['a'], dataDir: path.join(baseDir, 'a'), stateMachine: replayed,
      wrapStorage: (storage) => {
        if (storage instanceof DiskStorage) disk = storage;
        return storage;
      },
    });
    openNodes.push(reopened);
    expect(replayed.payloads()).toEqual(['x', 'y']);
    expect(disk).toBeDefined();
    expect(() => disk?.recovered).toThrow(/released/);
    expect(() => disk?.wal.recovered).toThrow(/released/);
    expect((await reopened.propose(encode('z'))).result).toBe('applied:z');
  });

  it('applies every fsynced entry on open even when the stored commit index lagged', async () => {
    const wal = await Wal.open(path.join(baseDir, 'a'));
    await wal.append(
      [{ index: 1, term: 1, data: new Uint8Array(0) }, { index: 2, term: 1, data: encode('x') }, { index: 3, term: 1, data: encode('y') }],
      { term: 1, vote: 'a', commit: 1 },
    );
    await wal.close();
    const stateMachine = new RecordingStateMachine();
    const node = await openSingle(stateMachine);
    expect(stateMachine.payloads()).toEqual(['x', 'y']);
    expect(node.status()).toMatchObject({ term: 2, commitIndex: 4, appliedIndex: 4 });
  });

  it('group-commits proposals made in one turn into one append and one fsync', async () => {
    const node = await openSingle();
    const append = vi.spyOn(Wal.prototype, 'append');
    try {
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, position) => node.propose(encode(`g${position}`))));
      expect(outcomes).toHaveLength(100);
      const entryAppends = append.mock.calls.filter(([entries]) => entries.length > 0);
      expect(entryAppends).toHaveLength(1);
      expect(entryAppends[0]![0]).toHaveLength(100);
    } finally {
      append.mockRestore();
    }
  });

  it('rejects proposals after close', async () => {
    const node = await openSingle();
    await node.close();
    openNodes.pop();
    await expect(node.propose(encode('late'))).rejects.toBeInstanceOf(ProposalDroppedError);
  });
});

describe('raft node - three members over the memory hub (R=3)', () => {
  const ids = ['a', 'b', 'c'];

  async function openCluster(hub: MemoryHub): Promise<{ nodes: RaftNode<string>[]; machines: RecordingStateMachine[] }> {
    const machines = ids.map(() => new RecordingStateMachine());
    const nodes = await Promise.all(ids.map((id, position) => RaftNode.open({
      id, peers: ids, dataDir: path.join(baseDir, id), stateMachine: machines[position]!,
      transport: hub.connect(id), tickIntervalMs: 5, electionTicks: 10, heartbeatTicks: 1,
    })));
    openNodes.push(...nodes);
    return { nodes, machines };
  }

  function leaderOf(nodes: readonly RaftNode<string>[]): RaftNode<string> | undefined {
    const leaders = nodes.filter((node) => node.status().role === 'leader');
    const highestTerm = Math.max(...leaders.map((node) => node.status().term));
    return leaders.find((node) => node.status().term === highestTerm);
  }

  it('elects a leader, replicates to every member, and followers refuse proposals', async () => {
    const hub = new MemoryHub();
    const { nodes, machines } = await openCluster(hub);
    await waitFor(() => leaderOf(nodes) !== undefined, 5_000, 'a leader');
    const leader = leaderOf(nodes)!;
    const outcomes = await Promise.all(['x', 'y', 'z'].map((value) => leader.propose(encode(value))));
    expect(outcomes.map((outcome) => outcome.result)).toEqual(['applied:x', 'applied:y', 'applied:z']);
    await waitFor(() => machines.every((machine) => machine.payloads().length === 3), 5_000, 'replication to all');
    for (const machine of machines) expect(machine.payloads()).toEqual(['x', 'y', 'z']);

    const follower = nodes.find((node) => node !== leader)!;
    await follower.waitForLeader(1_000);
    const refusal = follower.propose(encode('nope'));
    await expect(refusal).rejects.toBeInstanceOf(NotLeaderError);
    await expect(refusal).rejects.toMatchObject({ leaderId: leader.status().id });
    expect(await leader.readIndex()).toBeGreaterThanOrEqual(outcomes[2]!.index);
  });

  it('reports how long ago a follower heard from its leader (0 on the leader)', async () => {
    const hub = new MemoryHub();
    const { nodes } = await openCluster(hub);
    await waitFor(() => leaderOf(nodes) !== undefined, 5_000, 'a leader');
    const leader = leaderOf(nodes)!;
    expect(leader.status().leaderContactMs).toBe(0);
    const follower = nodes.find((node) => node !== leader)!;
    await waitFor(() => follower.status().leaderId === leader.status().id, 5_000, 'the follower to know the leader');
    // heartbeats every 5 ms
    expect(follower.status().leaderContactMs).toBeLessThan(200);
    hub.isolate(leader.status().id, ids);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const status = follower.status();
    expect(status.leaderId === leader.status().id ? (status.leaderContactMs ?? 0) >= 25 : true).toBe(true);
  });

  it('an isolated leader drops its pending proposal and the rest elect a new leader (partition 1-2)', async () => {
    const hub = new MemoryHub();
    const { nodes, machines } = await openCluster(hub);
    await waitFor(() => leaderOf(nodes) !== undefined, 5_000, 'a leader');
    const oldLeader = leaderOf(nodes)!;
    hub.isolate(oldLeader.status().id, ids);
    const stranded = oldLeader.propose(encode('stranded'));
    await expect(stranded).rejects.toBeInstanceOf(ProposalDroppedError);
    const others = nodes.filter((node) => node !== oldLeader);
    await waitFor(() => leaderOf(others) !== undefined, 5_000, 'a new leader among the majority');
    const newLeader = leaderOf(others)!;
    await newLeader.propose(encode('after-partition'));
    hub.heal();
    await waitFor(() => machines.every((machine) => machine.payloads().includes('after-partition')), 5_000, 'convergence');
    for (const machine of machines) expect(machine.payloads()).not.toContain('stranded');
  });
});
