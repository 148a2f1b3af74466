// Starts `kstore store` members as child processes for the multi-process Raft-over-NATS tests:
// captures their output for diagnostics, waits (with a deadline) for the ready line, and stops
// them with SIGTERM or SIGKILL; a member can be started again on the same data directory.
// Every process started here is killed when the test worker exits.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { kstoreNodeArgs, repoRoot } from '../support/kstore-process.ts';
import { waitFor } from '../support/wait-for.ts';

const kstoreExecutable = path.join(repoRoot, 'deploy', 'kstore.mjs');
const readyTimeoutMs = 30_000;
const stopTimeoutMs = 15_000;

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface StoreMemberOptions {
  readonly id: string;
  readonly peers: readonly string[];
  readonly natsUrls: readonly string[];
  readonly dataDir: string;
  readonly cluster: string;
  readonly tickMs?: number;
}

export class StoreMemberProcess {
  readonly options: StoreMemberOptions;
  #child: ChildProcess | undefined;
  #output = '';
  #exited = true;
  #starts = 0;

  constructor(options: StoreMemberOptions) {
    this.options = options;
  }

  get id(): string {
    return this.options.id;
  }

  get running(): boolean {
    return !this.#exited;
  }

  output(): string {
    return this.#output;
  }

  /** Starts the member and resolves once it printed its ready line. */
  async start(): Promise<void> {
    if (!this.#exited) throw new Error(`store member ${this.id} is already running`);
    const { options } = this;
    const args = [...kstoreNodeArgs('colocated'), kstoreExecutable, 'store', '--id', options.id, '--peers', options.peers.join(','), '--nats', options.natsUrls.join(','),
      '--data-dir', options.dataDir, '--cluster', options.cluster];
    if (options.tickMs !== undefined) args.push('--tick-ms', String(options.tickMs));
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#starts += 1;
    const start = this.#starts;
    this.#child = child;
    this.#exited = false;
    running.add(child);
    let stdout = '';
    const append = (stream: 'out' | 'err') => (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      if (stream === 'out') stdout += text;
      this.#output += text;
    };
    child.stdout?.on('data', append('out'));
    child.stderr?.on('data', append('err'));
    child.once('error', (error) => {
      this.#output += `spawn error: ${error.message}\n`;
      this.#exited = true;
      running.delete(child);
    });
    child.once('exit', (code, signal) => {
      this.#output += `[start ${start}] exited: code ${String(code)} signal ${String(signal)}\n`;
      this.#exited = true;
      running.delete(child);
    });
    await waitFor(() => {
      if (this.#exited) throw new Error(`store member ${this.id} exited before ready`);
      return /^kstore store ready:/m.test(stdout);
    }, { timeoutMs: readyTimeoutMs, description: `store member ${this.id} ready line`, diagnostics: () => this.#output });
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exited) return;
    child.kill(signal);
    try {
      await waitFor(() => this.#exited, { timeoutMs: stopTimeoutMs, description: `store member ${this.id} to exit after ${signal}`, diagnostics: () => this.#output });
    } catch (error) {
      child.kill('SIGKILL');
      await waitFor(() => this.#exited, { timeoutMs: stopTimeoutMs, description: `store member ${this.id} to exit after SIGKILL` });
      throw error;
    }
  }

  /** Sends a signal without waiting (SIGSTOP/SIGCONT to pause and resume the member). */
  signal(signal: NodeJS.Signals): void {
    if (this.#child !== undefined && !this.#exited) this.#child.kill(signal);
  }

  /** Cleanup: SIGKILL if running. Never throws. */
  async kill(): Promise<void> {
    await this.stop('SIGKILL').catch(() => undefined);
  }
}
