// Discovery as the whole API server serves it (buildServer through the harness, fastify
// inject): the documents with a trailing slash, as kube-apiserver serves them (/version/ is what
// the generated clients call), the health endpoints without one, and the create-only reviews
// (authorization.k8s.io access reviews, authentication.k8s.io SelfSubjectReview and TokenReview) advertised
// exactly as served — every advertised review answers a POST, nothing unserved is listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

/** What kubectl 1.30+ sends for /api and /apis. */
const aggregatedAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
const aggregatedOnly = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface ApiResource { name: string; singularName: string; namespaced: boolean; kind: string; verbs: string[]; storageVersionHash?: string }
interface AggregatedResource { resource: string; scope: string; verbs: string[]; responseKind: { group: string; version: string; kind: string } }
interface AggregatedGroup { metadata: { name?: string }; versions: { version: string; resources: AggregatedResource[] }[] }

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness(['default', 't']);
});

afterAll(async () => {
  await harness?.close();
});

const get = (url: string, accept = 'application/json') => harness.request('GET', url, undefined, { accept });

describe('discovery documents with a trailing slash', () => {
  it('GET /version/ is /version (the Python client VersionApi and client-node getCode call it)', async () => {
    const plain = await get('/version');
    const slashed = await get('/version/');
    expect(slashed.statusCode).toBe(200);
    expect(slashed.headers['content-type']).toMatch(/^application\/json/);
    expect(slashed.json()).toEqual(plain.json());
    expect(slashed.json()).toMatchObject({ major: '1', gitVersion: expect.stringMatching(/^v1\./) });
  });

  it.each([
    ['/api/', 'APIVersions'],
    ['/apis/', 'APIGroupList'],
    ['/api/v1/', 'APIResourceList'],
    ['/apis/coordination.k8s.io/', 'APIGroup'],
    ['/apis/coordination.k8s.io/v1/', 'APIResourceList'],
    ['/apis/authorization.k8s.io/v1/', 'APIResourceList'],
  ])('GET %s serves the same %s as without the slash', async (url, kind) => {
    const slashed = await get(url);
    expect(slashed.statusCode, slashed.body).toBe(200);
    const body = slashed.json();
    expect(body.kind).toBe(kind);
    const plain = (await get(url.slice(0, -1))).json();
    if (kind === 'APIVersions') {
      expect(body.versions).toEqual(plain.versions);
    } else {
      expect(body).toEqual(plain);
    }
  });

  it('GET /api/ serves the aggregated list too (a go-restful route in kube), /apis/ only the legacy list (the aggregator\'s unwrapped handler)', async () => {
    const api = await get('/api/', aggregatedAccept);
    expect(api.headers['content-type']).toBe(aggregatedOnly);
    const apis = await get('/apis/', aggregatedAccept);
    expect(apis.headers['content-type']).toMatch(/^application\/json$/);
    expect(apis.json().kind).toBe('APIGroupList');
    expect((await get('/apis/', aggregatedOnly)).statusCode).toBe(406);
  });

  it.each(['/apis/nope.example.com/', '/apis/coordination.k8s.io/v9/', '/api/v2/'])('GET %s of nothing served is a 404 Status', async (url) => {
    const response = await get(url);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it.each(['/healthz/', '/livez/', '/readyz/'])('GET %s is a 404 as in kube (its health paths are exact PathRecorderMux.Handle registrations)', async (url) => {
    expect((await get(url)).statusCode).toBe(404);
    expect((await get(url.slice(0, -1))).statusCode).toBe(200);
  });
});

describe('authorization.k8s.io/v1 and authentication.k8s.io/v1 in discovery', () => {
  it('/apis lists both groups with v1 preferred (what `kubectl api-versions` prints)', async () => {
    const groups = (await get('/apis')).json().groups as { name: string; versions: unknown[]; preferredVersion: unknown }[];
    for (const name of ['authorization.k8s.io', 'authentication.k8s.io']) {
      expect(groups).toContainEqual({
        name, versions: [{ groupVersion: `${name}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
      });
    }
  });

  it('/apis/authorization.k8s.io is its APIGroup document', async () => {
    const response = await get('/apis/authorization.k8s.io');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      kind: 'APIGroup', apiVersion: 'v1', name: 'authorization.k8s.io',
      versions: [{ groupVersion: 'authorization.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'authorization.k8s.io/v1', version: 'v1' },
    });
  });

  it('/apis/authorization.k8s.io/v1 lists the four reviews, create only, localsubjectaccessreviews namespaced, no storage hash', async () => {
    const body = (await get('/apis/authorization.k8s.io/v1')).json() as { kind: string; apiVersion: string; groupVersion: string; resources: ApiResource[] };
    expect(body).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'authorization.k8s.io/v1' });
    expect(body.resources).toEqual([
      { name: 'localsubjectaccessreviews', singularName: 'localsubjectaccessreview', namespaced: true, kind: 'LocalSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
      { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
    ]);
  });

  it('/apis/authentication.k8s.io/v1 lists SelfSubjectReview and TokenReview; v1beta1 is not advertised', async () => {
    const body = (await get('/apis/authentication.k8s.io/v1')).json() as { resources: ApiResource[] };
    expect(body.resources).toEqual([
      { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
      { name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] },
    ]);
    expect((await get('/apis/authentication.k8s.io/v1beta1')).statusCode).toBe(404);
  });

  it('the aggregated /apis has both groups with scopes and verbs', async () => {
    const response = await get('/apis', aggregatedAccept);
    expect(response.headers['content-type']).toBe(aggregatedOnly);
    const items = response.json().items as AggregatedGroup[];
    const authorization = items.find((item) => item.metadata.name === 'authorization.k8s.io');
    expect(authorization?.versions.map((version) => version.version)).toEqual(['v1']);
    const scopes = Object.fromEntries((authorization?.versions[0]?.resources ?? []).map((resource) => [resource.resource, resource.scope]));
    expect(scopes).toEqual({
      localsubjectaccessreviews: 'Namespaced', selfsubjectaccessreviews: 'Cluster', selfsubjectrulesreviews: 'Cluster', subjectaccessreviews: 'Cluster',
    });
    expect(authorization?.versions[0]?.resources).toContainEqual({
      resource: 'selfsubjectaccessreviews', responseKind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' },
      scope: 'Cluster', singularResource: 'selfsubjectaccessreview', verbs: ['create'],
    });
    const authentication = items.find((item) => item.metadata.name === 'authentication.k8s.io');
    expect(authentication?.versions.flatMap((version) => version.resources.map((resource) => `${version.version}/${resource.resource}`))).toEqual(['v1/selfsubjectreviews', 'v1/tokenreviews']);
  });

  it('every review the aggregated discovery advertises answers a POST at the path its scope gives', async () => {
    const items = (await get('/apis', aggregatedAccept)).json().items as AggregatedGroup[];
    const bodies: Record<string, unknown> = {
      SelfSubjectReview: {},
      SelfSubjectAccessReview: { spec: { resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 't' } } },
      SubjectAccessReview: { spec: { user: 'someone', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 't' } } },
      LocalSubjectAccessReview: { spec: { user: 'someone', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 't' } } },
      SelfSubjectRulesReview: { spec: { namespace: 't' } },
      TokenReview: { spec: { token: 'x' } },
    };
    let checked = 0;
    for (const item of items.filter((group) => ['authorization.k8s.io', 'authentication.k8s.io'].includes(group.metadata.name ?? ''))) {
      for (const version of item.versions) {
        for (const resource of version.resources) {
          const base = `/apis/${item.metadata.name}/${version.version}`;
          const url = resource.scope === 'Namespaced' ? `${base}/namespaces/t/${resource.resource}` : `${base}/${resource.resource}`;
          const kind = resource.responseKind.kind;
          const response = await harness.request('POST', url, { apiVersion: `${item.metadata.name}/${version.version}`, kind, ...(bodies[kind] as object) });
          expect(response.statusCode, `${url}: ${response.body}`).toBe(201);
          expect(response.json()).toMatchObject({ kind, status: expect.any(Object) });
          checked++;
        }
      }
    }
    expect(checked).toBe(6);
  });
});
