// End to end against one real `kstore server` with every authentication method and every
// authorization mode of kube-apiserver switched on at once, driven by the real kubectl where a
// workflow exists: anonymous requests, a static token file, kubectl exec credential plugins (v1
// and v1beta1, with and without expiration), service account tokens from `kubectl create token`
// (bound to a pod, revoked when it goes, OIDC discovery whose keys verify them), an
// authenticating proxy, a TokenReview webhook, and the chain Node,RBAC,ABAC,Webhook with a
// SubjectAccessReview webhook, `kubectl auth can-i --as` and the NodeRestriction admission plugin.
// Each has its allowed path, its denied path and malformed input.
import { createPrivateKey } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePki } from '../../deploy/pki.ts';
import type { Pki } from '../../deploy/pki.ts';
import { KstoreProcess } from '../support/kstore-process.ts';
import { httpsRequest, jsonBody, readKubeconfig } from '../support/kube-client.ts';
import type { HttpResponse, KubeconfigCredentials } from '../support/kube-client.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import type { KubectlResult } from '../support/kubectl.ts';
import { runKstoreCli } from '../support/kstore-cli.ts';
import { startReviewWebhook } from '../support/review-webhook.ts';
import type { ReviewWebhook } from '../support/review-webhook.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const aliceToken = 'alice-token-4f7c2a9e1b3d';
const bobToken = 'bob-token-8e1d6c0a5f2b';
const daveToken = 'dave-token-2b9f4e7a1c6d';
const frankToken = 'frank-token-7a3c9e2f5b1d';
const carolWebhookToken = 'carol-webhook-token-5d2a8f';
const garbageWebhookToken = 'garbage-webhook-token-1c7e';

let dir: TempDir;
let server: KstoreProcess;
let admin: KubeconfigCredentials;
let adminKubectl: Kubectl;
let proxyPki: Pki;
let tokenWebhook: ReviewWebhook;
let authzWebhook: ReviewWebhook;
let kubeconfigs = 0;

type Json = Record<string, unknown>;

function diagnostics(): string {
  return `server output (tail):\n${server.output().slice(-4000)}`;
}

function expectOk(args: readonly string[], result: KubectlResult): string {
  expect(result.code, `${describeResult(args, result)}\n${diagnostics()}`).toBe(0);
  return result.stdout;
}

/** A kubectl whose kubeconfig names the server, its CA and this user entry. */
async function kubectlAs(user: Json): Promise<Kubectl> {
  kubeconfigs += 1;
  const file = path.join(dir.path, `user-${kubeconfigs}.kubeconfig`);
  await writeFile(file, stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'e2e',
    clusters: [{ name: 'kstore', cluster: { server: admin.server, 'certificate-authority-data': Buffer.from(admin.ca).toString('base64') } }],
    users: [{ name: 'e2e', user }],
    contexts: [{ name: 'e2e', context: { cluster: 'kstore', user: 'e2e' } }],
  }), { mode: 0o600 });
  return new Kubectl({ kubeconfig: file, cacheDir: path.join(dir.path, `cache-${kubeconfigs}`) });
}

async function whoami(kubectl: Kubectl): Promise<{ username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> }> {
  const args = ['auth', 'whoami', '-o', 'json'];
  const output = expectOk(args, await kubectl.run(args));
  return (JSON.parse(output) as { status: { userInfo: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } } }).status.userInfo;
}

const asBearer = (token: string, requestPath: string, method = 'GET', body?: unknown): Promise<HttpResponse> =>
  httpsRequest(admin.server, { ca: admin.ca }, { path: requestPath, method, headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) });

async function admin$(args: readonly string[], input?: string): Promise<string> {
  return expectOk(args, await adminKubectl.run(args, input === undefined ? {} : { input }));
}

