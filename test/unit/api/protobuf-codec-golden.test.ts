// Owns: the protobuf codec against golden bytes, one object per kind kstore speaks protobuf for.
// The fixtures (./fixtures/protobuf-codec-golden.json) were produced by the codec as it was when
// its messages came from hand-written proto tables (api/codecs/k8s-types*.ts, commit 49dec8c),
// before it was moved onto the generated kind descriptions, and are kept byte for byte:
// - `protobufKinds`: the apiVersion/kind pairs that codec spoke protobuf for;
// - `objects`: rich objects in the JSON shape kube-apiserver serves (a Pod with containers, every
//   volume source, probes with their inline handlers, quantities and int-or-string ports; Node,
//   Service, Endpoints, both Events, Namespace, ConfigMap with managed fields, Secret,
//   ServiceAccount, Lease, RBAC kinds, Binding, Eviction, DeleteOptions, Status, the access
//   reviews, SelfSubjectReview, metadata-only views), each with the bytes it encodes to;
// - `watchEvent`: one framed protobuf watch event;
// - `zeroFilled`: per kind, a body with every field present at its zero value and every list and
//   map holding one zero item (the way gogo-protobuf writes non-pointer fields), and the JSON it
//   decodes to: which zero values Go keeps (pointers, fields without omitempty), which it drops,
//   and which embedded structs sit inline.
// Only fields of the Kubernetes 1.33 API are in the fixtures.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decodeProtobufObject, decodeProtobufWatchEvents, encodeProtobufObject, encodeProtobufWatchEvent, protobufKinds,
} from '../../../api/codecs/protobuf.ts';

interface GoldenFixtures {
  readonly protobufKinds: readonly string[];
  readonly objects: readonly { readonly name: string; readonly object: Record<string, unknown>; readonly protobuf: string }[];
  readonly watchEvent: { readonly type: string; readonly objectName: string; readonly protobuf: string };
  readonly zeroFilled: readonly { readonly apiVersion: string; readonly kind: string; readonly protobuf: string; readonly decoded: Record<string, unknown> }[];
}

const golden = JSON.parse(readFileSync(new URL('./fixtures/protobuf-codec-golden.json', import.meta.url), 'utf8')) as GoldenFixtures;

/**
 * The apiVersion/kind pairs of the kinds and subresource bodies served since the fixtures were
 * made (deployments and the other workload controllers, and their scale's autoscaling/v1 Scale; each group version's
 * made (deployments, deployments/scale's autoscaling/v1 Scale, and the admissionregistration,
 * flowcontrol and apiregistration kinds; each group version's
 * DeleteOptions and Status come with them).
 * made (deployments, and deployments/scale's autoscaling/v1 Scale; each group version's
 * DeleteOptions and Status come with them; then the networking.k8s.io, discovery.k8s.io and
 * certificates.k8s.io kinds).
 */
