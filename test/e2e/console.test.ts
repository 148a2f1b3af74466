// End-to-end: the web console in headless Chromium (Debian's chromium driven by playwright-core)
// against a kstore server, reached the documented way — through `kubectl proxy`, which adds the
// kubeconfig's credentials. The cluster page shows the member; an object's page highlights its
// current lifecycle state and follows it live while kubectl changes the object. Screenshots go to
// test-results/console-*.png.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KstoreProcess, repoRoot } from '../support/kstore-process.ts';
import { defaultKubectlBinary, describeResult, Kubectl } from '../support/kubectl.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const chromiumPath = process.env.KSTORE_CHROMIUM ?? '/usr/bin/chromium';
const screenshots = path.join(repoRoot, 'test-results');

let dir: TempDir | undefined;
let server: KstoreProcess | undefined;
let proxy: ChildProcess | undefined;
let proxyUrl = '';
let browser: Browser | undefined;
let kubectl: Kubectl;

async function startProxy(kubeconfig: string): Promise<string> {
  const child = spawn(defaultKubectlBinary(), ['proxy', '--port=0', '--address=127.0.0.1'], { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
  proxy = child;
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const address = await waitFor(() => /Starting to serve on (127\.0\.0\.1:\d+)/.exec(output)?.[1], { timeoutMs: 20_000, description: 'kubectl proxy to listen', diagnostics: () => output });
  return `http://${address}`;
}

async function ok(args: readonly string[], input?: string): Promise<void> {
  const result = await kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, describeResult(args, result)).toBe(0);
}

async function currentState(page: Page): Promise<string | null> {
  return page.locator('svg g.state.current').first().getAttribute('data-state', { timeout: 1_000 }).catch(() => null);
}

/** An RFC 3339 time in whole seconds, as a token secret's expiration. */
function utcSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

const present = existsSync(chromiumPath);

describe.skipIf(!present)(`the web console in headless Chromium (${chromiumPath})`, () => {
  beforeAll(async () => {
    dir = await makeTempDir('kstore-e2e-console-');
    server = await KstoreProcess.start({ dataDir: path.join(dir.path, 'data'), extraArgs: ['--enable-bootstrap-token-auth', '--controllers', '*,tokencleaner'] });
    kubectl = new Kubectl({ kubeconfig: server.kubeconfigPath, cacheDir: path.join(dir.path, 'kube-cache') });
    proxyUrl = await startProxy(server.kubeconfigPath);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    await mkdir(screenshots, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    proxy?.kill('SIGKILL');
    if (server) await server.stop().catch(() => server?.kill());
    await dir?.remove();
  });

  it('the cluster page shows the store member with its role, term and indexes, and the API replica', async () => {
    const page = await browser!.newPage();
    try {
      await page.goto(`${proxyUrl}/console/#/cluster`);
      const row = page.locator('#members tbody tr').first();
      await row.waitFor({ timeout: 15_000 });
      const cells = await row.locator('td').allTextContents();
      expect(cells.slice(0, 2)).toEqual(['kstore-0', 'leader']);
      expect(Number(cells[3])).toBeGreaterThan(0);
      expect(await page.locator('h1').textContent()).toBe('Cluster — leader kstore-0');
      expect(await page.locator('#replicas tbody tr td').first().textContent()).toBe('kstore server (this one)');
      await page.screenshot({ path: path.join(screenshots, 'console-cluster.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('an object page highlights the current state and follows transitions made with kubectl', async () => {
    await ok(['create', 'namespace', 'console']);
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shown', namespace: 'console', finalizers: ['example.com/cleanup'] }, data: { a: 'b' } }));
    const page = await browser!.newPage();
    try {
      await page.goto(`${proxyUrl}/console/#/object?path=${encodeURIComponent('/api/v1/namespaces/console/configmaps/shown')}`);
      await waitFor(async () => (await currentState(page)) === 'live', { timeoutMs: 15_000, description: 'live highlighted' });
      expect(await page.locator('#waiting-deletion').textContent()).toBe('live — live: waiting for a delete (then finalizing until finalizers example.com/cleanup are removed)');
      expect(await page.locator('#live').textContent()).toBe('● live');
      await page.screenshot({ path: path.join(screenshots, 'console-object-live.png'), fullPage: true });

      await ok(['delete', 'configmap', 'shown', '-n', 'console', '--wait=false']);
      await waitFor(async () => (await currentState(page)) === 'finalizing', { timeoutMs: 15_000, description: 'finalizing highlighted' });
      expect(await page.locator('#waiting-deletion').textContent()).toBe('finalizing — finalizing: waiting for finalizers example.com/cleanup');
      const rows = await page.locator('#history-deletion tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      expect(rows.map((row) => [row[2], row[3], row[4], row[5]])).toEqual([['CREATE', '-', 'live', 'kstore-admin'], ['DELETE', 'live', 'finalizing', 'kstore-admin']]);
      await page.screenshot({ path: path.join(screenshots, 'console-object-finalizing.png'), fullPage: true });

      await ok(['patch', 'configmap', 'shown', '-n', 'console', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      await waitFor(async () => (await currentState(page)) === 'removed', { timeoutMs: 15_000, description: 'removed highlighted' });
      await waitFor(async () => (await page.locator('#live').textContent()) === '○ not following', { timeoutMs: 15_000, description: 'the page to stop following' });
      await page.screenshot({ path: path.join(screenshots, 'console-object-removed.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('a bootstrap token secret\'s page shows its token machine go from valid to expired, then the removal by the token cleaner', async () => {
    // A far expiration, so the valid state is seen however slow the machine; then the expiration
    // is moved into the past and the leader's token expirer (re-planned by the update) expires it.
    const expiration = utcSeconds(Date.now() + 3_600_000);
    await ok(['create', 'secret', 'generic', 'bootstrap-token-consol', '-n', 'kube-system', '--type', 'bootstrap.kubernetes.io/token',
      '--from-literal=token-id=consol', '--from-literal=token-secret=0123456789abcdef', `--from-literal=expiration=${expiration}`, '--from-literal=usage-bootstrap-authentication=true']);
    const page = await browser!.newPage();
    const tokenState = async (): Promise<string | null> => page.locator('[data-machine="token"] svg g.state.current').first().getAttribute('data-state', { timeout: 1_000 }).catch(() => null);
    try {
      await page.goto(`${proxyUrl}/console/#/object?path=${encodeURIComponent('/api/v1/namespaces/kube-system/secrets/bootstrap-token-consol')}`);
      await waitFor(async () => (await tokenState()) === 'valid', { timeoutMs: 15_000, description: 'the token machine, valid' });
      expect(await page.locator('#waiting-token').textContent()).toBe(`valid — valid: waiting for the expiration ${expiration}`);
      await page.screenshot({ path: path.join(screenshots, 'console-token-valid.png'), fullPage: true });
      const past = utcSeconds(Date.now() - 60_000);
      await ok(['patch', 'secret', 'bootstrap-token-consol', '-n', 'kube-system', '--type=merge', '-p', JSON.stringify({ data: { expiration: Buffer.from(past).toString('base64') } })]);
      // The leader's token expirer commits the expiry; the page follows.
      await waitFor(async () => (await tokenState()) === 'expired' || (await currentState(page)) === 'removed', { timeoutMs: 30_000, intervalMs: 100, description: 'the token to expire' });
      await page.screenshot({ path: path.join(screenshots, 'console-token-expired.png'), fullPage: true });
      // tokencleaner deletes the expired secret: both machines reach their final state.
      await waitFor(async () => (await page.locator('#live').textContent()) === '○ not following', { timeoutMs: 30_000, description: 'the removal' });
      expect(await tokenState()).toBe('deleted');
      const history = await page.locator('#history-token tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      expect(history.map((row) => [row[2], row[3], row[4]])).toEqual([
        ['CREATE', '-', 'valid'], ['EXPIRATION_CHANGED', 'valid', 'valid'], ['EXPIRE', 'valid', 'expired'], ['DELETE', 'expired', 'deleted'],
      ]);
      await page.screenshot({ path: path.join(screenshots, 'console-token-deleted.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('an unknown object shows the API\'s error', async () => {
    const page = await browser!.newPage();
    try {
      await page.goto(`${proxyUrl}/console/#/object?path=${encodeURIComponent('/api/v1/namespaces/console/configmaps/absent')}`);
      await page.locator('p.error').waitFor({ timeout: 15_000 });
      expect(await page.locator('p.error').textContent()).toContain('404');
    } finally {
      await page.close();
    }
  });
});
