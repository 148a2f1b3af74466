// RaftNode snapshots end to end: periodic compaction with segment deletion, recovery from
// snapshot + WAL, a corrupt newest snapshot, and a follower with an empty disk catching up by
// InstallSnapshot. Real files, timers and the memory hub.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryHub, RaftNode } from '../../../raft/index.ts';
import type { RaftNodeOptions } from '../../../raft/index.ts';
import { ListStateMachine } from './list-state-machine.ts';
import { waitFor } from './wait-for.ts';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);
let baseDir = '';
const openNodes = new Set<RaftNode<string>>();

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-raft-snap-'));
});

afterEach(async () => {
  await Promise.all([...openNodes].map((node) => node.close()));
  openNodes.clear();
  await rm(baseDir, { recursive: true, force: true });
});

async function open(options: Partial<RaftNodeOptions<string>> & { id: string; stateMachine: ListStateMachine }): Promise<RaftNode<string>> {
  const node = await RaftNode.open({ peers: [options.id], dataDir: path.join(baseDir, options.id), ...options });
  openNodes.add(node);
  return node;
}

async function close(node: RaftNode<string>): Promise<void> {
  openNodes.delete(node);
  await node.close();
}

async function proposeSequentially(node: RaftNode<string>, prefix: string, count: number): Promise<void> {
  for (let position = 0; position < count; position += 1) await node.propose(encode(`${prefix}${position}`));
}

const files = async (id: string, folder: string): Promise<string[]> => (await readdir(path.join(baseDir, id, folder))).sort();

describe('raft node - snapshots and compaction (R=1)', () => {
  it('snapshots every N applied entries, deletes old WAL segments, and keeps two snapshots', async () => {
    const stateMachine = new ListStateMachine();
    const node = await open({ id: 'a', stateMachine, snapshotEveryEntries: 25, walSegmentBytes: 512 });
    await proposeSequentially(node, 'v', 120);
    const snapshots = await files('a', 'snap');
    expect(snapshots).toHaveLength(2);
    expect(snapshots.every((name) => name.endsWith('.snap'))).toBe(true);
    const segments = await files('a', 'wal');
    // 120 entries of ~40 bytes each in 512-byte segments would be ~15 segments without release.
    expect(segments.length).toBeLessThan(8);
    expect(segments[0]).not.toBe('0000000000000001.wal');
  });

  it('restarts from snapshot + WAL to the same state machine', async () => {
    const first = new ListStateMachine();
    const node = await open({ id: 'a', stateMachine: first, snapshotEveryEntries: 30, walSegmentBytes: 1024 });
    await proposeSequentially(node, 'r', 100);
    await close(node);
    const second = new ListStateMachine();
    const reopened = await open({ id: 'a', stateMachine: second, snapshotEveryEntries: 30, walSegmentBytes: 1024 });
    expect(second.restores).toHaveLength(1);
    // The newest snapshot is within one interval of the end (101 entries with the no-op; the
    // member's phase decides where exactly: snapshot-schedule.ts).
    expect(second.restores[0]).toBeGreaterThan(101 - 30);
    expect(second.payloads()).toEqual(first.payloads());
    expect(reopened.status().appliedIndex).toBe(reopened.status().lastIndex);
    const later = await reopened.propose(encode('after'));
    expect(later.result).toBe('applied:after');
  });

  it('a close asked to snapshot when behind leaves a snapshot at the applied index, and the next start replays nothing', async () => {
    const first = new ListStateMachine();
    const node = await open({ id: 'a', stateMachine: first, snapshotEveryEntries: 10_000 });
    await proposeSequentially(node, 's', 40);
    const applied = node.status().appliedIndex;
    expect(await files('a', 'snap')).toEqual([]);
    openNodes.delete(node);
    await node.close({ snapshotIfBehind: 20 });
    expect(await files('a', 'snap')).toEqual([`${String(applied).padStart(20, '0')}.snap`]);
    const second = new ListStateMachine();
    const reopened = await open({ id: 'a', stateMachine: second, snapshotEveryEntries: 10_000 });
    expect(second.restores).toEqual([applied]);
    expect(second.payloads()).toEqual(first.payloads());
    expect(reopened.status().appliedIndex).toBeGreaterThanOrEqual(applied); // and its no-op as leader
    expect((await reopened.propose(encode('after'))).result).toBe('applied:after');
  });

  it('a close does not snapshot when fewer entries than asked came after the newest snapshot, nor when not asked', async () => {
    const node = await open({ id: 'a', stateMachine: new ListStateMachine(), snapshotEveryEntries: 10_000 });
    await proposeSequentially(node, 's', 15);
    openNodes.delete(node);
    await node.close({ snapshotIfBehind: 20 });
    expect(await files('a', 'snap')).toEqual([]);
    const again = await open({ id: 'a', stateMachine: new ListStateMachine(), snapshotEveryEntries: 10_000 });
    await proposeSequentially(again, 't', 15);
    await close(again);
    expect(await files('a', 'snap')).toEqual([]);
  });

  it('a corrupt newest snapshot falls back to the previous one and replays the WAL from there', async () => {
    const first = new ListStateMachine();
    const node = await open({ id: 'a', stateMachine: first, snapshotEveryEntries: 20 });
    await proposeSequentially(node, 'c', 50);
    await close(node);
    const snapshots = await files('a', 'snap');
    expect(snapshots).toHaveLength(2);
    await writeFile(path.join(baseDir, 'a', 'snap', snapshots[1]!), Buffer.from('garbage'));
    const second = new ListStateMachine();
    const logged: string[] = [];
    await open({ id: 'a', stateMachine: second, snapshotEveryEntries: 20, log: (message) => logged.push(message) });
    expect(logged).toContain('raft snapshot corrupt; quarantined, using an older one');
    expect(second.restores[0]).toBe(Number.parseInt(snapshots[0]!, 10));
    expect(second.payloads()).toEqual(first.payloads());
  });
});