const servedSinceGolden = [
  // apiextensions.k8s.io: CustomResourceDefinitions (custom resources themselves have no protobuf).
  'apiextensions.k8s.io/v1/CustomResourceDefinition', 'apiextensions.k8s.io/v1/CustomResourceDefinitionList', 'apiextensions.k8s.io/v1/DeleteOptions', 'apiextensions.k8s.io/v1/Status',
  'apps/v1/DeleteOptions', 'apps/v1/Deployment', 'apps/v1/DeploymentList', 'apps/v1/Status',
  'autoscaling/v1/DeleteOptions', 'autoscaling/v1/Scale', 'autoscaling/v1/Status',
  'apps/v1/ControllerRevision', 'apps/v1/ControllerRevisionList', 'apps/v1/DaemonSet', 'apps/v1/DaemonSetList',
  'apps/v1/ReplicaSet', 'apps/v1/ReplicaSetList', 'apps/v1/StatefulSet', 'apps/v1/StatefulSetList',
  'v1/PodTemplate', 'v1/PodTemplateList', 'v1/ReplicationController', 'v1/ReplicationControllerList',
  // horizontalpodautoscalers (autoscaling/v2 and v1), jobs and cronjobs, poddisruptionbudgets.
  'autoscaling/v1/HorizontalPodAutoscaler', 'autoscaling/v1/HorizontalPodAutoscalerList',
  'autoscaling/v2/DeleteOptions', 'autoscaling/v2/HorizontalPodAutoscaler', 'autoscaling/v2/HorizontalPodAutoscalerList', 'autoscaling/v2/Status',
  'batch/v1/CronJob', 'batch/v1/CronJobList', 'batch/v1/DeleteOptions', 'batch/v1/Job', 'batch/v1/JobList', 'batch/v1/Status',
  'policy/v1/PodDisruptionBudget', 'policy/v1/PodDisruptionBudgetList',
  // wt-storage: core/v1 storage, quota and component status kinds; storage.k8s.io, scheduling.k8s.io and node.k8s.io.
  'v1/ComponentStatus', 'v1/ComponentStatusList', 'v1/LimitRange', 'v1/LimitRangeList', 'v1/PersistentVolume', 'v1/PersistentVolumeClaim',
  'v1/PersistentVolumeClaimList', 'v1/PersistentVolumeList', 'v1/ResourceQuota', 'v1/ResourceQuotaList',
  'storage.k8s.io/v1/CSIDriver', 'storage.k8s.io/v1/CSIDriverList', 'storage.k8s.io/v1/CSINode', 'storage.k8s.io/v1/CSINodeList',
  'storage.k8s.io/v1/CSIStorageCapacity', 'storage.k8s.io/v1/CSIStorageCapacityList', 'storage.k8s.io/v1/DeleteOptions', 'storage.k8s.io/v1/Status',
  'storage.k8s.io/v1/StorageClass', 'storage.k8s.io/v1/StorageClassList', 'storage.k8s.io/v1/VolumeAttachment', 'storage.k8s.io/v1/VolumeAttachmentList',
  'scheduling.k8s.io/v1/DeleteOptions', 'scheduling.k8s.io/v1/PriorityClass', 'scheduling.k8s.io/v1/PriorityClassList', 'scheduling.k8s.io/v1/Status',
  'node.k8s.io/v1/DeleteOptions', 'node.k8s.io/v1/RuntimeClass', 'node.k8s.io/v1/RuntimeClassList', 'node.k8s.io/v1/Status',
  ...['DeleteOptions', 'IPAddress', 'IPAddressList', 'Ingress', 'IngressClass', 'IngressClassList', 'IngressList', 'NetworkPolicy', 'NetworkPolicyList',
    'ServiceCIDR', 'ServiceCIDRList', 'Status'].map((kind) => `networking.k8s.io/v1/${kind}`),
  ...['DeleteOptions', 'EndpointSlice', 'EndpointSliceList', 'Status'].map((kind) => `discovery.k8s.io/v1/${kind}`),
  ...['CertificateSigningRequest', 'CertificateSigningRequestList', 'DeleteOptions', 'Status'].map((kind) => `certificates.k8s.io/v1/${kind}`),
  ...['MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'ValidatingWebhookConfiguration']
    .flatMap((kind) => [`admissionregistration.k8s.io/v1/${kind}`, `admissionregistration.k8s.io/v1/${kind}List`]),
  'admissionregistration.k8s.io/v1/DeleteOptions', 'admissionregistration.k8s.io/v1/Status',
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema', 'flowcontrol.apiserver.k8s.io/v1/FlowSchemaList',
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration', 'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfigurationList',
  'flowcontrol.apiserver.k8s.io/v1/DeleteOptions', 'flowcontrol.apiserver.k8s.io/v1/Status',
  'apiregistration.k8s.io/v1/APIService', 'apiregistration.k8s.io/v1/APIServiceList', 'apiregistration.k8s.io/v1/DeleteOptions', 'apiregistration.k8s.io/v1/Status',
  // serviceaccounts/token answers a TokenRequest; tokenreviews take and give a TokenReview.
  ...['DeleteOptions', 'Status', 'TokenRequest', 'TokenReview'].map((kind) => `authentication.k8s.io/v1/${kind}`),
];

describe('protobuf codec: kinds', () => {
  it('speaks protobuf for the same apiVersion/kind pairs, and those of the kinds served since', () => {
    expect([...protobufKinds()].sort()).toEqual([...golden.protobufKinds, ...servedSinceGolden].sort());
  });
});

describe('protobuf codec: rich objects encode to their golden bytes and decode back', () => {
  it.each(golden.objects.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    expect(encodeProtobufObject(entry.object).toString('hex')).toBe(entry.protobuf);
    expect(decodeProtobufObject(Buffer.from(entry.protobuf, 'hex'))).toEqual(entry.object);
  });

  it('a watch event frames the object\'s own envelope', () => {
    const entry = golden.objects.find((candidate) => candidate.name === golden.watchEvent.objectName);
    if (entry === undefined) throw new Error(`no golden object ${golden.watchEvent.objectName}`);
    expect(encodeProtobufWatchEvent(golden.watchEvent.type, entry.object).toString('hex')).toBe(golden.watchEvent.protobuf);
    expect(decodeProtobufWatchEvents(Buffer.from(golden.watchEvent.protobuf, 'hex'))).toEqual([{ type: golden.watchEvent.type, object: entry.object }]);
  });
});

describe('protobuf codec: every field at its zero value decodes to the JSON Go writes', () => {
  it.each(golden.zeroFilled.map((entry) => [`${entry.apiVersion} ${entry.kind}`, entry] as const))('%s', (_name, entry) => {
    const decoded = decodeProtobufObject(Buffer.from(entry.protobuf, 'hex'));
    expect(decoded).toEqual(entry.decoded);
    expect(decodeProtobufObject(encodeProtobufObject(decoded))).toEqual(decoded);
  });
});
