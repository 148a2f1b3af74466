// Owns: the JSON schemas of core/v1 PodSpec and PodStatus and everything they hold: containers
// of every kind (init, ephemeral), ports, env and envFrom with their sources, resources and
// claims, resize and restart policies, volume mounts and devices, probes and their handlers,
// lifecycle handlers, container and pod security contexts, affinity (node, pod, anti),
// tolerations, topology spread, DNS config, host aliases, readiness and scheduling gates,
// resource claims, and the status side (conditions, container statuses and states, pod and host
// IPs, resource claim statuses, volume health). Field names, types, required fields and the
// x-kubernetes-* list and patch extensions are kube's (k8s.io/api core/v1 types.go); volumes
// are in ./schemas-volumes.ts. Strategic merge metadata is published only where kstore's own
// strategic merge (api/patch/merge-patch.ts) merges the same way, so a kubectl apply patch built
// from it is applied as kubectl meant it.
import {
  at, atomicList, boolean as bool, coreV1, int32, int64, intOrString, labelSelector, localObjectReference,
  localObjectReferenceFields, mapList, mapOf, nameDefinitions, object, quantity, quantityMap, setList, string as str, time, withPatch,
} from './schemas.ts';
import type { JsonSchema } from './schemas.ts';
import { objectFieldSelector, resourceFieldSelector, volumeSchema } from './schemas-volumes.ts';

const byName = { mergeKey: 'name', strategy: 'merge' } as const;

// --- containers ---

const containerPort = object({ name: str, hostPort: int32, containerPort: int32, protocol: str, hostIP: str },
  'ContainerPort represents a network port in a single container.', ['containerPort']);

const envFromSource = object({
  prefix: str,
  configMapRef: object({ ...localObjectReferenceFields, optional: bool }, 'ConfigMapEnvSource selects a ConfigMap to populate the environment variables with.'),
  secretRef: object({ ...localObjectReferenceFields, optional: bool }, 'SecretEnvSource selects a Secret to populate the environment variables with.'),
}, 'EnvFromSource represents the source of a set of ConfigMaps or Secrets');

const envVar = object({
  name: str, value: str,
  valueFrom: object({
    fieldRef: objectFieldSelector,
    resourceFieldRef: resourceFieldSelector,
    configMapKeyRef: { ...object({ ...localObjectReferenceFields, key: str, optional: bool }, 'Selects a key from a ConfigMap.', ['key']), 'x-kubernetes-map-type': 'atomic' },
    secretKeyRef: { ...object({ ...localObjectReferenceFields, key: str, optional: bool }, 'SecretKeySelector selects a key of a Secret.', ['key']), 'x-kubernetes-map-type': 'atomic' },
    fileKeyRef: { ...object({ volumeName: str, path: str, key: str, optional: bool }, 'FileKeySelector selects a key of the env file.', ['volumeName', 'path', 'key']), 'x-kubernetes-map-type': 'atomic' },
  }, 'EnvVarSource represents a source for the value of an EnvVar.'),
}, 'EnvVar represents an environment variable present in a Container.', ['name']);

export const resourceRequirements: JsonSchema = object({
  limits: quantityMap, requests: quantityMap,
  claims: mapList(object({ name: str, request: str }, 'ResourceClaim references one entry in PodSpec.ResourceClaims.', ['name']), ['name']),
}, 'ResourceRequirements describes the compute resource requirements.');

const containerResizePolicy = object({ resourceName: str, restartPolicy: str },
  'ContainerResizePolicy represents resource resize policy for the container.', ['resourceName', 'restartPolicy']);

const containerRestartRule = object({
  action: str,
  exitCodes: object({ operator: str, values: setList(int32) },
    'ContainerRestartRuleOnExitCodes describes the condition for handling an exited container based on its exit codes.', ['operator']),
}, 'ContainerRestartRule describes how a container exit is handled.', ['action']);

const volumeMount = object({
  name: str, readOnly: bool, recursiveReadOnly: str, mountPath: str, subPath: str, mountPropagation: str, subPathExpr: str,
  bindMountOptions: setList(str),
}, 'VolumeMount describes a mounting of a Volume within a container.', ['name', 'mountPath']);

const volumeDevice = object({ name: str, devicePath: str },
  'volumeDevice describes a mapping of a raw block device within a container.', ['name', 'devicePath']);

