// End-to-end: the real kubectl against an HA cluster started the way a user starts one
// (`kstore cluster up`: 3 nats-servers, 3 stores, 2 API replicas), with the two replicas as the
// kubeconfig's contexts kstore-a1 and kstore-a2. What a single server cannot show: a write
// through one replica is read at once through the other (Most Recent reads go through the
// leader's ReadIndex), a watch on one replica prints changes made through the other, and the
// store leader's garbage collector honours kubectl's --cascade modes. Also the kubectl
// behaviours on the HA cluster: get --chunk-size, create --dry-run=server, --validate=strict.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startCluster } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { httpsRequest, readKubeconfig } from '../support/kube-client.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import type { KubectlResult } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { cronTab, cronTabCrd, cronTabCrdName } from '../support/crd-fixtures.ts';
import { caCertHash, joinAsNode } from '../support/node-join.ts';

interface KubeObject {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; ownerReferences?: unknown[]; finalizers?: string[]; deletionTimestamp?: string };
  data?: Record<string, string>;
}

const haToken = 'ha-static-token-6b1e9d3f';

let dir: TempDir | undefined;
let kubectl: Kubectl;
let cluster: Target | undefined;

beforeAll(async () => {
  dir = await makeTempDir('kstore-e2e-kubectl-ha-');
  const tokenFile = path.join(dir.path, 'tokens.csv');
  await writeFile(tokenFile, `${haToken},hauser,uid-hauser,"ha-devs"\n`, { mode: 0o600 });
  cluster = await startCluster(dir, [
    '--controllers', '*,tokencleaner,bootstrapsigner', '--enable-bootstrap-token-auth', '--token-auth-file', tokenFile,
    '--authorization-mode', 'Node,RBAC', '--enable-admission-plugins', 'NodeRestriction',
  ]);
  kubectl = new Kubectl({ kubeconfig: cluster.kubeconfig, cacheDir: path.join(dir.path, 'kube-cache') });
}, 120_000);

afterAll(async () => {
  kubectl?.stopAll();
  await cluster?.stop();
  await dir?.remove();
}, 60_000);

function logsTail(): string {
  if (dir === undefined) return '';
  const logs = path.join(dir.path, 'ha', 'logs');
  return ['api-a1.log', 'api-a2.log', 'store-s1.log'].map((name) => {
    const file = path.join(logs, name);
    return existsSync(file) ? `--- ${name} ---\n${readFileSync(file, 'utf8').slice(-2000)}` : '';
  }).join('\n');
}

async function ok(args: readonly string[], input?: string): Promise<string> {
  const result = await kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, `${describeResult(args, result)}\n${logsTail()}`).toBe(0);
  return result.stdout;
}

async function fails(args: readonly string[], input?: string): Promise<KubectlResult> {
  const result = await kubectl.run(args, input === undefined ? {} : { input });
  expect(result.code, describeResult(args, result)).not.toBe(0);
  return result;
}

const onA1 = ['--context', 'kstore-a1'];
const onA2 = ['--context', 'kstore-a2'];

async function getObject(args: readonly string[]): Promise<KubeObject> {
  return parse(await ok([...args, '-o', 'yaml'])) as KubeObject;
}

async function ensureNamespace(name: string): Promise<void> {
  if ((await kubectl.run(['get', 'namespace', name, '-o', 'name'])).code === 0) return;
  await ok(['create', 'namespace', name]);
}

