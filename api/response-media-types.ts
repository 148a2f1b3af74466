// Owns: the media types of response bodies as kube-apiserver writes them. fastify adds
// "; charset=utf-8" to the type of any body sent as a string; kube-apiserver sends
// `application/json` and `application/yaml` bare (its text/plain answers, /healthz and the like,
// do carry the charset, and keep it). One onSend hook takes the charset off those two types,
// whatever route produced the body.
import type { FastifyInstance } from 'fastify';

/** Types kube-apiserver sends without parameters, and the form fastify gives them for a string body. */
const withCharset: ReadonlyMap<string, string> = new Map([
  ['application/json; charset=utf-8', 'application/json'],
  ['application/yaml; charset=utf-8', 'application/yaml'],
]);

export function registerResponseMediaTypes(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    const bare = typeof type === 'string' ? withCharset.get(type) : undefined;
    if (bare !== undefined) reply.header('content-type', bare);
    done(null, payload);
  });
}
