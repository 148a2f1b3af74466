// Owns: the apps/v1 kinds kstore serves: each one ResourceKind with kube's printer columns, its
// subresources (status, scale), schema and strategy (strategy-apps.ts).
import type { ResourceKind, ScaleDescription } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import { deploymentReady, formatLabelSelector, nested as path, templateContainers } from '../printers.ts';
import { deploymentStrategy } from '../strategy-apps.ts';

/** The scale of a kind with spec.replicas, status.replicas and a metav1.LabelSelector at spec.selector. */
export const replicaScale: ScaleDescription = {
  specReplicasPath: ['spec', 'replicas'],
  statusReplicasPath: ['status', 'replicas'],
  selector: (object) => {
    const selector = formatLabelSelector(path(object, 'spec', 'selector'));
    return selector === '<none>' ? '' : selector;
  },
};

export const appsKinds: readonly ResourceKind[] = [
  {
    group: 'apps', version: 'v1', resource: 'deployments', singular: 'deployment', kind: 'Deployment',
    namespaced: true, shortNames: ['deploy'], categories: ['all'], verbs: standardVerbs,
    subresources: [
      { name: 'scale', verbs: ['get', 'patch', 'update'], responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
      { name: 'status', verbs: ['get', 'patch', 'update'] },
    ],
    scale: replicaScale,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Ready', type: 'string', description: 'Ready pods of the desired number of pods.', priority: 0, cell: (o) => deploymentReady(o) },
      { name: 'Up-to-date', type: 'string', description: 'Pods that run the current pod template.', priority: 0, cell: (o) => Number(path(o, 'status', 'updatedReplicas') ?? 0) },
      { name: 'Available', type: 'string', description: 'Pods that have been ready for at least minReadySeconds.', priority: 0, cell: (o) => Number(path(o, 'status', 'availableReplicas') ?? 0) },
      ageColumn,
      { name: 'Containers', type: 'string', description: 'The names of the pod template\'s containers.', priority: 1, cell: (o) => templateContainers(o, 'name') },
      { name: 'Images', type: 'string', description: 'The images of the pod template\'s containers.', priority: 1, cell: (o) => templateContainers(o, 'image') },
      { name: 'Selector', type: 'string', description: 'The label selector of the pods the deployment manages.', priority: 1, cell: (o) => formatLabelSelector(path(o, 'spec', 'selector')) },
    ],
    strategy: deploymentStrategy,
    schema: schemaOf('k8s.io.api.apps.v1.Deployment'),
  },
];
