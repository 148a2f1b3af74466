// Owns: coordination.k8s.io/v1 Leases (leader election): names, the Holder column, schema and strategy.
import type { ResourceKind } from '../kind.ts';
import { nestedValue as nested, schemaOf, standardVerbs, stringCell } from '../kind.ts';
import { leaseStrategy } from '../strategy.ts';

export const coordinationKinds: readonly ResourceKind[] = [
  {
    group: 'coordination.k8s.io', version: 'v1', resource: 'leases', singular: 'lease', kind: 'Lease',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Holder', type: 'string', description: 'The holder of the lease', priority: 0,
      cell: (o) => stringCell(nested(o, 'spec', 'holderIdentity')) }],
    strategy: leaseStrategy,
    schema: schemaOf('k8s.io.api.coordination.v1.Lease'),
  },
];