describe('raft node - InstallSnapshot over the memory hub (R=3)', () => {
  it('a follower restarted with an empty disk catches up via InstallSnapshot', async () => {
    const hub = new MemoryHub();
    const ids = ['a', 'b', 'c'];
    const machines = new Map(ids.map((id) => [id, new ListStateMachine()]));
    // 200 ms election timeout: leadership must hold through the 1,100 proposals (a re-proposal could
    // apply twice here), and a 50 ms one was outlasted by a single slow fsync on a loaded machine.
    const common = { peers: ids, tickIntervalMs: 5, electionTicks: 40, heartbeatTicks: 1, snapshotEveryEntries: 20, snapshotChunkBytes: 256 };
    const nodes = new Map<string, RaftNode<string>>();
    for (const id of ids) nodes.set(id, await open({ id, stateMachine: machines.get(id)!, transport: hub.connect(id), ...common }));
    await waitFor(() => [...nodes.values()].some((node) => node.status().role === 'leader'), 5_000, 'a leader');
    const leaderId = [...nodes.values()].find((node) => node.status().role === 'leader')!.status().id;
    const followerId = ids.find((id) => id !== leaderId)!;
    await close(nodes.get(followerId)!);
    await rm(path.join(baseDir, followerId), { recursive: true, force: true });
    await proposeSequentially(nodes.get(leaderId)!, 'x', 1_100); // beyond the leader's retained log

    const fresh = new ListStateMachine();
    const logged: string[] = [];
    const follower = await open({ id: followerId, stateMachine: fresh, transport: hub.connect(followerId), ...common, log: (message) => logged.push(message) });
    await waitFor(() => fresh.payloads().length === 1_100, 10_000, 'the follower to catch up');
    expect(fresh.restores.length).toBeGreaterThanOrEqual(1);
    expect(logged).toContain('raft snapshot installed');
    expect(fresh.payloads()).toEqual(machines.get(leaderId)!.payloads());
    expect((await files(followerId, 'snap')).length).toBeGreaterThanOrEqual(1);
    expect(follower.status().role).toBe('follower');
  });
});
