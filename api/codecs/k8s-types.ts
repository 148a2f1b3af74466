// Owns: the proto2 message definitions of the Kubernetes kinds kstore speaks in the protobuf
// wire format (application/vnd.kubernetes.protobuf), as proto source text parsed at startup by
// protobufjs. Kept as a .ts module, not a .proto file, so it loads the same way under tsx,
// vitest and plain node without resolving a file path at runtime.
//
// Hand-assembled, not generated: only the messages kstore serves are listed, but every field
// number, type and package name is copied from Kubernetes' own generated.proto files
//   kubernetes/apimachinery@eed236ceee2c19c2753a3d93ac0631dc20750454
//     pkg/runtime/generated.proto            (TypeMeta, Unknown)
//     pkg/apis/meta/v1/generated.proto       (ObjectMeta, ListMeta, Time, MicroTime, ...)
//   kubernetes/api@10b39a39bcee995dfe7cd5e8e7b922be5e46f1e2
//     core/v1/generated.proto                (Namespace, ConfigMap, Secret, ServiceAccount, Event, ...)
//     coordination/v1/generated.proto        (Lease, LeaseSpec, LeaseList)
//     policy/v1/generated.proto              (Eviction)
// Fields of those messages that kstore does not model are left out on purpose: protobuf skips
// unknown fields when decoding, so a peer sending them is still understood (they are dropped).
//   kubernetes/apimachinery pkg/util/intstr/generated.proto (IntOrString: a number or a string in JSON)
//   kubernetes/apimachinery pkg/api/resource/generated.proto (Quantity: a string in JSON)
// Pod, Node, Endpoints and events.k8s.io/v1 Event have modules of their own (./k8s-types-*.ts);
// this one gathers every source, the kind → message table and the JSON-mapping rules.
import { eventsV1 } from './k8s-types-events.ts';
import { coreV1Nodes } from './k8s-types-node.ts';
import { authorizationV1, rbacV1 } from './k8s-types-rbac.ts';
import { authenticationV1 } from './k8s-types-authentication.ts';
import { coreV1PodStatus } from './k8s-types-pod-status.ts';
import { coreV1PodSpec } from './k8s-types-pod.ts';
import { coreV1Volumes } from './k8s-types-volumes.ts';
import { fieldMarks } from './proto-source.ts';
import type { ProtoSource } from './proto-source.ts';

export type { ProtoSource } from './proto-source.ts';

const runtime: ProtoSource = {
  origin: 'k8s.io/apimachinery/pkg/runtime/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;

message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}

message RawExtension {
  optional bytes raw = 1;
}

message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}
`,
};

const metaV1: ProtoSource = {
  origin: 'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;

message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message FieldsV1 {
  optional bytes Raw = 1;
}

message OwnerReference {
  optional string apiVersion = 5;
  optional string kind = 1;
  optional string name = 3;
  optional string uid = 4;
  optional bool controller = 6;
  optional bool blockOwnerDeletion = 7;
}

message ManagedFieldsEntry {
  optional string manager = 1;
  optional string operation = 2;
  optional string apiVersion = 3;
  optional Time time = 4;
  optional string fieldsType = 6;
  optional FieldsV1 fieldsV1 = 7;
  optional string subresource = 8;
}

message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
  optional string selfLink = 4;
  optional string uid = 5;
  optional string resourceVersion = 6;
  optional int64 generation = 7;
  optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9;
  optional int64 deletionGracePeriodSeconds = 10;
  map<string, string> labels = 11;
  map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}

message ShardInfo {
  optional string selector = 1;
}

message PartialObjectMetadata {
  optional ObjectMeta metadata = 1;
}

message PartialObjectMetadataList {
  optional ListMeta metadata = 1;
  repeated PartialObjectMetadata items = 2;
}

message ListMeta {
  optional string selfLink = 1;
  optional string resourceVersion = 2;
  optional string continue = 3;
  optional int64 remainingItemCount = 4;
  optional ShardInfo shardInfo = 5;
}

message LabelSelectorRequirement {
  optional string key = 1; // keep
  optional string operator = 2; // keep
  repeated string values = 3;
}

message LabelSelector {
  map<string, string> matchLabels = 1;
  repeated LabelSelectorRequirement matchExpressions = 2;
}

message WatchEvent {
  optional string type = 1; // keep
  optional k8s.io.apimachinery.pkg.runtime.RawExtension object = 2;
}

message Condition {
  optional string type = 1; // keep
  optional string status = 2; // keep
  optional int64 observedGeneration = 3;
  optional Time lastTransitionTime = 4;
  optional string reason = 5; // keep
  optional string message = 6; // keep
}

message StatusCause {
  optional string reason = 1;
  optional string message = 2;
  optional string field = 3;
}

message StatusDetails {
  optional string name = 1;
  optional string group = 2;
  optional string kind = 3;
  optional string uid = 6;
  repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5;
}

message Status {
  optional ListMeta metadata = 1;
  optional string status = 2;
  optional string message = 3;
  optional string reason = 4;
  optional StatusDetails details = 5;
  optional int32 code = 6;
}

message Preconditions {
  optional string uid = 1;
  optional string resourceVersion = 2;
}

message DeleteOptions {
  optional int64 gracePeriodSeconds = 1;
  optional Preconditions preconditions = 2;
  optional bool orphanDependents = 3;
  optional string propagationPolicy = 4;
  repeated string dryRun = 5;
  optional bool ignoreStoreReadErrorWithClusterBreakingPotential = 6;
}
`,
};

