// The read-ahead of the newest snapshot file at process start (deploy/snapshot-prefetch.ts) and
// its use by CompressedSnapshots.restore and the local store: used only for the very bytes restored.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterState, encodeCommand } from '../../../actors/index.ts';
import type { CommandResult } from '../../../actors/index.ts';
import { RaftNode } from '../../../raft/index.ts';
import { SnapshotStore } from '../../../raft/storage/index.ts';
import { CompressedSnapshots } from '../../../deploy/compressed-snapshots.ts';
import { openLocalStore } from '../../../deploy/local-store.ts';
import { SnapshotPrefetch, snapshotPrefetchFor, startSnapshotPrefetch } from '../../../deploy/snapshot-prefetch.ts';
import { cmKey, create, envelope, nsKey, objectFor } from '../actors/fixtures.ts';
import { waitFor } from '../../support/wait-for.ts';

let dataDir = '';

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-snapshot-prefetch-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** A one-member Raft log in `directory` with gzip snapshots (every 40 entries) and `count` ConfigMaps; its applied index. */
async function writeMember(directory: string, count: number): Promise<number> {
  const state = new ClusterState();
  const node = await RaftNode.open<CommandResult>({ id: 'kstore-0', peers: ['kstore-0'], dataDir: directory, snapshotEveryEntries: 40, stateMachine: new CompressedSnapshots(state) });
  try {
    await waitFor(() => node.status().role === 'leader', { timeoutMs: 10_000, description: 'a leader' });
    await node.propose(encodeCommand(envelope(create(nsKey('default')), { id: 's', sequence: 1 })));
    for (let index = 0; index < count; index++) {
      const key = cmKey('default', `c${index}`);
      await node.propose(encodeCommand(envelope(create(key, objectFor(key, { data: { value: 'v'.repeat(100) } })), { id: 's', sequence: index + 2 })));
    }
    await waitFor(async () => ((await SnapshotStore.open(directory)).loaded.newest?.meta.index ?? 0) >= 80, { timeoutMs: 10_000, description: 'a snapshot past index 80' });
    return state.appliedIndex();
  } finally {
    await node.close();
  }
}

describe('SnapshotPrefetch', () => {
  it('inflates the newest snapshot file ahead and hands it out once, only for the same compressed bytes', async () => {
    await writeMember(dataDir, 100);
    const prefetch = SnapshotPrefetch.start(dataDir);
    await prefetch.settled();
    const newest = (await SnapshotStore.open(dataDir)).loaded.newest!;
    expect(prefetch.inflatedFor(new Uint8Array(newest.data.byteLength))).toBeUndefined();
    const altered = new Uint8Array(newest.data);
    altered[altered.length - 1] = altered.at(-1)! ^ 1;
    expect(prefetch.inflatedFor(altered)).toBeUndefined();
    const inflated = prefetch.inflatedFor(newest.data);
    expect(inflated).toBeDefined();
    expect(Buffer.from(inflated!).equals(gunzipSync(newest.data))).toBe(true);
    expect(prefetch.inflatedFor(newest.data)).toBeUndefined(); // handed out once
  });

  it('settles without a result for a data dir with no snapshot, or a file it cannot read', async () => {
    const empty = SnapshotPrefetch.start(path.join(dataDir, 'missing'));
    await empty.settled();
    expect(empty.inflatedFor(new Uint8Array([0x1f, 0x8b]))).toBeUndefined();
    await writeMember(dataDir, 100);
    const snap = path.join(dataDir, 'snap');
    const newestName = (await readdir(snap)).filter((name) => name.endsWith('.snap')).sort().at(-1)!;
    await writeFile(path.join(snap, newestName), Buffer.from('not a snapshot file'));
    const garbage = SnapshotPrefetch.start(dataDir);
    await garbage.settled();
    expect(garbage.inflatedFor(Buffer.from('not a snapshot file'))).toBeUndefined();
  });
});

describe('CompressedSnapshots.restore with bytes inflated ahead', () => {
  it('restores from the bytes inflated ahead when there are some for the snapshot, and inflates itself otherwise', async () => {
    // An empty state at index 7, as snapshot bytes.
    const other = new TextEncoder().encode(JSON.stringify({ version: 2, appliedIndex: 7, objects: [], records: [], history: { compactedRevision: 0, newestAtMillis: null, entries: [] }, sessions: [] }));
    const written = new ClusterState();
    written.apply({ index: 1, term: 1, data: encodeCommand(envelope(create(nsKey('default')), { id: 's', sequence: 1 })) });
    const compressed = new CompressedSnapshots(written).snapshot();
    // A source that answers for these bytes: its bytes are what is restored (the other state).
    const fromAhead = new ClusterState();
    new CompressedSnapshots(fromAhead, { inflatedFor: (bytes) => (Buffer.from(bytes).equals(Buffer.from(compressed)) ? other : undefined) }).restore(compressed, 7);
    expect(fromAhead.appliedIndex()).toBe(7);
    expect(fromAhead.get(nsKey('default'))).toBeUndefined();
    // One that has nothing for them: the restore inflates the snapshot itself.
    const fromItself = new ClusterState();
    new CompressedSnapshots(fromItself, { inflatedFor: () => undefined }).restore(compressed, 1);
    expect(Buffer.from(fromItself.snapshot()).equals(Buffer.from(written.snapshot()))).toBe(true);
  });

  it('the local store of the data dir the process read ahead restores through it, to the same state, and lets it go', async () => {
    const raftDir = path.join(dataDir, 'raft');
    const applied = await writeMember(raftDir, 120);
    const expected = new ClusterState();
    const reference = await RaftNode.open<CommandResult>({ id: 'kstore-0', peers: ['kstore-0'], dataDir: raftDir, stateMachine: new CompressedSnapshots(expected) });
    await reference.close();
    startSnapshotPrefetch(raftDir);
    const prefetch = snapshotPrefetchFor(raftDir)!;
    expect(prefetch).toBeDefined();
    expect(snapshotPrefetchFor(path.join(dataDir, 'elsewhere'))).toBeUndefined();
    await prefetch.settled();
    const newest = (await SnapshotStore.open(raftDir)).loaded.newest!;
    const taken: boolean[] = [];
    const inflatedFor = prefetch.inflatedFor.bind(prefetch);
    prefetch.inflatedFor = (bytes) => {
      const inflated = inflatedFor(bytes);
      taken.push(inflated !== undefined);
      return inflated;
    };
    const store = await openLocalStore({ id: 'kstore-0', dataDir: raftDir });
    try {
      expect(taken).toEqual([true]);
      expect(store.state.appliedIndex()).toBeGreaterThanOrEqual(applied);
      const configmaps = { group: '', resource: 'configmaps', namespace: 'default' };
      expect(store.state.list(configmaps).items).toEqual(expected.list(configmaps).items);
      expect(store.state.list(configmaps).items).toHaveLength(120);
      expect(prefetch.inflatedFor(newest.data)).toBeUndefined(); // released after the open
    } finally {
      await store.close();
    }
  });
});
