// End to end: RBAC on a real `kstore server` with the real kubectl. The admin kubeconfig is
// system:masters; a second identity (CN=jane, O=developers) gets a client certificate from the
// server's CA. Jane is forbidden until a Role and RoleBinding let her read pods in one
// namespace only (kubectl auth can-i before and after, kubectl get pods forbidden then allowed),
// the default ClusterRoles are there with admin/edit/view aggregated, and escalation is refused.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { adminKubeconfig } from '../../deploy/kubeconfig.ts';
import { issueClientCertificate, pkiPaths } from '../../deploy/pki.ts';
import { runKstore, startServer } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { describeResult, Kubectl } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: TempDir;
let target: Target;
let admin: Kubectl;
let jane: Kubectl;

beforeAll(async () => {
  dir = await makeTempDir('kstore-rbac-');
  target = await startServer(dir);
  const dataDir = path.join(dir.path, 'server');
  const { cert, key } = await issueClientCertificate(dataDir, 'jane', ['developers']);
  const caCert = await readFile(pkiPaths(dataDir).caCert, 'utf8');
  const janeConfig = path.join(dir.path, 'jane.kubeconfig');
  await writeFile(janeConfig, stringify(adminKubeconfig(target.writer, { caCert, adminCert: cert, adminKey: key })), { mode: 0o600 });
  admin = new Kubectl({ kubeconfig: target.kubeconfig, cacheDir: path.join(dir.path, 'cache-admin') });
  jane = new Kubectl({ kubeconfig: janeConfig, cacheDir: path.join(dir.path, 'cache-jane') });
  for (const namespace of ['team-a', 'team-b']) {
    const created = await admin.run(['create', 'namespace', namespace]);
    expect(created.code, describeResult(['create', 'namespace', namespace], created)).toBe(0);
  }
});

afterAll(async () => {
  await target?.stop();
  await dir?.remove();
});

async function ok(kubectl: Kubectl, args: string[]): Promise<string> {
  const result = await kubectl.run(args);
  expect(result.code, describeResult(args, result)).toBe(0);
  return result.stdout;
}

describe('--authorization-mode', () => {
  it('an unknown or repeated mode stops the server at start, as kube-apiserver does', async () => {
    const unknown = await runKstore(['server', '--authorization-mode', 'RBAC,Foo', '--data-dir', path.join(dir.path, 'refused')]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.output).toContain('authorization-mode "Foo" is not a valid mode');
    const repeated = await runKstore(['server', '--authorization-mode', 'RBAC,RBAC', '--data-dir', path.join(dir.path, 'refused')]);
    expect(repeated.code).not.toBe(0);
    expect(repeated.output).toContain('authorization-mode "RBAC" has mode specified more than once');
  });
});

