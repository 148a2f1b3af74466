// Owns: the JSON schemas of rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and
// ClusterRoleBinding (k8s.io/api rbac/v1 types.go), in the type-level style of schemas.ts:
// every field listed, kube's required fields and list extensions for OpenAPI. Semantic rules
// (verbs required, roleRef kinds, subject kinds, roleRef immutable) are in strategy-rbac.ts.
import { atomicList, kindSchema, labelSelector, nameDefinitions, object, string as str } from './schemas.ts';
import type { JsonSchema } from './schemas.ts';

export const policyRuleSchema: JsonSchema = object({
  verbs: atomicList(str), apiGroups: atomicList(str), resources: atomicList(str),
  resourceNames: atomicList(str), nonResourceURLs: atomicList(str),
}, 'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.', ['verbs']);

const subjectSchema: JsonSchema = {
  ...object({ kind: str, apiGroup: str, name: str, namespace: str },
    'Subject contains a reference to the object or user identities a role binding applies to.  This can either hold a direct API object reference, or a value for non-objects such as user and group names.',
    ['kind', 'name']),
  'x-kubernetes-map-type': 'atomic',
};

const roleRefSchema: JsonSchema = {
  ...object({ apiGroup: str, kind: str, name: str }, 'RoleRef contains information that points to the role being used', ['apiGroup', 'kind', 'name']),
  'x-kubernetes-map-type': 'atomic',
};

const aggregationRuleSchema: JsonSchema = object({ clusterRoleSelectors: atomicList(labelSelector) },
  'AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole');

// kube's OpenAPI names, so kubectl explain prints <[]PolicyRule>, <RoleRef>, ...
nameDefinitions('io.k8s.api.rbac.v1', { PolicyRule: policyRuleSchema, Subject: subjectSchema, RoleRef: roleRefSchema, AggregationRule: aggregationRuleSchema });

export const rbacKindSchemas = {
  Role: kindSchema({ rules: atomicList(policyRuleSchema) },
    'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.'),
  ClusterRole: kindSchema({ rules: atomicList(policyRuleSchema), aggregationRule: aggregationRuleSchema },
    'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.'),
  RoleBinding: kindSchema({ subjects: atomicList(subjectSchema), roleRef: roleRefSchema },
    'RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which namespace it exists in.  RoleBindings in a given namespace only have effect in that namespace.',
    ['roleRef']),
  ClusterRoleBinding: kindSchema({ subjects: atomicList(subjectSchema), roleRef: roleRefSchema },
    'ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
    ['roleRef']),
} as const satisfies Record<string, JsonSchema>;
