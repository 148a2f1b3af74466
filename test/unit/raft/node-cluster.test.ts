// RaftNode clusters over the memory hub: membership changes (growing 1 → 3 with learners and
// promotion while proposals continue, removal, refusals, recovery of the configuration),
// leadership transfer, and PreVote keeping a rejoining member from disrupting the leader.
// Real files and timers.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactionRetainEntries } from '../../../raft/core/index.ts';
import { MembershipChangeRefusedError, MemoryHub, NotLeaderError, RaftNode, TransferFailedError } from '../../../raft/index.ts';
import type { Configuration, MembershipChange } from '../../../raft/index.ts';
import { ListStateMachine } from './list-state-machine.ts';
import { waitFor } from './wait-for.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);
let baseDir = '';
const openNodes = new Set<RaftNode<string>>();
const timing = { tickIntervalMs: 5, electionTicks: 10, heartbeatTicks: 1 };

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-raft-members-'));
});

afterEach(async () => {
  await Promise.all([...openNodes].map((node) => node.close()));
  openNodes.clear();
  await rm(baseDir, { recursive: true, force: true });
});

async function open(hub: MemoryHub, id: string, machine: ListStateMachine, join = false): Promise<RaftNode<string>> {
  const node = await RaftNode.open({
    id, peers: ['a'], join, dataDir: path.join(baseDir, id), stateMachine: machine, transport: hub.connect(id), ...timing,
  });
  openNodes.add(node);
  return node;
}