const execAction = object({ command: atomicList(str) }, 'ExecAction describes a "run in container" action.');
const httpGetAction = object({
  path: str, port: intOrString, host: str, scheme: str,
  httpHeaders: atomicList(object({ name: str, value: str }, 'HTTPHeader describes a custom header to be used in HTTP probes', ['name', 'value'])),
  protocol: str,
}, 'HTTPGetAction describes an action based on HTTP Get requests.', ['port']);
const tcpSocketAction = object({ port: intOrString, host: str }, 'TCPSocketAction describes an action based on opening a socket', ['port']);

/** ProbeHandler, inlined into Probe. */
const probeHandlerFields = {
  exec: execAction, httpGet: httpGetAction, tcpSocket: tcpSocketAction,
  grpc: object({ port: int32, service: str, mode: str }, 'GRPCAction specifies an action involving a GRPC service.', ['port']),
} as const satisfies Record<string, JsonSchema>;

export const probe: JsonSchema = object({
  ...probeHandlerFields, initialDelaySeconds: int32, timeoutSeconds: int32, periodSeconds: int32, successThreshold: int32,
  failureThreshold: int32, terminationGracePeriodSeconds: int64,
}, 'Probe describes a health check to be performed against a container to determine whether it is alive or ready to receive traffic.');

const lifecycleHandler = object({
  exec: execAction, httpGet: httpGetAction, tcpSocket: tcpSocketAction,
  sleep: object({ seconds: int64 }, 'SleepAction describes a "sleep" action.', ['seconds']),
}, 'LifecycleHandler defines a specific action that should be taken in a lifecycle hook. One and only one of the fields, except TCPSocket must be specified.');

const lifecycle = object({ postStart: lifecycleHandler, preStop: lifecycleHandler, stopSignal: str },
  'Lifecycle describes actions that the management system should take in response to container lifecycle events.');

const seLinuxOptions = object({ user: str, role: str, type: str, level: str }, 'SELinuxOptions are the labels to be applied to the container');
const windowsOptions = object({ gmsaCredentialSpecName: str, gmsaCredentialSpec: str, runAsUserName: str, hostProcess: bool },
  'WindowsSecurityContextOptions contain Windows-specific options and credentials.');
const seccompProfile: JsonSchema = {
  ...object({ type: str, localhostProfile: str }, 'SeccompProfile defines a pod/container\'s seccomp profile settings. Only one profile source may be set.', ['type']),
};
const appArmorProfile = object({ type: str, localhostProfile: str }, 'AppArmorProfile defines a pod or container\'s AppArmor settings.', ['type']);

const securityContext = object({
  capabilities: object({ add: atomicList(str), drop: atomicList(str) }, 'Adds and removes POSIX capabilities from running containers.'),
  privileged: bool, seLinuxOptions, windowsOptions, runAsUser: int64, runAsGroup: int64, runAsNonRoot: bool,
  readOnlyRootFilesystem: bool, allowPrivilegeEscalation: bool, procMount: str, seccompProfile, appArmorProfile,
}, 'SecurityContext holds security configuration that will be applied to a container. Some fields are present in both SecurityContext and PodSecurityContext. When both are set, the values in SecurityContext take precedence.');

/** The fields of Container, also EphemeralContainerCommon's (inlined into EphemeralContainer). */
const containerFields = {
  name: str, image: str, command: atomicList(str), args: atomicList(str), workingDir: str,
  ports: mapList(containerPort, ['containerPort', 'protocol'], { mergeKey: 'containerPort', strategy: 'merge' }),
  envFrom: atomicList(envFromSource),
  env: mapList(envVar, ['name'], byName),
  resources: resourceRequirements,
  resizePolicy: atomicList(containerResizePolicy),
  restartPolicy: str,
  restartPolicyRules: atomicList(containerRestartRule),
  volumeMounts: mapList(volumeMount, ['mountPath'], { mergeKey: 'mountPath', strategy: 'merge' }),
  volumeDevices: mapList(volumeDevice, ['devicePath'], { mergeKey: 'devicePath', strategy: 'merge' }),
  livenessProbe: probe, readinessProbe: probe, startupProbe: probe, lifecycle,
  terminationMessagePath: str, terminationMessagePolicy: str, imagePullPolicy: str, securityContext,
  stdin: bool, stdinOnce: bool, tty: bool,
} as const satisfies Record<string, JsonSchema>;

export const containerSchema: JsonSchema = object(containerFields,
  'A single application container that you want to run within a pod.', ['name']);

export const ephemeralContainerSchema: JsonSchema = object({ ...containerFields, targetContainerName: str },
  'An EphemeralContainer is a temporary container that you may add to an existing Pod for user-initiated activities such as debugging.', ['name']);

