// RaftNode.onRoleChange: what runs only while a member leads (the event publisher, the leader
// duties) waits on it instead of polling status(). A listener hears every change of the
// member's role — winning an election, losing leadership to a transfer, failing (its apply) — and nothing
// while the role stays the same. Three members over the memory hub; real files and timers.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryHub, RaftNode } from '../../../raft/index.ts';
import type { CommittedEntry } from '../../../raft/index.ts';
import { ListStateMachine } from './list-state-machine.ts';
import { waitFor } from './wait-for.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);

/** Applies like ListStateMachine until it meets the payload "boom", as a failing apply would. */
class FailingStateMachine extends ListStateMachine {
  override apply(entry: CommittedEntry): string {
    if (new TextDecoder().decode(entry.data) === 'boom') throw new Error('disk gone');
    return super.apply(entry);
  }
}
const timing = { tickIntervalMs: 5, electionTicks: 10, heartbeatTicks: 1 };
let baseDir = '';
const openNodes = new Set<RaftNode<string>>();

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-raft-role-'));
});

afterEach(async () => {
  await Promise.all([...openNodes].map((node) => node.close()));
  openNodes.clear();
  await rm(baseDir, { recursive: true, force: true });
});

interface Member {
  readonly node: RaftNode<string>;
  /** The role status() reported at each call of the listener. */
  readonly heard: string[];
}

async function openGroup(machineOf: (id: string) => ListStateMachine | undefined = () => undefined): Promise<Map<string, Member>> {
  const hub = new MemoryHub();
  const ids = ['a', 'b', 'c'];
  const members = new Map<string, Member>();
  for (const id of ids) {
    const node = await RaftNode.open({
      id, peers: ids, dataDir: path.join(baseDir, id), stateMachine: machineOf(id) ?? new ListStateMachine(), transport: hub.connect(id), ...timing,
    });
    openNodes.add(node);
    const heard: string[] = [];
    node.onRoleChange(() => heard.push(node.status().role));
    members.set(id, { node, heard });
  }
  return members;
}

function leaderOf(members: Map<string, Member>): Member | undefined {
  return [...members.values()].find((member) => member.node.status().role === 'leader');
}

describe('raft node - onRoleChange', () => {
  it('tells the winner of the election, and then the old and the new leader of a transfer', async () => {
    const members = await openGroup();
    await waitFor(() => leaderOf(members) !== undefined, 5_000, 'a leader');
    const leader = leaderOf(members)!;
    await waitFor(() => leader.heard.includes('leader'), 5_000, 'the leader heard of its election');
    expect(leader.heard.at(-1)).toBe('leader');
    // Every call reports a change: no two consecutive calls saw the same role.
    for (const member of members.values()) {
      for (let at = 1; at < member.heard.length; at++) expect(member.heard[at]).not.toBe(member.heard[at - 1]);
    }

    // While the role stays, proposals and heartbeats call no listener.
    const before = [...members.values()].map((member) => member.heard.length);
    const proposed = await leader.node.propose(encode('x'));
    await waitFor(() => [...members.values()].every((member) => member.node.status().appliedIndex >= proposed.index), 5_000, 'applied everywhere');
    expect([...members.values()].map((member) => member.heard.length)).toEqual(before);

    const target = [...members.values()].find((member) => member !== leader)!;
    await leader.node.transferLeadership(target.node.status().id);
    await waitFor(() => target.heard.at(-1) === 'leader', 5_000, 'the new leader heard of it');
    await waitFor(() => leader.heard.at(-1) === 'follower', 5_000, 'the old leader heard it no longer leads');
  });

  it('an unsubscribed listener is not called again', async () => {
    const members = await openGroup();
    await waitFor(() => leaderOf(members) !== undefined, 5_000, 'a leader');
    const leader = leaderOf(members)!;
    let calls = 0;
    const unsubscribe = leader.node.onRoleChange(() => { calls += 1; });
    unsubscribe();
    const target = [...members.values()].find((member) => member !== leader)!;
    await leader.node.transferLeadership(target.node.status().id);
    await waitFor(() => leader.heard.at(-1) === 'follower', 5_000, 'the old leader heard it no longer leads');
    expect(calls).toBe(0);
  });

  it('tells a member whose apply failed', async () => {
    const members = await openGroup((id) => (id === 'a' ? new FailingStateMachine() : undefined));
    await waitFor(() => leaderOf(members) !== undefined, 5_000, 'a leader');
    const a = members.get('a')!;
    // Every member applies it; a's apply fails.
    await leaderOf(members)!.node.propose(encode('boom')).catch(() => undefined);
    await waitFor(() => a.heard.at(-1) === 'failed', 5_000, 'a heard that it failed');
    expect(a.node.status().role).toBe('failed');
  });
});
