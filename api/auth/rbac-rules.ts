// Owns: RBAC's pure rule logic as kube has it: whether a PolicyRule allows a request
// (plugin/pkg/auth/authorizer/rbac/rbac.go RuleAllows and rbac/v1 helpers' *Matches), whether
// a subject names a user (appliesTo), and the escalation comparison of
// pkg/registry/rbac/validation (BreakdownRule, ruleCovers, Covers, CompactRules, CompactString).
// No I/O: the authorizer (rbac-authorizer.ts) resolves bindings to rules.
import type { UserInfo } from './authn.ts';

export interface PolicyRule {
  readonly verbs?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly apiGroup?: string;
}

/** What a rule is checked against (the authorizer's attributes, or a review's). */
export interface RuleRequest {
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

const all = '*';

function has(list: readonly string[] | undefined, value: string): boolean {
  return (list ?? []).includes(value);
}

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, all) || has(rule.verbs, verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, all) || has(rule.apiGroups, group);
}

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const resource of rule.resources ?? []) {
    if (resource === all || resource === combined) return true;
    // "*/<subresource>" matches that subresource of every resource.
    if (subresource !== '' && resource.length === subresource.length + 2 && resource.startsWith('*/') && resource.endsWith(subresource)) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return (rule.resourceNames ?? []).length === 0 || has(rule.resourceNames, name);
}

function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === all || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** rbac.go RuleAllows. */
export function ruleAllows(request: RuleRequest, rule: PolicyRule): boolean {
  if (request.isResourceRequest) {
    const combined = request.subresource === '' ? request.resource : `${request.resource}/${request.subresource}`;
    return verbMatches(rule, request.verb) && apiGroupMatches(rule, request.apiGroup)
      && resourceMatches(rule, combined, request.subresource) && resourceNameMatches(rule, request.name);
  }
  return verbMatches(rule, request.verb) && nonResourceUrlMatches(rule, request.path);
}

export const serviceAccountUserPrefix = 'system:serviceaccount:';

/**
 * appliesToUser: a User by name, a Group by membership, a ServiceAccount by its user name
 * `system:serviceaccount:<ns>:<name>` (a RoleBinding's subject without a namespace means the
 * binding's own; a ClusterRoleBinding's never matches without one).
 */
export function subjectAppliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  if (subject.kind === 'User') return user.name === subject.name;
  if (subject.kind === 'Group') return user.groups.includes(subject.name);
  if (subject.kind === 'ServiceAccount') {
    const namespace = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
    return namespace !== '' && user.name === `${serviceAccountUserPrefix}${namespace}:${subject.name}`;
  }
  return false;
}

/** kube's describeSubject for the allow reason: `User "alice"`, `ServiceAccount "ns/name"`. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const namespace = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
    return `${subject.kind} "${namespace}/${subject.name}"`;
  }
  return `${subject.kind} "${subject.name}"`;
}

// --- escalation (pkg/registry/rbac/validation) ---------------------------------------------

/** BreakdownRule: one rule per group × resource × verb (× name), and per URL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        if ((rule.resourceNames ?? []).length > 0) {
          for (const name of rule.resourceNames ?? []) rules.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          rules.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) rules.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return rules;
}

function hasAll(set: readonly string[] | undefined, contains: readonly string[] | undefined): boolean {
  return (contains ?? []).every((item) => has(set, item));
}

function resourceCoversAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  if (has(set, all)) return true;
  return (covers ?? []).every((resource) => {
    if (has(set, resource)) return true;
    const slash = resource.indexOf('/');
    if (slash < 0) return false;
    return has(set, `${resource.slice(0, slash)}/*`) || has(set, `*/${resource.slice(slash + 1)}`);
  });
}

function nonResourceUrlsCoverAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  return (covers ?? []).every((path) => (set ?? []).some((owner) => owner === path || (owner.endsWith('*') && path.startsWith(owner.slice(0, -1)))));
}

/** ruleCovers: the owner rule grants everything the sub rule does. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, all) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, all) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceUrlsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** Covers: the broken-down sub rules no owner rule covers. */
export function missingRules(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const sub of breakdownRule(rule)) if (!owner.some((ownerRule) => ruleCovers(ownerRule, sub))) missing.push(sub);
  }
  return missing;
}

/** CompactRules: simple rules (one group, one resource, at most one name) of the same target merge their verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }>();
  for (const rule of rules) {
    const isSimple = (rule.nonResourceURLs ?? []).length === 0 && (rule.apiGroups ?? []).length === 1 && (rule.resources ?? []).length === 1 && (rule.resourceNames ?? []).length <= 1;
    if (!isSimple) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups![0], rule.resources![0], rule.resourceNames?.[0] ?? '']);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...(rule.verbs ?? []));
    else simple.set(key, { apiGroups: [...rule.apiGroups!], resources: [...rule.resources!], ...((rule.resourceNames ?? []).length > 0 ? { resourceNames: [...rule.resourceNames!] } : {}), verbs: [...(rule.verbs ?? [])] });
  }
  return [...compacted, ...simple.values()];
}

/** Go's %q of a []string: ["a" "b"]. */
export function goQuotedList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
}

/** rbacv1helpers.CompactString: {APIGroups:["" ], Resources:["pods"], Verbs:["get"]}. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuotedList(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goQuotedList(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuotedList(rule.nonResourceURLs!)}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuotedList(rule.resourceNames!)}`);
  if ((rule.verbs ?? []).length > 0) parts.push(`Verbs:${goQuotedList(rule.verbs!)}`);
  return `{${parts.join(', ')}}`;
}

/** Reads a stored object's `rules` as PolicyRules (non-string entries dropped). */
export function rulesOf(object: Record<string, unknown> | undefined): PolicyRule[] {
  const rules = object?.['rules'];
  if (!Array.isArray(rules)) return [];
  const strings = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined);
  return rules.filter((rule): rule is Record<string, unknown> => rule !== null && typeof rule === 'object').map((rule) => {
    const result: { -readonly [K in keyof PolicyRule]: PolicyRule[K] } = {};
    for (const field of ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
      const value = strings(rule[field]);
      if (value !== undefined) result[field] = value;
    }
    return result;
  });
}

export function subjectsOf(object: Record<string, unknown> | undefined): Subject[] {
  const subjects = object?.['subjects'];
  if (!Array.isArray(subjects)) return [];
  return subjects.filter((subject): subject is Record<string, unknown> => subject !== null && typeof subject === 'object').map((subject) => ({
    kind: String(subject['kind'] ?? ''), name: String(subject['name'] ?? ''),
    ...(typeof subject['namespace'] === 'string' ? { namespace: subject['namespace'] } : {}),
    ...(typeof subject['apiGroup'] === 'string' ? { apiGroup: subject['apiGroup'] } : {}),
  }));
}
