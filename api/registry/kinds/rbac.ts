// Owns: the rbac.authorization.k8s.io/v1 kinds (Role, ClusterRole and their bindings): names,
// kube's printers, schema and strategy (strategy-rbac.ts).
import type { ResourceKind, TableColumn } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import { bindingSubjects, nested as path, roleRefCell, stringOf } from '../printers.ts';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from '../strategy-rbac.ts';

/** rbac.authorization.k8s.io/v1: kube's printers (Role/ClusterRole: Name, Created At; bindings: Name, Role, Age; wide: Users, Groups, ServiceAccounts). */
function rbacKindList(): ResourceKind[] {
  const createdAt: TableColumn = {
    name: 'Created At', type: 'date', priority: 0,
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
    cell: (o) => stringOf(path(o, 'metadata', 'creationTimestamp')),
  };
  const bindingColumns: readonly TableColumn[] = [
    nameColumn,
    { name: 'Role', type: 'string', description: 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.', priority: 0, cell: (o) => roleRefCell(o) },
    ageColumn,
    { name: 'Users', type: 'string', description: 'Users in the roleBinding', priority: 1, cell: (o) => bindingSubjects(o, 'User') },
    { name: 'Groups', type: 'string', description: 'Groups in the roleBinding', priority: 1, cell: (o) => bindingSubjects(o, 'Group') },
    { name: 'ServiceAccounts', type: 'string', description: 'ServiceAccounts in the roleBinding', priority: 1, cell: (o) => bindingSubjects(o, 'ServiceAccount') },
  ];
  const common = { group: 'rbac.authorization.k8s.io', version: 'v1', shortNames: [], categories: [], verbs: standardVerbs, nameRule: 'pathSegment', tableLayout: 'columnsOnly' } as const;
  return [
    { ...common, resource: 'clusterrolebindings', singular: 'clusterrolebinding', kind: 'ClusterRoleBinding', namespaced: false, columns: bindingColumns, strategy: clusterRoleBindingStrategy, schema: schemaOf('k8s.io.api.rbac.v1.ClusterRoleBinding') },
    { ...common, resource: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole', namespaced: false, columns: [nameColumn, createdAt], strategy: clusterRoleStrategy, schema: schemaOf('k8s.io.api.rbac.v1.ClusterRole') },
    { ...common, resource: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding', namespaced: true, columns: bindingColumns, strategy: roleBindingStrategy, schema: schemaOf('k8s.io.api.rbac.v1.RoleBinding') },
    { ...common, resource: 'roles', singular: 'role', kind: 'Role', namespaced: true, columns: [nameColumn, createdAt], strategy: roleStrategy, schema: schemaOf('k8s.io.api.rbac.v1.Role') },
  ];
}

export const rbacKinds: readonly ResourceKind[] = rbacKindList();
