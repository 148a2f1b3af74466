// Owns: kube's Node authorization mode (plugin/pkg/auth/authorizer/node, --authorization-mode=Node)
// and the node identity (pkg/auth/nodeidentifier). A user named system:node:<name> in group
// system:nodes is judged here; any other user gets no opinion. Secrets, configmaps, PVCs (and
// their status), PVs, resource claims, volume attachments and service-account tokens are allowed
// only along the graph below; leases (in kube-node-lease) and CSINodes only by the node's own
// name; resource slices by the graph or a nodeName field selector; with AuthorizeNodeWithSelectors
// (on by default) nodes (read only its own) and pods (get along the graph, list/watch with
// spec.nodeName=<itself>) too. Everything else is allowed when kube's node rules
// (bootstrappolicy.NodeRules, the system:node role) allow it. Never deny: a refusal is no opinion
// with kube's reason (`no relationship found between node '<n>' and this object`, ...).
//
// The graph is kube's graph.go computed from the replicated state instead of kept by informers:
// which nodes each object is related to. Edges all point at nodes:
//   pod → node (spec.nodeName); for a pod that is not a mirror pod also
//   serviceaccount (spec.serviceAccountName), secret, configmap (podutil.VisitPodSecretNames /
//   VisitPodConfigmapNames: imagePullSecrets, env and envFrom of every container, init and
//   ephemeral container, the secret-bearing volume sources, projected sources), pvc
//   (persistentVolumeClaim volumes, `<pod>-<volume>` for ephemeral volumes) and resourceclaim
//   (spec.resourceClaims by name, or through status.resourceClaimStatuses for a template) → pod;
//   pv → pvc (spec.claimRef), and a secret the kubelet sees (pvutil.VisitPVSecretNames with
//   kubeletVisible) → pv; volumeattachment → node and resourceslice → node (spec.nodeName).
// The index is rebuilt when the store's revision moves and reused while it stands still.
import type { CollectionKey, JsonValue, KubeObject } from '../../actors/index.ts';
import type { UserInfo } from './authn.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authz.ts';
import { ruleAllows } from './rbac-rules.ts';
import type { PolicyRule } from './rbac-rules.ts';
import { fields, records, text } from '../registry/json-fields.ts';
import type { Fields } from '../registry/json-fields.ts';
import { splitSelectorTerms } from '../request-info.ts';

/** What the graph reads of the store (a narrow view of StoreClient). */
export interface NodeGraphReader {
  list(collection: CollectionKey): { readonly items: readonly KubeObject[]; readonly revision: number };
  currentRevision(): number;
}

export type VertexType = 'configmap' | 'node' | 'pod' | 'pvc' | 'pv' | 'resourceclaim' | 'resourceslice' | 'secret' | 'volumeattachment' | 'serviceAccount';

export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';


function has(object: Fields, field: string): boolean {
  return object[field] !== undefined && object[field] !== null;
}

function vertexKey(type: VertexType, namespace: string, name: string): string {
  return `${type}\u0000${namespace}\u0000${name}`;
}

function containersOf(spec: Fields): Fields[] {
  return [...records(spec['initContainers']), ...records(spec['containers']), ...records(spec['ephemeralContainers'])];
}

