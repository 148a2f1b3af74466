// Owns: running one `kstore` command line to completion from a test (from another cwd on
// purpose: kstore must find itself relative to its module), with its exit code and output.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './kstore-process.ts';

const kstoreExecutable = path.join(repoRoot, 'deploy', 'kstore.mjs');

export interface KstoreRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `kstore <args>`; resolves (never rejects) with its exit code (-1 when it could not run or timed out). */
export function runKstoreCli(args: readonly string[], timeoutMs = 150_000): Promise<KstoreRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [kstoreExecutable, ...args], { cwd: '/', timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}
