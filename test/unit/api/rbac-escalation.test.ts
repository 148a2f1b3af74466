// RBAC escalation prevention (kube's exact 403 texts, escalate and bind, system:masters) and
// the authorization.k8s.io access reviews, over HTTP with the RBAC chain and the bootstrap policy.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { authorizersFor } from '../../../api/auth/rbac-authorizer.ts';
import type { RbacReader } from '../../../api/auth/rbac-authorizer.ts';
import { ensureRbacBootstrap } from '../../../deploy/rbac-bootstrap.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const authz = '/apis/authorization.k8s.io/v1';
const alice = { 'x-test-user': 'alice;devs' };
let harness: Harness;
const reader: RbacReader = { get: (key) => harness.backend.get(key), list: (collection) => harness.backend.list(collection) };

function role(name: string, rules: unknown[]): Record<string, unknown> {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules };
}

function clusterRole(name: string, rules: unknown[]): Record<string, unknown> {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
}

function roleBinding(name: string, kind: string, roleName: string, user = 'alice'): Record<string, unknown> {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName }, subjects: [{ kind: 'User', name: user }] };
}

beforeEach(async () => {
  harness = await startHarness(['default', 't'], { authorizers: authorizersFor(['RBAC'], reader) });
  await ensureRbacBootstrap(new StoreClient(harness.backend));
  // alice may read pods and manage roles and bindings in t (as admin/system:aggregate-to-admin would let her).
  await harness.request('POST', `${rbac}/namespaces/t/roles`, role('alice-powers', [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] },
  ]));
  await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, roleBinding('alice-powers', 'Role', 'alice-powers'));
});
afterEach(async () => {
  await harness.close();
});

