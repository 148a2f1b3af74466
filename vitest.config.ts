// Test projects: `unit` (pure modules, fastify.inject, storage on temp dirs) and `e2e`
// (real processes: the kstore server and real kubectl). Both run in `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      // Each project's files share one module graph (isolate: false): importing it again for each
      // of the 183 unit files cost more than the tests themselves (306 s against 144 s for the
      // project), and ~1.5 s per file of the others. No file keeps module-level state that another
      // could see (no vi.mock, no stubbed globals or environment; the support modules' sets of
      // child processes only back an exit-time kill); the unit files pass in shuffled file orders
      // too (--sequence.shuffle.files). The fault project stays isolated: it runs alone, last.
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000, isolate: false } },
      { test: { name: 'integration', include: ['test/integration/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 60_000, pool: 'forks', isolate: false } },
      { test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 60_000, pool: 'forks', isolate: false } },
      // Real processes under injected faults; groupOrder 1 runs it after the other projects, alone,
      // so their CPU use on a 2-core machine does not stretch its election timeouts.
      { test: { name: 'fault', include: ['test/fault/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 60_000, pool: 'forks', sequence: { groupOrder: 1 } } },
    ],
  },
});
