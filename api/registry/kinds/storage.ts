// Owns: the storage.k8s.io/v1 kinds kstore serves (storageclasses, csidrivers, csinodes,
// volumeattachments, csistoragecapacities): each one ResourceKind with kube's names, printer
// columns (printers-storage.ts), subresources, schema and strategy (strategy-storage.ts).
import type { ResourceKind } from '../kind.ts';
import { ageColumn, nameColumn, nestedValue as nested, schemaOf, standardVerbs, stringCell } from '../kind.ts';
import { csiDriverCells, csiNodeDrivers, storageCapacityText, storageClassName } from '../printers-storage.ts';
import {
  csiDriverStrategy, csiNodeStrategy, csiStorageCapacityStrategy, storageClassStrategy, volumeAttachmentStrategy,
} from '../strategy-storage.ts';

const group = 'storage.k8s.io';

export const storageKinds: readonly ResourceKind[] = [
  {
    group, version: 'v1', resource: 'storageclasses', singular: 'storageclass', kind: 'StorageClass',
    namespaced: false, shortNames: ['sc'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      { ...nameColumn, cell: (o) => storageClassName(o) },
      { name: 'Provisioner', type: 'string', description: 'The volume plugin that provisions volumes of this class.', priority: 0, cell: (o) => stringCell(o['provisioner']) },
      { name: 'ReclaimPolicy', type: 'string', description: 'What happens to a provisioned volume once its claim is released.', priority: 0, cell: (o) => stringCell(o['reclaimPolicy'] ?? 'Delete') },
      { name: 'VolumeBindingMode', type: 'string', description: 'When claims of this class are bound and provisioned.', priority: 0, cell: (o) => stringCell(o['volumeBindingMode'] ?? 'Immediate') },
      { name: 'AllowVolumeExpansion', type: 'string', description: 'Whether claims of this class may grow.', priority: 0, cell: (o) => o['allowVolumeExpansion'] === true },
      ageColumn,
    ],
    strategy: storageClassStrategy,
    schema: schemaOf('k8s.io.api.storage.v1.StorageClass'),
  },
  {
    group, version: 'v1', resource: 'csidrivers', singular: 'csidriver', kind: 'CSIDriver',
    namespaced: false, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'AttachRequired', type: 'boolean', description: 'Whether volumes of the driver need an attach step.', priority: 0, cell: csiDriverCells.attachRequired },
      { name: 'PodInfoOnMount', type: 'boolean', description: 'Whether the driver is told about the pod at mount time.', priority: 0, cell: csiDriverCells.podInfoOnMount },
      { name: 'StorageCapacity', type: 'boolean', description: 'Whether the scheduler considers the driver\'s reported capacity.', priority: 0, cell: csiDriverCells.storageCapacity },
      { name: 'TokenRequests', type: 'string', description: 'Audiences of the service account tokens passed to the driver.', priority: 0, cell: csiDriverCells.tokenRequests },
      { name: 'RequiresRepublish', type: 'boolean', description: 'Whether the driver wants NodePublishVolume called again periodically.', priority: 0, cell: csiDriverCells.requiresRepublish },
      { name: 'Modes', type: 'string', description: 'The volume lifecycle modes the driver supports.', priority: 0, cell: csiDriverCells.modes },
      ageColumn,
    ],
    strategy: csiDriverStrategy,
    schema: schemaOf('k8s.io.api.storage.v1.CSIDriver'),
  },
  {
    group, version: 'v1', resource: 'csinodes', singular: 'csinode', kind: 'CSINode',
    namespaced: false, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Drivers', type: 'integer', description: 'Drivers indicates the number of CSI drivers registered on the node', priority: 0, cell: (o) => csiNodeDrivers(o) },
      ageColumn,
    ],
    strategy: csiNodeStrategy,
    schema: schemaOf('k8s.io.api.storage.v1.CSINode'),
  },
  {
    group, version: 'v1', resource: 'volumeattachments', singular: 'volumeattachment', kind: 'VolumeAttachment',
    namespaced: false, shortNames: [], categories: [], verbs: standardVerbs,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Attacher', type: 'string', format: 'name', description: 'The driver that attaches the volume.', priority: 0, cell: (o) => stringCell(nested(o, 'spec', 'attacher')) },
      { name: 'PV', type: 'string', description: 'The persistent volume being attached.', priority: 0, cell: (o) => stringCell(nested(o, 'spec', 'source', 'persistentVolumeName')) },
      { name: 'Node', type: 'string', description: 'The node the volume is attached to.', priority: 0, cell: (o) => stringCell(nested(o, 'spec', 'nodeName')) },
      { name: 'Attached', type: 'boolean', description: 'Whether the attach operation finished.', priority: 0, cell: (o) => nested(o, 'status', 'attached') === true },
      ageColumn,
    ],
    strategy: volumeAttachmentStrategy,
    schema: schemaOf('k8s.io.api.storage.v1.VolumeAttachment'),
  },
  {
    group, version: 'v1', resource: 'csistoragecapacities', singular: 'csistoragecapacity', kind: 'CSIStorageCapacity',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'StorageClassName', type: 'string', description: 'The storage class the capacity is for.', priority: 0, cell: (o) => stringCell(o['storageClassName']) },
      { name: 'Capacity', type: 'string', description: 'The capacity available for new volumes.', priority: 0, cell: (o) => storageCapacityText(o) },
    ],
    strategy: csiStorageCapacityStrategy,
    schema: schemaOf('k8s.io.api.storage.v1.CSIStorageCapacity'),
  },
];
