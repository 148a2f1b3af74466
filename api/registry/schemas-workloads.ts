// Owns: the JSON schemas of the workload and networking kinds (pods, nodes, services,
// endpoints, events.k8s.io/v1 events, and the pods/binding body), in the same type-level style
// as schemas.ts, complete to the leaves: every field of kube's v1 types is listed at every depth
// (so fieldValidation reports an unknown field wherever it sits, and a wrong type anywhere is a
// 400), with kube's required fields and x-kubernetes-* list extensions for OpenAPI. PodSpec and
// PodStatus are in ./schemas-pod.ts, volumes in ./schemas-volumes.ts; api/codecs' protobuf
// tables list the same fields (test/unit/api/schemas-workloads.test.ts keeps the two in step).
import {
  at, atomicList, boolean as bool, condition, coreV1, eventSource, int32, int64, intOrString, kindSchema, mapList, mapOf, microTime,
  nameDefinitions, object, objectReference, quantityMap, setList, string as str, time,
} from './schemas.ts';
import type { JsonSchema } from './schemas.ts';
import { podSpecSchema, podStatusSchema } from './schemas-pod.ts';

export { intOrString, podSpecSchema, podStatusSchema };

const byType = { mergeKey: 'type', strategy: 'merge' } as const;

const nodeConfigSource = object({
  configMap: object({ namespace: str, name: str, uid: str, resourceVersion: str, kubeletConfigKey: str },
    'ConfigMapNodeConfigSource contains the information to reference a ConfigMap as a config source for the Node.',
    ['namespace', 'name', 'kubeletConfigKey']),
}, 'NodeConfigSource specifies a source of node configuration. Exactly one subfield (excluding metadata) must be non-nil.');

export const nodeSpecSchema: JsonSchema = object({
  podCIDR: str,
  // kube: patchStrategy merge (a union); kstore's strategic merge replaces it, so no strategy is published.
  podCIDRs: setList(str),
  providerID: str, unschedulable: bool,
  taints: atomicList(object({ key: str, value: str, effect: str, timeAdded: time },
    'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.', ['key', 'effect'])),
  configSource: nodeConfigSource, externalID: str,
  podPreemptionPolicy: object({ disableResizePreemption: setList(str) }, 'NodePodPreemptionPolicy controls which preemptions the node allows.'),
}, 'NodeSpec describes the attributes that a node is created with.');

export const nodeStatusSchema: JsonSchema = object({
  capacity: quantityMap, allocatable: quantityMap, phase: str,
  conditions: mapList(object({ type: str, status: str, lastHeartbeatTime: time, lastTransitionTime: time, reason: str, message: str },
    'NodeCondition contains condition information for a node.', ['type', 'status']), ['type'], byType),
  addresses: mapList(object({ type: str, address: str }, 'NodeAddress contains information for the node\'s address.', ['type', 'address']),
    ['type'], byType),
  daemonEndpoints: object({
    kubeletEndpoint: object({ Port: int32 }, 'DaemonEndpoint contains information about a single Daemon endpoint.', ['Port']),
  }, 'NodeDaemonEndpoints lists ports opened by daemons running on the Node.'),
  nodeInfo: object({
    machineID: str, systemUUID: str, bootID: str, kernelVersion: str, osImage: str, containerRuntimeVersion: str,
    kubeletVersion: str, kubeProxyVersion: str, operatingSystem: str, architecture: str,
    swap: object({ capacity: int64 }, 'NodeSwapStatus represents swap memory information.'),
  }, 'NodeSystemInfo is a set of ids/uuids to uniquely identify the node.', ['machineID', 'systemUUID', 'bootID', 'kernelVersion',
    'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture']),
  images: atomicList(object({ names: atomicList(str), sizeBytes: int64 }, 'Describe a container image')),
  volumesInUse: atomicList(str),
  volumesAttached: atomicList(object({ name: str, devicePath: str }, 'AttachedVolume describes a volume attached to a node', ['name', 'devicePath'])),
  config: object({ assigned: nodeConfigSource, active: nodeConfigSource, lastKnownGood: nodeConfigSource, error: str },
    'NodeConfigStatus describes the status of the config assigned by Node.Spec.ConfigSource.'),
  runtimeHandlers: atomicList(object({
    name: str,
    features: object({ recursiveReadOnlyMounts: bool, userNamespaces: bool }, 'NodeRuntimeHandlerFeatures is a set of features implemented by the runtime handler.'),
  }, 'NodeRuntimeHandler is a set of runtime handler information.')),
  features: object({ supplementalGroupsPolicy: bool }, 'NodeFeatures describes the set of features implemented by the CRI implementation.'),
  declaredFeatures: atomicList(str),
}, 'NodeStatus is information about the current status of a node.');

const nodeSchema = kindSchema({ spec: nodeSpecSchema, status: nodeStatusSchema }, 'Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).');

const servicePort = object({ name: str, protocol: str, appProtocol: str, port: int32, targetPort: intOrString, nodePort: int32 },
  'ServicePort contains information on service\'s port.', ['port']);

