// Owns: RBAC escalation prevention as kube-apiserver's policy-based Role/ClusterRole/binding
// storage has it (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased
// and pkg/registry/rbac/validation ConfirmNoEscalation), as a storage-level check of the one
// write path (endpoints/write-path.ts) on the object a write would store — so every way to
// write a Role, ClusterRole or binding (POST, PUT, PUT that creates, JSON/merge/strategic
// patch, server-side apply, dry run) is checked the same, after the body was decoded and the
// patch or apply computed:
//  - a Role or ClusterRole may only hold rules the user already holds (in the object's
//    namespace, or cluster-wide), unless the user may `escalate` it; setting an aggregationRule
//    needs cluster-admin's rules;
//  - a binding may only reference a role whose rules the user holds there, unless the user may
//    `bind` it (verb bind on roles/clusterroles, resourceName = the role);
//  - system:masters passes (EscalationAllowed).
// The 403 reads as kube's: `<resource> "<name>" is forbidden: user "x" (groups=["a" "b"]) is
// attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], ...}`.
import type { KubeObject } from '../../actors/index.ts';
import type { AdmissionAttributes } from '../admission/chain.ts';
import type { UserInfo } from './authn.ts';
import { authorize, mastersGroup } from './authz.ts';
import type { Authorizer } from './authz.ts';
import { RbacRuleResolver, rbacGroupName } from './rbac-authorizer.ts';
import type { RbacReader } from './rbac-authorizer.ts';
import { compactRules, compactString, goQuotedList, missingRules, rulesOf } from './rbac-rules.ts';
import type { PolicyRule } from './rbac-rules.ts';
import { forbidden } from '../status.ts';
import type { ApiError } from '../status.ts';

export interface RbacEscalationOptions {
  readonly store: RbacReader;
  readonly authorizers: readonly Authorizer[];
}

const fullAuthority: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const roleResources = new Set(['roles', 'clusterroles']);
const bindingResources = new Set(['rolebindings', 'clusterrolebindings']);

/** ConfirmNoEscalation: undefined when the user holds every rule, else kube's message. */
export function escalationProblem(resolver: RbacRuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owned = resolver.rulesFor(user, namespace);
  const missing = missingRules(owned.rules, rules);
  if (missing.length === 0) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let message = `user ${JSON.stringify(user.name)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owned.errors.length > 0) message += `; resolution errors: [${owned.errors.length === 1 ? owned.errors[0]! : `[${owned.errors.join(', ')}]`}]`;
  return message;
}

async function allowedTo(authorizers: readonly Authorizer[], user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
  const result = await authorize(authorizers, {
    user, verb, isResourceRequest: true, path: '', apiGroup: rbacGroupName, apiVersion: '*', namespace, resource, subresource: '', name,
  });
  return result.decision === 'allow';
}

/** Metadata a client may not change or that an update does not compare (set by the server). */
const ignoredMetadata = new Set(['resourceVersion', 'managedFields', 'ownerReferences', 'finalizers', 'generation', 'creationTimestamp', 'uid', 'selfLink']);

/** JSON with sorted keys, without apiVersion/kind and the ignored metadata. */
function canonical(value: unknown, depth = 0, parent = ''): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item, depth + 1)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key]) => !(depth === 0 && (key === 'apiVersion' || key === 'kind')) && !(parent === 'metadata' && ignoredMetadata.has(key)))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item, depth + 1, depth === 0 ? key : '')}`).join(',')}}`;
}

/**
 * rbacregistry.IsOnlyMutatingGCFields: an update that changes nothing but ownerReferences and
 * finalizers (what the garbage collector writes) is not checked.
 */
export function onlyMutatesGcFields(object: KubeObject, old: KubeObject | undefined): boolean {
  return old !== undefined && canonical(object) === canonical(old);
}

function roleRefOf(object: KubeObject): { kind: string; name: string } {
  const ref = object['roleRef'];
  const fields = ref !== null && typeof ref === 'object' && !Array.isArray(ref) ? ref as Record<string, unknown> : {};
  return { kind: typeof fields['kind'] === 'string' ? fields['kind'] : '', name: typeof fields['name'] === 'string' ? fields['name'] : '' };
}

/** The 403 for this write, or undefined when it may go on. */
export async function checkRbacWrite(
  options: RbacEscalationOptions, resolver: RbacRuleResolver, user: UserInfo, resource: string, namespace: string, object: KubeObject, requestName: string,
): Promise<ApiError | undefined> {
  if (user.groups.includes(mastersGroup)) return undefined;
  const name = requestName !== '' ? requestName : (typeof object.metadata?.name === 'string' ? object.metadata.name : '');
  const qualified = { group: rbacGroupName, resource };
  if (roleResources.has(resource)) {
    if (await allowedTo(options.authorizers, user, 'escalate', resource, namespace, requestName)) return undefined;
    const problem = escalationProblem(resolver, user, namespace, rulesOf(object));
    if (problem !== undefined) return forbidden(qualified, name, problem);
    const aggregation = object['aggregationRule'];
    if (resource === 'clusterroles' && aggregation !== undefined && aggregation !== null && escalationProblem(resolver, user, '', fullAuthority) !== undefined) {
      return forbidden(qualified, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
    return undefined;
  }
  const roleRef = roleRefOf(object);
  const roleResource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : '';
  // An unknown kind is the validation's 422.
  if (roleResource === '') return undefined;
  if (await allowedTo(options.authorizers, user, 'bind', roleResource, namespace, roleRef.name)) return undefined;
  const referenced = resolver.roleReferenceRules(roleRef, namespace);
  if (referenced.error !== undefined) return forbidden(qualified, name, referenced.error);
  const problem = escalationProblem(resolver, user, namespace, referenced.rules);
  return problem === undefined ? undefined : forbidden(qualified, name, problem);
}

/** The check as the write path runs it, for every write of a role or binding. */
export class RbacEscalationGuard {
  readonly #options: RbacEscalationOptions;
  readonly #resolver: RbacRuleResolver;

  constructor(options: RbacEscalationOptions) {
    this.#options = options;
    // The registry's getters name a missing role in the plural (`roles.rbac…`), unlike the authorizer's listers.
    this.#resolver = new RbacRuleResolver(options.store, { singularErrors: false });
  }

  /** Throws kube's 403 when the write would grant what its user does not hold. */
  async confirmNoEscalation(attributes: AdmissionAttributes): Promise<void> {
    const { kind, object } = attributes;
    if (kind.group !== rbacGroupName || attributes.subresource !== '' || object === undefined) return;
    if (!roleResources.has(kind.resource) && !bindingResources.has(kind.resource)) return;
    if (attributes.operation === 'UPDATE' && onlyMutatesGcFields(object, attributes.oldObject)) return;
    // kube authorizes `escalate` with the request's name: none for a POST, the URL's for a PUT or apply.
    const error = await checkRbacWrite(this.#options, this.#resolver, attributes.user, kind.resource, attributes.namespace, object, attributes.requestName);
    if (error !== undefined) throw error;
  }
}