describe('escalation prevention on roles', () => {
  it('a user may create a Role with rules she holds', async () => {
    const response = await harness.request('POST', `${rbac}/namespaces/t/roles`, role('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]), alice);
    expect(response.statusCode, response.body).toBe(201);
  });

  it('refuses rules she does not hold with kube\'s message', async () => {
    const response = await harness.request('POST', `${rbac}/namespaces/t/roles`, role('secret-reader', [
      { apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['get', 'delete'] },
    ]), alice);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, details: { name: 'secret-reader', group: 'rbac.authorization.k8s.io', kind: 'roles' } });
    expect(response.json().message).toBe([
      'roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:',
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    ].join('\n'));
  });

  it('a PATCH adding rules she lacks is refused too; a PUT keeping held rules passes', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, role('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]), alice);
    const patched = await harness.request('PATCH', `${rbac}/namespaces/t/roles/pod-reader`, { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'create'] }] }, { ...alice, 'content-type': 'application/merge-patch+json' });
    expect(patched.statusCode).toBe(403);
    expect(patched.json().message).toContain('{APIGroups:[""], Resources:["pods"], Verbs:["create"]}');
    const put = await harness.request('PUT', `${rbac}/namespaces/t/roles/pod-reader`, role('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]), alice);
    expect(put.statusCode, put.body).toBe(200);
  });

  it('an update of only ownerReferences and finalizers (the garbage collector\'s) is not checked; other changes are', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, role('big', [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]));
    const merge = { ...alice, 'content-type': 'application/merge-patch+json' };
    const owned = await harness.request('PATCH', `${rbac}/namespaces/t/roles/big`, { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1' }] } }, merge);
    expect(owned.statusCode, owned.body).toBe(200);
    const labelled = await harness.request('PATCH', `${rbac}/namespaces/t/roles/big`, { metadata: { labels: { a: 'b' } } }, merge);
    expect(labelled.statusCode).toBe(403);
    expect(labelled.json().message).toContain('{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}');
  });

  it('escalate on roles lifts the check; system:masters never meets it', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, role('escalator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }]));
    await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, roleBinding('escalator', 'Role', 'escalator'));
    expect((await harness.request('POST', `${rbac}/namespaces/t/roles`, role('anything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]), alice)).statusCode).toBe(201);
    expect((await harness.request('POST', `${rbac}/clusterroles`, clusterRole('anything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]))).statusCode).toBe(201);
  });

  it('an aggregationRule needs cluster-admin', async () => {
    await harness.request('POST', `${rbac}/clusterroles`, clusterRole('role-writer', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create'] }]));
    await harness.request('POST', `${rbac}/clusterrolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'role-writer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'role-writer' }, subjects: [{ kind: 'User', name: 'alice' }] });
    const response = await harness.request('POST', `${rbac}/clusterroles`, { ...clusterRole('aggregated', []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } }, alice);
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe('clusterroles.rbac.authorization.k8s.io "aggregated" is forbidden: must have cluster-admin privileges to use the aggregationRule');
  });
});

describe('escalation prevention on bindings', () => {
  it('binding a role whose rules she holds is fine; binding more is refused', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, role('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]));
    expect((await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, roleBinding('bob-reads', 'Role', 'pod-reader', 'bob'), alice)).statusCode).toBe(201);
    const response = await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, roleBinding('bob-admin', 'ClusterRole', 'system:aggregate-to-edit', 'bob'), alice);
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toMatch(/^rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user "alice" \(groups=\["devs" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["configmaps"\], Verbs:\["create" "update" "patch" "delete" "deletecollection"\]\}\n/);
  });

  it('a binding to a missing role is refused with the registry\'s NotFound text', async () => {
    const response = await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, roleBinding('dangling', 'Role', 'nope', 'bob'), alice);
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe('rolebindings.rbac.authorization.k8s.io "dangling" is forbidden: roles.rbac.authorization.k8s.io "nope" not found');
  });

  it('bind on the role (by name) lifts the check', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, role('binder', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['view'] }]));
    await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, roleBinding('binder', 'Role', 'binder'));
    expect((await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, roleBinding('bob-view', 'ClusterRole', 'view', 'bob'), alice)).statusCode).toBe(201);
    expect((await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, roleBinding('bob-admin', 'ClusterRole', 'cluster-admin', 'bob'), alice)).statusCode).toBe(403);
  });
});

describe('access reviews', () => {
  it('SelfSubjectAccessReview answers for the caller (kubectl auth can-i)', async () => {
    const allowed = await harness.request('POST', `${authz}/selfsubjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 't', verb: 'list', resource: 'pods' } } }, alice);
    expect(allowed.statusCode, allowed.body).toBe(201);
    expect(allowed.json()).toMatchObject({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-powers/t" of Role "alice-powers" to User "alice"' } });
    const denied = await harness.request('POST', `${authz}/selfsubjectaccessreviews`, { spec: { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } } }, alice);
    expect(denied.json().status).toEqual({ allowed: false });
    const path = await harness.request('POST', `${authz}/selfsubjectaccessreviews`, { spec: { nonResourceAttributes: { path: '/version', verb: 'get' } } }, alice);
    expect(path.json().status.allowed).toBe(true);
  });

  it('refuses a review with no attributes (422)', async () => {
    const response = await harness.request('POST', `${authz}/selfsubjectaccessreviews`, { spec: {} }, alice);
    expect(response.statusCode).toBe(422);
    expect(response.json().details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified', field: 'spec.resourceAttributes' }]);
  });

  it('SubjectAccessReview is for those allowed to create it; LocalSubjectAccessReview checks its namespace', async () => {
    const review = { spec: { user: 'alice', groups: ['devs'], resourceAttributes: { namespace: 't', verb: 'get', resource: 'pods' } } };
    expect((await harness.request('POST', `${authz}/subjectaccessreviews`, review, alice)).statusCode).toBe(403);
    const response = await harness.request('POST', `${authz}/subjectaccessreviews`, review);
    expect(response.statusCode).toBe(201);
    expect(response.json().status.allowed).toBe(true);
    const local = await harness.request('POST', `${authz}/namespaces/default/localsubjectaccessreviews`, review);
    expect(local.statusCode).toBe(422);
    expect(local.json().details.causes[0]).toMatchObject({ field: 'spec.resourceAttributes.namespace' });
  });

  it('SelfSubjectRulesReview lists the caller\'s rules in a namespace (kubectl auth can-i --list)', async () => {
    const response = await harness.request('POST', `${authz}/selfsubjectrulesreviews`, { spec: { namespace: 't' } }, alice);
    expect(response.statusCode).toBe(201);
    const status = response.json().status;
    expect(status.incomplete).toBe(false);
    expect(status.resourceRules).toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] });
    expect(status.resourceRules).toContainEqual({ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] });
    expect(status.nonResourceRules).toContainEqual(expect.objectContaining({ verbs: ['get'], nonResourceURLs: expect.arrayContaining(['/api', '/apis/*']) }));
  });
});
