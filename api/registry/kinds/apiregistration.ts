// Owns: apiregistration.k8s.io/v1 APIServices (kube-aggregator's kind, with its status
// subresource): names (category api-extensions), the aggregator's table (Service, Available),
// schema and strategy (strategy-apiregistration.ts). The local APIServices of the served
// group/versions are kept by deploy/apiservice-bootstrap.ts; kstore proxies to no aggregated
// server.
import type { ResourceKind } from '../kind.ts';
import { schemaOf, standardVerbs } from '../kind.ts';
import { apiServiceAvailableCell, apiServiceServiceCell } from '../printers-control.ts';
import { apiServiceStrategy } from '../strategy-apiregistration.ts';

export const apiregistrationKinds: readonly ResourceKind[] = [
  {
    group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', singular: 'apiservice', kind: 'APIService',
    namespaced: false, shortNames: [], categories: ['api-extensions'], verbs: standardVerbs,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    nameRule: 'pathSegment',
    columns: [
      { name: 'Service', type: 'string', priority: 0, description: 'The reference to the service that hosts this API endpoint.', cell: (o) => apiServiceServiceCell(o) },
      { name: 'Available', type: 'string', priority: 0, description: 'Whether this service is available.', cell: (o) => apiServiceAvailableCell(o) },
    ],
    strategy: apiServiceStrategy,
    schema: schemaOf('k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService'),
  },
];