/** Retries a change refused because the learner is still catching up. */
async function changeWhenReady(node: RaftNode<string>, change: MembershipChange): Promise<Configuration> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await node.changeMembership(change);
    } catch (error) {
      if (!(error instanceof MembershipChangeRefusedError) || attempt > 200) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

describe('raft node - clusters over the memory hub: membership, transfer, PreVote', () => {
  it('grows 1 → 3 with learners and promotion while proposals continue, then removes a member', async () => {
    const hub = new MemoryHub();
    const machines = new Map(['a', 'b', 'c'].map((id) => [id, new ListStateMachine()]));
    const a = await open(hub, 'a', machines.get('a')!);
    expect(a.configuration()).toEqual({ voters: ['a'], learners: [] });
    let proposing = true;
    let proposed = 0;
    const load = (async () => {
      while (proposing) {
        await a.propose(encode(`load${proposed}`));
        proposed += 1;
      }
    })();
    const joined = new Map<string, RaftNode<string>>();
    for (const id of ['b', 'c']) {
      joined.set(id, await open(hub, id, machines.get(id)!, true));
      const withLearner = await a.changeMembership({ type: 'addLearner', id });
      expect(withLearner.learners).toEqual([id]);
      const promoted = await changeWhenReady(a, { type: 'promote', id });
      expect(promoted.voters).toContain(id);
    }
    expect(a.configuration()).toEqual({ voters: ['a', 'b', 'c'], learners: [] });
    await waitFor(() => proposed > 20, 5_000, 'proposals during the changes');
    proposing = false;
    await load;
    const marker = await a.propose(encode('marker'));
    await waitFor(() => [...machines.values()].every((machine) => machine.appliedIndex() >= marker.index), 5_000, 'replication to all');
    for (const id of ['b', 'c']) {
      expect(joined.get(id)!.configuration().voters).toEqual(['a', 'b', 'c']);
      expect(machines.get(id)!.payloads()).toEqual(machines.get('a')!.payloads());
    }

    const removed = await a.changeMembership({ type: 'remove', id: 'c' });
    expect(removed).toEqual({ voters: ['a', 'b'], learners: [] });
    hub.isolate('c', ['a', 'b']);
    const after = await a.propose(encode('two-voters'));
    expect(after.result).toBe('applied:two-voters');
    await waitFor(() => machines.get('b')!.payloads().includes('two-voters'), 5_000, 'b applies');
    expect(a.status().role).toBe('leader');
  });

  it('recovers the configuration from the log and from a snapshot after restart', async () => {
    const hub = new MemoryHub();
    const options = (id: string, machine: ListStateMachine, join = false) => ({
      id, peers: ['a'], join, dataDir: path.join(baseDir, id), stateMachine: machine, transport: hub.connect(id), ...timing,
      snapshotEveryEntries: 10,
    });
    const a = await RaftNode.open(options('a', new ListStateMachine()));
    const b = await RaftNode.open(options('b', new ListStateMachine(), true));
    openNodes.add(b);
    await a.changeMembership({ type: 'addLearner', id: 'b' });
    await a.close();
    const fromLog = await RaftNode.open(options('a', new ListStateMachine()));
    expect(fromLog.configuration()).toEqual({ voters: ['a'], learners: ['b'] });
    for (let position = 0; position < 30; position += 1) await fromLog.propose(encode(`s${position}`)); // snapshots past the entry
    await fromLog.close();
    const fromSnapshot = await RaftNode.open(options('a', new ListStateMachine()));
    openNodes.add(fromSnapshot);
    expect(fromSnapshot.status().appliedIndex).toBeGreaterThan(30);
    expect(fromSnapshot.configuration()).toEqual({ voters: ['a'], learners: ['b'] });
  });

  it('transfers leadership to a chosen voter (thesis §3.10)', async () => {
    const hub = new MemoryHub();
    const ids = ['a', 'b', 'c'];
    const nodes = await Promise.all(ids.map(async (id) => {
      const node = await RaftNode.open({ id, peers: ids, dataDir: path.join(baseDir, id), stateMachine: new ListStateMachine(), transport: hub.connect(id), ...timing });
      openNodes.add(node);
      return node;
    }));
    await waitFor(() => nodes.some((node) => node.status().role === 'leader'), 5_000, 'a leader');
    const leader = nodes.find((node) => node.status().role === 'leader')!;
    const target = nodes.find((node) => node !== leader)!;
    await leader.propose(encode('before'));
    const term = leader.status().term;
    await leader.transferLeadership(target.status().id);
    await waitFor(() => target.status().role === 'leader', 5_000, 'the target to lead');
    expect(target.status().term).toBe(term + 1);
    expect(leader.status().role).toBe('follower');
    await expect(leader.propose(encode('old leader'))).rejects.toBeInstanceOf(NotLeaderError);
    expect((await target.propose(encode('after'))).result).toBe('applied:after');
    await expect(target.transferLeadership('nobody')).rejects.toBeInstanceOf(TransferFailedError);
  });

  it('a follower isolated for many election timeouts rejoins without changing the leader\'s term (PreVote)', async () => {
    const hub = new MemoryHub();
    const ids = ['a', 'b', 'c'];
    const nodes = await Promise.all(ids.map(async (id) => {
      const node = await RaftNode.open({ id, peers: ids, dataDir: path.join(baseDir, id), stateMachine: new ListStateMachine(), transport: hub.connect(id), ...timing });
      openNodes.add(node);
      return node;
    }));
    await waitFor(() => nodes.some((node) => node.status().role === 'leader'), 5_000, 'a leader');
    const leader = nodes.find((node) => node.status().role === 'leader')!;
    const follower = nodes.find((node) => node !== leader)!;
    const term = leader.status().term;
    hub.isolate(follower.status().id, ids);
    // Heartbeats to it are dropped every 5 ms tick: 400 drops are 20+ election timeouts.
    await waitFor(() => hub.droppedMessages > 400, 10_000, 'many election timeouts in isolation');
    expect(follower.status().term).toBe(term);
    hub.heal();
    const marker = await leader.propose(encode('after-heal'));
    await waitFor(() => follower.status().appliedIndex >= marker.index, 5_000, 'the follower to rejoin');
    expect(leader.status()).toMatchObject({ role: 'leader', term });
    expect(follower.status()).toMatchObject({ role: 'follower', term, leaderId: leader.status().id });
  });

  it('refuses a change on a follower and a promotion of a non-learner', async () => {
    const hub = new MemoryHub();
    const a = await open(hub, 'a', new ListStateMachine());
    const b = await open(hub, 'b', new ListStateMachine(), true);
    await expect(b.changeMembership({ type: 'addLearner', id: 'x' })).rejects.toBeInstanceOf(NotLeaderError);
    await expect(a.changeMembership({ type: 'promote', id: 'b' })).rejects.toBeInstanceOf(MembershipChangeRefusedError);
    await expect(a.changeMembership({ type: 'remove', id: 'a' })).rejects.toThrow(/last voter/);
  });
});

describe('raft node - a member that forgot applied entries grows the group', () => {
  it('takes a snapshot when the learner it adds needs entries it forgot; the learner catches up from it', async () => {
    const hub = new MemoryHub();
    const machineA = new ListStateMachine();
    const machineB = new ListStateMachine();
    const snapshotsTaken: number[] = [];
    const log = (message: string, fields?: Record<string, unknown>): void => {
      if (message === 'raft snapshot taken') snapshotsTaken.push(Number(fields?.['index']));
    };
    // No periodic snapshot within the test: the log is compacted by compactApplied alone, which
    // keeps the retained tail (compactionRetainEntries) and forgets a batch at least as long.
    const a = await RaftNode.open({
      id: 'a', peers: ['a'], dataDir: path.join(baseDir, 'a'), stateMachine: machineA, transport: hub.connect('a'), snapshotEveryEntries: 10_000, log, ...timing,
    });
    openNodes.add(a);
    const entries = 2 * compactionRetainEntries + 100;
    await Promise.all(Array.from({ length: entries }, (_, position) => a.propose(encode(`v${position}`))));
    expect(snapshotsTaken).toEqual([]);
    const b = await open(hub, 'b', machineB, true);
    expect((await a.changeMembership({ type: 'addLearner', id: 'b' })).learners).toEqual(['b']);
    await a.propose(encode('after'));
    await waitFor(() => machineB.appliedIndex() === machineA.appliedIndex(), 5_000, 'the learner to catch up');
    expect(snapshotsTaken).toHaveLength(1);
    expect(snapshotsTaken[0]).toBeGreaterThan(compactionRetainEntries);
    expect(machineB.payloads()).toEqual(machineA.payloads());
    expect(machineB.restores).toEqual(snapshotsTaken);
    expect(b.status().role).not.toBe('failed');
    expect(a.status().role).toBe('leader');
  });
});
