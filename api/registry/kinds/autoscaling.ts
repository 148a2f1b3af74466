// Owns: the autoscaling kinds kstore serves: HorizontalPodAutoscalers, one stored resource
// (autoscaling/v2, kube's storage version) served as autoscaling/v2 and, converted on every
// read, write and watch event (hpa-conversion.ts), as autoscaling/v1; both printed with kube's
// HPA printer over the v2 form.
import type { ResourceKind, StoredAs, TableColumn } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import { hpaV1ToV2, hpaV2ToV1 } from '../hpa-conversion.ts';
import { nested as path } from '../printers.ts';
import { hpaMinPods, hpaReference, hpaTargets } from '../printers-batch.ts';
import { hpaV1Strategy, hpaV2Strategy } from '../strategy-autoscaling.ts';

/** printHorizontalPodAutoscaler, over an autoscaling/v2 object. */
const hpaColumns: readonly TableColumn[] = [
  nameColumn,
  { name: 'Reference', type: 'string', description: 'The kind and name of the scaled resource.', priority: 0, cell: (o) => hpaReference(o) },
  { name: 'Targets', type: 'string', description: 'The metrics, current over target.', priority: 0, cell: (o) => hpaTargets(o) },
  { name: 'MinPods', type: 'string', description: 'The lower limit of replicas.', priority: 0, cell: (o) => hpaMinPods(o) },
  { name: 'MaxPods', type: 'string', description: 'The upper limit of replicas.', priority: 0, cell: (o) => Number(path(o, 'spec', 'maxReplicas') ?? 0) },
  { name: 'Replicas', type: 'string', description: 'The current number of replicas.', priority: 0, cell: (o) => Number(path(o, 'status', 'currentReplicas') ?? 0) },
  ageColumn,
];

/** autoscaling/v1 HPAs are autoscaling/v2 HPAs in storage (pkg/apis/autoscaling/v1/conversion.go). */
const hpaV1Storage: StoredAs = {
  group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler',
  toStored: hpaV1ToV2, fromStored: hpaV2ToV1,
};

const hpaNames = {
  group: 'autoscaling', resource: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler', kind: 'HorizontalPodAutoscaler',
  namespaced: true, shortNames: ['hpa'], categories: ['all'], verbs: standardVerbs,
  subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
  nameRule: 'dns1123Subdomain',
  tableLayout: 'columnsOnly',
} as const;

export const autoscalingKinds: readonly ResourceKind[] = [
  {
    ...hpaNames, version: 'v2',
    columns: hpaColumns,
    strategy: hpaV2Strategy,
    schema: schemaOf('k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler'),
  },
  {
    ...hpaNames, version: 'v1',
    // kube prints both versions with one printer, from the internal (v2-shaped) type.
    columns: hpaColumns.map((column) => ({ ...column, cell: (o, since) => column.cell(hpaV1ToV2(o as never) as unknown as Record<string, unknown>, since) })),
    storage: hpaV1Storage,
    strategy: hpaV1Strategy,
    schema: schemaOf('k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler'),
  },
];