/** podutil.VisitPodSecretNames, empty names skipped. */
export function podSecretNames(spec: Fields): string[] {
  const names = records(spec['imagePullSecrets']).map((reference) => text(reference['name']));
  for (const container of containersOf(spec)) {
    for (const source of records(container['envFrom'])) if (has(source, 'secretRef')) names.push(text(fields(source['secretRef'])['name']));
    for (const variable of records(container['env'])) {
      const from = fields(variable['valueFrom']);
      if (has(from, 'secretKeyRef')) names.push(text(fields(from['secretKeyRef'])['name']));
    }
  }
  for (const volume of records(spec['volumes'])) {
    const refName = (source: string): string => text(fields(fields(volume[source])['secretRef'])['name']);
    if (has(volume, 'azureFile')) names.push(text(fields(volume['azureFile'])['secretName']));
    else if (has(volume, 'cephfs')) names.push(refName('cephfs'));
    else if (has(volume, 'cinder')) names.push(refName('cinder'));
    else if (has(volume, 'flexVolume')) names.push(refName('flexVolume'));
    else if (has(volume, 'projected')) {
      for (const source of records(fields(volume['projected'])['sources'])) if (has(source, 'secret')) names.push(text(fields(source['secret'])['name']));
    } else if (has(volume, 'rbd')) names.push(refName('rbd'));
    else if (has(volume, 'secret')) names.push(text(fields(volume['secret'])['secretName']));
    else if (has(volume, 'scaleIO')) names.push(refName('scaleIO'));
    else if (has(volume, 'iscsi')) names.push(refName('iscsi'));
    else if (has(volume, 'storageos')) names.push(refName('storageos'));
    else if (has(volume, 'csi')) names.push(text(fields(fields(volume['csi'])['nodePublishSecretRef'])['name']));
  }
  return names.filter((name) => name !== '');
}

/** podutil.VisitPodConfigmapNames, empty names skipped. */
export function podConfigMapNames(spec: Fields): string[] {
  const names: string[] = [];
  for (const container of containersOf(spec)) {
    for (const source of records(container['envFrom'])) if (has(source, 'configMapRef')) names.push(text(fields(source['configMapRef'])['name']));
    for (const variable of records(container['env'])) {
      const from = fields(variable['valueFrom']);
      if (has(from, 'configMapKeyRef')) names.push(text(fields(from['configMapKeyRef'])['name']));
    }
  }
  for (const volume of records(spec['volumes'])) {
    if (has(volume, 'projected')) {
      for (const source of records(fields(volume['projected'])['sources'])) if (has(source, 'configMap')) names.push(text(fields(source['configMap'])['name']));
    } else if (has(volume, 'configMap')) names.push(text(fields(volume['configMap'])['name']));
  }
  return names.filter((name) => name !== '');
}

/** The claims a pod's volumes use: persistentVolumeClaim volumes, and ephemeral.VolumeClaimName. */
function podClaimNames(podName: string, spec: Fields): string[] {
  return records(spec['volumes']).flatMap((volume) => {
    if (has(volume, 'persistentVolumeClaim')) return [text(fields(volume['persistentVolumeClaim'])['claimName'])];
    if (has(volume, 'ephemeral')) return [`${podName}-${text(volume['name'])}`];
    return [];
  }).filter((name) => name !== '');
}

/** resourceclaim.Name for each spec.resourceClaims entry that has a claim now. */
function podResourceClaimNames(spec: Fields, status: Fields): string[] {
  const statuses = records(status['resourceClaimStatuses']);
  return records(spec['resourceClaims']).flatMap((claim) => {
    const direct = text(claim['resourceClaimName']);
    if (direct !== '') return [direct];
    if (text(claim['resourceClaimTemplateName']) === '') return [];
    const entry = statuses.find((item) => text(item['name']) === text(claim['name']));
    const generated = entry === undefined ? '' : text(entry['resourceClaimName']);
    return generated === '' ? [] : [generated];
  });
}

interface SecretRef { readonly namespace: string; readonly name: string }