const coreV1: ProtoSource = {
  origin: 'k8s.io/api/core/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.api.core.v1;

message NamespaceSpec {
  repeated string finalizers = 1;
}

message NamespaceCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message NamespaceStatus {
  optional string phase = 1;
  repeated NamespaceCondition conditions = 2;
}

message Namespace {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}

message NamespaceList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Namespace items = 2;
}

message ConfigMap {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 4;
  map<string, string> data = 2;
  map<string, bytes> binaryData = 3;
}

message ConfigMapList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ConfigMap items = 2;
}

message Secret {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 5;
  map<string, bytes> data = 2;
  map<string, string> stringData = 4;
  optional string type = 3;
}

message SecretList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Secret items = 2;
}

message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}

message LocalObjectReference {
  optional string name = 1;
}

message ServiceAccount {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2;
  repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4;
}

message ServiceAccountList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ServiceAccount items = 2;
}

message EventSource {
  optional string component = 1;
  optional string host = 2;
}

message EventSeries {
  optional int32 count = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

message Event {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference involvedObject = 2;
  optional string reason = 3;
  optional string message = 4;
  optional EventSource source = 5;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time firstTimestamp = 6;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTimestamp = 7;
  optional int32 count = 8;
  optional string type = 9;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 10;
  optional EventSeries series = 11;
  optional string action = 12;
  optional ObjectReference related = 13;
  optional string reportingComponent = 14;
  optional string reportingInstance = 15;
}

message EventList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}
`,
};

const coordinationV1: ProtoSource = {
  origin: 'k8s.io/api/coordination/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.api.coordination.v1;

message LeaseSpec {
  optional string holderIdentity = 1;
  optional int32 leaseDurationSeconds = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime acquireTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime renewTime = 4;
  optional int32 leaseTransitions = 5;
  optional string strategy = 6;
  optional string preferredHolder = 7;
}

message Lease {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional LeaseSpec spec = 2;
}

message LeaseList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Lease items = 2;
}
`,
};