describe('RBAC with kubectl', () => {
  it('jane is forbidden, then may read pods in team-a only once bound', async () => {
    const before = await jane.run(['auth', 'can-i', 'list', 'pods', '-n', 'team-a']);
    expect(before.code, describeResult(['auth', 'can-i'], before)).toBe(1);
    expect(before.stdout.trim()).toBe('no');
    const forbidden = await jane.run(['get', 'pods', '-n', 'team-a']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "team-a"');

    await ok(admin, ['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods', '-n', 'team-a']);
    await ok(admin, ['create', 'rolebinding', 'jane-reads-pods', '--role=pod-reader', '--user=jane', '-n', 'team-a']);

    const after = await jane.run(['auth', 'can-i', 'list', 'pods', '-n', 'team-a']);
    expect(after.code, describeResult(['auth', 'can-i'], after)).toBe(0);
    expect(after.stdout.trim()).toBe('yes');
    expect((await jane.run(['auth', 'can-i', 'delete', 'pods', '-n', 'team-a'])).stdout.trim()).toBe('no');
    expect((await jane.run(['auth', 'can-i', 'list', 'pods', '-n', 'team-b'])).stdout.trim()).toBe('no');

    const allowed = await jane.run(['get', 'pods', '-n', 'team-a']);
    expect(allowed.code, describeResult(['get', 'pods'], allowed)).toBe(0);
    expect(allowed.stderr).toContain('No resources found in team-a namespace.');
    const other = await jane.run(['get', 'pods', '-n', 'team-b']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('User "jane" cannot list resource "pods" in API group "" in the namespace "team-b"');

    const list = await ok(jane, ['auth', 'can-i', '--list', '-n', 'team-a']);
    expect(list).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
  });

  it('kubectl --as impersonates: the admin acts as jane with jane\'s rights; jane may not impersonate', async () => {
    const asJane = await admin.run(['get', 'configmaps', '-n', 'team-b', '--as', 'jane']);
    expect(asJane.code).toBe(1);
    expect(asJane.stderr).toContain('User "jane" cannot list resource "configmaps" in API group "" in the namespace "team-b"');
    expect((await admin.run(['auth', 'can-i', 'list', 'configmaps', '-n', 'team-b', '--as', 'jane'])).stdout.trim()).toBe('no');
    expect((await admin.run(['auth', 'can-i', 'list', 'configmaps', '-n', 'team-b', '--as', 'jane', '--as-group', 'system:masters'])).stdout.trim()).toBe('yes');
    const refused = await jane.run(['get', 'configmaps', '-n', 'team-b', '--as', 'admin']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('users "admin" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('kubectl auth whoami (SelfSubjectReview) shows who the server sees, impersonated too', async () => {
    const self = await ok(jane, ['auth', 'whoami']);
    expect(self).toMatch(/^Username\s+jane$/m);
    expect(self).toMatch(/^Groups\s+\[.*system:authenticated\]$/m);
    const json = JSON.parse(await ok(jane, ['auth', 'whoami', '-o', 'json'])) as { kind: string; apiVersion: string; status: { userInfo: { username: string; groups: string[] } } };
    expect(json).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', status: { userInfo: { username: 'jane' } } });
    const asJane = await ok(admin, ['auth', 'whoami', '--as', 'jane', '--as-group', 'developers']);
    expect(asJane).toMatch(/^Username\s+jane$/m);
    expect(asJane).toMatch(/^Groups\s+\[developers system:authenticated\]$/m);
  });

  it('kubectl get shows the RBAC objects with kube\'s columns', async () => {
    await ok(admin, ['create', 'role', 'cm-reader', '--verb=get', '--resource=configmaps', '-n', 'team-b']);
    await ok(admin, ['create', 'rolebinding', 'devs-read-cms', '--role=cm-reader', '--group=developers', '--serviceaccount=team-b:default', '-n', 'team-b']);
    const roles = await ok(admin, ['get', 'role', '-n', 'team-b']);
    expect(roles).toMatch(/^NAME\s+CREATED AT\ncm-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    const bindings = parseTable(await ok(admin, ['get', 'rolebinding', '-n', 'team-b', '-o', 'wide']));
    expect(bindings.headers).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    expect(bindings.rows[0]).toEqual({ NAME: 'devs-read-cms', ROLE: 'Role/cm-reader', AGE: expect.any(String), USERS: '', GROUPS: 'developers', SERVICEACCOUNTS: 'team-b/default' });
    const clusterBindings = parseTable(await ok(admin, ['get', 'clusterrolebinding', 'cluster-admin', 'system:discovery']));
    expect(clusterBindings.headers).toEqual(['NAME', 'ROLE', 'AGE']);
    expect(clusterBindings.rows.map((row) => [row['NAME'], row['ROLE']])).toEqual([['cluster-admin', 'ClusterRole/cluster-admin'], ['system:discovery', 'ClusterRole/system:discovery']]);
    expect((await jane.run(['auth', 'can-i', 'get', 'configmaps', '-n', 'team-b'])).stdout.trim()).toBe('yes');
  });

  it('the default admin ClusterRole aggregates its parts; escalation through a binding is refused', async () => {
    const admins = await waitFor(async () => {
      const role = parse(await ok(admin, ['get', 'clusterrole', 'admin', '-o', 'yaml'])) as { rules?: { resources?: string[]; verbs?: string[] }[]; aggregationRule?: unknown; metadata: { labels: Record<string, string>; annotations: Record<string, string> } };
      return (role.rules ?? []).some((rule) => rule.resources?.includes('rolebindings')) && (role.rules ?? []).some((rule) => rule.resources?.includes('pods') && rule.verbs?.includes('create')) ? role : undefined;
    }, { timeoutMs: 15_000, description: 'admin aggregated' });
    expect(admins.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }] });
    expect(admins.metadata.labels['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
    expect(admins.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');

    // jane as namespace admin of team-b may bind roles she holds there, not cluster-admin.
    await ok(admin, ['create', 'rolebinding', 'jane-admin', '--clusterrole=admin', '--user=jane', '-n', 'team-b']);
    await ok(jane, ['create', 'rolebinding', 'bob-view', '--clusterrole=view', '--user=bob', '-n', 'team-b']);
    const escalation = await jane.run(['create', 'rolebinding', 'jane-root', '--clusterrole=cluster-admin', '--user=jane', '-n', 'team-b']);
    expect(escalation.code).toBe(1);
    expect(escalation.stderr).toContain('rolebindings.rbac.authorization.k8s.io "jane-root" is forbidden: user "jane" (groups=["developers" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:');
  });

  it('a user who may only write Roles cannot grant herself everything: kubectl apply --server-side, apply, replace, patch (json, merge, strategic), create --dry-run=server are all refused 403 and store nothing', async () => {
    await ok(admin, ['create', 'namespace', 'team-e']);
    await ok(admin, ['create', 'role', 'role-writer', '--verb=get,list,create,update,patch', '--resource=roles.rbac.authorization.k8s.io', '-n', 'team-e']);
    await ok(admin, ['create', 'rolebinding', 'eve-role-writer', '--role=role-writer', '--user=eve', '-n', 'team-e']);
    await ok(admin, ['create', 'role', 'small', '--verb=get', '--resource=roles.rbac.authorization.k8s.io', '-n', 'team-e']);
    const everything = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'root', namespace: 'team-e' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] };
    const file = path.join(dir.path, 'root-role.yaml');
    await writeFile(file, stringify(everything));
    const smallFile = path.join(dir.path, 'small-role.yaml');
    await writeFile(smallFile, stringify({ ...everything, metadata: { name: 'small', namespace: 'team-e' } }));
    const rule = '{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}';
    const attempts: string[][] = [
      ['apply', '--server-side', '-f', file],
      ['apply', '--server-side', '--force-conflicts', '-f', smallFile],
      ['apply', '-f', file],
      ['create', '-f', file, '--dry-run=server'],
      ['apply', '--server-side', '--dry-run=server', '-f', file],
      ['replace', '-f', smallFile],
      ['patch', 'role', 'small', '-n', 'team-e', '--type=json', '-p', `[{"op":"replace","path":"/rules","value":[${rule}]}]`],
      ['patch', 'role', 'small', '-n', 'team-e', '--type=merge', '-p', `{"rules":[${rule}]}`],
      ['patch', 'role', 'small', '-n', 'team-e', '--type=strategic', '-p', `{"rules":[${rule}]}`],
    ];
    for (const args of attempts) {
      const result = await admin.run([...args, '--as', 'eve']);
      expect(result.code, describeResult(args, result)).not.toBe(0);
      expect(result.stderr, describeResult(args, result)).toContain('is attempting to grant RBAC permissions not currently held');
    }
    const missing = await admin.run(['get', 'role', 'root', '-n', 'team-e']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('roles.rbac.authorization.k8s.io "root" not found');
    const small = parse(await ok(admin, ['get', 'role', 'small', '-n', 'team-e', '-o', 'yaml'])) as { rules: unknown[] };
    expect(small.rules).toEqual([{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['get'] }]);
  });
});