// --- scheduling ---

const nodeSelectorRequirement = object({ key: str, operator: str, values: atomicList(str) },
  'A node selector requirement is a selector that contains values, a key, and an operator that relates the key and values.', ['key', 'operator']);
const nodeSelectorTerm: JsonSchema = {
  ...object({ matchExpressions: atomicList(nodeSelectorRequirement), matchFields: atomicList(nodeSelectorRequirement) },
    'A null or empty node selector term matches no objects. The requirements of them are ANDed.'),
  'x-kubernetes-map-type': 'atomic',
};
const podAffinityTerm = object({
  labelSelector, namespaces: atomicList(str), topologyKey: str, namespaceSelector: labelSelector,
  matchLabelKeys: atomicList(str), mismatchLabelKeys: atomicList(str),
}, 'Defines a set of pods (namely those matching the labelSelector relative to the given namespace(s)) that this pod should be co-located (affinity) or not co-located (anti-affinity) with.', ['topologyKey']);
const weightedPodAffinityTerm = object({ weight: int32, podAffinityTerm },
  'The weights of all of the matched WeightedPodAffinityTerm fields are added per-node to find the most preferred node(s)', ['weight', 'podAffinityTerm']);

export const affinitySchema: JsonSchema = object({
  nodeAffinity: object({
    requiredDuringSchedulingIgnoredDuringExecution: {
      ...object({ nodeSelectorTerms: atomicList(nodeSelectorTerm) },
        'A node selector represents the union of the results of one or more label queries over a set of nodes; that is, it represents the OR of the selectors represented by the node selector terms.', ['nodeSelectorTerms']),
      'x-kubernetes-map-type': 'atomic',
    },
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(object({ weight: int32, preference: nodeSelectorTerm },
      'An empty preferred scheduling term matches all objects with implicit weight 0 (i.e. it\'s a no-op). A null preferred scheduling term matches no objects (i.e. is also a no-op).', ['weight', 'preference'])),
  }, 'Node affinity is a group of node affinity scheduling rules.'),
  podAffinity: object({
    requiredDuringSchedulingIgnoredDuringExecution: atomicList(podAffinityTerm),
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(weightedPodAffinityTerm),
  }, 'Pod affinity is a group of inter pod affinity scheduling rules.'),
  podAntiAffinity: object({
    requiredDuringSchedulingIgnoredDuringExecution: atomicList(podAffinityTerm),
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(weightedPodAffinityTerm),
  }, 'Pod anti affinity is a group of inter pod anti affinity scheduling rules.'),
}, 'Affinity is a group of affinity scheduling rules.');

const toleration = object({ key: str, operator: str, value: str, effect: str, tolerationSeconds: int64 },
  'The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>.');

const topologySpreadConstraint = object({
  maxSkew: int32, topologyKey: str, whenUnsatisfiable: str, labelSelector, minDomains: int32, nodeAffinityPolicy: str,
  nodeTaintsPolicy: str, matchLabelKeys: atomicList(str),
}, 'TopologySpreadConstraint specifies how to spread matching pods among the given topology.', ['maxSkew', 'topologyKey', 'whenUnsatisfiable']);

const podSecurityContext = object({
  seLinuxOptions, windowsOptions, runAsUser: int64, runAsGroup: int64, runAsNonRoot: bool, supplementalGroups: atomicList(int64),
  supplementalGroupsPolicy: str, fsGroup: int64,
  sysctls: atomicList(object({ name: str, value: str }, 'Sysctl defines a kernel parameter to be set', ['name', 'value'])),
  fsGroupChangePolicy: str, seccompProfile, appArmorProfile, seLinuxChangePolicy: str,
}, 'PodSecurityContext holds pod-level security attributes and common container settings. Some fields are also present in container.securityContext.  Field values of container.securityContext take precedence over field values of PodSecurityContext.');

const podDNSConfig = object({
  nameservers: atomicList(str), searches: atomicList(str),
  options: atomicList(object({ name: str, value: str }, 'PodDNSConfigOption defines DNS resolver options of a pod.')),
}, 'PodDNSConfig defines the DNS parameters of a pod in addition to those generated from DNSPolicy.');

