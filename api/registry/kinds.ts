// Owns: the resource registry's data: every served kind as one entry (group, version,
// resource, kind, scope, short names, verbs, name rules, table columns, JSON schema).
// Adding a kind is one entry here; its schema is built from its generated description
// (schema-from-description.ts); handlers are generic.
import type { KubeObject } from '../../actors/index.ts';
import { coreEventFieldSelectors, coreToEventsV1, coreViewOf, eventsV1FieldSelectors, eventsV1ToCore } from './event-conversion.ts';
import type { JsonSchema } from './schemas.ts';
import { SchemaBuilder, schemaOfKind } from './schema-from-description.ts';
import type { MessageName } from './kind-description.ts';
import {
  endpointsCell, eventSummary, formatLabels, nested as path, nodeAddress, nodeInfo, nodeRoles, nodeStatus, podIp, podReadinessGates, podSummary,
  serviceClusterIp, serviceExternalIp, servicePorts, stringOf, bindingSubjects, roleRefCell,
  deploymentReady, formatLabelSelector, templateContainers,
} from './printers.ts';

/** One builder for every served kind, so the kinds share their definitions (one per name in OpenAPI). */
const schemaBuilder = new SchemaBuilder();

/** A kind's schema, built from its generated description (api/registry/generated). */
function schemaOf(message: MessageName): JsonSchema {
  return schemaOfKind(message, schemaBuilder);
}

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export const standardVerbs: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** How a kind's object names are validated (k8s apimachinery validation). */
export type NameRule = 'dns1123Label' | 'dns1123Subdomain' | 'pathSegment';

export interface TableColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'number' | 'boolean';
  readonly format?: string;
  readonly description: string;
  /** 0 = shown by default; >0 only with -o wide. */
  readonly priority: number;
  /** Computes the cell from the object; `since` renders a timestamp as an age ("5m"). */
  readonly cell: (object: Record<string, unknown>, since: (timestamp: unknown) => string) => string | number | boolean | null;
}

/**
 * How a kind's Table rows are laid out: 'standard' is Name, the kind's columns, Age (most
 * built-in printers); 'columnsOnly' is the kind's columns alone (the events printer, which
 * leads with Last Seen and shows Name only with -o wide).
 */
export type TableLayout = 'standard' | 'columnsOnly';

export interface Subresource {
  readonly name: string;
  readonly verbs: readonly Verb[];
  /** The kind the subresource takes and answers when not the resource's own (pods/eviction: policy/v1 Eviction). */
  readonly responseKind?: { readonly group: string; readonly version: string; readonly kind: string };
}

/**
 * The storage a kind is served over when it is not its own: kube-apiserver stores one resource
 * `events` (as core/v1 Event) and serves it under core/v1 and events.k8s.io/v1. Both kinds name
 * the same objects (the stored resource's keys, so the same resourceVersions and one watch
 * stream); endpoints/served-view.ts converts every object read, proposed and watched.
 */
export interface StoredAs {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  /** The served form → the stored form. Returns a new object. */
  toStored(object: KubeObject): KubeObject;
  /** The stored form → the served form. Returns a new object; never throws. */
  fromStored(object: KubeObject): KubeObject;
}

export interface ResourceKind {
  readonly group: string;
  readonly version: string;
  /** Plural lowercase name used in URLs. */
  readonly resource: string;
  readonly singular: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly Verb[];
  /** Subresources served under the item path (e.g. namespaces/finalize). */
  readonly subresources?: readonly Subresource[];
  readonly nameRule: NameRule;
  /** Columns after Name (and before Age) in the standard layout; all columns otherwise. */
  readonly columns: readonly TableColumn[];
  readonly tableLayout?: TableLayout;
  /** Field selectors the kind supports beyond metadata.name and metadata.namespace (kube's per-kind field label conversion). */
  readonly fieldSelectors?: Readonly<Record<string, (object: Record<string, unknown>) => string>>;
  /** JSON schema (ajv) of the whole object. */
  readonly schema: JsonSchema;
  /** Set when the kind is a served view of another kind's storage (see StoredAs). */
  readonly storage?: StoredAs;
}

