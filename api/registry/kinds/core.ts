// Owns: the core/v1 kinds kstore serves (namespaces, configmaps, secrets, serviceaccounts, events,
// pods, nodes, services, endpoints): each one ResourceKind with its names, printer columns, field
// selectors, subresources, schema and strategy.
import type { ResourceKind, TableColumn } from '../kind.ts';
import { ageColumn, genericStrategy, nameColumn, nestedValue as nested, schemaOf, standardVerbs, stringCell } from '../kind.ts';
import { coreEventFieldSelectors } from '../event-conversion.ts';
import {
  endpointsCell, eventSummary, formatLabels, nested as path, nodeAddress, nodeInfo, nodeRoles, nodeStatus, podIp, podReadinessGates, podSummary,
  serviceClusterIp, serviceExternalIp, servicePorts, stringOf,
} from '../printers.ts';
import { configMapStrategy, namespaceStrategy, secretStrategy, serviceAccountStrategy } from '../strategy.ts';
import { coreEventStrategy, endpointsStrategy, nodeStrategy, podStrategy, serviceStrategy } from '../strategy-workloads.ts';

function dataCount(object: Record<string, unknown>): number {
  const data = object['data'];
  const binary = object['binaryData'];
  const count = (value: unknown): number =>
    value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
  return count(data) + count(binary);
}

/** kube's event printer (printEvent) over a core/v1 Event; events.k8s.io/v1 prints through coreViewOf. */
export const coreEventColumns: readonly TableColumn[] = [
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

export const coreKinds: readonly ResourceKind[] = [
  {
    // POST-only: a Binding assigns the pod its metadata.name names (endpoints/pod-subresources.ts).
    group: '', version: 'v1', resource: 'bindings', singular: 'binding', kind: 'Binding',
    namespaced: true, shortNames: [], categories: [], verbs: ['create'],
    nameRule: 'dns1123Subdomain',
    columns: [],
    strategy: genericStrategy,
    schema: schemaOf('k8s.io.api.core.v1.Binding'),
  },
  {
    group: '', version: 'v1', resource: 'namespaces', singular: 'namespace', kind: 'Namespace',
    namespaced: false, shortNames: ['ns'], categories: [],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'finalize', verbs: ['update'] }, { name: 'status', verbs: ['get', 'patch', 'update'] }],
    fieldSelectors: { 'status.phase': (o) => stringCell(nested(o, 'status', 'phase')) },
    nameRule: 'dns1123Label',
    columns: [{ name: 'Status', type: 'string', description: 'The phase of the namespace', priority: 0,
      cell: (o) => stringCell(nested(o, 'status', 'phase')) }],
    strategy: namespaceStrategy,
    schema: schemaOf('k8s.io.api.core.v1.Namespace'),
  },
  {
    group: '', version: 'v1', resource: 'configmaps', singular: 'configmap', kind: 'ConfigMap',
    namespaced: true, shortNames: ['cm'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Data', type: 'integer', description: 'Number of entries in data and binaryData', priority: 0,
      cell: (o) => dataCount(o) }],
    strategy: configMapStrategy,
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
    strategy: secretStrategy,
    schema: schemaOf('k8s.io.api.core.v1.Secret'),
  },
  {
    group: '', version: 'v1', resource: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount',
    namespaced: true, shortNames: ['sa'], categories: [], verbs: standardVerbs,
    subresources: [{ name: 'token', verbs: ['create'], responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' } }],
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Secrets', type: 'integer', description: 'Number of secrets', priority: 0,
      cell: (o) => (Array.isArray(o['secrets']) ? o['secrets'].length : 0) }],
    strategy: serviceAccountStrategy,
    schema: schemaOf('k8s.io.api.core.v1.ServiceAccount'),
  },
  {
    group: '', version: 'v1', resource: 'events', singular: 'event', kind: 'Event',
    namespaced: true, shortNames: ['ev'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: coreEventColumns,
    fieldSelectors: coreEventFieldSelectors,
    strategy: coreEventStrategy,
    schema: schemaOf('k8s.io.api.core.v1.Event'),
  },
  {
    group: '', version: 'v1', resource: 'pods', singular: 'pod', kind: 'Pod',
    namespaced: true, shortNames: ['po'], categories: ['all'], verbs: standardVerbs,
    subresources: [
      { name: 'attach', verbs: ['create', 'get'], responseKind: { group: '', version: 'v1', kind: 'PodAttachOptions' } },
      { name: 'binding', verbs: ['create'], responseKind: { group: '', version: 'v1', kind: 'Binding' } },
      { name: 'ephemeralcontainers', verbs: ['get', 'patch', 'update'] },
      { name: 'eviction', verbs: ['create'], responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' } },
      { name: 'exec', verbs: ['create', 'get'], responseKind: { group: '', version: 'v1', kind: 'PodExecOptions' } },
      { name: 'log', verbs: ['get'] },
      { name: 'portforward', verbs: ['create', 'get'], responseKind: { group: '', version: 'v1', kind: 'PodPortForwardOptions' } },
      { name: 'proxy', verbs: ['create', 'delete', 'get', 'patch', 'update'], responseKind: { group: '', version: 'v1', kind: 'PodProxyOptions' } },
      { name: 'resize', verbs: ['get', 'patch', 'update'] },
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
    strategy: podStrategy,
    schema: schemaOf('k8s.io.api.core.v1.Pod'),
  },
  {
    group: '', version: 'v1', resource: 'nodes', singular: 'node', kind: 'Node',
    namespaced: false, shortNames: ['no'], categories: [], verbs: standardVerbs,
    subresources: [
      { name: 'proxy', verbs: ['create', 'delete', 'get', 'patch', 'update'], responseKind: { group: '', version: 'v1', kind: 'NodeProxyOptions' } },
      { name: 'status', verbs: ['get', 'patch', 'update'] },
    ],
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
    strategy: nodeStrategy,
    schema: schemaOf('k8s.io.api.core.v1.Node'),
  },
  {
    group: '', version: 'v1', resource: 'services', singular: 'service', kind: 'Service',
    namespaced: true, shortNames: ['svc'], categories: ['all'], verbs: standardVerbs,
    subresources: [
      { name: 'proxy', verbs: ['create', 'delete', 'get', 'patch', 'update'], responseKind: { group: '', version: 'v1', kind: 'ServiceProxyOptions' } },
      { name: 'status', verbs: ['get', 'patch', 'update'] },
    ],
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
    strategy: serviceStrategy,
    schema: schemaOf('k8s.io.api.core.v1.Service'),
  },
  {
    group: '', version: 'v1', resource: 'endpoints', singular: 'endpoints', kind: 'Endpoints',
    namespaced: true, shortNames: ['ep'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Endpoints', type: 'string', description: 'Endpoints of the service', priority: 0, cell: (o) => endpointsCell(o) }],
    strategy: endpointsStrategy,
    schema: schemaOf('k8s.io.api.core.v1.Endpoints'),
  },
];
