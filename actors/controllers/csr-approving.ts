// Owns: kube-controller-manager's `csrapproving` (pkg/controller/certificates/approver,
// sarapprove.go): a CSR that is neither approved nor denied nor issued, whose signer is
// kubernetes.io/kube-apiserver-client-kubelet and whose request is a node client request
// (ValidateKubeletClientCSR: O=system:nodes only, CN=system:node:<name>, no SANs, usages
// exactly {digital signature, client auth} with or without key encipherment), is approved
// (condition Approved, reason AutoApproved) when its requester may create
// certificatesigningrequests/selfnodeclient (renewing its own: requester == CN) or
// certificatesigningrequests/nodeclient (any node, e.g. a bootstrap token's group), checked in
// that order. kube asks a SubjectAccessReview; here the check reads the replicated state the
// way kube-apiserver's authorizer chain answers such a review: system:masters is allowed, else
// RBAC's ClusterRoleBindings (a review without a namespace sees no RoleBinding). A pending CSR
// is looked at again when a CSR or a cluster-wide RBAC object changes (kube retries with a
// back-off instead). Leader-only; acts only by proposing updates with a resourceVersion
// precondition, as the approval subresource would write them.
import type { ChangeEvent } from '../events.ts';
import type { KubeObject } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import {
  approvalOf, certificateControllerIdentity, eachCsr, csrCollection, csrKey, csrSpec, isCsrKey, issuedCertificate, kubeletClientProblem,
  kubeletClientSignerName, parseCertificateRequest, withCondition,
} from './csr-signing.ts';
import type { CertificateRequestInfo } from './csr-signing.ts';
import { PassController, WatchedPasses } from './serial.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

/** Who a review asks about: the CSR's spec.username and spec.groups. */
export interface ReviewUser {
  readonly name: string;
  readonly groups: readonly string[];
}

/** A SubjectAccessReview's ResourceAttributes, cluster-wide. */
export interface ReviewAttributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
}

/** Answers a review; the default reads RBAC from the state (subjectAccessAllowed). */
export type SubjectAccessCheck = (user: ReviewUser, attributes: ReviewAttributes) => boolean;

type Fields = Record<string, unknown>;

