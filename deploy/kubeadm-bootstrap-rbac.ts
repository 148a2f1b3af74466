// Owns: the RBAC objects `kubeadm init` creates so nodes can join with a bootstrap token
// (kube's cmd/kubeadm/app/phases/bootstraptoken/node/tlsbootstrap.go and clusterinfo), for a
// server with bootstrap token authentication on:
//  - ClusterRoleBinding kubeadm:kubelet-bootstrap: group system:bootstrappers:kubeadm:default-node-token
//    → ClusterRole system:node-bootstrapper (post CSRs);
//  - ClusterRole and ClusterRoleBinding kubeadm:get-nodes: that group may get nodes;
//  - ClusterRoleBinding kubeadm:node-autoapprove-bootstrap: that group → ClusterRole
//    system:certificates.k8s.io:certificatesigningrequests:nodeclient (csrapproving approves);
//  - ClusterRoleBinding kubeadm:node-autoapprove-certificate-rotation: group system:nodes →
//    ClusterRole system:certificates.k8s.io:certificatesigningrequests:selfnodeclient (renewals);
//  - Role and RoleBinding kubeadm:bootstrap-signer-clusterinfo in kube-public: user
//    system:anonymous may get the cluster-info ConfigMap.
// As kubeadm's CreateOrUpdate: created when missing, and an existing one is given kubeadm's
// rules or subjects again (with a resourceVersion precondition; a binding's roleRef is immutable,
// so one pointing elsewhere is an error). kubeadm does this once (init, upgrade); here once per
// start, retried until it succeeds (the store may have no leader yet).
import { randomUUID } from 'node:crypto';
import { formatTime } from '../api/index.ts';
import type { StoreClient } from '../api/index.ts';
import type { KubeObject, ObjectKey } from '../actors/index.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
const rbacApiVersion = `${rbacGroup}/v1`;
const identity = 'system:apiserver';

/** kubeadm's constants.NodeBootstrapTokenAuthGroup. */
export const nodeBootstrapTokenAuthGroup = 'system:bootstrappers:kubeadm:default-node-token';
export const nodesGroup = 'system:nodes';
export const nodeBootstrapperClusterRole = 'system:node-bootstrapper';
export const nodeClientApprovalClusterRole = 'system:certificates.k8s.io:certificatesigningrequests:nodeclient';
export const selfNodeClientApprovalClusterRole = 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient';
export const clusterInfoRoleName = 'kubeadm:bootstrap-signer-clusterinfo';

interface Subject {
  readonly kind: 'Group' | 'User';
  readonly name: string;
}

type Wanted = { readonly key: ObjectKey; readonly object: KubeObject };

function subject(kind: Subject['kind'], name: string): Record<string, string> {
  // What the API server's defaulting gives a kubeadm Subject (apiGroup for User and Group).
  return { kind, apiGroup: rbacGroup, name };
}

function clusterRoleBinding(name: string, role: string, subjects: readonly Subject[]): Wanted {
  return {
    key: { group: rbacGroup, resource: 'clusterrolebindings', namespace: '', name },
    object: {
      apiVersion: rbacApiVersion, kind: 'ClusterRoleBinding', metadata: { name },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role }, subjects: subjects.map((entry) => subject(entry.kind, entry.name)),
    },
  };
}