export const podSpecSchema: JsonSchema = object({
  // volumes and resourceClaims are merge,retainKeys in kube; kstore's strategic merge ignores
  // $retainKeys, so the strategy published is merge: kubectl apply then sends the removed
  // volume source as null (emptyDir → configMap drops emptyDir), which kstore applies.
  volumes: mapList(volumeSchema, ['name'], { mergeKey: 'name', strategy: 'merge' }),
  initContainers: mapList(containerSchema, ['name'], byName),
  containers: mapList(containerSchema, ['name'], byName),
  ephemeralContainers: mapList(ephemeralContainerSchema, ['name'], byName),
  restartPolicy: str, terminationGracePeriodSeconds: int64, activeDeadlineSeconds: int64, dnsPolicy: str,
  nodeSelector: mapOf(str, 'atomic'), serviceAccountName: str, serviceAccount: str, automountServiceAccountToken: bool,
  nodeName: str, hostNetwork: bool, hostPID: bool, hostIPC: bool, shareProcessNamespace: bool, securityContext: podSecurityContext,
  imagePullSecrets: mapList(localObjectReference, ['name'], byName),
  hostname: str, subdomain: str, affinity: affinitySchema, schedulerName: str, tolerations: atomicList(toleration),
  hostAliases: mapList(object({ ip: str, hostnames: atomicList(str) },
    'HostAlias holds the mapping between IP and hostnames that will be injected as an entry in the pod\'s hosts file.', ['ip']),
  ['ip'], { mergeKey: 'ip', strategy: 'merge' }),
  priorityClassName: str, priority: int32, dnsConfig: podDNSConfig,
  readinessGates: atomicList(object({ conditionType: str }, 'PodReadinessGate contains the reference to a pod condition', ['conditionType'])),
  runtimeClassName: str, enableServiceLinks: bool, preemptionPolicy: str, overhead: quantityMap,
  topologySpreadConstraints: mapList(topologySpreadConstraint, ['topologyKey', 'whenUnsatisfiable'], { mergeKey: 'topologyKey', strategy: 'merge' }),
  setHostnameAsFQDN: bool,
  os: object({ name: str }, 'PodOS defines the OS parameters of a pod.', ['name']),
  hostUsers: bool,
  schedulingGates: mapList(object({ name: str }, 'PodSchedulingGate is associated to a Pod to guard its scheduling.', ['name']), ['name'], byName),
  resourceClaims: mapList(object({ name: str, resourceClaimName: str, resourceClaimTemplateName: str },
    'PodResourceClaim references exactly one ResourceClaim, either directly or by naming a ResourceClaimTemplate which is then turned into a ResourceClaim for the pod.', ['name']),
  ['name'], { mergeKey: 'name', strategy: 'merge' }),
  resources: resourceRequirements,
  hostnameOverride: str,
  schedulingGroup: object({ podGroupName: str }, 'PodSchedulingGroup identifies the group a pod is scheduled with.'),
  // kube: patchStrategy merge by name; kstore's strategic merge has no key for it, so none is published.
  evictionResponders: mapList(object({ name: str, priority: int32 }, 'EvictionResponder names a party that handles the pod\'s eviction.', ['name', 'priority']), ['name']),
}, 'PodSpec is a description of a pod.', ['containers']);

// --- status ---

const containerState = object({
  waiting: object({ reason: str, message: str }, 'ContainerStateWaiting is a waiting state of a container.'),
  running: object({ startedAt: time }, 'ContainerStateRunning is a running state of a container.'),
  terminated: object({ exitCode: int32, signal: int32, reason: str, message: str, startedAt: time, finishedAt: time, containerID: str },
    'ContainerStateTerminated is a terminated state of a container.', ['exitCode']),
}, 'ContainerState holds a possible state of container. Only one of its members may be specified. If none of them is specified, the default one is ContainerStateWaiting.');

const containerStatus = object({
  name: str, state: containerState, lastState: containerState, ready: bool, restartCount: int32, image: str, imageID: str,
  containerID: str, started: bool, allocatedResources: quantityMap, resources: resourceRequirements,
  volumeMounts: mapList(object({
    name: str, mountPath: str, readOnly: bool, recursiveReadOnly: str,
    volumeStatus: object({ image: object({ imageRef: str }, 'ImageVolumeStatus represents the image-based volume status.', ['imageRef']) },
      'VolumeStatus represents the status of a mounted volume.'),
  }, 'VolumeMountStatus shows status of volume mounts.', ['name', 'mountPath']), ['mountPath'], { mergeKey: 'mountPath', strategy: 'merge' }),
  user: object({
    linux: object({ uid: int64, gid: int64, supplementalGroups: atomicList(int64) },
      'LinuxContainerUser represents user identity information in Linux containers', ['uid', 'gid']),
  }, 'ContainerUser represents user identity information'),
  // kube: patchStrategy merge by name (not published: kstore's strategic merge has no key for it).
  allocatedResourcesStatus: mapList(object({
    name: str,
    resources: mapList(object({ resourceID: str, health: str, message: str },
      'ResourceHealth represents the health of a resource.', ['resourceID']), ['resourceID']),
  }, 'ResourceStatus represents the status of a single resource allocated to a Pod.', ['name']), ['name']),
  stopSignal: str,
}, 'ContainerStatus contains details for the current status of this container.', ['name', 'ready', 'restartCount', 'image', 'imageID']);

