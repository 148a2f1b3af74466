// The --authorization-config file reloaded as kube-apiserver does: a valid change replaces the
// chain; an invalid file, a reload that drops a built-in type the server started with, or one
// that adds Node/RBAC it did not start with keeps the old chain and counts a failure; the
// same bytes are not reread into a second failure; built-in authorizers are built once; changes
// are picked up by the file watcher; kube's reload and decision series.
import { writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthorizationConfigReloader, AuthorizationMetrics, apiServerIdHash } from '../../../api/auth/authorization-config-reloader.ts';
import type { ReloadLogger } from '../../../api/auth/authorization-config-reloader.ts';
import type { AuthorizerFactories } from '../../../api/auth/authorization-config.ts';
import type { AuthorizationAttributes, Authorizer, Decision } from '../../../api/auth/authz.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';
import { waitFor } from '../../support/wait-for.ts';

const attributes: AuthorizationAttributes = {
  user: { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} }, verb: 'list', isResourceRequest: true, path: '/api/v1/pods',
  apiGroup: '', apiVersion: 'v1', namespace: '', resource: 'pods', subresource: '', name: '',
};
const header = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n';

let dir: TempDir;
let file = '';
let kubeconfig = '';
const reloaders: AuthorizationConfigReloader[] = [];

beforeEach(async () => {
  dir = await makeTempDir('kstore-authz-reload-');
  file = path.join(dir.path, 'authorization.yaml');
  kubeconfig = path.join(dir.path, 'webhook.kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
});
afterEach(async () => {
  for (const reloader of reloaders.splice(0)) reloader.close();
  await dir.remove();
});

function webhook(name: string): string {
  return `- type: Webhook\n  name: ${name}\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: NoOpinion\n`
    + `    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: ${kubeconfig}\n`;
}

interface Harness {
  readonly reloader: AuthorizationConfigReloader;
  readonly metrics: AuthorizationMetrics;
  readonly errors: string[];
  readonly built: string[];
}

async function start(yaml: string, decisions: Record<string, Decision>, options: { watch?: boolean } = {}): Promise<Harness> {
  writeFileSync(file, header + yaml);
  const errors: string[] = [];
  const built: string[] = [];
  const logger: ReloadLogger = { info: () => undefined, error: (message) => errors.push(message) };
  const fake = (name: string): Authorizer => ({ name, authorize: () => ({ decision: decisions[name] ?? 'noOpinion', reason: `${name}'s reason` }) });
  const factories: AuthorizerFactories = {
    rbac: () => {
      built.push('rbac');
      return fake('rbac');
    },
    node: () => {
      built.push('node');
      return fake('node');
    },
    webhook: (config) => {
      built.push(config.name);
      return fake(config.name);
    },
  };
  const metrics = new AuthorizationMetrics(undefined, () => 1_700_000_000_000);
  const reloader = await AuthorizationConfigReloader.start({
    file, factories, metrics, apiServerId: 'apiserver-1', logger, watch: options.watch ?? false, intervalMs: 3_600_000,
  });
  reloaders.push(reloader);
  return { reloader, metrics, errors, built };
}

async function series(metrics: AuthorizationMetrics, name: string): Promise<string[]> {
  const text = await metrics.registry.metrics();
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

const hash = apiServerIdHash('apiserver-1');

describe('AuthorizationConfigReloader', () => {
  it('refuses an invalid file at startup with kube\'s error', async () => {
    writeFileSync(file, `${header}- type: RBAC\n  name: rbac-main\n`);
    await expect(AuthorizationConfigReloader.start({ file, factories: { webhook: () => ({ name: 'w', authorize: () => ({ decision: 'allow', reason: '' }) }) }, watch: false }))
      .rejects.toThrow('expected name rbac for authorizer RBAC instead of rbac-main');
  });

  it('a valid change replaces the chain and is counted as a success', async () => {
    const { reloader, metrics, built } = await start(`- type: RBAC\n  name: rbac\n${webhook('first')}`, { second: 'allow' });
    expect(reloader.chain.map((authorizer) => authorizer.name)).toEqual(['system:masters', 'rbac', 'first']);
    expect((await reloader.authorizer.authorize(attributes)).decision).toBe('noOpinion');
    await writeFile(file, `${header}${webhook('second')}- type: RBAC\n  name: rbac\n`);
    expect(await reloader.reloadNow()).toBe('reloaded');
    expect(reloader.chain.map((authorizer) => authorizer.name)).toEqual(['system:masters', 'second', 'rbac']);
    expect(await reloader.authorizer.authorize(attributes)).toEqual({ decision: 'allow', reason: 'second\'s reason' });
    expect(built).toEqual(['rbac', 'first', 'second']);
    expect(await series(metrics, 'apiserver_authorization_config_controller_automatic_reloads_total'))
      .toEqual([`apiserver_authorization_config_controller_automatic_reloads_total{status="success",apiserver_id_hash="${hash}"} 1`]);
    expect(await series(metrics, 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds'))
      .toEqual([`apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{status="success",apiserver_id_hash="${hash}"} 1700000000`]);
    expect(await series(metrics, 'apiserver_authorization_decisions_total'))
      .toEqual(['apiserver_authorization_decisions_total{type="Webhook",name="second",decision="allowed"} 1']);
    expect(await reloader.reloadNow()).toBe('unchanged');
  });

  it('an invalid file keeps the old chain, is logged and counted once per change', async () => {
    const { reloader, metrics, errors } = await start(`- type: RBAC\n  name: rbac\n${webhook('gate')}`, { gate: 'allow' });
    await writeFile(file, `${header}- type: RBAC\n  name: rbac\n- type: Webhook\n  name: gate\n  webhook:\n    timeout: 1m\n`);
    expect(await reloader.reloadNow()).toBe('failed');
    expect(await reloader.reloadNow()).toBe('unchanged');
    expect(reloader.chain.map((authorizer) => authorizer.name)).toEqual(['system:masters', 'rbac', 'gate']);
    expect((await reloader.authorizer.authorize(attributes)).decision).toBe('allow');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^reloading authorization config: \[authorizers\[1\]\.timeout: Invalid value: "1m0s": must be > 0s and <= 30s, /);
    expect(await series(metrics, 'apiserver_authorization_config_controller_automatic_reloads_total'))
      .toEqual([`apiserver_authorization_config_controller_automatic_reloads_total{status="failure",apiserver_id_hash="${hash}"} 1`]);
  });

  it('a reload that drops RBAC is refused as kube refuses it', async () => {
    const { reloader, errors } = await start(`- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n`, { rbac: 'allow' });
    await writeFile(file, `${header}- type: Node\n  name: node\n${webhook('only')}`);
    expect(await reloader.reloadNow()).toBe('failed');
    expect(errors).toEqual(['reloading authorization config: missing required types: [RBAC]']);
    expect(reloader.chain.map((authorizer) => authorizer.name)).toEqual(['system:masters', 'node', 'rbac']);
    expect((await reloader.authorizer.authorize(attributes)).decision).toBe('allow');
  });

  it('a reload that adds Node the server did not start with is refused; built-in authorizers are built once', async () => {
    const { reloader, errors, built } = await start(`- type: RBAC\n  name: rbac\n`, {});
    await writeFile(file, `${header}- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n`);
    expect(await reloader.reloadNow()).toBe('failed');
    expect(errors).toEqual(['reloading authorization config: authorizer type Node is not allowed if it was not enabled at initial server startup']);
    await writeFile(file, `${header}${webhook('extra')}- type: RBAC\n  name: rbac\n`);
    expect(await reloader.reloadNow()).toBe('reloaded');
    expect(built).toEqual(['rbac', 'extra']);
  });

  it('an unreadable file is a failure each time it is checked', async () => {
    const { reloader, metrics } = await start(`- type: RBAC\n  name: rbac\n`, {});
    await rename(file, `${file}.gone`);
    expect(await reloader.reloadNow()).toBe('failed');
    expect(await reloader.reloadNow()).toBe('failed');
    expect(await series(metrics, 'apiserver_authorization_config_controller_automatic_reloads_total'))
      .toEqual([`apiserver_authorization_config_controller_automatic_reloads_total{status="failure",apiserver_id_hash="${hash}"} 2`]);
    expect(reloader.chain.map((authorizer) => authorizer.name)).toEqual(['system:masters', 'rbac']);
  });

  it('picks up a file replaced on disk through the watcher', async () => {
    const { reloader } = await start(`- type: RBAC\n  name: rbac\n${webhook('before')}`, { after: 'allow' }, { watch: true });
    const replacement = path.join(dir.path, 'next.yaml');
    await writeFile(replacement, `${header}- type: RBAC\n  name: rbac\n${webhook('after')}`);
    await rename(replacement, file);
    await waitFor(() => reloader.chain.some((authorizer) => authorizer.name === 'after'), { timeoutMs: 10_000, description: 'the watcher to reload the chain' });
    expect((await reloader.authorizer.authorize(attributes)).decision).toBe('allow');
  });

  it('hashes the server identity as kube does', () => {
    expect(apiServerIdHash('')).toBe('');
    expect(apiServerIdHash('apiserver-1')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
