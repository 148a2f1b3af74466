// Owns: the simulator's helpers over its one seeded Rng (raft/stdx mulberry32): chances, ranges,
// picks. Every random decision of a simulation goes through one SimRandom built from the seed,
// so a seed replays byte for byte. Must not use Math.random or any clock.
import { assert, createRng } from '../../raft/stdx/index.ts';
import type { Rng } from '../../raft/stdx/index.ts';

const uint32Range = 0x1_0000_0000;

export class SimRandom {
  readonly #rng: Rng;

  constructor(seed: number) {
    this.#rng = createRng(seed);
  }

  /** A uniform float in [0, 1). */
  fraction(): number {
    return this.#rng.nextUint32() / uint32Range;
  }

  /** True with `probability`; a probability of 0 consumes no randomness. */
  chance(probability: number): boolean {
    assert(probability >= 0 && probability <= 1, `probability ${probability} outside [0, 1]`);
    if (probability === 0) return false;
    return this.fraction() < probability;
  }

  /** A uniform integer in [min, max], both inclusive. */
  between(min: number, max: number): number {
    assert(max >= min, `empty range [${min}, ${max}]`);
    return this.#rng.intBetween(min, max + 1);
  }

  pick<T>(items: readonly T[]): T {
    assert(items.length > 0, 'pick from an empty list');
    return items[this.#rng.intBetween(0, items.length)]!;
  }

  /** A fresh Rng for a component that wants its own (the core's election jitter). */
  fork(): Rng {
    return createRng(this.#rng.nextUint32());
  }

  /** A Fisher-Yates shuffled copy. */
  shuffled<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let position = copy.length - 1; position > 0; position -= 1) {
      const other = this.#rng.intBetween(0, position + 1);
      [copy[position], copy[other]] = [copy[other]!, copy[position]!];
    }
    return copy;
  }
}
