// Owns: the end-to-end test of `kstore supervise` as `kstore cluster up` runs it: the real kstore
// executable around a small node child script (in the test's temp dir) that counts its starts in
// a file and exits with a given code for its first N starts, then stays up until SIGTERM. Checks
// restarts on the restart code (and their log lines), SIGTERM forwarded with the supervisor
// exiting 0 and the child gone, a stop during the back-off, and that any other exit (a code, a
// signal) ends the supervisor with the child's code and no restart. Small back-offs keep it fast.
// afterAll SIGKILLs every supervisor and child still alive.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFailedExitCode } from '../../deploy/roles/store.ts';
import { pidAlive } from '../../deploy/roles/cluster.ts';
import { backoffDelayMs, defaultRestartExitCode, parseSuperviseArgs } from '../../deploy/roles/supervise.ts';
import { repoRoot } from '../support/kstore-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const kstore = path.join(repoRoot, 'deploy', 'kstore.mjs');
const exitTimeoutMs = 20_000;

/** argv: <counter file> <pid file> <failing starts> <exit code of a failing start> */
const childScript = `
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
const [counterFile, pidFile, failingStarts, failureCode] = process.argv.slice(2);
const attempt = (existsSync(counterFile) ? Number(readFileSync(counterFile, 'utf8')) : 0) + 1;
writeFileSync(counterFile, String(attempt));
appendFileSync(pidFile, process.pid + '\\n');
if (attempt <= Number(failingStarts)) process.exit(Number(failureCode));
process.on('SIGTERM', () => {
  process.stdout.write('child stopping\\n');
  process.exit(0);
});
setInterval(() => {}, 60_000);
process.stdout.write('child up: attempt ' + attempt + ', pid ' + process.pid + '\\n');
`;

interface Supervised {
  readonly process: ChildProcess;
  readonly counterFile: string;
  readonly pidFile: string;
  stdout: string;
  stderr: string;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}


