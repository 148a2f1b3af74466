// Owns: the RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go) over the API tier's copy
// of the store, so every API replica decides the same: a request is allowed when a
// ClusterRoleBinding, or a RoleBinding in the request's namespace, binds a subject matching the
// user to a role (a RoleBinding's ClusterRole applies in its namespace only) with a rule that
// allows it. Rules are additive; no rule means no opinion (the chain's 403). Also the rule
// resolver the escalation checks and the access reviews use, and --authorization-mode
// (kube's mode list: RBAC, AlwaysAllow, AlwaysDeny; system:masters always goes first).
import type { CollectionKey, KubeObject, ObjectKey } from '../../actors/index.ts';
import type { UserInfo } from './authn.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authz.ts';
import { systemMastersAuthorizer } from './authz.ts';
import { describeSubject, ruleAllows, rulesOf, subjectAppliesTo, subjectsOf } from './rbac-rules.ts';
import type { PolicyRule, RuleRequest } from './rbac-rules.ts';

export const rbacGroupName = 'rbac.authorization.k8s.io';

/** The part of StoreClient the resolver reads (the API tier's replicated copy). */
export interface RbacReader {
  get(key: ObjectKey): KubeObject | undefined;
  list(collection: CollectionKey): { readonly items: readonly KubeObject[] };
}

interface RoleRef {
  readonly kind: string;
  readonly name: string;
}

function roleRefOf(binding: KubeObject): RoleRef {
  const ref = binding['roleRef'];
  const fields = ref !== null && typeof ref === 'object' && !Array.isArray(ref) ? ref as Record<string, unknown> : {};
  return { kind: String(fields['kind'] ?? ''), name: String(fields['name'] ?? '') };
}

/** One role's rules as reached through one binding, for the visitor. */
export interface RuleSource {
  /** kube's describer: `ClusterRoleBinding "b" of ClusterRole "r" to Group "g"`. */
  readonly description: string;
  readonly rules: readonly PolicyRule[];
}

/**
 * kube's DefaultRuleResolver: the rules bound to a user, cluster-wide and in one namespace.
 * `lister` says how a missing role reads in errors (the authorizer's listers say
 * `clusterrole.rbac…`, the registry's getters `clusterroles.rbac…`).
 */
export class RbacRuleResolver {
  readonly #reader: RbacReader;
  readonly #singularErrors: boolean;

  constructor(reader: RbacReader, options: { readonly singularErrors?: boolean } = {}) {
    this.#reader = reader;
    this.#singularErrors = options.singularErrors ?? true;
  }

