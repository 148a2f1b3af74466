// End-to-end: `kstore inspect` against a kstore server, as a user runs it (the admin kubeconfig
// through KUBECONFIG): the statechart with the current state marked, what the object waits for,
// the history with users; -o json; --watch following transitions until removal; the errors.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KstoreProcess, repoRoot } from '../support/kstore-process.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: TempDir | undefined;
let server: KstoreProcess | undefined;
let kubectl: Kubectl;

beforeAll(async () => {
  dir = await makeTempDir('kstore-e2e-inspect-');
  server = await KstoreProcess.start({ dataDir: path.join(dir.path, 'data'), extraArgs: ['--enable-bootstrap-token-auth', '--controllers', '*,tokencleaner'] });
  kubectl = new Kubectl({ kubeconfig: server.kubeconfigPath, cacheDir: path.join(dir.path, 'kube-cache') });
});

afterAll(async () => {
  if (server) await server.stop().catch(() => server?.kill());
  await dir?.remove();
});

interface Running {
  stdout(): string;
  readonly exited: Promise<number | null>;
  kill(): void;
}

function inspect(args: readonly string[]): Running {
  const child = spawn(process.execPath, [path.join(repoRoot, 'deploy', 'kstore.mjs'), 'inspect', ...args], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: server!.kubeconfigPath },
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { stdout: () => output, exited, kill: () => child.kill('SIGKILL') };
}

async function run(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const running = inspect(args);
  const code = await running.exited;
  return { code, output: running.stdout() };
}

/** An RFC 3339 time in whole seconds, as a token secret's expiration. */
function utcSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

async function ok(args: readonly string[], input?: string): Promise<void> {
  const result = await kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, describeResult(args, result)).toBe(0);
}

