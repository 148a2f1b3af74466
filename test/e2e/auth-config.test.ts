// End to end against a real `kstore server` configured by files instead of flags:
// --authentication-config (AuthenticationConfiguration: anonymous allowed on /livez only) and
// --authorization-config (AuthorizationConfiguration: Node, RBAC, then a SubjectAccessReview
// webhook behind a CEL matchCondition, failurePolicy Deny). A request the condition excludes
// never reaches the webhook; a webhook that times out fails closed (500); the file is reloaded
// when it changes, an invalid new file keeps the previous chain and counts a failure, and the
// authorizer metrics count decisions as kube-apiserver names them. kube-apiserver's start-up
// refusals of conflicting flags and invalid files are kept too.
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KstoreProcess } from '../support/kstore-process.ts';
import { httpsRequest, readKubeconfig } from '../support/kube-client.ts';
import type { HttpResponse, KubeconfigCredentials } from '../support/kube-client.ts';
import { runKstoreCli } from '../support/kstore-cli.ts';
import { startReviewWebhook } from '../support/review-webhook.ts';
import type { ReviewWebhook } from '../support/review-webhook.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const tokens = { webhookUser: 'webhook-user-token-3e8a1c', otherUser: 'other-user-token-9d2f7b', slowUser: 'slow-user-token-4c6e1a' };

let dir: TempDir;
let server: KstoreProcess;
let admin: KubeconfigCredentials;
let webhook: ReviewWebhook;
let authorizationConfigFile: string;
let webhookKubeconfig: string;

function authorizationConfig(matchUser: string, timeout = '2s'): string {
  return stringify({
    apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration',
    authorizers: [
      { type: 'Node', name: 'node' },
      { type: 'RBAC', name: 'rbac' },
      {
        type: 'Webhook', name: 'policy-webhook',
        webhook: {
          timeout, authorizedTTL: '1ms', unauthorizedTTL: '1ms', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'Deny',
          connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: webhookKubeconfig },
          matchConditions: [{ expression: `request.user == '${matchUser}' || request.user == 'slow-user'` }, { expression: "has(request.resourceAttributes) && request.resourceAttributes.resource == 'configmaps'" }],
        },
      },
    ],
  });
}

/** Replaces the file the way config management does: write aside, then rename over it. */
async function replaceConfig(content: string): Promise<void> {
  const aside = `${authorizationConfigFile}.new`;
  await writeFile(aside, content);
  await rename(aside, authorizationConfigFile);
}

const asToken = (token: string, requestPath: string): Promise<HttpResponse> =>
  httpsRequest(admin.server, { ca: admin.ca }, { path: requestPath, headers: { authorization: `Bearer ${token}` } });

