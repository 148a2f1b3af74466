// Owns: the scheduling.k8s.io/v1 kind kstore serves (priorityclasses): its ResourceKind with
// kube's names, printer columns, schema and strategy (strategy-scheduling.ts). The two system
// classes are created at start by deploy/priority-class-bootstrap.ts.
import type { ResourceKind } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs, stringCell } from '../kind.ts';
import { priorityClassStrategy } from '../strategy-scheduling.ts';

export const schedulingKinds: readonly ResourceKind[] = [
  {
    group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', singular: 'priorityclass', kind: 'PriorityClass',
    namespaced: false, shortNames: ['pc'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Value', type: 'integer', description: 'The priority pods of this class get.', priority: 0, cell: (o) => (typeof o['value'] === 'number' ? o['value'] : 0) },
      { name: 'Global-Default', type: 'boolean', description: 'Whether pods without a class get this one.', priority: 0, cell: (o) => o['globalDefault'] === true },
      ageColumn,
      { name: 'PreemptionPolicy', type: 'string', description: 'Whether pods of this class may preempt lower-priority pods.', priority: 0, cell: (o) => stringCell(o['preemptionPolicy']) },
    ],
    strategy: priorityClassStrategy,
    schema: schemaOf('k8s.io.api.scheduling.v1.PriorityClass'),
  },
];
