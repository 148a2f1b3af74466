// Runs the real kubectl binary against a kstore server: KUBECONFIG from the test, a private
// discovery/HTTP cache directory, and a timeout on every run. The binary is $KSTORE_KUBECTL or
// `kubectl` on PATH; versioned binaries (kubectl.1.27 ... kubectl.1.33) are looked up next to
// the real file behind `kubectl`.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from './wait-for.ts';

export interface KubectlResult {
  /** The exit code; -1 when kubectl was killed (timeout) or could not be started. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface KubectlOptions {
  readonly kubeconfig: string;
  /** The kubectl binary; defaults to defaultKubectlBinary(). */
  readonly binary?: string;
  /** Passed as --cache-dir so discovery is never shared between servers. */
  readonly cacheDir?: string;
  /** Per-run timeout; default 60 s. */
  readonly timeoutMs?: number;
}

const defaultTimeoutMs = 60_000;

/** Long-running kubectl children of this worker, killed if the worker exits first. */
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});
const maxBuffer = 64 * 1024 * 1024;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH, or undefined. */
export function which(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** $KSTORE_KUBECTL, else `kubectl` on PATH, else plain `kubectl` (the run then fails with ENOENT). */
export function defaultKubectlBinary(): string {
  const fromEnv = process.env['KSTORE_KUBECTL'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return which('kubectl') ?? 'kubectl';
}

export interface VersionedKubectl {
  /** "1.27" */
  readonly version: string;
  /** Where it would be. */
  readonly path: string;
  readonly present: boolean;
}

/** kubectl.<version> next to the real kubectl binary, for each requested minor version. */
export function versionedKubectls(versions: readonly string[]): VersionedKubectl[] {
  const dirs = new Set<string>();
  for (const binary of [defaultKubectlBinary(), which('kubectl')]) {
    if (binary === undefined) continue;
    try {
      dirs.add(path.dirname(realpathSync(binary)));
    } catch {
      // not present: no directory to look in
    }
  }
  return versions.map((version) => {
    const candidates = [...dirs].map((dir) => path.join(dir, `kubectl.${version}`));
    const found = candidates.find(isExecutable);
    return { version, path: found ?? candidates[0] ?? `kubectl.${version}`, present: found !== undefined };
  });
}

/** A kubectl process that keeps running (e.g. `get -w`), with its output captured. */
export interface KubectlChild {
  stdout(): string;
  stderr(): string;
  /** Undefined while running. */
  readonly exitCode: number | null | undefined;
  /** Kills it (SIGTERM, then SIGKILL) and waits for the exit. Never throws. */
  stop(): Promise<void>;
}

export class Kubectl {
  readonly binary: string;
  readonly kubeconfig: string;
  private readonly cacheDir: string | undefined;
  private readonly timeoutMs: number;
  private readonly children = new Set<ChildProcess>();

  constructor(options: KubectlOptions) {
    this.binary = options.binary ?? defaultKubectlBinary();
    this.kubeconfig = options.kubeconfig;
    this.cacheDir = options.cacheDir;
    this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  }

  private fullArgs(args: readonly string[]): string[] {
    return this.cacheDir === undefined ? [...args] : [...args, `--cache-dir=${this.cacheDir}`];
  }

  private env(): NodeJS.ProcessEnv {
    return { ...process.env, KUBECONFIG: this.kubeconfig };
  }

  /** Runs kubectl to completion (or until the timeout kills it). `input` is written to stdin. */
  run(args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<KubectlResult> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    return new Promise<KubectlResult>((resolve) => {
      const child = execFile(this.binary, this.fullArgs(args), {
        env: this.env(), timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer, encoding: 'utf8',
      }, (error, stdout, stderr) => {
        if (error === null) {
          resolve({ code: 0, stdout, stderr });
          return;
        }
        const code = typeof error.code === 'number' ? error.code : -1;
        const note = code === -1
          ? `\n[kubectl ${args.join(' ')}: ${error.killed ? `killed after ${timeoutMs} ms` : error.message}]`
          : '';
        resolve({ code, stdout, stderr: stderr + note });
      });
      if (options.input !== undefined) child.stdin?.end(options.input);
      else child.stdin?.end();
    });
  }

  /** Starts a long-running kubectl (e.g. a watch); stop it with `stop()` or `stopAll()`. */
  start(args: readonly string[]): KubectlChild {
    const child = spawn(this.binary, this.fullArgs(args), { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.add(child);
    liveChildren.add(child);
    let stdout = '';
    let stderr = '';
    let exitCode: number | null | undefined;
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', (error) => {
      stderr += `\n[could not start ${this.binary}: ${error.message}]`;
      exitCode = -1;
      this.children.delete(child);
      liveChildren.delete(child);
    });
    child.once('exit', (code) => {
      exitCode = code;
      this.children.delete(child);
      liveChildren.delete(child);
    });
    const stop = async (): Promise<void> => {
      if (exitCode !== undefined) return;
      child.kill('SIGTERM');
      try {
        await waitFor(() => exitCode !== undefined, { timeoutMs: 5_000, description: 'kubectl to exit after SIGTERM' });
      } catch {
        child.kill('SIGKILL');
        await waitFor(() => exitCode !== undefined, { timeoutMs: 5_000, description: 'kubectl to exit after SIGKILL' }).catch(() => undefined);
      }
    };
    return {
      stdout: () => stdout,
      stderr: () => stderr,
      get exitCode() {
        return exitCode;
      },
      stop,
    };
  }

  /** Kills every child started with `start` that still runs. */
  stopAll(): void {
    for (const child of this.children) {
      child.kill('SIGKILL');
      liveChildren.delete(child);
    }
    this.children.clear();
  }
}

/** A readable description of a result, for assertion messages. */
export function describeResult(args: readonly string[], result: KubectlResult): string {
  return `kubectl ${args.join(' ')} → exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
}
