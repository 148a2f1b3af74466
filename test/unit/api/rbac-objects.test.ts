// rbac.authorization.k8s.io/v1 objects over HTTP: served kinds, kube's validation causes,
// binding defaults, roleRef immutability, table columns and discovery.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function role(name: string, rules: unknown[]): Record<string, unknown> {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules };
}

function binding(name: string, roleRef: Record<string, unknown>, subjects: unknown[]): Record<string, unknown> {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef, subjects };
}

const podReader = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }];

describe('Role and ClusterRole', () => {
  it('creates, reads and lists a Role', async () => {
    const created = await harness.request('POST', `${rbac}/namespaces/t/roles`, role('reader', podReader));
    expect(created.statusCode).toBe(201);
    expect(created.json().rules).toEqual(podReader);
    const listed = await harness.request('GET', `${rbac}/namespaces/t/roles`);
    expect(listed.json().kind).toBe('RoleList');
    expect(listed.json().items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['reader']);
  });

  it('refuses rules without verbs, resources or api groups, and non-resource URLs in a Role (422)', async () => {
    const response = await harness.request('POST', `${rbac}/namespaces/t/roles`, role('bad', [{ resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }]));
    expect(response.statusCode).toBe(422);
    const body = response.json();
    expect(body.message).toMatch(/^Role.rbac.authorization.k8s.io "bad" is invalid: /);
    expect(body.details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value', field: 'rules[0].verbs' },
      { reason: 'FieldValueRequired', message: 'Required value: resource rules must supply at least one api group', field: 'rules[0].apiGroups' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs', field: 'rules[1].nonResourceURLs' },
    ]);
  });

  it('accepts non-resource URLs in a ClusterRole but not mixed with resources', async () => {
    const ok = await harness.request('POST', `${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'health' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] });
    expect(ok.statusCode).toBe(201);
    const mixed = await harness.request('POST', `${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'mixed' }, rules: [{ verbs: ['get'], resources: ['pods'], nonResourceURLs: ['/healthz'] }] });
    expect(mixed.statusCode).toBe(422);
    expect(mixed.json().details.causes[0].message).toBe('Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs');
  });

  it('names must be valid path segments (system:… names are fine)', async () => {
    expect((await harness.request('POST', `${rbac}/clusterroles`, { kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'system:thing' } })).statusCode).toBe(201);
    const bad = await harness.request('POST', `${rbac}/clusterroles`, { kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'a%b' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().details.causes[0]).toEqual({ reason: 'FieldValueInvalid', message: 'Invalid value: "a%b": may not contain \'%\'', field: 'metadata.name' });
  });

  it('prints Name and Created At', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, role('reader', podReader));
    const table = (await harness.request('GET', `${rbac}/namespaces/t/roles`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json();
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Created At']);
    expect(table.rows[0].cells[0]).toBe('reader');
    expect(table.rows[0].cells[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('RoleBinding and ClusterRoleBinding', () => {
  it('defaults the apiGroup of User and Group subjects and of roleRef', async () => {
    const created = await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, binding('b', { kind: 'Role', name: 'reader' }, [
      { kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'default', namespace: 't' },
    ]));
    expect(created.statusCode).toBe(201);
    expect(created.json().roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
    expect(created.json().subjects).toEqual([
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'default', namespace: 't' },
    ]);
  });

  it('refuses bad roleRefs and subjects with kube causes', async () => {
    const response = await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, binding('b', { apiGroup: 'x', kind: 'Pod', name: 'r' }, [
      { kind: 'Robot', name: 'r2' }, { kind: 'ServiceAccount', name: 'sa', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'User', name: 'u', apiGroup: 'v1' },
    ]));
    expect(response.statusCode).toBe(422);
    expect(response.json().details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "x": supported values: "rbac.authorization.k8s.io"', field: 'roleRef.apiGroup' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Pod": supported values: "Role", "ClusterRole"', field: 'roleRef.kind' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"', field: 'subjects[0].kind' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "rbac.authorization.k8s.io": supported values: ""', field: 'subjects[1].apiGroup' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "v1": supported values: "rbac.authorization.k8s.io"', field: 'subjects[2].apiGroup' },
    ]);
  });

  it('a ClusterRoleBinding refers to a ClusterRole only and needs service account namespaces', async () => {
    const response = await harness.request('POST', `${rbac}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'c' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Role": supported values: "ClusterRole"', field: 'roleRef.kind' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'subjects[0].namespace' },
    ]);
  });

  it('roleRef cannot change (422), subjects can', async () => {
    const url = `${rbac}/namespaces/t/rolebindings`;
    await harness.request('POST', url, binding('b', { kind: 'Role', name: 'reader' }, [{ kind: 'User', name: 'alice' }]));
    const changed = await harness.request('PATCH', `${url}/b`, { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } }, { 'content-type': 'application/merge-patch+json' });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().message).toBe('RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: cannot change roleRef');
    const subjects = await harness.request('PATCH', `${url}/b`, { subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }] }, { 'content-type': 'application/merge-patch+json' });
    expect(subjects.statusCode).toBe(200);
  });

  it('prints Role and Age, and the subjects with -o wide', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, binding('b', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'User', name: 'alice' }, { kind: 'User', name: 'bob' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'default', namespace: 't' },
    ]));
    const table = (await harness.request('GET', `${rbac}/namespaces/t/rolebindings`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json();
    expect(table.columnDefinitions.map((column: { name: string; priority: number }) => `${column.name}:${column.priority}`))
      .toEqual(['Name:0', 'Role:0', 'Age:0', 'Users:1', 'Groups:1', 'ServiceAccounts:1']);
    expect(table.rows[0].cells).toEqual(['b', 'ClusterRole/view', expect.any(String), 'alice, bob', 'devs', 't/default']);
  });
});

describe('discovery', () => {
  it('lists the four kinds of rbac.authorization.k8s.io/v1', async () => {
    const list = (await harness.request('GET', rbac)).json();
    expect(list.resources.map((resource: { name: string; namespaced: boolean }) => `${resource.name}:${resource.namespaced}`).sort())
      .toEqual(['clusterrolebindings:false', 'clusterroles:false', 'rolebindings:true', 'roles:true']);
  });
});
