// Owns: the API tier's Prometheus metrics and the /metrics endpoint (text exposition format,
// behind the same authentication and authorization as everything else). Request counts and
// latency use kube-apiserver's metric and label names, so existing dashboards read them;
// kstore's own series are prefixed kstore_. Each server has its own registry (tests build many).
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { Counter, Gauge, Registry } from 'prom-client';
import type { Metric } from 'prom-client';

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

/** What the API tier knows of a finished request. */
export interface RequestLabelValues {
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly scope: string;
  readonly code: number;
}

/** The labels of apiserver_request_total (those of the duration histogram, and the code). */
type RequestLabels = Omit<RequestLabelValues, 'code'> & { readonly component: string; readonly code?: string };

/** One label set's figures: the request count, and for the histogram each bucket's own count (not cumulative), the sum. */
interface RequestSeries {
  readonly labels: RequestLabels;
  count: number;
  readonly buckets: number[];
  sum: number;
}

/** A value line as prom-client's registry formats it (shared labels after the line's own). */
interface ExpositionValue {
  readonly labels: Record<string, string | number>;
  /** Histogram lines only; a counter's line has its labels and the metric's own name. */
  readonly sharedLabels?: RequestLabels;
  readonly value: number;
  readonly metricName?: string;
  /** Bucket lines carry prom-client's empty exemplar. */
  readonly exemplar?: null;
}

/**
 * The per-request series (apiserver_request_total, apiserver_request_duration_seconds) kept
 * here and handed to prom-client's registry at scrape time, in the value format its own
 * Counter and Histogram produce (so the exposition text is the same): prom-client validates the
 * labels and builds a hash string of them on every inc() and observe() (~2.5 µs per request),
 * where this looks a label set up by one joined key.
 */
class RequestSeriesMetric {
  readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<string, RequestSeries>();

  constructor(readonly name: string, readonly help: string, kind: 'counter' | 'histogram') {
    this.type = kind;
  }

  /** Counts one request (and, for the histogram, its duration in seconds) under its label set's `key`. */
  record(key: string, request: RequestLabelValues, seconds: number): void {
    let series = this.#series.get(key);
    if (series === undefined) {
      const labels: RequestLabels = {
        verb: request.verb, group: request.group, version: request.version, resource: request.resource, subresource: request.subresource, scope: request.scope,
        component: 'apiserver', ...(this.type === 'counter' ? { code: String(request.code) } : {}),
      };
      series = { labels, count: 0, buckets: this.type === 'histogram' ? new Array<number>(requestDurationBuckets.length).fill(0) : [], sum: 0 };
      this.#series.set(key, series);
    }
    series.count += 1;
    if (this.type === 'counter') return;
    series.sum += seconds;
    for (let at = 0; at < requestDurationBuckets.length; at++) {
      if (seconds <= requestDurationBuckets[at]!) {
        series.buckets[at]! += 1;
        break;
      }
    }
  }

  reset(): void {
    this.#series.clear();
  }

  /** The registry's text exposition reads this (prom-client's getForPromString contract). */
  async getForPromString(): Promise<{ name: string; help: string; type: string; aggregator: string; values: ExpositionValue[] }> {
    const values: ExpositionValue[] = [];
    for (const series of this.#series.values()) {
      if (this.type === 'counter') {
        values.push({ labels: { ...series.labels }, value: series.count });
        continue;
      }
      let cumulative = 0;
      for (let at = 0; at < requestDurationBuckets.length; at++) {
        cumulative += series.buckets[at]!;
        values.push({ labels: { le: requestDurationBuckets[at]! }, sharedLabels: series.labels, value: cumulative, metricName: `${this.name}_bucket`, exemplar: null });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_bucket`, exemplar: null });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The JSON form (registry.getMetricsAsJSON): each value's labels merged, as prom-client's get(). */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: ExpositionValue[] }> {
    const text = await this.getForPromString();
    if (this.type === 'counter') return text;
    return { ...text, values: text.values.map(({ sharedLabels, ...value }) => ({ ...value, labels: { ...value.labels, ...sharedLabels } })) };
  }
}

export class ApiMetrics {
  readonly registry = new Registry();
  // Not prom-client classes: the registry reads them through the same value format.
  readonly #requests = this.#registered(new RequestSeriesMetric(
    'apiserver_request_total', 'Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.', 'counter'));
  readonly #durations = this.#registered(new RequestSeriesMetric(
    'apiserver_request_duration_seconds', 'Response latency distribution in seconds for each verb, group, version, resource, subresource, and scope (watches excluded).', 'histogram'));
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

  recordRequest(labels: RequestLabelValues, seconds: number): void {
    const key = `${labels.verb}\u0000${labels.group}\u0000${labels.version}\u0000${labels.resource}\u0000${labels.subresource}\u0000${labels.scope}`;
    this.#requests.record(`${key}\u0000${labels.code}`, labels, seconds);
    if (labels.verb !== 'WATCH') this.#durations.record(key, labels, seconds);
  }

  #registered(metric: RequestSeriesMetric): RequestSeriesMetric {
    this.registry.registerMetric(metric as unknown as Metric);
    return metric;
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
