// The short run of the request-pipeline property test (test/fuzz/request-fuzz.ts): a few
// hundred generated requests per seed against the real API server, every one checked for a
// Status on errors, admission before every proposal, what was served being what was
// authorized (as exactly the caller's identity; a bad bearer token a 401), no narrow user,
// token user, service account or anonymous gaining rights, minted tokens authenticating as
// exactly their service account, and TokenReviews authenticating tokens as their owners.
// `npm run fuzz:requests` runs the long one.
import { describe, expect, it } from 'vitest';
import { fuzzRequests } from '../../fuzz/request-fuzz.ts';
import type { FuzzRun } from '../../fuzz/request-fuzz.ts';

describe('request parser and write path, under generated requests', () => {
  const runs: FuzzRun[] = [];
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: every generated request runs the same authentication, authorization, admission and validation`, async () => {
      const run = await fuzzRequests(seed, 300);
      runs.push(run);
      expect(run.failures.slice(0, 5), JSON.stringify(run.failures.slice(0, 5), null, 2)).toEqual([]);
      // The run explored both sides: refusals of several kinds and successful writes.
      expect(run.writes).toBeGreaterThan(5);
      for (const code of ['200', '201', '401', '403', '404']) expect(run.statuses[code] ?? 0, `${code} in ${JSON.stringify(run.statuses)}`).toBeGreaterThan(0);
      // ...and the auth paths: bad bearer tokens and tokens minted and checked.
      expect(run.badTokens).toBeGreaterThan(0);
      expect(run.mintedTokens).toBeGreaterThan(0);
    }, 120_000);
  }

  it('the seeds together had TokenReviews authenticate tokens', () => {
    expect(runs).toHaveLength(3);
    expect(runs.reduce((sum, run) => sum + run.authenticatedReviews, 0)).toBeGreaterThan(0);
  });
});
