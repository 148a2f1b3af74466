// Owns: the create/update rules of rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding
// and ClusterRoleBinding as kube-apiserver has them (pkg/apis/rbac/validation and the v1
// defaults): rules need verbs, and resources with apiGroups or nonResourceURLs (the latter only
// in ClusterRoles, never with resources); roleRef kind Role/ClusterRole (ClusterRoleBindings:
// ClusterRole only) and apiGroup rbac.authorization.k8s.io; subjects User/Group (apiGroup
// rbac.authorization.k8s.io, defaulted) or ServiceAccount (no apiGroup; a namespace in
// ClusterRoleBindings); roleRef cannot change (422 `cannot change roleRef`). Escalation checks
// (403) are api/auth/rbac-escalation.ts's, before these run.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, nameProblems } from './validation.ts';

export const rbacGroup = 'rbac.authorization.k8s.io';

type Fields = Record<string, JsonValue>;

function fields(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Fields : {};
}

function records(value: unknown): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object' && !Array.isArray(item)) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function stringField(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: detail === '' ? 'Required value' : `Required value: ${detail}`, field };
}

function notSupported(field: string, value: string, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`, field };
}

/** ValidatePolicyRule. */
function ruleCauses(rule: Fields, namespaced: boolean, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (strings(rule['verbs']).length === 0) causes.push(required(`${field}.verbs`, 'verbs must contain at least one value'));
  const urls = strings(rule['nonResourceURLs']);
  if (urls.length > 0) {
    if (namespaced) causes.push(invalidValue(`${field}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (strings(rule['apiGroups']).length > 0 || strings(rule['resources']).length > 0 || strings(rule['resourceNames']).length > 0) {
      causes.push(invalidValue(`${field}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return causes;
  }
  if (strings(rule['apiGroups']).length === 0) causes.push(required(`${field}.apiGroups`, 'resource rules must supply at least one api group'));
  if (strings(rule['resources']).length === 0) causes.push(required(`${field}.resources`, 'resource rules must supply at least one resource'));
  return causes;
}

function rulesCauses(object: KubeObject, namespaced: boolean): StatusCause[] {
  return records(object['rules']).flatMap((rule, index) => ruleCauses(rule, namespaced, `rules[${index}]`));
}

function aggregationCauses(object: KubeObject): StatusCause[] {
  const rule = object['aggregationRule'];
  if (rule === undefined || rule === null) return [];
  return records(fields(rule)['clusterRoleSelectors']).length === 0
    ? [required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil')]
    : [];
}

/** SetDefaults_Subject and SetDefaults_RoleRef of rbac/v1. */
function defaultBinding(object: KubeObject): void {
  const roleRef = fields(object['roleRef']);
  if (object['roleRef'] !== undefined && stringField(roleRef['apiGroup']) === '') object['roleRef'] = { ...roleRef, apiGroup: rbacGroup };
  if (Array.isArray(object['subjects'])) {
    object['subjects'] = records(object['subjects']).map((subject) => {
      const kind = stringField(subject['kind']);
      if ((kind === 'User' || kind === 'Group') && stringField(subject['apiGroup']) === '') return { ...subject, apiGroup: rbacGroup };
      return subject;
    });
  }
}

/** ValidateRoleBindingSubject. */
function subjectCauses(subject: Fields, namespaced: boolean, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = stringField(subject['name']);
  const apiGroup = stringField(subject['apiGroup']);
  if (name === '') causes.push(required(`${field}.name`));
  const kind = stringField(subject['kind']);
  if (kind === 'ServiceAccount') {
    for (const problem of name === '' ? [] : nameProblems(name, 'dns1123Subdomain')) causes.push(invalidValue(`${field}.name`, name, problem));
    if (apiGroup !== '') causes.push(notSupported(`${field}.apiGroup`, apiGroup, ['']));
    if (!namespaced && stringField(subject['namespace']) === '') causes.push(required(`${field}.namespace`));
  } else if (kind === 'User' || kind === 'Group') {
    if (apiGroup !== rbacGroup) causes.push(notSupported(`${field}.apiGroup`, apiGroup, [rbacGroup]));
  } else {
    causes.push(notSupported(`${field}.kind`, kind, ['ServiceAccount', 'User', 'Group']));
  }
  return causes;
}

/** ValidateRoleBinding / ValidateClusterRoleBinding. */
function bindingCauses(object: KubeObject, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const roleRef = fields(object['roleRef']);
  const apiGroup = stringField(roleRef['apiGroup']);
  if (apiGroup !== rbacGroup) causes.push(notSupported('roleRef.apiGroup', apiGroup, [rbacGroup]));
  const kind = stringField(roleRef['kind']);
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) causes.push(notSupported('roleRef.kind', kind, kinds));
  const name = stringField(roleRef['name']);
  if (name === '') causes.push(required('roleRef.name'));
  for (const problem of name === '' ? [] : nameProblems(name, 'pathSegment')) causes.push(invalidValue('roleRef.name', name, problem));
  records(object['subjects']).forEach((subject, index) => causes.push(...subjectCauses(subject, namespaced, `subjects[${index}]`)));
  return causes;
}

/** kube prints the old and new RoleRef as Go's %#v: rbac.RoleRef{APIGroup:"…", Kind:"…", Name:"…"}. */
function goRoleRef(roleRef: Fields): string {
  return `rbac.RoleRef{APIGroup:${JSON.stringify(stringField(roleRef['apiGroup']))}, Kind:${JSON.stringify(stringField(roleRef['kind']))}, Name:${JSON.stringify(stringField(roleRef['name']))}}`;
}

function roleRefChangeCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const next = fields(object['roleRef']);
  const before = fields(old['roleRef']);
  const same = ['apiGroup', 'kind', 'name'].every((key) => stringField(next[key]) === stringField(before[key]));
  return same ? [] : [{ reason: 'FieldValueInvalid', message: `Invalid value: ${goRoleRef(next)}: cannot change roleRef`, field: 'roleRef' }];
}

export const roleStrategy: Strategy = {
  // kube: PUT creates an absent role or binding (RBAC strategies allow create on update).
  allowCreateOnUpdate: true,
  validate: (object) => rulesCauses(object, true),
};

export const clusterRoleStrategy: Strategy = {
  // kube: PUT creates an absent role or binding (RBAC strategies allow create on update).
  allowCreateOnUpdate: true,
  validate: (object) => [...rulesCauses(object, false), ...aggregationCauses(object)],
};

export const roleBindingStrategy: Strategy = {
  // kube: PUT creates an absent role or binding (RBAC strategies allow create on update).
  allowCreateOnUpdate: true,
  prepareForCreate: defaultBinding,
  prepareForUpdate: (object) => defaultBinding(object),
  validate: (object) => bindingCauses(object, true),
  validateUpdate: roleRefChangeCauses,
};

export const clusterRoleBindingStrategy: Strategy = {
  // kube: PUT creates an absent role or binding (RBAC strategies allow create on update).
  allowCreateOnUpdate: true,
  prepareForCreate: defaultBinding,
  prepareForUpdate: (object) => defaultBinding(object),
  validate: (object) => bindingCauses(object, false),
  validateUpdate: roleRefChangeCauses,
};

/** Keyed like strategy.ts's table (`<group>/<Kind>`). */