/** The group and resource whose keys hold a kind's objects. */
export function storedResourceOf(kind: ResourceKind): { readonly group: string; readonly resource: string } {
  return kind.storage ?? kind;
}

export function apiVersionOf(kind: Pick<ResourceKind, 'group' | 'version'>): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}

function dataCount(object: Record<string, unknown>): number {
  const data = object['data'];
  const binary = object['binaryData'];
  const count = (value: unknown): number =>
    value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
  return count(data) + count(binary);
}

function nested(object: Record<string, unknown>, ...path: string[]): unknown {
  let current: unknown = object;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function stringCell(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

/** kube's event printer (printEvent) over a core/v1 Event; events.k8s.io/v1 prints through coreViewOf. */
const coreEventColumns: readonly TableColumn[] = [
  { name: 'Last Seen', type: 'string', description: 'The time at which the most recent occurrence of this event was recorded.', priority: 0, cell: (o, since) => eventSummary(o, since).lastSeen },
  { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future', priority: 0, cell: (o) => stringCell(o['type']) },
  { name: 'Reason', type: 'string', description: 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.', priority: 0, cell: (o) => stringCell(o['reason']) },
  { name: 'Object', type: 'string', description: 'The object that this event is about.', priority: 0, cell: (o, since) => eventSummary(o, since).object },
  { name: 'Subobject', type: 'string', description: 'The field of the involved object this event is about.', priority: 1, cell: (o) => stringCell(nested(o, 'involvedObject', 'fieldPath')) },
  { name: 'Source', type: 'string', description: 'The component reporting this event.', priority: 1, cell: (o, since) => eventSummary(o, since).source },
  { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.', priority: 0, cell: (o) => stringCell(o['message']).trim() },
  { name: 'First Seen', type: 'string', description: 'The time at which the event was first recorded.', priority: 1, cell: (o, since) => eventSummary(o, since).firstSeen },
  { name: 'Count', type: 'string', description: 'The number of times this event has occurred.', priority: 1, cell: (o, since) => eventSummary(o, since).count },
  { name: 'Name', type: 'string', format: 'name', description: 'Name of the event.', priority: 1, cell: (o) => stringCell(nested(o, 'metadata', 'name')) },
];

/** events.k8s.io/v1 Events are core/v1 Events in storage (pkg/apis/events/v1/conversion.go). */
const eventsV1Storage: StoredAs = {
  group: '', version: 'v1', resource: 'events', kind: 'Event', toStored: eventsV1ToCore, fromStored: coreToEventsV1,
};

const nameColumn: TableColumn = {
  name: 'Name', type: 'string', format: 'name', priority: 0,
  description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  cell: (o) => stringOf(path(o, 'metadata', 'name')),
};

const ageColumn: TableColumn = {
  name: 'Age', type: 'string', priority: 0,
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  cell: (o, since) => since(path(o, 'metadata', 'creationTimestamp')),
};

export const servedKinds: readonly ResourceKind[] = [
  {
    group: '', version: 'v1', resource: 'namespaces', singular: 'namespace', kind: 'Namespace',
    namespaced: false, shortNames: ['ns'], categories: [],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'finalize', verbs: ['update'] }, { name: 'status', verbs: ['get', 'update'] }],
    fieldSelectors: { 'status.phase': (o) => stringCell(nested(o, 'status', 'phase')) },
    nameRule: 'dns1123Label',
    columns: [{ name: 'Status', type: 'string', description: 'The phase of the namespace', priority: 0,
      cell: (o) => stringCell(nested(o, 'status', 'phase')) }],
    schema: schemaOf('k8s.io.api.core.v1.Namespace'),
  },
  {
    group: '', version: 'v1', resource: 'configmaps', singular: 'configmap', kind: 'ConfigMap',
    namespaced: true, shortNames: ['cm'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Data', type: 'integer', description: 'Number of entries in data and binaryData', priority: 0,
      cell: (o) => dataCount(o) }],
    schema: schemaOf('k8s.io.api.core.v1.ConfigMap'),
  },
  {
    group: '', version: 'v1', resource: 'secrets', singular: 'secret', kind: 'Secret',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [
      { name: 'Type', type: 'string', description: 'The type of the secret', priority: 0,
        cell: (o) => stringCell(o['type'] ?? 'Opaque') },
      { name: 'Data', type: 'integer', description: 'Number of entries in data', priority: 0,
        cell: (o) => dataCount(o) },
    ],
    fieldSelectors: { type: (o) => stringCell(o['type']) },
    schema: schemaOf('k8s.io.api.core.v1.Secret'),
  },
  {
    group: '', version: 'v1', resource: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount',
    namespaced: true, shortNames: ['sa'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Secrets', type: 'integer', description: 'Number of secrets', priority: 0,
      cell: (o) => (Array.isArray(o['secrets']) ? o['secrets'].length : 0) }],
    schema: schemaOf('k8s.io.api.core.v1.ServiceAccount'),
  },
  {
    group: '', version: 'v1', resource: 'events', singular: 'event', kind: 'Event',
    namespaced: true, shortNames: ['ev'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: coreEventColumns,
    fieldSelectors: coreEventFieldSelectors,
    schema: schemaOf('k8s.io.api.core.v1.Event'),
  },
  {
    group: '', version: 'v1', resource: 'pods', singular: 'pod', kind: 'Pod',
    namespaced: true, shortNames: ['po'], categories: ['all'], verbs: standardVerbs,
    subresources: [
      { name: 'attach', verbs: ['create', 'get'], responseKind: { group: '', version: 'v1', kind: 'PodAttachOptions' } },
      { name: 'binding', verbs: ['create'], responseKind: { group: '', version: 'v1', kind: 'Binding' } },
      { name: 'eviction', verbs: ['create'], responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' } },
      { name: 'exec', verbs: ['create', 'get'], responseKind: { group: '', version: 'v1', kind: 'PodExecOptions' } },
      { name: 'log', verbs: ['get'] },
      { name: 'portforward', verbs: ['create', 'get'], responseKind: { group: '', version: 'v1', kind: 'PodPortForwardOptions' } },
      { name: 'status', verbs: ['get', 'patch', 'update'] },
    ],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', priority: 0, cell: (o, since) => podSummary(o, since).ready },
      { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', priority: 0, cell: (o, since) => podSummary(o, since).status },
      { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.', priority: 0, cell: (o, since) => podSummary(o, since).restarts },
      ageColumn,
      { name: 'IP', type: 'string', description: 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', priority: 1, cell: (o) => podIp(o) },
      { name: 'Node', type: 'string', description: 'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename', priority: 1,
        cell: (o) => stringOf(path(o, 'spec', 'nodeName')) || '<none>' },
      { name: 'Nominated Node', type: 'string', description: 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.', priority: 1,
        cell: (o) => stringOf(path(o, 'status', 'nominatedNodeName')) || '<none>' },
      { name: 'Readiness Gates', type: 'string', description: 'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates', priority: 1,
        cell: (o) => podReadinessGates(o) },
    ],
    fieldSelectors: {
      'spec.nodeName': (o) => stringOf(path(o, 'spec', 'nodeName')),
      'spec.restartPolicy': (o) => stringOf(path(o, 'spec', 'restartPolicy')),
      'spec.schedulerName': (o) => stringOf(path(o, 'spec', 'schedulerName')),
      'spec.serviceAccountName': (o) => stringOf(path(o, 'spec', 'serviceAccountName')),
      'spec.hostNetwork': (o) => String(path(o, 'spec', 'hostNetwork') === true),
      'status.phase': (o) => stringOf(path(o, 'status', 'phase')),
      'status.podIP': (o) => stringOf(path(o, 'status', 'podIPs', 0, 'ip') ?? path(o, 'status', 'podIP')),
      'status.nominatedNodeName': (o) => stringOf(path(o, 'status', 'nominatedNodeName')),
    },
    schema: schemaOf('k8s.io.api.core.v1.Pod'),
  },
  {
    group: '', version: 'v1', resource: 'nodes', singular: 'node', kind: 'Node',
    namespaced: false, shortNames: ['no'], categories: [], verbs: standardVerbs,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Status', type: 'string', description: 'The status of the node', priority: 0, cell: (o) => nodeStatus(o) },
      { name: 'Roles', type: 'string', description: 'The roles of the node', priority: 0, cell: (o) => nodeRoles(o) },
      ageColumn,
      { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.', priority: 0, cell: (o) => stringOf(path(o, 'status', 'nodeInfo', 'kubeletVersion')) },
      { name: 'Internal-IP', type: 'string', description: 'List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node\'s address in its own status or consumers of the downward API (status.hostIP).', priority: 1, cell: (o) => nodeAddress(o, 'InternalIP') },
      { name: 'External-IP', type: 'string', description: 'List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node\'s address in its own status or consumers of the downward API (status.hostIP).', priority: 1, cell: (o) => nodeAddress(o, 'ExternalIP') },
      { name: 'OS-Image', type: 'string', description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', priority: 1, cell: (o) => nodeInfo(o, 'osImage') },
      { name: 'Kernel-Version', type: 'string', description: 'Kernel Version reported by the node from \'uname -r\' (e.g. 3.16.0-0.bpo.4-amd64).', priority: 1, cell: (o) => nodeInfo(o, 'kernelVersion') },
      { name: 'Container-Runtime', type: 'string', description: 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', priority: 1, cell: (o) => nodeInfo(o, 'containerRuntimeVersion') },
    ],
    fieldSelectors: { 'spec.unschedulable': (o) => String(path(o, 'spec', 'unschedulable') === true) },
    schema: schemaOf('k8s.io.api.core.v1.Node'),
  },
  {
    group: '', version: 'v1', resource: 'services', singular: 'service', kind: 'Service',
    namespaced: true, shortNames: ['svc'], categories: ['all'], verbs: standardVerbs,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    nameRule: 'dns1123Label',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Type', type: 'string', description: 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types', priority: 0,
        cell: (o) => stringOf(path(o, 'spec', 'type')) },
      { name: 'Cluster-IP', type: 'string', description: 'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies', priority: 0,
        cell: (o) => serviceClusterIp(o) },
      { name: 'External-IP', type: 'string', description: 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.', priority: 0,
        cell: (o) => serviceExternalIp(o) },
      { name: 'Port(s)', type: 'string', description: 'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies', priority: 0,
        cell: (o) => servicePorts(o) },
      ageColumn,
      { name: 'Selector', type: 'string', description: 'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/', priority: 1,
        cell: (o) => formatLabels(path(o, 'spec', 'selector')) },
    ],
    fieldSelectors: {
      'spec.clusterIP': (o) => stringOf(path(o, 'spec', 'clusterIP')),
      'spec.type': (o) => stringOf(path(o, 'spec', 'type')),
    },
    schema: schemaOf('k8s.io.api.core.v1.Service'),
  },
  {
    group: '', version: 'v1', resource: 'endpoints', singular: 'endpoints', kind: 'Endpoints',
    namespaced: true, shortNames: ['ep'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Endpoints', type: 'string', description: 'Endpoints of the service', priority: 0, cell: (o) => endpointsCell(o) }],
    schema: schemaOf('k8s.io.api.core.v1.Endpoints'),
  },
  {
    group: 'coordination.k8s.io', version: 'v1', resource: 'leases', singular: 'lease', kind: 'Lease',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Holder', type: 'string', description: 'The holder of the lease', priority: 0,
      cell: (o) => stringCell(nested(o, 'spec', 'holderIdentity')) }],
    schema: schemaOf('k8s.io.api.coordination.v1.Lease'),
  },
  {
    group: 'events.k8s.io', version: 'v1', resource: 'events', singular: 'event', kind: 'Event',
    namespaced: true, shortNames: ['ev'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    // kube prints both groups' events with one printer, from the internal (core) type.
    columns: coreEventColumns.map((column) => ({ ...column, cell: (o, since) => column.cell(coreViewOf(o), since) })),
    fieldSelectors: eventsV1FieldSelectors,
    storage: eventsV1Storage,
    schema: schemaOf('k8s.io.api.events.v1.Event'),
  },
  ...rbacKinds(),
  {
    group: 'apps', version: 'v1', resource: 'deployments', singular: 'deployment', kind: 'Deployment',
    namespaced: true, shortNames: ['deploy'], categories: ['all'], verbs: standardVerbs,
    subresources: [
      { name: 'scale', verbs: ['get', 'patch', 'update'], responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
      { name: 'status', verbs: ['get', 'patch', 'update'] },
    ],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Ready', type: 'string', description: 'Ready pods of the desired number of pods.', priority: 0, cell: (o) => deploymentReady(o) },
      { name: 'Up-to-date', type: 'string', description: 'Pods that run the current pod template.', priority: 0, cell: (o) => Number(path(o, 'status', 'updatedReplicas') ?? 0) },
      { name: 'Available', type: 'string', description: 'Pods that have been ready for at least minReadySeconds.', priority: 0, cell: (o) => Number(path(o, 'status', 'availableReplicas') ?? 0) },
      ageColumn,
      { name: 'Containers', type: 'string', description: 'The names of the pod template\'s containers.', priority: 1, cell: (o) => templateContainers(o, 'name') },
      { name: 'Images', type: 'string', description: 'The images of the pod template\'s containers.', priority: 1, cell: (o) => templateContainers(o, 'image') },
      { name: 'Selector', type: 'string', description: 'The label selector of the pods the deployment manages.', priority: 1, cell: (o) => formatLabelSelector(path(o, 'spec', 'selector')) },
    ],
    schema: schemaOf('k8s.io.api.apps.v1.Deployment'),
  },
];

/** rbac.authorization.k8s.io/v1: kube's printers (Role/ClusterRole: Name, Created At; bindings: Name, Role, Age; wide: Users, Groups, ServiceAccounts). */
function rbacKinds(): ResourceKind[] {
  const createdAt: TableColumn = {
    name: 'Created At', type: 'date', priority: 0,
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
    cell: (o) => stringOf(path(o, 'metadata', 'creationTimestamp')),
  };
  const bindingColumns: readonly TableColumn[] = [
    nameColumn,
    { name: 'Role', type: 'string', description: 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.', priority: 0, cell: (o) => roleRefCell(o) },
    ageColumn,
    { name: 'Users', type: 'string', description: 'Users in the roleBinding', priority: 1, cell: (o) => bindingSubjects(o, 'User') },
    { name: 'Groups', type: 'string', description: 'Groups in the roleBinding', priority: 1, cell: (o) => bindingSubjects(o, 'Group') },
    { name: 'ServiceAccounts', type: 'string', description: 'ServiceAccounts in the roleBinding', priority: 1, cell: (o) => bindingSubjects(o, 'ServiceAccount') },
  ];
  const common = { group: 'rbac.authorization.k8s.io', version: 'v1', shortNames: [], categories: [], verbs: standardVerbs, nameRule: 'pathSegment', tableLayout: 'columnsOnly' } as const;
  return [
    { ...common, resource: 'clusterrolebindings', singular: 'clusterrolebinding', kind: 'ClusterRoleBinding', namespaced: false, columns: bindingColumns, schema: schemaOf('k8s.io.api.rbac.v1.ClusterRoleBinding') },
    { ...common, resource: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole', namespaced: false, columns: [nameColumn, createdAt], schema: schemaOf('k8s.io.api.rbac.v1.ClusterRole') },
    { ...common, resource: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding', namespaced: true, columns: bindingColumns, schema: schemaOf('k8s.io.api.rbac.v1.RoleBinding') },
    { ...common, resource: 'roles', singular: 'role', kind: 'Role', namespaced: true, columns: [nameColumn, createdAt], schema: schemaOf('k8s.io.api.rbac.v1.Role') },
  ];
}

/** Group versions served, in discovery order (core first). */
export function servedGroups(): { group: string; versions: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const kind of servedKinds) {
    const versions = groups.get(kind.group) ?? [];
    if (!versions.includes(kind.version)) versions.push(kind.version);
    groups.set(kind.group, versions);
  }
  return [...groups].map(([group, versions]) => ({ group, versions }));
}

export function findKind(group: string, version: string, resource: string): ResourceKind | undefined {
  return servedKinds.find((k) => k.group === group && k.version === version && k.resource === resource);
}
