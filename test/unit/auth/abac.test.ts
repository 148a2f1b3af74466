import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AbacPolicyFileError, abacAuthorizer, loadAbacPolicyFile, parseAbacPolicyFile } from '../../../api/auth/abac.ts';
import type { AbacPolicy } from '../../../api/auth/abac.ts';
import type { AuthorizationAttributes } from '../../../api/auth/authz.ts';

const v1beta1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

function user(name: string, groups: readonly string[] = ['system:authenticated']) {
  return { name, uid: '', groups, extra: {} };
}

function resourceRequest(name: string, verb: string, namespace: string, resource: string, apiGroup = '', groups?: readonly string[]): AuthorizationAttributes {
  return {
    user: user(name, groups), verb, isResourceRequest: true, path: '', apiGroup, apiVersion: 'v1', namespace, resource, subresource: '', name: '',
  };
}

function pathRequest(name: string, verb: string, path: string, groups?: readonly string[]): AuthorizationAttributes {
  return {
    user: user(name, groups), verb, isResourceRequest: false, path, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '',
  };
}

describe('parseAbacPolicyFile', () => {
  it('reads v1beta1 lines, skipping blank and # comment lines', () => {
    const text = [
      '# the admin',
      '',
      '   ',
      v1beta1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
      '  # indented comment',
      `${v1beta1({ group: 'readers', readonly: true, namespace: 'prod', resource: 'pods', apiGroup: '' })}\r`,
    ].join('\n');
    expect(parseAbacPolicyFile(text, 'policy.jsonl')).toEqual<AbacPolicy[]>([
      { user: 'alice', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '' },
      { user: '', group: 'readers', readonly: true, apiGroup: '', resource: 'pods', namespace: 'prod', nonResourcePath: '' },
    ]);
  });

  it('turns a v1beta1 user or group of "*" into the group system:authenticated', () => {
    const [byUser, byGroup] = parseAbacPolicyFile(`${v1beta1({ user: '*', nonResourcePath: '*' })}\n${v1beta1({ user: 'bob', group: '*', nonResourcePath: '*' })}\n`, 'p');
    expect(byUser).toMatchObject({ user: '', group: 'system:authenticated' });
    expect(byGroup).toMatchObject({ user: '', group: 'system:authenticated' });
  });

  it('converts unversioned (v0) lines as kube does', () => {
    const policies = parseAbacPolicyFile([
      '{"user":"admin"}',
      '{"readonly":true}',
      '{"user":"scheduler","readonly":true,"resource":"pods"}',
      '{"group":"*","namespace":"projectCaribou"}',
      '{"apiVersion":"abac.authorization.kubernetes.io/v0","kind":"Policy","user":"carol","resource":"events"}',
    ].join('\n'), 'p');
    expect(policies).toEqual<AbacPolicy[]>([
      { user: 'admin', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
      { user: '', group: 'system:authenticated', readonly: true, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
      { user: 'scheduler', group: '', readonly: true, apiGroup: '*', resource: 'pods', namespace: '*', nonResourcePath: '' },
      { user: '', group: 'system:authenticated', readonly: false, apiGroup: '*', resource: '*', namespace: 'projectCaribou', nonResourcePath: '' },
      { user: 'carol', group: '', readonly: false, apiGroup: '*', resource: 'events', namespace: '*', nonResourcePath: '' },
    ]);
  });

  it.each([
    ['not JSON', 'this is not json', /^error reading policy file \/etc\/abac\.jsonl, line 3: this is not json: /],
    ['a wrong field type', v1beta1({ user: 'a', readonly: 'yes' }), /line 3: .*: json: cannot unmarshal string into Go struct field PolicySpec\.readonly of type bool$/],
    ['an unknown version', '{"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy","spec":{}}', /line 3: .*: no kind "Policy" is registered for version "abac\.authorization\.kubernetes\.io\/v2"$/],
    ['an unknown kind', '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Rule","spec":{}}', /line 3: .*: no kind "Rule" is registered for version/],
    ['a JSON array', '[1,2]', /line 3: \[1,2\]: json: cannot unmarshal array/],
  ])('names the line of %s', (_, bad, message) => {
    const text = `# header\n${v1beta1({ user: 'a', nonResourcePath: '*' })}\n${bad}\n${v1beta1({ user: 'b', nonResourcePath: '*' })}`;
    expect(() => parseAbacPolicyFile(text, '/etc/abac.jsonl')).toThrow(AbacPolicyFileError);
    expect(() => parseAbacPolicyFile(text, '/etc/abac.jsonl')).toThrow(message);
  });

  it('refuses a line longer than bufio.Scanner reads, without a line number', () => {
    const text = v1beta1({ user: 'x'.repeat(70_000) });
    expect(() => parseAbacPolicyFile(text, 'p')).toThrow('error reading policy file p: bufio.Scanner: token too long');
  });

  it('an empty file has no policies', () => {
    expect(parseAbacPolicyFile('', 'p')).toEqual([]);
    expect(parseAbacPolicyFile('\n# only a comment\n', 'p')).toEqual([]);
  });
});

describe('loadAbacPolicyFile', () => {
  it('reads the file, and names a missing one as Go does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'abac-'));
    try {
      const path = join(dir, 'policy.jsonl');
      await writeFile(path, `${v1beta1({ user: 'alice', nonResourcePath: '*' })}\n`);
      expect(await loadAbacPolicyFile(path)).toHaveLength(1);
      await expect(loadAbacPolicyFile(join(dir, 'missing'))).rejects.toThrow(`open ${join(dir, 'missing')}: no such file or directory`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('abacAuthorizer', () => {
  const policies = parseAbacPolicyFile([
    v1beta1({ user: 'admin', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' }),
    v1beta1({ user: 'scheduler', readonly: true, namespace: '*', resource: 'pods', apiGroup: '' }),
    v1beta1({ user: 'scheduler', namespace: '*', resource: 'bindings', apiGroup: '' }),
    v1beta1({ user: 'kubelet', readonly: true, namespace: '', resource: 'nodes', apiGroup: '' }),
    v1beta1({ group: 'dev', namespace: 'projectCaribou', resource: '*', apiGroup: 'apps' }),
    v1beta1({ user: '*', readonly: true, nonResourcePath: '/version' }),
    v1beta1({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '/healthz' }),
    v1beta1({ user: 'ops', nonResourcePath: '/metrics/*' }),
  ].join('\n'), 'p');
  const authorizer = abacAuthorizer(policies);

  it.each<[string, AuthorizationAttributes, 'allow' | 'noOpinion']>([
    ['admin anything', resourceRequest('admin', 'delete', 'kube-system', 'secrets'), 'allow'],
    ['admin a path', pathRequest('admin', 'post', '/anything'), 'allow'],
    ['readonly allows get', resourceRequest('scheduler', 'get', 'a', 'pods'), 'allow'],
    ['readonly allows list', resourceRequest('scheduler', 'list', 'a', 'pods'), 'allow'],
    ['readonly allows watch', resourceRequest('scheduler', 'watch', '', 'pods'), 'allow'],
    ['readonly refuses create', resourceRequest('scheduler', 'create', 'a', 'pods'), 'noOpinion'],
    ['a writable rule allows create', resourceRequest('scheduler', 'create', 'a', 'bindings'), 'allow'],
    ['apiGroup must match', resourceRequest('scheduler', 'get', 'a', 'pods', 'metrics.k8s.io'), 'noOpinion'],
    ['an empty namespace matches only cluster scope', resourceRequest('kubelet', 'get', '', 'nodes'), 'allow'],
    ['an empty namespace does not match a namespace', resourceRequest('kubelet', 'get', 'a', 'nodes'), 'noOpinion'],
    ['a group rule in its namespace', resourceRequest('mallory', 'create', 'projectCaribou', 'deployments', 'apps', ['dev', 'system:authenticated']), 'allow'],
    ['a group rule in another namespace', resourceRequest('mallory', 'create', 'other', 'deployments', 'apps', ['dev']), 'noOpinion'],
    ['a group rule for another group', resourceRequest('mallory', 'create', 'projectCaribou', 'deployments', 'apps', ['qa']), 'noOpinion'],
    ['a resource rule never matches a path', pathRequest('scheduler', 'get', '/api'), 'noOpinion'],
    ['user "*" is every authenticated user', pathRequest('someone', 'get', '/version'), 'allow'],
    ['user "*" is not an anonymous user', pathRequest('system:anonymous', 'get', '/version', ['system:unauthenticated']), 'noOpinion'],
    ['a readonly path rule refuses post', pathRequest('someone', 'post', '/version'), 'noOpinion'],
    ['the unauthenticated group', pathRequest('system:anonymous', 'get', '/healthz', ['system:unauthenticated']), 'allow'],
    ['a path rule is exact', pathRequest('someone', 'get', '/version/x'), 'noOpinion'],
    ['a trailing * is a prefix', pathRequest('ops', 'get', '/metrics/slis'), 'allow'],
    ['a trailing * needs the prefix', pathRequest('ops', 'get', '/metricsx'), 'noOpinion'],
    ['a path rule never matches a resource', resourceRequest('ops', 'get', '', 'metrics'), 'noOpinion'],
    ['an unknown user', resourceRequest('eve', 'get', 'a', 'pods'), 'noOpinion'],
  ])('%s', (_, attributes, decision) => {
    const result = authorizer.authorize(attributes) as { decision: string; reason: string };
    expect(result.decision).toBe(decision);
    expect(result.reason).toBe(decision === 'allow' ? '' : 'No policy matched.');
  });

  it('v0 rules match every API group and, with no namespace and resource, every path', () => {
    const legacy = abacAuthorizer(parseAbacPolicyFile('{"user":"admin"}\n{"user":"viewer","readonly":true,"resource":"pods"}', 'p'));
    expect(legacy.authorize(resourceRequest('admin', 'delete', 'x', 'deployments', 'apps'))).toMatchObject({ decision: 'allow' });
    expect(legacy.authorize(pathRequest('admin', 'get', '/logs/x'))).toMatchObject({ decision: 'allow' });
    expect(legacy.authorize(resourceRequest('viewer', 'get', 'ns', 'pods', 'anything'))).toMatchObject({ decision: 'allow' });
    expect(legacy.authorize(pathRequest('viewer', 'get', '/api'))).toMatchObject({ decision: 'noOpinion' });
  });

  it('never denies: with no policies every request has no opinion', () => {
    expect(abacAuthorizer([]).authorize(resourceRequest('admin', 'get', '', 'nodes'))).toEqual({ decision: 'noOpinion', reason: 'No policy matched.' });
  });
});