function fields(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Fields : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function subjectMatches(subject: Fields, user: ReviewUser): boolean {
  const name = String(subject['name'] ?? '');
  if (subject['kind'] === 'User') return user.name === name;
  if (subject['kind'] === 'Group') return user.groups.includes(name);
  if (subject['kind'] === 'ServiceAccount') {
    const namespace = typeof subject['namespace'] === 'string' ? subject['namespace'] : '';
    return namespace !== '' && user.name === `system:serviceaccount:${namespace}:${name}`;
  }
  return false;
}

/** rbac.go RuleAllows for a resource request without a name. */
function ruleAllows(rule: Fields, attributes: ReviewAttributes): boolean {
  const verbs = strings(rule['verbs']);
  const groups = strings(rule['apiGroups']);
  const resources = strings(rule['resources']);
  const combined = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return (verbs.includes('*') || verbs.includes(attributes.verb))
    && (groups.includes('*') || groups.includes(attributes.group))
    && resources.some((resource) => resource === '*' || resource === combined || (attributes.subresource !== '' && resource === `*/${attributes.subresource}`))
    && strings(rule['resourceNames']).length === 0;
}

/**
 * The authorizer chain's answer to a cluster-wide review: system:masters always; otherwise a
 * ClusterRoleBinding binding the user (by name, group or service account) to a ClusterRole
 * with a rule allowing it.
 */
export function subjectAccessAllowed(state: ControllerContext['state'], user: ReviewUser, attributes: ReviewAttributes): boolean {
  if (user.groups.includes('system:masters')) return true;
  for (const binding of state.list({ group: rbacGroup, resource: 'clusterrolebindings', namespace: '' }).items) {
    const subjects = Array.isArray(binding['subjects']) ? binding['subjects'].map(fields) : [];
    if (!subjects.some((subject) => subjectMatches(subject, user))) continue;
    const roleRef = fields(binding['roleRef']);
    if (roleRef['kind'] !== 'ClusterRole') continue;
    const role = state.get({ group: rbacGroup, resource: 'clusterroles', namespace: '', name: String(roleRef['name'] ?? '') });
    const rules = Array.isArray(role?.['rules']) ? role['rules'].map(fields) : [];
    if (rules.some((rule) => ruleAllows(rule, attributes))) return true;
  }
  return false;
}

interface Recognizer {
  readonly recognize: (csr: KubeObject, request: CertificateRequestInfo) => boolean;
  readonly subresource: string;
  readonly message: string;
}

function isNodeClientCert(csr: KubeObject, request: CertificateRequestInfo): boolean {
  const spec = csrSpec(csr);
  return spec['signerName'] === kubeletClientSignerName && kubeletClientProblem(request, strings(spec['usages'])) === undefined;
}

function isSelfNodeClientCert(csr: KubeObject, request: CertificateRequestInfo): boolean {
  return csrSpec(csr)['username'] === request.commonName && isNodeClientCert(csr, request);
}

/** kube's recognizers, in its order. */
const recognizers: readonly Recognizer[] = [
  { recognize: isSelfNodeClientCert, subresource: 'selfnodeclient', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' },
  { recognize: isNodeClientCert, subresource: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
];

function touchesApproval(events: readonly ChangeEvent[]): boolean {
  return events.some((event) => (isCsrKey(event.key) && event.type !== 'DELETED')
    || (event.key.group === rbacGroup && (event.key.resource === 'clusterrolebindings' || event.key.resource === 'clusterroles')));
}

export interface CsrApprovingOptions {
  /** How a review is answered; default: subjectAccessAllowed over the state. */
  readonly authorize?: SubjectAccessCheck;
}

export class CsrApprovingController extends PassController implements Controller {
  readonly name = 'csrapproving';
  readonly #context: ControllerContext;
  protected readonly passes: WatchedPasses;
  readonly #authorize: SubjectAccessCheck;

  constructor(context: ControllerContext, options: CsrApprovingOptions = {}) {
    super();
    this.#context = context;
    this.#authorize = options.authorize ?? ((user, attributes) => subjectAccessAllowed(context.state, user, attributes));
    this.passes = new WatchedPasses(context, touchesApproval, () => this.#pass(), 'csrapproving failed; retried on the next change');
  }

  async #pass(): Promise<void> {
    await eachCsr(this.#context, this.passes, (csr) => this.#handle(csr), 'csrapproving: could not handle a request; retried on the next change');
  }

  async #handle(csr: KubeObject): Promise<void> {
    if (issuedCertificate(csr) !== '') return;
    const { approved, denied } = approvalOf(csr);
    if (approved || denied) return;
    const spec = csrSpec(csr);
    const name = csr.metadata.name ?? '';
    let request: CertificateRequestInfo;
    try {
      request = parseCertificateRequest(typeof spec['request'] === 'string' ? spec['request'] : '');
    } catch (error) {
      throw new Error(`unable to parse csr ${JSON.stringify(name)}: ${(error as Error).message}`);
    }
    const user: ReviewUser = { name: typeof spec['username'] === 'string' ? spec['username'] : '', groups: strings(spec['groups']) };
    for (const recognizer of recognizers) {
      if (!recognizer.recognize(csr, request)) continue;
      const attributes: ReviewAttributes = { verb: 'create', group: csrCollection.group, resource: csrCollection.resource, subresource: recognizer.subresource };
      if (!this.#authorize(user, attributes)) continue;
      const now = this.#context.now();
      const object = withCondition(csr, { type: 'Approved', reason: 'AutoApproved', message: recognizer.message }, now);
      const result = await this.#context.propose({
        type: 'update', key: csrKey(name), object, at: now, by: certificateControllerIdentity,
        preconditions: { resourceVersion: csr.metadata.resourceVersion ?? '' },
      });
      this.#context.log('csrapproving: approved a node client certificate request', { csr: name, as: recognizer.subresource, result: result.type });
      return;
    }
  }
}
