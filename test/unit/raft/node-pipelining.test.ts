// The leader writes its own log in parallel with replicating it (thesis §10.2.1): its appends
// are sent before its fsync completes, while votes still wait for durable state.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../../raft/core/index.ts';
import { MemoryHub, RaftNode } from '../../../raft/index.ts';
import type { Transport } from '../../../raft/index.ts';
import { Wal } from '../../../raft/storage/index.ts';
import { CoreNetwork } from './core-network.ts';
import { ListStateMachine } from './list-state-machine.ts';
import { waitFor } from './wait-for.ts';

let baseDir = '';
const openNodes: RaftNode<string>[] = [];

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-raft-pipeline-'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(openNodes.splice(0).map((node) => node.close()));
  await rm(baseDir, { recursive: true, force: true });
});

describe('raft core - Ready.sendAppendsBeforePersist', () => {
  it('is set for a leader with durable term and vote, never for a candidate or a voter', () => {
    const network = new CoreNetwork(['a', 'b', 'c']);
    network.node('a').campaign();
    const campaign = network.node('a').ready();
    expect(campaign.messages.every((message) => message.type === 'requestVote')).toBe(true);
    expect(campaign.sendAppendsBeforePersist).toBe(false);
    network.node('a').advance();
    network.electByTicks('a');
    network.node('a').propose(new TextEncoder().encode('p'));
    const leading = network.node('a').ready();
    expect(leading.sendAppendsBeforePersist).toBe(true);
    expect(leading.entries).toHaveLength(1);
    expect(leading.messages.some((message) => message.type === 'appendEntries')).toBe(true);
    expect(network.node('a').status().commitIndex).toBeLessThan(leading.entries[0]!.index); // own match not yet counted
    network.node('a').advance();
    network.node('c').step({ type: 'requestVote', from: 'b', to: 'c', term: 9, lastLogIndex: 99, lastLogTerm: 9, transfer: true });
    const voting = network.node('c').ready();
    expect(voting.sendAppendsBeforePersist).toBe(false);
    network.node('c').advance();
  });
});

describe('raft node - leader pipelining over the memory hub (R=3)', () => {
  it('sends a proposal\'s appends to followers before its own fsync completes', async () => {
    const hub = new MemoryHub();
    const ids = ['a', 'b', 'c'];
    const events: string[] = [];
    const recording = (id: string): Transport => {
      const inner = hub.connect(id);
      return {
        onMessage: (handler) => inner.onMessage(handler),
        send: (messages: readonly Message[]) => {
          for (const message of messages) {
            if (message.type === 'appendEntries' && message.entries.some((entry) => new TextDecoder().decode(entry.data) === 'parallel')) {
              events.push(`${id}:send-append`);
            }
          }
          inner.send(messages);
        },
      };
    };
    const nodes = await Promise.all(ids.map((id) => RaftNode.open({
      id, peers: ids, dataDir: path.join(baseDir, id), stateMachine: new ListStateMachine(), transport: recording(id),
      tickIntervalMs: 5, electionTicks: 10, heartbeatTicks: 1,
    })));
    openNodes.push(...nodes);
    await waitFor(() => nodes.some((node) => node.status().role === 'leader'), 5_000, 'a leader');
    const leader = nodes.find((node) => node.status().role === 'leader')!;
    const leaderId = leader.status().id;
    // Commit a first entry so every follower's progress is in the replicate state (a probing
    // follower gets one append at a time and would delay the next until it answers).
    await leader.propose(new TextEncoder().encode('warm-up'));
    await waitFor(() => nodes.every((node) => node.status().appliedIndex >= 2), 5_000, 'warm-up everywhere');
    const original = Wal.prototype.append;
    vi.spyOn(Wal.prototype, 'append').mockImplementation(async function (this: Wal, entries, hardState) {
      const ours = entries.some((entry) => new TextDecoder().decode(entry.data) === 'parallel');
      await original.call(this, entries, hardState);
      if (ours) events.push('fsync-done');
    });
    const outcome = await leader.propose(new TextEncoder().encode('parallel'));
    expect(outcome.result).toBe('applied:parallel');
    expect(events.indexOf(`${leaderId}:send-append`)).toBeGreaterThanOrEqual(0);
    expect(events.indexOf(`${leaderId}:send-append`)).toBeLessThan(events.indexOf('fsync-done'));
  });
});
