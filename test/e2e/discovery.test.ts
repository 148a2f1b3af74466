// End-to-end: what the real kubectl learns from discovery on `kstore server` — the review groups
// (authorization.k8s.io/v1 for `kubectl auth can-i` and clients that discover before they post,
// authentication.k8s.io/v1 for `kubectl auth whoami`) in `api-versions` and `api-resources`, and
// the documents with a trailing slash that generated clients call (/version/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-discovery-', 'discovery');
});

afterAll(async () => {
  await fixture?.stop();
});

function server(): KubectlServer {
  if (fixture === undefined) throw new Error('server not started');
  return fixture;
}

describe('discovery through kubectl', () => {
  it('`kubectl api-versions` lists authorization.k8s.io/v1 and authentication.k8s.io/v1', async () => {
    const versions = (await server().ok(['api-versions'])).split('\n').map((line) => line.trim());
    expect(versions).toContain('authorization.k8s.io/v1');
    expect(versions).toContain('authentication.k8s.io/v1');
    expect(versions).not.toContain('authentication.k8s.io/v1beta1');
  });

  it('`kubectl api-resources --api-group=authorization.k8s.io` lists the four reviews, localsubjectaccessreviews namespaced', async () => {
    const table = parseTable(await server().ok(['api-resources', '--api-group=authorization.k8s.io']));
    expect(table.rows).toEqual([
      { NAME: 'localsubjectaccessreviews', SHORTNAMES: '', APIVERSION: 'authorization.k8s.io/v1', NAMESPACED: 'true', KIND: 'LocalSubjectAccessReview' },
      { NAME: 'selfsubjectaccessreviews', SHORTNAMES: '', APIVERSION: 'authorization.k8s.io/v1', NAMESPACED: 'false', KIND: 'SelfSubjectAccessReview' },
      { NAME: 'selfsubjectrulesreviews', SHORTNAMES: '', APIVERSION: 'authorization.k8s.io/v1', NAMESPACED: 'false', KIND: 'SelfSubjectRulesReview' },
      { NAME: 'subjectaccessreviews', SHORTNAMES: '', APIVERSION: 'authorization.k8s.io/v1', NAMESPACED: 'false', KIND: 'SubjectAccessReview' },
    ]);
  });

  it('`kubectl create -f` of a SelfSubjectAccessReview resolves its kind through discovery and prints the answer', async () => {
    const review = JSON.stringify({
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'discovery' } },
    });
    const created = JSON.parse(await server().ok(['create', '-f', '-', '-o', 'json'], review)) as { kind?: string; status?: { allowed?: boolean } };
    expect(created).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
  });

  it('`kubectl get --raw /version/` answers as /version', async () => {
    const slashed = JSON.parse(await server().ok(['get', '--raw', '/version/'])) as unknown;
    const plain = JSON.parse(await server().ok(['get', '--raw', '/version'])) as unknown;
    expect(slashed).toEqual(plain);
  });
});
