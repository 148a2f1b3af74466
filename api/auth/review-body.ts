// Owns: reading the body of a create-only request that is never stored (TokenRequest,
// TokenReview): decoded once by the negotiated media type, an object, and — when given — the
// apiVersion and kind the endpoint takes, with kube's 400 messages for anything else.
import type { FastifyRequest } from 'fastify';
import { requestBody } from '../endpoints/context.ts';
import { decodeBody } from '../negotiation.ts';
import { badRequest } from '../status.ts';

export type BodyFields = Record<string, unknown>;

export function isBodyFields(value: unknown): value is BodyFields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The request's body as fields of `kind` in `apiVersion` (both may be left out by the client). */
export function readTypedBody(request: FastifyRequest, apiVersion: string, kind: string): BodyFields {
  const body = decodeBody(request.headers['content-type'], requestBody(request));
  if (!isBodyFields(body)) throw badRequest(`the body of the request must be a ${kind} object`);
  const givenVersion = body['apiVersion'] ?? '';
  const givenKind = body['kind'] ?? '';
  if (givenVersion !== '' && givenVersion !== apiVersion) {
    throw badRequest(`the API version in the data (${String(givenVersion)}) does not match the expected API version (${apiVersion})`);
  }
  if (givenKind !== '' && givenKind !== kind) throw badRequest(`the kind in the data (${String(givenKind)}) does not match the expected kind (${kind})`);
  return body;
}
