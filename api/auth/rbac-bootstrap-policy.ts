// Owns: kube-apiserver's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/
// policy.go): the default ClusterRoles (cluster-admin; admin, edit and view built by aggregation
// from system:aggregate-to-*; system:discovery, system:basic-user, system:public-info-viewer;
// the system components' roles) and ClusterRoleBindings, each labelled
// kubernetes.io/bootstrapping=rbac-defaults and annotated
// rbac.authorization.kubernetes.io/autoupdate=true. deploy/rbac-bootstrap.ts keeps them present.
// Data only. Roles of kube-controller-manager's per-controller service accounts
// (controller_policy.go) are left out: kstore's controllers propose to the store in-process
// and never pass through authorization.
import type { PolicyRule } from './rbac-rules.ts';
import { nodeRules } from './node-authorizer.ts';

export const bootstrapLabel = { 'kubernetes.io/bootstrapping': 'rbac-defaults' } as const;
export const autoUpdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';

const read = ['get', 'list', 'watch'];
const write = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const readWrite = [...read, ...write];
const readUpdate = ['get', 'list', 'watch', 'update', 'patch'];

function rule(verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[], resourceNames?: readonly string[]): PolicyRule {
  return { verbs: [...verbs], apiGroups: [...apiGroups], resources: [...resources], ...(resourceNames ? { resourceNames: [...resourceNames] } : {}) };
}

function urls(verbs: readonly string[], nonResourceURLs: readonly string[]): PolicyRule {
  return { verbs: [...verbs], nonResourceURLs: [...nonResourceURLs] };
}

const eventsRule = rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);

export interface BootstrapClusterRole {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly rules?: readonly PolicyRule[];
  /** matchLabels of each clusterRoleSelector. */
  readonly aggregateFrom?: readonly Readonly<Record<string, string>>[];
}

export interface BootstrapClusterRoleBinding {
  readonly name: string;
  readonly role: string;
  readonly subjects: readonly { readonly kind: 'User' | 'Group' | 'ServiceAccount'; readonly name: string; readonly namespace?: string }[];
}

const aggregateTo = (role: string) => ({ [`rbac.authorization.k8s.io/aggregate-to-${role}`]: 'true' });

