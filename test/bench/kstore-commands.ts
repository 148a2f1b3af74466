// Owns: running `kstore <command>` from a benchmark and killing what `kstore cluster up` left
// behind. `cluster up` starts detached processes, each leading its own process group, listed in
// its data directory's cluster.json; after an interrupted run they are SIGKILLed from there
// (after a normal run `cluster down` stops them). Shared by `npm run bench` and `bench:scale`.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/kstore-process.ts';

/** The processes `cluster up` recorded in cluster.json (and `cluster status -o json` prints). */
export interface ClusterProcesses {
  readonly apis: readonly { readonly name: string; readonly url: string; readonly pid?: number }[];
  readonly stores: readonly { readonly id: string; readonly pid?: number; readonly supervisorPid?: number; readonly role?: string }[];
  readonly nats: readonly { readonly name: string; readonly pid?: number }[];
  readonly kubeconfig?: string;
}

export interface KstoreCommandResult {
  readonly code: number | null;
  readonly stdout: string;
  /** stdout and stderr interleaved as they came. */
  readonly output: string;
}

/** `kstore` commands still running: killKstoreCommands ends them (at the benchmark's exit). */
const running = new Set<ChildProcess>();

/** Runs `kstore <args>` to its exit, with `env` added to the benchmark's environment. */
export function runKstore(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<KstoreCommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'deploy', 'kstore.mjs'), ...args], {
      cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env },
    });
    running.add(child);
    let stdout = '';
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; output += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    child.once('error', (error) => {
      running.delete(child);
      reject(error);
    });
    child.once('exit', (code) => {
      running.delete(child);
      resolve({ code, stdout, output });
    });
  });
}

/** SIGKILLs every `kstore` command still running. */
export function killKstoreCommands(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** SIGKILLs every process group (and process) the cluster.json in `dataDir` lists. */
export function killClusterSync(dataDir: string): void {
  let pids: number[] = [];
  try {
    const file = JSON.parse(readFileSync(path.join(dataDir, 'cluster.json'), 'utf8')) as ClusterProcesses;
    pids = [...file.apis, ...file.stores, ...file.nats].map((entry) => entry.pid).filter((pid): pid is number => typeof pid === 'number');
  } catch {
    // No cluster.json yet: `cluster up` was interrupted before writing it; it stops what it started.
  }
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}
