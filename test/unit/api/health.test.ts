// Health endpoints with kube-apiserver's exact bodies, through fastify inject().
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { authnPlugin } from '../../../api/auth/authn.ts';
import type { Authenticator } from '../../../api/auth/authn.ts';
import { healthPlugin } from '../../../api/health.ts';
import type { HealthCheck, HealthOptions } from '../../../api/health.ts';

const anyone: Authenticator = (request) => (request.headers['x-test-user'] === undefined
  ? { type: 'noCredentials' }
  : { type: 'authenticated', user: { name: 'u', uid: '', groups: ['system:authenticated'], extra: {} } });
const headers = { 'x-test-user': 'u' };

const healthy = (name: string): HealthCheck => ({ name, check: async () => undefined });
const failing = (name: string): HealthCheck => ({ name, check: async () => { throw new Error('store unreachable'); } });

async function buildApp(options: HealthOptions) {
  const app = Fastify();
  await app.register(authnPlugin, { authenticators: [anyone] });
  await app.register(healthPlugin, options);
  await app.ready();
  return app;
}

describe('health - healthy', () => {
  const options = { livez: [healthy('log')], readyz: [healthy('store')] };

  it.each(['/healthz', '/livez', '/readyz'])('%s answers "ok" as text/plain', async (url) => {
    const response = await (await buildApp(options)).inject({ url, headers });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('ok');
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('lists each check with ?verbose, ping first', async () => {
    const app = await buildApp(options);
    expect((await app.inject({ url: '/readyz?verbose', headers })).body).toBe('[+]ping ok\n[+]store ok\nreadyz check passed\n');
    expect((await app.inject({ url: '/livez?verbose=1', headers })).body).toBe('[+]ping ok\n[+]log ok\nlivez check passed\n');
    expect((await app.inject({ url: '/healthz?verbose', headers })).body).toBe('[+]ping ok\n[+]log ok\n[+]store ok\nhealthz check passed\n');
  });

  it('prints excluded checks and warns about unknown exclusions', async () => {
    const response = await (await buildApp(options)).inject({ url: '/readyz?verbose&exclude=store&exclude=nope', headers });
    expect(response.body).toBe('[+]ping ok\n[+]store excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check passed\n');
  });

  it('serves single checks and 404 for unknown ones', async () => {
    const app = await buildApp(options);
    expect((await app.inject({ url: '/livez/ping', headers })).body).toBe('ok');
    expect((await app.inject({ url: '/readyz/store', headers })).body).toBe('ok');
    const missing = await app.inject({ url: '/readyz/nope', headers });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('requires authentication', async () => {
    expect((await (await buildApp(options)).inject({ url: '/healthz' })).statusCode).toBe(401);
  });
});

describe('health - failing store', () => {
  const options = { livez: [], readyz: [failing('store')] };

  it('answers 500 with the reason withheld, verbose or not', async () => {
    const app = await buildApp(options);
    for (const url of ['/readyz', '/readyz?verbose']) {
      const response = await app.inject({ url, headers });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('[+]ping ok\n[-]store failed: reason withheld\nreadyz check failed\n');
    }
  });

  it('passes when the failing check is excluded; livez is unaffected', async () => {
    const app = await buildApp(options);
    expect((await app.inject({ url: '/readyz?exclude=store', headers })).statusCode).toBe(200);
    expect((await app.inject({ url: '/livez', headers })).statusCode).toBe(200);
  });

  it('shows the reason on the single-check endpoint', async () => {
    const response = await (await buildApp(options)).inject({ url: '/readyz/store', headers });
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('internal server error: store unreachable\n');
  });

  it('fails a check that does not answer within the deadline', async () => {
    const hanging: HealthCheck = { name: 'store', check: () => new Promise(() => undefined) };
    const app = await buildApp({ livez: [], readyz: [hanging], checkTimeoutMs: 20 });
    const response = await app.inject({ url: '/readyz/store', headers });
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('internal server error: check timed out after 20ms\n');
  });
});
