import { beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject, ObjectKey } from '../../../actors/index.ts';
import { StoreClient } from '../../../api/index.ts';
import { NodeAuthorizer, fieldRequirements, nodeIdentity } from '../../../api/auth/node-authorizer.ts';
import type { NodeAuthorizationAttributes } from '../../../api/auth/node-authorizer.ts';
import type { AuthorizationResult } from '../../../api/auth/authz.ts';
import { ImmediateBackend } from '../api/harness.ts';

const at = '2025-01-01T00:00:00Z';

function node(name: string) {
  return { name: `system:node:${name}`, uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} };
}

function request(user: NodeAuthorizationAttributes['user'], verb: string, resource: string, options: Partial<NodeAuthorizationAttributes> = {}): NodeAuthorizationAttributes {
  return {
    user, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: '', resource, subresource: '', name: '', ...options,
  };
}

class World {
  readonly backend = new ImmediateBackend();
  readonly store = new StoreClient(this.backend);

  async put(group: string, resource: string, object: KubeObject): Promise<void> {
    const key: ObjectKey = { group, resource, namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '' };
    const result = await this.backend.propose({ type: 'create', key, object, at });
    expect(result.type, JSON.stringify(result)).toBe('stored');
  }

  async remove(group: string, resource: string, namespace: string, name: string): Promise<void> {
    await this.backend.propose({ type: 'delete', key: { group, resource, namespace, name }, at, gracePeriodSeconds: 0 });
  }

  async namespace(name: string): Promise<void> {
    await this.put('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  async pod(namespace: string, name: string, spec: Record<string, unknown>, extra: Partial<KubeObject['metadata']> = {}, status: Record<string, unknown> = {}): Promise<void> {
    await this.put('', 'pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, uid: `uid-${name}`, ...extra },
      spec: { containers: [{ name: 'c', image: 'i' }], ...spec } as KubeObject['spec'], status: status as KubeObject['status'],
    });
  }
}

function decide(authorizer: NodeAuthorizer, attributes: NodeAuthorizationAttributes): AuthorizationResult {
  return authorizer.authorize(attributes);
}

const noRelation = (name: string): AuthorizationResult => ({ decision: 'noOpinion', reason: `no relationship found between node '${name}' and this object` });
const allowed: AuthorizationResult = { decision: 'allow', reason: '' };

describe('nodeIdentity', () => {
  it.each([
    [{ name: 'system:node:n1', groups: ['system:nodes'] }, { isNode: true, nodeName: 'n1' }],
    [{ name: 'system:node:', groups: ['system:nodes'] }, { isNode: true, nodeName: '' }],
    [{ name: 'system:node:n1', groups: ['system:authenticated'] }, { isNode: false, nodeName: '' }],
    [{ name: 'alice', groups: ['system:nodes'] }, { isNode: false, nodeName: '' }],
  ])('%j', (user, identity) => {
    expect(nodeIdentity({ uid: '', extra: {}, ...user })).toEqual(identity);
  });
});

describe('fieldRequirements', () => {
  it('reads = and == as equality, != as not, and unescapes values', () => {
    expect(fieldRequirements('spec.nodeName=n1,status.phase!=Failed,metadata.name==a\\,b')).toEqual([
      { field: 'spec.nodeName', equals: true, value: 'n1' },
      { field: 'status.phase', equals: false, value: 'Failed' },
      { field: 'metadata.name', equals: true, value: 'a,b' },
    ]);
    expect(fieldRequirements('nonsense')).toBeUndefined();
  });
});

