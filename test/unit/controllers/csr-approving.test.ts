// csrapproving over an in-memory state: node client requests from a requester RBAC allows are
// approved (bootstrap group via nodeclient, a node renewing itself via selfnodeclient), others stay
// pending; the review reads ClusterRoleBindings as kube's authorizer chain would.
import { afterEach, describe, expect, it } from 'vitest';
import { CsrApprovingController, subjectAccessAllowed } from '../../../actors/controllers/index.ts';
import type { Controller } from '../../../actors/controllers/index.ts';
import { at, clusterRole, clusterRoleBinding, conditionsOf, csrKey, csrObject, makeRequest, world } from './csr-fixtures.ts';

const bootstrapGroup = 'system:bootstrappers:kubeadm:default-node-token';
const nodeclient = 'system:certificates.k8s.io:certificatesigningrequests:nodeclient';
const selfnodeclient = 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient';

const started: Controller[] = [];
afterEach(async () => {
  for (const controller of started.splice(0)) await controller.stop();
});

function approver(w: ReturnType<typeof world>): CsrApprovingController {
  const controller = new CsrApprovingController(w.context);
  controller.start();
  started.push(controller);
  return controller;
}

function kubeadmRbac(w: ReturnType<typeof world>): void {
  w.put(clusterRole(nodeclient, ['certificatesigningrequests/nodeclient']));
  w.put(clusterRoleBinding(nodeclient, nodeclient, [{ kind: 'Group', name: bootstrapGroup }]));
  w.put(clusterRole(selfnodeclient, ['certificatesigningrequests/selfnodeclient']));
  w.put(clusterRoleBinding(selfnodeclient, selfnodeclient, [{ kind: 'Group', name: 'system:nodes' }]));
}

