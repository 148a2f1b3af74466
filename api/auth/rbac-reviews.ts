// Owns: authorization.k8s.io/v1 access reviews, create only and never stored, as kube-apiserver
// serves them (pkg/registry/authorization/*): SelfSubjectAccessReview (may I?, what `kubectl auth
// can-i` asks), SubjectAccessReview (may this user?, for admins), LocalSubjectAccessReview (the
// same in one namespace) and SelfSubjectRulesReview (what may I do in a namespace, `kubectl auth
// can-i --list`, from the RBAC rules). The request itself is authorized like any create (the
// bootstrap policy's system:basic-user grants the self reviews to every authenticated user).
// Answers 201 with the review and its status: allowed, denied (an authorizer said deny), reason.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { UserInfo } from './authn.ts';
import { authorize } from './authz.ts';
import type { AuthorizationAttributes, Authorizer } from './authz.ts';
import { respond } from '../endpoints/context.ts';
import { decodeBody } from '../negotiation.ts';
import { RbacRuleResolver } from './rbac-authorizer.ts';
import type { RbacReader } from './rbac-authorizer.ts';
import { badRequest, invalid } from '../status.ts';
import type { ApiError, StatusCause } from '../status.ts';

export const authorizationGroup = 'authorization.k8s.io';
const apiVersion = `${authorizationGroup}/v1`;

export interface AccessReviewOptions {
  readonly store: RbacReader;
  readonly authorizers: readonly Authorizer[];
}

type Fields = Record<string, unknown>;

function fields(value: unknown): Fields | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Fields : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function readReview(request: FastifyRequest, kind: string): Fields {
  const body = request.body;
  const decoded = decodeBody(request.headers['content-type'], typeof body === 'string' || Buffer.isBuffer(body) ? body : '');
  const object = fields(decoded);
  if (object === undefined) throw badRequest(`the body of the request must be a ${kind} object`);
  if (object['apiVersion'] !== undefined && object['apiVersion'] !== '' && object['apiVersion'] !== apiVersion) {
    throw badRequest(`the API version in the data (${String(object['apiVersion'])}) does not match the expected API version (${apiVersion})`);
  }
  if (object['kind'] !== undefined && object['kind'] !== '' && object['kind'] !== kind) {
    throw badRequest(`the kind in the data (${String(object['kind'])}) does not match the expected kind (${kind})`);
  }
  return object;
}