const podCondition = object({
  type: str, observedGeneration: int64, status: str, lastProbeTime: time, lastTransitionTime: time, reason: str, message: str,
}, 'PodCondition contains details for the current condition of this pod.', ['type', 'status']);

export const podStatusSchema: JsonSchema = object({
  observedGeneration: int64, phase: str,
  conditions: mapList(podCondition, ['type'], { mergeKey: 'type', strategy: 'merge' }),
  message: str, reason: str, nominatedNodeName: str, hostIP: str,
  hostIPs: withPatch(atomicList(object({ ip: str }, 'HostIP represents a single IP address allocated to the host.', ['ip'])), { mergeKey: 'ip', strategy: 'merge' }),
  podIP: str,
  podIPs: mapList(object({ ip: str }, 'PodIP represents a single IP address allocated to the pod.', ['ip']), ['ip'], { mergeKey: 'ip', strategy: 'merge' }),
  startTime: time,
  initContainerStatuses: atomicList(containerStatus), containerStatuses: atomicList(containerStatus), qosClass: str,
  ephemeralContainerStatuses: atomicList(containerStatus), resize: str,
  // kube: merge,retainKeys by name (not published: kstore's strategic merge has no key for it).
  resourceClaimStatuses: mapList(object({ name: str, resourceClaimName: str },
    'PodResourceClaimStatus is stored in the PodStatus for each PodResourceClaim which references a ResourceClaimTemplate.', ['name']), ['name']),
  extendedResourceClaimStatus: object({
    requestMappings: atomicList(object({ containerName: str, resourceName: str, requestName: str },
      'ContainerExtendedResourceRequest has the mapping of container name, extended resource name to the device request name.',
      ['containerName', 'resourceName', 'requestName'])),
    resourceClaimName: str,
  }, 'PodExtendedResourceClaimStatus is stored in the PodStatus for the extended resource requests backed by DRA.', ['requestMappings', 'resourceClaimName']),
  allocatedResources: quantityMap, resources: resourceRequirements,
  // kube: patchStrategy merge by resourceClaimName (mapping and overhead by name); not published, as above.
  nodeAllocatableResourceClaimStatuses: mapList(object({
    resourceClaimName: str, containers: setList(str),
    mapping: mapList(object({ name: str, quantity }, 'NodeAllocatableMappedResources maps a device resource to node allocatable resources.', ['name', 'quantity']), ['name']),
    overhead: mapList(object({ name: str, perPod: quantity, perContainer: quantity },
      'NodeAllocatableOverheadResources is the node allocatable overhead of a device resource.', ['name']), ['name']),
  }, 'NodeAllocatableResourceClaimStatus is the node allocatable status of a resource claim.', ['resourceClaimName']), ['resourceClaimName']),
  volumeHealth: mapList(object({
    name: str,
    healthConditions: mapList(object({ status: str, reason: str, message: str }, 'VolumeHealthCondition is one health condition of a volume.', ['status', 'reason']),
      ['status', 'reason']),
    lastTransitionTime: time,
  }, 'PodVolumeHealth is the health of one volume of the pod.', ['name']), ['name']),
}, 'PodStatus represents information about the status of a pod. Status may trail the actual state of a system, especially if the node that hosts the pod cannot contact the control plane.');

