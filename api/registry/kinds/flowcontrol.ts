// Owns: the flowcontrol.apiserver.k8s.io/v1 kinds (FlowSchema, PriorityLevelConfiguration, each
// with its status subresource): names, kube's printer columns, schema and strategy
// (strategy-flowcontrol.ts). The objects are stored and validated; priority and fairness is not
// enforced yet. kube's bootstrap objects are created by deploy/flowcontrol-bootstrap.ts.
import type { ResourceKind } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import { distinguisherMethodCell, missingPriorityLevelCell, priorityLevelCell } from '../printers-control.ts';
import { stringOf, nested as path } from '../printers.ts';
import { flowSchemaStrategy, priorityLevelConfigurationStrategy } from '../strategy-flowcontrol.ts';

const common = {
  group: 'flowcontrol.apiserver.k8s.io', version: 'v1', namespaced: false, shortNames: [], categories: [], verbs: standardVerbs,
  subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }], nameRule: 'dns1123Subdomain',
} as const;

export const flowcontrolKinds: readonly ResourceKind[] = [
  {
    ...common, resource: 'flowschemas', singular: 'flowschema', kind: 'FlowSchema',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'PriorityLevel', type: 'string', priority: 0, description: 'The name of the priority level the matching requests are assigned to.', cell: (o) => stringOf(path(o, 'spec', 'priorityLevelConfiguration', 'name')) },
      { name: 'MatchingPrecedence', type: 'string', priority: 0, description: 'The order in which the schema is tried: lower values first.', cell: (o) => Number(path(o, 'spec', 'matchingPrecedence') ?? 0) },
      { name: 'DistinguisherMethod', type: 'string', priority: 0, description: 'How matching requests are divided into flows ("*": one flow).', cell: (o) => distinguisherMethodCell(o) },
      ageColumn,
      { name: 'MissingPL', type: 'string', priority: 0, description: 'references a broken or non-existent PriorityLevelConfiguration', cell: (o) => missingPriorityLevelCell(o) },
    ],
    strategy: flowSchemaStrategy,
    schema: schemaOf('k8s.io.api.flowcontrol.v1.FlowSchema'),
  },
  {
    ...common, resource: 'prioritylevelconfigurations', singular: 'prioritylevelconfiguration', kind: 'PriorityLevelConfiguration',
    columns: [
      { name: 'Type', type: 'string', priority: 0, description: 'Whether the level is Exempt or Limited.', cell: (o) => stringOf(path(o, 'spec', 'type')) },
      { name: 'NominalConcurrencyShares', type: 'string', priority: 0, description: 'The share of the server\'s concurrency limit a limited level is given.', cell: (o) => priorityLevelCell(o, 'nominalConcurrencyShares') },
      { name: 'Queues', type: 'string', priority: 0, description: 'The number of queues of a queuing level.', cell: (o) => priorityLevelCell(o, 'queues') },
      { name: 'HandSize', type: 'string', priority: 0, description: 'How many queues a flow is shuffle-sharded over.', cell: (o) => priorityLevelCell(o, 'handSize') },
      { name: 'QueueLengthLimit', type: 'string', priority: 0, description: 'The most requests one queue holds.', cell: (o) => priorityLevelCell(o, 'queueLengthLimit') },
    ],
    strategy: priorityLevelConfigurationStrategy,
    schema: schemaOf('k8s.io.api.flowcontrol.v1.PriorityLevelConfiguration'),
  },
];
