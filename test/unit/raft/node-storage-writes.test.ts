// RaftNode.storageWrites(): the count of completed writes to the member's storage, which lets
// the space alarm (deploy/storage-quota.ts) skip walking a data dir that did not change. A
// proposal's append and a snapshot move it; an idle member's ticks do not.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaftNode } from '../../../raft/index.ts';
import { ListStateMachine } from './list-state-machine.ts';
import { waitFor } from './wait-for.ts';

let baseDir = '';
let node: RaftNode<string> | undefined;

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-raft-writes-'));
});

afterEach(async () => {
  await node?.close();
  node = undefined;
  await rm(baseDir, { recursive: true, force: true });
});

describe('raft node - storageWrites', () => {
  it('moves with each append and snapshot, not with idle ticks', async () => {
    const machine = new ListStateMachine();
    node = await RaftNode.open<string>({ id: 'a', peers: ['a'], dataDir: path.join(baseDir, 'a'), stateMachine: machine, tickIntervalMs: 1, snapshotEveryEntries: 3 });
    await waitFor(() => node!.status().role === 'leader', 5_000, 'a leader');
    const afterOpen = node.storageWrites();
    expect(afterOpen).toBeGreaterThan(0);

    // Idle: many ticks pass (1 ms each) while the count stays.
    const ticksWaited = performance.now();
    await waitFor(() => performance.now() - ticksWaited > 50, 5_000, 'some ticks');
    expect(node.storageWrites()).toBe(afterOpen);

    await node.propose(new TextEncoder().encode('x'));
    const afterAppend = node.storageWrites();
    expect(afterAppend).toBeGreaterThan(afterOpen);

    // Enough entries for a snapshot (every 3): its save is a write too.
    for (const payload of ['y', 'z', 'w']) await node.propose(new TextEncoder().encode(payload));
    await waitFor(() => node!.storageWrites() >= afterAppend + 4, 5_000, 'appends and a snapshot counted');
  });
});
