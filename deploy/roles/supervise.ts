// Owns: `kstore supervise [flags] -- <command> [args...]`: runs one command as a child process
// (inherited stdio, same process group) and starts it again whenever it exits with the restart
// exit code (75 by default: a `kstore store` whose Raft storage failed), after an exponential
// back-off that starts over once a child stayed up long enough. Every restart is logged to
// stderr with the exit code and the attempt number. SIGTERM and SIGINT are forwarded to the
// child, and the supervisor then exits with the child's exit code; a stop signal during a
// back-off ends the supervisor at once with 0. Any other exit of the child ends the supervisor
// with the child's exit code (128 + the signal number for a child killed by a signal). The
// supervisor never leaves its child behind: it only exits once the child has exited, and the
// child stays in the supervisor's process group, so whoever started the supervisor detached
// (`kstore cluster`) can still find and stop a child whose supervisor was SIGKILLed.
// This module imports nothing of kstore, so a supervisor stays a small process.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

/** The default restart exit code: EX_TEMPFAIL, kstore store's `storeFailedExitCode`. */
export const defaultRestartExitCode = 75;
export const defaultBackoffMinMs = 1_000;
export const defaultBackoffMaxMs = 30_000;
/** A child that ran at least this long before it exited was healthy: the back-off starts over. */
export const defaultStableAfterMs = 60_000;
/** The exit code when the command cannot be started at all (as a shell's "command not found"). */
export const commandNotStartedExitCode = 127;

export const superviseUsage = `Usage: kstore supervise [flags] -- <command> [args...]

Runs <command> as a child process with the same stdin, stdout and stderr, and starts it again
when it exits with the restart exit code (kstore store exits 75 when its Raft storage failed),
after a back-off that doubles from --backoff-min-ms to --backoff-max-ms and starts over once a
child stayed up --stable-after-ms. Each restart is logged to stderr with the exit code and the
attempt number. SIGTERM and SIGINT are forwarded to the child; the supervisor then exits with
the child's exit code (0 when the child died of the forwarded signal itself). A stop signal
during a back-off exits 0 at once. Any other exit of the child ends the supervisor with the
child's code (128 + the signal number when the child was killed by a signal); 127 when the
command cannot be started.

Flags:
  --restart-exit-code <n>   the exit code that means "start me again" (default ${defaultRestartExitCode})
  --backoff-min-ms <n>      delay before the first restart in a row (default ${defaultBackoffMinMs})
  --backoff-max-ms <n>      the doubling delay's ceiling (default ${defaultBackoffMaxMs})
  --stable-after-ms <n>     a child that ran this long resets the back-off (default ${defaultStableAfterMs})
  -h, --help                show this help
`;

export interface SuperviseOptions {
  /** The command to run (looked up on PATH, as by a shell). */
  readonly command: string;
  readonly args: readonly string[];
  readonly restartExitCode: number;
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  readonly stableAfterMs: number;
}

function nonNegativeInteger(value: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > max) throw new Error(`${flag} must be an integer 0..${max}, got ${JSON.stringify(value)}`);
  return n;
}

/**
 * Parses `kstore supervise ...` (the arguments after `supervise`). The command follows `--`, so
 * its own flags are never taken for the supervisor's. Returns undefined for --help.
 */
export function parseSuperviseArgs(args: readonly string[]): SuperviseOptions | undefined {
  const separator = args.indexOf('--');
  const flags = separator < 0 ? args : args.slice(0, separator);
  const command = separator < 0 ? [] : args.slice(separator + 1);
  const values = { restartExitCode: defaultRestartExitCode, backoffMinMs: defaultBackoffMinMs, backoffMaxMs: defaultBackoffMaxMs, stableAfterMs: defaultStableAfterMs };
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i] ?? '';
    if (flag === '-h' || flag === '--help') return undefined;
    const equals = flag.indexOf('=');
    const name = equals < 0 ? flag : flag.slice(0, equals);
    const value = (): string => {
      if (equals >= 0) return flag.slice(equals + 1);
      const next = flags[++i];
      if (next === undefined) throw new Error(`${name} needs a value`);
      return next;
    };
    if (name === '--restart-exit-code') values.restartExitCode = nonNegativeInteger(value(), name, 255);
    else if (name === '--backoff-min-ms') values.backoffMinMs = nonNegativeInteger(value(), name);
    else if (name === '--backoff-max-ms') values.backoffMaxMs = nonNegativeInteger(value(), name);
    else if (name === '--stable-after-ms') values.stableAfterMs = nonNegativeInteger(value(), name);
    else if (separator < 0 && !flag.startsWith('-')) throw new Error(`put -- before the command: kstore supervise [flags] -- ${flag} ...`);
    else throw new Error(`unknown flag ${JSON.stringify(flag)} of kstore supervise`);
  }
  if (values.backoffMaxMs < values.backoffMinMs) throw new Error(`--backoff-max-ms (${values.backoffMaxMs}) must not be below --backoff-min-ms (${values.backoffMinMs})`);
  const [executable, ...rest] = command;
  if (executable === undefined || executable === '') throw new Error('no command to supervise: kstore supervise [flags] -- <command> [args...]');
  return { command: executable, args: rest, ...values };
}

/** The delay before restart number `inARow` (1, 2, ...) since the back-off last started over. */
export function backoffDelayMs(inARow: number, minMs: number, maxMs: number): number {
  return Math.min(maxMs, minMs * 2 ** Math.min(Math.max(inARow - 1, 0), 52));
}

type ChildOutcome =
  | { readonly kind: 'exited'; readonly pid: number; readonly code: number; readonly uptimeMs: number }
  | { readonly kind: 'killed'; readonly pid: number; readonly signal: NodeJS.Signals; readonly uptimeMs: number }
  | { readonly kind: 'not-started'; readonly error: Error };

