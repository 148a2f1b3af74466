// RBAC escalation prevention on every way to write a role or a binding: POST, PUT of an existing
// object, PUT that creates, JSON patch, merge patch, strategic merge patch, server-side apply
// (YAML and JSON bodies), each with and without dryRun=All, ClusterRoles, bindings to
// cluster-admin and aggregation rules. Each refusal is kube's 403 and stores nothing: no
// proposal reaches the store and the object is unchanged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { StoreClient } from '../../../api/index.ts';
import { authorizersFor } from '../../../api/auth/rbac-authorizer.ts';
import type { RbacReader } from '../../../api/auth/rbac-authorizer.ts';
import { ensureRbacBootstrap } from '../../../deploy/rbac-bootstrap.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const rbacGroupName = 'rbac.authorization.k8s.io';
const rbac = `/apis/${rbacGroupName}/v1`;
const eve = { 'x-test-user': 'eve;' };
const everything = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];
const held = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
let harness: Harness;
const reader: RbacReader = { get: (key) => harness.backend.get(key), list: (collection) => harness.backend.list(collection) };

function role(name: string, rules: unknown[], kind = 'Role'): Record<string, unknown> {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name }, rules };
}

function binding(name: string, roleKind: string, roleName: string, kind = 'RoleBinding'): Record<string, unknown> {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName }, subjects: [{ kind: 'User', name: 'eve' }] };
}