beforeAll(async () => {
  dir = await makeTempDir('kstore-auth-methods-');
  proxyPki = await ensurePki(path.join(dir.path, 'proxy'), []);
  tokenWebhook = await startReviewWebhook();
  tokenWebhook.answer((review) => {
    const token = (review['spec'] as { token?: string } | undefined)?.token;
    if (token === garbageWebhookToken) return { text: 'this is not a TokenReview' };
    const status = token === carolWebhookToken
      ? { authenticated: true, user: { username: 'carol', uid: 'uid-carol', groups: ['webhookers'] } }
      : { authenticated: false };
    return { json: { apiVersion: review['apiVersion'], kind: 'TokenReview', status } };
  });
  authzWebhook = await startReviewWebhook();
  authzWebhook.answer((review) => {
    const spec = review['spec'] as { user?: string; resourceAttributes?: { resource?: string } };
    const answer = (status: Json) => ({ json: { apiVersion: review['apiVersion'], kind: 'SubjectAccessReview', status } });
    if (spec.user === 'frank') return { text: '<html>bad gateway</html>', status: 200 };
    if (spec.user === 'dave') return answer({ allowed: false, denied: true, reason: 'dave is on the deny list' });
    if (spec.user === 'carol' && spec.resourceAttributes?.resource === 'configmaps') return answer({ allowed: true, reason: 'carol reads configmaps' });
    return answer({ allowed: false });
  });
  const tokenFile = path.join(dir.path, 'tokens.csv');
  await writeFile(tokenFile, [
    `${aliceToken},alice,uid-alice,"devs,qa"`, `${bobToken},bob,uid-bob`, `${daveToken},dave,uid-dave`, `${frankToken},frank,uid-frank`, '',
  ].join('\n'), { mode: 0o600 });
  const policyFile = path.join(dir.path, 'abac.jsonl');
  await writeFile(policyFile, `${JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'bob', namespace: 'abac', resource: '*', apiGroup: '*', readonly: true } })}\n`);
  server = await KstoreProcess.start({
    dataDir: path.join(dir.path, 'data'),
    extraArgs: [
      '--token-auth-file', tokenFile,
      '--requestheader-client-ca-file', proxyPki.paths.caCert, '--requestheader-allowed-names', 'kstore-admin',
      '--requestheader-username-headers', 'X-Remote-User', '--requestheader-group-headers', 'X-Remote-Group', '--requestheader-extra-headers-prefix', 'X-Remote-Extra-',
      '--authentication-token-webhook-config-file', await tokenWebhook.writeKubeconfig(), '--authentication-token-webhook-version', 'v1',
      '--authorization-mode', 'Node,RBAC,ABAC,Webhook', '--authorization-policy-file', policyFile,
      '--authorization-webhook-config-file', await authzWebhook.writeKubeconfig(), '--authorization-webhook-version', 'v1',
      '--authorization-webhook-cache-authorized-ttl', '0s', '--authorization-webhook-cache-unauthorized-ttl', '0s',
      '--enable-admission-plugins', 'NodeRestriction',
    ],
  });
  admin = await readKubeconfig(server.kubeconfigPath);
  adminKubectl = new Kubectl({ kubeconfig: server.kubeconfigPath, cacheDir: path.join(dir.path, 'cache-admin') });
  await admin$(['create', 'namespace', 'abac']);
  await admin$(['create', 'namespace', 'sa-e2e']);
}, 120_000);

afterAll(async () => {
  if (server) await server.stop().catch(() => server.kill());
  await tokenWebhook?.close();
  await authzWebhook?.close();
  await dir?.remove();
});

