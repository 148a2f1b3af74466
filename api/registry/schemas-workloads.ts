// Owns: the JSON schemas of the workload and networking kinds (pods, nodes, services,
// endpoints, events.k8s.io/v1 events), in the same type-level style as schemas.ts: every field
// kube-apiserver's v1 types have at the levels clients commonly write is listed (so unknown
// fields are reported by fieldValidation), while deep, rarely written sub-structures (affinity,
// security contexts, probes, volume sources, …) are open objects: their inner fields are
// type-checked by kube but only shape-checked ("is an object") here.
import { kindSchema, object, objectReference } from './schemas.ts';
import type { JsonSchema } from './schemas.ts';

const str: JsonSchema = { type: 'string' };
const int: JsonSchema = { type: 'integer' };
const bool: JsonSchema = { type: 'boolean' };
const time: JsonSchema = { type: ['string', 'null'], format: 'date-time-or-empty' };
const stringMap: JsonSchema = { type: 'object', additionalProperties: str };
const stringList: JsonSchema = { type: 'array', items: str };
/** An open object: must be an object, its fields are not checked. */
const open: JsonSchema = { type: 'object' };
const openList: JsonSchema = { type: 'array', items: open };
/** intstr.IntOrString (targetPort, quantities written as numbers). */
export const intOrString: JsonSchema = { type: ['integer', 'string'] };
const quantityMap: JsonSchema = { type: 'object', additionalProperties: intOrString };
const listOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

const containerPort = object({ name: str, hostPort: int, containerPort: int, protocol: str, hostIP: str });
const envVar = object({ name: str, value: str, valueFrom: open });
const resources = object({ limits: quantityMap, requests: quantityMap, claims: openList });
const volumeMount = object({ name: str, readOnly: bool, recursiveReadOnly: str, mountPath: str, subPath: str, mountPropagation: str, subPathExpr: str });

const container = object({
  name: str, image: str, command: stringList, args: stringList, workingDir: str,
  ports: listOf(containerPort), envFrom: openList, env: listOf(envVar), resources, resizePolicy: openList,
  restartPolicy: str, volumeMounts: listOf(volumeMount), volumeDevices: listOf(object({ name: str, devicePath: str })),
  livenessProbe: open, readinessProbe: open, startupProbe: open, lifecycle: open,
  terminationMessagePath: str, terminationMessagePolicy: str, imagePullPolicy: str, securityContext: open,
  stdin: bool, stdinOnce: bool, tty: bool,
}, 'A single application container that you want to run within a pod.');

const toleration = object({ key: str, operator: str, value: str, effect: str, tolerationSeconds: int });

export const podSpecSchema: JsonSchema = object({
  activeDeadlineSeconds: int, affinity: open, automountServiceAccountToken: bool,
  containers: listOf(container), dnsConfig: object({ nameservers: stringList, options: listOf(object({ name: str, value: str })), searches: stringList }),
  dnsPolicy: str, enableServiceLinks: bool, ephemeralContainers: openList,
  hostAliases: listOf(object({ ip: str, hostnames: stringList })), hostIPC: bool, hostNetwork: bool, hostPID: bool, hostUsers: bool,
  hostname: str, imagePullSecrets: listOf(object({ name: str })), initContainers: listOf(container), nodeName: str,
  nodeSelector: stringMap, os: object({ name: str }), overhead: quantityMap, preemptionPolicy: str, priority: int,
  priorityClassName: str, readinessGates: listOf(object({ conditionType: str })), resourceClaims: openList, resources: open,
  restartPolicy: str, runtimeClassName: str, schedulerName: str, schedulingGates: listOf(object({ name: str })),
  securityContext: open, serviceAccount: str, serviceAccountName: str, setHostnameAsFQDN: bool,
  shareProcessNamespace: bool, subdomain: str, terminationGracePeriodSeconds: int, tolerations: listOf(toleration),
  topologySpreadConstraints: openList, volumes: listOf({ type: 'object', properties: { name: str } }),
}, 'PodSpec is a description of a pod.');

const containerState = object({
  waiting: object({ reason: str, message: str }),
  running: object({ startedAt: time }),
  terminated: object({ exitCode: int, signal: int, reason: str, message: str, startedAt: time, finishedAt: time, containerID: str }),
});

const containerStatus = object({
  name: str, state: containerState, lastState: containerState, ready: bool, restartCount: int, image: str, imageID: str,
  containerID: str, started: bool, allocatedResources: quantityMap, resources: open, volumeMounts: openList, user: open,
  allocatedResourcesStatus: openList, stopSignal: str,
});