/** pvutil.VisitPVSecretNames, only the references the kubelet sees. */
export function pvKubeletSecrets(spec: Fields): SecretRef[] {
  const claimNamespace = text(fields(spec['claimRef'])['namespace']);
  const ref = (value: JsonValue | undefined, namespaceDefault: string): SecretRef[] => {
    if (value === undefined || value === null) return [];
    const reference = fields(value);
    const namespace = text(reference['namespace']);
    return [{ namespace: namespace === '' ? namespaceDefault : namespace, name: text(reference['name']) }];
  };
  let found: SecretRef[] = [];
  if (has(spec, 'azureFile')) {
    const azure = fields(spec['azureFile']);
    const namespace = text(azure['secretNamespace']);
    found = [{ namespace: namespace === '' ? claimNamespace : namespace, name: text(azure['secretName']) }];
  } else if (has(spec, 'cephfs')) found = ref(fields(spec['cephfs'])['secretRef'], claimNamespace);
  else if (has(spec, 'cinder')) found = ref(fields(spec['cinder'])['secretRef'], '');
  else if (has(spec, 'flexVolume')) found = ref(fields(spec['flexVolume'])['secretRef'], claimNamespace);
  else if (has(spec, 'rbd')) found = ref(fields(spec['rbd'])['secretRef'], claimNamespace);
  else if (has(spec, 'scaleIO')) found = ref(fields(spec['scaleIO'])['secretRef'], claimNamespace);
  else if (has(spec, 'iscsi')) found = ref(fields(spec['iscsi'])['secretRef'], claimNamespace);
  else if (has(spec, 'storageos')) found = ref(fields(spec['storageos'])['secretRef'], '');
  else if (has(spec, 'csi')) {
    // controllerPublishSecretRef and controllerExpandSecretRef are not the kubelet's.
    const csi = fields(spec['csi']);
    found = [...ref(csi['nodePublishSecretRef'], ''), ...ref(csi['nodeStageSecretRef'], ''), ...ref(csi['nodeExpandSecretRef'], '')];
  }
  return found.filter((secret) => secret.name !== '');
}

class Index {
  readonly #nodesOf = new Map<string, Set<string>>();

  relate(type: VertexType, namespace: string, name: string, nodes: Iterable<string>): void {
    const key = vertexKey(type, namespace, name);
    let set = this.#nodesOf.get(key);
    if (set === undefined) {
      set = new Set();
      this.#nodesOf.set(key, set);
    }
    for (const node of nodes) set.add(node);
  }

  nodesOf(type: VertexType, namespace: string, name: string): ReadonlySet<string> {
    return this.#nodesOf.get(vertexKey(type, namespace, name)) ?? new Set();
  }
}

const collections = {
  pods: { group: '', resource: 'pods', namespace: '' },
  persistentVolumes: { group: '', resource: 'persistentvolumes', namespace: '' },
  volumeAttachments: { group: 'storage.k8s.io', resource: 'volumeattachments', namespace: '' },
  resourceSlices: { group: 'resource.k8s.io', resource: 'resourceslices', namespace: '' },
} as const;

function buildIndex(lists: Record<keyof typeof collections, readonly KubeObject[]>): Index {
  const index = new Index();
  for (const pod of lists.pods) {
    const spec = fields(pod['spec'] as JsonValue | undefined);
    const node = text(spec['nodeName']);
    if (node === '') continue;
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    index.relate('pod', namespace, name, [node]);
    // A mirror pod must never widen what its node may read.
    if (Object.hasOwn(pod.metadata.annotations ?? {}, mirrorPodAnnotation)) continue;
    const serviceAccount = text(spec['serviceAccountName']);
    if (serviceAccount !== '') index.relate('serviceAccount', namespace, serviceAccount, [node]);
    for (const secret of podSecretNames(spec)) index.relate('secret', namespace, secret, [node]);
    for (const configMap of podConfigMapNames(spec)) index.relate('configmap', namespace, configMap, [node]);
    for (const claim of podClaimNames(name, spec)) index.relate('pvc', namespace, claim, [node]);
    const status = fields(pod['status'] as JsonValue | undefined);
    for (const claim of podResourceClaimNames(spec, status)) index.relate('resourceclaim', namespace, claim, [node]);
  }
  for (const pv of lists.persistentVolumes) {
    const spec = fields(pv['spec'] as JsonValue | undefined);
    if (!has(spec, 'claimRef')) continue;
    const claim = fields(spec['claimRef']);
    const nodes = index.nodesOf('pvc', text(claim['namespace']), text(claim['name']));
    const name = pv.metadata.name ?? '';
    index.relate('pv', '', name, nodes);
    for (const secret of pvKubeletSecrets(spec)) index.relate('secret', secret.namespace, secret.name, nodes);
  }
  for (const [type, items] of [['volumeattachment', lists.volumeAttachments], ['resourceslice', lists.resourceSlices]] as const) {
    for (const object of items) {
      const node = text(fields(object['spec'] as JsonValue | undefined)['nodeName']);
      if (node !== '') index.relate(type, '', object.metadata.name ?? '', [node]);
    }
  }
  return index;
}

