import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClusterState, encodeCommand } from '../../../actors/index.ts';
import type { Command, CommandResult } from '../../../actors/index.ts';
import { RaftNode } from '../../../raft/index.ts';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CompressedSnapshots, gunzipChunkFor, gzipChunks, isGzip, statedLength, uncompressedSnapshot } from '../../../deploy/compressed-snapshots.ts';
import { writeSliced } from '../../../raft/node/snapshot-schedule.ts';
import { cmKey, create, entry, envelope, nsKey, objectFor, update } from '../actors/fixtures.ts';
import { waitFor } from '../../support/wait-for.ts';

function filled(count: number): { state: ClusterState; commands: Command[] } {
  const state = new ClusterState();
  const commands: Command[] = [create(nsKey('default'))];
  for (let index = 0; index < count; index++) {
    const key = cmKey('default', `c${index}`);
    commands.push(create(key, objectFor(key, { data: { value: 'v'.repeat(200 + (index % 7)) } })));
    if (index % 3 === 0) commands.push(update(key, objectFor(key, { data: { value: `changed ${index}` } })));
  }
  commands.forEach((command, at) => state.apply(entry(at + 1, command, { id: 's', sequence: at + 1 })));
  return { state, commands };
}

describe('CompressedSnapshots', () => {
  it('writes gzip whose content is the state machine snapshot, the same bytes through snapshotView', async () => {
    const { state } = filled(2_000);
    const compressed = new CompressedSnapshots(state);
    const bytes = compressed.snapshot();
    expect(isGzip(bytes)).toBe(true);
    expect(Buffer.from(uncompressedSnapshot(bytes)).equals(Buffer.from(state.snapshot()))).toBe(true);
    expect(bytes.byteLength * 3).toBeLessThan(state.snapshot().byteLength);
    const view = compressed.snapshotView?.();
    expect(view?.index).toBe(state.appliedIndex());
    const sliced = await writeSliced(view!.chunks());
    expect(Buffer.from(uncompressedSnapshot(sliced)).equals(Buffer.from(state.snapshot()))).toBe(true);
  });

  it('gzipChunks copies each input chunk before pulling the next (a producer may reuse one buffer), one output or more per input', () => {
    // Sizes below, across and above a 256 KiB member, and empty ones.
    const sizes = [100_000, 0, 200_000, 600_000, 1, 262_144, 70_000, 0];
    const content = (at: number, size: number): Buffer => Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + at * 13) % 251));
    const expected = Buffer.concat(sizes.map((size, at) => content(at, size)));
    let pulled = 0;
    const pulledAtOutput: number[] = [];
    function* reusing(): Generator<Uint8Array, void, undefined> {
      const buffer = new Uint8Array(Math.max(...sizes));
      for (const [at, size] of sizes.entries()) {
        buffer.set(content(at, size));
        pulled += 1;
        yield buffer.subarray(0, size);
        buffer.fill(0xee);
      }
    }
    const outputs: Uint8Array[] = [];
    for (const output of gzipChunks(reusing())) {
      outputs.push(output);
      pulledAtOutput.push(pulled);
    }
    const bytes = Buffer.concat(outputs);
    expect(isGzip(bytes)).toBe(true);
    expect(Buffer.from(uncompressedSnapshot(bytes)).equals(expected)).toBe(true);
    // A pause point after every input chunk.
    for (let at = 1; at <= sizes.length; at++) expect(pulledAtOutput).toContain(at);
  });

  it('ends with a member stating the uncompressed length, which gzip readers skip; the restore inflates into one buffer of that size', () => {
    const { state } = filled(2_000);
    const plain = state.snapshot();
    const bytes = new CompressedSnapshots(state).snapshot();
    expect(statedLength(bytes)).toBe(plain.byteLength);
    // Node's own gunzip, with its default chunks, reads the members and skips the length member.
    expect(Buffer.from(gunzipSync(bytes)).equals(Buffer.from(plain))).toBe(true);
    const inflated = uncompressedSnapshot(bytes);
    expect(Buffer.from(inflated).equals(Buffer.from(plain))).toBe(true);
    // One output buffer of the stated length + 1 (never full), not chunks concatenated.
    expect(inflated.buffer.byteLength).toBe(plain.byteLength + 1);
    expect(gunzipChunkFor(bytes)).toBe(plain.byteLength + 1);
    // An empty snapshot is the length member alone.
    const empty = Buffer.concat([...gzipChunks([])]);
    expect(statedLength(empty)).toBe(0);
    expect(uncompressedSnapshot(empty).byteLength).toBe(0);
  });

  it('gzip without the length member (snapshots written before it) inflates as before; a wrong stated length only costs a copy', () => {
    const plain = Buffer.from('x'.repeat(100_000));
    const withoutLength = gzipSync(plain);
    expect(statedLength(withoutLength)).toBeUndefined();
    expect(Buffer.from(uncompressedSnapshot(withoutLength)).equals(plain)).toBe(true);
    const [lengthMember] = [...gzipChunks([new Uint8Array(10)])].slice(-1);
    // A member stating 10 bytes after 100,000 bytes of content: still the whole content.
    const understated = Buffer.concat([withoutLength, lengthMember!]);
    expect(statedLength(understated)).toBe(10);
    expect(Buffer.from(uncompressedSnapshot(understated)).equals(plain)).toBe(true);
    // A stated length beyond what one string can hold is ignored.
    const huge = Buffer.from(lengthMember!);
    huge.writeBigUInt64LE(2n ** 40n, 16);
    expect(statedLength(Buffer.concat([withoutLength, huge]))).toBeUndefined();
  });

  it('restores its own gzip and the uncompressed snapshots written before, to the same state', () => {
    const { state, commands } = filled(300);
    const fromGzip = new ClusterState();
    new CompressedSnapshots(fromGzip).restore(new CompressedSnapshots(state).snapshot(), commands.length);
    const fromPlain = new ClusterState();
    new CompressedSnapshots(fromPlain).restore(state.snapshot(), commands.length);
    for (const restored of [fromGzip, fromPlain]) {
      expect(Buffer.from(restored.snapshot()).equals(Buffer.from(state.snapshot()))).toBe(true);
      expect(restored.eventsSince(0)).toEqual(state.eventsSince(0));
    }
  });

  it('passes apply and appliedIndex through', () => {
    const state = new ClusterState();
    const compressed = new CompressedSnapshots(state);
    expect(compressed.apply(entry(1, create(nsKey('default'))))).toMatchObject({ type: 'stored' });
    expect(compressed.appliedIndex()).toBe(1);
    expect(state.appliedIndex()).toBe(1);
  });

  it('a Raft member on disk writes gzip snapshots and restarts from them to the same state', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-compressed-snapshots-'));
    try {
      const options = { id: 'a', peers: ['a'], dataDir, snapshotEveryEntries: 40 };
      const first = new ClusterState();
      const node = await RaftNode.open<CommandResult>({ ...options, stateMachine: new CompressedSnapshots(first) });
      await waitFor(() => node.status().role === 'leader', { timeoutMs: 10_000, description: 'a leader' });
      await node.propose(encodeCommand(envelope(create(nsKey('default')), { id: 's', sequence: 1 })));
      for (let index = 0; index < 120; index++) {
        const key = cmKey('default', `c${index}`);
        await node.propose(encodeCommand(envelope(create(key, objectFor(key, { data: { value: 'v'.repeat(100) } })), { id: 's', sequence: index + 2 })));
      }
      // The newest snapshot file (read again if it was replaced between listing and reading).
      const onDisk = await waitFor(async () => {
        const files = (await readdir(path.join(dataDir, 'snap'))).filter((name) => name.endsWith('.snap')).sort();
        return files.length === 0 ? undefined : readFile(path.join(dataDir, 'snap', files.at(-1)!));
      }, { timeoutMs: 10_000, description: 'a snapshot file' });
      expect(onDisk.includes(Buffer.from([0x1f, 0x8b]))).toBe(true);
      expect(onDisk.includes(Buffer.from('"appliedIndex"'))).toBe(false);
      const applied = first.appliedIndex();
      await node.close();
      const second = new ClusterState();
      const reopened = await RaftNode.open<CommandResult>({ ...options, stateMachine: new CompressedSnapshots(second) });
      try {
        await waitFor(() => second.appliedIndex() >= applied, { timeoutMs: 10_000, description: 'the restarted member to apply what it had' });
        expect(second.list({ group: '', resource: 'configmaps', namespace: 'default' }).items).toEqual(first.list({ group: '', resource: 'configmaps', namespace: 'default' }).items);
      } finally {
        await reopened.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
