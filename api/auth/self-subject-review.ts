// Owns: authentication.k8s.io SelfSubjectReview (v1, and v1beta1 for kubectl 1.27), create
// only and never stored, as kube-apiserver serves it (`kubectl auth whoami`): the answer's
// status.userInfo is the identity the request was authenticated (or impersonated) as —
// username, uid, groups, extra. The body has no settable fields. Authorized like any create
// (the bootstrap policy's system:basic-user grants it to every authenticated user).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { respond } from '../endpoints/context.ts';
import { decodeBody } from '../negotiation.ts';
import { ApiError, badRequest } from '../status.ts';

export const authenticationGroup = 'authentication.k8s.io';

function answer(request: FastifyRequest, reply: FastifyReply, version: string): FastifyReply {
  const apiVersion = `${authenticationGroup}/${version}`;
  const body = request.body;
  const decoded = body === undefined || body === null || body === '' ? {} : decodeBody(request.headers['content-type'], typeof body === 'string' || Buffer.isBuffer(body) ? body : '');
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) throw badRequest('the body of the request must be a SelfSubjectReview object');
  const { apiVersion: sentVersion, kind } = decoded as { apiVersion?: unknown; kind?: unknown };
  if (sentVersion !== undefined && sentVersion !== '' && sentVersion !== apiVersion) {
    throw badRequest(`the API version in the data (${String(sentVersion)}) does not match the expected API version (${apiVersion})`);
  }
  if (kind !== undefined && kind !== '' && kind !== 'SelfSubjectReview') throw badRequest(`the kind in the data (${String(kind)}) does not match the expected kind (SelfSubjectReview)`);
  const user = request.user;
  const userInfo = {
    username: user.name, ...(user.uid === '' ? {} : { uid: user.uid }), groups: [...user.groups],
    ...(Object.keys(user.extra).length === 0 ? {} : { extra: user.extra }),
  };
  return respond(request, reply, 201, { kind: 'SelfSubjectReview', apiVersion, metadata: { creationTimestamp: null }, status: { userInfo } });
}

async function selfSubjectReviewPluginBody(app: FastifyInstance): Promise<void> {
  for (const version of ['v1', 'v1beta1']) {
    app.post(`/apis/${authenticationGroup}/${version}/selfsubjectreviews`, async (request, reply) => {
      try {
        return answer(request, reply, version);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return reply.code(error.code).type('application/json').send(error.status);
      }
    });
  }
}

export const selfSubjectReviewPlugin = fastifyPlugin(selfSubjectReviewPluginBody, {
  name: 'kstore-self-subject-review', fastify: '5.x', dependencies: ['kstore-authn'],
});
