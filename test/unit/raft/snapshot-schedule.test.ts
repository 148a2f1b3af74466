import { describe, expect, it } from 'vitest';
import { snapshotDue, snapshotPhase, writeSliced } from '../../../raft/node/snapshot-schedule.ts';

/** Indexes at which a member with `phase` snapshots while applying 1..last one entry at a time. */
function schedule(every: number, phase: number, last: number, from = 0): number[] {
  const taken: number[] = [];
  let snapshotIndex = from;
  for (let applied = from + 1; applied <= last; applied++) {
    if (!snapshotDue(snapshotIndex, applied, every, phase)) continue;
    taken.push(applied);
    snapshotIndex = applied;
  }
  return taken;
}

describe('snapshot schedule', () => {
  it('a phase is deterministic per member id and lies in [0, every)', () => {
    expect(snapshotPhase('a', 50_000)).toBe(snapshotPhase('a', 50_000));
    for (const id of ['a', 'b', 'c', 'store-1', 'store-2', 'store-3']) {
      const phase = snapshotPhase(id, 1000);
      expect(phase).toBeGreaterThanOrEqual(0);
      expect(phase).toBeLessThan(1000);
    }
    expect(new Set(['store-1', 'store-2', 'store-3'].map((id) => snapshotPhase(id, 50_000))).size).toBe(3);
  });

  it('snapshots every `every` entries at the member\'s phase, never within every/2 of the last', () => {
    expect(schedule(100, 0, 450)).toEqual([100, 200, 300, 400]);
    expect(schedule(100, 30, 450)).toEqual([70, 170, 270, 370]);
    expect(schedule(100, 80, 450)).toEqual([120, 220, 320, 420]); // 20 is too soon after 0
    // after an installed snapshot at 155 the schedule resumes at the phase
    expect(schedule(100, 30, 450, 155)).toEqual([270, 370]);
    expect(schedule(1, 0, 3)).toEqual([1, 2, 3]);
  });

  it('members with different phases do not snapshot at the same index', () => {
    const ids = ['store-1', 'store-2', 'store-3'];
    const taken = ids.map((id) => schedule(10_000, snapshotPhase(id, 10_000), 100_000));
    for (const indexes of taken) expect(indexes.length).toBeGreaterThanOrEqual(9);
    const all = taken.flat();
    expect(new Set(all).size).toBe(all.length);
  });

  it('writeSliced copies each chunk before pulling the next: a producer may reuse one buffer', async () => {
    // Chunk sizes crossing writeSliced's 1 MiB blocks, one larger than a block, and empty ones.
    const sizes = [0, 700_000, 500_000, 0, 2_500_000, 3, 1_048_576, 1];
    const expected = Buffer.concat(sizes.map((size, at) => Buffer.alloc(size, at + 1)));
    function* reusing(): Generator<Uint8Array, void, undefined> {
      const buffer = new Uint8Array(Math.max(...sizes));
      for (const [at, size] of sizes.entries()) {
        buffer.fill(at + 1, 0, size);
        yield buffer.subarray(0, size);
        buffer.fill(0xee);
      }
    }
    const written = await writeSliced(reusing(), 0);
    expect(written.byteLength).toBe(expected.byteLength);
    expect(Buffer.from(written).equals(expected)).toBe(true);
    expect(await writeSliced([], 0)).toEqual(new Uint8Array(0));
  });
});
