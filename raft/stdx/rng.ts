// Owns: a small seeded pseudo-random number generator (mulberry32). Pure; imports only assert.
// Used by raft/core for randomized election timeouts and, later, by the simulator, so a seed
// reproduces a run exactly. It must not be used for anything security-relevant.
import { assert } from './assert.ts';

export interface Rng {
  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number;
  /** A uniformly distributed integer in [minInclusive, maxExclusive). */
  intBetween(minInclusive: number, maxExclusive: number): number;
}

const uint32Range = 0x1_0000_0000;

export function createRng(seed: number): Rng {
  assert(Number.isSafeInteger(seed), `rng seed must be a safe integer, got ${seed}`);
  let state = seed >>> 0;
  const nextUint32 = (): number => {
    // mulberry32 (Tommy Ettinger): one 32-bit state word, full period 2^32, good enough
    // statistical quality for jitter and for choosing simulated faults.
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return (mixed ^ (mixed >>> 14)) >>> 0;
  };
  const intBetween = (minInclusive: number, maxExclusive: number): number => {
    assert(Number.isSafeInteger(minInclusive), 'rng lower bound must be an integer');
    assert(Number.isSafeInteger(maxExclusive), 'rng upper bound must be an integer');
    assert(maxExclusive > minInclusive, `empty rng range [${minInclusive}, ${maxExclusive})`);
    assert(maxExclusive - minInclusive <= uint32Range, 'rng range wider than 2^32');
    const value = minInclusive + Math.floor((nextUint32() / uint32Range) * (maxExclusive - minInclusive));
    assert(value >= minInclusive && value < maxExclusive, 'rng value out of range');
    return value;
  };
  return { nextUint32, intBetween };
}
