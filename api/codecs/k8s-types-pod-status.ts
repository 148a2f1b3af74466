// Owns: the protobuf messages of core/v1 Pod itself, PodList, PodStatus (conditions, container
// statuses with their states, pod and host IPs, resource claim statuses) and Binding (the body
// of POST pods/<name>/binding, as kube-scheduler sends it).
//
// Field numbers and types are those of k8s.io/api core/v1/generated.proto
// (kubernetes/api@10b39a39bcee995dfe7cd5e8e7b922be5e46f1e2); the "// keep" marks come from the
// json tags of core/v1/types.go (see ./proto-source.ts).
import type { ProtoSource } from './proto-source.ts';

export const coreV1PodStatus: ProtoSource = {
  origin: 'k8s.io/api/core/v1/generated.proto (Pod, PodStatus, Binding)',
  text: `
syntax = "proto2";
package k8s.io.api.core.v1;

message PodCondition {
  optional string type = 1; // keep
  optional int64 observedGeneration = 7;
  optional string status = 2; // keep
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastProbeTime = 3;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message HostIP {
  optional string ip = 1; // keep
}

message PodIP {
  optional string ip = 1; // keep
}

message ContainerStateWaiting {
  optional string reason = 1;
  optional string message = 2;
}

message ContainerStateRunning {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time startedAt = 1;
}

message ContainerStateTerminated {
  optional int32 exitCode = 1; // keep
  optional int32 signal = 2;
  optional string reason = 3;
  optional string message = 4;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time startedAt = 5;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time finishedAt = 6;
  optional string containerID = 7;
}

message ContainerState {
  optional ContainerStateWaiting waiting = 1;
  optional ContainerStateRunning running = 2;
  optional ContainerStateTerminated terminated = 3;
}

message ImageVolumeStatus {
  optional string imageRef = 1;
}

message VolumeStatus {
  optional ImageVolumeStatus image = 1;
}

message VolumeMountStatus {
  optional string name = 1; // keep
  optional string mountPath = 2; // keep
  optional bool readOnly = 3;
  optional string recursiveReadOnly = 4; // keep
  optional VolumeStatus volumeStatus = 5;
}

message LinuxContainerUser {
  optional int64 uid = 1; // keep
  optional int64 gid = 2; // keep
  repeated int64 supplementalGroups = 3;
}

message ContainerUser {
  optional LinuxContainerUser linux = 1;
}

message ResourceHealth {
  optional string resourceID = 1; // keep
  optional string health = 2;
  optional string message = 6; // keep
}

message ResourceStatus {
  optional string name = 1; // keep
  repeated ResourceHealth resources = 2;
}

message ContainerStatus {
  optional string name = 1; // keep
  optional ContainerState state = 2;
  optional ContainerState lastState = 3;
  optional bool ready = 4; // keep
  optional int32 restartCount = 5; // keep
  optional string image = 6; // keep
  optional string imageID = 7; // keep
  optional string containerID = 8;
  optional bool started = 9; // keep
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> allocatedResources = 10;
  optional ResourceRequirements resources = 11;
  repeated VolumeMountStatus volumeMounts = 12;
  optional ContainerUser user = 13;
  repeated ResourceStatus allocatedResourcesStatus = 14;
  optional string stopSignal = 15; // keep
}

message PodResourceClaimStatus {
  optional string name = 1; // keep
  optional string resourceClaimName = 2; // keep
}

message ContainerExtendedResourceRequest {
  optional string containerName = 1; // keep
  optional string resourceName = 2; // keep
  optional string requestName = 3; // keep
}

message PodExtendedResourceClaimStatus {
  repeated ContainerExtendedResourceRequest requestMappings = 1;
  optional string resourceClaimName = 2; // keep
}

message NodeAllocatableMappedResources {
  optional string name = 1; // keep
  optional k8s.io.apimachinery.pkg.api.resource.Quantity quantity = 2;
}

message NodeAllocatableOverheadResources {
  optional string name = 1; // keep
  optional k8s.io.apimachinery.pkg.api.resource.Quantity perPod = 2;
  optional k8s.io.apimachinery.pkg.api.resource.Quantity perContainer = 3;
}

message NodeAllocatableResourceClaimStatus {
  optional string resourceClaimName = 1; // keep
  repeated string containers = 2;
  repeated NodeAllocatableMappedResources mapping = 4;
  repeated NodeAllocatableOverheadResources overhead = 5;
}

message VolumeHealthCondition {
  optional string status = 1; // keep
  optional string reason = 2; // keep
  optional string message = 3;
}

message PodVolumeHealth {
  optional string name = 1; // keep
  repeated VolumeHealthCondition healthConditions = 2;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
}

message PodStatus {
  optional int64 observedGeneration = 17;
  optional string phase = 1;
  repeated PodCondition conditions = 2;
  optional string message = 3;
  optional string reason = 4;
  optional string nominatedNodeName = 11;
  optional string hostIP = 5;
  repeated HostIP hostIPs = 16;
  optional string podIP = 6;
  repeated PodIP podIPs = 12;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time startTime = 7;
  repeated ContainerStatus initContainerStatuses = 10;
  repeated ContainerStatus containerStatuses = 8;
  optional string qosClass = 9;
  repeated ContainerStatus ephemeralContainerStatuses = 13;
  optional string resize = 14;
  repeated PodResourceClaimStatus resourceClaimStatuses = 15;
  optional PodExtendedResourceClaimStatus extendedResourceClaimStatus = 18;
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> allocatedResources = 19;
  optional ResourceRequirements resources = 20;
  repeated NodeAllocatableResourceClaimStatus nodeAllocatableResourceClaimStatuses = 21;
  repeated PodVolumeHealth volumeHealth = 22;
}

message Pod {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
  optional PodStatus status = 3;
}

message PodList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Pod items = 2;
}

message Binding {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference target = 2;
}
`,
};