describe('anonymous requests', () => {
  it('reach /livez, /readyz and /version as system:anonymous and nothing else; an invalid bearer token is 401, never anonymous', async () => {
    for (const probe of ['/livez', '/readyz', '/version']) {
      const response = await httpsRequest(admin.server, { ca: admin.ca }, { path: probe });
      expect(response.status, `${probe}: ${response.body}`).toBe(200);
    }
    const denied = await httpsRequest(admin.server, { ca: admin.ca }, { path: '/api/v1/namespaces/abac/secrets' });
    expect(denied.status).toBe(403);
    // The reasons of every authorizer that had no opinion follow, as kube's union authorizer joins them.
    expect(jsonBody<{ message: string }>(denied).message).toBe('secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "abac": No policy matched.');
    const invalid = await asBearer('not-a-known-token', '/livez');
    expect(invalid.status).toBe(401);
    expect(jsonBody(invalid)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect(server.output()).not.toContain('not-a-known-token');
  });
});

describe('static token file', () => {
  it('authenticates kubectl with a token as its user, uid and quoted groups; a wrong token is Unauthorized', async () => {
    expect(await whoami(await kubectlAs({ token: aliceToken }))).toEqual({ username: 'alice', uid: 'uid-alice', groups: ['devs', 'qa', 'system:authenticated'] });
    const wrong = await (await kubectlAs({ token: `${aliceToken}x` })).run(['get', 'pods', '-n', 'abac']);
    expect(wrong.code).not.toBe(0);
    // kubectl's words for a 401.
    expect(wrong.stderr).toContain('the server has asked for the client to provide credentials');
  });

  it('refuses to start on a malformed file, naming the file', async () => {
    const bad = path.join(dir.path, 'bad-tokens.csv');
    await writeFile(bad, 'good-token,gina,uid-gina\nonly-two,columns\n');
    const result = await runKstoreCli(['server', '--data-dir', path.join(dir.path, 'bad-data'), '--port', '0', '--token-auth-file', bad], 60_000);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(bad);
    expect(result.stderr).not.toContain('good-token');
  });
});

describe('client credential plugins (kubectl exec)', () => {
  async function plugin(name: string, credential: Json): Promise<string> {
    const file = path.join(dir.path, `${name}.sh`);
    await writeFile(file, `#!/bin/sh\ncat <<'CREDENTIAL'\n${JSON.stringify(credential)}\nCREDENTIAL\n`);
    await chmod(file, 0o755);
    return file;
  }
  const inAnHour = (): string => new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

  for (const apiVersion of ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']) {
    for (const expiring of [true, false]) {
      it(`${apiVersion} ${expiring ? 'with' : 'without'} an expiration: the plugin's token authenticates`, async () => {
        const name = `exec-${apiVersion.endsWith('v1') ? 'v1' : 'v1beta1'}-${expiring ? 'expiring' : 'lasting'}`;
        const command = await plugin(name, { apiVersion, kind: 'ExecCredential', status: { token: aliceToken, ...(expiring ? { expirationTimestamp: inAnHour() } : {}) } });
        const kubectl = await kubectlAs({ exec: { apiVersion, command, ...(apiVersion.endsWith('/v1') ? { interactiveMode: 'Never' } : {}) } });
        expect((await whoami(kubectl)).username).toBe('alice');
      });
    }
  }

  it('a plugin handing out a bad token gets Unauthorized', async () => {
    const command = await plugin('exec-bad', { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'revoked-token' } });
    const result = await (await kubectlAs({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command, interactiveMode: 'Never' } })).run(['get', 'pods']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the server has asked for the client to provide credentials');
  });
});

