// Owns: the protobuf messages of core/v1 Node and NodeList (spec with taints, status with
// capacity/allocatable, conditions, addresses, daemon endpoints, node info, images, attached
// volumes, config, runtime handlers and features) and of core/v1 Endpoints and EndpointsList.
//
// Field numbers and types are those of k8s.io/api core/v1/generated.proto
// (kubernetes/api@10b39a39bcee995dfe7cd5e8e7b922be5e46f1e2); the "// keep" marks come from the
// json tags of core/v1/types.go (see ./proto-source.ts).
import type { ProtoSource } from './proto-source.ts';

export const coreV1Nodes: ProtoSource = {
  origin: 'k8s.io/api/core/v1/generated.proto (Node, Endpoints)',
  text: `
syntax = "proto2";
package k8s.io.api.core.v1;

message Taint {
  optional string key = 1; // keep
  optional string value = 2;
  optional string effect = 3; // keep
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time timeAdded = 4;
}

message ConfigMapNodeConfigSource {
  optional string namespace = 1; // keep
  optional string name = 2; // keep
  optional string uid = 3;
  optional string resourceVersion = 4;
  optional string kubeletConfigKey = 5; // keep
}

message NodeConfigSource {
  optional ConfigMapNodeConfigSource configMap = 2;
}

message NodePodPreemptionPolicy {
  repeated string disableResizePreemption = 1;
}

message NodeSpec {
  optional string podCIDR = 1;
  repeated string podCIDRs = 7;
  optional string providerID = 3;
  optional bool unschedulable = 4;
  repeated Taint taints = 5;
  optional NodeConfigSource configSource = 6;
  optional string externalID = 2;
  optional NodePodPreemptionPolicy podPreemptionPolicy = 8;
}

message NodeCondition {
  optional string type = 1; // keep
  optional string status = 2; // keep
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastHeartbeatTime = 3;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message NodeAddress {
  optional string type = 1; // keep
  optional string address = 2; // keep
}

message DaemonEndpoint {
  optional int32 Port = 1; // keep
}

message NodeDaemonEndpoints {
  optional DaemonEndpoint kubeletEndpoint = 1;
}

message NodeSwapStatus {
  optional int64 capacity = 1; // keep
}

message NodeSystemInfo {
  optional string machineID = 1; // keep
  optional string systemUUID = 2; // keep
  optional string bootID = 3; // keep
  optional string kernelVersion = 4; // keep
  optional string osImage = 5; // keep
  optional string containerRuntimeVersion = 6; // keep
  optional string kubeletVersion = 7; // keep
  optional string kubeProxyVersion = 8; // keep
  optional string operatingSystem = 9; // keep
  optional string architecture = 10; // keep
  optional NodeSwapStatus swap = 11;
}

message ContainerImage {
  repeated string names = 1;
  optional int64 sizeBytes = 2;
}

message AttachedVolume {
  optional string name = 1; // keep
  optional string devicePath = 2; // keep
}

message NodeConfigStatus {
  optional NodeConfigSource assigned = 1;
  optional NodeConfigSource active = 2;
  optional NodeConfigSource lastKnownGood = 3;
  optional string error = 4;
}

message NodeRuntimeHandlerFeatures {
  optional bool recursiveReadOnlyMounts = 1; // keep
  optional bool userNamespaces = 2; // keep
}

message NodeRuntimeHandler {
  optional string name = 1; // keep
  optional NodeRuntimeHandlerFeatures features = 2;
}

message NodeFeatures {
  optional bool supplementalGroupsPolicy = 1; // keep
}

message NodeStatus {
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> capacity = 1;
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> allocatable = 2;
  optional string phase = 3;
  repeated NodeCondition conditions = 4;
  repeated NodeAddress addresses = 5;
  optional NodeDaemonEndpoints daemonEndpoints = 6;
  optional NodeSystemInfo nodeInfo = 7;
  repeated ContainerImage images = 8;
  repeated string volumesInUse = 9;
  repeated AttachedVolume volumesAttached = 10;
  optional NodeConfigStatus config = 11;
  repeated NodeRuntimeHandler runtimeHandlers = 12;
  optional NodeFeatures features = 13;
  repeated string declaredFeatures = 14;
}

message Node {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NodeSpec spec = 2;
  optional NodeStatus status = 3;
}

message NodeList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Node items = 2;
}

message EndpointAddress {
  optional string ip = 1; // keep
  optional string hostname = 3;
  optional string nodeName = 4; // keep
  optional ObjectReference targetRef = 2;
}

message EndpointPort {
  optional string name = 1;
  optional int32 port = 2; // keep
  optional string protocol = 3;
  optional string appProtocol = 4; // keep
}

message EndpointSubset {
  repeated EndpointAddress addresses = 1;
  repeated EndpointAddress notReadyAddresses = 2;
  repeated EndpointPort ports = 3;
}

message Endpoints {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated EndpointSubset subsets = 2;
}

message EndpointsList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Endpoints items = 2;
}
`,
};