function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

function describeCommand(command: string, args: readonly string[]): string {
  const words = [command, ...args];
  const text = words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))).join(' ');
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

export type SuperviseLog = (line: string) => void;

const stderrLog: SuperviseLog = (line) => {
  process.stderr.write(`kstore supervise: ${line}\n`);
};

/**
 * Runs the child until it exits with anything but the restart code, or until a stop signal;
 * resolves with the exit code the supervisor should end with. Installs SIGTERM and SIGINT
 * handlers for its whole run and removes them before it resolves.
 */
export async function runSupervise(options: SuperviseOptions, log: SuperviseLog = stderrLog): Promise<number> {
  let stopSignal: NodeJS.Signals | undefined;
  let child: ChildProcess | undefined;
  let endBackoff: (() => void) | undefined;
  const childRunning = (): boolean => child !== undefined && child.exitCode === null && child.signalCode === null;

  const onStopSignal = (signal: NodeJS.Signals): void => {
    stopSignal ??= signal;
    if (childRunning() && child?.pid !== undefined) {
      log(`${signal}: forwarded to pid ${child.pid}`);
      child.kill(signal);
    } else {
      endBackoff?.();
    }
  };
  // Last resort, should the supervisor itself fail: its child does not outlive it.
  const killChildOnExit = (): void => {
    if (childRunning()) child?.kill('SIGKILL');
  };
  process.on('SIGTERM', onStopSignal);
  process.on('SIGINT', onStopSignal);
  process.on('exit', killChildOnExit);

  const runChild = (attempt: number): Promise<ChildOutcome> => new Promise((resolve) => {
    const startedAt = Date.now();
    const started = spawn(options.command, [...options.args], { stdio: 'inherit' });
    child = started;
    let settled = false;
    const settle = (outcome: ChildOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const pid = started.pid;
    if (pid !== undefined) log(`started ${describeCommand(options.command, options.args)} (pid ${pid}, attempt ${attempt})`);
    started.once('error', (error) => {
      if (started.pid === undefined) settle({ kind: 'not-started', error });
    });
    started.once('exit', (code, signal) => {
      const uptimeMs = Date.now() - startedAt;
      if (signal !== null) settle({ kind: 'killed', pid: pid ?? 0, signal, uptimeMs });
      else settle({ kind: 'exited', pid: pid ?? 0, code: code ?? 0, uptimeMs });
    });
    // A stop signal that came while no child ran (between an exit and this start) still stops it.
    if (stopSignal !== undefined && pid !== undefined) started.kill(stopSignal);
  });

  const waitOutBackoff = (delayMs: number): Promise<'elapsed' | 'stopped'> => new Promise((resolve) => {
    if (stopSignal !== undefined) {
      resolve('stopped');
      return;
    }
    const timer = setTimeout(() => {
      endBackoff = undefined;
      resolve('elapsed');
    }, delayMs);
    endBackoff = () => {
      clearTimeout(timer);
      endBackoff = undefined;
      resolve('stopped');
    };
  });

  try {
    let inARow = 0;
    for (let attempt = 1; ; attempt++) {
      const outcome = await runChild(attempt);
      if (outcome.kind === 'not-started') {
        log(`cannot start ${describeCommand(options.command, options.args)}: ${outcome.error.message}`);
        return commandNotStartedExitCode;
      }
      if (stopSignal !== undefined) {
        // Stopping: no restart, whatever the code. A child that died of the signal it was sent stopped cleanly.
        if (outcome.kind === 'killed') {
          const code = outcome.signal === stopSignal ? 0 : signalExitCode(outcome.signal);
          log(`pid ${outcome.pid} ended by ${outcome.signal} after ${stopSignal}; exiting with ${code}`);
          return code;
        }
        log(`pid ${outcome.pid} exited with code ${outcome.code} after ${stopSignal}; exiting with ${outcome.code}`);
        return outcome.code;
      }
      if (outcome.kind === 'killed') {
        const code = signalExitCode(outcome.signal);
        log(`pid ${outcome.pid} was killed by ${outcome.signal} after ${outcome.uptimeMs} ms (attempt ${attempt}); not restarting, exiting with ${code}`);
        return code;
      }
      if (outcome.code !== options.restartExitCode) {
        log(`pid ${outcome.pid} exited with code ${outcome.code} after ${outcome.uptimeMs} ms (attempt ${attempt}); not restarting, exiting with ${outcome.code}`);
        return outcome.code;
      }
      inARow = outcome.uptimeMs >= options.stableAfterMs ? 1 : inARow + 1;
      const delayMs = backoffDelayMs(inARow, options.backoffMinMs, options.backoffMaxMs);
      log(`pid ${outcome.pid} exited with code ${outcome.code} after ${outcome.uptimeMs} ms (attempt ${attempt}); restart ${attempt} (${inARow} in a row) in ${delayMs} ms`);
      if (await waitOutBackoff(delayMs) === 'stopped') {
        log(`${stopSignal ?? 'stop signal'} during the back-off: exiting without a restart`);
        return 0;
      }
    }
  } finally {
    process.off('SIGTERM', onStopSignal);
    process.off('SIGINT', onStopSignal);
    process.off('exit', killChildOnExit);
  }
}

/** `kstore supervise ...`: parses the arguments, prints help, or runs the supervisor. */
export async function runSuperviseCommand(args: readonly string[]): Promise<number> {
  const options = parseSuperviseArgs(args);
  if (options === undefined) {
    process.stdout.write(superviseUsage);
    return 0;
  }
  return runSupervise(options);
}
