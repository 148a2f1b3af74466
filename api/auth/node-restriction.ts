// Owns: kube-apiserver's NodeRestriction admission plugin (plugin/pkg/admission/noderestriction)
// as 1.33 has it, for writes by a node identity (system:node:<name> in system:nodes, see
// node-authorizer.ts nodeIdentity); other users pass untouched, a node user without a name is
// refused. A node may:
//  - create only mirror pods bound to itself, owned (controller, no blockOwnerDeletion) by its own
//    Node with the right UID and referencing no other API object; delete only pods bound to
//    itself; update pod status only of pods bound to itself, without changing labels or
//    resource-claim statuses; evict only pods bound to itself; touch no other pod subresource;
//  - create, update or delete only its own Node, never with a configSource, never changing
//    taints, never setting node-restriction.kubernetes.io labels or kubernetes.io / k8s.io labels
//    other than the kubelet's own;
//  - update only the status of PVCs, and only status.capacity, status.conditions and (with
//    RecoverVolumeExpansionFailure) the allocated resources and their statuses;
//  - request tokens only bound to (by UID) pods bound to itself, for an audience the pod uses
//    (a projected serviceAccountToken volume, or a CSI driver's tokenRequests through a csi
//    volume or a PVC's PV) or that an authorizer allows (verb request-serviceaccounts-token-audience);
//  - write only its own Lease in kube-node-lease, its own CSINode, ResourceSlices of itself;
//  - create kubelet CSRs (kubelet-serving, kube-apiserver-client-kubelet) only with
//    CN=system:node:<itself>.
// Refusals are kube's 403 `<resource> "<name>" is forbidden: <reason>` (the object's name, or
// "Unknown" when the write carries none); a missing pod or node is kube's lister 404.
import * as x509 from '@peculiar/x509';
import type { JsonValue, KubeObject, ObjectKey } from '../../actors/index.ts';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices } from '../admission/chain.ts';
import { forbidden, notFound } from '../status.ts';
import type { ApiError } from '../status.ts';
import { authorize } from './authz.ts';
import type { Authorizer } from './authz.ts';
import { mirrorPodAnnotation, nodeIdentity, nodeLeaseNamespace, podConfigMapNames, podSecretNames } from './node-authorizer.ts';
import { fields, records, text } from '../registry/json-fields.ts';
import type { Fields } from '../registry/json-fields.ts';


function has(object: Fields, field: string): boolean {
  return object[field] !== undefined && object[field] !== null;
}

/** Go's %q of a string. */
function quote(value: string): string {
  return JSON.stringify(value);
}

function isEmpty(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** apiequality.Semantic.DeepEqual on JSON: an absent field, null, [] and {} are alike empty. */
function semanticEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => semanticEqual(item, b[index]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].every((key) => semanticEqual(a[key], b[key]));
  }
  return a === b;
}

export interface NodeRestrictionOptions {
  /** Feature gate ServiceAccountNodeAudienceRestriction (beta, on by default in 1.33). */
  readonly serviceAccountNodeAudienceRestriction?: boolean;
  /** Feature gate RecoverVolumeExpansionFailure (beta, on by default in 1.33). */
  readonly recoverVolumeExpansionFailure?: boolean;
  /** Feature gate AllowInsecureKubeletCertificateSigningRequests (off by default). */
  readonly allowInsecureKubeletCertificateSigningRequests?: boolean;
  /** The server's authorizer chain, asked whether a node may request an audience its pod does not use; none: it may not. */
  readonly authorizers?: () => readonly Authorizer[];
}

/** kube's admission.NewForbidden: named by the object's name (or generateName), else "Unknown". */
function refuse(attributes: AdmissionAttributes, reason: string): ApiError {
  const meta = attributes.object?.metadata;
  const name = meta?.name || meta?.generateName || 'Unknown';
  return forbidden({ group: attributes.kind.group, resource: attributes.kind.resource }, name, reason);
}

/** A client-go lister's NotFound (the singular resource, e.g. `pod "x" not found`). */
function listerNotFound(resource: string, name: string): ApiError {
  return notFound({ group: '', resource }, name);
}

