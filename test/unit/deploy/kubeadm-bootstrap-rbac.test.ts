// kubeadm's bootstrap-token RBAC as the server creates it: the bindings, the get-nodes role and the
// cluster-info Role/RoleBinding with kubeadm's names and contents; an edited one gets kubeadm's
// subjects back; and with the default policy the RBAC authorizer then lets a bootstrap token post
// CSRs and get nodes, and an anonymous user read cluster-info only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapClusterRoles, rbacAuthorizer, StoreClient } from '../../../api/index.ts';
import {
  ensureKubeadmBootstrapRbac, keepKubeadmBootstrapRbac, kubeadmReferencedClusterRoles, nodeBootstrapTokenAuthGroup,
} from '../../../deploy/kubeadm-bootstrap-rbac.ts';
import { ensureRbacBootstrap } from '../../../deploy/rbac-bootstrap.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startHarness } from '../api/harness.ts';
import type { Harness } from '../api/harness.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness(['default', 'kube-public']);
});
afterEach(async () => {
  await harness.close();
});

const rbacSubject = (kind: string, name: string) => ({ kind, apiGroup: 'rbac.authorization.k8s.io', name });

describe('kubeadm bootstrap-token RBAC', () => {
  it('creates kubeadm\'s bindings, roles and the cluster-info grant with kubeadm\'s names and contents', async () => {
    const logs: string[] = [];
    await ensureKubeadmBootstrapRbac(new StoreClient(harness.backend), (line) => logs.push(line));
    const binding = async (name: string) => (await harness.request('GET', `${rbac}/clusterrolebindings/${name}`)).json();
    expect(await binding('kubeadm:kubelet-bootstrap')).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' }, subjects: [rbacSubject('Group', nodeBootstrapTokenAuthGroup)],
    });
    expect(await binding('kubeadm:node-autoapprove-bootstrap')).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient' }, subjects: [rbacSubject('Group', nodeBootstrapTokenAuthGroup)],
    });
    expect(await binding('kubeadm:node-autoapprove-certificate-rotation')).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient' }, subjects: [rbacSubject('Group', 'system:nodes')],
    });
    expect(await binding('kubeadm:get-nodes')).toMatchObject({ roleRef: { kind: 'ClusterRole', name: 'kubeadm:get-nodes' }, subjects: [rbacSubject('Group', nodeBootstrapTokenAuthGroup)] });
    expect((await harness.request('GET', `${rbac}/clusterroles/kubeadm:get-nodes`)).json().rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }]);
    expect((await harness.request('GET', `${rbac}/namespaces/kube-public/roles/kubeadm:bootstrap-signer-clusterinfo`)).json().rules)
      .toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }]);
    expect((await harness.request('GET', `${rbac}/namespaces/kube-public/rolebindings/kubeadm:bootstrap-signer-clusterinfo`)).json()).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeadm:bootstrap-signer-clusterinfo' }, subjects: [rbacSubject('User', 'system:anonymous')],
    });
    expect(logs).toHaveLength(7);
    // A second round changes nothing.
    await ensureKubeadmBootstrapRbac(new StoreClient(harness.backend), (line) => logs.push(line));
    expect(logs).toHaveLength(7);
  });

  it('gives an edited binding kubeadm\'s subjects back, and refuses one whose roleRef points elsewhere', async () => {
    const client = new StoreClient(harness.backend);
    await ensureKubeadmBootstrapRbac(client);
    const patched = await harness.request('PATCH', `${rbac}/clusterrolebindings/kubeadm:node-autoapprove-bootstrap`, { subjects: [rbacSubject('User', 'mallory')] }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.statusCode).toBe(200);
    await ensureKubeadmBootstrapRbac(client);
    expect((await harness.request('GET', `${rbac}/clusterrolebindings/kubeadm:node-autoapprove-bootstrap`)).json().subjects).toEqual([rbacSubject('Group', nodeBootstrapTokenAuthGroup)]);

    expect((await harness.request('DELETE', `${rbac}/clusterrolebindings/kubeadm:get-nodes`)).statusCode).toBe(200);
    const other = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'kubeadm:get-nodes' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [] };
    expect((await harness.request('POST', `${rbac}/clusterrolebindings`, other)).statusCode).toBe(201);
    await expect(ensureKubeadmBootstrapRbac(client)).rejects.toThrow('clusterrolebindings kubeadm:get-nodes refers to another role; its roleRef cannot change');
  });

  it('with the default policy, lets a bootstrap token post CSRs and get nodes, and anonymous read cluster-info only', async () => {
    const client = new StoreClient(harness.backend);
    await ensureRbacBootstrap(client);
    await ensureKubeadmBootstrapRbac(client);
    const authorizer = rbacAuthorizer(client);
    const ask = async (user: string, groups: string[], verb: string, apiGroup: string, resource: string, namespace = '', name = '') => (await authorizer.authorize({
      user: { name: user, uid: '', groups, extra: {} }, verb, isResourceRequest: true, path: '', apiGroup, apiVersion: 'v1', namespace, resource, subresource: '', name,
    })).decision;
    const token = ['system:bootstrap:abcdef', [nodeBootstrapTokenAuthGroup, 'system:bootstrappers', 'system:authenticated']] as const;
    expect(await ask(token[0], [...token[1]], 'create', 'certificates.k8s.io', 'certificatesigningrequests')).toBe('allow');
    expect(await ask(token[0], [...token[1]], 'get', '', 'nodes', '', 'worker-1')).toBe('allow');
    expect(await ask(token[0], [...token[1]], 'list', '', 'nodes')).toBe('noOpinion');
    expect(await ask('system:anonymous', ['system:unauthenticated'], 'get', '', 'configmaps', 'kube-public', 'cluster-info')).toBe('allow');
    expect(await ask('system:anonymous', ['system:unauthenticated'], 'get', '', 'configmaps', 'kube-public', 'other')).toBe('noOpinion');
    // The default policy provides system:node-bootstrapper; the approval roles are reported where missing.
    expect(bootstrapClusterRoles.map((role) => role.name)).toContain(kubeadmReferencedClusterRoles[0]);
  });

  it('keeps retrying until a round succeeds (kube-public created late), then stops', async () => {
    const bare = await startHarness(['default']);
    try {
      const logs: string[] = [];
      const keeper = keepKubeadmBootstrapRbac(new StoreClient(bare.backend), (line) => logs.push(line));
      await waitFor(() => logs.some((line) => line.includes('retrying')), { timeoutMs: 5_000, description: 'a failed round' });
      expect((await bare.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-public' } })).statusCode).toBe(201);
      await waitFor(async () => (await bare.request('GET', `${rbac}/namespaces/kube-public/rolebindings/kubeadm:bootstrap-signer-clusterinfo`)).statusCode === 200, { timeoutMs: 5_000, description: 'the cluster-info RoleBinding' });
      keeper.stop();
    } finally {
      await bare.close();
    }
  });
});