describe('NodeAuthorizer', () => {
  let world: World;
  let authorizer: NodeAuthorizer;

  beforeEach(async () => {
    world = new World();
    authorizer = new NodeAuthorizer(world.store);
    await world.namespace('ns');
    await world.namespace('other');
    await world.pod('ns', 'web', {
      nodeName: 'n1', serviceAccountName: 'web-sa',
      imagePullSecrets: [{ name: 'pull' }],
      initContainers: [{ name: 'init', image: 'i', envFrom: [{ configMapRef: { name: 'init-env' } }] }],
      containers: [{
        name: 'c', image: 'i',
        envFrom: [{ secretRef: { name: 'env-from' } }],
        env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }],
      }],
      volumes: [
        { name: 'sec', secret: { secretName: 'vol-secret' } },
        { name: 'cm', configMap: { name: 'vol-cm' } },
        { name: 'proj', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }] } },
        { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
        { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
      ],
    });
    await world.pod('other', 'db', { nodeName: 'n2', volumes: [{ name: 's', secret: { secretName: 'db-secret' } }] });
    await world.pod('ns', 'unscheduled', { volumes: [{ name: 's', secret: { secretName: 'pending-secret' } }] });
    await world.pod('ns', 'mirror', { nodeName: 'n1', volumes: [{ name: 's', secret: { secretName: 'mirror-secret' } }] }, { annotations: { 'kubernetes.io/config.mirror': 'x' } });
    await world.put('', 'persistentvolumes', {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-data' },
      spec: {
        claimRef: { namespace: 'ns', name: 'data' },
        csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { namespace: 'ns', name: 'csi-node' }, controllerPublishSecretRef: { namespace: 'ns', name: 'csi-controller' } },
      },
    });
    await world.put('storage.k8s.io', 'volumeattachments', { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va1' }, spec: { nodeName: 'n1', attacher: 'd', source: {} } });
  });

  describe('objects related to the node through its pods', () => {
    it.each([
      ['an imagePullSecret', 'secrets', 'pull'],
      ['an envFrom secret', 'secrets', 'env-from'],
      ['an env secretKeyRef', 'secrets', 'env-secret'],
      ['a secret volume', 'secrets', 'vol-secret'],
      ['a projected secret', 'secrets', 'proj-secret'],
      ['an init container envFrom configmap', 'configmaps', 'init-env'],
      ['an env configMapKeyRef', 'configmaps', 'env-cm'],
      ['a configmap volume', 'configmaps', 'vol-cm'],
      ['a projected configmap', 'configmaps', 'proj-cm'],
    ])('%s may be read (get, list and watch by name)', (_, resource, name) => {
      for (const verb of ['get', 'list', 'watch']) {
        expect(decide(authorizer, request(node('n1'), verb, resource, { namespace: 'ns', name }))).toEqual(allowed);
      }
    });

    it('a PVC of a volume and of an ephemeral volume, its PV, and the PV secret the kubelet sees', () => {
      expect(decide(authorizer, request(node('n1'), 'get', 'persistentvolumeclaims', { namespace: 'ns', name: 'data' }))).toEqual(allowed);
      expect(decide(authorizer, request(node('n1'), 'get', 'persistentvolumeclaims', { namespace: 'ns', name: 'web-scratch' }))).toEqual(allowed);
      expect(decide(authorizer, request(node('n1'), 'get', 'persistentvolumes', { name: 'pv-data' }))).toEqual(allowed);
      expect(decide(authorizer, request(node('n1'), 'get', 'secrets', { namespace: 'ns', name: 'csi-node' }))).toEqual(allowed);
      expect(decide(authorizer, request(node('n1'), 'get', 'secrets', { namespace: 'ns', name: 'csi-controller' }))).toEqual(noRelation('n1'));
      expect(decide(authorizer, request(node('n1'), 'update', 'persistentvolumeclaims', { namespace: 'ns', name: 'data', subresource: 'status' }))).toEqual(allowed);
    });

    it('a token for the pod service account, and a volume attachment of the node', () => {
      expect(decide(authorizer, request(node('n1'), 'create', 'serviceaccounts', { namespace: 'ns', name: 'web-sa', subresource: 'token' }))).toEqual(allowed);
      expect(decide(authorizer, request(node('n1'), 'get', 'volumeattachments', { apiGroup: 'storage.k8s.io', name: 'va1' }))).toEqual(allowed);
    });

    it('its own pods by name; its pods listed with spec.nodeName=<itself>', () => {
      expect(decide(authorizer, request(node('n1'), 'get', 'pods', { namespace: 'ns', name: 'web' }))).toEqual(allowed);
      expect(decide(authorizer, request(node('n1'), 'list', 'pods', { fieldSelector: 'spec.nodeName=n1' }))).toEqual(allowed);
      expect(decide(authorizer, request(node('n1'), 'watch', 'pods', { fieldSelector: 'spec.nodeName==n1' }))).toEqual(allowed);
    });
  });

  describe('objects of other nodes are refused with no opinion', () => {
    it.each<[string, NodeAuthorizationAttributes, AuthorizationResult]>([
      ['a secret of another node pod', request(node('n1'), 'get', 'secrets', { namespace: 'other', name: 'db-secret' }), noRelation('n1')],
      ['a secret of an unscheduled pod', request(node('n1'), 'get', 'secrets', { namespace: 'ns', name: 'pending-secret' }), noRelation('n1')],
      ['a secret a mirror pod names', request(node('n1'), 'get', 'secrets', { namespace: 'ns', name: 'mirror-secret' }), noRelation('n1')],
      ['a secret of the same name in another namespace', request(node('n1'), 'get', 'secrets', { namespace: 'other', name: 'pull' }), noRelation('n1')],
      ['the secrets of the node, to another node', request(node('n2'), 'get', 'secrets', { namespace: 'ns', name: 'pull' }), noRelation('n2')],
      ['a node with no pods at all', request(node('n9'), 'get', 'secrets', { namespace: 'ns', name: 'pull' }), noRelation('n9')],
      ['another node pod', request(node('n1'), 'get', 'pods', { namespace: 'other', name: 'db' }), noRelation('n1')],
      ['a PV of another node', request(node('n2'), 'get', 'persistentvolumes', { name: 'pv-data' }), noRelation('n2')],
      ['a token for another service account', request(node('n1'), 'create', 'serviceaccounts', { namespace: 'ns', name: 'default', subresource: 'token' }), noRelation('n1')],
      ['listing all secrets', request(node('n1'), 'list', 'secrets', { namespace: 'ns' }), { decision: 'noOpinion', reason: 'No Object name found' }],
      ['writing a secret', request(node('n1'), 'update', 'secrets', { namespace: 'ns', name: 'pull' }), { decision: 'noOpinion', reason: 'can only read resources of this type' }],
      ['a secret at cluster scope', request(node('n1'), 'list', 'secrets', {}), { decision: 'noOpinion', reason: 'can only read namespaced object of this type' }],
      ['listing PVs', request(node('n1'), 'list', 'persistentvolumes'), { decision: 'noOpinion', reason: 'can only get individual resources of this type' }],
      ['PVC status get', request(node('n1'), 'get', 'persistentvolumeclaims', { namespace: 'ns', name: 'data', subresource: 'status' }), { decision: 'noOpinion', reason: 'can only get/update/patch this type' }],
      ['listing pods of every node', request(node('n1'), 'list', 'pods', { fieldSelector: 'spec.nodeName=n2' }), { decision: 'noOpinion', reason: 'can only list/watch pods with spec.nodeName field selector' }],
      ['another node lease', request(node('n1'), 'update', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'n2' }), { decision: 'noOpinion', reason: 'can only access node lease with the same name as the requesting node' }],
      ['a lease elsewhere', request(node('n1'), 'get', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'default', name: 'n1' }), { decision: 'noOpinion', reason: 'can only access leases in the "kube-node-lease" system namespace' }],
      ['listing leases', request(node('n1'), 'list', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease' }), { decision: 'noOpinion', reason: 'can only get, create, update, patch, or delete a node lease' }],
      ['another node CSINode', request(node('n1'), 'get', 'csinodes', { apiGroup: 'storage.k8s.io', name: 'n2' }), { decision: 'noOpinion', reason: 'can only access CSINode with the same name as the requesting node' }],
      ['another Node', request(node('n1'), 'get', 'nodes', { name: 'n2' }), { decision: 'noOpinion', reason: "node 'n1' cannot read 'n2', only its own Node object" }],
      ['listing Nodes', request(node('n1'), 'list', 'nodes'), { decision: 'noOpinion', reason: "node 'n1' cannot read all nodes, only its own Node object" }],
      ['deleting its Node', request(node('n1'), 'delete', 'nodes', { name: 'n1' }), { decision: 'noOpinion', reason: '' }],
      ['a volume attachment of another node', request(node('n2'), 'get', 'volumeattachments', { apiGroup: 'storage.k8s.io', name: 'va1' }), noRelation('n2')],
      ['a resource the node rules do not grant', request(node('n1'), 'get', 'deployments', { apiGroup: 'apps', namespace: 'ns', name: 'x' }), { decision: 'noOpinion', reason: '' }],
      ['a node user without a name', request(node(''), 'get', 'secrets', { namespace: 'ns', name: 'pull' }), { decision: 'noOpinion', reason: 'unknown node for user "system:node:"' }],
    ])('%s', (_, attributes, result) => {
      expect(decide(authorizer, attributes)).toEqual(result);
    });
  });

  it.each<[string, NodeAuthorizationAttributes]>([
    ['its own Node', request(node('n1'), 'get', 'nodes', { name: 'n1' })],
    ['creating a Node (NodeRestriction limits it)', request(node('n1'), 'create', 'nodes')],
    ['its Node status', request(node('n1'), 'patch', 'nodes', { name: 'n1', subresource: 'status' })],
    ['creating a lease (NodeRestriction checks the name)', request(node('n1'), 'create', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease' })],
    ['its own lease', request(node('n1'), 'update', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'n1' })],
    ['its own CSINode', request(node('n1'), 'patch', 'csinodes', { apiGroup: 'storage.k8s.io', name: 'n1' })],
    ['mirror pod create and delete', request(node('n1'), 'delete', 'pods', { namespace: 'ns', name: 'anything' })],
    ['pod status', request(node('n1'), 'update', 'pods', { namespace: 'ns', name: 'anything', subresource: 'status' })],
    ['pod eviction', request(node('n1'), 'create', 'pods', { namespace: 'ns', name: 'anything', subresource: 'eviction' })],
    ['services (node rules)', request(node('n1'), 'list', 'services')],
    ['events (node rules)', request(node('n1'), 'create', 'events', { namespace: 'ns' })],
    ['CSRs (node rules)', request(node('n1'), 'create', 'certificatesigningrequests', { apiGroup: 'certificates.k8s.io' })],
    ['tokenreviews (node rules)', request(node('n1'), 'create', 'tokenreviews', { apiGroup: 'authentication.k8s.io' })],
    ['runtimeclasses (node rules)', request(node('n1'), 'watch', 'runtimeclasses', { apiGroup: 'node.k8s.io' })],
  ])('allows %s', (_, attributes) => {
    expect(decide(authorizer, attributes)).toEqual(allowed);
  });

  it('has no opinion on users that are not nodes, whatever they ask', () => {
    const alice = { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };
    const impostor = { name: 'system:node:n1', uid: '', groups: ['system:authenticated'], extra: {} };
    for (const user of [alice, impostor]) {
      expect(decide(authorizer, request(user, 'get', 'secrets', { namespace: 'ns', name: 'pull' }))).toEqual({ decision: 'noOpinion', reason: '' });
      expect(decide(authorizer, request(user, 'list', 'services'))).toEqual({ decision: 'noOpinion', reason: '' });
    }
  });

  it('follows the store: a new pod grants, a deleted pod revokes', async () => {
    const attributes = request(node('n2'), 'get', 'secrets', { namespace: 'ns', name: 'late' });
    expect(decide(authorizer, attributes)).toEqual(noRelation('n2'));
    await world.pod('ns', 'late-pod', { nodeName: 'n2', volumes: [{ name: 's', secret: { secretName: 'late' } }] });
    expect(decide(authorizer, attributes)).toEqual(allowed);
    await world.remove('', 'pods', 'ns', 'late-pod');
    expect(world.store.get({ group: '', resource: 'pods', namespace: 'ns', name: 'late-pod' })).toBeUndefined();
    expect(decide(authorizer, attributes)).toEqual(noRelation('n2'));
  });

  it('a resource claim through the pod status of a template claim', async () => {
    await world.pod('ns', 'dra', {
      nodeName: 'n1', resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 't' }, { name: 'direct', resourceClaimName: 'shared' }],
    }, {}, { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'dra-gpu-abc' }] });
    const claim = (name: string) => request(node('n1'), 'get', 'resourceclaims', { apiGroup: 'resource.k8s.io', namespace: 'ns', name });
    expect(decide(authorizer, claim('dra-gpu-abc'))).toEqual(allowed);
    expect(decide(authorizer, claim('shared'))).toEqual(allowed);
    expect(decide(authorizer, claim('t'))).toEqual(noRelation('n1'));
  });

  it('without AuthorizeNodeWithSelectors nodes and pods are left to the node rules', () => {
    const legacy = new NodeAuthorizer(world.store, { authorizeNodeWithSelectors: false });
    expect(decide(legacy, request(node('n1'), 'list', 'pods'))).toEqual(allowed);
    expect(decide(legacy, request(node('n1'), 'get', 'nodes', { name: 'n2' }))).toEqual(allowed);
    expect(decide(legacy, request(node('n1'), 'delete', 'nodes', { name: 'n1' }))).toEqual({ decision: 'noOpinion', reason: '' });
  });
});
