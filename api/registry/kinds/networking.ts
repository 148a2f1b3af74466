// Owns: the networking.k8s.io/v1 kinds kstore serves (Ingress, IngressClass, NetworkPolicy,
// IPAddress, ServiceCIDR): names, scope and subresources as kube-apiserver 1.33 serves them,
// kube's printer columns (printers-networking.ts), schema and strategy (strategy-networking.ts).
import type { ResourceKind } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import {
  ingressAddress, ingressClassName, ingressClassParameters, ingressHosts, ingressPorts, ipAddressParent, networkPolicyPodSelector, serviceCidrs,
} from '../printers-networking.ts';
import { nested as path, stringOf } from '../printers.ts';
import { ingressClassStrategy, ingressStrategy, ipAddressStrategy, networkPolicyStrategy, serviceCidrStrategy } from '../strategy-networking.ts';

const common = { group: 'networking.k8s.io', version: 'v1', categories: [], verbs: standardVerbs, tableLayout: 'columnsOnly' } as const;

export const networkingKinds: readonly ResourceKind[] = [
  {
    ...common, resource: 'ingressclasses', singular: 'ingressclass', kind: 'IngressClass', namespaced: false, shortNames: [],
    nameRule: 'dns1123Subdomain',
    columns: [
      nameColumn,
      { name: 'Controller', type: 'string', description: 'Controller that is responsible for handling this class', priority: 0, cell: (o) => stringOf(path(o, 'spec', 'controller')) },
      { name: 'Parameters', type: 'string', description: 'A reference to a resource with additional parameters', priority: 0, cell: (o) => ingressClassParameters(o) },
      ageColumn,
    ],
    strategy: ingressClassStrategy,
    schema: schemaOf('k8s.io.api.networking.v1.IngressClass'),
  },
  {
    ...common, resource: 'ingresses', singular: 'ingress', kind: 'Ingress', namespaced: true, shortNames: ['ing'],
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    nameRule: 'dns1123Subdomain',
    columns: [
      nameColumn,
      { name: 'Class', type: 'string', description: 'The name of the IngressClass resource that should be used for additional configuration', priority: 0, cell: (o) => ingressClassName(o) },
      { name: 'Hosts', type: 'string', description: 'Hosts that incoming requests are matched against before the ingress rule', priority: 0, cell: (o) => ingressHosts(o) },
      { name: 'Address', type: 'string', description: 'Address is a list containing ingress points for the load-balancer', priority: 0, cell: (o) => ingressAddress(o) },
      { name: 'Ports', type: 'string', description: 'Ports of TLS configurations that open', priority: 0, cell: (o) => ingressPorts(o) },
      ageColumn,
    ],
    strategy: ingressStrategy,
    schema: schemaOf('k8s.io.api.networking.v1.Ingress'),
  },
  {
    ...common, resource: 'ipaddresses', singular: 'ipaddress', kind: 'IPAddress', namespaced: false, shortNames: ['ip'],
    // The name is an IP address in canonical form; the strategy checks it (kube's ValidateIPAddressName).
    nameRule: 'pathSegment',
    columns: [
      nameColumn,
      { name: 'ParentRef', type: 'string', description: 'The object the address is allocated to.', priority: 0, cell: (o) => ipAddressParent(o) },
    ],
    strategy: ipAddressStrategy,
    schema: schemaOf('k8s.io.api.networking.v1.IPAddress'),
  },
  {
    ...common, resource: 'networkpolicies', singular: 'networkpolicy', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'],
    nameRule: 'dns1123Subdomain',
    columns: [
      nameColumn,
      { name: 'Pod-Selector', type: 'string', description: 'The pods the policy applies to, as a label selector.', priority: 0, cell: (o) => networkPolicyPodSelector(o) },
      ageColumn,
    ],
    strategy: networkPolicyStrategy,
    schema: schemaOf('k8s.io.api.networking.v1.NetworkPolicy'),
  },
  {
    ...common, resource: 'servicecidrs', singular: 'servicecidr', kind: 'ServiceCIDR', namespaced: false, shortNames: [],
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    nameRule: 'dns1123Subdomain',
    columns: [
      nameColumn,
      { name: 'CIDRs', type: 'string', description: 'The IP ranges Service cluster IPs are allocated from.', priority: 0, cell: (o) => serviceCidrs(o) },
      ageColumn,
    ],
    strategy: serviceCidrStrategy,
    schema: schemaOf('k8s.io.api.networking.v1.ServiceCIDR'),
  },
];
