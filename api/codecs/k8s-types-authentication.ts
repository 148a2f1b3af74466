// Owns: the protobuf messages of authentication.k8s.io/v1 SelfSubjectReview (what `kubectl auth
// whoami` sends and reads through its typed client). Field numbers are those of k8s.io/api
// authentication/v1/generated.proto (v1beta1 has the same messages). Left out on purpose:
// UserInfo.extra (a map of ExtraValue string lists, which the codec would not map to kube's
// JSON); the JSON form carries it.
import type { ProtoSource } from './proto-source.ts';

export const authenticationV1: ProtoSource = {
  origin: 'k8s.io/api/authentication/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.api.authentication.v1;

message UserInfo {
  optional string username = 1;
  optional string uid = 2;
  repeated string groups = 3;
}

message SelfSubjectReviewStatus {
  optional UserInfo userInfo = 1;
}

message SelfSubjectReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}
`,
};
