// Owns: the core/v1 controller kinds kstore serves (replicationcontrollers and podtemplates):
// each one ResourceKind with kube's names, printer columns, field selectors, subresources
// (replicationcontrollers/status and /scale), schema and strategy (strategy-apps-replication.ts).
import type { ResourceKind, ScaleDescription } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import { countCell, formatLabels, nested as path, podTemplateContainers } from '../printers.ts';
import { podTemplateStrategy, replicationControllerStrategy } from '../strategy-apps-replication.ts';
import { scaleSubresource, statusReplicasField, statusSubresource, templateColumns } from './apps.ts';

/**
 * A ReplicationController's Scale: its selector is a label map, shown as the selector it makes
 * (labels.SelectorFromSet: "k=v" requirements sorted by key; "" when empty).
 */
export const replicationControllerScale: ScaleDescription = {
  specReplicasPath: ['spec', 'replicas'],
  statusReplicasPath: ['status', 'replicas'],
  selector: (object) => {
    const selector = formatLabels(path(object, 'spec', 'selector'));
    return selector === '<none>' ? '' : selector;
  },
};

export const coreControllerKinds: readonly ResourceKind[] = [
  {
    group: '', version: 'v1', resource: 'replicationcontrollers', singular: 'replicationcontroller', kind: 'ReplicationController',
    namespaced: true, shortNames: ['rc'], categories: ['all'], verbs: standardVerbs,
    subresources: [scaleSubresource, statusSubresource],
    scale: replicationControllerScale,
    fieldSelectors: statusReplicasField,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Desired', type: 'integer', description: 'The number of pods wanted.', priority: 0, cell: (o) => countCell(o, 'spec', 'replicas') },
      { name: 'Current', type: 'integer', description: 'The number of pods last observed.', priority: 0, cell: (o) => countCell(o, 'status', 'replicas') },
      { name: 'Ready', type: 'integer', description: 'The number of ready pods last observed.', priority: 0, cell: (o) => countCell(o, 'status', 'readyReplicas') },
      ageColumn,
      ...templateColumns,
      { name: 'Selector', type: 'string', description: 'The labels of the pods the controller manages.', priority: 1, cell: (o) => formatLabels(path(o, 'spec', 'selector')) },
    ],
    strategy: replicationControllerStrategy,
    schema: schemaOf('k8s.io.api.core.v1.ReplicationController'),
  },
  {
    group: '', version: 'v1', resource: 'podtemplates', singular: 'podtemplate', kind: 'PodTemplate',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    // kube's pod template printer has no Age column.
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Containers', type: 'string', description: 'The names of the template\'s containers.', priority: 0, cell: (o) => podTemplateContainers(o, 'name') },
      { name: 'Images', type: 'string', description: 'The images of the template\'s containers.', priority: 0, cell: (o) => podTemplateContainers(o, 'image') },
      { name: 'Pod Labels', type: 'string', description: 'The labels the template gives its pods.', priority: 0, cell: (o) => formatLabels(path(o, 'template', 'metadata', 'labels')) },
    ],
    strategy: podTemplateStrategy,
    schema: schemaOf('k8s.io.api.core.v1.PodTemplate'),
  },
];