const podSpec = podSpecSchema;
nameDefinitions(coreV1, {
  ContainerPort: containerPort, EnvFromSource: envFromSource, ConfigMapEnvSource: at(envFromSource, 'configMapRef'),
  SecretEnvSource: at(envFromSource, 'secretRef'), EnvVar: envVar, EnvVarSource: at(envVar, 'valueFrom'),
  ConfigMapKeySelector: at(envVar, 'valueFrom', 'configMapKeyRef'), SecretKeySelector: at(envVar, 'valueFrom', 'secretKeyRef'),
  FileKeySelector: at(envVar, 'valueFrom', 'fileKeyRef'), ResourceRequirements: resourceRequirements,
  ResourceClaim: at(resourceRequirements, 'claims'), ContainerResizePolicy: containerResizePolicy,
  ContainerRestartRule: containerRestartRule, ContainerRestartRuleOnExitCodes: at(containerRestartRule, 'exitCodes'),
  VolumeMount: volumeMount, VolumeDevice: volumeDevice, ExecAction: execAction, HTTPGetAction: httpGetAction,
  HTTPHeader: at(httpGetAction, 'httpHeaders'), TCPSocketAction: tcpSocketAction, GRPCAction: probeHandlerFields.grpc, Probe: probe,
  SleepAction: at(lifecycleHandler, 'sleep'), LifecycleHandler: lifecycleHandler, Lifecycle: lifecycle,
  SELinuxOptions: seLinuxOptions, WindowsSecurityContextOptions: windowsOptions, SeccompProfile: seccompProfile,
  AppArmorProfile: appArmorProfile, SecurityContext: securityContext, Capabilities: at(securityContext, 'capabilities'),
  Container: containerSchema, EphemeralContainer: ephemeralContainerSchema,
  NodeSelectorRequirement: nodeSelectorRequirement, NodeSelectorTerm: nodeSelectorTerm, PodAffinityTerm: podAffinityTerm,
  WeightedPodAffinityTerm: weightedPodAffinityTerm, Affinity: affinitySchema, NodeAffinity: at(affinitySchema, 'nodeAffinity'),
  NodeSelector: at(affinitySchema, 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution'),
  PreferredSchedulingTerm: at(affinitySchema, 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution'),
  PodAffinity: at(affinitySchema, 'podAffinity'), PodAntiAffinity: at(affinitySchema, 'podAntiAffinity'),
  Toleration: toleration, TopologySpreadConstraint: topologySpreadConstraint, PodSecurityContext: podSecurityContext,
  Sysctl: at(podSecurityContext, 'sysctls'), PodDNSConfig: podDNSConfig, PodDNSConfigOption: at(podDNSConfig, 'options'),
  PodSpec: podSpec, HostAlias: at(podSpec, 'hostAliases'), PodReadinessGate: at(podSpec, 'readinessGates'), PodOS: at(podSpec, 'os'),
  PodSchedulingGate: at(podSpec, 'schedulingGates'), PodResourceClaim: at(podSpec, 'resourceClaims'),
  PodSchedulingGroup: at(podSpec, 'schedulingGroup'), EvictionResponder: at(podSpec, 'evictionResponders'),
  ContainerState: containerState, ContainerStateWaiting: at(containerState, 'waiting'), ContainerStateRunning: at(containerState, 'running'),
  ContainerStateTerminated: at(containerState, 'terminated'), ContainerStatus: containerStatus,
  VolumeMountStatus: at(containerStatus, 'volumeMounts'), VolumeStatus: at(containerStatus, 'volumeMounts', 'volumeStatus'),
  ImageVolumeStatus: at(containerStatus, 'volumeMounts', 'volumeStatus', 'image'), ContainerUser: at(containerStatus, 'user'),
  LinuxContainerUser: at(containerStatus, 'user', 'linux'), ResourceStatus: at(containerStatus, 'allocatedResourcesStatus'),
  ResourceHealth: at(containerStatus, 'allocatedResourcesStatus', 'resources'), PodCondition: podCondition, PodStatus: podStatusSchema,
  HostIP: at(podStatusSchema, 'hostIPs'), PodIP: at(podStatusSchema, 'podIPs'), PodResourceClaimStatus: at(podStatusSchema, 'resourceClaimStatuses'),
  PodExtendedResourceClaimStatus: at(podStatusSchema, 'extendedResourceClaimStatus'),
  ContainerExtendedResourceRequest: at(podStatusSchema, 'extendedResourceClaimStatus', 'requestMappings'),
  NodeAllocatableResourceClaimStatus: at(podStatusSchema, 'nodeAllocatableResourceClaimStatuses'),
  NodeAllocatableMappedResources: at(podStatusSchema, 'nodeAllocatableResourceClaimStatuses', 'mapping'),
  NodeAllocatableOverheadResources: at(podStatusSchema, 'nodeAllocatableResourceClaimStatuses', 'overhead'),
  PodVolumeHealth: at(podStatusSchema, 'volumeHealth'), VolumeHealthCondition: at(podStatusSchema, 'volumeHealth', 'healthConditions'),
});
