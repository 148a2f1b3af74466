// Impersonation over HTTP with RBAC (kube's WithImpersonation): the caller needs `impersonate`
// on each user, group, service account, extra and uid it names (403 in kube's words otherwise);
// the request then runs and is authorized as the impersonated identity; groups/extra/uid
// without a user is 400; SelfSubjectAccessReview answers for the impersonated user.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { authorizersFor } from '../../../api/auth/rbac-authorizer.ts';
import type { RbacReader } from '../../../api/auth/rbac-authorizer.ts';
import { ensureRbacBootstrap } from '../../../deploy/rbac-bootstrap.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const alice = { 'x-test-user': 'alice;dev' };
const cms = '/api/v1/namespaces/t/configmaps';

let harness: Harness;
const reader: RbacReader = { get: (key) => harness.backend.get(key), list: (collection) => harness.backend.list(collection) };

beforeEach(async () => {
  harness = await startHarness(['default', 't'], { authorizers: authorizersFor(['RBAC'], reader) });
  await ensureRbacBootstrap(new StoreClient(harness.backend));
  const created = [
    // alice may impersonate bob, the group readers and the service account t/robot, and extra "scopes" values.
    await harness.request('POST', `${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'impersonator' }, rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['bob'] },
      { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: ['readers'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes', 'uids'], verbs: ['impersonate'] },
    ] }),
    await harness.request('POST', `${rbac}/clusterrolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'alice-impersonates' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonator' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }] }),
    await harness.request('POST', `${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cm-reader' }, rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
    ] }),
    // the group readers may read configmaps in t; the service account robot may list them too.
    await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'readers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-reader' }, subjects: [
        { kind: 'Group', name: 'readers', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 'robot', namespace: 't' },
      ] }),
  ];
  for (const response of created) expect(response.statusCode, response.body).toBe(201);
});
afterEach(async () => {
  await harness.close();
});

describe('impersonation', () => {
  it('runs the request as the impersonated user, authorized as that user', async () => {
    expect((await harness.request('GET', cms, undefined, alice)).statusCode).toBe(403);
    const asBob = await harness.request('GET', cms, undefined, { ...alice, 'impersonate-user': 'bob' });
    expect(asBob.statusCode).toBe(403);
    expect(asBob.json().message).toBe('configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "t"');
    const asReader = await harness.request('GET', cms, undefined, { ...alice, 'impersonate-user': 'bob', 'impersonate-group': 'readers' });
    expect(asReader.statusCode, asReader.body).toBe(200);
    const asRobot = await harness.request('GET', cms, undefined, { ...alice, 'impersonate-user': 'system:serviceaccount:t:robot' });
    expect(asRobot.statusCode, asRobot.body).toBe(200);
  });

  it('needs impersonate on each thing named: 403 in kube\'s words', async () => {
    const carol = await harness.request('GET', cms, undefined, { ...alice, 'impersonate-user': 'carol' });
    expect(carol.statusCode).toBe(403);
    expect(carol.json()).toMatchObject({ reason: 'Forbidden', message: 'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope' });
    const admins = await harness.request('GET', cms, undefined, { ...alice, 'impersonate-user': 'bob', 'impersonate-group': 'system:masters' });
    expect(admins.statusCode).toBe(403);
    expect(admins.json().message).toBe('groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope');
    const extra = await harness.request('GET', cms, undefined, { ...alice, 'impersonate-user': 'bob', 'impersonate-extra-reason': 'x' });
    expect(extra.json().message).toBe('userextras.authentication.k8s.io "x" is forbidden: User "alice" cannot impersonate resource "userextras/reason" in API group "authentication.k8s.io" at the cluster scope');
    const bob = await harness.request('GET', cms, undefined, { 'x-test-user': 'bob', 'impersonate-user': 'alice' });
    expect(bob.statusCode).toBe(403);
  });

  it('groups, extra or uid without a user is 400', async () => {
    const response = await harness.request('GET', cms, undefined, { ...alice, 'impersonate-group': 'readers' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ reason: 'BadRequest' });
    expect(response.json().message).toMatch(/^requested \[\{Group .*readers.*\}\] without impersonating a user$/);
  });

  it('a SelfSubjectAccessReview answers for the impersonated identity, with its extra and uid', async () => {
    const review = (headers: Record<string, string>) => harness.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 't', verb: 'list', resource: 'configmaps' } },
    }, headers);
    expect((await review(alice)).json().status.allowed).toBe(false);
    const asReader = await review({ ...alice, 'impersonate-user': 'bob', 'impersonate-group': 'readers', 'impersonate-extra-scopes': 'read', 'impersonate-uid': 'u-1' });
    expect(asReader.statusCode, asReader.body).toBe(201);
    expect(asReader.json().status.allowed).toBe(true);
  });
});
