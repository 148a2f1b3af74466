// Owns: the core/v1 kinds of storage, quota and component health kstore serves
// (persistentvolumes, persistentvolumeclaims, limitranges, resourcequotas, componentstatuses):
// each one ResourceKind with kube's names, printer columns (printers-storage.ts), field
// selectors, subresources, schema and strategy (strategy-storage.ts, strategy-quota.ts).
// componentstatuses are computed, never stored: endpoints/component-status.ts answers them.
import type { ResourceKind, TableColumn } from '../kind.ts';
import { ageColumn, genericStrategy, nameColumn, nestedValue as nested, schemaOf, standardVerbs, stringCell } from '../kind.ts';
import { componentCondition, persistentVolumeCells as pv, persistentVolumeClaimCells as pvc, resourceQuotaCell } from '../printers-storage.ts';
import { limitRangeStrategy, resourceQuotaStrategy } from '../strategy-quota.ts';
import { persistentVolumeClaimStrategy, persistentVolumeStrategy } from '../strategy-storage.ts';

/** kube keeps a bare `name` field label on volumes and claims for backward compatibility. */
const legacyNameSelector = { name: (o: Record<string, unknown>) => stringCell(nested(o, 'metadata', 'name')) };

const statusSubresource = [{ name: 'status', verbs: ['get', 'patch', 'update'] }] as const;

const componentStatusColumns: readonly TableColumn[] = [
  nameColumn,
  { name: 'Status', type: 'string', description: 'Whether the component reports itself healthy.', priority: 0, cell: (o) => componentCondition(o).status },
  { name: 'Message', type: 'string', description: 'What the component\'s health check answered.', priority: 0, cell: (o) => componentCondition(o).message },
  { name: 'Error', type: 'string', description: 'Why the component\'s health check failed.', priority: 0, cell: (o) => componentCondition(o).error },
];

export const coreStorageKinds: readonly ResourceKind[] = [
  {
    group: '', version: 'v1', resource: 'persistentvolumes', singular: 'persistentvolume', kind: 'PersistentVolume',
    namespaced: false, shortNames: ['pv'], categories: [], verbs: standardVerbs,
    subresources: statusSubresource,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Capacity', type: 'string', description: 'The storage the volume offers.', priority: 0, cell: pv.capacity },
      { name: 'Access Modes', type: 'string', description: 'The ways the volume can be mounted.', priority: 0, cell: pv.accessModes },
      { name: 'Reclaim Policy', type: 'string', description: 'What happens to the volume once its claim is released.', priority: 0, cell: pv.reclaimPolicy },
      { name: 'Status', type: 'string', description: 'The phase of the volume.', priority: 0, cell: pv.status },
      { name: 'Claim', type: 'string', description: 'The claim the volume is bound to (namespace/name).', priority: 0, cell: pv.claim },
      { name: 'StorageClass', type: 'string', description: 'StorageClass of the pv', priority: 0, cell: pv.storageClass },
      { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClass of the pv', priority: 0, cell: pv.volumeAttributesClass },
      { name: 'Reason', type: 'string', description: 'Why the volume is in its phase.', priority: 0, cell: pv.reason },
      ageColumn,
      { name: 'VolumeMode', type: 'string', description: 'Whether the volume is a filesystem or a raw block device.', priority: 1, cell: pv.volumeMode },
    ],
    fieldSelectors: legacyNameSelector,
    strategy: persistentVolumeStrategy,
    schema: schemaOf('k8s.io.api.core.v1.PersistentVolume'),
  },
  {
    group: '', version: 'v1', resource: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', kind: 'PersistentVolumeClaim',
    namespaced: true, shortNames: ['pvc'], categories: [], verbs: standardVerbs,
    subresources: statusSubresource,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Status', type: 'string', description: 'The phase of the claim.', priority: 0, cell: pvc.status },
      { name: 'Volume', type: 'string', description: 'The volume the claim is bound to.', priority: 0, cell: pvc.volume },
      { name: 'Capacity', type: 'string', description: 'The storage of the bound volume.', priority: 0, cell: pvc.capacity },
      { name: 'Access Modes', type: 'string', description: 'The ways the bound volume can be mounted.', priority: 0, cell: pvc.accessModes },
      { name: 'StorageClass', type: 'string', description: 'StorageClass of the pvc', priority: 0, cell: pvc.storageClass },
      { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClass of the pvc', priority: 0, cell: pvc.volumeAttributesClass },
      ageColumn,
      { name: 'VolumeMode', type: 'string', description: 'Whether the claim asks for a filesystem or a raw block device.', priority: 1, cell: pvc.volumeMode },
    ],
    fieldSelectors: legacyNameSelector,
    strategy: persistentVolumeClaimStrategy,
    schema: schemaOf('k8s.io.api.core.v1.PersistentVolumeClaim'),
  },
  {
    group: '', version: 'v1', resource: 'limitranges', singular: 'limitrange', kind: 'LimitRange',
    namespaced: true, shortNames: ['limits'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Created At', type: 'date', description: 'When the limit range was created.', priority: 0, cell: (o) => stringCell(nested(o, 'metadata', 'creationTimestamp')) },
    ],
    strategy: limitRangeStrategy,
    schema: schemaOf('k8s.io.api.core.v1.LimitRange'),
  },
  {
    group: '', version: 'v1', resource: 'resourcequotas', singular: 'resourcequota', kind: 'ResourceQuota',
    namespaced: true, shortNames: ['quota'], categories: [], verbs: standardVerbs,
    subresources: statusSubresource,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      ageColumn,
      { name: 'Request', type: 'string', description: 'Request represents a minimum amount of cpu/memory that a container may consume.', priority: 0, cell: (o) => resourceQuotaCell(o, 'request') },
      { name: 'Limit', type: 'string', description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', priority: 0, cell: (o) => resourceQuotaCell(o, 'limit') },
    ],
    strategy: resourceQuotaStrategy,
    schema: schemaOf('k8s.io.api.core.v1.ResourceQuota'),
  },
  {
    group: '', version: 'v1', resource: 'componentstatuses', singular: 'componentstatus', kind: 'ComponentStatus',
    namespaced: false, shortNames: ['cs'], categories: [], verbs: ['get', 'list'],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: componentStatusColumns,
    strategy: genericStrategy,
    schema: schemaOf('k8s.io.api.core.v1.ComponentStatus'),
  },
];
