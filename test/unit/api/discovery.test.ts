// Discovery documents, legacy and aggregated, through fastify inject().
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { authnPlugin } from '../../../api/auth/authn.ts';
import type { Authenticator } from '../../../api/auth/authn.ts';
import { discoveryPlugin, negotiateDiscovery, storageVersionHash } from '../../../api/discovery.ts';

const anyone: Authenticator = () => ({ type: 'authenticated', user: { name: 'u', uid: '', groups: [], extra: {} } });

async function buildApp() {
  const app = Fastify();
  await app.register(authnPlugin, { authenticators: [anyone] });
  await app.register(discoveryPlugin);
  await app.ready();
  return app;
}

/** What kubectl 1.30+ sends for /api and /apis. */
const kubectlAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('discovery - legacy documents', () => {
  it('/version looks like kube-apiserver 1.32', async () => {
    const body = (await (await buildApp()).inject({ url: '/version' })).json();
    expect(body).toMatchObject({ major: '1', minor: '33', gitVersion: 'v1.33.0-kstore' });
    expect(body.platform).toMatch(/\//);
  });

  it('/api lists v1 and a server address', async () => {
    const body = (await (await buildApp()).inject({ url: '/api', headers: { accept: 'application/json' } })).json();
    expect(body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    expect(body.serverAddressByClientCIDRs[0].clientCIDR).toBe('0.0.0.0/0');
  });

  it('/apis lists the named groups with their preferred version', async () => {
    const body = (await (await buildApp()).inject({ url: '/apis' })).json();
    expect(body.kind).toBe('APIGroupList');
    expect(body.groups).toContainEqual({
      name: 'coordination.k8s.io',
      versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
    });
    expect(body.groups.map((group: { name: string }) => group.name)).not.toContain('');
  });

  it('/api/v1 lists the core resources with verbs, short names and storage hashes', async () => {
    const body = (await (await buildApp()).inject({ url: '/api/v1' })).json();
    expect(body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    expect(body).not.toHaveProperty('apiVersion');
    expect(body.resources).toContainEqual({
      name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm'],
      storageVersionHash: storageVersionHash({ group: '', version: 'v1', kind: 'ConfigMap' }),
    });
    expect(body.resources.find((resource: { name: string }) => resource.name === 'namespaces').namespaced).toBe(false);
  });

  it('/apis/<group> and /apis/<group>/<version> describe the group', async () => {
    const app = await buildApp();
    expect((await app.inject({ url: '/apis/coordination.k8s.io' })).json()).toMatchObject({ kind: 'APIGroup', apiVersion: 'v1', name: 'coordination.k8s.io' });
    const list = (await app.inject({ url: '/apis/coordination.k8s.io/v1' })).json();
    expect(list).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'coordination.k8s.io/v1' });
    expect(list.resources.map((resource: { name: string }) => resource.name)).toEqual(['leases']);
  });

  it.each(['/api/v2', '/apis/nope.example.com', '/apis/nope.example.com/v1', '/apis/coordination.k8s.io/v9'])('%s is a 404 Status', async (url) => {
    const response = await (await buildApp()).inject({ url });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' });
  });

  it('answers 406 when nothing acceptable is asked for', async () => {
    const response = await (await buildApp()).inject({ url: '/api/v1', headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(response.statusCode).toBe(406);
  });

  it('computes apimachinery storage version hashes (kube: leases gqkMMb/YqFM=)', () => {
    expect(storageVersionHash({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' })).toBe('gqkMMb/YqFM=');
  });
});

describe('discovery - aggregated documents', () => {
  it('serves APIGroupDiscoveryList v2 for kubectl, with the content type parameters', async () => {
    const response = await (await buildApp()).inject({ url: '/api', headers: { accept: kubectlAccept } });
    expect(response.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const body = response.json();
    expect(body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    expect(body.items).toHaveLength(1);
    expect(body.items[0].metadata).toEqual({});
    expect(body.items[0].versions[0]).toMatchObject({ version: 'v1', freshness: 'Current' });
    expect(body.items[0].versions[0].resources).toContainEqual({
      resource: 'configmaps', responseKind: { group: '', version: 'v1', kind: 'ConfigMap' }, scope: 'Namespaced',
      singularResource: 'configmap', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm'],
    });
  });

  it('serves v2beta1 to kubectl 1.27-1.29 and named groups on /apis', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    const response = await (await buildApp()).inject({ url: '/apis', headers: { accept } });
    expect(response.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    const body = response.json();
    expect(body.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    expect(body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual([
      // kube-apiserver's order: its APIService group priorities, highest first.
      'apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch',
      'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'storage.k8s.io', 'admissionregistration.k8s.io',
      'apiextensions.k8s.io', 'scheduling.k8s.io', 'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io',
    ]);
    expect(body.items[0].versions[0].resources[0]).toMatchObject({ resource: 'apiservices', scope: 'Cluster' });
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const app = await buildApp();
    const first = await app.inject({ url: '/apis', headers: { accept: kubectlAccept } });
    const etag = String(first.headers['etag']);
    const second = await app.inject({ url: '/apis', headers: { accept: kubectlAccept, 'if-none-match': etag } });
    expect(second.statusCode).toBe(304);
  });

  it('negotiates in the client order', () => {
    expect(negotiateDiscovery('application/json, ' + kubectlAccept, true)).toEqual({ form: 'legacy' });
    expect(negotiateDiscovery(kubectlAccept, false)).toEqual({ form: 'legacy' });
    expect(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList', true)).toBeUndefined();
    expect(negotiateDiscovery(undefined, true)).toEqual({ form: 'legacy' });
  });
});