/** The graph over a store: whether an object is related to a node. */
export class NodeGraph {
  readonly #reader: NodeGraphReader;
  #cached: { readonly revision: number; readonly index: Index } | undefined;

  constructor(reader: NodeGraphReader) {
    this.#reader = reader;
  }

  #index(): Index {
    const revision = this.#reader.currentRevision();
    if (this.#cached?.revision === revision) return this.#cached.index;
    const revisions = new Set<number>();
    const read = (collection: CollectionKey): readonly KubeObject[] => {
      const result = this.#reader.list(collection);
      revisions.add(result.revision);
      return result.items;
    };
    const index = buildIndex({
      pods: read(collections.pods), persistentVolumes: read(collections.persistentVolumes),
      volumeAttachments: read(collections.volumeAttachments), resourceSlices: read(collections.resourceSlices),
    });
    // Lists read at different revisions (the state moved meanwhile) are used once, never kept.
    if (revisions.size === 1 && revisions.has(revision)) this.#cached = { revision, index };
    return index;
  }

  /** kube's hasPathFrom: a path from the object to the node exists. */
  hasPath(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    return this.#index().nodesOf(type, namespace, name).has(nodeName);
  }
}

// --- the authorizer ---------------------------------------------------------------------------

export const nodeUserPrefix = 'system:node:';
export const nodesGroup = 'system:nodes';
export const nodeLeaseNamespace = 'kube-node-lease';

/**
 * kube's default NodeIdentifier: a user named `system:node:<name>` in group system:nodes is a
 * node; `nodeName` is '' when the name has nothing after the prefix.
 */
