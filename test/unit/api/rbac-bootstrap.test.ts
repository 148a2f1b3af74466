// The bootstrap RBAC policy as each API server keeps it (missing objects created, autoupdate
// ones reconciled without tightening, others left alone), and protobuf for the RBAC kinds and
// the access reviews (kubectl's typed clients send it).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { StoreClient } from '../../../api/index.ts';
import { ensureRbacBootstrap } from '../../../deploy/rbac-bootstrap.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const protobuf = 'application/vnd.kubernetes.protobuf';
let harness: Harness;

function postProtobuf(url: string, object: Record<string, unknown>) {
  return harness.app.inject({ method: 'POST', url, payload: encodeProtobufObject(object), headers: { 'x-test-user': 'admin;system:masters', 'content-type': protobuf, accept: protobuf } });
}

beforeEach(async () => {
  harness = await startHarness(['default']);
});
afterEach(async () => {
  await harness.close();
});

describe('bootstrap policy', () => {
  it('creates kube\'s default ClusterRoles and ClusterRoleBindings with the rbac-defaults label and autoupdate annotation', async () => {
    await ensureRbacBootstrap(new StoreClient(harness.backend));
    const roles = (await harness.request('GET', `${rbac}/clusterroles`)).json().items.map((item: { metadata: { name: string } }) => item.metadata.name);
    expect(roles).toEqual(expect.arrayContaining(['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:aggregate-to-view']));
    const clusterAdmin = (await harness.request('GET', `${rbac}/clusterrolebindings/cluster-admin`)).json();
    expect(clusterAdmin).toMatchObject({
      metadata: { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' }],
    });
    const publicInfo = (await harness.request('GET', `${rbac}/clusterrolebindings/system:public-info-viewer`)).json();
    expect(publicInfo.subjects.map((subject: { name: string }) => subject.name)).toEqual(['system:authenticated', 'system:unauthenticated']);
    const view = (await harness.request('GET', `${rbac}/clusterroles/view`)).json();
    expect(view.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' });
    expect(view.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
  });

  it('puts back a deleted default, adds what an autoupdate object lacks, leaves one without the annotation alone', async () => {
    const client = new StoreClient(harness.backend);
    await ensureRbacBootstrap(client);
    expect((await harness.request('DELETE', `${rbac}/clusterroles/system:basic-user`)).statusCode).toBe(200);
    const trimmed = await harness.request('PATCH', `${rbac}/clusterrolebindings/system:discovery`, { subjects: [{ kind: 'User', name: 'someone', apiGroup: 'rbac.authorization.k8s.io' }] }, { 'content-type': 'application/merge-patch+json' });
    expect(trimmed.statusCode).toBe(200);
    const opted = await harness.request('PATCH', `${rbac}/clusterroles/system:public-info-viewer`, {
      metadata: { annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }],
    }, { 'content-type': 'application/merge-patch+json' });
    expect(opted.statusCode).toBe(200);

    await ensureRbacBootstrap(client);
    expect((await harness.request('GET', `${rbac}/clusterroles/system:basic-user`)).statusCode).toBe(200);
    const discovery = (await harness.request('GET', `${rbac}/clusterrolebindings/system:discovery`)).json();
    expect(discovery.subjects.map((subject: { name: string }) => subject.name)).toEqual(['someone', 'system:authenticated']);
    const publicInfo = (await harness.request('GET', `${rbac}/clusterroles/system:public-info-viewer`)).json();
    expect(publicInfo.rules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/version'] }]);
    // A second round with nothing missing proposes nothing.
    const before = harness.backend.proposals;
    await ensureRbacBootstrap(client);
    expect(harness.backend.proposals).toBe(before);
  });
});

describe('protobuf', () => {
  it('a Role and a RoleBinding go in and come out as protobuf', async () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pb', namespace: 'default' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
    const created = await postProtobuf(`${rbac}/namespaces/default/roles`, role);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['content-type']).toBe(protobuf);
    expect(decodeProtobufObject(created.rawPayload)).toMatchObject({ kind: 'Role', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'pb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pb' }, subjects: [{ kind: 'User', name: 'alice' }] };
    const bound = await postProtobuf(`${rbac}/namespaces/default/rolebindings`, binding);
    expect(bound.statusCode, bound.body).toBe(201);
    expect(decodeProtobufObject(bound.rawPayload)).toMatchObject({ roleRef: { kind: 'Role', name: 'pb' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }] });
  });

  it('a SelfSubjectAccessReview is answered in protobuf', async () => {
    const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: {}, spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } } };
    const response = await postProtobuf('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review);
    expect(response.statusCode, response.body).toBe(201);
    expect(decodeProtobufObject(response.rawPayload)).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
  });
});