/** ValidateSelfSubjectAccessReviewSpec (and the shared part of the others). */
function attributeCauses(spec: Fields): StatusCause[] {
  const resource = fields(spec['resourceAttributes']);
  const nonResource = fields(spec['nonResourceAttributes']);
  if (resource !== undefined && nonResource !== undefined) {
    return [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(nonResource)}: cannot be specified in combination with resourceAttributes`, field: 'spec.nonResourceAttributes' }];
  }
  if (resource === undefined && nonResource === undefined) {
    return [{ reason: 'FieldValueInvalid', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified', field: 'spec.resourceAttributes' }];
  }
  return [];
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom. */
export function reviewAttributes(user: UserInfo, spec: Fields): AuthorizationAttributes {
  const resource = fields(spec['resourceAttributes']);
  if (resource !== undefined) {
    return {
      user, verb: text(resource['verb']), isResourceRequest: true, path: '', apiGroup: text(resource['group']), apiVersion: text(resource['version']),
      namespace: text(resource['namespace']), resource: text(resource['resource']), subresource: text(resource['subresource']), name: text(resource['name']),
    };
  }
  const nonResource = fields(spec['nonResourceAttributes']) ?? {};
  return {
    user, verb: text(nonResource['verb']), isResourceRequest: false, path: text(nonResource['path']), apiGroup: '', apiVersion: '',
    namespace: '', resource: '', subresource: '', name: '',
  };
}

async function decide(authorizers: readonly Authorizer[], attributes: AuthorizationAttributes): Promise<Fields> {
  const result = await authorize(authorizers, attributes);
  return {
    allowed: result.decision === 'allow',
    ...(result.decision === 'deny' ? { denied: true } : {}),
    ...(result.reason === '' ? {} : { reason: result.reason }),
    ...(result.error === undefined ? {} : { evaluationError: result.error }),
  };
}

function answer(request: FastifyRequest, reply: FastifyReply, review: Fields, kind: string, spec: Fields, status: Fields, namespace?: string): FastifyReply {
  const metadata = { ...(fields(review['metadata']) ?? {}), creationTimestamp: null, ...(namespace === undefined ? {} : { namespace }) };
  return respond(request, reply, 201, { kind, apiVersion, metadata, spec, status });
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.code).type('application/json').send(error.status);
}

function extraOf(value: unknown): Record<string, string[]> {
  const extra: Record<string, string[]> = {};
  for (const [key, values] of Object.entries(fields(value) ?? {})) if (Array.isArray(values)) extra[key] = values.filter((item): item is string => typeof item === 'string');
  return extra;
}

async function accessReviewsPluginBody(app: FastifyInstance, options: AccessReviewOptions): Promise<void> {
  const resolver = new RbacRuleResolver(options.store);
  const base = `/apis/${authorizationGroup}/v1`;
  const handle = (kind: string, work: (request: FastifyRequest, reply: FastifyReply, review: Fields, spec: Fields) => Promise<FastifyReply>) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      try {
        const review = readReview(request, kind);
        return await work(request, reply, review, fields(review['spec']) ?? {});
      } catch (error) {
        if (error instanceof Error && 'status' in error && 'code' in error) return sendError(reply, error as ApiError);
        throw error;
      }
    };

  app.post(`${base}/selfsubjectaccessreviews`, handle('SelfSubjectAccessReview', async (request, reply, review, spec) => {
    const causes = attributeCauses(spec);
    if (causes.length > 0) throw invalid(authorizationGroup, 'SelfSubjectAccessReview', '', causes);
    return answer(request, reply, review, 'SelfSubjectAccessReview', spec, await decide(options.authorizers, reviewAttributes(request.user, spec)));
  }));

  const subjectReview = (kind: string, local: boolean) => handle(kind, async (request, reply, review, spec) => {
    const causes = attributeCauses(spec);
    const user = text(spec['user']);
    const groups = Array.isArray(spec['groups']) ? spec['groups'].filter((group): group is string => typeof group === 'string') : [];
    if (user === '' && groups.length === 0) causes.push({ reason: 'FieldValueInvalid', message: 'Invalid value: "": at least one of user or group must be specified', field: 'spec.user' });
    const namespace = local ? (request.params as { namespace: string }).namespace : undefined;
    if (local) {
      const resource = fields(spec['resourceAttributes']);
      if (fields(spec['nonResourceAttributes']) !== undefined) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(spec['nonResourceAttributes'])}: disallowed on this kind of request`, field: 'spec.nonResourceAttributes' });
      if (resource !== undefined && text(resource['namespace']) !== namespace) {
        causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(text(resource['namespace']))}: must match metadata.namespace`, field: 'spec.resourceAttributes.namespace' });
      }
    }
    if (causes.length > 0) throw invalid(authorizationGroup, kind, '', causes);
    const subject: UserInfo = { name: user, uid: text(spec['uid']), groups, extra: extraOf(spec['extra']) };
    return answer(request, reply, review, kind, spec, await decide(options.authorizers, reviewAttributes(subject, spec)), namespace);
  });
  app.post(`${base}/subjectaccessreviews`, subjectReview('SubjectAccessReview', false));
  app.post(`${base}/namespaces/:namespace/localsubjectaccessreviews`, subjectReview('LocalSubjectAccessReview', true));

  app.post(`${base}/selfsubjectrulesreviews`, handle('SelfSubjectRulesReview', async (request, reply, review, spec) => {
    const namespace = text(spec['namespace']);
    const { rules, errors } = resolver.rulesFor(request.user, namespace);
    const resourceRules = rules.filter((rule) => (rule.nonResourceURLs ?? []).length === 0).map((rule) => ({
      verbs: [...(rule.verbs ?? [])], apiGroups: [...(rule.apiGroups ?? [])], resources: [...(rule.resources ?? [])],
      ...((rule.resourceNames ?? []).length > 0 ? { resourceNames: [...rule.resourceNames!] } : {}),
    }));
    const nonResourceRules = rules.filter((rule) => (rule.nonResourceURLs ?? []).length > 0).map((rule) => ({ verbs: [...(rule.verbs ?? [])], nonResourceURLs: [...rule.nonResourceURLs!] }));
    const status = { resourceRules, nonResourceRules, incomplete: errors.length > 0, ...(errors.length > 0 ? { evaluationError: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` } : {}) };
    return answer(request, reply, review, 'SelfSubjectRulesReview', spec, status);
  }));
}

/** Register after authz: the review requests are authorized like any create. */
export const accessReviewsPlugin = fastifyPlugin(accessReviewsPluginBody, {
  name: 'kstore-access-reviews', fastify: '5.x', dependencies: ['kstore-authz'],
});
