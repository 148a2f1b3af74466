// Owns: the API tier's Prometheus metrics and the /metrics endpoint (text exposition format,
// behind the same authentication and authorization as everything else). Request counts and
// latency use kube-apiserver's metric and label names, so existing dashboards read them;
// kstore's own series are prefixed kstore_. Each server has its own registry (tests build many).
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** kube-apiserver's request latency buckets (seconds), long-running requests excluded. */
const requestDurationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

const verbLabels: Readonly<Record<string, string>> = {
  get: 'GET', list: 'LIST', watch: 'WATCH', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETECOLLECTION',
};

/** A gauge whose value is read when scraped (e.g. raft term from the member's status). */
export interface GaugeSource {
  readonly name: string;
  readonly help: string;
  readonly read: () => number;
}

/** One labelled series of a LabeledGaugeSource. */
export interface LabeledValue {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A gauge with labels whose series are all read when scraped (e.g. one per Raft member). */
export interface LabeledGaugeSource {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly readAll: () => readonly LabeledValue[];
}

export class ApiMetrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({
    name: 'apiserver_request_total', help: 'Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'] as const, registers: [this.registry],
  });
  readonly #durations = new Histogram({
    name: 'apiserver_request_duration_seconds', help: 'Response latency distribution in seconds for each verb, group, version, resource, subresource, and scope (watches excluded).',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const, buckets: requestDurationBuckets, registers: [this.registry],
  });
  readonly #watchEvents = new Counter({
    name: 'kstore_watch_events_sent_total', help: 'Watch events written to HTTP watchers, by resource.', labelNames: ['group', 'resource'] as const, registers: [this.registry],
  });
  readonly #watchersTerminated = new Counter({
    name: 'kstore_watchers_terminated_total', help: 'Watchers closed because they fell too far behind.', registers: [this.registry],
  });

  /** Registers gauges read at scrape time. */
  addGauges(sources: readonly (GaugeSource | LabeledGaugeSource)[]): void {
    for (const source of sources) {
      if ('readAll' in source) {
        new Gauge({
          name: source.name, help: source.help, labelNames: [...source.labelNames], registers: [this.registry],
          collect() {
            this.reset();
            for (const series of source.readAll()) this.set({ ...series.labels }, series.value);
          },
        });
      } else {
        new Gauge({ name: source.name, help: source.help, registers: [this.registry], collect() { this.set(source.read()); } });
      }
    }
  }

  watchEventSent(group: string, resource: string, events = 1): void {
    this.#watchEvents.inc({ group, resource }, events);
  }

  watcherTerminated(): void {
    this.#watchersTerminated.inc();
  }

  recordRequest(labels: { verb: string; group: string; version: string; resource: string; subresource: string; scope: string; code: number }, seconds: number): void {
    const common = { verb: labels.verb, group: labels.group, version: labels.version, resource: labels.resource, subresource: labels.subresource, scope: labels.scope, component: 'apiserver' };
    this.#requests.inc({ ...common, code: String(labels.code) });
    if (labels.verb !== 'WATCH') this.#durations.observe(common, seconds);
  }
}

function scopeOf(namespace: string, name: string, resource: string): string {
  if (resource === '') return '';
  if (name !== '') return 'resource';
  return namespace !== '' ? 'namespace' : 'cluster';
}

async function metricsPluginBody(app: FastifyInstance, options: { metrics: ApiMetrics }): Promise<void> {
  const { metrics } = options;
  app.addHook('onResponse', async (request, reply) => {
    const info = request.requestInfo;
    if (info === undefined || info === null) return;
    // kube's CleanVerb: a server-side apply PATCH counts as APPLY.
    const isApply = request.method === 'PATCH' && (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/apply-patch');
    const verb = !info.isResourceRequest ? request.method : isApply ? 'APPLY' : verbLabels[info.verb] ?? info.verb.toUpperCase();
    metrics.recordRequest({
      verb, group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource,
      scope: scopeOf(info.namespace, info.name, info.resource), code: reply.statusCode,
    }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
}

export const metricsPlugin = fastifyPlugin(metricsPluginBody, { name: 'kstore-metrics', fastify: '5.x', dependencies: ['kstore-authn'] });
