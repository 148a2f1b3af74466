// `npm run fuzz:requests -- [--seeds N] [--iterations N] [--first-seed N]`: the long run of the
// request-pipeline property test (test/fuzz/request-fuzz.ts). Prints one JSON line per seed and a
// summary; exits 1 when any generated request broke a property (each failure names its seed and
// iteration, so it replays).
import { parseArgs } from 'node:util';
import { fuzzRequests } from './request-fuzz.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '20' },
    iterations: { type: 'string', default: '2000' },
    'first-seed': { type: 'string', default: '1' },
  },
});
const seeds = Number(values.seeds);
const iterations = Number(values.iterations);
const firstSeed = Number(values['first-seed']);
let failed = 0;
let requests = 0;
const started = Date.now();
for (let seed = firstSeed; seed < firstSeed + seeds; seed++) {
  const run = await fuzzRequests(seed, iterations);
  requests += run.requests;
  failed += run.failures.length;
  console.log(JSON.stringify({ seed, requests: run.requests, writes: run.writes, statuses: run.statuses, failures: run.failures.slice(0, 3) }));
}
console.log(JSON.stringify({ seeds, requests, failures: failed, seconds: Math.round((Date.now() - started) / 1000) }));
process.exit(failed === 0 ? 0 : 1);
