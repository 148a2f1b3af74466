// Owns: the protobuf messages of rbac.authorization.k8s.io/v1 (Role, ClusterRole, RoleBinding,
// ClusterRoleBinding and their lists) and of the authorization.k8s.io/v1 access reviews
// (SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview,
// SelfSubjectRulesReview), which kubectl's typed clients (create role/rolebinding, auth can-i)
// send as protobuf.
//
// Field numbers and types are those of k8s.io/api rbac/v1/generated.proto and
// authorization/v1/generated.proto; "// keep" marks the json tags without omitempty. Left out on
// purpose (skipped when decoding): SubjectAccessReviewSpec.extra (a map of ExtraValue string
// lists, which protobufjs would not map to kube's JSON) and ResourceAttributes' field and label
// selectors.
import type { ProtoSource } from './proto-source.ts';

export const rbacV1: ProtoSource = {
  origin: 'k8s.io/api/rbac/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.api.rbac.v1;

message AggregationRule {
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector clusterRoleSelectors = 1;
}

message PolicyRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}

message RoleRef {
  optional string apiGroup = 1; // keep
  optional string kind = 2; // keep
  optional string name = 3; // keep
}

message Subject {
  optional string kind = 1; // keep
  optional string apiGroup = 2;
  optional string name = 3; // keep
  optional string namespace = 4;
}

message Role {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
}

message RoleList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Role items = 2;
}

message ClusterRole {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3;
}

message ClusterRoleList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRole items = 2;
}

message RoleBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message RoleBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated RoleBinding items = 2;
}

message ClusterRoleBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message ClusterRoleBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRoleBinding items = 2;
}
`,
};

export const authorizationV1: ProtoSource = {
  origin: 'k8s.io/api/authorization/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.api.authorization.v1;

message ResourceAttributes {
  optional string namespace = 1;
  optional string verb = 2;
  optional string group = 3;
  optional string version = 4;
  optional string resource = 5;
  optional string subresource = 6;
  optional string name = 7;
}

message NonResourceAttributes {
  optional string path = 1;
  optional string verb = 2;
}

message SubjectAccessReviewStatus {
  optional bool allowed = 1; // keep
  optional bool denied = 4;
  optional string reason = 2;
  optional string evaluationError = 3;
}

message SelfSubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
}

message SelfSubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
  optional string user = 3;
  repeated string groups = 4;
  optional string uid = 6;
}

message SubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message LocalSubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SelfSubjectRulesReviewSpec {
  optional string namespace = 1;
}

message ResourceRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
}

message NonResourceRule {
  repeated string verbs = 1;
  repeated string nonResourceURLs = 2;
}

message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1;
  repeated NonResourceRule nonResourceRules = 2;
  optional bool incomplete = 3; // keep
  optional string evaluationError = 4;
}

message SelfSubjectRulesReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectRulesReviewSpec spec = 2;
  optional SubjectRulesReviewStatus status = 3;
}
`,
};