describe('kubectl against an HA cluster (kstore cluster up: 3 nats-servers, 3 stores, 2 API replicas)', () => {
  it('GET /kstore/cluster (the console\'s cluster page) lists the three store members with one leader, and both API replicas', async () => {
    const view = await waitFor(async () => {
      const result = await kubectl.run([...onA2, 'get', '--raw', '/kstore/cluster']);
      if (result.code !== 0) return undefined;
      const parsed = JSON.parse(result.stdout) as { leader?: string; members: { id: string; role: string; appliedIndex: number }[]; replicas: { name: string; ready: boolean; self: boolean }[] };
      // Replicas announce themselves every 2 s: both listed and ready within a few periods.
      return parsed.members.length === 3 && parsed.replicas.length === 2 && parsed.replicas.every((replica) => replica.ready) ? parsed : undefined;
    }, { timeoutMs: 20_000, intervalMs: 250, description: 'three members and two ready replicas', diagnostics: logsTail });
    expect(view.members.map((member) => member.id)).toEqual(['s1', 's2', 's3']);
    expect(view.members.filter((member) => member.role === 'leader').map((member) => member.id)).toEqual([view.leader]);
    expect(view.replicas.map((replica) => [replica.name, replica.ready, replica.self])).toEqual([['a1', true, false], ['a2', true, true]]);
  });

  it('both replicas serve the system namespaces', async () => {
    for (const context of [onA1, onA2]) {
      const table = parseTable(await ok([...context, 'get', 'namespaces']));
      for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
        expect(table.rows).toContainEqual(expect.objectContaining({ NAME: name, STATUS: 'Active' }));
      }
    }
  });

  it('reads a write made through one replica at once through the other (Most Recent reads)', async () => {
    await ensureNamespace('ha');
    for (let round = 0; round < 5; round++) {
      const name = `rw-${round}`;
      expect((await ok([...onA1, 'create', 'configmap', name, '-n', 'ha', `--from-literal=round=${round}`])).trim()).toBe(`configmap/${name} created`);
      const written = await getObject([...onA1, 'get', 'configmap', name, '-n', 'ha']);
      const read = await getObject([...onA2, 'get', 'configmap', name, '-n', 'ha']);
      expect(read.data).toEqual({ round: String(round) });
      expect(read.metadata?.resourceVersion).toBe(written.metadata?.resourceVersion);
      expect((await ok([...onA2, 'patch', 'configmap', name, '-n', 'ha', '--type=merge', '-p', '{"data":{"patched":"yes"}}'])).trim()).toBe(`configmap/${name} patched`);
      expect((await getObject([...onA1, 'get', 'configmap', name, '-n', 'ha'])).data).toEqual({ round: String(round), patched: 'yes' });
    }
  });

  it('a watch through replica a2 prints objects created and changed through replica a1', async () => {
    await ensureNamespace('ha-watch');
    const watch = kubectl.start([...onA2, 'get', 'configmaps', '-n', 'ha-watch', '-w', '--request-timeout=90s']);
    try {
      const rowsOf = (): Readonly<Record<string, string>>[] => [...parseTable(watch.stdout()).rows];
      const diagnostics = (): string => `watch stdout:\n${watch.stdout()}\nwatch stderr:\n${watch.stderr()}\n${logsTail()}`;
      // kubectl prints the header with the first row: create one object first, then wait for it.
      await ok([...onA1, 'create', 'configmap', 'first', '-n', 'ha-watch', '--from-literal=a=1']);
      await waitFor(() => rowsOf().some((row) => row['NAME'] === 'first'), { timeoutMs: 30_000, description: 'the watch to show first', diagnostics });
      await ok([...onA1, 'create', 'configmap', 'second', '-n', 'ha-watch', '--from-literal=a=1']);
      await waitFor(() => rowsOf().some((row) => row['NAME'] === 'second' && row['DATA'] === '1'), { timeoutMs: 30_000, description: 'the watch to show second', diagnostics });
      await ok([...onA1, 'patch', 'configmap', 'second', '-n', 'ha-watch', '--type=merge', '-p', '{"data":{"b":"2"}}']);
      await waitFor(() => rowsOf().some((row) => row['NAME'] === 'second' && row['DATA'] === '2'), { timeoutMs: 30_000, description: 'the watch to show second with 2 items', diagnostics });
      expect(watch.exitCode, diagnostics()).toBeUndefined();
    } finally {
      await watch.stop();
    }
  });

  it('both replicas show the same lifecycle of an object, with the users and transitions of its deletion', async () => {
    await ensureNamespace('ha');
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', namespace: 'ha', finalizers: ['example.com/cleanup'] }, data: { a: 'b' } }));
    expect((await ok([...onA1, 'delete', 'configmap', 'held', '-n', 'ha', '--wait=false'])).trim()).toBe('configmap "held" deleted');
    const path = '/api/v1/namespaces/ha/configmaps/held/lifecycle';
    const fromA1 = JSON.parse(await ok([...onA1, 'get', '--raw', path])) as { machines: { state: string; waitingFor: string; history: { event: string; user?: string }[] }[] };
    const fromA2 = JSON.parse(await ok([...onA2, 'get', '--raw', path])) as typeof fromA1;
    expect(fromA2).toEqual(fromA1);
    expect(fromA1.machines[0]).toMatchObject({ state: 'finalizing', waitingFor: 'finalizing: waiting for finalizers example.com/cleanup' });
    expect(fromA1.machines[0]!.history.map((entry) => [entry.event, entry.user])).toEqual([['CREATE', 'kstore-admin'], ['DELETE', 'kstore-admin']]);
    await ok(['patch', 'configmap', 'held', '-n', 'ha', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  });

  it('a bootstrap token authenticates through either replica, expires by the store leader\'s clock (401) and is cleaned up', async () => {
    const credentials = await readKubeconfig(path.join(dir!.path, 'ha', 'admin.kubeconfig'));
    const cluster = JSON.parse(readFileSync(path.join(dir!.path, 'ha', 'cluster.json'), 'utf8')) as { apis: { url: string }[] };
    // A far expiration, so the token is seen authenticating through both replicas however slow the
    // machine; then the expiration is moved into the past and the store leader's token expirer
    // (re-planned by the update) expires it.
    const expiration = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await ok([...onA1, 'create', 'secret', 'generic', 'bootstrap-token-hatest', '-n', 'kube-system', '--type', 'bootstrap.kubernetes.io/token',
      '--from-literal=token-id=hatest', '--from-literal=token-secret=0123456789abcdef', `--from-literal=expiration=${expiration}`,
      '--from-literal=usage-bootstrap-authentication=true']);
    const asToken = (url: string) => httpsRequest(url, { ca: credentials.ca }, { path: '/api', headers: { authorization: 'Bearer hatest.0123456789abcdef' } });
    // Each replica authenticates from its own copy of the state, which may lag the create by a moment.
    for (const api of cluster.apis) {
      await waitFor(async () => (await asToken(api.url)).status === 200, { timeoutMs: 30_000, intervalMs: 250, description: `the token to authenticate through ${api.url}`, diagnostics: logsTail });
    }
    expect((await httpsRequest(cluster.apis[1]!.url, { ca: credentials.ca }, { path: '/api', headers: { authorization: 'Bearer hatest.ffffffffffffffff' } })).status).toBe(401);
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await ok([...onA1, 'patch', 'secret', 'bootstrap-token-hatest', '-n', 'kube-system', '--type=merge', '-p', JSON.stringify({ data: { expiration: Buffer.from(past).toString('base64') } })]);
    // The token expirer on the store leader commits the expiry; every replica then refuses it.
    for (const api of cluster.apis) {
      await waitFor(async () => (await asToken(api.url)).status === 401, { timeoutMs: 30_000, intervalMs: 250, description: `the token to be refused through ${api.url}`, diagnostics: logsTail });
    }
    // tokencleaner (on the store leader) deletes the expired token secret.
    await waitFor(async () => (await kubectl.run([...onA2, 'get', 'secret', 'bootstrap-token-hatest', '-n', 'kube-system'])).stderr.includes('(NotFound)'), {
      timeoutMs: 30_000, intervalMs: 250, description: 'the expired token secret to be cleaned up', diagnostics: logsTail,
    });
  });

  it('every replica takes the same static tokens, service account tokens minted by the other, and anonymous probes', async () => {
    const credentials = await readKubeconfig(path.join(dir!.path, 'ha', 'admin.kubeconfig'));
    const apis = (JSON.parse(readFileSync(path.join(dir!.path, 'ha', 'cluster.json'), 'utf8')) as { apis: { url: string }[] }).apis.map((api) => api.url);
    const whoami = async (url: string, token: string) => {
      const response = await httpsRequest(url, { ca: credentials.ca }, {
        method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers: { authorization: `Bearer ${token}` },
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      return response.status === 201 ? (JSON.parse(response.body) as { status: { userInfo: { username: string } } }).status.userInfo.username : `HTTP ${response.status}`;
    };
    for (const url of apis) {
      expect(await whoami(url, haToken)).toBe('hauser');
      expect((await httpsRequest(url, { ca: credentials.ca }, { path: '/livez' })).status).toBe(200);
    }
    await ensureNamespace('ha-tokens');
    await ok([...onA1, 'create', 'serviceaccount', 'robot', '-n', 'ha-tokens']);
    const token = (await ok([...onA1, 'create', 'token', 'robot', '-n', 'ha-tokens'])).trim();
    // a2 checks the account in its own copy of the state, which may lag a1's write by a moment.
    await waitFor(async () => (await whoami(apis[1]!, token)) === 'system:serviceaccount:ha-tokens:robot', { timeoutMs: 30_000, description: 'a1\'s token to authenticate through a2', diagnostics: logsTail });
    await ok([...onA2, 'delete', 'serviceaccount', 'robot', '-n', 'ha-tokens']);
    await waitFor(async () => (await whoami(apis[0]!, token)) === 'HTTP 401', { timeoutMs: 30_000, description: 'the deleted account\'s token to be refused through a1', diagnostics: logsTail });
  });

  it('a node joins through one replica with a bootstrap token and acts as system:node:<name> through the other', async () => {
    const credentials = await readKubeconfig(path.join(dir!.path, 'ha', 'admin.kubeconfig'));
    const apis = (JSON.parse(readFileSync(path.join(dir!.path, 'ha', 'cluster.json'), 'utf8')) as { apis: { url: string }[] }).apis.map((api) => api.url);
    await ok([...onA1, 'create', 'secret', 'generic', 'bootstrap-token-hajoin', '-n', 'kube-system', '--type', 'bootstrap.kubernetes.io/token',
      '--from-literal=token-id=hajoin', '--from-literal=token-secret=5q8w2e7r4t1y9u3i', '--from-literal=usage-bootstrap-authentication=true',
      '--from-literal=usage-bootstrap-signing=true', '--from-literal=auth-extra-groups=system:bootstrappers:kubeadm:default-node-token']);
    // The store leader's bootstrap signer signs cluster-info; a1 then serves the signature.
    await waitFor(async () => {
      const response = await httpsRequest(apis[0]!, { ca: credentials.ca }, { path: '/api/v1/namespaces/kube-public/configmaps/cluster-info' });
      return response.status === 200 && (JSON.parse(response.body) as { data: Record<string, string> }).data['jws-kubeconfig-hajoin'] !== undefined;
    }, { timeoutMs: 30_000, description: 'cluster-info signed with the join token', diagnostics: logsTail });
    const joined = await joinAsNode({ server: apis[0]!, token: 'hajoin.5q8w2e7r4t1y9u3i', caCertHash: caCertHash(credentials.ca), nodeName: 'ha-worker', timeoutMs: 60_000 });
    const registered = await httpsRequest(apis[1]!, joined.credentials, { method: 'POST', path: '/api/v1/nodes', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'ha-worker' } } });
    expect(registered.status, registered.body).toBe(201);
    const other = await httpsRequest(apis[1]!, joined.credentials, { path: '/api/v1/namespaces/kube-system/secrets' });
    expect(other.status).toBe(403);
  });

  it('get --chunk-size pages through a namespace and shows every item once', async () => {
    await ensureNamespace('ha-chunks');
    const names = Array.from({ length: 7 }, (_, position) => `chunk-${position}`);
    await ok(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'List',
      items: names.map((name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ha-chunks' }, data: { a: 'b' } })),
    }));
    const result = await kubectl.run([...onA2, 'get', 'configmaps', '-n', 'ha-chunks', '--chunk-size=2', '-v=6']);
    expect(result.code, describeResult(['get', '--chunk-size=2'], result)).toBe(0);
    const listed = parseTable(result.stdout).rows.map((row) => row['NAME']).filter((name) => name?.startsWith('chunk-'));
    expect(listed).toEqual(names);
    // kubectl asked for pages of 2 and followed the continue tokens.
    // kubectl 1.32 logs `GET https://…`, 1.33 `"Response" verb="GET" url="https://…"` (the
    // machine's kubectl dispatcher runs the release matching the server's /version).
    const requests = result.stderr.split('\n').filter((line) => /GET"? (url=")?https:\S+\/namespaces\/ha-chunks\/configmaps\?\S*limit=2/.test(line));
    expect(requests.length, result.stderr).toBeGreaterThanOrEqual(4);
    expect(requests.some((line) => line.includes('continue='))).toBe(true);
  });

  it('create --dry-run=server stores nothing; --validate=strict refuses an unknown field', async () => {
    await ensureNamespace('ha');
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry', namespace: 'ha' }, data: { a: 'b' } });
    expect((await ok(['create', '-f', '-', '--dry-run=server'], manifest)).trim()).toBe('configmap/dry created (server dry run)');
    expect((await fails([...onA2, 'get', 'configmap', 'dry', '-n', 'ha'])).stderr.trim()).toBe('Error from server (NotFound): configmaps "dry" not found');
    const unknown = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict', namespace: 'ha' }, bogus: 1 });
    expect((await fails(['create', '-f', '-', '--validate=strict'], unknown)).stderr).toMatch(/unknown field "bogus"/);
    expect((await fails([...onA2, 'get', 'configmap', 'strict', '-n', 'ha'])).stderr).toContain('(NotFound)');
  });

  it('delete --cascade=foreground removes the dependents first; --cascade=orphan keeps them without the owner reference', async () => {
    await ensureNamespace('ha-gc');
    const createOwned = async (owner: string, dependent: string): Promise<void> => {
      await ok(['create', 'configmap', owner, '-n', 'ha-gc', '--from-literal=a=b']);
      const uid = (await getObject(['get', 'configmap', owner, '-n', 'ha-gc'])).metadata?.uid;
      expect(uid).toBeDefined();
      await ok(['create', '-f', '-'], JSON.stringify({
        apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' },
        metadata: { name: dependent, namespace: 'ha-gc', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid, blockOwnerDeletion: true }] },
      }));
    };
    await createOwned('owner-fg', 'dependent-fg');
    // kubectl waits until the owner is gone; with foreground deletion that is after its dependents.
    expect((await ok(['delete', 'configmap', 'owner-fg', '-n', 'ha-gc', '--cascade=foreground', '--timeout=60s'])).trim()).toBe('configmap "owner-fg" deleted');
    // No waiting here: the owner is gone only after its blocking dependent (background deletion
    // would delete the dependent after the owner).
    expect((await fails([...onA2, 'get', 'configmap', 'dependent-fg', '-n', 'ha-gc'])).stderr).toContain('(NotFound)');

    await createOwned('owner-orphan', 'dependent-orphan');
    expect((await ok(['delete', 'configmap', 'owner-orphan', '-n', 'ha-gc', '--cascade=orphan', '--timeout=60s'])).trim()).toBe('configmap "owner-orphan" deleted');
    const orphan = await waitFor(async () => {
      const object = await getObject([...onA2, 'get', 'configmap', 'dependent-orphan', '-n', 'ha-gc']);
      return (object.metadata?.ownerReferences ?? []).length === 0 ? object : undefined;
    }, { timeoutMs: 30_000, description: 'the orphaned dependent to lose its owner reference', diagnostics: logsTail });
    expect(orphan.data).toEqual({ a: 'b' });
    expect((await fails(['get', 'configmap', 'owner-orphan', '-n', 'ha-gc'])).stderr).toContain('(NotFound)');
  });
  it('a CRD created through replica a1 is served through a2: CEL rules, scale, both versions, and deleting it removes its objects', async () => {
    await ensureNamespace('ha-crd');
    expect(await ok([...onA1, 'apply', '-f', '-'], JSON.stringify(cronTabCrd()))).toContain(`customresourcedefinition.apiextensions.k8s.io/${cronTabCrdName} created`);
    await ok([...onA2, 'wait', '--for', 'condition=Established', `crd/${cronTabCrdName}`, '--timeout', '60s']);
    // Each replica serves the kind once its copy of the store has the established CRD.
    await waitFor(async () => (await kubectl.run([...onA2, 'get', 'crontabs', '-n', 'ha-crd'])).code === 0, { timeoutMs: 30_000, description: 'crontabs served by a2', diagnostics: logsTail });
    expect(await ok([...onA2, 'apply', '-n', 'ha-crd', '-f', '-'], JSON.stringify(cronTab('nightly', { cronSpec: '0 3 * * *', image: 'backup:1', replicas: 2 })))).toContain('crontab.stable.example.com/nightly created');
    await waitFor(async () => (await kubectl.run([...onA1, 'get', 'crontabs', '-n', 'ha-crd'])).code === 0, { timeoutMs: 30_000, description: 'crontabs served by a1', diagnostics: logsTail });
    expect(await ok([...onA1, 'get', 'crontabs.v1beta1.stable.example.com', 'nightly', '-n', 'ha-crd', '-o', 'jsonpath={.apiVersion} {.spec.color}'])).toBe('stable.example.com/v1beta1 blue');
    expect((await fails([...onA1, 'create', '-n', 'ha-crd', '-f', '-'], JSON.stringify(cronTab('too-many', { cronSpec: '* * * * *', image: 'web:2', replicas: 20, maxReplicas: 10 })))).stderr)
      .toContain('The CronTab "too-many" is invalid: spec: Invalid value: "object": replicas exceed maxReplicas for image web:2');
    expect(await ok([...onA1, 'scale', 'crontab', 'nightly', '-n', 'ha-crd', '--replicas', '4'])).toContain('crontab.stable.example.com/nightly scaled');
    expect(await ok([...onA2, 'get', 'crontab', 'nightly', '-n', 'ha-crd', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}'])).toBe('4 2');
    expect(await ok([...onA2, 'delete', 'crd', cronTabCrdName, '--timeout', '60s'])).toContain('deleted');
    expect(await ok([...onA1, 'get', 'crd', '-o', 'name'])).not.toContain(cronTabCrdName);
    expect(await ok([...onA1, 'get', '--raw', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'])).not.toContain('crontabs');
  });
});
