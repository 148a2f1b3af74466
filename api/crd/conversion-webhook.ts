// Owns: converting custom resources between versions through a CRD's conversion webhook, as
// kube-apiserver's webhook converter does: one apiextensions.k8s.io ConversionReview (v1, or
// v1beta1 when that is the only version the webhook lists) POSTed over HTTPS per batch of objects,
// the response checked (uid, result, count, each object's apiVersion and kind), and the metadata
// of each converted object restored from the original except labels and annotations. Objects
// already in the desired version are not sent. Failures are kube's 500 "conversion webhook for
// <gvk> failed: …". Also owns the cache of converted objects that lets the API tier's synchronous
// read paths serve converted objects (custom-resource-kind.ts warms it before each request).
import { randomUUID } from 'node:crypto';
import https from 'node:https';
import type { KubeObject } from '../../actors/index.ts';
import { internalError } from '../status.ts';
import type { ApiError } from '../status.ts';

/** kube's default conversion webhook timeout. */
export const conversionWebhookTimeoutMs = 30_000;
/** Converted objects kept per CRD version (oldest dropped first). */
const cachedConversionsMax = 50_000;

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

export interface ConversionWebhook {
  readonly url: URL;
  /** PEM CA bundle the webhook's certificate is verified with (else the system's roots). */
  readonly ca: string | undefined;
  readonly reviewVersion: 'v1' | 'v1beta1';
  readonly timeoutMs: number;
}

/**
 * The CRD's conversion webhook when its strategy is Webhook and it names a URL. A service
 * reference is resolved by `resolveService` to a URL (kube dials the service's cluster IP;
 * kstore, which runs no service proxy, asks the caller), or the webhook is unusable (undefined).
 */
export function conversionWebhookOf(crd: KubeObject, resolveService?: (namespace: string, name: string, port: number, path: string) => URL | undefined): ConversionWebhook | undefined {
  const conversion = fieldsOf(fieldsOf(crd['spec'])['conversion']);
  if (conversion['strategy'] !== 'Webhook') return undefined;
  const webhook = fieldsOf(conversion['webhook']);
  const clientConfig = fieldsOf(webhook['clientConfig']);
  const versions = Array.isArray(webhook['conversionReviewVersions']) ? webhook['conversionReviewVersions'] : [];
  const reviewVersion = versions.includes('v1') ? 'v1' : versions.includes('v1beta1') ? 'v1beta1' : undefined;
  if (reviewVersion === undefined) return undefined;
  let url: URL | undefined;
  if (typeof clientConfig['url'] === 'string') {
    try {
      url = new URL(clientConfig['url']);
    } catch {
      url = undefined;
    }
  } else {
    const service = fieldsOf(clientConfig['service']);
    const port = typeof service['port'] === 'number' ? service['port'] : 443;
    url = resolveService?.(String(service['namespace'] ?? ''), String(service['name'] ?? ''), port, typeof service['path'] === 'string' ? service['path'] : '/');
  }
  if (url === undefined) return undefined;
  const caBundle = clientConfig['caBundle'];
  const ca = typeof caBundle === 'string' && caBundle !== '' ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
  return { url, ca, reviewVersion, timeoutMs: conversionWebhookTimeoutMs };
}

function post(webhook: ConversionWebhook, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = https.request(webhook.url, {
      method: 'POST', timeout: webhook.timeoutMs, ...(webhook.ca === undefined ? {} : { ca: webhook.ca }),
      headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('context deadline exceeded')));
    request.on('error', reject);
    request.end(body);
  });
}

/** kube's restoreObjectMeta: a webhook may change labels and annotations only. */
function restoredMetadata(original: KubeObject, converted: Fields): KubeObject['metadata'] {
  const metadata = fieldsOf(converted['metadata']);
  const restored: KubeObject['metadata'] = { ...original.metadata };
  for (const field of ['labels', 'annotations'] as const) {
    const value = metadata[field];
    if (value === undefined) delete restored[field];
    else restored[field] = value as Record<string, string>;
  }
  return restored;
}

/**
 * `objects` converted to `desiredApiVersion` by the webhook, in order. `kindLabel` names the
 * desired group/version/kind in errors, as kube does ("stable.example.com/v1, Kind=CronTab").
 */
export async function convertThroughWebhook(webhook: ConversionWebhook, objects: readonly KubeObject[], desiredApiVersion: string, kindLabel: string): Promise<KubeObject[]> {
  const pending = objects.map((object, index) => ({ object, index })).filter(({ object }) => object.apiVersion !== desiredApiVersion);
  const result = [...objects];
  if (pending.length === 0) return result;
  const fail = (detail: string): ApiError => internalError(`conversion webhook for ${kindLabel} failed: ${detail}`);
  const uid = randomUUID();
  const review = {
    apiVersion: `apiextensions.k8s.io/${webhook.reviewVersion}`, kind: 'ConversionReview',
    request: { uid, desiredAPIVersion: desiredApiVersion, objects: pending.map(({ object }) => object) },
  };
  let response: { status: number; text: string };
  try {
    response = await post(webhook, JSON.stringify(review));
  } catch (error) {
    throw fail(`Post "${webhook.url.href}": ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status !== 200) throw fail(`conversion webhook returned status ${response.status}`);
  let answer: Fields;
  try {
    answer = fieldsOf(JSON.parse(response.text));
  } catch (error) {
    throw fail(`unmarshal response: ${error instanceof Error ? error.message : String(error)}`);
  }
  const body = fieldsOf(answer['response']);
  if (body['uid'] !== uid) throw fail(`expected response uid "${uid}", got "${String(body['uid'] ?? '')}"`);
  const status = fieldsOf(body['result']);
  if (status['status'] !== 'Success') throw fail(String(status['message'] ?? 'the webhook did not report success'));
  const converted = Array.isArray(body['convertedObjects']) ? body['convertedObjects'] : [];
  if (converted.length !== pending.length) throw fail(`returned ${converted.length} objects, expected ${pending.length}`);
  pending.forEach(({ object, index }, position) => {
    const candidate = fieldsOf(converted[position]);
    if (candidate['apiVersion'] !== desiredApiVersion) throw fail(`invalid converted object at index ${position}: invalid apiVersion "${String(candidate['apiVersion'] ?? '')}", expected "${desiredApiVersion}"`);
    if (candidate['kind'] !== object.kind) throw fail(`invalid converted object at index ${position}: invalid kind "${String(candidate['kind'] ?? '')}", expected "${object.kind}"`);
    result[index] = { ...(candidate as KubeObject), apiVersion: desiredApiVersion, kind: object.kind, metadata: restoredMetadata(object, candidate) };
  });
  return result;
}

/** Converted objects by (uid, resourceVersion, apiVersion): what a stored object looks like in a served version. */
export class ConversionCache {
  readonly #entries = new Map<string, KubeObject>();

  static key(object: KubeObject, apiVersion: string): string {
    return `${object.metadata.uid ?? ''}/${object.metadata.resourceVersion ?? ''}/${apiVersion}`;
  }

  get(object: KubeObject, apiVersion: string): KubeObject | undefined {
    return this.#entries.get(ConversionCache.key(object, apiVersion));
  }

  set(original: KubeObject, apiVersion: string, converted: KubeObject): void {
    if (this.#entries.size >= cachedConversionsMax) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(ConversionCache.key(original, apiVersion), converted);
  }
}

