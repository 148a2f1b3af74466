// Owns: turning every error that escapes a handler or hook into a metav1.Status response —
// the one place where errors meet HTTP. ApiError carries its Status; fastify's own errors
// (body too large, unsupported media type, bad JSON framing) map to kube-apiserver's answers;
// anything else is a 500 InternalError and is logged, never shown as a stack.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestBodyBytesMax } from './body-limit.ts';
import { ApiError, badRequest, internalError, pathNotFound, requestEntityTooLarge, unsupportedMediaType } from './status.ts';


function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'KSTORE_BODY_TOO_LARGE':
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return requestEntityTooLarge(`Request entity too large: limit is ${requestBodyBytesMax}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(request.headers['content-type'] ?? '');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_BAD_URL':
      return badRequest(fastifyError.message ?? 'bad request');
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return badRequest(fastifyError.message ?? 'bad request');
  }
  request.log.error({ err: error }, 'internal error');
  return internalError(error instanceof Error ? error.message : String(error));
}

export function sendStatus(reply: FastifyReply, error: ApiError): FastifyReply {
  const retryAfter = error.status.details?.retryAfterSeconds;
  if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
  return reply.code(error.status.code).type('application/json').send(JSON.stringify(error.status));
}

/**
 * fastify's `frameworkErrors`: a URL its router cannot take (a malformed percent-escape, FST_ERR_BAD_URL)
 * is answered before any hook runs — with a Status, as every other refusal.
 */
export function frameworkErrorStatus(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?', 1)[0] ?? '';
  const escape = /%(?![0-9a-fA-F]{2}).{0,2}/.exec(path)?.[0];
  const message = error.code === 'FST_ERR_BAD_URL' && escape !== undefined ? `invalid URL escape ${JSON.stringify(escape)}` : (error.message || 'bad request');
  sendStatus(reply, badRequest(message));
}

export function registerStatusErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendStatus(reply, toApiError(error, request)));
  app.setNotFoundHandler((_request, reply) => sendStatus(reply, pathNotFound()));
}
