// The short run of the request-pipeline property test (test/fuzz/request-fuzz.ts): a few
// hundred generated requests per seed against the real API server, every one checked for a
// Status on errors, admission before every proposal, what was served being what was
// authorized, and no narrow user gaining rights. `npm run fuzz:requests` runs the long one.
import { describe, expect, it } from 'vitest';
import { fuzzRequests } from '../../fuzz/request-fuzz.ts';

describe('request parser and write path, under generated requests', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: every generated request runs the same authorization, admission and validation`, async () => {
      const run = await fuzzRequests(seed, 300);
      expect(run.failures.slice(0, 5), JSON.stringify(run.failures.slice(0, 5), null, 2)).toEqual([]);
      // The run explored both sides: refusals of several kinds and successful writes.
      expect(run.writes).toBeGreaterThan(5);
      for (const code of ['200', '403', '404']) expect(run.statuses[code] ?? 0, `${code} in ${JSON.stringify(run.statuses)}`).toBeGreaterThan(0);
    }, 120_000);
  }
});
