// Starts `kstore server` as a child process on a free port with its own data directory,
// captures its output for diagnostics, waits (with a deadline) for its ready line, and stops
// it with SIGTERM or SIGKILL. Every process started here is also killed when the test worker
// exits, so a failing test never leaves a server behind.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { colocatedNodeFlags, experimentNodeFlags, serverNodeFlags } from '../../deploy/node-flags.ts';
import { freePort } from './free-port.ts';
import { waitFor } from './wait-for.ts';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const kstoreExecutable = path.join(repoRoot, 'deploy', 'kstore.mjs');

/**
 * Node's arguments before the kstore executable for a process a test or benchmark starts: for
 * `colocated` members of a cluster on this machine (store members, API replicas) the flags
 * `kstore cluster up` gives them (deploy/node-flags.ts), for `kstore server` the ones `npm start`
 * gives it (serverNodeFlags); then KSTORE_NODE_FLAGS's (experimentNodeFlags, as for `cluster up`).
 */
export function kstoreNodeArgs(colocated: 'colocated' | 'alone'): string[] {
  return [...(colocated === 'colocated' ? colocatedNodeFlags : serverNodeFlags), ...experimentNodeFlags()];
}

export interface KstoreStartOptions {
  readonly dataDir: string;
  /** The HTTPS port; a free one is picked when omitted. */
  readonly port?: number;
  readonly bindAddress?: string;
  readonly tlsSans?: readonly string[];
  /** Deadline for the ready line; default 60 s (the first start creates certificates). */
  readonly readyTimeoutMs?: number;
  /** More `kstore server` flags, e.g. ['--enable-bootstrap-token-auth']. */
  readonly extraArgs?: readonly string[];
}

export interface ExitResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const defaultReadyTimeoutMs = 60_000;
const defaultStopTimeoutMs = 30_000;
/** How often a start is retried when the picked port was taken between picking and binding. */
const portAttempts = 3;

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

interface ProcessState {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  combined: string;
  exit: ExitResult | undefined;
  spawnError: Error | undefined;
}

function launch(args: readonly string[]): ProcessState {
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
  running.add(child);
  const state: ProcessState = { child, stdout: '', stderr: '', combined: '', exit: undefined, spawnError: undefined };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    state.stdout += chunk;
    state.combined += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    state.stderr += chunk;
    state.combined += chunk;
  });
  child.once('error', (error) => {
    state.spawnError = error;
    running.delete(child);
  });
  child.once('exit', (code, signal) => {
    running.delete(child);
    state.exit = { code, signal };
  });
  return state;
}

async function awaitExit(state: ProcessState, timeoutMs: number, description: string): Promise<void> {
  await waitFor(() => state.exit !== undefined || state.spawnError !== undefined, { timeoutMs, description });
}

export class KstoreProcess {
  readonly dataDir: string;
  readonly port: number;
  /** https://host:port from the ready line. */
  readonly url: string;
  /** The admin kubeconfig path the server printed. */
  readonly kubeconfigPath: string;
  private readonly state: ProcessState;

  private constructor(state: ProcessState, dataDir: string, port: number, url: string, kubeconfigPath: string) {
    this.state = state;
    this.dataDir = dataDir;
    this.port = port;
    this.url = url;
    this.kubeconfigPath = kubeconfigPath;
  }

  /** Starts the server and resolves once it printed its ready line; throws with its output otherwise. */
  static async start(options: KstoreStartOptions): Promise<KstoreProcess> {
    let lastError: unknown;
    const attempts = options.port === undefined ? portAttempts : 1;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const host = options.bindAddress === undefined || options.bindAddress === '0.0.0.0' ? '127.0.0.1' : options.bindAddress;
      const port = options.port ?? await freePort(host);
      try {
        return await KstoreProcess.startOn(options, port);
      } catch (error) {
        lastError = error;
        if (!(error instanceof Error && /EADDRINUSE/.test(error.message))) throw error;
      }
    }
    throw lastError;
  }

  private static async startOn(options: KstoreStartOptions, port: number): Promise<KstoreProcess> {
    const args = [...kstoreNodeArgs('alone'), kstoreExecutable, 'server', '--port', String(port), '--data-dir', options.dataDir];
    if (options.bindAddress !== undefined) args.push('--bind-address', options.bindAddress);
    for (const san of options.tlsSans ?? []) args.push('--tls-san', san);
    args.push(...(options.extraArgs ?? []));
    const state = launch(args);
    const describe = (): string =>
      `kstore server ${args.slice(args.indexOf(kstoreExecutable) + 2).join(' ')} (pid ${state.child.pid ?? '?'}) output:\n${state.combined}`;
    const fail = async (message: string): Promise<never> => {
      state.child.kill('SIGKILL');
      await awaitExit(state, 10_000, 'the failed kstore server to exit').catch(() => undefined);
      throw new Error(`${message}\n${describe()}`);
    };
    try {
      await waitFor(() => {
        if (state.spawnError) throw new Error(`could not start: ${state.spawnError.message}`);
        if (/^kstore ready:/m.test(state.stdout)) return true;
        if (state.exit !== undefined) throw new Error(`exited before ready (code ${state.exit.code}, signal ${state.exit.signal})`);
        return false;
      }, { timeoutMs: options.readyTimeoutMs ?? defaultReadyTimeoutMs, description: 'the kstore ready line' });
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
    const readyLine = /^kstore ready: serving (https:\/\/\S+)/m.exec(state.stdout);
    const kubeconfigLine = /^kubeconfig: (.+)$/m.exec(state.stdout);
    if (!readyLine?.[1] || !kubeconfigLine?.[1]) return fail('ready line or kubeconfig line not understood');
    return new KstoreProcess(state, options.dataDir, port, readyLine[1], kubeconfigLine[1].trim());
  }

  get pid(): number | undefined {
    return this.state.child.pid;
  }

  /** Everything the server printed so far (stdout and stderr interleaved). */
  output(): string {
    return this.state.combined;
  }

  stdout(): string {
    return this.state.stdout;
  }

  stderr(): string {
    return this.state.stderr;
  }

  /** Undefined while the process runs. */
  get exit(): ExitResult | undefined {
    return this.state.exit;
  }

  /**
   * Sends `signal` (SIGTERM by default) and waits for the process to exit. If it does not exit
   * in time it is killed with SIGKILL and this throws, with the captured output.
   */
  async stop(options: { signal?: NodeJS.Signals; timeoutMs?: number } = {}): Promise<ExitResult> {
    const signal = options.signal ?? 'SIGTERM';
    if (this.state.exit === undefined) {
      this.state.child.kill(signal);
      try {
        await awaitExit(this.state, options.timeoutMs ?? defaultStopTimeoutMs, `kstore (pid ${this.pid ?? '?'}) to exit after ${signal}`);
      } catch (error) {
        this.state.child.kill('SIGKILL');
        await awaitExit(this.state, 10_000, 'kstore to exit after SIGKILL').catch(() => undefined);
        throw new Error(`${error instanceof Error ? error.message : String(error)}\noutput:\n${this.output()}`);
      }
    }
    return this.state.exit ?? { code: null, signal: null };
  }

  /** Cleanup for afterAll/afterEach: SIGKILL if still running, then wait for the exit. Never throws. */
  async kill(): Promise<void> {
    if (this.state.exit !== undefined) return;
    await this.stop({ signal: 'SIGKILL', timeoutMs: 10_000 }).catch(() => undefined);
  }
}