  /** GetRoleReferenceRules: a missing role is an error (kube's NotFound text). */
  roleReferenceRules(roleRef: RoleRef, bindingNamespace: string): { rules: PolicyRule[]; error?: string } {
    const clusterRole = roleRef.kind === 'ClusterRole';
    if (!clusterRole && roleRef.kind !== 'Role') return { rules: [], error: `unsupported role reference kind: ${JSON.stringify(roleRef.kind)}` };
    const role = this.#reader.get({
      group: rbacGroupName, resource: clusterRole ? 'clusterroles' : 'roles', namespace: clusterRole ? '' : bindingNamespace, name: roleRef.name,
    });
    if (role === undefined) {
      const resource = clusterRole ? 'clusterrole' : 'role';
      return { rules: [], error: `${this.#singularErrors ? resource : `${resource}s`}.${rbacGroupName} "${roleRef.name}" not found` };
    }
    return { rules: rulesOf(role) };
  }

  /**
   * VisitRulesFor: calls `visit` with each bound role's rules (cluster bindings first, then
   * the namespace's role bindings), stopping when it returns false; returns the errors met.
   */
  visitRulesFor(user: UserInfo, namespace: string, visit: (source: RuleSource) => boolean): string[] {
    const errors: string[] = [];
    for (const binding of this.#reader.list({ group: rbacGroupName, resource: 'clusterrolebindings', namespace: '' }).items) {
      const subject = subjectsOf(binding).find((candidate) => subjectAppliesTo(user, candidate, ''));
      if (subject === undefined) continue;
      const roleRef = roleRefOf(binding);
      const { rules, error } = this.roleReferenceRules(roleRef, '');
      if (error !== undefined) {
        errors.push(error);
        continue;
      }
      const description = `ClusterRoleBinding "${binding.metadata.name ?? ''}" of ${roleRef.kind} "${roleRef.name}" to ${describeSubject(subject, '')}`;
      if (!visit({ description, rules })) return errors;
    }
    if (namespace === '') return errors;
    for (const binding of this.#reader.list({ group: rbacGroupName, resource: 'rolebindings', namespace }).items) {
      const subject = subjectsOf(binding).find((candidate) => subjectAppliesTo(user, candidate, namespace));
      if (subject === undefined) continue;
      const roleRef = roleRefOf(binding);
      const { rules, error } = this.roleReferenceRules(roleRef, namespace);
      if (error !== undefined) {
        errors.push(error);
        continue;
      }
      const description = `RoleBinding "${binding.metadata.name ?? ''}/${namespace}" of ${roleRef.kind} "${roleRef.name}" to ${describeSubject(subject, namespace)}`;
      if (!visit({ description, rules })) return errors;
    }
    return errors;
  }

  /** RulesFor: every rule bound to the user in the namespace (and cluster-wide). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors = this.visitRulesFor(user, namespace, (source) => {
      rules.push(...source.rules);
      return true;
    });
    return { rules, errors };
  }
}

/** kube's utilerrors.NewAggregate(...).Error(): one message alone, several in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/** RBACAuthorizer.Authorize. */
export function rbacAuthorize(resolver: RbacRuleResolver, user: UserInfo, request: RuleRequest & { readonly namespace: string }): AuthorizationResult {
  let allowedBy: string | undefined;
  const errors = resolver.visitRulesFor(user, request.namespace, (source) => {
    if (source.rules.some((rule) => ruleAllows(request, rule))) {
      allowedBy = source.description;
      return false;
    }
    return true;
  });
  if (allowedBy !== undefined) return { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` };
  return { decision: 'noOpinion', reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
}

export function rbacAuthorizer(reader: RbacReader): Authorizer {
  const resolver = new RbacRuleResolver(reader);
  return {
    name: 'RBAC',
    authorize: (attributes: AuthorizationAttributes) => rbacAuthorize(resolver, attributes.user, attributes),
  };
}

export const alwaysAllowAuthorizer: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'allow', reason: '' }) };

/** kube's alwaysDenyAuthorizer: no opinion, "Everything is forbidden." */
export const alwaysDenyAuthorizer: Authorizer = { name: 'AlwaysDeny', authorize: () => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }) };

/** kube-apiserver's --authorization-mode values. */
export const authorizationModes = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof authorizationModes)[number];
export const authorizationModeDefault = 'RBAC';

/** Parses --authorization-mode as kube-apiserver validates it; throws on an unknown or repeated mode. */
export function parseAuthorizationModes(value: string): AuthorizationMode[] {
  const modes = value.split(',').map((mode) => mode.trim()).filter((mode) => mode !== '');
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!(authorizationModes as readonly string[]).includes(mode)) {
      throw new Error(`authorization-mode ${JSON.stringify(mode)} is not a valid mode; valid modes: ${authorizationModes.join(', ')}`);
    }
    if (seen.has(mode)) throw new Error(`authorization-mode ${JSON.stringify(mode)} has mode specified more than once`);
    seen.add(mode);
  }
  return modes as AuthorizationMode[];
}

/** The chain for the modes: system:masters first (kube's privileged-group authorizer), then each mode in order. */
export function authorizersFor(modes: readonly AuthorizationMode[], reader: RbacReader): Authorizer[] {
  return [systemMastersAuthorizer, ...modes.map((mode) => {
    if (mode === 'AlwaysAllow') return alwaysAllowAuthorizer;
    if (mode === 'AlwaysDeny') return alwaysDenyAuthorizer;
    return rbacAuthorizer(reader);
  })];
}
