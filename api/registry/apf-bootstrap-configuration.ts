// Owns: kube-apiserver 1.33's API priority and fairness bootstrap configuration as data: the
// mandatory PriorityLevelConfigurations (exempt, catch-all) and FlowSchemas (exempt, catch-all),
// whose spec validation holds fixed, and the suggested ones (system, node-high, leader-election,
// workload-high, workload-low, global-default; probes, system-nodes, …), each annotated
// apf.kubernetes.io/autoupdate-spec=true. deploy/flowcontrol-bootstrap.ts keeps them in the
// store; strategy-flowcontrol.ts checks the mandatory specs.
import type { JsonValue } from '../../actors/index.ts';

type Fields = Record<string, JsonValue>;

/** The annotation whose "true" lets the API server keep an object's spec at the bootstrap value. */
export const apfAutoUpdateAnnotation = 'apf.kubernetes.io/autoupdate-spec';

export interface ApfBootstrapObject {
  readonly metadata: { readonly name: string; readonly annotations: Readonly<Record<string, string>> };
  readonly spec: Fields;
}

function object(name: string, spec: Fields): ApfBootstrapObject {
  return { metadata: { name, annotations: { [apfAutoUpdateAnnotation]: 'true' } }, spec };
}

const kubeSystem = 'kube-system';

function groups(...names: string[]): Fields[] {
  return names.map((name) => ({ kind: 'Group', group: { name } }));
}

function users(...names: string[]): Fields[] {
  return names.map((name) => ({ kind: 'User', user: { name } }));
}

function kubeSystemServiceAccounts(...names: string[]): Fields[] {
  return names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { name, namespace: kubeSystem } }));
}

/** A resource rule; clusterScope false is left out, as kube's JSON omits it. */
function resourceRule(verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): Fields {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope: true } : {}), namespaces };
}

function nonResourceRule(verbs: string[], nonResourceURLs: string[]): Fields {
  return { verbs, nonResourceURLs };
}

const everything = resourceRule(['*'], ['*'], ['*'], ['*'], true);
const everyPath = nonResourceRule(['*'], ['*']);

function flowSchema(name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: string, rules: Fields): ApfBootstrapObject {
  return object(name, {
    priorityLevelConfiguration: { name: priorityLevel },
    matchingPrecedence,
    ...(distinguisher === '' ? {} : { distinguisherMethod: { type: distinguisher } }),
    rules: [rules],
  });
}

function limited(nominalConcurrencyShares: number, lendablePercent: number, queuing?: { queues: number; handSize: number; queueLengthLimit: number }): Fields {
  return {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares,
      limitResponse: queuing === undefined ? { type: 'Reject' } : { type: 'Queue', queuing },
      lendablePercent,
    },
  };
}

export const mandatoryPriorityLevels: readonly ApfBootstrapObject[] = [
  object('catch-all', limited(5, 0)),
  object('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

export const mandatoryFlowSchemas: readonly ApfBootstrapObject[] = [
  flowSchema('exempt', 'exempt', 1, '', { subjects: groups('system:masters'), resourceRules: [everything], nonResourceRules: [everyPath] }),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', {
    subjects: groups('system:unauthenticated', 'system:authenticated'), resourceRules: [everything], nonResourceRules: [everyPath],
  }),
];

export const suggestedPriorityLevels: readonly ApfBootstrapObject[] = [
  object('system', limited(30, 33, { queues: 64, handSize: 6, queueLengthLimit: 50 })),
  object('node-high', limited(40, 25, { queues: 64, handSize: 6, queueLengthLimit: 50 })),
  object('leader-election', limited(10, 0, { queues: 16, handSize: 4, queueLengthLimit: 50 })),
  object('workload-high', limited(40, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 })),
  object('workload-low', limited(100, 90, { queues: 128, handSize: 6, queueLengthLimit: 50 })),
  object('global-default', limited(20, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 })),
];

const getCreateUpdate = ['get', 'create', 'update'];

export const suggestedFlowSchemas: readonly ApfBootstrapObject[] = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', { subjects: groups('system:nodes'), resourceRules: [everything], nonResourceRules: [everyPath] }),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [
      resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true),
      resourceRule(['*'], ['coordination.k8s.io'], ['leases'], ['*'], false),
    ],
  }),
  flowSchema('probes', 'exempt', 2, '', {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [nonResourceRule(['get'], ['/healthz', '/readyz', '/livez'])],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts('*')],
    resourceRules: [resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], ['*'], false)],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts('*'),
    resourceRules: [
      resourceRule(getCreateUpdate, [''], ['endpoints', 'configmaps'], ['*'], false),
      resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], ['*'], false),
    ],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users('system:kube-controller-manager'), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints'], ['*'], false)],
  }),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', {
    subjects: users('system:kube-controller-manager'), resourceRules: [everything], nonResourceRules: [everyPath],
  }),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', {
    subjects: users('system:kube-scheduler'), resourceRules: [everything], nonResourceRules: [everyPath],
  }),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', {
    subjects: kubeSystemServiceAccounts('*'), resourceRules: [everything], nonResourceRules: [everyPath],
  }),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', {
    subjects: groups('system:serviceaccounts'), resourceRules: [everything], nonResourceRules: [everyPath],
  }),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', {
    subjects: groups('system:unauthenticated', 'system:authenticated'), resourceRules: [everything], nonResourceRules: [everyPath],
  }),
];