export function nodeIdentity(user: UserInfo): { readonly isNode: boolean; readonly nodeName: string } {
  if (!user.name.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return { isNode: false, nodeName: '' };
  return { isNode: true, nodeName: user.name.slice(nodeUserPrefix.length) };
}

function rule(verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[]): PolicyRule {
  return { verbs: [...verbs], apiGroups: [...apiGroups], resources: [...resources] };
}

const read = ['get', 'list', 'watch'];

/** The node rules of kube's bootstrappolicy.NodeRules() (the system:node role) as 1.33 has them. */
export function nodeRules(gates: { readonly dynamicResourceAllocation?: boolean; readonly clusterTrustBundle?: boolean } = {}): PolicyRule[] {
  return [
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(read, [''], ['services']),
    rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
    rule(['update', 'patch'], [''], ['nodes/status']),
    rule(['update', 'patch'], [''], ['nodes']),
    rule(['create', 'update', 'patch'], [''], ['events']),
    rule(read, [''], ['pods']),
    rule(['create', 'delete'], [''], ['pods']),
    rule(['update', 'patch'], [''], ['pods/status']),
    rule(['create'], [''], ['pods/eviction']),
    rule(read, [''], ['secrets', 'configmaps']),
    rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [''], ['endpoints']),
    rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
    rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
    rule(['create'], [''], ['serviceaccounts/token']),
    rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
    rule(['get', 'watch', 'list'], ['storage.k8s.io'], ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
    rule(read, ['node.k8s.io'], ['runtimeclasses']),
    ...(gates.dynamicResourceAllocation === true ? [rule(['get'], ['resource.k8s.io'], ['resourceclaims'])] : []),
    ...(gates.clusterTrustBundle === true ? [rule(read, ['certificates.k8s.io'], ['clustertrustbundles'])] : []),
  ];
}

export interface NodeAuthorizerOptions {
  /** Feature gate AuthorizeNodeWithSelectors (beta, on by default in 1.33): nodes and pods are judged here. */
  readonly authorizeNodeWithSelectors?: boolean;
  /** Feature gate DynamicResourceAllocation (off by default in 1.33): adds the resourceclaims node rule. */
  readonly dynamicResourceAllocation?: boolean;
  /** Feature gate ClusterTrustBundle (off by default in 1.33): adds the clustertrustbundles node rule. */
  readonly clusterTrustBundle?: boolean;
}

/**
 * The attributes with the request's field selector (kube's Attributes.GetFieldSelector), which the
 * authorizer needs to allow a node's `list pods?fieldSelector=spec.nodeName=<itself>`.
 */
export type NodeAuthorizationAttributes = AuthorizationAttributes & { readonly fieldSelector?: string };

interface FieldRequirement { readonly field: string; readonly equals: boolean; readonly value: string }

/** fields.ParseSelector's requirements ('=' and '==' are both Equals); undefined when it does not parse. */
export function fieldRequirements(selector: string | undefined): FieldRequirement[] | undefined {
  if (selector === undefined || selector === '') return [];
  const requirements: FieldRequirement[] = [];
  for (const term of splitSelectorTerms(selector)) {
    if (term === '') continue;
    const operator = ['!=', '==', '='].find((candidate) => term.includes(candidate));
    if (operator === undefined) return undefined;
    const at = term.indexOf(operator);
    const value = term.slice(at + operator.length);
    if (/\\[^\\,=]/.test(value) || /\\$/.test(value)) return undefined;
    requirements.push({ field: term.slice(0, at), equals: operator !== '!=', value: value.replace(/\\(.)/g, '$1') });
  }
  return requirements;
}

function selects(attributes: NodeAuthorizationAttributes, field: string, value: string): boolean {
  return (fieldRequirements(attributes.fieldSelector) ?? []).some((requirement) => requirement.field === field && requirement.equals && requirement.value === value);
}

const allow: AuthorizationResult = { decision: 'allow', reason: '' };
const noOpinion = (reason: string): AuthorizationResult => ({ decision: 'noOpinion', reason });

/** kube's NodeAuthorizer. */
export class NodeAuthorizer implements Authorizer {
  readonly name = 'Node';
  readonly #graph: NodeGraph;
  readonly #rules: readonly PolicyRule[];
  readonly #withSelectors: boolean;

  constructor(reader: NodeGraphReader, options: NodeAuthorizerOptions = {}) {
    this.#graph = new NodeGraph(reader);
    this.#rules = nodeRules(options);
    this.#withSelectors = options.authorizeNodeWithSelectors ?? true;
  }

  authorize(attributes: NodeAuthorizationAttributes): AuthorizationResult {
    const { isNode, nodeName } = nodeIdentity(attributes.user);
    if (!isNode) return noOpinion('');
    if (nodeName === '') return noOpinion(`unknown node for user ${JSON.stringify(attributes.user.name)}`);
    if (attributes.isResourceRequest) {
      const decided = this.#subdivided(nodeName, attributes);
      if (decided !== undefined) return decided;
    }
    return this.#rules.some((policyRule) => ruleAllows(attributes, policyRule)) ? allow : noOpinion('');
  }

  /** The resources whose access the authorizer divides per node; undefined for the others. */
  #subdivided(nodeName: string, attributes: NodeAuthorizationAttributes): AuthorizationResult | undefined {
    const { apiGroup, resource } = attributes;
    if (apiGroup === '') {
      switch (resource) {
        case 'secrets': return this.#readNamespacedObject(nodeName, 'secret', attributes);
        case 'configmaps': return this.#readNamespacedObject(nodeName, 'configmap', attributes);
        case 'persistentvolumeclaims':
          return attributes.subresource === 'status' ? this.#statusUpdate(nodeName, 'pvc', attributes) : this.#get(nodeName, 'pvc', attributes);
        case 'persistentvolumes': return this.#get(nodeName, 'pv', attributes);
        case 'serviceaccounts': return this.#createToken(nodeName, attributes);
        case 'nodes': return this.#withSelectors ? this.#node(nodeName, attributes) : undefined;
        case 'pods': return this.#withSelectors ? this.#pod(nodeName, attributes) : undefined;
        default: return undefined;
      }
    }
    if (apiGroup === 'resource.k8s.io' && resource === 'resourceclaims') return this.#get(nodeName, 'resourceclaim', attributes);
    if (apiGroup === 'resource.k8s.io' && resource === 'resourceslices') return this.#resourceSlice(nodeName, attributes);
    if (apiGroup === 'storage.k8s.io' && resource === 'volumeattachments') return this.#get(nodeName, 'volumeattachment', attributes);
    if (apiGroup === 'storage.k8s.io' && resource === 'csinodes') return this.#csiNode(nodeName, attributes);
    if (apiGroup === 'coordination.k8s.io' && resource === 'leases') return this.#lease(nodeName, attributes);
    return undefined;
  }

  #related(nodeName: string, type: VertexType, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    if (attributes.name === '') return noOpinion('No Object name found');
    return this.#graph.hasPath(nodeName, type, attributes.namespace, attributes.name)
      ? allow
      : noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  #statusUpdate(nodeName: string, type: VertexType, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    if (attributes.verb !== 'update' && attributes.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (attributes.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.#related(nodeName, type, attributes);
  }

  #get(nodeName: string, type: VertexType, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    if (attributes.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attributes.subresource !== '') return noOpinion('cannot get subresource');
    return this.#related(nodeName, type, attributes);
  }

  #readNamespacedObject(nodeName: string, type: VertexType, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    if (!read.includes(attributes.verb)) return noOpinion('can only read resources of this type');
    if (attributes.subresource !== '') return noOpinion('cannot read subresource');
    if (attributes.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.#related(nodeName, type, attributes);
  }

  #createToken(nodeName: string, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    if (attributes.verb !== 'create' || attributes.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (attributes.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.#graph.hasPath(nodeName, 'serviceAccount', attributes.namespace, attributes.name)
      ? allow
      : noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  #lease(nodeName: string, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attributes.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (attributes.namespace !== nodeLeaseNamespace) return noOpinion(`can only access leases in the "${nodeLeaseNamespace}" system namespace`);
    // On create the name is the object's, which NodeRestriction checks.
    if (attributes.verb !== 'create' && attributes.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
    return allow;
  }

  #csiNode(nodeName: string, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attributes.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (attributes.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
    if (attributes.verb !== 'create' && attributes.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
    return allow;
  }

  #resourceSlice(nodeName: string, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    if (attributes.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
    switch (attributes.verb) {
      case 'create': return allow;
      case 'get': case 'update': case 'patch': case 'delete': return this.#related(nodeName, 'resourceslice', attributes);
      case 'watch': case 'list': case 'deletecollection':
        if (!this.#withSelectors || selects(attributes, 'spec.nodeName', nodeName)) return allow;
        return noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  #node(nodeName: string, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    const { verb, subresource, name } = attributes;
    if (subresource === '') {
      // Create and update are limited to its own Node by NodeRestriction.
      if (verb === 'create' || verb === 'update' || verb === 'patch') return allow;
      if (read.includes(verb)) {
        if (name === nodeName) return allow;
        if (name === '') return noOpinion(`node '${nodeName}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${nodeName}' cannot read '${name}', only its own Node object`);
      }
    } else if (subresource === 'status' && (verb === 'update' || verb === 'patch')) {
      return allow;
    }
    return noOpinion('');
  }

  #pod(nodeName: string, attributes: NodeAuthorizationAttributes): AuthorizationResult {
    const { verb, subresource } = attributes;
    if (subresource === '') {
      if (verb === 'get') return this.#get(nodeName, 'pod', attributes);
      if (verb === 'list' || verb === 'watch') {
        if (selects(attributes, 'spec.nodeName', nodeName)) return allow;
        if (attributes.name !== '') return this.#related(nodeName, 'pod', attributes);
        return noOpinion('can only list/watch pods with spec.nodeName field selector');
      }
      // Mirror pods: NodeRestriction limits them to pods bound to the node.
      if (verb === 'create' || verb === 'delete') return allow;
    } else if (subresource === 'status' && (verb === 'update' || verb === 'patch')) {
      return allow;
    } else if (subresource === 'eviction' && verb === 'create') {
      return allow;
    }
    return noOpinion('');
  }
}

export function nodeAuthorizer(reader: NodeGraphReader, options: NodeAuthorizerOptions = {}): Authorizer {
  return new NodeAuthorizer(reader, options);
}