const intstr: ProtoSource = {
  origin: 'k8s.io/apimachinery/pkg/util/intstr/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.apimachinery.pkg.util.intstr;

message IntOrString {
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
}
`,
};

/** core/v1 Service and what it holds, in a file of their own (same package as coreV1). */
const coreV1Services: ProtoSource = {
  origin: 'k8s.io/api/core/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.api.core.v1;

message ServicePort {
  optional string name = 1;
  optional string protocol = 2;
  optional string appProtocol = 6;
  optional int32 port = 3;
  optional k8s.io.apimachinery.pkg.util.intstr.IntOrString targetPort = 4;
  optional int32 nodePort = 5;
}

message ClientIPConfig {
  optional int32 timeoutSeconds = 1;
}

message SessionAffinityConfig {
  optional ClientIPConfig clientIP = 1;
}

message ServiceSpec {
  repeated ServicePort ports = 1;
  map<string, string> selector = 2;
  optional string clusterIP = 3;
  repeated string clusterIPs = 18;
  optional string type = 4;
  repeated string externalIPs = 5;
  optional string sessionAffinity = 7;
  optional string loadBalancerIP = 8;
  repeated string loadBalancerSourceRanges = 9;
  optional string externalName = 10;
  optional string externalTrafficPolicy = 11;
  optional int32 healthCheckNodePort = 12;
  optional bool publishNotReadyAddresses = 13;
  optional SessionAffinityConfig sessionAffinityConfig = 14;
  repeated string ipFamilies = 19;
  optional string ipFamilyPolicy = 17;
  optional bool allocateLoadBalancerNodePorts = 20;
  optional string loadBalancerClass = 21;
  optional string internalTrafficPolicy = 22;
  optional string trafficDistribution = 23;
}

message PortStatus {
  optional int32 port = 1;
  optional string protocol = 2;
  optional string error = 3;
}

message LoadBalancerIngress {
  optional string ip = 1;
  optional string hostname = 2;
  optional string ipMode = 3;
  repeated PortStatus ports = 4;
}

message LoadBalancerStatus {
  repeated LoadBalancerIngress ingress = 1;
}

message ServiceStatus {
  optional LoadBalancerStatus loadBalancer = 1;
  repeated k8s.io.apimachinery.pkg.apis.meta.v1.Condition conditions = 2;
}

message Service {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ServiceSpec spec = 2;
  optional ServiceStatus status = 3;
}

message ServiceList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Service items = 2;
}
`,
};

const resource: ProtoSource = {
  origin: 'k8s.io/apimachinery/pkg/api/resource/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.apimachinery.pkg.api.resource;

message Quantity {
  optional string string = 1;
}
`,
};

const policyV1: ProtoSource = {
  origin: 'k8s.io/api/policy/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.api.policy.v1;

message Eviction {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions deleteOptions = 2;
}
`,
};

