// RBAC: kube's rule matching, the authorizer over HTTP (bindings, namespaces, service accounts,
// non-resource URLs, the default bootstrap policy) and --authorization-mode parsing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { authorizersFor, parseAuthorizationModes } from '../../../api/auth/rbac-authorizer.ts';
import type { RbacReader } from '../../../api/auth/rbac-authorizer.ts';
import { compactRules, compactString, missingRules, ruleAllows } from '../../../api/auth/rbac-rules.ts';
import type { PolicyRule, RuleRequest } from '../../../api/auth/rbac-rules.ts';
import { ensureRbacBootstrap } from '../../../deploy/rbac-bootstrap.ts';
import { ImmediateBackend, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

function resourceRequest(verb: string, apiGroup: string, resource: string, subresource = '', name = ''): RuleRequest {
  return { verb, isResourceRequest: true, path: '', apiGroup, resource, subresource, name };
}

function pathRequest(verb: string, path: string): RuleRequest {
  return { verb, isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '', name: '' };
}

describe('rule matching (rbac.go RuleAllows)', () => {
  it.each<[string, PolicyRule, RuleRequest, boolean]>([
    ['exact verb, group and resource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, resourceRequest('get', '', 'pods'), true],
    ['other verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, resourceRequest('list', '', 'pods'), false],
    ['other group', { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, resourceRequest('get', '', 'pods'), false],
    ['wildcards', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, resourceRequest('delete', 'apps', 'deployments', 'scale'), true],
    ['a resource does not cover its subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, resourceRequest('get', '', 'pods', 'log'), false],
    ['resource/subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, resourceRequest('get', '', 'pods', 'log'), true],
    ['*/subresource', { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, resourceRequest('get', '', 'nodes', 'status'), true],
    ['*/subresource is not the resource', { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, resourceRequest('get', '', 'nodes'), false],
    ['resourceNames match', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, resourceRequest('get', '', 'configmaps', '', 'a'), true],
    ['resourceNames exclude', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, resourceRequest('get', '', 'configmaps', '', 'b'), false],
    ['resourceNames never match a list', { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, resourceRequest('list', '', 'configmaps'), false],
    ['non-resource exact', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, pathRequest('get', '/healthz'), true],
    ['non-resource prefix', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, pathRequest('get', '/apis/apps/v1'), true],
    ['non-resource other path', { verbs: ['get'], nonResourceURLs: ['/api'] }, pathRequest('get', '/apis'), false],
    ['non-resource rules do not match resources', { verbs: ['*'], nonResourceURLs: ['*'] }, resourceRequest('get', '', 'pods'), false],
    ['resource rules do not match paths', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, pathRequest('get', '/healthz'), false],
  ])('%s', (_name, rule, request, allowed) => {
    expect(ruleAllows(request, rule)).toBe(allowed);
  });
});

describe('escalation comparison (pkg/registry/rbac/validation)', () => {
  it('breaks rules down and lists what the owner lacks, compacted as kube prints it', () => {
    const owner: PolicyRule[] = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }];
    const missing = missingRules(owner, [{ verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['pods', 'secrets'] }]);
    expect(compactRules(missing).map(compactString).sort()).toEqual([
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}',
    ]);
  });

  it('wildcards, resource/* and url prefixes cover', () => {
    expect(missingRules([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] }])).toEqual([]);
    expect(missingRules([{ verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }])).toEqual([]);
    expect(missingRules([{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/apps'] }])).toEqual([]);
    expect(missingRules([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])).toHaveLength(1);
  });
});

describe('--authorization-mode', () => {
  it('parses kube mode lists and refuses unknown or repeated modes', () => {
    expect(parseAuthorizationModes('RBAC')).toEqual(['RBAC']);
    expect(parseAuthorizationModes('AlwaysDeny,RBAC')).toEqual(['AlwaysDeny', 'RBAC']);
    expect(() => parseAuthorizationModes('Foo')).toThrow('authorization-mode "Foo" is not a valid mode');
    expect(() => parseAuthorizationModes('RBAC,RBAC')).toThrow('authorization-mode "RBAC" has mode specified more than once');
    expect(() => parseAuthorizationModes('')).toThrow('at least one authorization-mode must be passed');
  });
});

const rbac = '/apis/rbac.authorization.k8s.io/v1';

describe('RBAC authorizer over HTTP', () => {
  let harness: Harness;
  // The authorizer reads the harness's own store (created inside startHarness).
  const reader: RbacReader = { get: (key) => harness.backend.get(key), list: (collection) => harness.backend.list(collection) };

  beforeEach(async () => {
    harness = await startHarness(['default', 't', 'u'], { authorizers: authorizersFor(['RBAC'], reader) });
    await ensureRbacBootstrap(new StoreClient(harness.backend));
  });
  afterEach(async () => {
    await harness.close();
  });

  const alice = { 'x-test-user': 'alice;devs' };

  it('denies with kube\'s 403 when nothing binds the user', async () => {
    const response = await harness.request('GET', '/api/v1/namespaces/t/pods', undefined, alice);
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "t"');
  });

  it('the bootstrap policy lets every authenticated user read discovery and health', async () => {
    for (const url of ['/api', '/apis', '/api/v1', '/apis/rbac.authorization.k8s.io/v1', '/version', '/healthz', '/readyz', '/livez', '/openapi/v2']) {
      expect((await harness.request('GET', url, undefined, alice)).statusCode, url).toBe(200);
    }
    expect((await harness.request('GET', '/metrics', undefined, alice)).statusCode).toBe(403);
  });

  it('a RoleBinding grants its Role in its namespace only', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/roles`, { kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
    await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'alice-reads' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' }, subjects: [{ kind: 'User', name: 'alice' }] });
    expect((await harness.request('GET', '/api/v1/namespaces/t/pods', undefined, alice)).statusCode).toBe(200);
    expect((await harness.request('GET', '/api/v1/namespaces/u/pods', undefined, alice)).statusCode).toBe(403);
    expect((await harness.request('GET', '/api/v1/pods', undefined, alice)).statusCode).toBe(403);
    expect((await harness.request('DELETE', '/api/v1/namespaces/t/pods/x', undefined, alice)).statusCode).toBe(403);
    expect((await harness.request('GET', '/api/v1/namespaces/t/pods', undefined, { 'x-test-user': 'bob;devs' })).statusCode).toBe(403);
  });

  it('a RoleBinding to a ClusterRole grants it in the binding\'s namespace; groups and service accounts match', async () => {
    await harness.request('POST', `${rbac}/namespaces/u/rolebindings`, { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'devs-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:aggregate-to-view' }, subjects: [{ kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'robot' }] });
    expect((await harness.request('GET', '/api/v1/namespaces/u/configmaps', undefined, alice)).statusCode).toBe(200);
    expect((await harness.request('GET', '/api/v1/namespaces/t/configmaps', undefined, alice)).statusCode).toBe(403);
    expect((await harness.request('GET', '/api/v1/namespaces/u/secrets', undefined, alice)).statusCode).toBe(403);
    const robot = { 'x-test-user': 'system:serviceaccount:u:robot;system:serviceaccounts,system:serviceaccounts:u' };
    expect((await harness.request('GET', '/api/v1/namespaces/u/configmaps', undefined, robot)).statusCode).toBe(200);
    const otherRobot = { 'x-test-user': 'system:serviceaccount:t:robot;system:serviceaccounts,system:serviceaccounts:t' };
    expect((await harness.request('GET', '/api/v1/namespaces/u/configmaps', undefined, otherRobot)).statusCode).toBe(403);
  });

  it('a ClusterRoleBinding grants everywhere, resourceNames limit to names, non-resource URLs match', async () => {
    await harness.request('POST', `${rbac}/clusterroles`, { kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'cm-a' }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }, { verbs: ['get'], nonResourceURLs: ['/metrics'] }] });
    await harness.request('POST', `${rbac}/clusterrolebindings`, { kind: 'ClusterRoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'alice-cm-a' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-a' }, subjects: [{ kind: 'User', name: 'alice' }] });
    expect((await harness.request('GET', '/api/v1/namespaces/t/configmaps/a', undefined, alice)).statusCode).toBe(404);
    expect((await harness.request('GET', '/api/v1/namespaces/u/configmaps/a', undefined, alice)).statusCode).toBe(404);
    expect((await harness.request('GET', '/api/v1/namespaces/t/configmaps/b', undefined, alice)).statusCode).toBe(403);
    expect((await harness.request('GET', '/api/v1/namespaces/t/configmaps', undefined, alice)).statusCode).toBe(403);
    expect((await harness.request('GET', '/metrics', undefined, alice)).statusCode).toBe(200);
  });

  it('a binding to a missing role grants nothing and says so', async () => {
    await harness.request('POST', `${rbac}/namespaces/t/rolebindings`, { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'dangling' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'nope' }, subjects: [{ kind: 'User', name: 'alice' }] });
    const response = await harness.request('GET', '/api/v1/namespaces/t/pods', undefined, alice);
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "t": RBAC: role.rbac.authorization.k8s.io "nope" not found');
  });

  it('AlwaysDeny says everything is forbidden; system:masters still passes', async () => {
    const denying = await startHarness(['t'], { authorizers: authorizersFor(['AlwaysDeny'], new StoreClient(new ImmediateBackend())) });
    try {
      const response = await denying.request('GET', '/api/v1/namespaces/t/configmaps', undefined, alice);
      expect(response.statusCode).toBe(403);
      expect(response.json().message).toBe('configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "t": Everything is forbidden.');
      expect((await denying.request('GET', '/api/v1/namespaces/t/configmaps')).statusCode).toBe(200);
    } finally {
      await denying.close();
    }
  });
});
