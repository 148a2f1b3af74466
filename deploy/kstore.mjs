#!/usr/bin/env node
// The `kstore` executable: registers the TypeScript loader (tsx) and runs deploy/cli.ts, so
// the sources run as they are, with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));