/** Every object kubeadm creates for bootstrap-token joins, in kubeadm's order. */
export function kubeadmBootstrapRbacObjects(): Wanted[] {
  const bootstrappers: Subject[] = [{ kind: 'Group', name: nodeBootstrapTokenAuthGroup }];
  return [
    clusterRoleBinding('kubeadm:kubelet-bootstrap', nodeBootstrapperClusterRole, bootstrappers),
    {
      key: { group: rbacGroup, resource: 'clusterroles', namespace: '', name: 'kubeadm:get-nodes' },
      object: { apiVersion: rbacApiVersion, kind: 'ClusterRole', metadata: { name: 'kubeadm:get-nodes' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }] },
    },
    clusterRoleBinding('kubeadm:get-nodes', 'kubeadm:get-nodes', bootstrappers),
    clusterRoleBinding('kubeadm:node-autoapprove-bootstrap', nodeClientApprovalClusterRole, bootstrappers),
    clusterRoleBinding('kubeadm:node-autoapprove-certificate-rotation', selfNodeClientApprovalClusterRole, [{ kind: 'Group', name: nodesGroup }]),
    {
      key: { group: rbacGroup, resource: 'roles', namespace: 'kube-public', name: clusterInfoRoleName },
      object: {
        apiVersion: rbacApiVersion, kind: 'Role', metadata: { name: clusterInfoRoleName, namespace: 'kube-public' },
        rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }],
      },
    },
    {
      key: { group: rbacGroup, resource: 'rolebindings', namespace: 'kube-public', name: clusterInfoRoleName },
      object: {
        apiVersion: rbacApiVersion, kind: 'RoleBinding', metadata: { name: clusterInfoRoleName, namespace: 'kube-public' },
        roleRef: { apiGroup: rbacGroup, kind: 'Role', name: clusterInfoRoleName }, subjects: [subject('User', 'system:anonymous')],
      },
    },
  ];
}

/** The ClusterRoles kubeadm's bindings name that the API server's default policy must provide. */
export const kubeadmReferencedClusterRoles: readonly string[] = [nodeBootstrapperClusterRole, nodeClientApprovalClusterRole, selfNodeClientApprovalClusterRole];

type Client = Pick<StoreClient, 'get' | 'propose' | 'readIndex'>;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

async function ensureOne(client: Client, { key, object }: Wanted): Promise<'created' | 'updated' | 'unchanged'> {
  const at = formatTime(new Date());
  const current = client.get(key);
  const what = `${key.resource} ${key.namespace === '' ? '' : `${key.namespace}/`}${key.name}`;
  if (current === undefined) {
    const metadata = { ...object.metadata, uid: randomUUID(), creationTimestamp: at };
    const result = await client.propose({ type: 'create', key, object: { ...object, metadata }, at, by: identity });
    if (result.type === 'stored' || result.type === 'alreadyExists') return 'created';
    throw new Error(`could not create ${what}: ${result.type}`);
  }
  if (current.metadata.deletionTimestamp !== undefined) throw new Error(`${what} is being deleted`);
  const field = object['rules'] === undefined ? 'subjects' : 'rules';
  if (object['roleRef'] !== undefined && !same(current['roleRef'], object['roleRef'])) throw new Error(`${what} refers to another role; its roleRef cannot change`);
  if (same(current[field], object[field])) return 'unchanged';
  const updated = { ...structuredClone(current), [field]: object[field] } as KubeObject;
  const result = await client.propose({ type: 'update', key, object: updated, at, by: identity, preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' } });
  if (result.type !== 'stored') throw new Error(`could not update ${what}: ${result.type}`);
  return 'updated';
}

/** One round over kubeadm's objects; throws on the first that cannot be created or updated. */
export async function ensureKubeadmBootstrapRbac(client: Client, log: (message: string) => void = () => {}): Promise<void> {
  await client.readIndex();
  for (const wanted of kubeadmBootstrapRbacObjects()) {
    const outcome = await ensureOne(client, wanted);
    if (outcome !== 'unchanged') log(`kubeadm bootstrap RBAC: ${outcome} ${wanted.object.kind} ${wanted.key.namespace === '' ? '' : `${wanted.key.namespace}/`}${wanted.key.name}`);
  }
}

export const kubeadmBootstrapRbacRetryMs = 1_000;

/** Runs ensureKubeadmBootstrapRbac until one round succeeds (retried every second), then stops. */
export function keepKubeadmBootstrapRbac(client: Client, log: (message: string) => void): { stop(): void } {
  let stopped = false;
  let lastProblem = '';
  let timer: NodeJS.Timeout | undefined;
  const attempt = (): void => {
    ensureKubeadmBootstrapRbac(client, log).catch((error: unknown) => {
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== lastProblem) log(`kubeadm bootstrap RBAC: ${problem}; retrying`);
      lastProblem = problem;
      if (stopped) return;
      timer = setTimeout(attempt, kubeadmBootstrapRbacRetryMs);
      timer.unref();
    });
  };
  attempt();
  return { stop: () => { stopped = true; clearTimeout(timer); } };
}
