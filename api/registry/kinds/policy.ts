// Owns: the policy/v1 kinds kstore serves: PodDisruptionBudgets, with kube's names, status
// subresource, printer columns (printPodDisruptionBudget), schema and strategy
// (strategy-policy.ts). Evictions (pods/eviction, policy/v1 Eviction) consult them
// (endpoints/eviction.ts).
import type { ResourceKind } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import { nested as path } from '../printers.ts';
import { intOrStringCell } from '../printers-batch.ts';
import { pdbStrategy } from '../strategy-policy.ts';

export const policyKinds: readonly ResourceKind[] = [
  {
    group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', singular: 'poddisruptionbudget', kind: 'PodDisruptionBudget',
    namespaced: true, shortNames: ['pdb'], categories: [], verbs: standardVerbs,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available.', priority: 0, cell: (o) => intOrStringCell(path(o, 'spec', 'minAvailable')) },
      { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable.', priority: 0, cell: (o) => intOrStringCell(path(o, 'spec', 'maxUnavailable')) },
      { name: 'Allowed Disruptions', type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.', priority: 0, cell: (o) => Number(path(o, 'status', 'disruptionsAllowed') ?? 0) },
      ageColumn,
    ],
    strategy: pdbStrategy,
    schema: schemaOf('k8s.io.api.policy.v1.PodDisruptionBudget'),
  },
];
