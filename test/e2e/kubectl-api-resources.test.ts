// End-to-end: issue 13's parity check through the real kubectl. `kubectl api-resources -o wide`
// against a `kstore server` and against a `kstore cluster up` cluster (each of its two API
// replicas) prints the rows kube-apiserver 1.33 prints with its default --runtime-config: one
// row per resource of each group's preferred version (test/fixtures/kube-1.33-api-resources.json),
// with kube's short names, apiVersion, scope, kind, verbs and categories. A difference is
// reported by name, one line each; the only ones allowed are `knownGaps`, which must be emptied
// as the missing kinds land.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployments } from '../support/deployments.ts';
import type { Target } from '../support/deployments.ts';
import { describeResult, Kubectl, versionedKubectls } from '../support/kubectl.ts';
import { parseTable } from '../support/table.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import type { TempDir } from '../support/temp-dir.ts';

interface ResourceFacts {
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}
interface Fixture {
  readonly groups: readonly { readonly group: string; readonly versions: readonly { readonly version: string; readonly resources: readonly ResourceFacts[] }[] }[];
}

const fixture = JSON.parse(readFileSync(new URL('../fixtures/kube-1.33-api-resources.json', import.meta.url), 'utf8')) as Fixture;

/**
 * What kube 1.33 lists and kstore does not yet, as "<apiVersion> <resource>". Not a tolerance:
 * the differences must be exactly these. None now: TokenReview and TokenRequest, the last ones,
 * came with issue 15.
 */
const knownGaps: readonly string[] = [];

const columns = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES'] as const;
type Row = Record<(typeof columns)[number], string>;

/** kube's rows: kubectl lists each group's preferred version only (the fixture's first). */
function expectedRows(): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const { group, versions } of fixture.groups) {
    const preferred = versions[0];
    if (preferred === undefined) continue;
    const apiVersion = group === '' ? preferred.version : `${group}/${preferred.version}`;
    for (const resource of preferred.resources) {
      rows.set(`${apiVersion} ${resource.resource}`, {
        NAME: resource.resource, SHORTNAMES: resource.shortNames.join(','), APIVERSION: apiVersion, NAMESPACED: String(resource.namespaced),
        KIND: resource.kind, VERBS: resource.verbs.join(','), CATEGORIES: resource.categories.join(','),
      });
    }
  }
  return rows;
}

function servedRows(output: string): Map<string, Row> {
  const table = parseTable(output);
  expect(table.headers).toEqual(columns);
  const rows = new Map<string, Row>();
  for (const row of table.rows) {
    const cells = Object.fromEntries(columns.map((column) => [column, row[column] ?? ''])) as Row;
    rows.set(`${cells.APIVERSION} ${cells.NAME}`, cells);
  }
  return rows;
}

/** One line per difference: missing, not in kube 1.33, or which columns differ. */
function differences(want: Map<string, Row>, got: Map<string, Row>): string[] {
  const lines: string[] = [];
  for (const [key, row] of want) {
    const served = got.get(key);
    if (served === undefined) {
      lines.push(`missing ${key}`);
      continue;
    }
    for (const column of columns) {
      if (served[column] !== row[column]) lines.push(`differs ${key}: ${column} is "${served[column]}", kube 1.33 has "${row[column]}"`);
    }
  }
  for (const key of got.keys()) {
    if (!want.has(key)) lines.push(`not listed by kube 1.33 by default: ${key}`);
  }
  return lines.sort();
}

// kubectl api-resources lists resources, not subresources: only the resource gaps show.
const allowed = knownGaps.filter((key) => !key.includes('/', key.indexOf(' '))).map((key) => `missing ${key}`).sort();

/** kubectl 1.33 where the machine has it (the release the fixture describes), else the default one. */
function kubectlBinary(): string | undefined {
  const [v133] = versionedKubectls(['1.33']);
  return v133?.present ? v133.path : undefined;
}

describe.each(deployments)('kubectl api-resources -o wide on $name', ({ name, start }) => {
  let dir: TempDir | undefined;
  let target: Target | undefined;
  let kubectl: Kubectl;
  const cluster = name.startsWith('kstore cluster up');

  beforeAll(async () => {
    dir = await makeTempDir('kstore-e2e-api-resources-');
    target = await start(dir);
    const binary = kubectlBinary();
    kubectl = new Kubectl({ kubeconfig: target.kubeconfig, cacheDir: path.join(dir.path, 'kube-cache'), ...(binary === undefined ? {} : { binary }) });
  }, 120_000);

  afterAll(async () => {
    kubectl?.stopAll();
    await target?.stop();
    await dir?.remove();
  }, 60_000);

  // On a cluster each API replica answers discovery itself: both are checked.
  const contexts = cluster
    ? [{ through: 'replica a1', context: ['--context', 'kstore-a1'] }, { through: 'replica a2', context: ['--context', 'kstore-a2'] }]
    : [{ through: 'the server', context: [] }];

  it.each(contexts)('lists exactly kube 1.33\'s resources through $through, the known gaps aside', async ({ context }) => {
    const args = ['api-resources', '-o', 'wide', ...context];
    const result = await kubectl.run(args);
    expect(result.code, describeResult(args, result)).toBe(0);
    const found = differences(expectedRows(), servedRows(result.stdout));
    expect(found, `kubectl api-resources differs from kube 1.33:\n  ${found.join('\n  ')}`).toEqual(allowed);
  });
});
