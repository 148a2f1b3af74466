// Owns: the health endpoints /healthz, /livez, /readyz and /livez/<check>, /readyz/<check>,
// answering with kube-apiserver's exact plain-text bodies (staging/src/k8s.io/apiserver/pkg/
// server/healthz/healthz.go): "ok", or with ?verbose one `[+]<name> ok` line per check and
// `<endpoint> check passed`; a failure is a 500 listing `[-]<name> failed: reason withheld`.
// Checks are given by the server builder; `ping` is always present. This module does not know
// what a check inspects, and never shows a failure's reason on the aggregate endpoints.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { pathNotFound } from './status.ts';

export interface HealthCheck {
  readonly name: string;
  /** Resolves when healthy; rejects (or throws) with the reason when not. */
  readonly check: () => Promise<void>;
}

export interface HealthOptions {
  /** Liveness checks after `ping` (for example the log). */
  readonly livez: readonly HealthCheck[];
  /** Readiness checks after `ping` (for example the store). */
  readonly readyz: readonly HealthCheck[];
  /** Checks of the deprecated /healthz; defaults to ping plus every livez and readyz check. */
  readonly healthz?: readonly HealthCheck[];
  /** Per-check deadline; defaults to checkTimeoutMsDefault. */
  readonly checkTimeoutMs?: number;
}

export const pingCheck: HealthCheck = { name: 'ping', check: async () => undefined };

/**
 * A check that has not answered within this time has failed. Two seconds is kube-apiserver's
 * default --etcd-healthcheck-timeout; probes (kubelet, load balancers) typically time out after
 * one to ten seconds, so a slower answer would be useless to them anyway.
 */
export const checkTimeoutMsDefault = 2_000;

/** `exclude` may repeat; more names than this is not a real client. */
const excludedNamesMax = 64;

type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

type HealthQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

const plainText = 'text/plain; charset=utf-8';

function withPing(checks: readonly HealthCheck[]): HealthCheck[] {
  return checks.some((check) => check.name === 'ping') ? [...checks] : [pingCheck, ...checks];
}

function uniqueByName(checks: readonly HealthCheck[]): HealthCheck[] {
  const seen = new Set<string>();
  return checks.filter((check) => !seen.has(check.name) && seen.add(check.name) !== undefined);
}

/** Runs one check with a deadline; resolves to undefined when healthy, else the reason. */
export async function runCheck(check: HealthCheck, timeoutMs: number): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`check timed out after ${timeoutMs}ms`), timeoutMs);
  });
  const outcome = check.check().then(() => undefined, (error: unknown) => (error instanceof Error ? error.message : String(error)));
  try {
    return await Promise.race([outcome, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function excludedNames(query: HealthQuery): Set<string> {
  const value = query['exclude'];
  const names = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  return new Set(names.slice(0, excludedNamesMax));
}

function quotedList(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(',');
}

interface Report {
  readonly lines: string;
  readonly failed: boolean;
}

/** The per-check lines of healthz.go's handleRootHealth, checks run concurrently, lines in order. */
async function report(checks: readonly HealthCheck[], excluded: Set<string>, timeoutMs: number): Promise<Report> {
  const outcomes = await Promise.all(checks.map((check) =>
    (excluded.has(check.name) ? Promise.resolve('excluded' as const) : runCheck(check, timeoutMs))));
  let lines = '';
  let failed = false;
  checks.forEach((check, index) => {
    const outcome = outcomes[index];
    if (outcome === 'excluded') lines += `[+]${check.name} excluded: ok\n`;
    else if (outcome === undefined) lines += `[+]${check.name} ok\n`;
    else {
      lines += `[-]${check.name} failed: reason withheld\n`;
      failed = true;
    }
  });
  const unmatched = [...excluded].filter((name) => !checks.some((check) => check.name === name)).sort();
  if (unmatched.length > 0) lines += `warn: some health checks cannot be excluded: no matches for ${quotedList(unmatched)}\n`;
  return { lines, failed };
}

function sendText(reply: FastifyReply, statusCode: number, body: string): FastifyReply {
  return reply.code(statusCode).header('content-type', plainText).header('x-content-type-options', 'nosniff').send(body);
}

function rootHandler(endpoint: HealthEndpoint, checks: readonly HealthCheck[], timeoutMs: number) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const query = request.query as HealthQuery;
    const { lines, failed } = await report(checks, excludedNames(query), timeoutMs);
    // Go's http.Error appends a newline; failures are always verbose.
    if (failed) {
      request.log.warn({ endpoint }, `${endpoint} check failed`);
      return sendText(reply, 500, `${lines}${endpoint} check failed\n`);
    }
    if (query['verbose'] === undefined) return sendText(reply, 200, 'ok');
    return sendText(reply, 200, `${lines}${endpoint} check passed\n`);
  };
}

/** /livez/<check>: here the reason is shown, as kube's adaptCheckToHandler does. */
function singleCheckHandler(checks: readonly HealthCheck[], timeoutMs: number) {
  return async (request: FastifyRequest<{ Params: { check: string } }>, reply: FastifyReply): Promise<FastifyReply> => {
    const check = checks.find((candidate) => candidate.name === request.params.check);
    if (check === undefined) {
      const error = pathNotFound();
      return reply.code(error.code).type('application/json').send(error.status);
    }
    const reason = await runCheck(check, timeoutMs);
    if (reason !== undefined) return sendText(reply, 500, `internal server error: ${reason}\n`);
    return sendText(reply, 200, 'ok');
  };
}

async function healthPluginBody(app: FastifyInstance, options: HealthOptions): Promise<void> {
  const timeoutMs = options.checkTimeoutMs ?? checkTimeoutMsDefault;
  const checksByEndpoint: Record<HealthEndpoint, HealthCheck[]> = {
    livez: withPing(options.livez),
    readyz: withPing(options.readyz),
    healthz: withPing(options.healthz ?? uniqueByName([...options.livez, ...options.readyz])),
  };
  for (const endpoint of ['healthz', 'livez', 'readyz'] as const) {
    const checks = checksByEndpoint[endpoint];
    app.get(`/${endpoint}`, rootHandler(endpoint, checks, timeoutMs));
    app.get(`/${endpoint}/:check`, singleCheckHandler(checks, timeoutMs));
  }
}

/** Serves the health endpoints; options name the livez and readyz checks. */
export const healthPlugin = fastifyPlugin(healthPluginBody, { name: 'kstore-health', fastify: '5.x' });
