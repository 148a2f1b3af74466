// Owns: the fixture end-to-end suites share to drive one `kstore server` with the real kubectl:
// a temp dir, the server, a Kubectl on its admin kubeconfig, a namespace to work in, `ok` (run,
// expect exit 0 with the server's log tail on failure, return stdout) and `diagnostics`, and a
// stop that takes everything down.
import path from 'node:path';
import { expect } from 'vitest';
import { KstoreProcess } from './kstore-process.ts';
import { describeResult, Kubectl } from './kubectl.ts';
import type { KubectlResult } from './kubectl.ts';
import { makeTempDir } from './temp-dir.ts';
import type { TempDir } from './temp-dir.ts';

export interface KubectlServer {
  readonly dir: TempDir;
  readonly server: KstoreProcess;
  readonly kubectl: Kubectl;
  /** kubectl's failure with the server's log tail. */
  diagnostics(args: readonly string[], result: KubectlResult): string;
  /** Runs kubectl (stdin `input`), expects exit 0, returns stdout. */
  ok(args: readonly string[], input?: string): Promise<string>;
  stop(): Promise<void>;
}

/** Starts a server in a temp dir named after `prefix` and creates `namespace` in it. */
export async function startKubectlServer(prefix: string, namespace: string): Promise<KubectlServer> {
  const dir = await makeTempDir(prefix);
  const server = await KstoreProcess.start({ dataDir: path.join(dir.path, 'data') });
  const kubectl = new Kubectl({ kubeconfig: server.kubeconfigPath, cacheDir: path.join(dir.path, 'kube-cache') });
  const diagnostics = (args: readonly string[], result: KubectlResult): string =>
    `${describeResult(args, result)}\nserver output (tail):\n${server.output().slice(-4000)}`;
  const ok = async (args: readonly string[], input?: string): Promise<string> => {
    const result = await kubectl.run(args, input === undefined ? {} : { input });
    expect(result.code, diagnostics(args, result)).toBe(0);
    return result.stdout;
  };
  const fixture: KubectlServer = {
    dir, server, kubectl, diagnostics, ok,
    stop: async () => {
      kubectl.stopAll();
      await server.stop().catch(() => server.kill());
      await dir.remove();
    },
  };
  await ok(['create', 'namespace', namespace]);
  return fixture;
}
