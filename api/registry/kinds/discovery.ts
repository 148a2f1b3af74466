// Owns: discovery.k8s.io/v1 EndpointSlices: names as kube-apiserver 1.33 serves them, kube's
// printer columns (printers-networking.ts), schema and strategy (strategy-networking.ts).
import type { ResourceKind } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import { endpointSliceEndpoints, endpointSlicePorts } from '../printers-networking.ts';
import { stringOf } from '../printers.ts';
import { endpointSliceStrategy } from '../strategy-networking.ts';

export const discoveryKinds: readonly ResourceKind[] = [
  {
    group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', singular: 'endpointslice', kind: 'EndpointSlice',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'AddressType', type: 'string', description: 'The type of the addresses in the slice (IPv4, IPv6 or FQDN).', priority: 0, cell: (o) => stringOf(o['addressType']) },
      { name: 'Ports', type: 'string', description: 'The ports every endpoint of the slice serves.', priority: 0, cell: (o) => endpointSlicePorts(o) },
      { name: 'Endpoints', type: 'string', description: 'The addresses of the endpoints in the slice.', priority: 0, cell: (o) => endpointSliceEndpoints(o) },
      ageColumn,
    ],
    strategy: endpointSliceStrategy,
    schema: schemaOf('k8s.io.api.discovery.v1.EndpointSlice'),
  },
];
