// Owns: the apps/v1 kinds kstore serves (controllerrevisions, daemonsets, deployments,
// replicasets, statefulsets, in kube's discovery order): each one ResourceKind with kube's
// printer columns, its subresources (status, scale), field selectors, schema and strategy
// (strategy-apps.ts, strategy-apps-sets.ts).
import type { ResourceKind, ScaleDescription, Subresource, TableColumn } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import {
  controllerRevisionController, countCell, deploymentReady, formatLabels, formatLabelSelector, nested as path, statefulSetReady, templateContainers,
} from '../printers.ts';
import { deploymentStrategy } from '../strategy-apps.ts';
import { controllerRevisionStrategy, daemonSetStrategy, replicaSetStrategy, statefulSetStrategy } from '../strategy-apps-sets.ts';

/** The scale of a kind with spec.replicas, status.replicas and a metav1.LabelSelector at spec.selector. */
export const replicaScale: ScaleDescription = {
  specReplicasPath: ['spec', 'replicas'],
  statusReplicasPath: ['status', 'replicas'],
  selector: (object) => {
    const selector = formatLabelSelector(path(object, 'spec', 'selector'));
    return selector === '<none>' ? '' : selector;
  },
};

export const scaleSubresource: Subresource = { name: 'scale', verbs: ['get', 'patch', 'update'], responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } };
export const statusSubresource: Subresource = { name: 'status', verbs: ['get', 'patch', 'update'] };

/** The wide Containers and Images columns of the workload printers. */
export const templateColumns: readonly TableColumn[] = [
  { name: 'Containers', type: 'string', description: 'The names of the pod template\'s containers.', priority: 1, cell: (o) => templateContainers(o, 'name') },
  { name: 'Images', type: 'string', description: 'The images of the pod template\'s containers.', priority: 1, cell: (o) => templateContainers(o, 'image') },
];

/** Field selectors of the replica-counting controllers (kube's ReplicaSet and ReplicationController selectable fields). */
export const statusReplicasField = { 'status.replicas': (o: Record<string, unknown>) => String(countCell(o, 'status', 'replicas')) };

export const appsKinds: readonly ResourceKind[] = [
  {
    group: 'apps', version: 'v1', resource: 'controllerrevisions', singular: 'controllerrevision', kind: 'ControllerRevision',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [
      { name: 'Controller', type: 'string', description: 'The object that controls this revision.', priority: 0, cell: (o) => controllerRevisionController(o) },
      { name: 'Revision', type: 'string', description: 'The revision number of the state this object holds.', priority: 0, cell: (o) => countCell(o, 'revision') },
    ],
    strategy: controllerRevisionStrategy,
    schema: schemaOf('k8s.io.api.apps.v1.ControllerRevision'),
  },
  {
    group: 'apps', version: 'v1', resource: 'daemonsets', singular: 'daemonset', kind: 'DaemonSet',
    namespaced: true, shortNames: ['ds'], categories: ['all'], verbs: standardVerbs,
    subresources: [statusSubresource],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Desired', type: 'integer', description: 'Nodes that should run the daemon pod.', priority: 0, cell: (o) => countCell(o, 'status', 'desiredNumberScheduled') },
      { name: 'Current', type: 'integer', description: 'Nodes that run at least one daemon pod and should.', priority: 0, cell: (o) => countCell(o, 'status', 'currentNumberScheduled') },
      { name: 'Ready', type: 'integer', description: 'Nodes whose daemon pod is ready.', priority: 0, cell: (o) => countCell(o, 'status', 'numberReady') },
      { name: 'Up-to-date', type: 'integer', description: 'Nodes that run the current pod template.', priority: 0, cell: (o) => countCell(o, 'status', 'updatedNumberScheduled') },
      { name: 'Available', type: 'integer', description: 'Nodes whose daemon pod has been ready for at least minReadySeconds.', priority: 0, cell: (o) => countCell(o, 'status', 'numberAvailable') },
      { name: 'Node Selector', type: 'string', description: 'The node labels the pod template asks for.', priority: 0, cell: (o) => formatLabels(path(o, 'spec', 'template', 'spec', 'nodeSelector')) },
      ageColumn,
      ...templateColumns,
      { name: 'Selector', type: 'string', description: 'The label selector of the pods the daemon set manages.', priority: 1, cell: (o) => formatLabelSelector(path(o, 'spec', 'selector')) },
    ],
    strategy: daemonSetStrategy,
    schema: schemaOf('k8s.io.api.apps.v1.DaemonSet'),
  },
  {
    group: 'apps', version: 'v1', resource: 'deployments', singular: 'deployment', kind: 'Deployment',
    namespaced: true, shortNames: ['deploy'], categories: ['all'], verbs: standardVerbs,
    subresources: [scaleSubresource, statusSubresource],
    scale: replicaScale,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Ready', type: 'string', description: 'Ready pods of the desired number of pods.', priority: 0, cell: (o) => deploymentReady(o) },
      { name: 'Up-to-date', type: 'string', description: 'Pods that run the current pod template.', priority: 0, cell: (o) => Number(path(o, 'status', 'updatedReplicas') ?? 0) },
      { name: 'Available', type: 'string', description: 'Pods that have been ready for at least minReadySeconds.', priority: 0, cell: (o) => Number(path(o, 'status', 'availableReplicas') ?? 0) },
      ageColumn,
      ...templateColumns,
      { name: 'Selector', type: 'string', description: 'The label selector of the pods the deployment manages.', priority: 1, cell: (o) => formatLabelSelector(path(o, 'spec', 'selector')) },
    ],
    strategy: deploymentStrategy,
    schema: schemaOf('k8s.io.api.apps.v1.Deployment'),
  },
  {
    group: 'apps', version: 'v1', resource: 'replicasets', singular: 'replicaset', kind: 'ReplicaSet',
    namespaced: true, shortNames: ['rs'], categories: ['all'], verbs: standardVerbs,
    subresources: [scaleSubresource, statusSubresource],
    scale: replicaScale,
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
      { name: 'Selector', type: 'string', description: 'The label selector of the pods the replica set manages.', priority: 1, cell: (o) => formatLabelSelector(path(o, 'spec', 'selector')) },
    ],
    strategy: replicaSetStrategy,
    schema: schemaOf('k8s.io.api.apps.v1.ReplicaSet'),
  },
  {
    group: 'apps', version: 'v1', resource: 'statefulsets', singular: 'statefulset', kind: 'StatefulSet',
    namespaced: true, shortNames: ['sts'], categories: ['all'], verbs: standardVerbs,
    subresources: [scaleSubresource, statusSubresource],
    scale: replicaScale,
    // kube validates StatefulSet names as DNS labels (its pods' host names derive from them).
    nameRule: 'dns1123Label',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Ready', type: 'string', description: 'Ready pods of the desired number of pods.', priority: 0, cell: (o) => statefulSetReady(o) },
      ageColumn,
      ...templateColumns,
    ],
    strategy: statefulSetStrategy,
    schema: schemaOf('k8s.io.api.apps.v1.StatefulSet'),
  },
];
