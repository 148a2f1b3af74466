// Owns: serving the built web console (api/console/dist, made by `npm run build:console`) at
// /console/ — index.html and its hashed assets — behind the same authentication and
// authorization as the API (the plugin depends on authn). Only plain file names under assets/
// are served (no path traversal); a missing build answers 503 with a Status saying how to build it.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { notFound, serviceUnavailable } from '../status.ts';

/** api/console/dist of the installation this module runs from: beside this file, or, when it runs
 *  bundled (deploy/.bundle/<build>/), under the nearest ancestor that holds api/console. */
export const consoleDistDefault = installedConsoleDist(path.dirname(fileURLToPath(import.meta.url)));

function installedConsoleDist(moduleDir: string): string {
  for (let dir = moduleDir; ; dir = path.dirname(dir)) {
    const consoleDir = path.join(dir, 'api', 'console');
    if (existsSync(consoleDir)) return path.join(consoleDir, 'dist');
    if (path.dirname(dir) === dir) return path.join(moduleDir, 'dist');
  }
}

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json',
};

const assetName = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

async function sendFile(reply: FastifyReply, file: string, cache: string): Promise<FastifyReply> {
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    throw path.basename(file) === 'index.html'
      ? serviceUnavailable('the console is not built: run `npm run build:console` (npm ci runs it)', 60)
      : notFound({ group: '', resource: 'console' }, path.basename(file));
  }
  const type = contentTypes[path.extname(file)] ?? 'application/octet-stream';
  return reply.code(200).type(type).header('Cache-Control', cache).header('X-Content-Type-Options', 'nosniff').send(body);
}

async function consolePluginBody(app: FastifyInstance, options: { readonly dist: string }): Promise<void> {
  const index = async (_request: unknown, reply: FastifyReply): Promise<FastifyReply> => sendFile(reply, path.join(options.dist, 'index.html'), 'no-cache');
  app.get('/console', async (_request, reply) => reply.redirect('/console/', 302));
  app.get('/console/', index);
  app.get<{ Params: { file: string } }>('/console/assets/:file', async (request, reply) => {
    const { file } = request.params;
    if (!assetName.test(file)) throw notFound({ group: '', resource: 'console' }, file);
    // Asset names carry a content hash: they never change, so they may be cached for good.
    return sendFile(reply, path.join(options.dist, 'assets', file), 'private, max-age=31536000, immutable');
  });
}

export const consolePlugin = fastifyPlugin(consolePluginBody, { name: 'kstore-console', fastify: '5.x', dependencies: ['kstore-authn'] });