describe('kstore inspect', () => {
  it('draws the deletion machine with the current state marked, what it waits for, and the history with users', async () => {
    await ok(['create', 'namespace', 'team-a']);
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'team-a', finalizers: ['example.com/cleanup'] }, data: { a: 'b' } }));
    await ok(['delete', 'configmap', 'settings', '-n', 'team-a', '--wait=false']);
    const { code, output } = await run(['cm', 'settings', '-n', 'team-a']);
    expect(code, output).toBe(0);
    const lines = output.split('\n');
    expect(lines[0]).toMatch(/^ConfigMap team-a\/settings \(v1, uid [0-9a-f-]{36}, resourceVersion \d+\)$/);
    expect(lines).toContain('deletion machine: finalizing');
    expect(lines).toContain('  finalizing: waiting for finalizers example.com/cleanup');
    expect(lines.filter((line) => line.startsWith('  ▶'))).toEqual([expect.stringMatching(/^ {2}▶ finalizing\s+deletionTimestamp set/)]);
    expect(lines).toContain('        DELETE [finalizers remain] → finalizing');
    const history = lines.slice(lines.indexOf('  history:') + 1).filter((line) => line.trim() !== '');
    expect(history[0]).toMatch(/^ {4}REVISION\s+TIME\s+EVENT\s+FROM\s+TO\s+USER$/);
    expect(history.slice(1).map((line) => line.trim().split(/\s+/).slice(2))).toEqual([
      ['CREATE', '-', 'live', 'kstore-admin'],
      ['DELETE', 'live', 'finalizing', 'kstore-admin'],
    ]);
  });

  it('-o json prints the ObjectLifecycle the API returns', async () => {
    const { code, output } = await run(['namespace', 'team-a', '-o', 'json']);
    expect(code, output).toBe(0);
    const document = JSON.parse(output) as { kind: string; machines: { name: string; state: string; waitingFor: string }[] };
    expect(document.kind).toBe('ObjectLifecycle');
    expect(document.machines).toEqual([expect.objectContaining({ name: 'deletion', state: 'live', waitingFor: 'live: waiting for a delete (then finalizing until finalizers kubernetes are removed)' })]);
  });

  it('--watch prints each transition and ends when the object is removed', async () => {
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', namespace: 'team-a', finalizers: ['example.com/hold'] } }));
    const watching = inspect(['configmap', 'watched', '-n', 'team-a', '--watch']);
    try {
      await waitFor(() => watching.stdout().includes('deletion machine: live'), { timeoutMs: 50_000, description: 'the first view', diagnostics: watching.stdout });
      await ok(['delete', 'configmap', 'watched', '-n', 'team-a', '--wait=false']);
      await waitFor(() => watching.stdout().includes('--- MODIFIED ---'), { timeoutMs: 20_000, description: 'the finalizing transition', diagnostics: watching.stdout });
      await ok(['patch', 'configmap', 'watched', '-n', 'team-a', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      expect(await watching.exited, watching.stdout()).toBe(0);
      const output = watching.stdout();
      expect(output).toContain('--- DELETED ---');
      expect(output.slice(output.indexOf('--- DELETED ---'))).toContain('deletion machine: removed');
      expect(output.slice(output.indexOf('--- DELETED ---'))).toMatch(/FINALIZERS_CHANGED\s+finalizing\s+removed\s+kstore-admin/);
    } finally {
      watching.kill();
    }
  });

  it('--watch follows a bootstrap token secret: token machine valid, expired by the leader, deleted by the token cleaner', async () => {
    // A far expiration, so the valid view is seen however slow the machine; then the expiration
    // is moved into the past and the leader's token expirer (re-planned by the update) expires it.
    const expiration = utcSeconds(Date.now() + 3_600_000);
    await ok(['create', 'secret', 'generic', 'bootstrap-token-inspec', '-n', 'kube-system', '--type', 'bootstrap.kubernetes.io/token',
      '--from-literal=token-id=inspec', '--from-literal=token-secret=0123456789abcdef', `--from-literal=expiration=${expiration}`, '--from-literal=usage-bootstrap-authentication=true']);
    const watching = inspect(['secret', 'bootstrap-token-inspec', '-n', 'kube-system', '-w']);
    try {
      await waitFor(() => watching.stdout().includes('token machine: valid'), { timeoutMs: 50_000, description: 'the token machine, valid', diagnostics: watching.stdout });
      expect(watching.stdout()).toContain(`  valid: waiting for the expiration ${expiration}`);
      const past = utcSeconds(Date.now() - 60_000);
      await ok(['patch', 'secret', 'bootstrap-token-inspec', '-n', 'kube-system', '--type=merge', '-p', JSON.stringify({ data: { expiration: Buffer.from(past).toString('base64') } })]);
      // The watch ends by itself once the token cleaner removed the expired secret.
      let code: number | null | undefined;
      void watching.exited.then((exitCode) => { code = exitCode; });
      await waitFor(() => code !== undefined, { timeoutMs: 60_000, description: 'inspect -w to end with the removal', diagnostics: watching.stdout });
      expect(code, watching.stdout()).toBe(0);
      const output = watching.stdout();
      expect(output).toContain('token machine: expired');
      const last = output.slice(output.lastIndexOf('--- DELETED ---'));
      expect(last).toContain('token machine: deleted');
      expect(last).toMatch(/EXPIRATION_CHANGED\s+valid\s+valid\s+kstore-admin/);
      expect(last).toMatch(/EXPIRE\s+valid\s+expired\s+system:serviceaccount:kube-system:/);
      expect(last).toMatch(/DELETE\s+expired\s+deleted\s+system:serviceaccount:kube-system:token-cleaner/);
      // The token's secret half never appears.
      expect(output).not.toContain('0123456789abcdef');
    } finally {
      watching.kill();
    }
  });

  it('a missing object, an unknown resource and missing arguments fail with a message', async () => {
    const missing = await run(['configmap', 'nope', '-n', 'team-a']);
    expect(missing.code).toBe(1);
    expect(missing.output.trim()).toBe('Error from server (NotFound): configmaps "nope" not found');
    const unknown = await run(['widgets', 'x']);
    expect(unknown.code).toBe(1);
    expect(unknown.output.trim()).toBe('kstore: the server doesn\'t have a resource type "widgets"');
    const incomplete = await run(['configmap']);
    expect(incomplete.code).toBe(1);
    expect(incomplete.output).toContain('expected <resource> <name>');
  });
});
