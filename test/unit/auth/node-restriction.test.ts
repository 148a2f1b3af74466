import { beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, ObjectKey } from '../../../actors/index.ts';
import { StoreClient } from '../../../api/index.ts';
import type { AdmissionAttributes, AdmissionOperation } from '../../../api/admission/chain.ts';
import type { UserInfo } from '../../../api/auth/authn.ts';
import type { Authorizer } from '../../../api/auth/authz.ts';
import { apiObjectReference, createNodeRestrictionPlugin, forbiddenNodeLabels, nodeRestrictionPlugin } from '../../../api/auth/node-restriction.ts';
import { servedKinds } from '../../../api/registry/kinds.ts';
import { ApiError } from '../../../api/status.ts';
import { makeRequest } from '../controllers/csr-fixtures.ts';
import { ImmediateBackend } from '../api/harness.ts';

const at = '2025-01-01T00:00:00Z';
const n1: UserInfo = { name: 'system:node:n1', uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} };
const alice: UserInfo = { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };

function kind(group: string, resource: string) {
  const found = servedKinds.find((candidate) => candidate.group === group && candidate.resource === resource);
  if (found === undefined) throw new Error(`no kind ${group}/${resource}`);
  return found;
}

interface Write {
  readonly operation: AdmissionOperation;
  readonly group?: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly user?: UserInfo;
}

const backend = new ImmediateBackend();
const store = new StoreClient(backend);
const services = { store, randomSuffix: () => 'abcde' };

async function put(group: string, resource: string, object: KubeObject): Promise<void> {
  const key: ObjectKey = { group, resource, namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '' };
  const result = await backend.propose({ type: 'create', key, object, at });
  expect(result.type, JSON.stringify(result)).toBe('stored');
}

function pod(name: string, nodeName: string, extra: Partial<KubeObject['metadata']> = {}, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', name, uid: `uid-${name}`, ...extra },
    spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...spec } as KubeObject['spec'],
  };
}

function attributes(write: Write): AdmissionAttributes {
  const name = write.name ?? write.object?.metadata.name ?? '';
  return {
    operation: write.operation, kind: kind(write.group ?? '', write.resource), namespace: write.namespace ?? '', name, requestName: write.operation === 'CREATE' && write.subresource === undefined ? '' : name,
    subresource: write.subresource ?? '', object: write.object, oldObject: write.oldObject, user: write.user ?? n1, dryRun: false,
  };
}

async function admit(write: Write, plugin = nodeRestrictionPlugin): Promise<{ code: number; message: string } | 'admitted'> {
  try {
    await plugin.admit!(attributes(write), services);
    return 'admitted';
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { code: error.code, message: error.status.message ?? '' };
  }
}

const refused = (message: string) => ({ code: 403, message });

function mirrorPod(extra: Partial<KubeObject['metadata']> = {}, spec: Record<string, unknown> = {}, nodeName = 'n1'): KubeObject {
  return pod('static-web-n1', nodeName, {
    annotations: { 'kubernetes.io/config.mirror': 'hash' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid-1', controller: true }],
    ...extra,
  }, spec);
}

beforeAll(async () => {
  await put('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  await put('', 'nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'node-uid-1' } });
  await put('', 'pods', pod('mine', 'n1', {}, { volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { audience: 'vault', path: 't' } }] } }] }));
  await put('', 'pods', pod('theirs', 'n2'));
});