export const serviceSpecSchema: JsonSchema = object({
  ports: mapList(servicePort, ['port', 'protocol'], { mergeKey: 'port', strategy: 'merge' }),
  selector: mapOf(str, 'atomic'), clusterIP: str, clusterIPs: atomicList(str), type: str, externalIPs: atomicList(str),
  sessionAffinity: str, loadBalancerIP: str, loadBalancerSourceRanges: atomicList(str), externalName: str, externalTrafficPolicy: str,
  healthCheckNodePort: int32, publishNotReadyAddresses: bool,
  sessionAffinityConfig: object({
    clientIP: object({ timeoutSeconds: int32 }, 'ClientIPConfig represents the configurations of Client IP based session affinity.'),
  }, 'SessionAffinityConfig represents the configurations of session affinity.'),
  ipFamilies: atomicList(str), ipFamilyPolicy: str, allocateLoadBalancerNodePorts: bool, loadBalancerClass: str,
  internalTrafficPolicy: str, trafficDistribution: str,
}, 'ServiceSpec describes the attributes that a user creates on a service.');

export const serviceStatusSchema: JsonSchema = object({
  loadBalancer: object({
    ingress: atomicList(object({
      ip: str, hostname: str, ipMode: str,
      ports: atomicList(object({ port: int32, protocol: str, error: str }, 'PortStatus represents the error condition of a service port', ['port', 'protocol'])),
    }, 'LoadBalancerIngress represents the status of a load-balancer ingress point: traffic intended for the service should be sent to an ingress point.')),
  }, 'LoadBalancerStatus represents the status of a load-balancer.'),
  conditions: mapList(condition, ['type'], byType),
}, 'ServiceStatus represents the current status of a service.');

const serviceSchema = kindSchema({ spec: serviceSpecSchema, status: serviceStatusSchema }, 'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.');

const endpointAddress: JsonSchema = {
  ...object({ ip: str, hostname: str, nodeName: str, targetRef: objectReference }, 'EndpointAddress is a tuple that describes single IP address.', ['ip']),
  'x-kubernetes-map-type': 'atomic',
};

const endpointsSchema = kindSchema({
  subsets: atomicList(object({
    addresses: atomicList(endpointAddress), notReadyAddresses: atomicList(endpointAddress),
    ports: atomicList({
      ...object({ name: str, port: int32, protocol: str, appProtocol: str }, 'EndpointPort is a tuple that describes a single port.', ['port']),
      'x-kubernetes-map-type': 'atomic',
    }),
  }, 'EndpointSubset is a group of addresses with a common set of ports.')),
}, 'Endpoints is a collection of endpoints that implement the actual service.');

const eventsV1EventSchema = kindSchema({
  eventTime: microTime,
  series: object({ count: int32, lastObservedTime: microTime },
    'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.', ['count', 'lastObservedTime']),
  reportingController: str, reportingInstance: str, action: str, reason: str, regarding: objectReference, related: objectReference,
  note: str, type: str, deprecatedSource: eventSource, deprecatedFirstTimestamp: time, deprecatedLastTimestamp: time, deprecatedCount: int32,
}, 'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system.', ['eventTime']);

/** The body of POST pods/<name>/binding. */
export const bindingSchema: JsonSchema = kindSchema({ target: objectReference },
  'Binding ties one object to another; for example, a pod is bound to a node by a scheduler.', ['target']);

nameDefinitions(coreV1, {
  NodeConfigSource: nodeConfigSource, ConfigMapNodeConfigSource: at(nodeConfigSource, 'configMap'), NodeSpec: nodeSpecSchema,
  Taint: at(nodeSpecSchema, 'taints'), NodePodPreemptionPolicy: at(nodeSpecSchema, 'podPreemptionPolicy'), NodeStatus: nodeStatusSchema,
  NodeCondition: at(nodeStatusSchema, 'conditions'), NodeAddress: at(nodeStatusSchema, 'addresses'),
  NodeDaemonEndpoints: at(nodeStatusSchema, 'daemonEndpoints'), DaemonEndpoint: at(nodeStatusSchema, 'daemonEndpoints', 'kubeletEndpoint'),
  NodeSystemInfo: at(nodeStatusSchema, 'nodeInfo'), NodeSwapStatus: at(nodeStatusSchema, 'nodeInfo', 'swap'),
  ContainerImage: at(nodeStatusSchema, 'images'), AttachedVolume: at(nodeStatusSchema, 'volumesAttached'),
  NodeConfigStatus: at(nodeStatusSchema, 'config'), NodeRuntimeHandler: at(nodeStatusSchema, 'runtimeHandlers'),
  NodeRuntimeHandlerFeatures: at(nodeStatusSchema, 'runtimeHandlers', 'features'), NodeFeatures: at(nodeStatusSchema, 'features'),
  ServicePort: servicePort, ServiceSpec: serviceSpecSchema, SessionAffinityConfig: at(serviceSpecSchema, 'sessionAffinityConfig'),
  ClientIPConfig: at(serviceSpecSchema, 'sessionAffinityConfig', 'clientIP'), ServiceStatus: serviceStatusSchema,
  LoadBalancerStatus: at(serviceStatusSchema, 'loadBalancer'), LoadBalancerIngress: at(serviceStatusSchema, 'loadBalancer', 'ingress'),
  PortStatus: at(serviceStatusSchema, 'loadBalancer', 'ingress', 'ports'),
  EndpointAddress: endpointAddress, EndpointSubset: at(endpointsSchema, 'subsets'), EndpointPort: at(endpointsSchema, 'subsets', 'ports'),
});
nameDefinitions('io.k8s.api.events.v1', { EventSeries: at(eventsV1EventSchema, 'series') });

export const workloadKindSchemas = {
  Pod: kindSchema({ spec: podSpecSchema, status: podStatusSchema }, 'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.'),
  Node: nodeSchema,
  Service: serviceSchema,
  Endpoints: endpointsSchema,
  EventsV1Event: eventsV1EventSchema,
  Binding: bindingSchema,
} as const satisfies Record<string, JsonSchema>;
