// Owns: the two deployments end-to-end suites run against — an all-in-one `kstore server`, and an
// HA cluster started as a user starts one (`kstore cluster up`: 3 nats-servers, 3 stores, 2 API
// replicas) where writes go through replica a1 and reads through replica a2 — and running the
// kstore command as a child process. Each start uses its own temp dir and free ports; stop()
// takes everything down (cluster down, then SIGKILL of any pid left).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readKubeconfig } from './kube-client.ts';
import type { Credentials } from './kube-client.ts';
import { KstoreProcess, repoRoot } from './kstore-process.ts';
import type { TempDir } from './temp-dir.ts';

export interface Target {
  /** Where writes go. */
  readonly writer: string;
  /** Where reads go (another API replica on the cluster). */
  readonly reader: string;
  readonly credentials: Credentials;
  /** The admin kubeconfig (for a cluster: one context per API replica, kstore-a1, kstore-a2). */
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

export function runKstore(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'deploy', 'kstore.mjs'), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** `kstore server` in `dir`/server with `extraArgs` (e.g. --watch-bookmark-interval). */
export async function startServer(dir: TempDir, extraArgs: readonly string[] = []): Promise<Target> {
  const server = await KstoreProcess.start({ dataDir: path.join(dir.path, 'server'), extraArgs });
  const credentials = await readKubeconfig(server.kubeconfigPath);
  return { writer: credentials.server, reader: credentials.server, credentials, kubeconfig: server.kubeconfigPath, stop: async () => { await server.stop().catch(() => server.kill()); } };
}

/** `kstore cluster up` in `dir`/ha with `upArgs` (e.g. --controllers); stop() downs it and kills any pid left. */
export async function startCluster(dir: TempDir, upArgs: readonly string[] = []): Promise<Target> {
  const dataDir = path.join(dir.path, 'ha');
  const up = await runKstore(['cluster', 'up', '--data-dir', dataDir, ...upArgs]);
  const stop = async (): Promise<void> => {
    await runKstore(['cluster', 'down', '--data-dir', dataDir]);
    const file = path.join(dataDir, 'cluster.json');
    if (!existsSync(file)) return;
    const cluster = JSON.parse(readFileSync(file, 'utf8')) as { nats?: { pid?: number }[]; stores?: { pid?: number }[]; apis?: { pid?: number }[] };
    for (const entry of [...(cluster.nats ?? []), ...(cluster.stores ?? []), ...(cluster.apis ?? [])]) {
      try {
        if (entry.pid !== undefined) process.kill(entry.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  if (up.code !== 0) {
    await stop();
    throw new Error(`kstore cluster up failed:\n${up.output}`);
  }
  const cluster = JSON.parse(readFileSync(path.join(dataDir, 'cluster.json'), 'utf8')) as { apis: { url: string }[] };
  const credentials = await readKubeconfig(path.join(dataDir, 'admin.kubeconfig'));
  if (cluster.apis.length !== 2) throw new Error(`expected 2 API replicas, cluster.json lists ${cluster.apis.length}`);
  return { writer: cluster.apis[0]!.url, reader: cluster.apis[1]!.url, credentials, kubeconfig: path.join(dataDir, 'admin.kubeconfig'), stop };
}

/** Both deployments; `args` are flags both `kstore server` and `kstore cluster up` take. */
export const deployments: readonly { readonly name: string; readonly start: (dir: TempDir, args?: readonly string[]) => Promise<Target> }[] = [
  { name: 'kstore server', start: (dir, args) => startServer(dir, args) },
  { name: 'kstore cluster up (writes through a1, reads through a2)', start: (dir, args) => startCluster(dir, args) },
];
