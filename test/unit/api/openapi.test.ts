// OpenAPI v2/v3 documents: what kubectl's field-validation check and explain rely on.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { authnPlugin } from '../../../api/auth/authn.ts';
import type { Authenticator } from '../../../api/auth/authn.ts';
import { encodeOpenApiV2Protobuf, openapiPlugin, openApiV2Document } from '../../../api/openapi.ts';
import { servedKinds } from '../../../api/registry/kinds.ts';

const anyone: Authenticator = () => ({ type: 'authenticated', user: { name: 'u', uid: '', groups: [], extra: {} } });

async function buildApp() {
  const app = Fastify();
  await app.register(authnPlugin, { authenticators: [anyone] });
  await app.register(openapiPlugin);
  await app.ready();
  return app;
}

type Json = Record<string, unknown>;

/** cli-runtime queryParamVerifierV3.supportsQueryParamV3, restated. */
function supportsFieldValidation(document: Json, gvk: { group: string; version: string; kind: string }): boolean {
  for (const pathItem of Object.values(document['paths'] as Record<string, Json>)) {
    const patch = pathItem['patch'] as Json | undefined;
    if (patch === undefined) continue;
    const extension = patch['x-kubernetes-group-version-kind'] as Json | undefined;
    if (extension?.['group'] !== gvk.group || extension['version'] !== gvk.version || extension['kind'] !== gvk.kind) continue;
    return (patch['parameters'] as Json[]).some((parameter) => parameter['name'] === 'fieldValidation');
  }
  return false;
}

describe('openapi v3', () => {
  it('indexes each group-version with a hashed serverRelativeURL', async () => {
    const index = (await (await buildApp()).inject({ url: '/openapi/v3' })).json();
    expect(Object.keys(index.paths).sort()).toEqual([
      'api/v1', 'apis/admissionregistration.k8s.io/v1', 'apis/apiextensions.k8s.io/v1', 'apis/apiregistration.k8s.io/v1', 'apis/apps/v1', 'apis/autoscaling/v1', 'apis/autoscaling/v2',
      'apis/batch/v1', 'apis/certificates.k8s.io/v1', 'apis/coordination.k8s.io/v1', 'apis/discovery.k8s.io/v1', 'apis/events.k8s.io/v1',
      'apis/flowcontrol.apiserver.k8s.io/v1', 'apis/networking.k8s.io/v1', 'apis/node.k8s.io/v1', 'apis/policy/v1', 'apis/rbac.authorization.k8s.io/v1',
      'apis/scheduling.k8s.io/v1', 'apis/storage.k8s.io/v1',
    ]);
    expect(index.paths['api/v1'].serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
  });

  it('serves the indexed document, immutable under its hash', async () => {
    const app = await buildApp();
    const index = (await app.inject({ url: '/openapi/v3' })).json();
    const response = await app.inject({ url: index.paths['api/v1'].serverRelativeURL, headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, immutable');
    const document = response.json();
    expect(document.openapi).toBe('3.0.0');
    expect((await app.inject({ url: '/openapi/v3/api/v1', headers: { 'if-none-match': String(response.headers['etag']) } })).statusCode).toBe(304);
  });

  it.each(servedKinds.map((kind) => [kind.kind, kind] as const))('lets kubectl delegate field validation for %s', async (_name, kind) => {
    const path = kind.group === '' ? `api/${kind.version}` : `apis/${kind.group}/${kind.version}`;
    const document = (await (await buildApp()).inject({ url: `/openapi/v3/${path}` })).json();
    expect(supportsFieldValidation(document, kind)).toBe(true);
  });

  it('tags component schemas with their group-version-kind and refers to ObjectMeta', async () => {
    const document = (await (await buildApp()).inject({ url: '/openapi/v3/apis/coordination.k8s.io/v1' })).json();
    const lease = document.components.schemas['io.k8s.api.coordination.v1.Lease'];
    expect(lease['x-kubernetes-group-version-kind']).toEqual([{ group: 'coordination.k8s.io', kind: 'Lease', version: 'v1' }]);
    expect(lease.properties.metadata.allOf[0].$ref).toBe('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(document.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.name.type).toBe('string');
    expect(JSON.stringify(document)).not.toContain('date-time-or-empty');
  });

  it('is 404 for an unknown group-version', async () => {
    expect((await (await buildApp()).inject({ url: '/openapi/v3/apis/nope/v1' })).statusCode).toBe(404);
  });
});

describe('openapi v2', () => {
  it('serves swagger 2.0 JSON with kube definition names', async () => {
    const document = (await (await buildApp()).inject({ url: '/openapi/v2', headers: { accept: 'application/json' } })).json();
    expect(document.swagger).toBe('2.0');
    expect(document.definitions['io.k8s.api.core.v1.ConfigMap']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    expect(document.definitions['io.k8s.api.core.v1.ConfigMap'].properties.metadata.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(document.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch.parameters.map((parameter: Json) => parameter['name'])).toContain('fieldValidation');
  });

  it('answers kubectl\'s protobuf request with the gnostic encoding', async () => {
    const response = await (await buildApp()).inject({ url: '/openapi/v2', headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(response.statusCode).toBe(200);
    // client-go cannot parse the requested type as a Content-Type ('@'), so octet-stream it is.
    expect(response.headers['content-type']).toBe('application/octet-stream');
    const bytes = response.rawPayload;
    // Field 1 (swagger), length-delimited: tag 0x0a, length 3, "2.0".
    expect([...bytes.subarray(0, 5)]).toEqual([0x0a, 3, 0x32, 0x2e, 0x30]);
    expect(bytes.includes(Buffer.from('io.k8s.api.core.v1.ConfigMap'))).toBe(true);
    expect(bytes.includes(Buffer.from('x-kubernetes-group-version-kind'))).toBe(true);
    expect(Buffer.compare(bytes, Buffer.from(encodeOpenApiV2Protobuf(openApiV2Document(servedKinds))))).toBe(0);
  });

  it('answers 406 for a type it cannot produce', async () => {
    expect((await (await buildApp()).inject({ url: '/openapi/v2', headers: { accept: 'application/xml' } })).statusCode).toBe(406);
  });
});