async function metric(name: string, labels: string): Promise<number> {
  const response = await httpsRequest(admin.server, admin, { path: '/metrics', headers: { accept: 'text/plain' } });
  const line = response.body.split('\n').find((entry) => entry.startsWith(`${name}{`) && labels.split(',').every((label) => entry.includes(label)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

beforeAll(async () => {
  dir = await makeTempDir('kstore-auth-config-');
  webhook = await startReviewWebhook();
  webhook.answer((review) => {
    const user = (review['spec'] as { user?: string }).user;
    if (user === 'slow-user') return { hang: true };
    return { json: { apiVersion: review['apiVersion'], kind: 'SubjectAccessReview', status: { allowed: true, reason: 'policy webhook allows' } } };
  });
  webhookKubeconfig = await webhook.writeKubeconfig();
  authorizationConfigFile = path.join(dir.path, 'authorization.yaml');
  await writeFile(authorizationConfigFile, authorizationConfig('webhook-user'));
  const authenticationConfigFile = path.join(dir.path, 'authentication.yaml');
  await writeFile(authenticationConfigFile, stringify({
    apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration', anonymous: { enabled: true, conditions: [{ path: '/livez' }] },
  }));
  const tokenFile = path.join(dir.path, 'tokens.csv');
  await writeFile(tokenFile, `${tokens.webhookUser},webhook-user,1\n${tokens.otherUser},other-user,2\n${tokens.slowUser},slow-user,3\n`);
  server = await KstoreProcess.start({
    dataDir: path.join(dir.path, 'data'),
    extraArgs: ['--authorization-config', authorizationConfigFile, '--authentication-config', authenticationConfigFile, '--token-auth-file', tokenFile],
  });
  admin = await readKubeconfig(server.kubeconfigPath);
}, 120_000);

afterAll(async () => {
  if (server) await server.stop().catch(() => server.kill());
  await webhook?.close();
  await dir?.remove();
});

describe('--authentication-config', () => {
  it('allows anonymous requests on the configured paths only', async () => {
    expect((await httpsRequest(admin.server, { ca: admin.ca }, { path: '/livez' })).status).toBe(200);
    for (const other of ['/readyz', '/version', '/api']) {
      const response = await httpsRequest(admin.server, { ca: admin.ca }, { path: other });
      expect(response.status, other).toBe(401);
    }
  });
});

describe('--authorization-config', () => {
  it('asks the webhook only for requests its matchConditions select; system:masters and RBAC come first', async () => {
    const before = webhook.received.length;
    expect((await asToken(tokens.webhookUser, '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    const excludedByUser = await asToken(tokens.otherUser, '/api/v1/namespaces/default/configmaps');
    expect(excludedByUser.status).toBe(403);
    const excludedByResource = await asToken(tokens.webhookUser, '/api/v1/namespaces/default/secrets');
    expect(excludedByResource.status).toBe(403);
    expect(webhook.received.slice(before).map((review) => (review.body['spec'] as { user: string }).user)).toEqual(['webhook-user']);
    expect((await httpsRequest(admin.server, admin, { path: '/api/v1/namespaces/default/secrets' })).status).toBe(200);
    expect(await metric('apiserver_authorization_decisions_total', 'type="Webhook",name="policy-webhook",decision="allowed"')).toBeGreaterThanOrEqual(1);
  });

  it('fails closed when the webhook times out (failurePolicy Deny: 500, as kube-apiserver)', async () => {
    const response = await asToken(tokens.slowUser, '/api/v1/namespaces/default/configmaps');
    expect(response.status).toBe(500);
    expect(response.body).toMatch(/^Internal Server Error: "\/api\/v1\/namespaces\/default\/configmaps": /);
  });

  it('reloads the file when it changes; an invalid file keeps the previous chain and counts a failure', async () => {
    await replaceConfig(authorizationConfig('other-user'));
    await waitFor(async () => (await asToken(tokens.otherUser, '/api/v1/namespaces/default/configmaps')).status === 200,
      { timeoutMs: 30_000, description: 'the new matchCondition to take effect', diagnostics: () => server.output().slice(-3000) });
    expect(await metric('apiserver_authorization_config_controller_automatic_reloads_total', 'status="success"')).toBeGreaterThanOrEqual(1);
    const failuresBefore = await metric('apiserver_authorization_config_controller_automatic_reloads_total', 'status="failure"');
    await replaceConfig(authorizationConfig('webhook-user', '45s'));
    await waitFor(async () => (await metric('apiserver_authorization_config_controller_automatic_reloads_total', 'status="failure"')) > failuresBefore,
      { timeoutMs: 30_000, description: 'the invalid file to be refused', diagnostics: () => server.output().slice(-3000) });
    expect((await asToken(tokens.otherUser, '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect(server.output()).toContain('timeout');
  });
});

describe('start-up refusals', () => {
  const start = (args: readonly string[]) => runKstoreCli(['server', '--data-dir', path.join(dir.path, `refused-${args.length}`), '--port', '0', ...args], 60_000);

  it('refuses --authorization-config with --authorization-mode, and --authentication-config\'s anonymous with --anonymous-auth', async () => {
    const modes = await start(['--authorization-config', authorizationConfigFile, '--authorization-mode', 'RBAC']);
    expect(modes.code).not.toBe(0);
    expect(modes.stderr).toContain('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    const anonymousFile = path.join(dir.path, 'anonymous.yaml');
    await writeFile(anonymousFile, stringify({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration', anonymous: { enabled: false } }));
    const anonymous = await start(['--authentication-config', anonymousFile, '--anonymous-auth=false', '--authorization-mode', 'RBAC']);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toContain('--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
  });

  it('refuses an invalid authorization config with kube\'s field errors', async () => {
    const invalid = path.join(dir.path, 'invalid-authorization.yaml');
    await writeFile(invalid, stringify({
      apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration',
      authorizers: [{ type: 'Webhook', name: 'w', webhook: { timeout: '45s', subjectAccessReviewVersion: 'v1', failurePolicy: 'Deny', connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: webhookKubeconfig } } }],
    }));
    const result = await start(['--authorization-config', invalid]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('authorizers[0].timeout');
  });
});
