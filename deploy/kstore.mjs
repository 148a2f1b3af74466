#!/usr/bin/env node
// The `kstore` executable: registers the TypeScript loader (tsx) and runs deploy/cli.ts, so
// the sources run as they are, with no build step. `kstore supervise` loads only its own module
// (deploy/roles/supervise.ts, also wired in cli.ts): a supervisor lives as long as its child and
// stays small (about 80 MB instead of 130 MB, and starts in a quarter of the time).
import { register } from 'tsx/esm/api';

register();
if (process.argv[2] === 'supervise') {
  const { runSuperviseCommand } = await import('./roles/supervise.ts');
  try {
    process.exitCode = await runSuperviseCommand(process.argv.slice(3));
  } catch (error) {
    process.stderr.write(`kstore: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
} else {
  const { main } = await import('./cli.ts');
  process.exitCode = await main(process.argv.slice(2));
}
