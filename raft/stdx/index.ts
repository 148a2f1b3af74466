// Public surface of raft/stdx: pure leaf utilities anyone may import.
export { assert, unreachable, AssertionError } from './assert.ts';
export { index, term } from './brand.ts';
export type { Index, Term } from './brand.ts';
export { createRng } from './rng.ts';
export type { Rng } from './rng.ts';