beforeEach(async () => {
  harness = await startHarness(['default', 't'], { authorizers: authorizersFor(['RBAC'], reader) });
  await ensureRbacBootstrap(new StoreClient(harness.backend));
  // eve may write roles and bindings in t (and cluster roles and bindings), and read configmaps there — nothing else.
  const grant = async (path: string, object: Record<string, unknown>) => {
    const response = await harness.request('POST', path, object);
    if (response.statusCode !== 201) throw new Error(response.body);
  };
  const writeVerbs = ['get', 'list', 'create', 'update', 'patch', 'delete'];
  await grant(`${rbac}/namespaces/t/roles`, role('eve-powers', [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: writeVerbs },
  ]));
  await grant(`${rbac}/namespaces/t/rolebindings`, binding('eve-powers', 'Role', 'eve-powers'));
  await grant(`${rbac}/clusterroles`, role('eve-cluster-powers', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings'], verbs: writeVerbs }], 'ClusterRole'));
  await grant(`${rbac}/clusterrolebindings`, binding('eve-cluster-powers', 'ClusterRole', 'eve-cluster-powers', 'ClusterRoleBinding'));
  // Objects eve may legitimately hold, to be patched and replaced.
  await grant(`${rbac}/namespaces/t/roles`, role('mine', held));
  await grant(`${rbac}/clusterroles`, role('mine', held, 'ClusterRole'));
});
afterEach(async () => {
  await harness.close();
});

interface Attempt {
  readonly method: 'POST' | 'PUT' | 'PATCH';
  readonly path: string;
  readonly body: string;
  readonly contentType: string;
}

const mediaOf = {
  json: 'application/json',
  yaml: 'application/yaml',
  jsonPatch: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** Every way to turn `existing` (or a new `fresh`) of a role-like resource into one holding `rules`. */
function roleAttempts(collection: string, kind: string, rules: unknown[]): Attempt[] {
  const full = (name: string) => role(name, rules, kind);
  return [
    { method: 'POST', path: collection, body: JSON.stringify(full('fresh')), contentType: mediaOf.json },
    { method: 'POST', path: collection, body: toYaml(full('fresh-post')), contentType: mediaOf.yaml },
    { method: 'PUT', path: `${collection}/mine`, body: JSON.stringify(full('mine')), contentType: mediaOf.json },
    { method: 'PUT', path: `${collection}/fresh-put`, body: JSON.stringify(full('fresh-put')), contentType: mediaOf.json },
    { method: 'PATCH', path: `${collection}/mine`, body: JSON.stringify([{ op: 'replace', path: '/rules', value: rules }]), contentType: mediaOf.jsonPatch },
    { method: 'PATCH', path: `${collection}/mine`, body: JSON.stringify({ rules }), contentType: mediaOf.merge },
    { method: 'PATCH', path: `${collection}/mine`, body: JSON.stringify({ rules }), contentType: mediaOf.strategic },
    // Forced: the rules are the creator's fields, a plain apply would stop at the field conflict first.
    { method: 'PATCH', path: `${collection}/mine?fieldManager=eve&force=true`, body: toYaml(full('mine')), contentType: mediaOf.apply },
    { method: 'PATCH', path: `${collection}/fresh-yaml?fieldManager=eve`, body: toYaml(full('fresh-yaml')), contentType: mediaOf.apply },
    { method: 'PATCH', path: `${collection}/fresh-json?fieldManager=eve&force=true`, body: JSON.stringify(full('fresh-json')), contentType: mediaOf.apply },
  ];
}

function bindingAttempts(collection: string, kind: string, roleKind: string, roleName: string): Attempt[] {
  const full = (name: string) => binding(name, roleKind, roleName, kind);
  return [
    { method: 'POST', path: collection, body: JSON.stringify(full('fresh')), contentType: mediaOf.json },
    { method: 'PUT', path: `${collection}/fresh`, body: JSON.stringify(full('fresh')), contentType: mediaOf.json },
    { method: 'PATCH', path: `${collection}/fresh?fieldManager=eve`, body: toYaml(full('fresh')), contentType: mediaOf.apply },
  ];
}

async function expectRefused(attempt: Attempt, dryRun: boolean): Promise<void> {
  const separator = attempt.path.includes('?') ? '&' : '?';
  const path = dryRun ? `${attempt.path}${separator}dryRun=All` : attempt.path;
  const before = harness.backend.proposals;
  const stored = JSON.stringify([...harness.backend.list({ group: 'rbac.authorization.k8s.io', resource: 'roles', namespace: 't' }).items, ...harness.backend.list({ group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '' }).items]);
  const response = await harness.request(attempt.method, path, attempt.body, { ...eve, 'content-type': attempt.contentType });
  const label = `${attempt.method} ${path} (${attempt.contentType})`;
  expect(response.statusCode, `${label}: ${response.body}`).toBe(403);
  expect(response.json().reason, label).toBe('Forbidden');
  expect(response.json().message, label).toMatch(/is attempting to grant RBAC permissions not currently held|must have cluster-admin privileges/);
  expect(harness.backend.proposals, `${label} proposed`).toBe(before);
  const after = JSON.stringify([...harness.backend.list({ group: 'rbac.authorization.k8s.io', resource: 'roles', namespace: 't' }).items, ...harness.backend.list({ group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '' }).items]);
  expect(after, `${label} changed the store`).toBe(stored);
}

describe('escalation is refused on every write path, dry run or not', () => {
  for (const dryRun of [false, true]) {
    it(`Roles with rules eve lacks${dryRun ? ' (dryRun=All)' : ''}`, async () => {
      for (const attempt of roleAttempts(`${rbac}/namespaces/t/roles`, 'Role', everything)) await expectRefused(attempt, dryRun);
    });

    it(`ClusterRoles with rules eve lacks, and aggregation rules${dryRun ? ' (dryRun=All)' : ''}`, async () => {
      for (const attempt of roleAttempts(`${rbac}/clusterroles`, 'ClusterRole', everything)) await expectRefused(attempt, dryRun);
      const aggregated = { ...role('fresh', [], 'ClusterRole'), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } };
      await expectRefused({ method: 'PATCH', path: `${rbac}/clusterroles/fresh?fieldManager=eve`, body: toYaml(aggregated), contentType: mediaOf.apply }, dryRun);
      await expectRefused({ method: 'PATCH', path: `${rbac}/clusterroles/mine`, body: JSON.stringify({ aggregationRule: aggregated.aggregationRule }), contentType: mediaOf.merge }, dryRun);
    });

    it(`bindings to cluster-admin and to roles eve lacks${dryRun ? ' (dryRun=All)' : ''}`, async () => {
      for (const attempt of bindingAttempts(`${rbac}/namespaces/t/rolebindings`, 'RoleBinding', 'ClusterRole', 'cluster-admin')) await expectRefused(attempt, dryRun);
      for (const attempt of bindingAttempts(`${rbac}/clusterrolebindings`, 'ClusterRoleBinding', 'ClusterRole', 'cluster-admin')) await expectRefused(attempt, dryRun);
    });
  }

  it('the same writes with rules eve holds pass on every path', async () => {
    for (const attempt of roleAttempts(`${rbac}/namespaces/t/roles`, 'Role', held)) {
      const response = await harness.request(attempt.method, attempt.path, attempt.body, { ...eve, 'content-type': attempt.contentType });
      expect(response.statusCode, `${attempt.method} ${attempt.path} ${attempt.contentType}: ${response.body}`).toBeLessThan(300);
    }
  });

  it('escalate on one role name lifts the check for a PUT of that name (the URL names it), not for a POST', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, role('escalator', [{ apiGroups: [rbacGroupName], resources: ['roles'], verbs: ['escalate'], resourceNames: ['root'] }]));
    await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, { ...binding('eve-escalator', 'Role', 'escalator'), metadata: { name: 'eve-escalator' } });
    const posted = await harness.request('POST', `${rbac}/namespaces/t/roles`, JSON.stringify(role('root', everything)), { ...eve, 'content-type': mediaOf.json });
    expect(posted.statusCode, posted.body).toBe(403);
    const put = await harness.request('PUT', `${rbac}/namespaces/t/roles/root`, JSON.stringify(role('root', everything)), { ...eve, 'content-type': mediaOf.json });
    expect(put.statusCode, put.body).toBe(201);
  });

  it('a merge patch re-pointing a binding at cluster-admin is refused', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, role('small', held));
    const created = await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, binding('b', 'Role', 'small'), eve);
    expect(created.statusCode, created.body).toBe(201);
    // roleRef is immutable (422) in kube too, but the escalation check comes first and stores nothing.
    const response = await harness.request('PATCH', `${rbac}/namespaces/t/rolebindings/b`, JSON.stringify({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' } }), { ...eve, 'content-type': mediaOf.merge });
    expect([403, 422]).toContain(response.statusCode);
    const stored = harness.backend.get({ group: 'rbac.authorization.k8s.io', resource: 'rolebindings', namespace: 't', name: 'b' });
    expect(stored?.['roleRef']).toMatchObject({ kind: 'Role', name: 'small' });
  });
});
