// The media types of response bodies are kube-apiserver's (api/response-media-types.ts): JSON
// and YAML bodies as `application/json` and `application/yaml`, with no charset (fastify adds
// one to any string body), whatever produced them: an object, a list, a Status error, discovery,
// a long list sent as bytes; /healthz's text keeps its charset, as kube's does.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

describe('response media types', () => {
  it('sends JSON and YAML without a charset, and text with one', async () => {
    const created = await harness.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: 'é' } });
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toBe('application/json');
    const cases: [string, Record<string, string>, string][] = [
      ['/api/v1/namespaces/default/configmaps/one', {}, 'application/json'],
      ['/api/v1/namespaces/default/configmaps', {}, 'application/json'],
      ['/api/v1/namespaces/default/configmaps/missing', {}, 'application/json'], // a 404 Status
      ['/api', {}, 'application/json'],
      ['/version', {}, 'application/json'],
      ['/api/v1/namespaces/default/configmaps/one', { accept: 'application/yaml' }, 'application/yaml'],
      ['/healthz', {}, 'text/plain; charset=utf-8'],
    ];
    for (const [url, headers, type] of cases) {
      const response = await harness.request('GET', url, undefined, headers);
      expect(response.statusCode, `${url} ${response.body}`).toBeLessThan(500);
      expect(response.headers['content-type'], url).toBe(type);
    }
  });
});