function getObject(services: AdmissionServices, key: ObjectKey): KubeObject | undefined {
  return services.store.get(key);
}

function specOf(object: KubeObject | undefined): Fields {
  return fields(object?.['spec'] as JsonValue | undefined);
}

function statusOf(object: KubeObject | undefined): Fields {
  return fields(object?.['status'] as JsonValue | undefined);
}

// --- pods -----------------------------------------------------------------------------------

/** Volume sources that need no other API object (podutil.HasAPIObjectReference lets them be). */
const selfContainedVolumes = new Set([
  'awsElasticBlockStore', 'azureDisk', 'cephfs', 'cinder', 'downwardAPI', 'emptyDir', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk',
  'gitRepo', 'hostPath', 'image', 'iscsi', 'nfs', 'photonPersistentDisk', 'portworxVolume', 'quobyte', 'rbd', 'scaleIO', 'storageos', 'vsphereVolume',
]);

/** The volume sources that reference an API object, with kube's wording of what they reference. */
const referencingVolumes: readonly (readonly [string, string])[] = [
  ['configMap', 'configmaps (via configmap volumes)'],
  ['secret', 'secrets (via secret volumes)'],
  ['csi', 'csidrivers (via CSI volumes)'],
  ['glusterfs', 'endpoints (via glusterFS volumes)'],
  ['persistentVolumeClaim', 'persistentvolumeclaims'],
  ['ephemeral', 'persistentvolumeclaims (via ephemeral volumes)'],
  ['azureFile', 'secrets (via azureFile volumes)'],
];

const projectedReferences: readonly (readonly [string, string])[] = [
  ['configMap', 'configmaps (via projected volumes)'],
  ['secret', 'secrets (via projected volumes)'],
  ['serviceAccountToken', 'serviceaccounts (via projected volumes)'],
  ['clusterTrustBundle', 'clustertrustbundles'],
];

/** podutil.HasAPIObjectReference: what the pod spec references ('' for nothing); throws for an unknown source. */
export function apiObjectReference(spec: Fields): string {
  if (text(spec['serviceAccountName']) !== '') return 'serviceaccounts';
  if (podSecretNames(spec).length > 0) return 'secrets';
  if (podConfigMapNames(spec).length > 0) return 'configmaps';
  if (records(spec['resourceClaims']).length > 0) return 'resourceclaims';
  for (const volume of records(spec['volumes'])) {
    const sources = Object.keys(volume).filter((key) => key !== 'name' && has(volume, key));
    if (sources.some((source) => selfContainedVolumes.has(source))) continue;
    const referencing = referencingVolumes.find(([source]) => sources.includes(source));
    if (referencing !== undefined) return referencing[1];
    if (!sources.includes('projected')) throw new Error(`unknown volume type for volume  ${quote(text(volume['name']))}`);
    for (const source of records(fields(volume['projected'])['sources'])) {
      const kinds = Object.keys(source).filter((key) => has(source, key));
      const reference = projectedReferences.find(([kind]) => kinds.includes(kind));
      if (reference !== undefined) return reference[1];
      if (!kinds.includes('downwardAPI')) throw new Error(`unknown source for projected volume ${quote(text(volume['name']))}`);
    }
  }
  return '';
}