const podStatusSchema = object({
  observedGeneration: int, phase: str,
  conditions: listOf(object({ observedGeneration: int, type: str, status: str, lastProbeTime: time, lastTransitionTime: time, reason: str, message: str })),
  message: str, reason: str, nominatedNodeName: str, hostIP: str, hostIPs: listOf(object({ ip: str })),
  podIP: str, podIPs: listOf(object({ ip: str })), startTime: time,
  initContainerStatuses: listOf(containerStatus), containerStatuses: listOf(containerStatus), qosClass: str,
  ephemeralContainerStatuses: listOf(containerStatus), resize: str, resourceClaimStatuses: openList,
}, 'PodStatus represents information about the status of a pod.');

const nodeSchema = kindSchema({
  spec: object({
    podCIDR: str, podCIDRs: stringList, providerID: str, unschedulable: bool,
    taints: listOf(object({ key: str, value: str, effect: str, timeAdded: time })), configSource: open, externalID: str,
  }, 'NodeSpec describes the attributes that a node is created with.'),
  status: object({
    capacity: quantityMap, allocatable: quantityMap, phase: str,
    conditions: listOf(object({ type: str, status: str, lastHeartbeatTime: time, lastTransitionTime: time, reason: str, message: str })),
    addresses: listOf(object({ type: str, address: str })),
    daemonEndpoints: object({ kubeletEndpoint: object({ Port: int }) }),
    nodeInfo: object({
      machineID: str, systemUUID: str, bootID: str, kernelVersion: str, osImage: str, containerRuntimeVersion: str,
      kubeletVersion: str, kubeProxyVersion: str, operatingSystem: str, architecture: str, swap: open,
    }),
    images: listOf(object({ names: stringList, sizeBytes: int })), volumesInUse: stringList,
    volumesAttached: listOf(object({ name: str, devicePath: str })), config: open, runtimeHandlers: openList, features: open,
  }, 'NodeStatus is information about the current status of a node.'),
}, 'Node is a worker node in Kubernetes.');

const servicePort = object({ name: str, protocol: str, appProtocol: str, port: int, targetPort: intOrString, nodePort: int });

const serviceSchema = kindSchema({
  spec: object({
    ports: listOf(servicePort), selector: stringMap, clusterIP: str, clusterIPs: stringList, type: str,
    externalIPs: stringList, sessionAffinity: str, loadBalancerIP: str, loadBalancerSourceRanges: stringList,
    externalName: str, externalTrafficPolicy: str, healthCheckNodePort: int, publishNotReadyAddresses: bool,
    sessionAffinityConfig: object({ clientIP: object({ timeoutSeconds: int }) }), ipFamilies: stringList,
    ipFamilyPolicy: str, allocateLoadBalancerNodePorts: bool, loadBalancerClass: str, internalTrafficPolicy: str,
    trafficDistribution: str,
  }, 'ServiceSpec describes the attributes that a user creates on a service.'),
  status: object({
    loadBalancer: object({ ingress: listOf(object({ ip: str, hostname: str, ipMode: str, ports: openList })) }),
    conditions: openList,
  }),
}, 'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.');

const endpointAddress = object({ ip: str, hostname: str, nodeName: str, targetRef: objectReference });

const endpointsSchema = kindSchema({
  subsets: listOf(object({
    addresses: listOf(endpointAddress), notReadyAddresses: listOf(endpointAddress),
    ports: listOf(object({ name: str, port: int, protocol: str, appProtocol: str })),
  })),
}, 'Endpoints is a collection of endpoints that implement the actual service.');

const eventsV1EventSchema = kindSchema({
  eventTime: time, series: object({ count: int, lastObservedTime: time }), reportingController: str,
  reportingInstance: str, action: str, reason: str, regarding: objectReference, related: objectReference,
  note: str, type: str, deprecatedSource: object({ component: str, host: str }),
  deprecatedFirstTimestamp: time, deprecatedLastTimestamp: time, deprecatedCount: int,
}, 'Event is a report of an event somewhere in the cluster.');

export const workloadKindSchemas = {
  Pod: kindSchema({ spec: podSpecSchema, status: podStatusSchema }, 'Pod is a collection of containers that can run on a host.'),
  Node: nodeSchema,
  Service: serviceSchema,
  Endpoints: endpointsSchema,
  EventsV1Event: eventsV1EventSchema,
} as const satisfies Record<string, JsonSchema>;