describe('NodeRestriction', () => {
  it('leaves other users alone and refuses a node user without a name', async () => {
    expect(await admit({ operation: 'DELETE', resource: 'nodes', name: 'n2', user: alice })).toBe('admitted');
    const nameless = { ...n1, name: 'system:node:' };
    expect(await admit({ operation: 'DELETE', resource: 'nodes', name: 'n2', user: nameless })).toEqual(refused('nodes "Unknown" is forbidden: could not determine node from user "system:node:"'));
  });

  describe('mirror pods', () => {
    it('admits a mirror pod bound to and owned by the node', async () => {
      expect(await admit({ operation: 'CREATE', resource: 'pods', namespace: 'ns', object: mirrorPod() })).toBe('admitted');
    });

    it.each<[string, KubeObject, string]>([
      ['not a mirror pod', pod('plain', 'n1'), 'pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods'],
      ['bound to another node', mirrorPod({}, {}, 'n2'), 'pods "static-web-n1" is forbidden: node "n1" can only create pods with spec.nodeName set to itself'],
      ['without an owner', mirrorPod({ ownerReferences: [] }), 'pods "static-web-n1" is forbidden: node "n1" can only create pods with an owner reference set to itself'],
      ['owned by another node', mirrorPod({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n2', uid: 'x', controller: true }] }), 'pods "static-web-n1" is forbidden: node "n1" can only create pods with an owner reference set to itself'],
      ['not a controller reference', mirrorPod({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid-1' }] }), 'pods "static-web-n1" is forbidden: node "n1" can only create pods with a controller owner reference set to itself'],
      ['blocking owner deletion', mirrorPod({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid-1', controller: true, blockOwnerDeletion: true }] }), 'pods "static-web-n1" is forbidden: node "n1" must not set blockOwnerDeletion on an owner reference'],
      ['with a stale node UID', mirrorPod({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'old', controller: true }] }), 'pods "static-web-n1" is forbidden: node n1 UID mismatch: expected old got node-uid-1'],
      ['naming a service account', mirrorPod({}, { serviceAccountName: 'default' }), 'pods "static-web-n1" is forbidden: node "n1" can not create pods that reference serviceaccounts'],
      ['using a secret', mirrorPod({}, { volumes: [{ name: 's', secret: { secretName: 'x' } }] }), 'pods "static-web-n1" is forbidden: node "n1" can not create pods that reference secrets'],
      ['using a PVC', mirrorPod({}, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'x' } }] }), 'pods "static-web-n1" is forbidden: node "n1" can not create pods that reference persistentvolumeclaims'],
      ['using a token projection', mirrorPod({}, { volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }), 'pods "static-web-n1" is forbidden: node "n1" can not create pods that reference serviceaccounts (via projected volumes)'],
      ['with an unknown volume type', mirrorPod({}, { volumes: [{ name: 'v', madeUp: {} }] }), 'pods "static-web-n1" is forbidden: error checking mirror pod for API references: unknown volume type for volume  "v"'],
    ])('refuses one %s', async (_, object, message) => {
      expect(await admit({ operation: 'CREATE', resource: 'pods', namespace: 'ns', object })).toEqual(refused(message));
    });

    it('hostPath, emptyDir and downward API volumes reference nothing', () => {
      expect(apiObjectReference({ volumes: [{ name: 'a', hostPath: { path: '/' } }, { name: 'b', emptyDir: {} }, { name: 'c', projected: { sources: [{ downwardAPI: {} }] } }] })).toBe('');
    });
  });

  describe('pods', () => {
    it('deletes only pods bound to itself (the Status names "Unknown": a delete carries no object)', async () => {
      expect(await admit({ operation: 'DELETE', resource: 'pods', namespace: 'ns', name: 'mine', oldObject: pod('mine', 'n1') })).toBe('admitted');
      expect(await admit({ operation: 'DELETE', resource: 'pods', namespace: 'ns', name: 'theirs', oldObject: pod('theirs', 'n2') }))
        .toEqual(refused('pods "Unknown" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself'));
    });

    it('updates no pod spec', async () => {
      expect(await admit({ operation: 'UPDATE', resource: 'pods', namespace: 'ns', object: pod('mine', 'n1'), oldObject: pod('mine', 'n1') }))
        .toEqual(refused('pods "mine" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods'));
    });

    it('updates the status only of its own pods, without labels or claim statuses', async () => {
      const status = (object: KubeObject, labels?: Record<string, string>) => ({ operation: 'UPDATE' as const, resource: 'pods', subresource: 'status', namespace: 'ns', object: { ...object, metadata: { ...object.metadata, labels } }, oldObject: object });
      expect(await admit(status(pod('mine', 'n1')))).toBe('admitted');
      expect(await admit(status(pod('theirs', 'n2')))).toEqual(refused('pods "theirs" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself'));
      expect(await admit(status(pod('mine', 'n1'), { app: 'x' }))).toEqual(refused('pods "mine" is forbidden: node "n1" cannot update labels through pod status'));
      const claimed = { ...pod('mine', 'n1'), status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'other' }] } };
      expect(await admit({ operation: 'UPDATE', resource: 'pods', subresource: 'status', namespace: 'ns', object: claimed, oldObject: pod('mine', 'n1') }))
        .toEqual(refused('pods "mine" is forbidden: node "n1" cannot update resource claim statues'));
    });

    it('evicts only its own pods, and touches no other subresource', async () => {
      const eviction = (name: string): KubeObject => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { namespace: 'ns', name } });
      expect(await admit({ operation: 'CREATE', resource: 'pods', subresource: 'eviction', namespace: 'ns', name: 'mine', object: eviction('mine') })).toBe('admitted');
      expect(await admit({ operation: 'CREATE', resource: 'pods', subresource: 'eviction', namespace: 'ns', name: 'theirs', object: eviction('theirs') }))
        .toEqual(refused('pods "theirs" is forbidden: node n1 can only evict pods with spec.nodeName set to itself'));
      expect(await admit({ operation: 'CREATE', resource: 'pods', subresource: 'eviction', namespace: 'ns', name: 'gone', object: eviction('gone') }))
        .toEqual({ code: 404, message: 'pod "gone" not found' });
      expect(await admit({ operation: 'UPDATE', resource: 'pods', subresource: 'ephemeralcontainers', namespace: 'ns', object: pod('mine', 'n1'), oldObject: pod('mine', 'n1') }))
        .toEqual(refused('pods "mine" is forbidden: unexpected pod subresource "ephemeralcontainers", only \'status\' and \'eviction\' are allowed'));
    });
  });

  describe('nodes', () => {
    const nodeObject = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}): KubeObject => ({
      apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: spec as KubeObject['spec'],
    });

    it('modifies only its own Node', async () => {
      expect(await admit({ operation: 'CREATE', resource: 'nodes', object: nodeObject('n1', { 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/exclude-from-external-load-balancers': '' }) })).toBe('admitted');
      expect(await admit({ operation: 'UPDATE', resource: 'nodes', name: 'n2', object: nodeObject('n2'), oldObject: nodeObject('n2') }))
        .toEqual(refused('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"'));
      expect(await admit({ operation: 'DELETE', resource: 'nodes', name: 'n2' })).toEqual(refused('nodes "Unknown" is forbidden: node "n1" is not allowed to modify node "n2"'));
    });

    it('sets no restricted labels, changes no taints, sets no configSource', async () => {
      expect(await admit({ operation: 'CREATE', resource: 'nodes', object: nodeObject('n1', { 'node-restriction.kubernetes.io/pool': 'x', 'foo.k8s.io/bar': 'y', mine: 'z' }) }))
        .toEqual(refused('nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: foo.k8s.io/bar, node-restriction.kubernetes.io/pool'));
      expect(await admit({ operation: 'UPDATE', resource: 'nodes', name: 'n1', object: nodeObject('n1', {}), oldObject: nodeObject('n1', { 'example.node-restriction.kubernetes.io/a': 'b' }) }))
        .toEqual(refused('nodes "n1" is forbidden: is not allowed to modify labels: example.node-restriction.kubernetes.io/a'));
      expect(await admit({ operation: 'UPDATE', resource: 'nodes', subresource: 'status', name: 'n1', object: nodeObject('n1', {}, { taints: [] }), oldObject: nodeObject('n1', {}, { taints: [{ key: 'k', effect: 'NoSchedule' }] }) }))
        .toEqual(refused('nodes "n1" is forbidden: node "n1" is not allowed to modify taints'));
      expect(await admit({ operation: 'UPDATE', resource: 'nodes', name: 'n1', object: nodeObject('n1', {}, { taints: [] }), oldObject: nodeObject('n1') })).toBe('admitted');
      expect(await admit({ operation: 'CREATE', resource: 'nodes', object: nodeObject('n1', {}, { configSource: { configMap: {} } }) }))
        .toEqual(refused('nodes "n1" is forbidden: node "n1" is not allowed to create pods with a non-nil configSource'));
    });

    it('labels in the kubelet namespaces are its own', () => {
      expect(forbiddenNodeLabels({ 'kubelet.kubernetes.io/x': '1', 'a.node.kubernetes.io/y': '2', 'topology.kubernetes.io/zone': 'z', 'kubernetes.io/role': 'master' }, {}))
        .toEqual(['kubernetes.io/role']);
    });
  });

  it('updates only the status of PVCs, and there only capacity and conditions', async () => {
    const pvc = (status: Record<string, unknown>, labels?: Record<string, string>): KubeObject => ({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { namespace: 'ns', name: 'data', resourceVersion: '5', labels }, spec: {}, status: status as KubeObject['status'],
    });
    const update = (object: KubeObject) => ({ operation: 'UPDATE' as const, resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', object, oldObject: pvc({ phase: 'Bound' }) });
    expect(await admit(update(pvc({ phase: 'Bound', capacity: { storage: '2Gi' }, conditions: [{ type: 'Resizing', status: 'True' }], allocatedResources: { storage: '2Gi' } })))).toBe('admitted');
    expect(await admit(update(pvc({ phase: 'Lost' })))).toEqual(refused('persistentvolumeclaims "data" is forbidden: node "n1" is not allowed to update fields other than status.quantity and status.conditions: status.phase'));
    expect(await admit(update(pvc({ phase: 'Bound' }, { a: 'b' })))).toMatchObject({ code: 403, message: expect.stringContaining('metadata.labels') });
    expect(await admit({ operation: 'UPDATE', resource: 'persistentvolumeclaims', namespace: 'ns', object: pvc({}), oldObject: pvc({}) }))
      .toEqual(refused('persistentvolumeclaims "data" is forbidden: may only update PVC status'));
  });

  it('writes only its own lease in kube-node-lease', async () => {
    const lease = (namespace: string, name: string): KubeObject => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { namespace, name } });
    const write = (namespace: string, name: string) => ({ operation: 'CREATE' as const, group: 'coordination.k8s.io', resource: 'leases', namespace, object: lease(namespace, name) });
    expect(await admit(write('kube-node-lease', 'n1'))).toBe('admitted');
    expect(await admit(write('kube-node-lease', 'n2'))).toEqual(refused('leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node'));
    expect(await admit(write('default', 'n1'))).toEqual(refused('leases.coordination.k8s.io "n1" is forbidden: can only access leases in the "kube-node-lease" system namespace'));
    expect(await admit({ operation: 'DELETE', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n2' }))
      .toEqual(refused('leases.coordination.k8s.io "Unknown" is forbidden: can only access node lease with the same name as the requesting node'));
  });

  it('writes only its own CSINode', async () => {
    const csiNode = (name: string): KubeObject => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name }, spec: { drivers: [] } });
    expect(await admit({ operation: 'CREATE', group: 'storage.k8s.io', resource: 'csinodes', object: csiNode('n1') })).toBe('admitted');
    expect(await admit({ operation: 'CREATE', group: 'storage.k8s.io', resource: 'csinodes', object: csiNode('n2') }))
      .toEqual(refused('csinodes.storage.k8s.io "n2" is forbidden: can only access CSINode with the same name as the requesting node'));
  });

  describe('kubelet CSRs', () => {
    const csr = async (commonName: string, signerName: string): Promise<KubeObject> => ({
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'csr-1' },
      spec: { signerName, usages: ['client auth'], request: Buffer.from(await makeRequest(`CN=${commonName},O=system:nodes`)).toString('base64') },
    });
    const create = (object: KubeObject) => ({ operation: 'CREATE' as const, group: 'certificates.k8s.io', resource: 'certificatesigningrequests', object });

    it('need CN=system:node:<itself> for the kubelet signers only', async () => {
      expect(await admit(create(await csr('system:node:n1', 'kubernetes.io/kube-apiserver-client-kubelet')))).toBe('admitted');
      expect(await admit(create(await csr('system:node:n2', 'kubernetes.io/kubelet-serving'))))
        .toEqual(refused('certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden: can only create a node CSR with CN=system:node:n1'));
      expect(await admit(create(await csr('anything', 'example.com/signer')))).toBe('admitted');
      const insecure = createNodeRestrictionPlugin({ allowInsecureKubeletCertificateSigningRequests: true });
      expect(await admit(create(await csr('system:node:n2', 'kubernetes.io/kubelet-serving')), insecure)).toBe('admitted');
    });

    it('refuses one that does not parse', async () => {
      const bad: KubeObject = { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'csr-2' }, spec: { signerName: 'kubernetes.io/kubelet-serving', request: Buffer.from('junk').toString('base64') } };
      expect(await admit(create(bad))).toEqual(refused('certificatesigningrequests.certificates.k8s.io "csr-2" is forbidden: unable to parse csr: PEM block type must be CERTIFICATE REQUEST'));
    });
  });

  describe('service account tokens', () => {
    const tokenRequest = (podName: string, uid: string, audiences: string[] = []): KubeObject => ({
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { namespace: 'ns', name: 'sa' },
      spec: { audiences, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: podName, uid } },
    });
    const create = (object: KubeObject) => ({ operation: 'CREATE' as const, resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'sa', object });

    it('binds tokens to its own pods, for the audiences they use', async () => {
      expect(await admit(create(tokenRequest('mine', 'uid-mine', ['vault'])))).toBe('admitted');
      expect(await admit(create(tokenRequest('theirs', 'uid-theirs', ['vault'])))).toEqual(refused('serviceaccounts "sa" is forbidden: node requested token bound to a pod scheduled on a different node'));
      expect(await admit(create(tokenRequest('mine', 'stale', ['vault']))))
        .toEqual(refused('serviceaccounts "sa" is forbidden: the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated'));
      expect(await admit(create(tokenRequest('mine', '', ['vault'])))).toEqual(refused('serviceaccounts "sa" is forbidden: node requested token with a pod binding without a uid'));
      expect(await admit(create({ ...tokenRequest('mine', 'uid-mine'), spec: { audiences: [] } }))).toEqual(refused('serviceaccounts "sa" is forbidden: node requested token not bound to a pod'));
      expect(await admit(create(tokenRequest('mine', 'uid-mine', ['a', 'b'])))).toEqual(refused('serviceaccounts "sa" is forbidden: node may only request 0 or 1 audiences'));
      expect(await admit(create(tokenRequest('mine', 'uid-mine', ['elsewhere']))))
        .toEqual(refused('serviceaccounts "sa" is forbidden: audience "elsewhere" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience'));
    });

    it('asks the authorizers about an audience the pod does not use, and skips the check with the gate off', async () => {
      const grants: Authorizer = {
        name: 'grants',
        authorize: (request) => (request.verb === 'request-serviceaccounts-token-audience' && request.resource === 'elsewhere' && request.name === 'sa'
          ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' }),
      };
      expect(await admit(create(tokenRequest('mine', 'uid-mine', ['elsewhere'])), createNodeRestrictionPlugin({ authorizers: () => [grants] }))).toBe('admitted');
      expect(await admit(create(tokenRequest('mine', 'uid-mine', ['other'])), createNodeRestrictionPlugin({ serviceAccountNodeAudienceRestriction: false }))).toBe('admitted');
    });
  });
});