function admitPodCreate(nodeName: string, attributes: AdmissionAttributes, services: AdmissionServices): void {
  const pod = attributes.object;
  if (pod === undefined) throw refuse(attributes, 'unexpected type <nil>');
  if (!Object.hasOwn(pod.metadata.annotations ?? {}, mirrorPodAnnotation)) {
    throw refuse(attributes, `pod does not have ${quote(mirrorPodAnnotation)} annotation, node ${quote(nodeName)} can only create mirror pods`);
  }
  const spec = specOf(pod);
  if (text(spec['nodeName']) !== nodeName) throw refuse(attributes, `node ${quote(nodeName)} can only create pods with spec.nodeName set to itself`);
  const owners = records(pod.metadata.ownerReferences);
  if (owners.length > 1) throw refuse(attributes, `node ${quote(nodeName)} can only create pods with a single owner reference set to itself`);
  const owner = owners[0];
  if (owner === undefined || text(owner['apiVersion']) !== 'v1' || text(owner['kind']) !== 'Node' || text(owner['name']) !== nodeName) {
    throw refuse(attributes, `node ${quote(nodeName)} can only create pods with an owner reference set to itself`);
  }
  if (owner['controller'] !== true) throw refuse(attributes, `node ${quote(nodeName)} can only create pods with a controller owner reference set to itself`);
  if (owner['blockOwnerDeletion'] === true) throw refuse(attributes, `node ${quote(nodeName)} must not set blockOwnerDeletion on an owner reference`);
  const node = getObject(services, { group: '', resource: 'nodes', namespace: '', name: nodeName });
  if (node === undefined) throw listerNotFound('node', nodeName);
  const ownerUid = text(owner['uid']);
  const nodeUid = node.metadata.uid ?? '';
  if (ownerUid !== nodeUid) throw refuse(attributes, `node ${nodeName} UID mismatch: expected ${ownerUid} got ${nodeUid}`);
  let reference: string;
  try {
    reference = apiObjectReference(spec);
  } catch (error) {
    throw refuse(attributes, `error checking mirror pod for API references: ${(error as Error).message}`);
  }
  if (reference !== '') throw refuse(attributes, `node ${quote(nodeName)} can not create pods that reference ${reference}`);
}

function admitPod(nodeName: string, attributes: AdmissionAttributes, services: AdmissionServices): void {
  if (attributes.operation === 'CREATE') return admitPodCreate(nodeName, attributes, services);
  if (attributes.operation === 'DELETE') {
    const existing = attributes.oldObject ?? getObject(services, { group: '', resource: 'pods', namespace: attributes.namespace, name: attributes.name });
    if (existing === undefined) throw listerNotFound('pod', attributes.name);
    if (text(specOf(existing)['nodeName']) !== nodeName) throw refuse(attributes, `node ${quote(nodeName)} can only delete pods with spec.nodeName set to itself`);
    return undefined;
  }
  throw refuse(attributes, `unexpected operation ${quote(attributes.operation)}, node ${quote(nodeName)} can only create and delete mirror pods`);
}

function labelsEqual(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const left = a ?? {};
  const right = b ?? {};
  return Object.keys(left).length === Object.keys(right).length && Object.entries(left).every(([key, value]) => Object.hasOwn(right, key) && right[key] === value);
}

/** kube's resourceClaimStatusesEqual: the same names and claim names, in order. */
function resourceClaimStatusesEqual(a: Fields[], b: Fields[]): boolean {
  return a.length === b.length && a.every((entry, index) => {
    const other = b[index]!;
    const claimA = entry['resourceClaimName'];
    const claimB = other['resourceClaimName'];
    const nullA = claimA === undefined || claimA === null;
    const nullB = claimB === undefined || claimB === null;
    return text(entry['name']) === text(other['name']) && nullA === nullB && (nullA || claimA === claimB);
  });
}

function admitPodStatus(nodeName: string, attributes: AdmissionAttributes): void {
  if (attributes.operation !== 'UPDATE') throw refuse(attributes, `unexpected operation ${quote(attributes.operation)}`);
  const oldPod = attributes.oldObject;
  const newPod = attributes.object;
  if (oldPod === undefined || newPod === undefined) throw refuse(attributes, 'unexpected type <nil>');
  if (text(specOf(oldPod)['nodeName']) !== nodeName) throw refuse(attributes, `node ${quote(nodeName)} can only update pod status for pods with spec.nodeName set to itself`);
  if (!labelsEqual(oldPod.metadata.labels, newPod.metadata.labels)) throw refuse(attributes, `node ${quote(nodeName)} cannot update labels through pod status`);
  if (!resourceClaimStatusesEqual(records(statusOf(oldPod)['resourceClaimStatuses']), records(statusOf(newPod)['resourceClaimStatuses']))) {
    throw refuse(attributes, `node ${quote(nodeName)} cannot update resource claim statues`);
  }
}