describe('kstore supervise', () => {
  let dir: TempDir;
  let script: string;
  let runs = 0;
  const started: Supervised[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('kstore-supervise-');
    script = path.join(dir.path, 'child.mjs');
    writeFileSync(script, childScript);
  });

  afterAll(async () => {
    for (const run of started) {
      if (run.exit === undefined) run.process.kill('SIGKILL');
      for (const pid of childPids(run)) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await dir.remove();
  });

  function childPids(run: Supervised): number[] {
    if (!existsSync(run.pidFile)) return [];
    return readFileSync(run.pidFile, 'utf8').split('\n').filter((line) => line !== '').map(Number);
  }

  function attempts(run: Supervised): number {
    return existsSync(run.counterFile) ? Number(readFileSync(run.counterFile, 'utf8')) : 0;
  }

  /** Starts `kstore supervise <flags> -- node child.mjs ...` with the child failing its first `failingStarts` starts with `failureCode`. */
  function supervise(flags: readonly string[], failingStarts: number, failureCode: number): Supervised {
    runs += 1;
    const counterFile = path.join(dir.path, `attempts-${runs}`);
    const pidFile = path.join(dir.path, `pids-${runs}`);
    const child = spawn(process.execPath, [kstore, 'supervise', ...flags, '--', process.execPath, script, counterFile, pidFile, String(failingStarts), String(failureCode)], { cwd: dir.path, stdio: ['ignore', 'pipe', 'pipe'] });
    const run: Supervised = { process: child, counterFile, pidFile, stdout: '', stderr: '', exit: undefined };
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { run.stdout += chunk; });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { run.stderr += chunk; });
    child.once('exit', (code, signal) => { run.exit = { code, signal }; });
    started.push(run);
    return run;
  }

  const output = (run: Supervised) => (): string => `--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;

  function exited(run: Supervised): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return waitFor(() => run.exit, { timeoutMs: exitTimeoutMs, description: 'the supervisor to exit', diagnostics: output(run) });
  }

  it('restarts a child that exits 75, logs each restart, and forwards SIGTERM (the supervisor then exits 0)', async () => {
    const run = supervise(['--backoff-min-ms', '20', '--backoff-max-ms', '40'], 2, 75);
    const upLine = await waitFor(() => /child up: attempt (\d+), pid (\d+)/.exec(run.stdout), { timeoutMs: exitTimeoutMs, description: 'the child to stay up', diagnostics: output(run) });
    expect(upLine[1]).toBe('3');
    expect(attempts(run)).toBe(3);
    const restarts = [...run.stderr.matchAll(/exited with code 75 after \d+ ms \(attempt (\d+)\); restart (\d+) \((\d+) in a row\) in (\d+) ms/g)];
    expect(restarts.map((match) => [match[1], match[2], match[3], match[4]])).toEqual([['1', '1', '1', '20'], ['2', '2', '2', '40']]);
    const pids = childPids(run);
    expect(pids).toHaveLength(3);
    expect(pids[2]).toBe(Number(upLine[2]));

    run.process.kill('SIGTERM');
    expect(await exited(run)).toEqual({ code: 0, signal: null });
    expect(run.stdout).toContain('child stopping');
    expect(run.stderr).toMatch(/SIGTERM: forwarded to pid \d+/);
    for (const pid of pids) expect(pidAlive(pid), `child pid ${pid}`).toBe(false);
    expect(attempts(run)).toBe(3);
  });

  it('starts the back-off over after a child that stayed up --stable-after-ms', async () => {
    // With 0, every child counts as having stayed up: each restart waits the minimum again.
    const run = supervise(['--backoff-min-ms', '20', '--backoff-max-ms', '10000', '--stable-after-ms', '0'], 3, 75);
    await waitFor(() => run.stdout.includes('child up: attempt 4'), { timeoutMs: exitTimeoutMs, description: 'the fourth start', diagnostics: output(run) });
    const delays = [...run.stderr.matchAll(/restart (\d+) \((\d+) in a row\) in (\d+) ms/g)].map((match) => [match[1], match[2], match[3]]);
    expect(delays).toEqual([['1', '1', '20'], ['2', '1', '20'], ['3', '1', '20']]);
    run.process.kill('SIGTERM');
    expect(await exited(run)).toEqual({ code: 0, signal: null });
  });

  it('passes any other exit code on without a restart', async () => {
    const run = supervise(['--backoff-min-ms', '20', '--backoff-max-ms', '40'], 1, 3);
    expect(await exited(run)).toEqual({ code: 3, signal: null });
    expect(attempts(run)).toBe(1);
    expect(run.stderr).toMatch(/exited with code 3 after \d+ ms \(attempt 1\); not restarting, exiting with 3/);
    expect(run.stderr).not.toMatch(/restart \d/);
  });

  it('honours --restart-exit-code', async () => {
    const run = supervise(['--restart-exit-code', '3', '--backoff-min-ms', '20', '--backoff-max-ms', '20'], 1, 3);
    await waitFor(() => run.stdout.includes('child up: attempt 2'), { timeoutMs: exitTimeoutMs, description: 'the restarted child', diagnostics: output(run) });
    run.process.kill('SIGINT');
    // The child has no SIGINT handler: it dies of the forwarded signal, which is a clean stop.
    expect(await exited(run)).toEqual({ code: 0, signal: null });
    expect(run.stderr).toMatch(/ended by SIGINT after SIGINT; exiting with 0/);
  });

  it('exits 0 at once on SIGTERM during a back-off, starting nothing more', async () => {
    const run = supervise(['--backoff-min-ms', '600000', '--backoff-max-ms', '600000'], 1_000, 75);
    await waitFor(() => run.stderr.includes('restart 1 (1 in a row) in 600000 ms'), { timeoutMs: exitTimeoutMs, description: 'the first back-off', diagnostics: output(run) });
    run.process.kill('SIGTERM');
    expect(await exited(run)).toEqual({ code: 0, signal: null });
    expect(run.stderr).toMatch(/SIGTERM during the back-off: exiting without a restart/);
    expect(attempts(run)).toBe(1);
  });

  it('does not restart a child killed by a signal and exits 128 + its number', async () => {
    const run = supervise(['--backoff-min-ms', '20', '--backoff-max-ms', '40'], 0, 75);
    const upLine = await waitFor(() => /child up: attempt 1, pid (\d+)/.exec(run.stdout), { timeoutMs: exitTimeoutMs, description: 'the child', diagnostics: output(run) });
    process.kill(Number(upLine[1]), 'SIGKILL');
    expect(await exited(run)).toEqual({ code: 137, signal: null });
    expect(attempts(run)).toBe(1);
  });

  it('exits 127 when the command cannot be started', async () => {
    const child = spawn(process.execPath, [kstore, 'supervise', '--', path.join(dir.path, 'no-such-command')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(127);
    expect(stderr).toMatch(/cannot start .*no-such-command/);
  });
});

describe('kstore supervise flags and back-off', () => {
  it('restarts on kstore store\'s storage-failure exit code by default', () => {
    expect(defaultRestartExitCode).toBe(storeFailedExitCode);
    expect(parseSuperviseArgs(['--', 'kstore', 'store', '--id', 's1'])).toMatchObject({ command: 'kstore', args: ['store', '--id', 's1'], restartExitCode: 75, backoffMinMs: 1_000, backoffMaxMs: 30_000 });
  });

  it('parses every flag and refuses a missing command or --', () => {
    expect(parseSuperviseArgs(['--restart-exit-code', '3', '--backoff-min-ms=5', '--backoff-max-ms', '50', '--stable-after-ms', '7', '--', 'x', '--restart-exit-code', '9']))
      .toEqual({ command: 'x', args: ['--restart-exit-code', '9'], restartExitCode: 3, backoffMinMs: 5, backoffMaxMs: 50, stableAfterMs: 7 });
    expect(parseSuperviseArgs(['--help'])).toBeUndefined();
    expect(() => parseSuperviseArgs(['x'])).toThrow(/put -- before the command/);
    expect(() => parseSuperviseArgs(['--'])).toThrow(/no command/);
    expect(() => parseSuperviseArgs(['--backoff-min-ms', '10', '--backoff-max-ms', '5', '--', 'x'])).toThrow(/must not be below/);
    expect(() => parseSuperviseArgs(['--restart-exit-code', '256', '--', 'x'])).toThrow(/0\.\.255/);
  });

  it('doubles the delay up to the ceiling', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 100].map((inARow) => backoffDelayMs(inARow, 1_000, 30_000))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });
});