// meta/v1beta1 keeps only its PartialObjectMetadataList (fields numbered the other way round).
const metaV1beta1: ProtoSource = {
  origin: 'k8s.io/apimachinery/pkg/apis/meta/v1beta1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1beta1;

message PartialObjectMetadataList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 2;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata items = 1;
}
`,
};

export const protoSources: readonly ProtoSource[] = [
  runtime, metaV1, metaV1beta1, intstr, resource, coreV1, coreV1Services, coreV1PodSpec, coreV1Volumes, coreV1PodStatus, coreV1Nodes,
  coordinationV1, policyV1, eventsV1, rbacV1, authorizationV1, authenticationV1,
];

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const core = 'k8s.io.api.core.v1';
const coordination = 'k8s.io.api.coordination.v1';

export const unknownMessage = 'k8s.io.apimachinery.pkg.runtime.Unknown';
export const watchEventMessage = `${meta}.WatchEvent`;
export const quantityMessage = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
export const timeMessage = `${meta}.Time`;
export const microTimeMessage = `${meta}.MicroTime`;
export const fieldsV1Message = `${meta}.FieldsV1`;
export const intOrStringMessage = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';

/** The message for each apiVersion/kind pair carried in Unknown.typeMeta. */
export const kindMessages: ReadonlyMap<string, string> = new Map([
  ...(['Namespace', 'NamespaceList', 'ConfigMap', 'ConfigMapList', 'Secret', 'SecretList',
    'ServiceAccount', 'ServiceAccountList', 'Event', 'EventList', 'Service', 'ServiceList',
    'Pod', 'PodList', 'Node', 'NodeList', 'Endpoints', 'EndpointsList', 'Binding'] as const)
    .map((kind): [string, string] => [`v1/${kind}`, `${core}.${kind}`]),
  ...(['Lease', 'LeaseList'] as const)
    .map((kind): [string, string] => [`coordination.k8s.io/v1/${kind}`, `${coordination}.${kind}`]),
  ...(['Event', 'EventList'] as const)
    .map((kind): [string, string] => [`events.k8s.io/v1/${kind}`, `k8s.io.api.events.v1.${kind}`]),
  ...(['Role', 'RoleList', 'ClusterRole', 'ClusterRoleList', 'RoleBinding', 'RoleBindingList', 'ClusterRoleBinding', 'ClusterRoleBindingList'] as const)
    .map((kind): [string, string] => [`rbac.authorization.k8s.io/v1/${kind}`, `k8s.io.api.rbac.v1.${kind}`]),
  ...(['SelfSubjectAccessReview', 'SubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'] as const)
    .map((kind): [string, string] => [`authorization.k8s.io/v1/${kind}`, `k8s.io.api.authorization.v1.${kind}`]),
  // kubectl auth whoami (v1 since 1.28, v1beta1 before: the same message).
  ['authentication.k8s.io/v1/SelfSubjectReview', 'k8s.io.api.authentication.v1.SelfSubjectReview'],
  ['authentication.k8s.io/v1beta1/SelfSubjectReview', 'k8s.io.api.authentication.v1.SelfSubjectReview'],
  // Metadata-only views (Accept ...;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1|v1beta1).
  ['meta.k8s.io/v1/PartialObjectMetadata', `${meta}.PartialObjectMetadata`],
  ['meta.k8s.io/v1/PartialObjectMetadataList', `${meta}.PartialObjectMetadataList`],
  ['meta.k8s.io/v1beta1/PartialObjectMetadata', `${meta}.PartialObjectMetadata`],
  ['meta.k8s.io/v1beta1/PartialObjectMetadataList', 'k8s.io.apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList'],
  // The body of POST pods/<name>/eviction, as kubectl drain's typed client sends it.
  ['policy/v1/Eviction', 'k8s.io.api.policy.v1.Eviction'],
  // meta/v1 kinds are registered into every group version (metav1.AddToGroupVersion), so a typed
  // client sends DeleteOptions under the resource's own group version.
  ...['v1', 'meta.k8s.io/v1', 'coordination.k8s.io/v1', 'events.k8s.io/v1', 'policy/v1', 'rbac.authorization.k8s.io/v1'].flatMap((apiVersion) => (['Status', 'DeleteOptions'] as const)
    .map((kind): [string, string] => [`${apiVersion}/${kind}`, `${meta}.${kind}`])),
]);

const marks = fieldMarks(protoSources);

/**
 * Fields whose zero value is kept when decoding, because Go holds them in a pointer (presence
 * matters) or serializes them to JSON without omitempty. Every other scalar field is dropped at
 * its zero value, the way Go's protobuf-to-struct-to-JSON path drops it (gogo-protobuf writes
 * every non-pointer field, so real clients send "" and 0 for unset fields). The sets below are
 * the older tables' list; newer tables mark the field in their text ("// keep").
 */
const listedKeepZero: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  [`${meta}.ObjectMeta`, new Set(['deletionGracePeriodSeconds'])],
  [`${meta}.ListMeta`, new Set(['remainingItemCount'])],
  [`${meta}.OwnerReference`, new Set(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'])],
  [`${meta}.DeleteOptions`, new Set(['gracePeriodSeconds', 'orphanDependents', 'propagationPolicy', 'ignoreStoreReadErrorWithClusterBreakingPotential'])],
  [`${meta}.Preconditions`, new Set(['uid', 'resourceVersion'])],
  [`${core}.NamespaceCondition`, new Set(['type', 'status'])],
  [`${core}.ConfigMap`, new Set(['immutable'])],
  [`${core}.Secret`, new Set(['immutable'])],
  [`${core}.ServiceAccount`, new Set(['automountServiceAccountToken'])],
  [`${core}.Event`, new Set(['reportingComponent', 'reportingInstance'])],
  [`${core}.ServicePort`, new Set(['port', 'appProtocol'])],
  [`${core}.ServiceSpec`, new Set(['ipFamilyPolicy', 'allocateLoadBalancerNodePorts', 'loadBalancerClass', 'internalTrafficPolicy', 'trafficDistribution'])],
  [`${core}.ClientIPConfig`, new Set(['timeoutSeconds'])],
  [`${core}.LoadBalancerIngress`, new Set(['ipMode'])],
  [`${core}.PortStatus`, new Set(['port', 'protocol', 'error'])],
  [`${coordination}.LeaseSpec`, new Set(['holderIdentity', 'leaseDurationSeconds', 'leaseTransitions', 'strategy', 'preferredHolder'])],
]);

export const keepZeroFields: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ...[...marks.keep].map(([message, fields]): [string, ReadonlySet<string>] => [message, new Set([...fields, ...(listedKeepZero.get(message) ?? [])])]),
  ...[...listedKeepZero].filter(([message]) => !marks.keep.has(message)),
]);

/** Go embedded structs (json ",inline"): the field's message fields sit in the enclosing object. */
export const inlineFields: ReadonlyMap<string, ReadonlySet<string>> = marks.inline;