function admitPodEviction(nodeName: string, attributes: AdmissionAttributes, services: AdmissionServices): void {
  if (attributes.operation !== 'CREATE') throw refuse(attributes, `unexpected operation ${attributes.operation}`);
  // The pod the URL names, else the one the Eviction names.
  const podName = attributes.requestName || attributes.object?.metadata.name || '';
  if (podName === '') throw refuse(attributes, 'could not determine pod from request data');
  const pod = getObject(services, { group: '', resource: 'pods', namespace: attributes.namespace, name: podName });
  if (pod === undefined) throw listerNotFound('pod', podName);
  if (text(specOf(pod)['nodeName']) !== nodeName) throw refuse(attributes, `node ${nodeName} can only evict pods with spec.nodeName set to itself`);
}

// --- nodes ----------------------------------------------------------------------------------

const labelNamespaceNodeRestriction = 'node-restriction.kubernetes.io';

/** The well-known labels the kubelet sets on its Node (k8s.io/kubelet/pkg/apis). */
const kubeletLabels = new Set([
  'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type', 'kubernetes.io/os', 'kubernetes.io/arch',
  'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);
const kubeletLabelNamespaces = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function inDomain(namespace: string, domain: string): boolean {
  return namespace === domain || namespace.endsWith(`.${domain}`);
}

/** kubeletapis.IsKubeletLabel. */
export function isKubeletLabel(key: string): boolean {
  return kubeletLabels.has(key) || kubeletLabelNamespaces.some((domain) => inDomain(labelNamespace(key), domain));
}

/** The sorted label keys a node may not add, change or remove (kube's getForbiddenLabels of the modified ones). */
export function forbiddenNodeLabels(labels: Readonly<Record<string, string>>, oldLabels: Readonly<Record<string, string>>): string[] {
  const modified = new Set<string>();
  for (const [key, value] of Object.entries(labels)) if (!Object.hasOwn(oldLabels, key) || oldLabels[key] !== value) modified.add(key);
  for (const [key, value] of Object.entries(oldLabels)) if (!Object.hasOwn(labels, key) || labels[key] !== value) modified.add(key);
  return [...modified].filter((key) => {
    const namespace = labelNamespace(key);
    if (inDomain(namespace, labelNamespaceNodeRestriction)) return true;
    return (inDomain(namespace, 'kubernetes.io') || inDomain(namespace, 'k8s.io')) && !isKubeletLabel(key);
  }).sort();
}

function admitNode(nodeName: string, attributes: AdmissionAttributes): void {
  if (attributes.name !== nodeName) throw refuse(attributes, `node ${quote(nodeName)} is not allowed to modify node ${quote(attributes.name)}`);
  const node = attributes.object;
  if (attributes.operation === 'CREATE') {
    if (node === undefined) throw refuse(attributes, 'unexpected type <nil>');
    if (has(specOf(node), 'configSource')) throw refuse(attributes, `node ${quote(nodeName)} is not allowed to create pods with a non-nil configSource`);
    const forbiddenLabels = forbiddenNodeLabels(node.metadata.labels ?? {}, {});
    if (forbiddenLabels.length > 0) throw refuse(attributes, `node ${quote(nodeName)} is not allowed to set the following labels: ${forbiddenLabels.join(', ')}`);
  }
  if (attributes.operation === 'UPDATE') {
    const oldNode = attributes.oldObject;
    if (node === undefined || oldNode === undefined) throw refuse(attributes, 'unexpected type <nil>');
    const spec = specOf(node);
    const oldSpec = specOf(oldNode);
    if (has(spec, 'configSource') && !semanticEqual(spec['configSource'], oldSpec['configSource'])) {
      throw refuse(attributes, `node ${quote(nodeName)} is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!semanticEqual(spec['taints'], oldSpec['taints'])) throw refuse(attributes, `node ${quote(nodeName)} is not allowed to modify taints`);
    const forbiddenLabels = forbiddenNodeLabels(node.metadata.labels ?? {}, oldNode.metadata.labels ?? {});
    if (forbiddenLabels.length > 0) throw refuse(attributes, `is not allowed to modify labels: ${forbiddenLabels.join(', ')}`);
  }
}

// --- persistentvolumeclaims -----------------------------------------------------------------

/** The changed leaf paths, for the refusal (kube prints a whole-object diff there instead). */
function changedPaths(a: JsonValue | undefined, b: JsonValue | undefined, path: string, into: string[]): void {
  if (semanticEqual(a, b)) return;
  const objectA = a !== null && a !== undefined && typeof a === 'object' && !Array.isArray(a) ? a : undefined;
  const objectB = b !== null && b !== undefined && typeof b === 'object' && !Array.isArray(b) ? b : undefined;
  if (objectA === undefined || objectB === undefined) {
    into.push(path);
    return;
  }
  for (const key of [...new Set([...Object.keys(objectA), ...Object.keys(objectB)])].sort()) {
    changedPaths(objectA[key], objectB[key], path === '' ? key : `${path}.${key}`, into);
  }
}

function comparablePvc(pvc: KubeObject, recoverExpansion: boolean): JsonValue {
  const copy = structuredClone(pvc) as unknown as Fields;
  const metadata = fields(copy['metadata']);
  delete metadata['resourceVersion'];
  delete metadata['managedFields'];
  const status = fields(copy['status']);
  delete status['capacity'];
  delete status['conditions'];
  if (recoverExpansion) {
    delete status['allocatedResourceStatuses'];
    delete status['allocatedResources'];
  }
  return copy;
}

function admitPvcStatus(nodeName: string, attributes: AdmissionAttributes, recoverExpansion: boolean): void {
  if (attributes.operation !== 'UPDATE') throw refuse(attributes, `unexpected operation ${quote(attributes.operation)}`);
  const oldPvc = attributes.oldObject;
  const newPvc = attributes.object;
  if (oldPvc === undefined || newPvc === undefined) throw refuse(attributes, 'unexpected type <nil>');
  const before = comparablePvc(oldPvc, recoverExpansion);
  const after = comparablePvc(newPvc, recoverExpansion);
  if (semanticEqual(before, after)) return;
  const paths: string[] = [];
  changedPaths(before, after, '', paths);
  throw refuse(attributes, `node ${quote(nodeName)} is not allowed to update fields other than status.quantity and status.conditions: ${paths.join(', ')}`);
}

// --- serviceaccounts/token ------------------------------------------------------------------

function csiDriverHasAudience(services: AdmissionServices, driverName: string, audience: string): boolean {
  const driver = getObject(services, { group: 'storage.k8s.io', resource: 'csidrivers', namespace: '', name: driverName });
  if (driver === undefined) throw new Error(`csidriver.storage.k8s.io ${quote(driverName)} not found`);
  return records(specOf(driver)['tokenRequests']).some((request) => text(request['audience']) === audience);
}

function csiDriverOfClaim(services: AdmissionServices, namespace: string, claimName: string): string {
  const claim = getObject(services, { group: '', resource: 'persistentvolumeclaims', namespace, name: claimName });
  if (claim === undefined) throw new Error(`persistentvolumeclaim ${quote(claimName)} not found`);
  const volumeName = text(specOf(claim)['volumeName']);
  const volume = getObject(services, { group: '', resource: 'persistentvolumes', namespace: '', name: volumeName });
  if (volume === undefined) throw new Error(`persistentvolume ${quote(volumeName)} not found`);
  return text(fields(specOf(volume)['csi'])['driver']);
}

/** Whether the pod uses the audience: a projected token volume, or a CSI driver's token requests. */
function podReferencesAudience(services: AdmissionServices, pod: KubeObject, audience: string): { readonly found: boolean; readonly errors: readonly string[] } {
  const errors: string[] = [];
  const namespace = pod.metadata.namespace ?? '';
  for (const volume of records(specOf(pod)['volumes'])) {
    for (const source of records(fields(volume['projected'])['sources'])) {
      if (has(source, 'serviceAccountToken') && text(fields(source['serviceAccountToken'])['audience']) === audience) return { found: true, errors: [] };
    }
    try {
      let driver = '';
      if (has(volume, 'ephemeral') && has(fields(volume['ephemeral']), 'volumeClaimTemplate')) {
        driver = csiDriverOfClaim(services, namespace, `${pod.metadata.name ?? ''}-${text(volume['name'])}`);
      } else if (has(volume, 'persistentVolumeClaim')) {
        driver = csiDriverOfClaim(services, namespace, text(fields(volume['persistentVolumeClaim'])['claimName']));
      } else if (has(volume, 'csi')) {
        driver = text(fields(volume['csi'])['driver']);
      }
      if (driver !== '' && csiDriverHasAudience(services, driver, audience)) return { found: true, errors: [] };
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  return { found: false, errors };
}

async function validateNodeAudience(attributes: AdmissionAttributes, services: AdmissionServices, pod: KubeObject, options: NodeRestrictionOptions): Promise<void> {
  const requested = specOf(attributes.object)['audiences'];
  const audiences = Array.isArray(requested) ? requested.map((audience) => text(audience)) : [];
  if (audiences.length > 1) throw refuse(attributes, 'node may only request 0 or 1 audiences');
  const audience = audiences[0] ?? '';
  const { found, errors } = podReferencesAudience(services, pod, audience);
  if (found) return;
  if (errors.length > 0) {
    const aggregate = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
    throw refuse(attributes, `error validating audience ${quote(audience)}: ${aggregate}`);
  }
  const user = attributes.user;
  const result = await authorize(options.authorizers?.() ?? [], {
    user, verb: 'request-serviceaccounts-token-audience', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1',
    namespace: attributes.namespace, resource: audience, subresource: '', name: attributes.name,
  });
  if (result.decision === 'allow') return;
  throw refuse(attributes, `audience ${quote(audience)} not found in pod spec volume, ${user.name} is not authorized to request tokens for this audience`);
}

async function admitServiceAccount(nodeName: string, attributes: AdmissionAttributes, services: AdmissionServices, options: NodeRestrictionOptions): Promise<void> {
  if (attributes.operation !== 'CREATE' || attributes.subresource !== 'token') return;
  const reference = fields(specOf(attributes.object)['boundObjectRef']);
  if (text(reference['apiVersion']) !== 'v1' || text(reference['kind']) !== 'Pod' || text(reference['name']) === '') {
    throw refuse(attributes, 'node requested token not bound to a pod');
  }
  const uid = text(reference['uid']);
  if (uid === '') throw refuse(attributes, 'node requested token with a pod binding without a uid');
  const podName = text(reference['name']);
  const pod = getObject(services, { group: '', resource: 'pods', namespace: attributes.namespace, name: podName });
  if (pod === undefined) throw listerNotFound('pod', podName);
  if (uid !== (pod.metadata.uid ?? '')) {
    throw refuse(attributes, `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if (text(specOf(pod)['nodeName']) !== nodeName) throw refuse(attributes, 'node requested token bound to a pod scheduled on a different node');
  if (options.serviceAccountNodeAudienceRestriction ?? true) await validateNodeAudience(attributes, services, pod, options);
}

// --- leases, csinodes, resourceslices, certificatesigningrequests ---------------------------

/** On create the name is the object's (the URL names none). */
function writtenName(attributes: AdmissionAttributes): string {
  return attributes.operation === 'CREATE' ? attributes.object?.metadata.name ?? '' : attributes.name;
}

function admitLease(nodeName: string, attributes: AdmissionAttributes): void {
  if (attributes.namespace !== nodeLeaseNamespace) throw refuse(attributes, `can only access leases in the ${quote(nodeLeaseNamespace)} system namespace`);
  if (writtenName(attributes) !== nodeName) throw refuse(attributes, 'can only access node lease with the same name as the requesting node');
}

function admitCsiNode(nodeName: string, attributes: AdmissionAttributes): void {
  if (writtenName(attributes) !== nodeName) throw refuse(attributes, 'can only access CSINode with the same name as the requesting node');
}

function admitResourceSlice(nodeName: string, attributes: AdmissionAttributes): void {
  if (attributes.operation === 'CREATE' && text(specOf(attributes.object)['nodeName']) !== nodeName) {
    throw refuse(attributes, 'can only create ResourceSlice with the same NodeName as the requesting node');
  }
  if (attributes.operation === 'DELETE' && text(specOf(attributes.oldObject)['nodeName']) !== nodeName) {
    throw refuse(attributes, 'can only delete ResourceSlice with the same NodeName as the requesting node');
  }
}

const kubeletSigners = new Set(['kubernetes.io/kubelet-serving', 'kubernetes.io/kube-apiserver-client-kubelet']);

/** The subject CN of a PEM CERTIFICATE REQUEST (the last CN, as Go's pkix.Name keeps); throws when it does not parse. */
function requestCommonName(request: Buffer): string {
  const pem = request.toString('latin1');
  const begin = /-----BEGIN ([^\n-]*)-----\r?\n/.exec(pem);
  if (begin === null || begin[1] !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const endMarker = '-----END CERTIFICATE REQUEST-----';
  const end = pem.indexOf(endMarker, begin.index);
  if (end < 0) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let parsed: x509.Pkcs10CertificateRequest;
  try {
    parsed = new x509.Pkcs10CertificateRequest(pem.slice(begin.index, end + endMarker.length));
  } catch {
    throw new Error('asn1: structure error: the certificate request does not parse');
  }
  return parsed.subjectName.getField('CN').at(-1) ?? '';
}

function admitCsr(nodeName: string, attributes: AdmissionAttributes): void {
  if (attributes.operation !== 'CREATE') return;
  const spec = specOf(attributes.object);
  if (!kubeletSigners.has(text(spec['signerName']))) return;
  let commonName: string;
  try {
    commonName = requestCommonName(Buffer.from(text(spec['request']), 'base64'));
  } catch (error) {
    throw refuse(attributes, `unable to parse csr: ${(error as Error).message}`);
  }
  if (commonName !== `system:node:${nodeName}`) throw refuse(attributes, `can only create a node CSR with CN=system:node:${nodeName}`);
}

// --- the plugin -----------------------------------------------------------------------------

async function admitNodeWrite(attributes: AdmissionAttributes, services: AdmissionServices, options: NodeRestrictionOptions): Promise<void> {
  const { isNode, nodeName } = nodeIdentity(attributes.user);
  if (!isNode) return;
  if (nodeName === '') throw refuse(attributes, `could not determine node from user ${quote(attributes.user.name)}`);
  const { group, resource } = attributes.kind;
  const subresource = attributes.subresource;
  if (group === '') {
    switch (resource) {
      case 'pods':
        if (subresource === '') return admitPod(nodeName, attributes, services);
        if (subresource === 'status') return admitPodStatus(nodeName, attributes);
        if (subresource === 'eviction') return admitPodEviction(nodeName, attributes, services);
        throw refuse(attributes, `unexpected pod subresource ${quote(subresource)}, only 'status' and 'eviction' are allowed`);
      case 'nodes': return admitNode(nodeName, attributes);
      case 'persistentvolumeclaims':
        if (subresource === 'status') return admitPvcStatus(nodeName, attributes, options.recoverVolumeExpansionFailure ?? true);
        throw refuse(attributes, 'may only update PVC status');
      case 'serviceaccounts': return admitServiceAccount(nodeName, attributes, services, options);
      default: return undefined;
    }
  }
  if (group === 'coordination.k8s.io' && resource === 'leases') return admitLease(nodeName, attributes);
  if (group === 'storage.k8s.io' && resource === 'csinodes') return admitCsiNode(nodeName, attributes);
  if (group === 'resource.k8s.io' && resource === 'resourceslices') return admitResourceSlice(nodeName, attributes);
  if (group === 'certificates.k8s.io' && resource === 'certificatesigningrequests' && options.allowInsecureKubeletCertificateSigningRequests !== true) {
    return admitCsr(nodeName, attributes);
  }
  return undefined;
}

/** NodeRestriction with these feature gates (kube 1.33's defaults where omitted). */
export function createNodeRestrictionPlugin(options: NodeRestrictionOptions = {}): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    // kube runs it in the mutating phase (Admit); it changes nothing.
    admit: (attributes, services) => admitNodeWrite(attributes, services, options),
  };
}

/** NodeRestriction with kube 1.33's default feature gates and no authorizer for token audiences. */
export const nodeRestrictionPlugin: AdmissionPlugin = createNodeRestrictionPlugin();
