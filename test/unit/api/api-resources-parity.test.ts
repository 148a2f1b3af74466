// Issue 13's parity check: the resources kstore advertises are the ones kube-apiserver 1.33
// serves with its default --runtime-config (test/fixtures/kube-1.33-api-resources.json, GA
// group/versions only), each with kube's singular name, kind, scope, verbs, short names,
// categories and subresources (their verbs and response kinds). Both forms of discovery are
// compared: the aggregated documents (/api and /apis as apidiscovery.k8s.io/v2, what kubectl
// 1.30+ reads) and the legacy ones (/api, /apis, /api/v1, /apis/<group>/<version>), as well as
// each group's preferred version. A difference is reported by name, one line each; the only ones
// allowed are `knownGaps`, which must be emptied as the missing kinds land.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

interface GroupVersionKind { readonly group: string; readonly version: string; readonly kind: string }
interface SubresourceFacts { readonly name: string; readonly verbs: readonly string[]; readonly responseKind: GroupVersionKind }
interface ResourceFacts {
  readonly resource: string;
  readonly singularName: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly subresources: readonly SubresourceFacts[];
}
interface Fixture {
  readonly groups: readonly { readonly group: string; readonly versions: readonly { readonly version: string; readonly resources: readonly ResourceFacts[] }[] }[];
}

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/kube-1.33-api-resources.json', import.meta.url), 'utf8')) as Fixture;

/**
 * What kube 1.33 serves and kstore does not yet, as "<apiVersion> <resource>". Not a tolerance:
 * the differences must be exactly these. None now: TokenReview and TokenRequest, the last ones,
 * came with issue 15.
 */
const knownGaps: readonly string[] = [];

const apiVersionOf = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);

/** One side of the comparison: "<apiVersion> <resource>" -> what discovery says of it. */
type Served = Map<string, ResourceFacts>;
/** Each group's preferred version. */
type Preferred = Map<string, string>;

function expected(): { resources: Served; preferred: Preferred } {
  const resources: Served = new Map();
  const preferred: Preferred = new Map();
  for (const { group, versions } of fixture.groups) {
    if (versions[0]) preferred.set(group, versions[0].version);
    for (const { version, resources: list } of versions) {
      for (const resource of list) resources.set(`${apiVersionOf(group, version)} ${resource.resource}`, resource);
    }
  }
  return { resources, preferred };
}

/** Subresources by name (their order is not part of the contract): missing, extra, or differing verbs or response kind. */
function subresourceDifferences(key: string, want: readonly SubresourceFacts[], got: readonly SubresourceFacts[]): string[] {
  const lines: string[] = [];
  for (const sub of want) {
    const served = got.find((candidate) => candidate.name === sub.name);
    if (served === undefined) {
      lines.push(`missing ${key}/${sub.name}`);
      continue;
    }
    if (JSON.stringify(served.verbs) !== JSON.stringify(sub.verbs)) lines.push(`differs ${key}/${sub.name}: verbs are ${JSON.stringify(served.verbs)}, kube 1.33 has ${JSON.stringify(sub.verbs)}`);
    const kind = (k: GroupVersionKind) => `${apiVersionOf(k.group, k.version)} ${k.kind}`;
    if (kind(served.responseKind) !== kind(sub.responseKind)) lines.push(`differs ${key}/${sub.name}: response kind is ${kind(served.responseKind)}, kube 1.33 has ${kind(sub.responseKind)}`);
  }
  for (const sub of got) {
    if (!want.some((candidate) => candidate.name === sub.name)) lines.push(`not served by kube 1.33 by default: ${key}/${sub.name}`);
  }
  return lines;
}

/** One line per difference: missing, not in kube 1.33, or which fields differ. */
function differences(want: { resources: Served; preferred: Preferred }, got: { resources: Served; preferred: Preferred }): string[] {
  const lines: string[] = [];
  for (const [key, facts] of want.resources) {
    const served = got.resources.get(key);
    if (served === undefined) {
      lines.push(`missing ${key}`);
      continue;
    }
    for (const field of Object.keys(facts) as (keyof ResourceFacts)[]) {
      if (field === 'subresources') continue;
      const wanted = JSON.stringify(facts[field]);
      const actual = JSON.stringify(served[field]);
      if (wanted !== actual) lines.push(`differs ${key}: ${field} is ${actual}, kube 1.33 has ${wanted}`);
    }
    lines.push(...subresourceDifferences(key, facts.subresources, served.subresources));
  }
  for (const key of got.resources.keys()) {
    if (!want.resources.has(key)) lines.push(`not served by kube 1.33 by default: ${key}`);
  }
  for (const [group, version] of want.preferred) {
    const actual = got.preferred.get(group);
    if (actual !== undefined && actual !== version) lines.push(`preferred version of group "${group}" is ${actual}, kube 1.33 has ${version}`);
  }
  return lines.sort();
}

/** The lines the known gaps produce, and nothing else. */
const allowed = knownGaps.map((key) => `missing ${key}`).sort();

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness(['default']);
});

afterAll(async () => {
  await harness?.close();
});

async function getJson(url: string, accept: string): Promise<unknown> {
  const response = await harness.request('GET', url, undefined, { accept });
  expect(response.statusCode, `GET ${url}: ${response.body}`).toBe(200);
  return response.json();
}

interface AggregatedResource {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind: GroupVersionKind; verbs: string[] }[];
}
interface AggregatedList { items: { metadata: { name?: string }; versions: { version: string; resources: AggregatedResource[] }[] }[] }

const aggregatedAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * A response kind with kube's blanks filled in: kube-apiserver leaves group and version empty
 * when they are the resource's own.
 */
function fullKind(kind: GroupVersionKind, group: string, version: string): GroupVersionKind {
  return { group: kind.group === '' && kind.version === '' ? group : kind.group, version: kind.version === '' ? version : kind.version, kind: kind.kind };
}

async function aggregated(): Promise<{ resources: Served; preferred: Preferred }> {
  const resources: Served = new Map();
  const preferred: Preferred = new Map();
  for (const root of ['/api', '/apis']) {
    const list = await getJson(root, aggregatedAccept) as AggregatedList;
    for (const item of list.items) {
      const group = item.metadata.name ?? '';
      if (item.versions[0]) preferred.set(group, item.versions[0].version);
      for (const { version, resources: entries } of item.versions) {
        for (const entry of entries) {
          resources.set(`${apiVersionOf(group, version)} ${entry.resource}`, {
            resource: entry.resource, singularName: entry.singularResource, kind: entry.responseKind.kind,
            namespaced: entry.scope === 'Namespaced', verbs: entry.verbs, shortNames: entry.shortNames ?? [], categories: entry.categories ?? [],
            subresources: (entry.subresources ?? []).map((sub) => ({ name: sub.subresource, verbs: sub.verbs, responseKind: fullKind(sub.responseKind, group, version) })),
          });
        }
      }
    }
  }
  return { resources, preferred };
}

interface LegacyResource { name: string; singularName: string; namespaced: boolean; kind: string; group?: string; version?: string; verbs: string[]; shortNames?: string[]; categories?: string[] }

async function legacy(): Promise<{ resources: Served; preferred: Preferred }> {
  const resources: Served = new Map();
  const preferred: Preferred = new Map();
  const core = await getJson('/api', 'application/json') as { versions: string[] };
  const groups = await getJson('/apis', 'application/json') as { groups: { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[] };
  preferred.set('', core.versions[0] ?? '');
  const groupVersions = core.versions.map((version) => ({ group: '', version, url: `/api/${version}` }));
  for (const { name, versions, preferredVersion } of groups.groups) {
    preferred.set(name, preferredVersion.version);
    for (const { version } of versions) groupVersions.push({ group: name, version, url: `/apis/${name}/${version}` });
  }
  for (const { group, version, url } of groupVersions) {
    const list = await getJson(url, 'application/json') as { groupVersion: string; resources: LegacyResource[] };
    expect(list.groupVersion).toBe(apiVersionOf(group, version));
    const top = list.resources.filter((entry) => !entry.name.includes('/'));
    for (const entry of top) {
      const subresources = list.resources.filter((sub) => sub.name.startsWith(`${entry.name}/`)).map((sub) => ({
        name: sub.name.slice(entry.name.length + 1), verbs: sub.verbs,
        responseKind: { group: sub.group ?? group, version: sub.version ?? version, kind: sub.kind },
      }));
      resources.set(`${apiVersionOf(group, version)} ${entry.name}`, {
        resource: entry.name, singularName: entry.singularName, kind: entry.kind, namespaced: entry.namespaced,
        verbs: entry.verbs, shortNames: entry.shortNames ?? [], categories: entry.categories ?? [], subresources,
      });
    }
    const orphans = list.resources.filter((sub) => sub.name.includes('/') && !top.some((entry) => sub.name.startsWith(`${entry.name}/`)));
    expect(orphans.map((sub) => sub.name), `${url}: subresources of no listed resource`).toEqual([]);
  }
  return { resources, preferred };
}

describe('kubectl api-resources parity with kube-apiserver 1.33 (default runtime-config)', () => {
  it('the fixture is well formed: every resource once, kube\'s alphabetical verbs', () => {
    const keys = fixture.groups.flatMap(({ group, versions }) => versions.flatMap(({ version, resources }) => resources.map((r) => `${apiVersionOf(group, version)} ${r.resource}`)));
    expect(new Set(keys).size).toBe(keys.length);
    for (const { versions } of fixture.groups) {
      for (const { resources } of versions) {
        for (const resource of resources) {
          expect(resource.verbs).toEqual([...resource.verbs].sort());
          for (const sub of resource.subresources) expect(sub.verbs).toEqual([...sub.verbs].sort());
        }
      }
    }
    // Every known gap is something kube serves (else it would hide nothing and should go).
    for (const gap of knownGaps) {
      const [apiVersion, path] = gap.split(' ') as [string, string];
      const [resource, subresource] = path.split('/');
      expect(keys).toContain(`${apiVersion} ${resource}`);
      if (subresource !== undefined) {
        const facts = fixture.groups.flatMap(({ group, versions }) => versions.filter(({ version }) => apiVersionOf(group, version) === apiVersion).flatMap(({ resources }) => resources));
        expect(facts.find((r) => r.resource === resource)?.subresources.map((sub) => sub.name)).toContain(subresource);
      }
    }
  });

  it('aggregated discovery (/api and /apis, apidiscovery.k8s.io/v2) lists exactly kube\'s resources, the known gaps aside', async () => {
    const found = differences(expected(), await aggregated());
    expect(found, `aggregated discovery differs from kube 1.33:\n  ${found.join('\n  ')}`).toEqual(allowed);
  });

  it('legacy discovery (/api, /apis, /api/v1, /apis/<group>/<version>) lists exactly kube\'s resources, the known gaps aside', async () => {
    const found = differences(expected(), await legacy());
    expect(found, `legacy discovery differs from kube 1.33:\n  ${found.join('\n  ')}`).toEqual(allowed);
  });
});