export const bootstrapClusterRoles: readonly BootstrapClusterRole[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  { name: 'system:discovery', rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'])] },
  { name: 'system:monitoring', rules: [urls(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])] },
  { name: 'system:basic-user', rules: [rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])] },
  { name: 'system:public-info-viewer', rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])] },
  { name: 'admin', aggregateFrom: [aggregateTo('admin')] },
  { name: 'edit', labels: aggregateTo('admin'), aggregateFrom: [aggregateTo('edit')] },
  { name: 'view', labels: aggregateTo('edit'), aggregateFrom: [aggregateTo('view')] },
  {
    name: 'system:aggregate-to-admin', labels: aggregateTo('admin'),
    rules: [
      rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
      rule(readWrite, ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']),
    ],
  },
  {
    name: 'system:aggregate-to-edit', labels: aggregateTo('edit'),
    rules: [
      rule(read, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(write, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [''], ['pods/eviction']),
      rule(write, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(write, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
      rule(write, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(write, ['batch'], ['jobs', 'cronjobs']),
      rule(write, ['extensions'], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(write, ['policy'], ['poddisruptionbudgets']),
      rule(write, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
      rule(write, ['coordination.k8s.io'], ['leases']),
    ],
  },
  {
    name: 'system:aggregate-to-view', labels: aggregateTo('view'),
    rules: [
      rule(read, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(read, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
      rule(read, [''], ['namespaces']),
      rule(read, ['discovery.k8s.io'], ['endpointslices']),
      rule(read, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
      rule(read, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(read, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(read, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(read, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(read, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
      rule(read, ['coordination.k8s.io'], ['leases']),
      rule(read, ['events.k8s.io'], ['events']),
    ],
  },
  // kube's system:node role is its node authorizer's static rules (bootstrappolicy.NodeRules()).
  { name: 'system:node', rules: nodeRules() },
  {
    name: 'system:node-proxier',
    rules: [rule(['list', 'watch'], [''], ['services', 'endpoints']), rule(read, [''], ['nodes']), eventsRule, rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices'])],
  },
  {
    name: 'system:auth-delegator',
    rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])],
  },
  {
    name: 'system:kube-controller-manager',
    rules: [
      eventsRule,
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
      rule(['create'], [''], ['secrets', 'serviceaccounts']),
      rule(['delete'], [''], ['secrets']),
      rule(['get'], [''], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
      rule(['update'], [''], ['secrets', 'serviceaccounts']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [''], ['serviceaccounts/token']),
    ],
  },
  {
    name: 'system:kube-scheduler',
    rules: [
      eventsRule,
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
      rule(read, [''], ['nodes']),
      rule(['get', 'list', 'watch', 'delete'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding', 'bindings']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(read, [''], ['replicationcontrollers', 'services']),
      rule(read, ['apps', 'extensions'], ['replicasets']),
      rule(read, ['apps'], ['statefulsets']),
      rule(read, ['policy'], ['poddisruptionbudgets']),
      rule(read, [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(read, ['storage.k8s.io'], ['csinodes', 'csidrivers', 'csistoragecapacities']),
      rule(read, [''], ['namespaces', 'configmaps']),
    ],
  },
  {
    name: 'system:volume-scheduler',
    rules: [rule(readUpdate, [''], ['persistentvolumes']), rule(read, ['storage.k8s.io'], ['storageclasses']), rule(readUpdate, [''], ['persistentvolumeclaims'])],
  },
  { name: 'system:kube-dns', rules: [rule(['list', 'watch'], [''], ['endpoints', 'services'])] },
  { name: 'system:node-bootstrapper', rules: [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])] },
  // What csrapproving asks before it approves a kubelet's client certificate request.
  { name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', rules: [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', rules: [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])] },
  { name: 'system:service-account-issuer-discovery', rules: [urls(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])] },
];

export const bootstrapClusterRoleBindings: readonly BootstrapClusterRoleBinding[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [{ kind: 'Group', name: 'system:masters' }] },
  { name: 'system:monitoring', role: 'system:monitoring', subjects: [{ kind: 'Group', name: 'system:monitoring' }] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [{ kind: 'Group', name: 'system:authenticated' }] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [{ kind: 'Group', name: 'system:authenticated' }] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: [{ kind: 'Group', name: 'system:authenticated' }, { kind: 'Group', name: 'system:unauthenticated' }] },
  { name: 'system:service-account-issuer-discovery', role: 'system:service-account-issuer-discovery', subjects: [{ kind: 'Group', name: 'system:serviceaccounts' }] },
  { name: 'system:node-proxier', role: 'system:node-proxier', subjects: [{ kind: 'User', name: 'system:kube-proxy' }] },
  { name: 'system:kube-controller-manager', role: 'system:kube-controller-manager', subjects: [{ kind: 'User', name: 'system:kube-controller-manager' }] },
  { name: 'system:kube-dns', role: 'system:kube-dns', subjects: [{ kind: 'ServiceAccount', name: 'kube-dns', namespace: 'kube-system' }] },
  { name: 'system:kube-scheduler', role: 'system:kube-scheduler', subjects: [{ kind: 'User', name: 'system:kube-scheduler' }] },
  { name: 'system:volume-scheduler', role: 'system:volume-scheduler', subjects: [{ kind: 'User', name: 'system:kube-scheduler' }] },
  { name: 'system:node', role: 'system:node', subjects: [] },
];

function subjectObject(subject: BootstrapClusterRoleBinding['subjects'][number]): Record<string, string> {
  return subject.kind === 'ServiceAccount'
    ? { kind: subject.kind, name: subject.name, namespace: subject.namespace ?? '' }
    : { kind: subject.kind, apiGroup: 'rbac.authorization.k8s.io', name: subject.name };
}

/** The ClusterRole object (without uid/timestamps) the policy wants. */
export function clusterRoleObject(role: BootstrapClusterRole): Record<string, unknown> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
    metadata: { name: role.name, labels: { ...role.labels, ...bootstrapLabel }, annotations: { [autoUpdateAnnotation]: 'true' } },
    ...(role.aggregateFrom ? { aggregationRule: { clusterRoleSelectors: role.aggregateFrom.map((matchLabels) => ({ matchLabels: { ...matchLabels } })) } } : {}),
    rules: (role.rules ?? []).map((policyRule) => structuredClone(policyRule)),
  };
}

export function clusterRoleBindingObject(binding: BootstrapClusterRoleBinding): Record<string, unknown> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
    metadata: { name: binding.name, labels: { ...bootstrapLabel }, annotations: { [autoUpdateAnnotation]: 'true' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: binding.role },
    subjects: binding.subjects.map(subjectObject),
  };
}
