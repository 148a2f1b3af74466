// Owns: the protobuf messages of events.k8s.io/v1 Event and EventList (kube-scheduler and the
// controllers' event recorders send them). Its deprecatedSource and regarding/related fields use
// core/v1's EventSource and ObjectReference, defined with core/v1 Event in ./k8s-types.ts.
//
// Field numbers and types are those of k8s.io/api events/v1/generated.proto
// (kubernetes/api@10b39a39bcee995dfe7cd5e8e7b922be5e46f1e2); the "// keep" mark comes from the
// json tags of events/v1/types.go (see ./proto-source.ts).
import type { ProtoSource } from './proto-source.ts';

export const eventsV1: ProtoSource = {
  origin: 'k8s.io/api/events/v1/generated.proto',
  text: `
syntax = "proto2";
package k8s.io.api.events.v1;

message EventSeries {
  optional int32 count = 1; // keep
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

message Event {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 2;
  optional EventSeries series = 3;
  optional string reportingController = 4;
  optional string reportingInstance = 5;
  optional string action = 6;
  optional string reason = 7;
  optional k8s.io.api.core.v1.ObjectReference regarding = 8;
  optional k8s.io.api.core.v1.ObjectReference related = 9;
  optional string note = 10;
  optional string type = 11;
  optional k8s.io.api.core.v1.EventSource deprecatedSource = 12;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedFirstTimestamp = 13;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedLastTimestamp = 14;
  optional int32 deprecatedCount = 15;
}

message EventList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}
`,
};