describe('csrapproving', () => {
  it('approves a bootstrapper\'s node client request with kube\'s condition, through an update with a resourceVersion precondition', async () => {
    const w = world();
    kubeadmRbac(w);
    w.setClock(5);
    w.put({ key: csrKey('node-csr-1'), object: csrObject('node-csr-1', { request: await makeRequest('CN=system:node:worker-1, O=system:nodes'), username: 'system:bootstrap:abcdef', groups: [bootstrapGroup, 'system:authenticated'] }) });
    const before = w.csr('node-csr-1')!;
    const controller = approver(w);
    await controller.idle();
    expect(conditionsOf(w.csr('node-csr-1'))).toEqual([{
      type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
      lastUpdateTime: at(5), lastTransitionTime: at(5),
    }]);
    const update = w.proposals.find((command) => command.type === 'update');
    expect(update).toMatchObject({ type: 'update', key: csrKey('node-csr-1'), by: 'system:serviceaccount:kube-system:certificate-controller', preconditions: { resourceVersion: before.metadata.resourceVersion } });
  });

  it('approves a node renewing its own client certificate via selfnodeclient', async () => {
    const w = world();
    kubeadmRbac(w);
    w.put({ key: csrKey('renew'), object: csrObject('renew', { request: await makeRequest('CN=system:node:worker-1, O=system:nodes'), username: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'], usages: ['digital signature', 'key encipherment', 'client auth'] }) });
    await approver(w).idle();
    expect(conditionsOf(w.csr('renew'))).toMatchObject([{ type: 'Approved', reason: 'AutoApproved', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' }]);
  });

  it('leaves pending a node asking for another node\'s certificate (only selfnodeclient is bound to system:nodes)', async () => {
    const w = world();
    kubeadmRbac(w);
    w.put({ key: csrKey('other'), object: csrObject('other', { request: await makeRequest('CN=system:node:worker-2, O=system:nodes'), username: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'] }) });
    await approver(w).idle();
    expect(conditionsOf(w.csr('other'))).toEqual([]);
    expect(w.proposals.filter((command) => command.type === 'update')).toEqual([]);
  });

  it('leaves pending a requester without the permission, and approves it once a binding grants it', async () => {
    const w = world();
    w.put(clusterRole(nodeclient, ['certificatesigningrequests/nodeclient']));
    w.put({ key: csrKey('alice'), object: csrObject('alice', { request: await makeRequest('CN=system:node:worker-1, O=system:nodes'), username: 'alice', groups: ['system:authenticated'] }) });
    const controller = approver(w);
    await controller.idle();
    expect(conditionsOf(w.csr('alice'))).toEqual([]);
    w.put(clusterRoleBinding(nodeclient, nodeclient, [{ kind: 'User', name: 'alice' }]));
    await controller.idle();
    expect(conditionsOf(w.csr('alice'))).toMatchObject([{ type: 'Approved', reason: 'AutoApproved' }]);
  });

  it('does not auto-approve requests that are not node client requests, even from an allowed requester', async () => {
    const w = world();
    kubeadmRbac(w);
    const bootstrapper = { username: 'system:bootstrap:abcdef', groups: [bootstrapGroup, 'system:authenticated'] };
    const cases = {
      'not-nodes-org': csrObject('not-nodes-org', { request: await makeRequest('CN=system:node:worker-1, O=developers'), ...bootstrapper }),
      'not-node-cn': csrObject('not-node-cn', { request: await makeRequest('CN=alice, O=system:nodes'), ...bootstrapper }),
      'two-orgs': csrObject('two-orgs', { request: await makeRequest('CN=system:node:w, O=system:nodes, O=system:masters'), ...bootstrapper }),
      'dns-san': csrObject('dns-san', { request: await makeRequest('CN=system:node:w, O=system:nodes', [{ type: 'dns', value: 'w.example' }]), ...bootstrapper }),
      'server-usage': csrObject('server-usage', { request: await makeRequest('CN=system:node:w, O=system:nodes'), usages: ['digital signature', 'server auth'], ...bootstrapper }),
      'other-signer': csrObject('other-signer', { request: await makeRequest('CN=system:node:w, O=system:nodes'), signerName: 'kubernetes.io/kube-apiserver-client', ...bootstrapper }),
    };
    for (const [name, object] of Object.entries(cases)) w.put({ key: csrKey(name), object });
    await approver(w).idle();
    for (const name of Object.keys(cases)) expect(conditionsOf(w.csr(name)), name).toEqual([]);
  });

  it('leaves denied and already approved requests alone', async () => {
    const w = world();
    kubeadmRbac(w);
    const request = await makeRequest('CN=system:node:worker-1, O=system:nodes');
    const denied = [{ type: 'Denied', status: 'True', reason: 'Nope', message: 'no', lastUpdateTime: at(0), lastTransitionTime: at(0) }];
    w.put({ key: csrKey('denied'), object: csrObject('denied', { request, username: 'system:bootstrap:abcdef', groups: [bootstrapGroup], conditions: denied }) });
    await approver(w).idle();
    expect(conditionsOf(w.csr('denied'))).toEqual(denied);
    expect(w.proposals.filter((command) => command.type === 'update')).toEqual([]);
  });

  it('answers reviews as the authorizer chain: system:masters, users, groups and service accounts through ClusterRoleBindings only', () => {
    const w = world();
    w.put(clusterRole('csr-star', ['*/nodeclient']));
    w.put(clusterRoleBinding('csr-star', 'csr-star', [{ kind: 'ServiceAccount', name: 'joiner', namespace: 'kube-system' } as { kind: string; name: string }]));
    const attributes = { verb: 'create', group: 'certificates.k8s.io', resource: 'certificatesigningrequests', subresource: 'nodeclient' };
    expect(subjectAccessAllowed(w.state, { name: 'root', groups: ['system:masters'] }, attributes)).toBe(true);
    expect(subjectAccessAllowed(w.state, { name: 'system:serviceaccount:kube-system:joiner', groups: [] }, attributes)).toBe(true);
    expect(subjectAccessAllowed(w.state, { name: 'system:serviceaccount:default:joiner', groups: [] }, attributes)).toBe(false);
    expect(subjectAccessAllowed(w.state, { name: 'system:serviceaccount:kube-system:joiner', groups: [] }, { ...attributes, subresource: 'selfnodeclient' })).toBe(false);
    expect(subjectAccessAllowed(w.state, { name: 'system:serviceaccount:kube-system:joiner', groups: [] }, { ...attributes, verb: 'get' })).toBe(false);
  });
});
