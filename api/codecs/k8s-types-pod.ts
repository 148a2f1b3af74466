// Owns: the protobuf messages of core/v1 PodSpec and what a container holds (ports, env and
// envFrom, resources, probes, lifecycle handlers, security contexts), scheduling (affinity,
// tolerations, topology spread, scheduling gates), DNS and host aliases. Volumes are in
// ./k8s-types-volumes.ts, PodStatus and the Pod itself in ./k8s-types-pod-status.ts.
//
// Field numbers and types are those of k8s.io/api core/v1/generated.proto
// (kubernetes/api@10b39a39bcee995dfe7cd5e8e7b922be5e46f1e2); the "// keep" and "// inline" marks
// come from the json tags of core/v1/types.go (see ./proto-source.ts).
import type { ProtoSource } from './proto-source.ts';

export const coreV1PodSpec: ProtoSource = {
  origin: 'k8s.io/api/core/v1/generated.proto (PodSpec, Container)',
  text: `
syntax = "proto2";
package k8s.io.api.core.v1;

message ContainerPort {
  optional string name = 1;
  optional int32 hostPort = 2;
  optional int32 containerPort = 3; // keep
  optional string protocol = 4;
  optional string hostIP = 5;
}

message ConfigMapEnvSource {
  optional LocalObjectReference localObjectReference = 1; // inline
  optional bool optional = 2; // keep
}

message SecretEnvSource {
  optional LocalObjectReference localObjectReference = 1; // inline
  optional bool optional = 2; // keep
}

message EnvFromSource {
  optional string prefix = 1;
  optional ConfigMapEnvSource configMapRef = 2;
  optional SecretEnvSource secretRef = 3;
}

message ObjectFieldSelector {
  optional string apiVersion = 1;
  optional string fieldPath = 2; // keep
}

message ResourceFieldSelector {
  optional string containerName = 1;
  optional string resource = 2; // keep
  optional k8s.io.apimachinery.pkg.api.resource.Quantity divisor = 3;
}

message ConfigMapKeySelector {
  optional LocalObjectReference localObjectReference = 1; // inline
  optional string key = 2; // keep
  optional bool optional = 3; // keep
}

message SecretKeySelector {
  optional LocalObjectReference localObjectReference = 1; // inline
  optional string key = 2; // keep
  optional bool optional = 3; // keep
}

message FileKeySelector {
  optional string volumeName = 1; // keep
  optional string path = 2; // keep
  optional string key = 3; // keep
  optional bool optional = 4; // keep
}

message EnvVarSource {
  optional ObjectFieldSelector fieldRef = 1;
  optional ResourceFieldSelector resourceFieldRef = 2;
  optional ConfigMapKeySelector configMapKeyRef = 3;
  optional SecretKeySelector secretKeyRef = 4;
  optional FileKeySelector fileKeyRef = 5;
}

message EnvVar {
  optional string name = 1; // keep
  optional string value = 2;
  optional EnvVarSource valueFrom = 3;
}

message ResourceClaim {
  optional string name = 1; // keep
  optional string request = 2;
}

message ResourceRequirements {
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 1;
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> requests = 2;
  repeated ResourceClaim claims = 3;
}

message ContainerResizePolicy {
  optional string resourceName = 1; // keep
  optional string restartPolicy = 2; // keep
}

message ContainerRestartRuleOnExitCodes {
  optional string operator = 1;
  repeated int32 values = 2;
}

message ContainerRestartRule {
  optional string action = 1;
  optional ContainerRestartRuleOnExitCodes exitCodes = 2;
}

message VolumeMount {
  optional string name = 1; // keep
  optional bool readOnly = 2;
  optional string recursiveReadOnly = 7; // keep
  optional string mountPath = 3; // keep
  optional string subPath = 4;
  optional string mountPropagation = 5; // keep
  optional string subPathExpr = 6;
  repeated string bindMountOptions = 8;
}

message VolumeDevice {
  optional string name = 1; // keep
  optional string devicePath = 2; // keep
}

message ExecAction {
  repeated string command = 1;
}

message HTTPHeader {
  optional string name = 1; // keep
  optional string value = 2; // keep
}

message HTTPGetAction {
  optional string path = 1;
  optional k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 2;
  optional string host = 3;
  optional string scheme = 4;
  repeated HTTPHeader httpHeaders = 5;
  optional string protocol = 6; // keep
}

message TCPSocketAction {
  optional k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 1;
  optional string host = 2;
}

message GRPCAction {
  optional int32 port = 1; // keep
  optional string service = 2; // keep
  optional string mode = 3; // keep
}

message SleepAction {
  optional int64 seconds = 1; // keep
}

message ProbeHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional GRPCAction grpc = 4;
}

message Probe {
  optional ProbeHandler handler = 1; // inline
  optional int32 initialDelaySeconds = 2;
  optional int32 timeoutSeconds = 3;
  optional int32 periodSeconds = 4;
  optional int32 successThreshold = 5;
  optional int32 failureThreshold = 6;
  optional int64 terminationGracePeriodSeconds = 7; // keep
}

message LifecycleHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional SleepAction sleep = 4;
}

message Lifecycle {
  optional LifecycleHandler postStart = 1;
  optional LifecycleHandler preStop = 2;
  optional string stopSignal = 3; // keep
}

message Capabilities {
  repeated string add = 1;
  repeated string drop = 2;
}

message SELinuxOptions {
  optional string user = 1;
  optional string role = 2;
  optional string type = 3;
  optional string level = 4;
}

message WindowsSecurityContextOptions {
  optional string gmsaCredentialSpecName = 1; // keep
  optional string gmsaCredentialSpec = 2; // keep
  optional string runAsUserName = 3; // keep
  optional bool hostProcess = 4; // keep
}

message SeccompProfile {
  optional string type = 1; // keep
  optional string localhostProfile = 2; // keep
}

message AppArmorProfile {
  optional string type = 1; // keep
  optional string localhostProfile = 2; // keep
}

message SecurityContext {
  optional Capabilities capabilities = 1;
  optional bool privileged = 2; // keep
  optional SELinuxOptions seLinuxOptions = 3;
  optional WindowsSecurityContextOptions windowsOptions = 10;
  optional int64 runAsUser = 4; // keep
  optional int64 runAsGroup = 8; // keep
  optional bool runAsNonRoot = 5; // keep
  optional bool readOnlyRootFilesystem = 6; // keep
  optional bool allowPrivilegeEscalation = 7; // keep
  optional string procMount = 9; // keep
  optional SeccompProfile seccompProfile = 11;
  optional AppArmorProfile appArmorProfile = 12;
}

message Container {
  optional string name = 1; // keep
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvFromSource envFrom = 19;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24; // keep
  repeated ContainerRestartRule restartPolicyRules = 25;
  repeated VolumeMount volumeMounts = 9;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Probe startupProbe = 22;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
}

message EphemeralContainerCommon {
  optional string name = 1; // keep
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvFromSource envFrom = 19;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24; // keep
  repeated ContainerRestartRule restartPolicyRules = 25;
  repeated VolumeMount volumeMounts = 9;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Probe startupProbe = 22;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
}

message EphemeralContainer {
  optional EphemeralContainerCommon ephemeralContainerCommon = 1; // inline
  optional string targetContainerName = 2;
}

message Sysctl {
  optional string name = 1; // keep
  optional string value = 2; // keep
}

message PodSecurityContext {
  optional SELinuxOptions seLinuxOptions = 1;
  optional WindowsSecurityContextOptions windowsOptions = 8;
  optional int64 runAsUser = 2; // keep
  optional int64 runAsGroup = 6; // keep
  optional bool runAsNonRoot = 3; // keep
  repeated int64 supplementalGroups = 4;
  optional string supplementalGroupsPolicy = 12; // keep
  optional int64 fsGroup = 5; // keep
  repeated Sysctl sysctls = 7;
  optional string fsGroupChangePolicy = 9; // keep
  optional SeccompProfile seccompProfile = 10;
  optional AppArmorProfile appArmorProfile = 11;
  optional string seLinuxChangePolicy = 13; // keep
}

message NodeSelectorRequirement {
  optional string key = 1; // keep
  optional string operator = 2; // keep
  repeated string values = 3;
}

message NodeSelectorTerm {
  repeated NodeSelectorRequirement matchExpressions = 1;
  repeated NodeSelectorRequirement matchFields = 2;
}

message NodeSelector {
  repeated NodeSelectorTerm nodeSelectorTerms = 1;
}

message PreferredSchedulingTerm {
  optional int32 weight = 1; // keep
  optional NodeSelectorTerm preference = 2;
}

message NodeAffinity {
  optional NodeSelector requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated PreferredSchedulingTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodAffinityTerm {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 1;
  repeated string namespaces = 2;
  optional string topologyKey = 3; // keep
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 4;
  repeated string matchLabelKeys = 5;
  repeated string mismatchLabelKeys = 6;
}

message WeightedPodAffinityTerm {
  optional int32 weight = 1; // keep
  optional PodAffinityTerm podAffinityTerm = 2;
}

message PodAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodAntiAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message Affinity {
  optional NodeAffinity nodeAffinity = 1;
  optional PodAffinity podAffinity = 2;
  optional PodAntiAffinity podAntiAffinity = 3;
}

message Toleration {
  optional string key = 1;
  optional string operator = 2;
  optional string value = 3;
  optional string effect = 4;
  optional int64 tolerationSeconds = 5; // keep
}

message HostAlias {
  optional string ip = 1; // keep
  repeated string hostnames = 2;
}

message PodDNSConfigOption {
  optional string name = 1;
  optional string value = 2; // keep
}

message PodDNSConfig {
  repeated string nameservers = 1;
  repeated string searches = 2;
  repeated PodDNSConfigOption options = 3;
}

message PodReadinessGate {
  optional string conditionType = 1; // keep
}

message TopologySpreadConstraint {
  optional int32 maxSkew = 1; // keep
  optional string topologyKey = 2; // keep
  optional string whenUnsatisfiable = 3; // keep
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 4;
  optional int32 minDomains = 5; // keep
  optional string nodeAffinityPolicy = 6; // keep
  optional string nodeTaintsPolicy = 7; // keep
  repeated string matchLabelKeys = 8;
}

message PodOS {
  optional string name = 1; // keep
}

message PodSchedulingGate {
  optional string name = 1; // keep
}

message PodResourceClaim {
  optional string name = 1; // keep
  optional string resourceClaimName = 3; // keep
  optional string resourceClaimTemplateName = 4; // keep
}

message PodSchedulingGroup {
  optional string podGroupName = 1; // keep
}

message EvictionResponder {
  optional string name = 1; // keep
  optional int32 priority = 2; // keep
}

message PodSpec {
  repeated Volume volumes = 1;
  repeated Container initContainers = 20;
  repeated Container containers = 2;
  repeated EphemeralContainer ephemeralContainers = 34;
  optional string restartPolicy = 3;
  optional int64 terminationGracePeriodSeconds = 4; // keep
  optional int64 activeDeadlineSeconds = 5; // keep
  optional string dnsPolicy = 6;
  map<string, string> nodeSelector = 7;
  optional string serviceAccountName = 8;
  optional string serviceAccount = 9;
  optional bool automountServiceAccountToken = 21; // keep
  optional string nodeName = 10;
  optional bool hostNetwork = 11;
  optional bool hostPID = 12;
  optional bool hostIPC = 13;
  optional bool shareProcessNamespace = 27; // keep
  optional PodSecurityContext securityContext = 14;
  repeated LocalObjectReference imagePullSecrets = 15;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional Affinity affinity = 18;
  optional string schedulerName = 19;
  repeated Toleration tolerations = 22;
  repeated HostAlias hostAliases = 23;
  optional string priorityClassName = 24;
  optional int32 priority = 25; // keep
  optional PodDNSConfig dnsConfig = 26;
  repeated PodReadinessGate readinessGates = 28;
  optional string runtimeClassName = 29; // keep
  optional bool enableServiceLinks = 30; // keep
  optional string preemptionPolicy = 31; // keep
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> overhead = 32;
  repeated TopologySpreadConstraint topologySpreadConstraints = 33;
  optional bool setHostnameAsFQDN = 35; // keep
  optional PodOS os = 36;
  optional bool hostUsers = 37; // keep
  repeated PodSchedulingGate schedulingGates = 38;
  repeated PodResourceClaim resourceClaims = 39;
  optional ResourceRequirements resources = 40;
  optional string hostnameOverride = 41; // keep
  optional PodSchedulingGroup schedulingGroup = 43;
  repeated EvictionResponder evictionResponders = 44;
}
`,
};