describe('service account tokens', () => {
  it('kubectl create token mints a token that authenticates as the account, also through an exec plugin; tampering is Unauthorized', async () => {
    await admin$(['create', 'serviceaccount', 'robot', '-n', 'sa-e2e']);
    const token = (await admin$(['create', 'token', 'robot', '-n', 'sa-e2e'])).trim();
    const user = await whoami(await kubectlAs({ token }));
    expect(user.username).toBe('system:serviceaccount:sa-e2e:robot');
    expect(user.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:sa-e2e', 'system:authenticated']);
    expect(user.extra?.['authentication.kubernetes.io/credential-id']?.[0]).toMatch(/^JTI=/);
    const [header, payload, signature = ''] = token.split('.');
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await asBearer(flipped, '/api/v1/namespaces/sa-e2e/pods')).status).toBe(401);
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()), sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url')}.${signature}`;
    expect((await asBearer(forged, '/api/v1/namespaces/sa-e2e/pods')).status).toBe(401);
  });

  it('a token bound to a pod names it and stops working once the pod is deleted; deleting the account revokes its tokens', async () => {
    await admin$(['run', 'holder', '-n', 'sa-e2e', '--image', 'registry.k8s.io/pause:3.10', '--overrides', JSON.stringify({ spec: { serviceAccountName: 'robot' } })]);
    const bound = (await admin$(['create', 'token', 'robot', '-n', 'sa-e2e', '--bound-object-kind', 'Pod', '--bound-object-name', 'holder', '--duration', '20m'])).trim();
    const unbound = (await admin$(['create', 'token', 'robot', '-n', 'sa-e2e'])).trim();
    const user = await whoami(await kubectlAs({ token: bound }));
    expect(user.extra?.['authentication.kubernetes.io/pod-name']).toEqual(['holder']);
    await admin$(['delete', 'pod', 'holder', '-n', 'sa-e2e', '--grace-period', '0', '--force']);
    await waitFor(async () => (await asBearer(bound, '/apis/authentication.k8s.io/v1/selfsubjectreviews', 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).status === 401,
      { timeoutMs: 30_000, description: 'the pod-bound token to be refused once the pod is gone', diagnostics });
    expect((await asBearer(unbound, '/apis/authentication.k8s.io/v1/selfsubjectreviews', 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).status).toBe(201);
    await admin$(['delete', 'serviceaccount', 'robot', '-n', 'sa-e2e']);
    await waitFor(async () => (await asBearer(unbound, '/apis/authentication.k8s.io/v1/selfsubjectreviews', 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).status === 401,
      { timeoutMs: 30_000, description: 'the token of a deleted account to be refused', diagnostics });
  });

  it('refuses a TokenRequest kube refuses (too short, unknown account) and publishes discovery documents whose keys verify a token', async () => {
    await admin$(['create', 'serviceaccount', 'reader', '-n', 'sa-e2e']);
    const short = await adminKubectl.run(['create', 'token', 'reader', '-n', 'sa-e2e', '--duration', '5m']);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('may not specify a duration less than 10 minutes');
    const missing = await adminKubectl.run(['create', 'token', 'nobody', '-n', 'sa-e2e']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('serviceaccounts "nobody" not found');
    const token = (await admin$(['create', 'token', 'reader', '-n', 'sa-e2e'])).trim();
    expect((await httpsRequest(admin.server, { ca: admin.ca }, { path: '/.well-known/openid-configuration' })).status).toBe(403);
    const configuration = jsonBody<{ issuer: string; jwks_uri: string; id_token_signing_alg_values_supported: string[] }>(await asBearer(token, '/.well-known/openid-configuration'));
    expect(configuration.issuer).toBe('https://kubernetes.default.svc.cluster.local');
    expect(configuration.id_token_signing_alg_values_supported).toEqual(['RS256']);
    const jwksResponse = await asBearer(token, '/openid/v1/jwks');
    expect(jwksResponse.headers['content-type']).toBe('application/jwk-set+json');
    const verified = await jwtVerify(token, createLocalJWKSet(JSON.parse(jwksResponse.body) as Parameters<typeof createLocalJWKSet>[0]), {
      issuer: configuration.issuer, audience: 'https://kubernetes.default.svc.cluster.local',
    });
    expect(verified.payload.sub).toBe('system:serviceaccount:sa-e2e:reader');
    // The same claims signed with the server's own key, but expired (beyond the 60 s leeway): 401.
    const key = createPrivateKey(await readFile(path.join(server.dataDir, 'pki', 'sa.key'), 'utf8'));
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ ...verified.payload, iat: now - 3_600, nbf: now - 3_600, exp: now - 300 }).setProtectedHeader({ alg: 'RS256' }).sign(key);
    expect((await asBearer(expired, '/api/v1/namespaces/sa-e2e/pods')).status).toBe(401);
    const fresh = await new SignJWT({ ...verified.payload, iat: now, nbf: now, exp: now + 600 }).setProtectedHeader({ alg: 'RS256' }).sign(key);
    expect((await asBearer(fresh, '/apis/authentication.k8s.io/v1/selfsubjectreviews', 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).status).toBe(201);
  });
});

describe('authenticating proxy (request headers)', () => {
  const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
  const proxyHeaders = { 'x-remote-user': 'erin', 'x-remote-group': 'ops', 'x-remote-extra-acme.com%2fproject': 'p1' };

  it('trusts the identity headers of a client certificate from the request-header CA with an allowed name', async () => {
    const response = await httpsRequest(admin.server, { ca: admin.ca, cert: proxyPki.adminCert, key: proxyPki.adminKey },
      { method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers: proxyHeaders, body: review });
    expect(response.status, response.body).toBe(201);
    expect(jsonBody<{ status: { userInfo: Json } }>(response).status.userInfo).toEqual({ username: 'erin', groups: ['ops', 'system:authenticated'], extra: { 'acme.com/project': ['p1'] } });
  });

  it('ignores the headers from any other client, and refuses the proxy certificate as a user of its own', async () => {
    const fromAdmin = await httpsRequest(admin.server, admin, { method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers: proxyHeaders, body: review });
    expect(jsonBody<{ status: { userInfo: { username: string } } }>(fromAdmin).status.userInfo.username).toBe('kstore-admin');
    const anonymous = await httpsRequest(admin.server, { ca: admin.ca }, { method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers: proxyHeaders, body: review });
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toContain('system:anonymous');
    const proxyWithoutUser = await httpsRequest(admin.server, { ca: admin.ca, cert: proxyPki.adminCert, key: proxyPki.adminKey }, { path: '/api/v1/namespaces' });
    expect(proxyWithoutUser.status).toBe(401);
  });
});

describe('TokenReview webhook', () => {
  it('authenticates a token the webhook vouches for; a webhook answering garbage is Unauthorized', async () => {
    expect(await whoami(await kubectlAs({ token: carolWebhookToken }))).toEqual({ username: 'carol', uid: 'uid-carol', groups: ['webhookers', 'system:authenticated'] });
    const sent = tokenWebhook.received.find((received) => (received.body['spec'] as { token?: string }).token === carolWebhookToken);
    expect(sent?.body).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview' });
    expect((await asBearer(garbageWebhookToken, '/api/v1/namespaces')).status).toBe(401);
    expect(server.output()).not.toContain(garbageWebhookToken);
  });
});

describe('authorization: Node,RBAC,ABAC,Webhook', () => {
  it('ABAC allows what the policy file grants and nothing more; kubectl auth can-i --as agrees', async () => {
    const bob = await kubectlAs({ token: bobToken });
    expectOk(['get', 'pods', '-n', 'abac'], await bob.run(['get', 'pods', '-n', 'abac']));
    const write = await bob.run(['create', 'configmap', 'nope', '-n', 'abac']);
    expect(write.code).not.toBe(0);
    expect(write.stderr).toContain('configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "abac"');
    expect((await adminKubectl.run(['auth', 'can-i', 'list', 'pods', '-n', 'abac', '--as', 'bob'])).stdout.trim()).toBe('yes');
    // kubectl prints the denial's reason after "no".
    expect((await adminKubectl.run(['auth', 'can-i', 'create', 'configmaps', '-n', 'abac', '--as', 'bob'])).stdout.trim()).toBe('no - No policy matched.');
    expect((await adminKubectl.run(['auth', 'can-i', 'list', 'pods', '-n', 'default', '--as', 'bob'])).stdout.trim()).toBe('no - No policy matched.');
    // The modes are counted as kube-apiserver counts the authorizers it builds from the flags.
    const metrics = await httpsRequest(admin.server, admin, { path: '/metrics', headers: { accept: 'text/plain' } });
    expect(metrics.body).toMatch(/^apiserver_authorization_decisions_total\{type="ABAC",name="abac",decision="allowed"\} [1-9]/m);
  });

  it('the SubjectAccessReview webhook allows, denies with its reason, and a garbage answer is a 500', async () => {
    const carol = await kubectlAs({ token: carolWebhookToken });
    expectOk(['get', 'configmaps', '-n', 'abac'], await carol.run(['get', 'configmaps', '-n', 'abac']));
    const secrets = await carol.run(['get', 'secrets', '-n', 'abac']);
    expect(secrets.stderr).toContain('secrets is forbidden: User "carol" cannot list resource "secrets"');
    const asked = authzWebhook.received.find((received) => (received.body['spec'] as { user?: string }).user === 'carol');
    expect(asked?.body).toMatchObject({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'carol', groups: ['webhookers', 'system:authenticated'] } });
    const dave = await asBearer(daveToken, '/api/v1/namespaces/abac/pods');
    expect(dave.status).toBe(403);
    expect(jsonBody<{ message: string }>(dave).message).toBe('pods is forbidden: User "dave" cannot list resource "pods" in API group "" in the namespace "abac": dave is on the deny list');
    const frank = await asBearer(frankToken, '/api/v1/namespaces/abac/pods');
    expect(frank.status).toBe(500);
    expect(frank.headers['content-type']).toMatch(/^text\/plain/);
    expect(frank.body).toMatch(/^Internal Server Error: "\/api\/v1\/namespaces\/abac\/pods": /);
  });

  it('Node: a kubelet reads what its pods reference and writes its own Node, nothing else (NodeRestriction)', async () => {
    const kubeconfig = path.join(dir.path, 'node-n1.kubeconfig');
    const issued = await runKstoreCli(['kubeconfig', '--user', 'system:node:n1', '--group', 'system:nodes', '--data-dir', server.dataDir, '--out', kubeconfig], 60_000);
    expect(issued.code, issued.stderr).toBe(0);
    const node = new Kubectl({ kubeconfig, cacheDir: path.join(dir.path, 'cache-node') });
    await admin$(['create', 'namespace', 'node-e2e']);
    await admin$(['create', 'secret', 'generic', 'mounted', '-n', 'node-e2e', '--from-literal', 'k=v']);
    await admin$(['create', 'secret', 'generic', 'unrelated', '-n', 'node-e2e', '--from-literal', 'k=v']);
    await admin$(['apply', '-f', '-'], stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-n1', namespace: 'node-e2e' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], volumes: [{ name: 's', secret: { secretName: 'mounted' } }] },
    }));
    await admin$(['apply', '-f', '-'], stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } }));
    expectOk(['apply'], await node.run(['apply', '-f', '-'], { input: stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } } }) }));
    expectOk(['get', 'secret'], await node.run(['get', 'secret', 'mounted', '-n', 'node-e2e']));
    const unrelated = await node.run(['get', 'secret', 'unrelated', '-n', 'node-e2e']);
    expect(unrelated.stderr).toContain("no relationship found between node 'n1' and this object");
    const reading = await node.run(['get', 'node', 'n2']);
    expect(reading.stderr).toContain("node 'n1' cannot read 'n2', only its own Node object");
    // kubectl reads before it patches; a PATCH alone passes authorization (system:node's rules)
    // and is refused by NodeRestriction.
    const nodeCredentials = await readKubeconfig(kubeconfig);
    const other = await httpsRequest(admin.server, nodeCredentials, {
      method: 'PATCH', path: '/api/v1/nodes/n2', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"metadata":{"labels":{"stolen":"yes"}}}',
    });
    expect(other.status).toBe(403);
    expect(jsonBody<{ message: string }>(other).message).toContain('node "n1" is not allowed to modify node "n2"');
    const restricted = await node.run(['label', 'node', 'n1', 'node-restriction.kubernetes.io/pool=a']);
    expect(restricted.code).not.toBe(0);
    expect(restricted.stderr).toContain('is not allowed to modify labels: node-restriction.kubernetes.io/pool');
    expectOk(['get', 'pods'], await node.run(['get', 'pods', '-A', '--field-selector', 'spec.nodeName=n1']));
    expect((await node.run(['get', 'pods', '-A'])).code).not.toBe(0);
  });
});
