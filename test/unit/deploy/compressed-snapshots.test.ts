import { describe, expect, it } from 'vitest';
import { ClusterState } from '../../../actors/index.ts';
import type { Command } from '../../../actors/index.ts';
import { CompressedSnapshots, isGzip, uncompressedSnapshot } from '../../../deploy/compressed-snapshots.ts';
import { writeSliced } from '../../../raft/node/snapshot-schedule.ts';
import { cmKey, create, entry, nsKey, objectFor, update } from '../actors/fixtures.ts';

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
});
