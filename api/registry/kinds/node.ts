// Owns: the node.k8s.io/v1 kind kstore serves (runtimeclasses): its ResourceKind with kube's
// names, printer columns, schema and strategy (strategy-scheduling.ts).
import type { ResourceKind } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs, stringCell } from '../kind.ts';
import { runtimeClassStrategy } from '../strategy-scheduling.ts';

export const nodeKinds: readonly ResourceKind[] = [
  {
    group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', singular: 'runtimeclass', kind: 'RuntimeClass',
    namespaced: false, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Handler', type: 'string', description: 'The container runtime configuration that runs pods of this class.', priority: 0, cell: (o) => stringCell(o['handler']) },
      ageColumn,
    ],
    strategy: runtimeClassStrategy,
    schema: schemaOf('k8s.io.api.node.v1.RuntimeClass'),
  },
];
